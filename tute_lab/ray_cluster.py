"""Connecting to Ray: the helpers training (``--ray``, :mod:`tute_lab.training.workers`) and
evaluation (``--ray``, :func:`tute_lab.evaluation.play_distributed`) share.

``--ray local`` starts a private Ray instance on this machine, ``auto`` joins the cluster started
here by ``ray start``, ``HOST:PORT`` a cluster's head. Ray is the ``[ray]`` extra: nothing here
imports it before it is asked for.
"""

from __future__ import annotations

import time


def check_ray_options(address: str | None, num_workers: int | None) -> None:
    """``--ray`` and ``--num-workers`` (evaluate.py's and train.py's), checked before anything
    runs: a ``ValueError`` with a short message for a worker count below 1, workers without
    ``--ray``, or ``--ray`` without Ray installed."""
    if num_workers is not None:
        if num_workers < 1:
            raise ValueError(f"--num-workers must be at least 1, got {num_workers}")
        if not address:
            raise ValueError("--num-workers needs --ray local|auto|ADDRESS")
    if address:
        import_ray()


def import_ray():
    """The ``ray`` module, or a ``ValueError`` saying how to install it."""
    try:
        import ray
    except ImportError:
        raise ValueError("--ray needs Ray installed: pip install 'tute_env[ray]'") from None
    return ray


def connect_ray(address: str = "local", num_cpus: int | None = None) -> float:
    """Connect this process to Ray: ``local`` starts a private instance (``num_cpus`` CPUs,
    default all), ``auto`` joins the cluster started on this machine by ``ray start``, else
    ``HOST:PORT`` (or ``ray://HOST:PORT``) of a cluster's head. Returns the seconds it took.
    Raises ``ValueError`` with a short message when Ray is missing or the cluster unreachable."""
    ray = import_ray()
    start = time.perf_counter()
    if ray.is_initialized():
        return 0.0
    quiet = dict(include_dashboard=False, log_to_driver=False, configure_logging=False)
    if address == "local":
        ray.init(address="local", num_cpus=num_cpus, **quiet)  # private, even beside a `ray start` cluster
        return time.perf_counter() - start
    if address != "auto":
        host, _, port = address.removeprefix("ray://").rpartition(":")
        if not host or not port.isdigit():
            raise ValueError(f"--ray {address}: expected local, auto or HOST:PORT")
        import socket

        try:
            socket.create_connection((host, int(port)), timeout=5).close()
        except OSError as err:
            raise ValueError(f"--ray {address}: no Ray cluster reachable there ({err.strerror or err})") from None
    try:
        ray.init(address=address, log_to_driver=False, configure_logging=False)
    except Exception as err:  # ConnectionError (no cluster), RuntimeError, version mismatch...
        first = str(err).strip().splitlines()[0] if str(err).strip() else type(err).__name__
        raise ValueError(f"--ray {address}: could not connect to Ray ({first})") from None
    return time.perf_counter() - start


def connect_workers(address: str, num_workers: int | None) -> tuple[int, float]:
    """``--ray ADDRESS --num-workers N`` of an evaluation: this process connected
    (:func:`connect_ray`, a local instance with N CPUs) and the number of Ray tasks to split a
    deal set into (N, default the cluster's CPUs). Returns (workers, start-up seconds)."""
    startup = connect_ray(address, num_cpus=num_workers if address == "local" else None)
    import ray

    return num_workers or max(1, int(ray.cluster_resources().get("CPU", 1))), startup
