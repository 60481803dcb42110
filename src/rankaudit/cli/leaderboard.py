"""``rankaudit leaderboard``: many runs on one qrels, and which places the tie order decides."""

from __future__ import annotations

import argparse
import glob
import io
import math
from pathlib import Path

import pandas as pd

from rankaudit._checks import SIGN_FLIPS, check_count
from rankaudit.cli.common import (
    add_common_options,
    add_measure_options,
    add_scheduler_options,
    audit_files,
    check_order,
    check_output,
    emit,
    input_label,
    number_text,
    sha256_of,
    tie_rules,
    to_json,
    version,
)
from rankaudit.measures.list_evaluate import ROUNDING_TOLERANCE
from rankaudit.measures.registry import parse_measures
from rankaudit.runs.leaderboard import (
    build_leaderboard,
    leaderboard_rules,
)
from rankaudit.runs.pfloor import floor_bounds

__all__ = ["cmd_leaderboard", "expand_runs", "register", "run_names"]

DEFINITIONS = f"""\
definitions (per measure, over the runs given):
  value          per-query values aggregated as trec_eval does: the mean over queries, the
                 sum for the counts NumRet, NumRel, NumRelRet
  tie envelope   [pessimistic, optimistic]: the worst and best value any tie order gives
  equal          values that differ by rounding alone (at most {number_text(ROUNDING_TOLERANCE)} of
                 their magnitude)
  leaderboard    runs by value, best first; equal values by run name
  rank interval  best = 1 + #{{other runs whose pessimistic value > this run's optimistic}};
                 worst = 1 + #{{other runs whose optimistic value >= this run's pessimistic}}:
                 the best and worst rank a run can take when every run's value may lie
                 anywhere in its own tie envelope
  tie-decided    a pair whose order differs between two rules' leaderboards, or whose
  pair           envelopes overlap while their trec_eval values differ
  pairs          per-query expected values (no tie order moves them), B - A, paired
                 sign-flip randomisation test and t-test, Holm-adjusted per measure over
                 the pairs tested; differences of rounding alone give p = 1; a pair sharing
                 fewer than 2 evaluated queries is listed with its tests "not computed" and
                 the reason; "<=" marks a p-value that is only an upper bound (a
                 sign-flip p at its floor 1 / (n-perm + 1), a Holm value computed from one),
                 "<0.0001" one below what 4 decimals show
  run names      a regular file by its file name; a pipe or standard input (-) by its
                 position and the argument as given: "run 2 (/dev/fd/62)", "run 1 (<stdin>)"
"""


def expand_runs(items: list[str]) -> list[str]:
    """Run paths from the arguments: a file, a folder (its files, sorted), a glob (sorted), a
    pipe such as ``<(zcat run.gz)``, or ``-`` (standard input, at most once)."""
    paths: list[str] = []
    for item in items:
        p = Path(item)
        if item == "-":
            paths.append(item)
        elif p.is_dir():
            found = sorted(
                str(f) for f in p.iterdir() if f.is_file() and not f.name.startswith(".")
            )
            if not found:
                raise ValueError(f"run folder {item} holds no file")
            paths += found
        elif p.exists() or not glob.has_magic(item):
            paths.append(item)
        else:
            found = sorted(f for f in glob.glob(item) if Path(f).is_file())
            if not found:
                raise ValueError(f"no run file matches {item}")
            paths += found
    if paths.count("-") > 1:
        raise ValueError("standard input (-) is given as two runs: it can be read once")
    for p in paths:  # a file, or a pipe such as <(zcat run.gz)
        if p != "-" and (not Path(p).exists() or Path(p).is_dir()):
            raise FileNotFoundError(f"{p}: no such run file")
    return paths


def run_names(paths: list[str]) -> list[str]:
    """The runs' names in every output (:func:`rankaudit.cli.common.input_label`): a regular
    file's name, else ``run <position> (<argument>)``; two runs of one name are an error."""
    names = [input_label(p, f"run {k}") for k, p in enumerate(paths, start=1)]
    for name in names:
        if names.count(name) > 1:
            raise ValueError(f"two run files are named {name}: run names must be unique")
    return names


