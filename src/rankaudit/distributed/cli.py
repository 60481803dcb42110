"""The runnable example behind ``python -m rankaudit.distributed`` (usage: the package
docstring)."""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Sequence
from pathlib import Path

from rankaudit._checks import (
    CUTOFF_MAX,
    RANDOM_REPEATS,
    SYNTHETIC_ROWS,
    WORKERS,
    CountBound,
    check_count,
)
from rankaudit._optional import require
from rankaudit.distributed.cluster import connect
from rankaudit.distributed.evaluate import evaluate
from rankaudit.distributed.prevalence import tie_prevalence
from rankaudit.distributed.synthetic import SyntheticTable, synthetic_long_dask
from rankaudit.measures.rules import TIE_RULES
from rankaudit.runs.outputs import check_output_dir

__all__ = ["build_parser", "main", "read_long_frame"]


def _count(bound: CountBound):
    """argparse type: a count in ``1..bound`` (:func:`rankaudit._checks.check_count`):
    ``--n-workers 0`` would start no worker and wait forever, a huge one never finish."""

    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"must be an integer >= 1; got {text!r}") from None
        try:
            return check_count(value, "the value", bound)
        except ValueError as exc:
            raise argparse.ArgumentTypeError(str(exc).removeprefix("the value ")) from None

    parse.__name__ = "count"  # how argparse names the type in its message
    return parse


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="python -m rankaudit.distributed",
        description="Tie-aware HR@k / NDCG@k / RR of a long-format table on a Dask cluster.",
    )
    parser.add_argument(
        "--scheduler",
        default=None,
        help="scheduler address, e.g. tcp://host:8786 (default: start a LocalCluster)",
    )
    parser.add_argument(
        "--n-workers",
        type=_count(WORKERS),
        default=2,
        help=f"LocalCluster worker processes, 1..{WORKERS} (ignored with --scheduler); default 2",
    )
    parser.add_argument(
        "--input",
        default=None,
        help="Parquet file/directory/glob or *.csv in long format (default: a synthetic table)",
    )
    parser.add_argument(
        "--synthetic-rows",
        type=_count(SYNTHETIC_ROWS),
        default=100_000,
        help=f"rows of the synthetic table when --input is not given, 1..{SYNTHETIC_ROWS} "
        "(31 candidates a row); default 100000",
    )
    parser.add_argument(
        "--k",
        type=_count(CountBound(CUTOFF_MAX, "the kernels index lists with 32-bit integers")),
        default=10,
        help=f"cutoff of HR and NDCG, 1..{CUTOFF_MAX}; default 10",
    )
    parser.add_argument("--ties", choices=TIE_RULES, default="expected", help="tie rule")
    parser.add_argument("--seed", type=int, default=0, help="seed of 'hash' and 'random'")
    parser.add_argument(
        "--n-repeats",
        type=_count(RANDOM_REPEATS),
        default=1,
        help=f"repeats of 'random', 1..{RANDOM_REPEATS} (each draws every row's order again)",
    )
    parser.add_argument(
        "--empty",
        choices=("error", "zero", "drop"),
        default="error",
        help="rows without a relevant item",
    )
    parser.add_argument("--row-col", default="row_id")
    parser.add_argument("--item-col", default="item_id")
    parser.add_argument("--score-col", default="score")
    parser.add_argument("--label-col", default="label")
    parser.add_argument("--user-col", default=None)
    parser.add_argument(
        "--row-partitioning",
        choices=("auto", "shuffle", "check"),
        default="auto",
        help="auto (default): move only straddling rows, or shuffle scattered "
        "rows by id; shuffle: always; check: rows must be whole per partition",
    )
    parser.add_argument("--prevalence", action="store_true", help="also report tie prevalence")
    parser.add_argument(
        "--output",
        default=None,
        help="write per-row metrics to this Parquet directory (a path that exists and is not "
        "a directory is refused before anything runs)",
    )
    return parser


def read_long_frame(path: str):
    """A Dask DataFrame from Parquet (file, directory or glob) or CSV files."""
    dd = require("dask.dataframe", purpose="rankaudit.distributed")

    if "://" not in path and not any(c in path for c in "*?[") and not Path(path).exists():
        raise FileNotFoundError(f"--input {path}: no such file or directory")
    if path.endswith(".csv") or path.endswith(".csv.gz"):
        return dd.read_csv(path)
    return dd.read_parquet(path)


def main(argv: Sequence[str] | None = None) -> int:
    """Run the example; a bad input or option prints one ``ERROR:`` line and returns 2 (every
    command line of rankaudit exits 2 on an error)."""
    args = build_parser().parse_args(argv)
    try:
        return _run(args)
    except (ValueError, FileNotFoundError, OSError, ImportError) as err:
        print("ERROR: " + " ".join(str(err).split()), file=sys.stderr)
        return 2


def _run(args: argparse.Namespace) -> int:
    if args.output:
        check_output_dir(args.output)  # before the cluster starts and anything is computed
    with connect(args.scheduler, args.n_workers) as client:
        _report(args, client)
    return 0


def _report(args: argparse.Namespace, client) -> None:
    print(f"scheduler: {client.scheduler.address}  workers: {len(client.nthreads())}")
    if args.input is None:
        table = SyntheticTable(args.synthetic_rows)
        frame = synthetic_long_dask(table)
        print(f"input: {table.label()}, {args.synthetic_rows:,} rows")
    else:
        frame = read_long_frame(args.input)
        print(f"input: {args.input} ({frame.npartitions} partitions)")
    columns = dict(
        row_col=args.row_col,
        item_col=args.item_col,
        score_col=args.score_col,
        label_col=args.label_col,
    )
    start = time.perf_counter()
    result = evaluate(
        frame,
        k=args.k,
        ties=args.ties,
        seed=args.seed,
        n_repeats=args.n_repeats,
        empty=args.empty,
        user_col=args.user_col,
        row_partitioning=args.row_partitioning,
        **columns,
    )
    print(f"\n{result.n_rows:,} rows, ties={args.ties!r}, k={args.k}: means")
    print(result.means.to_string())
    if args.output:
        result.rows.to_parquet(args.output)
        print(f"per-row metrics written to {args.output}")
    if args.prevalence:
        prevalence = tie_prevalence(
            frame, k=args.k, row_partitioning=args.row_partitioning, **columns
        )
        print("\ntie prevalence")
        print(prevalence.summary.to_string())
    print(f"\nwall time: {time.perf_counter() - start:.2f} s")
