"""``rankaudit rows [TABLE]``: the metrics of every row of a long-format table, under several
tie rules, in this process or on a Dask cluster (``--scheduler local|ADDRESS``).

TABLE has one line per (row, candidate): row id, item id, score, label (column names by
option); Parquet (a file, a folder or a glob) or ``.csv``.  Without TABLE a synthetic
tie-heavy table of ``--synthetic-rows`` rows (:mod:`rankaudit.distributed.synthetic`).
Per rule the report gives each metric over the rows, aggregated as trec_eval aggregates it
(the mean, the sum for the counts NumRet, NumRel, NumRelRet), from exact sums
(:mod:`rankaudit.distributed.exact`): the same bits in one process and on any cluster, whatever
the partitioning.  This replaces the former second console script ``rankaudit-distributed``
(``python -m rankaudit.distributed``).
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

import pandas as pd

from rankaudit._checks import CUTOFF_MAX, RANDOM_REPEATS, SYNTHETIC_ROWS, WORKERS, CountBound
from rankaudit._optional import require
from rankaudit.cli.common import (
    PROG,
    add_ties_option,
    count_type,
    emit,
    rules_epilog,
    tie_rules,
    to_json,
    version,
)
from rankaudit.distributed.cluster import connect
from rankaudit.distributed.evaluate import evaluate as evaluate_on_dask
from rankaudit.distributed.exact import (
    exact_sums,
    means_of_totals,
    sums_from_sums,
    totals_from_sums,
)
from rankaudit.distributed.partitioning import ROW_PARTITIONINGS
from rankaudit.distributed.prevalence import tie_prevalence as tie_prevalence_on_dask
from rankaudit.distributed.synthetic import (
    SyntheticTable,
    synthetic_long_dask,
    synthetic_long_table,
)
from rankaudit.measures.registry import parse_measures
from rankaudit.measures.rules import rule as tie_rule
from rankaudit.options import LongColumns
from rankaudit.runs.outputs import check_output, check_output_dir
from rankaudit.ties.evaluate import evaluate
from rankaudit.ties.prevalence import tie_prevalence

__all__ = ["cmd_rows", "read_long_frame", "register"]


def read_long_frame(path: str, *, dask: bool) -> object:
    """The table at ``path``: a Dask DataFrame (``dask=True``) or a pandas one, from Parquet
    (a file, a folder or, with Dask, a glob) or CSV (``.csv``, ``.csv.gz``)."""
    if "://" not in path and not any(c in path for c in "*?[") and not Path(path).exists():
        raise FileNotFoundError(f"{path}: no such file or directory")
    csv = path.endswith((".csv", ".csv.gz"))
    if dask:
        dd = require("dask.dataframe", purpose="rankaudit rows --scheduler")
        return dd.read_csv(path) if csv else dd.read_parquet(path)
    return pd.read_csv(path) if csv else pd.read_parquet(path)


def _columns(args: argparse.Namespace) -> LongColumns:
    """The table's columns as ``--row-col`` ... ``--user-col`` name them."""
    return LongColumns(
        row=args.row_col,
        item=args.item_col,
        score=args.score_col,
        label=args.label_col,
        user=args.user_col,
    )


def _rule_options(args: argparse.Namespace, rule: str) -> dict[str, object]:
    """The keyword arguments of one rule's evaluation: ``--n-repeats`` is ``random``'s."""
    return dict(
        k=args.k,
        ties=rule,
        seed=args.seed,
        n_repeats=args.n_repeats if tie_rule(rule).order == "sample" else 1,
        empty=args.empty,
        measures=args.measures,
        columns=_columns(args),
    )


