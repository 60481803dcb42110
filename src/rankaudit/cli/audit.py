"""``rankaudit audit QRELS RUN``: every measure of one run under every tie rule, with the
envelope."""

from __future__ import annotations

import argparse
import io

from rankaudit._checks import WORKERS, check_count
from rankaudit.cli.common import (
    add_common_options,
    add_measure_options,
    add_scheduler_options,
    audit_files,
    check_order,
    check_output,
    emit,
    input_label,
    input_records,
    read_qrels_arg,
    read_run_arg,
    sha256_of,
    tie_rules,
    to_json,
    version,
)
from rankaudit.measures.registry import parse_measures
from rankaudit.runs.evaluate import audit_batch
from rankaudit.runs.layout import QueryBatch, join_run_qrels

__all__ = ["cmd_audit", "register"]


def _joined(args: argparse.Namespace) -> tuple[QueryBatch, list[dict[str, str]]]:
    """The run joined with its qrels, and the input records; the run and qrels themselves are
    freed on return (the layout is all the rules need), which keeps a large run's peak
    memory down."""
    qrels, run = read_qrels_arg(args.qrels, args), read_run_arg(args.run, args)
    batch = join_run_qrels(run, qrels, relevance_level=args.relevance_level, complete=args.complete)
    return batch, input_records(qrels=qrels, run=run)


def _audit(args: argparse.Namespace, measures: list, rules: list[str]):
    """The audit and the input records: in this process from the joined layout (the run
    itself freed first), or as a Dask task on ``--scheduler`` (the same kernels and bits)."""
    if args.scheduler is None:
        batch, inputs = _joined(args)
        audit = audit_batch(
            batch,
            measures,
            ties=rules,
            seed=args.seed,
            run_sha256=inputs[1]["sha256"],
            qrels_sha256=inputs[0]["sha256"],
        )
        return audit, inputs
    options = dict(
        measures=measures,
        ties=rules,
        relevance_level=args.relevance_level,
        complete=args.complete,
        seed=args.seed,
    )
    (audit,) = audit_files(args, [args.run], options)
    inputs = [
        {
            "role": role,
            "path": path,
            "name": input_label(path, role),
            "sha256": digest or sha256_of(path),
        }
        for role, path, digest in (
            ("qrels", args.qrels, audit.qrels_sha256),
            ("run", args.run, audit.run_sha256),
        )
    ]
    return audit, inputs


def cmd_audit(args: argparse.Namespace) -> int:
    measures = parse_measures(args.measures)
    rules = tie_rules(args.ties)
    check_count(args.workers, "--workers", WORKERS)
    check_output(args.output, args.qrels, args.run)
    check_order(args.qrels, args.run, args)
    audit, inputs = _audit(args, measures, rules)
    envelope = audit.envelope()
    if args.format == "json":
        doc: dict[str, object] = {
            "aggregate": audit.aggregate().to_dict(orient="records"),
            "envelope": envelope.to_dict(orient="records"),
            "moved_share": audit.moved_share(),
            "any_tie_share": audit.any_tie_share(),
            "n_queries": audit.n_queries,
            "relevance_level": args.relevance_level,
            "complete": bool(args.complete),
            "inputs": inputs,
            "rankaudit_version": version(),
        }
        if args.per_query:
            doc["per_query"] = audit.per_query().to_dict(orient="records")
        emit(to_json(doc), args.output)
    elif args.format == "csv":
        frame = audit.per_query() if args.per_query else audit.aggregate()
        buf = io.StringIO()
        frame.to_csv(buf, index=False, float_format="%.17g")
        emit(buf.getvalue(), args.output)
    else:
        lines = [
            f"qrels: {args.qrels}   run: {args.run}   queries: {audit.n_queries}"
            f"{' (trec_eval -c)' if args.complete else ''}",
            "",
        ]
        lines.append(envelope.to_string(index=False, float_format=lambda x: f"{x:.4f}"))
        lines.append("")
        lines.append(
            "envelope = optimistic - pessimistic; moved_share = share of queries with a "
            "tie that moves the measure"
        )
        lines.append(f"queries with any tied scores: {audit.any_tie_share():.1%}")
        if "expected" in rules:
            lines.append(
                "expected: exact mean over uniform random tie orders (exact = True) for "
                + ", ".join(str(m) for m, e in zip(measures, envelope["exact"], strict=True) if e)
            )
        if args.per_query:
            lines += [
                "",
                audit.per_query().to_string(index=False, float_format=lambda x: f"{x:.4f}"),
            ]
        emit("\n".join(lines) + "\n", args.output)
    return 0


def register(sub: argparse._SubParsersAction) -> None:
    """Add this command to the ``rankaudit`` subcommands."""
    p = sub.add_parser(
        "audit",
        help="every measure under every tie rule, with the envelope",
        description="Evaluate RUN against QRELS (trec_eval's order: QRELS RUN) under several "
        "tie rules and report the tie envelope (optimistic - pessimistic) and the moved share "
        "(share of queries whose value a tie order moves).",
    )
    p.add_argument("qrels", help="qrels file (TREC: qid iter docno rel)")
    p.add_argument("run", help="run file (TREC: qid Q0 docno rank score tag)")
    add_measure_options(p)
    add_scheduler_options(p, "the audit")
    p.add_argument("--per-query", action="store_true", help="also report every query")
    p.add_argument("--format", choices=("table", "json", "csv"), default="table")
    add_common_options(p)
    p.set_defaults(func=cmd_audit)
