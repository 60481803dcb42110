"""``rankaudit audit``: every measure of one run under every tie rule, with the envelope."""

from __future__ import annotations

import argparse
import io

from rankaudit.cli.common import (
    add_common_options,
    add_measure_options,
    check_output,
    emit,
    input_records,
    read_qrels_arg,
    read_run_arg,
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
    run, qrels = read_run_arg(args.run, args), read_qrels_arg(args.qrels, args)
    batch = join_run_qrels(run, qrels, relevance_level=args.relevance_level, complete=args.complete)
    return batch, input_records(run=run, qrels=qrels)


def cmd_audit(args: argparse.Namespace) -> int:
    measures = parse_measures(args.measures)
    rules = tie_rules(args.ties)
    check_output(args.output, args.run, args.qrels)
    batch, inputs = _joined(args)
    audit = audit_batch(
        batch,
        measures,
        ties=rules,
        seed=args.seed,
        run_sha256=inputs[0]["sha256"],
        qrels_sha256=inputs[1]["sha256"],
    )
    del batch
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
        description="Evaluate RUN against QRELS under several tie rules and report "
        "the tie envelope (optimistic - pessimistic) and tie prevalence.",
    )
    p.add_argument("run", help="run file (TREC: qid Q0 docno rank score tag)")
    p.add_argument("qrels", help="qrels file (TREC: qid iter docno rel)")
    add_measure_options(p)
    p.add_argument("--per-query", action="store_true", help="also report every query")
    p.add_argument("--format", choices=("table", "json", "csv"), default="table")
    add_common_options(p)
    p.set_defaults(func=cmd_audit)