def _aggregates(rows: pd.DataFrame, measures: list | None) -> tuple[pd.Series, int]:
    """Each metric column of ``rows`` aggregated from exact sums, as the distributed path does
    (:func:`rankaudit.distributed.evaluate.evaluate`): the mean, the sum for the counts."""
    ids = set(rows.attrs.get("id_columns", ()))
    metrics = [c for c in rows.columns if c not in ids]
    totals, n_rows = totals_from_sums([exact_sums(rows, metrics)])
    if n_rows == 0:
        raise ValueError("no row to aggregate (zero input rows, or all dropped by --empty drop)")
    out = means_of_totals(totals, n_rows)
    summed = [str(m) for m in measures or () if m.aggregation == "sum"]
    for name, value in sums_from_sums({name: totals[name] for name in summed}).items():
        out[name] = value
    return out, n_rows


def _local(args: argparse.Namespace, rules: list[str]) -> tuple[dict, object, str]:
    if args.table is None:
        table = SyntheticTable(args.synthetic_rows)
        frame, label = synthetic_long_table(table), f"{table.label()}, {args.synthetic_rows:,} rows"
    else:
        frame, label = read_long_frame(args.table, dask=False), args.table
    results = {}
    for rule in rules:
        rows = evaluate(frame, **_rule_options(args, rule))
        results[rule] = (*_aggregates(rows, args.measures), rows)
    flags = None
    if args.tie_flags:
        flags = tie_prevalence(frame, k=args.k, columns=_columns(args)).summary
    return results, flags, label


def _on_cluster(args: argparse.Namespace, rules: list[str], client: object) -> tuple:
    if args.table is None:
        table = SyntheticTable(args.synthetic_rows)
        frame = synthetic_long_dask(table)
        label = f"{table.label()}, {args.synthetic_rows:,} rows"
    else:
        frame = read_long_frame(args.table, dask=True)
        label = f"{args.table} ({frame.npartitions} partitions)"
    results = {}
    for rule in rules:
        result = evaluate_on_dask(
            frame,
            row_partitioning=args.row_partitioning,
            progress=False,
            **_rule_options(args, rule),
        )
        results[rule] = (result.aggregates, result.n_rows, result.rows)
    flags = None
    if args.tie_flags:
        flags = tie_prevalence_on_dask(
            frame,
            k=args.k,
            row_partitioning=args.row_partitioning,
            progress=False,
            columns=_columns(args),
        ).summary
    return results, flags, label


def cmd_rows(args: argparse.Namespace) -> int:
    rules = tie_rules(args.ties, api="rows")
    if args.n_repeats != 1 and all(tie_rule(r).order != "sample" for r in rules):
        raise ValueError(f"--n-repeats {args.n_repeats} applies only to --ties random")
    args.measures = parse_measures(args.measures) if args.measures else None
    check_output(args.output)
    if args.rows_dir:
        check_output_dir(args.rows_dir, "--rows-dir")  # before anything is computed
    start = time.perf_counter()
    head = []
    if args.scheduler is None:
        results, flags, label = _local(args, rules)
    else:
        try:
            with connect(args.scheduler, args.workers) as client:
                head.append(
                    f"scheduler: {client.scheduler.address}  workers: {len(client.nthreads())}"
                )
                results, flags, label = _on_cluster(args, rules, client)
                _write_rows(args, results)
        except ImportError as exc:  # no Dask here: one line, as every other error
            raise ValueError(str(exc)) from None
    if args.scheduler is None:
        _write_rows(args, results)
    seconds = time.perf_counter() - start
    if args.format == "json":
        doc = {
            "input": label,
            "k": args.k,
            "rules": {
                rule: {"n_rows": n, "values": {str(c): float(v) for c, v in agg.items()}}
                for rule, (agg, n, _rows) in results.items()
            },
            "tie_flags": None if flags is None else {str(c): v for c, v in flags.items()},
            "rankaudit_version": version(),
        }
        emit(to_json(doc), args.output)
        return 0
    lines = [*head, f"input: {label}"]
    for rule, (agg, n_rows, _rows) in results.items():
        lines += ["", f"{n_rows:,} rows, ties={rule!r}, k={args.k}: values", agg.to_string()]
    if flags is not None:
        lines += ["", "tie flags (share of rows; rankaudit.tie_prevalence)", flags.to_string()]
    lines.append(f"\nwall time: {seconds:.2f} s")
    emit("\n".join(lines) + "\n", args.output)
    return 0


