"""The ``rankaudit`` command line: audit a run's tie sensitivity, compare two runs, fill the
reporting checklist.

::

    rankaudit audit RUN QRELS [-m nDCG@10 RR P@10 AP] [--ties trec_eval,expected,...]
                    [--per-query] [--format table|json|csv] [-o FILE]
    rankaudit compare RUN_A RUN_B QRELS [-m nDCG@10]
    rankaudit checklist RUN QRELS

RUN and QRELS are TREC files (``qid Q0 docno rank score tag`` / ``qid iter docno rel``) or
long-format ``.csv`` / ``.tsv`` / ``.parquet`` tables (column names by option).  Every error
(bad argument, missing or malformed file) is one line on stderr and a non-zero exit status:
2 for a usage error, 1 for a problem with the data.
"""

from __future__ import annotations

import argparse
import hashlib
import io
import json
import sys
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import numpy as np

from rankaudit._version import __version__
from rankaudit.ranking.significance import paired_bootstrap_lift, paired_randomisation_test
from rankaudit.report.run_checklist import run_checklist
from rankaudit.runs.compare import compare_runs
from rankaudit.runs.evaluate import DEFAULT_MEASURES, audit_run
from rankaudit.runs.measures import parse_measures
from rankaudit.runs.rules import RUN_TIE_RULES, check_run_rule
from rankaudit.runs.tables import Qrels, Run
from rankaudit.runs.tabular import read_long_qrels, read_long_run
from rankaudit.runs.trec import read_trec_qrels, read_trec_run

__all__ = ["build_parser", "main"]

PROG = "rankaudit"
DEFAULT_RULES = "trec_eval,expected,pessimistic,optimistic"


class _Parser(argparse.ArgumentParser):
    """argparse, with errors as one line (no usage dump) and exit status 2."""

    def error(self, message: str) -> None:  # type: ignore[override]
        sys.stderr.write(f"{self.prog}: error: {message} (see --help)\n")
        raise SystemExit(2)


def _version() -> str:
    return __version__


def _sha256(path: str) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as fh:
        for chunk in iter(lambda: fh.read(1 << 20), b""):
            digest.update(chunk)
    return digest.hexdigest()


def _kind(path: str, declared: str) -> str:
    if declared != "auto":
        return declared
    suffixes = [s.lower() for s in Path(path).suffixes]
    if suffixes and suffixes[-1] == ".gz":
        suffixes = suffixes[:-1]
    last = suffixes[-1] if suffixes else ""
    return {".csv": "csv", ".tsv": "tsv", ".parquet": "parquet", ".pq": "parquet"}.get(last, "trec")


def _read_run(path: str, args: argparse.Namespace) -> Run:
    kind = _kind(path, args.input_format)
    if kind == "trec":
        return read_trec_run(path)
    return read_long_run(
        path,
        query_col=args.query_col,
        docno_col=args.docno_col,
        score_col=args.score_col,
        file_format=kind,
    )


def _read_qrels(path: str, args: argparse.Namespace) -> Qrels:
    kind = _kind(path, args.input_format)
    if kind == "trec":
        return read_trec_qrels(path)
    return read_long_qrels(
        path,
        query_col=args.query_col,
        docno_col=args.docno_col,
        relevance_col=args.relevance_col,
        file_format=kind,
    )


def _rules(text: str) -> list[str]:
    rules = [t.strip() for t in text.split(",") if t.strip()]
    if not rules:
        raise ValueError("--ties is empty")
    return [check_run_rule(r) for r in rules]


def _inputs(**paths: str) -> list[dict[str, str]]:
    return [
        {"role": role, "path": str(p), "name": Path(p).name, "sha256": _sha256(p)}
        for role, p in paths.items()
    ]


def _emit(text: str, output: str | None) -> None:
    if output:
        Path(output).write_text(text)
    else:
        sys.stdout.write(text)


def _floats(obj: object) -> object:
    """JSON-ready copy: numpy scalars to Python numbers."""
    if isinstance(obj, dict):
        return {k: _floats(v) for k, v in obj.items()}
    if isinstance(obj, list):
        return [_floats(v) for v in obj]
    if isinstance(obj, np.generic):
        return obj.item()
    return obj