def _wide(board) -> pd.DataFrame:
    """One row per run and measure: ranks and values under each rule, the rank interval."""
    values = board.table("values").pivot(index=["measure", "run"], columns="ties", values="value")
    values = values[list(board.rules)]
    env = board.table("envelopes").set_index(["measure", "run"])[["moved_share"]]
    rank = pd.DataFrame(
        [
            {"measure": r["measure"], "run": run, "ties": f"rank_{r['ties']}", "rank": k}
            for r in board.rankings
            for k, run in enumerate(r["order"], start=1)
        ]
    ).pivot(index=["measure", "run"], columns="ties", values="rank")
    rank = rank[[f"rank_{r}" for r in board.rules]]
    intervals = board.table("rank_intervals").set_index(["measure", "run"])
    wide = rank.join(intervals).join(values).join(env).reset_index()
    wide["measure_index"] = wide["measure"].map({m: k for k, m in enumerate(board.measures)})
    wide = wide.sort_values(["measure_index", "rank_expected"], kind="stable")
    return wide.drop(columns="measure_index").reset_index(drop=True)


def _table_text(board, args: argparse.Namespace, wide: pd.DataFrame) -> str:
    fmt = {"float_format": lambda x: f"{x:.4f}", "index": False}
    lines = [
        f"qrels: {args.qrels}   runs: {len(board.names)}   queries: {board.n_queries}"
        f"{' (trec_eval -c)' if args.complete else ''}",
    ]
    taus = board.table("kendall_tau")
    decided = board.table("tie_decided_pairs")
    pairs = board.table("pairs")
    for m in board.measures:
        part = wide[wide["measure"] == m].drop(columns="measure")
        cols = ["run", "rank_trec_eval", "rank_expected", "best", "worst", *board.rules]
        lines += ["", f"== {m} ==", part[[*cols, "moved_share"]].to_string(**fmt)]
        t = taus[(taus["measure"] == m) & (taus["rule_a"] == "trec_eval")]
        t = t[t["rule_b"] == "expected"].iloc[0]
        n_dec = int((decided["measure"] == m).sum()) if len(decided) else 0
        lines.append(
            f"Kendall tau(trec_eval, expected) = {t['tau']:.4f}, tau_AP = {t['tau_ap']:.4f}; "
            f"pairs decided by ties: {n_dec} of {len(board.names) * (len(board.names) - 1) // 2}"
        )
        sig = pairs[pairs["measure"] == m].drop(columns="measure")
        lines.append(_pairs_text(sig, args.n_perm))
        lines += [
            f"tests of {r['run_a']} and {r['run_b']} not computed: {r['reason']}"
            for r in sig.to_dict(orient="records")
            if not r["computed"]
        ]
        left_out = int(sig[["n_queries_only_in_a", "n_queries_only_in_b"]].to_numpy().sum())
        if left_out:
            lines.append(
                f"{left_out} (pair, query) combinations were answered by only one run of the "
                "pair and left out of its test (-c scores them as 0)"
            )
    lines += ["", DEFINITIONS.rstrip()]
    return "\n".join(lines) + "\n"


def _pairs_text(sig: pd.DataFrame, n_perm: int) -> str:
    """The pairs of one measure as text: numbers to 4 decimals, a test not computed as
    ``not computed`` (its reason is printed below the table), p-values by :func:`_p_cells`."""
    shown = sig.drop(columns=["computed", "reason"]).astype(object)
    shown["diff"] = ["not computed" if _missing(v) else f"{v:.4f}" for v in sig["diff"].tolist()]
    raw = sig["p_value"].tolist()
    for col, draws, base in (
        ("p_value", n_perm, raw),
        ("p_ttest", None, None),
        ("p_holm", n_perm, raw),
        ("p_ttest_holm", None, None),
    ):
        shown[col] = _p_cells(sig[col].tolist(), draws, base)
    return shown.to_string(index=False)


def _missing(value) -> bool:
    """A test not computed: None, or NaN in a float column."""
    return value is None or value != value


def _p_cells(values: list, n_perm: int | None, raw: list | None) -> list[str]:
    """p-values to 4 decimals; "<=" and the value rounded up where it is only an upper bound
    (a sign-flip p at its floor ``1 / (n_perm + 1)``, a Holm value computed from one:
    :func:`rankaudit.runs.pfloor.floor_bounds`); "<0.0001" below what 4 decimals show."""
    given = [None if _missing(v) else float(v) for v in values]
    bounds = floor_bounds(given, raw, n_perm) if n_perm is not None else [False] * len(given)
    cells = []
    for v, bound in zip(given, bounds, strict=True):
        if v is None:
            cells.append("not computed")
        elif bound:
            cells.append(f"<={math.ceil(v * 1e4 * (1 - 1e-12)) / 1e4:.4f}")
        else:
            cells.append("<0.0001" if v < 5e-5 else f"{v:.4f}")
    return cells


