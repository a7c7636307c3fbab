"""The PPO policy network, checkpoint loading, and the trained agent.

A checkpoint is a ``torch.save`` dict loaded with ``weights_only=True``:
``{"format": FORMAT, "preset": ..., "rules": {option: value}, "model_config": {...},
"model": state_dict, ...}`` (training checkpoints add optimiser, RNG states, opponent pool and
counters; the shipped agents under ``agents/checkpoints/`` keep only the model).
"""

from __future__ import annotations

import dataclasses
from pathlib import Path

import numpy as np

from tute_env.engine.cards import NUM_ACTIONS
from tute_env.engine.observation import observation_layout, observation_scale, perfect_information_layout
from tute_env.engine.rules import Rules
from tute_env.play.streams import mix, uniforms

from .base import CHECKPOINT_DIR, Agent, shipped_presets, train_extra

with train_extra("a trained agent (ppo or a checkpoint)"):  # without torch: one line naming the [train] extra
    import torch
    from torch import nn

FORMAT = "tute_env.ppo/1"


class PolicyNet(nn.Module):
    """An MLP over the int8 observation: masked action logits, and a value.

    With ``central_critic`` the value reads the perfect-information encoding (all hands); it is
    used during training only, the policy never sees hidden cards.
    """

    def __init__(self, rules: Rules, hidden: tuple[int, ...] = (512, 256), central_critic: bool = False):
        super().__init__()
        self.config = {"hidden": list(hidden), "central_critic": bool(central_critic)}
        obs_size = observation_layout(rules).size
        scale = torch.from_numpy(observation_scale(rules))
        self.register_buffer("obs_scale", scale)
        self.policy_body = _mlp(obs_size, hidden)
        self.policy_head = nn.Linear(hidden[-1], NUM_ACTIONS)
        critic_size = perfect_information_layout(rules).size if central_critic else obs_size
        critic_scale = torch.ones(critic_size)
        critic_scale[:obs_size] = scale
        self.register_buffer("critic_scale", critic_scale)
        self.value_body = _mlp(critic_size, hidden)
        self.value_head = nn.Linear(hidden[-1], 1)
        nn.init.orthogonal_(self.policy_head.weight, 0.01)
        nn.init.zeros_(self.policy_head.bias)
        nn.init.orthogonal_(self.value_head.weight, 1.0)
        nn.init.zeros_(self.value_head.bias)

    def logits(self, obs: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
        """Action logits with illegal actions masked out (-inf-like), never penalised."""
        raw = self.policy_head(self.policy_body(obs.float() * self.obs_scale)).float()  # float32 under autocast too
        return raw.masked_fill(~mask, -1e9)

    def value(self, critic_obs: torch.Tensor) -> torch.Tensor:
        return self.value_head(self.value_body(critic_obs.float() * self.critic_scale)).float().squeeze(-1)


def _mlp(size: int, hidden: tuple[int, ...]) -> nn.Sequential:
    layers = []
    for width in hidden:
        linear = nn.Linear(size, width)
        nn.init.orthogonal_(linear.weight, np.sqrt(2))
        nn.init.zeros_(linear.bias)
        layers += [linear, nn.ReLU()]
        size = width
    return nn.Sequential(*layers)


def widen(old: dict[str, torch.Tensor], template: dict[str, torch.Tensor]) -> dict[str, torch.Tensor]:
    """``old`` (a PolicyNet state dict) grown to the wider hidden layers of ``template`` (a freshly
    initialised PolicyNet's state dict with as many layers, none narrower) without changing what it
    computes (Net2Net-style): the new units get ``template``'s random incoming weights and zero
    outgoing weights, so gradients reach them and the outputs stay exactly those of ``old``."""
    wide = {}
    for key, tensor in old.items():
        new = template[key].clone()
        if any(o > n for o, n in zip(tensor.shape, new.shape)) or tensor.dim() != new.dim():
            raise ValueError(f"cannot widen {key} from {tuple(tensor.shape)} to {tuple(new.shape)}: layers only grow")
        rows = tensor.shape[0]
        new[:rows] = 0  # an existing unit reads nothing from the new units of the layer below
        new[tuple(slice(0, s) for s in tensor.shape)] = tensor
        wide[key] = new
    return wide


def load_checkpoint(path: str | Path) -> dict:
    """Load a checkpoint dict safely; a missing, truncated or foreign file raises ``ValueError``."""
    path = Path(path)
    if not path.is_file():
        raise ValueError(f"checkpoint {path} does not exist")
    try:
        data = torch.load(path, map_location="cpu", weights_only=True)
    except Exception as err:  # torch raises many kinds for a damaged file
        raise ValueError(f"{path} is not a checkpoint torch can load ({type(err).__name__})") from None
    if not isinstance(data, dict) or data.get("format") != FORMAT:
        raise ValueError(f"{path} is not a tute_env PPO checkpoint (format {FORMAT!r} expected)")
    return data


def rules_of(data: dict) -> Rules:
    return Rules(**data["rules"])


def build_policy(data: dict) -> PolicyNet:
    """The network of a checkpoint dict, weights loaded."""
    config = data["model_config"]
    net = PolicyNet(rules_of(data), tuple(config["hidden"]), config["central_critic"])
    try:
        net.load_state_dict(data["model"])
    except (RuntimeError, KeyError) as err:
        raise ValueError(f"checkpoint model does not fit its configuration: {err}") from None
    net.eval()
    return net


def save_policy(path: str | Path, net: PolicyNet, rules: Rules, preset: str, **extra) -> None:
    """Write a model-only checkpoint atomically (temp file, then rename)."""
    data = {
        "format": FORMAT,
        "preset": preset,
        "rules": dataclasses.asdict(rules),
        "model_config": net.config,
        "model": net.state_dict(),
        **extra,
    }
    atomic_save(data, path)


def atomic_save(data: dict, path: str | Path) -> None:
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(path.name + ".tmp")
    torch.save(data, tmp)
    tmp.replace(path)


def resolve_device(spec: str | torch.device = "auto") -> torch.device:
    """A torch device from ``"auto"`` (CUDA when this torch has it, else the CPU), ``"cpu"``,
    ``"cuda"`` or ``"cuda:N"``; a ``ValueError`` names what is missing."""
    if isinstance(spec, torch.device):
        return spec
    if spec == "auto":
        return torch.device("cuda" if torch.cuda.is_available() else "cpu")
    try:
        device = torch.device(spec)
    except (RuntimeError, TypeError):
        raise ValueError(f"bad device {spec!r}: expected auto, cpu, cuda or cuda:N") from None
    if device.type not in ("cpu", "cuda"):
        raise ValueError(f"bad device {spec!r}: expected auto, cpu, cuda or cuda:N")
    if device.type == "cuda":
        if not torch.cuda.is_available():
            raise ValueError(f"device {spec!r}: this torch sees no CUDA GPU (a CPU build, or no driver); "
                             "install a CUDA build of torch or use --device cpu")
        if device.index is not None and device.index >= torch.cuda.device_count():
            raise ValueError(f"device {spec!r}: there are {torch.cuda.device_count()} CUDA devices")
    return device


class PPOAgent(Agent):
    """A trained policy. ``greedy=True`` plays the most likely legal action, else samples: from
    ``self.generator``, or with keys (a table with streams) by inverting the row's cumulative
    probabilities at ``uniforms(mix(self.seed, key))``. Spec ``ppo:sample``: the shipped agent,
    sampling."""

    name = "ppo"
    takes_keys = True
    stack: PolicyStack | None = None  # set when a PolicyStack runs this agent's network with others

    def __init__(self, rules: Rules, seed: int = 0, net: PolicyNet | None = None, greedy: bool = True,
                 device: str | torch.device = "cpu"):
        super().__init__(rules, seed)
        if net is None:
            net, shipped_rules = self._load_shipped(rules)
            rules = shipped_rules
        self.device = resolve_device(device)
        self.net = net.to(self.device)
        self.greedy = greedy
        self.generator = torch.Generator(device=self.device).manual_seed(seed)

    @staticmethod
    def _load_shipped(rules: Rules) -> tuple[PolicyNet, Rules]:
        for path in sorted(CHECKPOINT_DIR.glob("*.pt")):
            data = load_checkpoint(path)
            if rules_of(data) == rules:
                return build_policy(data), rules
        raise ValueError(f"no shipped PPO agent for these rules: the shipped ones play {', '.join(shipped_presets())} "
                         "as preset; pass a checkpoint path instead")

    @classmethod
    def from_checkpoint(cls, path: str | Path, rules: Rules, seed: int = 0, device: str = "cpu") -> PPOAgent:
        data = load_checkpoint(path)
        if rules_of(data) != rules:
            trained = rules_of(data)
            changed = ", ".join(f"{k}={getattr(trained, k)!r}" for k in data["rules"] if getattr(trained, k) != getattr(rules, k))
            raise ValueError(f"checkpoint {path} was trained for other rules: preset {data.get('preset')!r} ({changed})")
        agent = cls(rules, seed, net=build_policy(data), device=device)
        agent.name = f"ppo:{Path(path).name}"
        return agent

    @torch.no_grad()
    def act_batch(self, observations, masks, keys=None):
        obs = torch.as_tensor(np.asarray(observations)).to(self.device)
        return self.choose(self.net.logits(obs, torch.as_tensor(np.asarray(masks, bool)).to(self.device)), keys)

    def choose(self, logits: torch.Tensor, keys=None) -> np.ndarray:
        """Actions from masked logits (k, 47): greedy, keyed or sampled from ``generator``."""
        if self.greedy:
            return logits.argmax(dim=1).cpu().numpy()
        if keys is not None:
            cum = np.cumsum(torch.softmax(logits, dim=1).double().cpu().numpy(), axis=1)
            u = uniforms(mix(self.seed, keys)) * cum[:, -1]
            # The first action whose cumulative probability passes u: never one of probability 0.
            return (cum > u[:, None]).argmax(axis=1).astype(np.int64)
        return sample(logits, self.generator).cpu().numpy()


def sample(logits: torch.Tensor, generator: torch.Generator) -> torch.Tensor:
    """(k,) actions drawn from softmax(``logits``) (k, A), by the Gumbel-max trick: one uniform per
    logit from ``generator``. A masked action (logit -1e9) is never drawn. On CPU batches of a
    few hundred rows it is about 3x faster than ``torch.multinomial``."""
    u = torch.rand(logits.shape, generator=generator, device=logits.device)
    gumbel = -torch.log(-torch.log(u.clamp_min(1e-30)))  # in [-4.3, 16.7]: -1e9 never wins
    return (logits.float() + gumbel).argmax(dim=1)


class PolicyStack:
    """The policy networks of several :class:`PPOAgent` of one architecture, run as one batched
    forward pass. Each agent's ``stack`` is set to the stack; a :class:`~tute_env.play.seating.Seating`
    calls all the agents of a stack that act in a round at once (:meth:`act_many`): the opponent
    pool's K snapshots cost one forward a round instead of K small ones. Each agent then chooses
    from its own rows' logits as its ``act_batch`` would (:meth:`PPOAgent.choose`). The weights
    are copied when the stack is built (and cast once to an autocast dtype when first run under
    it): build a new stack when a network's weights change."""

    def __init__(self, agents: list[PPOAgent]):
        self.agents = list(agents)
        self.member = {id(agent): j for j, agent in enumerate(self.agents)}
        nets = [agent.net for agent in self.agents]
        self.device = self.agents[0].device
        if any(agent.device != self.device for agent in self.agents) or any(
                net.config != nets[0].config or not torch.equal(net.obs_scale, nets[0].obs_scale) for net in nets):
            raise ValueError("a PolicyStack needs networks of one architecture and rules on one device")
        self.scale = nets[0].obs_scale
        layers = [[m for m in (*net.policy_body, net.policy_head) if isinstance(m, nn.Linear)] for net in nets]
        # Per layer: weights (K, in, out) and biases (K, 1, out).
        self.layers = {torch.float32: [(torch.stack([ls[i].weight.detach().T for ls in layers]).contiguous(),
                                        torch.stack([ls[i].bias.detach()[None] for ls in layers]))
                                       for i in range(len(layers[0]))]}
        for agent in self.agents:
            agent.stack = self

    def _layers(self) -> list[tuple[torch.Tensor, torch.Tensor]]:
        kind = self.device.type
        dtype = torch.get_autocast_dtype(kind) if torch.is_autocast_enabled(kind) else torch.float32
        if dtype not in self.layers:
            self.layers[dtype] = [(w.to(dtype), b.to(dtype)) for w, b in self.layers[torch.float32]]
        return self.layers[dtype]

    @torch.no_grad()
    def act_many(self, calls: list[tuple[PPOAgent, np.ndarray, np.ndarray, np.ndarray | None]]) -> list[np.ndarray]:
        """``calls``: (agent, observations, masks, keys or None) per agent of this stack (each
        at most once); returns each agent's actions, what its ``act_batch`` would choose."""
        # Every member's network runs (no rows for those not called): one batched product a layer.
        members = [self.member[id(agent)] for agent, *_ in calls]
        sizes = [len(obs) for _, obs, _, _ in calls]
        obs = np.zeros((len(self.agents), max(sizes), self.scale.numel()), np.int8)
        mask = np.zeros((len(self.agents), max(sizes), NUM_ACTIONS), bool)
        for j, (_, o, m, _) in zip(members, calls):
            obs[j, : len(o)], mask[j, : len(m)] = o, m
        layers = self._layers()
        h = (torch.from_numpy(obs).to(self.device) * self.scale).to(layers[0][0].dtype)
        for i, (w, b) in enumerate(layers):
            h = torch.baddbmm(b, h, w)
            if i < len(layers) - 1:
                h = torch.relu(h)
        logits = h.float().masked_fill(~torch.from_numpy(mask).to(self.device), -1e9)
        return [agent.choose(logits[j, :n], keys) for j, n, (agent, _, _, keys) in zip(members, sizes, calls)]


def export(checkpoint: str | Path, out: str | Path) -> None:
    """Write the model of a training checkpoint as a small model-only checkpoint (for shipping)."""
    data = load_checkpoint(checkpoint)
    net = build_policy(data)
    steps = int(data["update"]) * int(data["args"]["num_envs"]) * int(data["args"]["num_steps"]) if "args" in data else None
    save_policy(out, net, rules_of(data), data["preset"], learner_steps=steps,
                eval_history=list(data.get("eval_history", [])))


if __name__ == "__main__":
    import sys

    if len(sys.argv) != 3:
        sys.exit("usage: python -m agents.ppo TRAINING_CHECKPOINT OUT.pt  (export a model-only checkpoint)")
    export(sys.argv[1], sys.argv[2])