def _write_rows(args: argparse.Namespace, results: dict) -> None:
    """The per-row values of each rule to ``--rows-dir``/``<rule>`` (Parquet)."""
    if not args.rows_dir:
        return
    Path(args.rows_dir).mkdir(parents=True, exist_ok=True)
    for rule, (_agg, _n, rows) in results.items():
        rows.to_parquet(str(Path(args.rows_dir) / rule))


def register(sub: argparse._SubParsersAction) -> None:
    """Add this command to the ``rankaudit`` subcommands."""
    p = sub.add_parser(
        "rows",
        help="metrics of every row of a long-format table, in this process or on Dask",
        description="Evaluate every row (one line per row and candidate) under several tie "
        "rules and aggregate each metric from exact sums: the same bits in this process and "
        f"on a Dask cluster (--scheduler). Without TABLE: a synthetic table. ({PROG} rows "
        "replaces the former rankaudit-distributed.)",
        formatter_class=argparse.RawDescriptionHelpFormatter,
        epilog=rules_epilog("rows"),
    )
    p.add_argument(
        "table",
        nargs="?",
        help="Parquet file, folder or glob, or .csv, in long format (default: synthetic)",
    )
    p.add_argument(
        "--synthetic-rows",
        type=count_type(SYNTHETIC_ROWS),
        default=100_000,
        help=f"rows of the synthetic table without TABLE, 1..{SYNTHETIC_ROWS} "
        "(31 candidates a row; default: %(default)s)",
    )
    p.add_argument(
        "--k",
        type=count_type(CountBound(CUTOFF_MAX, "the kernels index lists with 32-bit integers")),
        default=10,
        help=f"cutoff of HR and NDCG, 1..{CUTOFF_MAX} (default: %(default)s)",
    )
    p.add_argument(
        "-m",
        "--measures",
        nargs="+",
        metavar="M",
        help="measures in ir_measures' spelling (default: Success@k, nDCG@k and RR)",
    )
    add_ties_option(p, ["expected"], "each is evaluated and reported", api="rows")
    p.add_argument("--seed", type=int, default=0, help="seed of 'hash' and 'random'")
    p.add_argument(
        "--n-repeats",
        type=count_type(RANDOM_REPEATS),
        default=1,
        help=f"repeats of 'random', 1..{RANDOM_REPEATS} (each draws every row's order again)",
    )
    p.add_argument(
        "--empty",
        choices=("error", "zero", "drop"),
        default="error",
        help="rows without a relevant item (default: %(default)s)",
    )
    p.add_argument("--row-col", default="row_id")
    p.add_argument("--item-col", default="item_id")
    p.add_argument("--score-col", default="score")
    p.add_argument("--label-col", default="label")
    p.add_argument("--user-col", default=None)
    p.add_argument(
        "--row-partitioning",
        choices=ROW_PARTITIONINGS,
        default="auto",
        help="with --scheduler: auto (default) moves only straddling rows, or shuffles "
        "scattered rows by id; shuffle: always; check: rows must be whole per partition",
    )
    p.add_argument(
        "--tie-flags",
        action="store_true",
        help="also report the structural tie flags (rankaudit.tie_prevalence)",
    )
    p.add_argument(
        "--rows-dir",
        metavar="DIR",
        help="write each rule's per-row values to DIR/<rule> as Parquet (a path that exists "
        "and is not a folder is refused before anything runs)",
    )
    p.add_argument(
        "--scheduler",
        metavar="ADDRESS",
        help="evaluate as Dask tasks on this scheduler (tcp://host:8786), or 'local' for a "
        "LocalCluster of --workers processes (default: in this process)",
    )
    p.add_argument(
        "--workers",
        type=count_type(WORKERS),
        default=2,
        help=f"LocalCluster worker processes, 1..{WORKERS} (default: %(default)s)",
    )
    p.add_argument("--format", choices=("table", "json"), default="table")
    p.add_argument("-o", "--output", metavar="FILE", help="write the report to FILE")
    p.set_defaults(func=cmd_rows)