def _baseline_name(baseline: str | None, paths: list[str], names: list[str]) -> str | None:
    """``--baseline`` as a run name: a name, or a run argument as given (``-``, a path)."""
    if baseline is None or baseline in names:
        return baseline
    if baseline in paths:
        return names[paths.index(baseline)]
    raise ValueError(f"--baseline {baseline!r} is not one of the runs: {', '.join(names)}")


def cmd_leaderboard(args: argparse.Namespace) -> int:
    measures = parse_measures(args.measures)
    rules = leaderboard_rules(tie_rules(args.ties))
    check_count(args.n_perm, "--n-perm", SIGN_FLIPS)
    if args.table != "runs" and args.format != "csv":
        raise ValueError(f"--table {args.table} applies to --format csv only")
    paths = expand_runs(args.runs)
    if args.qrels == "-" and "-" in paths:
        raise ValueError("standard input (-) is both the qrels and a run: it can be read once")
    check_output(args.output, args.qrels, *paths)
    check_order(args.qrels, paths[0], args)
    names = run_names(paths)
    baseline = _baseline_name(args.baseline, paths, names)
    options = dict(
        measures=measures,
        ties=rules,
        relevance_level=args.relevance_level,
        complete=args.complete,
        seed=args.seed,
    )
    audits = audit_files(args, paths, options)
    board = build_leaderboard(names, audits, baseline=baseline, n_perm=args.n_perm, seed=args.seed)
    if args.format == "json":
        # the digests the readers took while reading (a piped run cannot be read twice)
        run_inputs = [
            {"role": "run", "path": p, "name": n, "sha256": a.run_sha256 or sha256_of(p)}
            for p, n, a in zip(paths, names, audits, strict=True)
        ]
        qrels_input = {
            "role": "qrels",
            "path": args.qrels,
            "name": input_label(args.qrels, "qrels"),
            "sha256": audits[0].qrels_sha256 or sha256_of(args.qrels),
        }
        runs = [
            {"name": n, "path": r["path"], "sha256": r["sha256"], "n_queries": a.n_queries}
            for n, a, r in zip(names, audits, run_inputs, strict=True)
        ]
        doc = {
            "runs": runs,
            **board.records(),
            "measures": list(board.measures),
            "ties": list(board.rules),
            "baseline": baseline,
            "n_perm": args.n_perm,
            "seed": args.seed,
            "relevance_level": args.relevance_level,
            "complete": bool(args.complete),
            "inputs": [qrels_input, *run_inputs],
            "rankaudit_version": version(),
        }
        emit(to_json(doc), args.output)
        return 0
    wide = _wide(board)
    if args.format == "csv":
        buf = io.StringIO()
        table = wide if args.table == "runs" else board.table("pairs")
        table.to_csv(buf, index=False, float_format="%.17g")
        emit(buf.getvalue(), args.output)
    else:
        emit(_table_text(board, args, wide), args.output)
    return 0


def register(sub: argparse._SubParsersAction) -> None:
    """Add this command to the ``rankaudit`` subcommands."""
    p = sub.add_parser(
        "leaderboard",
        help="many runs as one leaderboard: rank intervals and pairs decided by ties",
        description="Audit every RUN against QRELS (each exactly as `rankaudit audit` does) "
        "and report, per measure, the leaderboard under each tie rule, Kendall's tau and "
        "tau_AP between them, each run's rank interval, the pairs the tie order decides, and "
        "paired tests on the expected values.",
        epilog=DEFINITIONS,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("qrels", help="qrels file (TREC: qid iter docno rel)")
    p.add_argument(
        "runs", nargs="+", metavar="RUN", help="run files, folders of run files, or globs"
    )
    add_measure_options(p, "; trec_eval, expected, pessimistic and optimistic are always added")
    p.add_argument(
        "--baseline",
        metavar="RUN",
        help="test every run against this one (its name, or its argument as given)",
    )
    p.add_argument(
        "--n-perm",
        type=int,
        default=10000,
        help=f"sign flips per test, 1..{SIGN_FLIPS} (more resolve no finer p-value than "
        f"{number_text(1 / SIGN_FLIPS.most)} and take seconds per test; default: %(default)s)",
    )
    add_scheduler_options(p, "the runs' audits (one task a run)")
    p.add_argument("--format", choices=("table", "json", "csv"), default="table")
    p.add_argument(
        "--table",
        choices=("runs", "pairs"),
        default="runs",
        help="the table --format csv writes: runs (one row per run and measure; default) or "
        "pairs (the paired tests; 'computed' is False and 'reason' says why when a pair's "
        "tests are not computed)",
    )
    add_common_options(p)
    p.set_defaults(func=cmd_leaderboard)
