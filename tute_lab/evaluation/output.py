"""Output: CSV and JSON files, the win-rate table as a PNG, output paths checked before a run."""

from __future__ import annotations

import csv
import json
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from .results import PairingResult
from .tournament import RoundRobinResult, ci_text

CSV_FIELDS = ["agent_a", "agent_b", "num_deals", "hands", "seed_start", "win_rate", "ci_low", "ci_high",
              "mean_point_diff", "point_diff_ci", "games_a", "games_b", "seconds"]


def write_csv(path: str | Path, pairings: Sequence[PairingResult], preset: str = "") -> None:
    """One row per pairing."""
    with open(path, "w", newline="") as f:
        writer = csv.writer(f)
        writer.writerow(["preset", *CSV_FIELDS])
        for p in pairings:
            writer.writerow([preset, *(getattr(p, k) for k in CSV_FIELDS)])


def write_json(path: str | Path, payload: dict) -> None:
    with open(path, "w") as f:
        json.dump(payload, f, indent=2, default=_json_default)
        f.write("\n")


def _json_default(x):
    if isinstance(x, np.generic):
        return x.item()
    if isinstance(x, np.ndarray):
        return x.tolist()
    raise TypeError(f"not JSON serialisable: {type(x)}")


def plot_table(result: RoundRobinResult | PairingResult, path: str | Path, title: str = "") -> None:
    """A PNG of the win-rate table (row vs column, with CI half widths)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    if isinstance(result, PairingResult):
        names = [result.agent_a, result.agent_b]
        table = np.array([[0.5, result.win_rate], [1 - result.win_rate, 0.5]])
        half = np.nan if result.ci_half_width is None else result.ci_half_width
        ci = np.array([[0, half], [half, 0]])
    else:
        names, table, ci = result.agents, result.win_rate_table(), result.ci_table()
    k = len(names)
    fig, ax = plt.subplots(figsize=(1.6 * k + 2.5, 1.3 * k + 1.8))
    im = ax.imshow(table, cmap="RdYlGn", vmin=0, vmax=1)
    for i in range(k):
        for j in range(k):
            text = "-" if i == j else f"{table[i, j]:.3f}\n{ci_text(ci[i, j]).strip()}"
            ax.text(j, i, text, ha="center", va="center", fontsize=9)
    ax.set_xticks(range(k), names, rotation=30, ha="right")
    ax.set_yticks(range(k), names)
    ax.set_xlabel("opponent")
    ax.set_ylabel("agent")
    ax.set_title(title or "win rate of row agent vs column agent (95% CI)")
    fig.colorbar(im, ax=ax, fraction=0.046, pad=0.04)
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)


def check_output_path(option: str, path: str | None) -> None:
    """``ValueError`` if the directory of the file ``--option path`` is to be written in is missing
    (checked before a run, so that its results are not lost at the end)."""
    if path and not Path(path).resolve().parent.is_dir():
        raise ValueError(f"--{option} {path}: the directory {Path(path).resolve().parent} does not exist")