# --------------------------------------------------------------------------- audit
def cmd_audit(args: argparse.Namespace) -> int:
    measures = parse_measures(args.measures)
    rules = _rules(args.ties)
    # the inputs' SHA-256 (JSON only) is computed on a thread while the files are read
    hashed_paths = {"run": args.run, "qrels": args.qrels} if args.format == "json" else {}
    with ThreadPoolExecutor(1) as pool:
        hashed = pool.submit(_inputs, **hashed_paths)
        run, qrels = _read_run(args.run, args), _read_qrels(args.qrels, args)
        audit = audit_run(
            run,
            qrels,
            measures,
            ties=rules,
            relevance_level=args.relevance_level,
            complete=args.complete,
            seed=args.seed,
        )
        inputs = hashed.result()
    envelope = audit.envelope()
    if args.format == "json":
        doc: dict[str, object] = {
            "aggregate": audit.aggregate().to_dict(orient="records"),
            "envelope": envelope.to_dict(orient="records"),
            "prevalence": audit.prevalence(),
            "n_queries": audit.n_queries,
            "relevance_level": args.relevance_level,
            "complete": bool(args.complete),
            "inputs": inputs,
            "rankaudit_version": _version(),
        }
        if args.per_query:
            doc["per_query"] = audit.per_query().to_dict(orient="records")
        _emit(json.dumps(_floats(doc), indent=2) + "\n", args.output)
    elif args.format == "csv":
        frame = audit.per_query() if args.per_query else audit.aggregate()
        buf = io.StringIO()
        frame.to_csv(buf, index=False, float_format="%.17g")
        _emit(buf.getvalue(), args.output)
    else:
        lines = [
            f"run: {args.run}   qrels: {args.qrels}   queries: {audit.n_queries}"
            f"{' (trec_eval -c)' if args.complete else ''}",
            "",
        ]
        lines.append(envelope.to_string(index=False, float_format=lambda x: f"{x:.4f}"))
        lines.append("")
        lines.append(
            "envelope = optimistic - pessimistic; prevalence = share of queries with a "
            "tie that moves the measure"
        )
        lines.append(f"queries with any tied scores: {audit.prevalence()['any_tie']:.1%}")
        if args.per_query:
            lines += [
                "",
                audit.per_query().to_string(index=False, float_format=lambda x: f"{x:.4f}"),
            ]
        _emit("\n".join(lines) + "\n", args.output)
    return 0


# --------------------------------------------------------------------------- compare
def cmd_compare(args: argparse.Namespace) -> int:
    (measure,) = parse_measures([args.measure])
    qrels = _read_qrels(args.qrels, args)
    comparison = compare_runs(
        _read_run(args.run_a, args),
        _read_run(args.run_b, args),
        qrels,
        measure,
        relevance_level=args.relevance_level,
        complete=args.complete,
    )
    summary = comparison.summary()
    a, b = comparison.a["expected"], comparison.b["expected"]
    summary["p_value_sign_flip"] = paired_randomisation_test(
        a, b, n_perm=args.n_perm, seed=args.seed
    )
    if a.mean() > 0:
        lift, lo, hi = paired_bootstrap_lift(a, b, n_boot=args.n_boot, seed=args.seed)
        summary.update(lift_pct=lift, lift_ci_low=lo, lift_ci_high=hi)
    else:
        summary.update(lift_pct=None, lift_ci_low=None, lift_ci_high=None)
    summary.update(
        n_perm=args.n_perm,
        n_boot=args.n_boot,
        seed=args.seed,
        inputs=_inputs(run_a=args.run_a, run_b=args.run_b, qrels=args.qrels),
    )
    if args.format == "json":
        doc = dict(summary)
        if args.per_query:
            doc["per_query"] = comparison.per_query().to_dict(orient="records")
        _emit(json.dumps(_floats(doc), indent=2) + "\n", args.output)
        return 0
    s = summary
    verdict = "survives" if s["sign_survives_worst_case"] else "does NOT survive"
    lines = [
        f"{s['measure']} over {s['n_queries']} queries (expected over tie orders)",
        f"  A {args.run_a}: {s['mean_a']:.4f}",
        f"  B {args.run_b}: {s['mean_b']:.4f}",
        f"  B - A: {s['mean_difference']:+.4f}   paired sign-flip p = {s['p_value_sign_flip']:.4g}"
        f" ({args.n_perm} flips)",
    ]
    if s["lift_pct"] is not None:
        lines.append(
            f"  lift of B over A: {s['lift_pct']:+.2f}% (95% paired bootstrap CI "
            f"{s['lift_ci_low']:+.2f}% .. {s['lift_ci_high']:+.2f}%)"
        )
    lines += [
        f"  worst cases: B pessimistic - A optimistic = "
        f"{s['b_pessimistic_minus_a_optimistic']:+.4f};"
        f" B optimistic - A pessimistic = {s['b_optimistic_minus_a_pessimistic']:+.4f}",
        f"  the sign of B - A {verdict} the worst-case tie orders",
    ]
    if args.per_query:
        lines += [
            "",
            comparison.per_query().to_string(index=False, float_format=lambda x: f"{x:.4f}"),
        ]
    _emit("\n".join(lines) + "\n", args.output)
    return 0


def cmd_checklist(args: argparse.Namespace) -> int:
    run, qrels = _read_run(args.run, args), _read_qrels(args.qrels, args)
    filled = run_checklist(
        run,
        qrels,
        measure=args.measure,
        ties=args.ties,
        relevance_level=args.relevance_level,
        complete=args.complete,
        n_permutations=args.n_permutations,
        seed=args.seed,
        label=Path(args.run).name,
    )
    if args.format == "json":
        doc = {"checklist": filled.to_dict(), "inputs": _inputs(run=args.run, qrels=args.qrels)}
        _emit(json.dumps(_floats(doc), indent=2, default=str) + "\n", args.output)
    else:
        _emit(filled.to_markdown(), args.output)
    return 0


