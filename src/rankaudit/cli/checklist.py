"""``rankaudit checklist QRELS RUN``: the six-part tie-reporting checklist filled from a run."""

from __future__ import annotations

import argparse

from rankaudit._checks import RERUNS, check_count
from rankaudit.checklists.from_run import run_checklist
from rankaudit.cli.common import (
    add_common_options,
    check_order,
    check_output,
    emit,
    input_label,
    input_records,
    read_qrels_arg,
    read_run_arg,
    to_json,
)
from rankaudit.measures.registry import parse_measures
from rankaudit.measures.rules import check_rule

__all__ = ["cmd_checklist", "register"]


def cmd_checklist(args: argparse.Namespace) -> int:
    # the arguments are checked as the library checks them, before any file is read
    parse_measures([args.measure])
    check_rule(args.ties, api="runs")
    check_count(args.n_permutations, "--n-permutations", RERUNS)
    check_output(args.output, args.qrels, args.run)
    check_order(args.qrels, args.run, args)
    qrels, run = read_qrels_arg(args.qrels, args), read_run_arg(args.run, args)
    filled = run_checklist(
        run,
        qrels,
        measure=args.measure,
        ties=args.ties,
        relevance_level=args.relevance_level,
        complete=args.complete,
        n_permutations=args.n_permutations,
        seed=args.seed,
        label=input_label(args.run, "run"),
    )
    if args.format == "json":
        doc = {
            "checklist": filled.to_dict(),
            "inputs": input_records(qrels=qrels, run=run),
        }
        emit(to_json(doc), args.output)
    else:
        emit(filled.to_markdown(), args.output)
    return 0


def register(sub: argparse._SubParsersAction) -> None:
    """Add this command to the ``rankaudit`` subcommands."""
    p = sub.add_parser(
        "checklist",
        help="fill the six-part tie-reporting checklist",
        description="Fill the Part IV reporting checklist from RUN and QRELS.",
    )
    p.add_argument("qrels", help="qrels file (TREC: qid iter docno rel)")
    p.add_argument("run", help="run file (TREC: qid Q0 docno rank score tag)")
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
        help=f"line shuffles of the permutation test, 1..{RERUNS} (each audits the whole "
        "run again; default: %(default)s)",
    )
    p.add_argument("--format", choices=("markdown", "json"), default="markdown")
    add_common_options(p)
    p.set_defaults(func=cmd_checklist)
