"""Dask overhead: ``rankaudit.distributed.evaluate`` vs ``rankaudit.evaluate`` on one machine.

Workload (issue 8): the same long-format table for both, 2,000,000 rows x 31
candidates (62,000,000 lines: int64 row id, int32 item id, float32 score, int8
label; about 1.05 GB), integer scores 0..3 (tie-heavy), one relevant item per
row, ``ties="expected"``, k = 10.  The table comes from
:class:`rankaudit.distributed.SyntheticTable` (SIMULATED), generated block by
block: in this process for the single-machine run, on the workers for Dask.

Measured (best of ``--repeats`` runs, wall clock):

- one machine: ``rankaudit.evaluate(pandas_frame)``;
- Dask: ``rankaudit.distributed.evaluate(dask_frame)`` on a ``LocalCluster`` of
  ``--workers`` single-threaded processes, with the table already persisted in
  the workers' memory (generation is not timed), in three layouts: rows whole
  per partition, rows straddling partition boundaries (``"auto"`` moves only
  those lines) and the full shuffle by row id (``"shuffle"``).

The ratio is Dask time / single-machine time: the price of Dask on one
machine (on a real cluster the gain comes from memory and cores that one
machine does not have).  The benchmark also checks that every configuration
gives the same mean NDCG@k, bit for bit.  Memory: the single-machine run is
done and freed before the cluster starts.

Usage::

    python benchmarks/bench_dask.py                  # full 2,000,000-row table (minutes)
    python benchmarks/bench_dask.py --rows 200000    # quick run
"""

from __future__ import annotations

import argparse
import gc
import json
import os
import platform
import time
from pathlib import Path

import pandas as pd

from rankaudit.distributed.synthetic import SyntheticTable
from rankbook.throughput import LAYOUTS, measure_one_machine, measure_with_dask

FULL_ROWS = 2_000_000


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--rows", type=int, default=FULL_ROWS, help="rows of the table")
    parser.add_argument("--candidates", type=int, default=31, help="candidates per row")
    parser.add_argument("--workers", type=int, default=2, help="LocalCluster worker processes")
    parser.add_argument("--rows-per-partition", type=int, default=50_000)
    parser.add_argument("--repeats", type=int, default=1, help="timed runs (best kept)")
    parser.add_argument("--json", type=Path, default=None, help="also write the table as JSON")
    args, _ = parser.parse_known_args(argv)  # run_all.py passes every benchmark the same flags

    table = SyntheticTable(
        args.rows, n_candidates=args.candidates, score_levels=4, block_rows=args.rows_per_partition
    )
    lines = args.rows * args.candidates
    print(
        f"table: {args.rows:,} rows x {args.candidates} candidates = {lines:,} lines "
        f"(SIMULATED, {table.source().generator}); ties='expected', k=10"
    )
    print(
        f"machine: {platform.processor() or platform.machine()}, {os.cpu_count()} CPUs; "
        f"Dask LocalCluster with {args.workers} single-threaded worker processes"
    )

    start = time.perf_counter()
    records = [measure_one_machine(table, k=10, ties="expected", repeats=args.repeats)]
    gc.collect()
    print(f"one machine done ({time.perf_counter() - start:.0f} s)", flush=True)
    records += measure_with_dask(
        table, args.workers, k=10, ties="expected", repeats=args.repeats, layouts=tuple(LAYOUTS)
    )
    out = pd.DataFrame(records)
    out["rows_per_second"] = args.rows / out["seconds"]
    out["dask_overhead_ratio"] = out["seconds"] / out["seconds"].iloc[0]
    same = out["mean_nDCG@10"].nunique() == 1
    print()
    print(out.to_string(index=False, float_format=lambda v: f"{v:,.4g}"))
    print(f"\nmean NDCG@10 identical in every configuration: {same}")
    print(f"total wall time: {time.perf_counter() - start:.0f} s")
    if args.json is not None:
        args.json.write_text(json.dumps(out.to_dict(orient="records"), indent=2))
    return 0 if same else 1


if __name__ == "__main__":
    raise SystemExit(main())
