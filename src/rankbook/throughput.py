"""Throughput of tie-aware evaluation: one machine vs Dask LocalClusters of several sizes.

Used by the chapter "Evaluating at scale" and ``benchmarks/bench_dask.py``.
Every configuration evaluates the same :class:`~rankaudit.distributed.synthetic.SyntheticTable`:

- ``one machine``: :func:`rankaudit.evaluate` on the whole table as one pandas
  DataFrame, in this process;
- ``dask``: :func:`rankaudit.distributed.evaluate` on a ``LocalCluster`` with
  ``n`` single-threaded worker processes, the table generated and persisted on
  the workers before the clock starts (generation and transfer are not timed),
  in three layouts (:data:`LAYOUTS`): rows whole per partition
  (``row_partitioning="auto"`` finds nothing to move), rows straddling
  partition boundaries (``"auto"`` moves only those lines) and the full
  shuffle by row id (``"shuffle"``, what rows scattered over the frame need).

Before timing, every worker (and this process) runs the kernels once on a tiny
table, so numba's compilation or cache loading is not timed.  Wall-clock time
is the best of ``repeats`` runs (``time.perf_counter``).
"""

from __future__ import annotations

import logging
import resource
import time
from collections.abc import Iterable

import pandas as pd

from rankaudit._optional import require, tqdm
from rankaudit.distributed.evaluate import evaluate as evaluate_dask
from rankaudit.distributed.exact import exact_mean
from rankaudit.distributed.synthetic import (
    GENERATOR,
    NAME,
    SyntheticTable,
    synthetic_long_dask,
    synthetic_long_table,
)
from rankaudit.ties.evaluate import evaluate as evaluate_local
from rankbook.data.source import DataSource

__all__ = [
    "LAYOUTS",
    "measure_one_machine",
    "measure_throughput",
    "measure_with_dask",
    "synthetic_source",
]

#: layout name -> (lines moved to the next partition per boundary, row_partitioning)
LAYOUTS: dict[str, tuple[int, str]] = {
    "rows whole per partition": (0, "auto"),
    "rows straddle boundaries": (500, "auto"),
    "full shuffle by row id": (0, "shuffle"),
}


def _warm_up(k: int, ties: str) -> None:
    tiny = synthetic_long_table(SyntheticTable(20, n_candidates=5, min_candidates=2))
    evaluate_local(tiny, k=k, ties=ties)


def _peak_rss_mb() -> float:
    """Peak resident memory of the calling process, in MB (Linux reports kB)."""
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def _best_time(run, repeats: int):
    best, result = float("inf"), None
    for _ in range(repeats):
        start = time.perf_counter()
        result = run()
        best = min(best, time.perf_counter() - start)
    return best, result


def measure_one_machine(
    table: SyntheticTable, *, k: int = 10, ties: str = "expected", repeats: int = 1
) -> dict:
    """Time :func:`rankaudit.evaluate` on the whole table in this process."""
    frame = synthetic_long_table(table)
    _warm_up(k, ties)
    seconds, rows = _best_time(lambda: evaluate_local(frame, k=k, ties=ties), repeats)
    return {
        "engine": "one machine",
        "n_workers": 0,
        "layout": "one pandas DataFrame",
        "seconds": seconds,
        f"mean_nDCG@{k}": exact_mean(rows[f"nDCG@{k}"]),
    }


def measure_with_dask(
    table: SyntheticTable,
    n_workers: int,
    *,
    k: int = 10,
    ties: str = "expected",
    repeats: int = 1,
    layouts: Iterable[str] = tuple(LAYOUTS),
) -> list[dict]:
    """Time :func:`rankaudit.distributed.evaluate` on a fresh LocalCluster of ``n_workers``."""
    _d = require("distributed", purpose="rankaudit.distributed")
    Client, LocalCluster, wait = _d.Client, _d.LocalCluster, _d.wait

    records = []
    with (
        LocalCluster(
            n_workers=n_workers,
            threads_per_worker=1,
            processes=True,
            dashboard_address=None,
            # no dashboard, and the scheduler's HTTP routes on a free port rather than 8787,
            # so two clusters on one machine do not collide (nor warn on stderr)
            scheduler_kwargs={"dashboard": False, "dashboard_address": ":0"},
            silence_logs=logging.ERROR,
        ) as cluster,
        Client(cluster) as client,
    ):
        client.run(_warm_up, k, ties)
        frames: dict[int, object] = {}
        for layout in layouts:
            straddle, how = LAYOUTS[layout]
            if straddle not in frames:
                frames.clear()  # keep one persisted copy of the table at a time
                frames[straddle] = synthetic_long_dask(table, straddle_lines=straddle).persist()
                wait(frames[straddle])
            frame = frames[straddle]

            def run(frame=frame, how=how):
                return evaluate_dask(frame, k=k, ties=ties, row_partitioning=how, progress=False)

            seconds, result = _best_time(run, repeats)
            peak = max(client.run(_peak_rss_mb).values())
            records.append(
                {
                    "engine": "dask LocalCluster",
                    "n_workers": n_workers,
                    "layout": layout,
                    "seconds": seconds,
                    f"mean_nDCG@{k}": float(result.means[f"nDCG@{k}"]),
                    "peak_worker_rss_mb": peak,
                }
            )
            del result
    return records


def measure_throughput(
    table: SyntheticTable,
    workers: Iterable[int] = (1, 2),
    *,
    k: int = 10,
    ties: str = "expected",
    repeats: int = 1,
    layouts: Iterable[str] = tuple(LAYOUTS),
    progress: bool = True,
) -> pd.DataFrame:
    """One line per configuration: seconds, rows/s, time relative to one machine, mean NDCG@k."""
    workers = list(workers)
    layouts = list(layouts)
    records = []
    with tqdm(total=1 + len(workers), desc="throughput", disable=not progress) as bar:
        records.append(measure_one_machine(table, k=k, ties=ties, repeats=repeats))
        bar.update()
        for n in workers:
            records += measure_with_dask(table, n, k=k, ties=ties, repeats=repeats, layouts=layouts)
            bar.update()
    out = pd.DataFrame(records)
    out["rows_per_second"] = table.n_rows / out["seconds"]
    out["time_vs_one_machine"] = out["seconds"] / out["seconds"].iloc[0]
    return out


def synthetic_source(table: SyntheticTable) -> DataSource:
    """Provenance of a synthetic table (kind ``"simulated"``, naming the generator)."""
    return DataSource(
        name=NAME, kind="simulated", version="1", generator=GENERATOR, details=table.details()
    )