# --------------------------------------------------------------------------- parser
def _common(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--relevance-level",
        "-l",
        type=int,
        default=1,
        metavar="N",
        help="relevant iff label >= N (trec_eval -l; default 1)",
    )
    p.add_argument(
        "--complete",
        "-c",
        action="store_true",
        help="average over every qrels query, missing ones scoring 0 (trec_eval -c)",
    )
    p.add_argument(
        "--input-format",
        choices=("auto", "trec", "csv", "tsv", "parquet"),
        default="auto",
        help="format of the input files (default: from the name; "
        "TREC text unless .csv/.tsv/.parquet)",
    )
    p.add_argument("--query-col", default="query", help="query column of a long-format table")
    p.add_argument("--docno-col", default="docno", help="document column of a long-format table")
    p.add_argument("--score-col", default="score", help="score column of a long-format run")
    p.add_argument("--relevance-col", default="relevance", help="label column of long-format qrels")
    p.add_argument("--seed", type=int, default=0, help="seed of the hash rule and of resampling")
    p.add_argument("-o", "--output", metavar="FILE", help="write to FILE instead of stdout")


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(prog=PROG, description="Tie-aware audit of ranking runs against TREC qrels.")
    parser.add_argument("--version", action="version", version=f"{PROG} {_version()}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)
    sub.required = True

    p = sub.add_parser(
        "audit",
        help="every measure under every tie rule, with the envelope",
        description="Evaluate RUN against QRELS under several tie rules and report "
        "the tie envelope (optimistic - pessimistic) and tie prevalence.",
    )
    p.add_argument("run", help="run file (TREC: qid Q0 docno rank score tag)")
    p.add_argument("qrels", help="qrels file (TREC: qid iter docno rel)")
    p.add_argument(
        "-m",
        "--measures",
        nargs="+",
        default=list(DEFAULT_MEASURES),
        metavar="M",
        help="nDCG@k, P@k, R@k, AP, RR, Success@k (default: %(default)s)",
    )
    p.add_argument(
        "--ties",
        default=DEFAULT_RULES,
        help=f"comma-separated rules among {', '.join(RUN_TIE_RULES)} (default: %(default)s)",
    )
    p.add_argument("--per-query", action="store_true", help="also report every query")
    p.add_argument("--format", choices=("table", "json", "csv"), default="table")
    _common(p)
    p.set_defaults(func=cmd_audit)

    p = sub.add_parser(
        "compare",
        help="two runs, paired by query, tie-robustly",
        description="Paired comparison of RUN_B against RUN_A under the expected "
        "rule (sign-flip test, bootstrap CI of the lift) and whether the sign of "
        "the difference survives the worst-case tie orders.",
    )
    p.add_argument("run_a", help="baseline run file")
    p.add_argument("run_b", help="other run file")
    p.add_argument("qrels", help="qrels file")
    p.add_argument("-m", "--measure", default="nDCG@10", help="one measure (default: %(default)s)")
    p.add_argument("--n-perm", type=int, default=10000, help="sign flips (default: %(default)s)")
    p.add_argument(
        "--n-boot", type=int, default=2000, help="bootstrap resamples (default: %(default)s)"
    )
    p.add_argument("--per-query", action="store_true", help="also report every query")
    p.add_argument("--format", choices=("table", "json"), default="table")
    _common(p)
    p.set_defaults(func=cmd_compare)

    p = sub.add_parser(
        "checklist",
        help="fill the six-part tie-reporting checklist",
        description="Fill the Part IV reporting checklist from RUN and QRELS.",
    )
    p.add_argument("run", help="run file")
    p.add_argument("qrels", help="qrels file")
    p.add_argument("-m", "--measure", default="nDCG@10", help="measure (default: %(default)s)")
    p.add_argument(
        "--ties",
        default="trec_eval",
        help="the rule your reported number used (default: %(default)s)",
    )
    p.add_argument(
        "--n-permutations",
        type=int,
        default=5,
        help="line shuffles of the permutation test (default: %(default)s)",
    )
    p.add_argument("--format", choices=("markdown", "json"), default="markdown")
    _common(p)
    p.set_defaults(func=cmd_checklist)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; returns the exit status (0 ok, 1 bad data, 2 bad usage)."""
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        return int(args.func(args))
    except (ValueError, OSError, KeyError) as exc:
        message = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
        sys.stderr.write(f"{PROG} {args.command}: error: {message}\n")
        return 1
    except MemoryError:
        sys.stderr.write(f"{PROG} {args.command}: error: out of memory\n")
        return 1
