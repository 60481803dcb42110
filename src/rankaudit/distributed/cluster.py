"""Connect to a Dask cluster: a scheduler address, or a ``LocalCluster`` started and closed here.

``connect(None, n_workers)`` (or ``"local"``) starts ``n_workers`` single-threaded worker
processes on this machine, without a dashboard and with worker logs silenced (a failed task is
reported once, by the caller, not as a logged traceback); ``connect("tcp://host:8786")``
connects to a running scheduler.  Either way the client is closed on exit, and a cluster
started here is shut down.
"""

from __future__ import annotations

import logging
from collections.abc import Iterator
from contextlib import contextmanager

from rankaudit._checks import WORKERS, check_count
from rankaudit._optional import install_hint

__all__ = ["connect"]


@contextmanager
def connect(scheduler: str | None, n_workers: int = 2) -> Iterator[object]:
    """A ``distributed.Client`` on ``scheduler`` (None or ``"local"``: a new LocalCluster of
    ``1..WORKERS.most`` worker processes)."""
    check_count(n_workers, "n_workers", WORKERS)
    try:
        from distributed import Client, LocalCluster
    except ImportError:
        raise ImportError(
            "a Dask cluster needs the 'distributed' extra: " + install_hint("distributed")
        ) from None
    cluster = None
    if scheduler is None or scheduler == "local":
        cluster = LocalCluster(
            n_workers=n_workers,
            threads_per_worker=1,
            processes=True,
            dashboard_address=None,
            # no dashboard, and the scheduler's HTTP routes on a free port rather than 8787,
            # so two clusters on one machine do not collide (nor warn on stderr)
            scheduler_kwargs={"dashboard": False, "dashboard_address": ":0"},
            silence_logs=logging.CRITICAL,
        )
    try:
        with Client(cluster if cluster is not None else scheduler) as client:
            yield client
    finally:
        if cluster is not None:
            cluster.close()
