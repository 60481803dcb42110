"""``rankaudit checklist QRELS RUN``: the six-part tie-reporting checklist filled from a run."""

from __future__ import annotations

import argparse

from rankaudit._checks import RERUNS, check_count
from rankaudit.checklists.from_run import run_checklist
from rankaudit.cli.common import (
    add_common_options,
    add_ties_option,
    check_order,
    check_output,
    emit,
    input_label,
    input_records,
    read_qrels_arg,
    read_run_arg,
    rules_epilog,
    tie_rules,
    to_json,
)
from rankaudit.measures.registry import parse_measures
from rankaudit.options import PermutationOptions

__all__ = ["cmd_checklist", "register"]


def cmd_checklist(args: argparse.Namespace) -> int:
    # the arguments are checked as the library checks them, before any file is read
    parse_measures([args.measure])
    rules = tie_rules(args.ties)
    check_count(args.n_permutations, "--n-permutations", RERUNS)
    check_output(args.output, args.qrels, args.run)
    check_order(args.qrels, args.run, args)
    qrels, run = read_qrels_arg(args.qrels, args), read_run_arg(args.run, args)
    filled = run_checklist(
        run,
        qrels,
        measure=args.measure,
        ties=rules,
        relevance_level=args.relevance_level,
        complete=args.complete,
        seed=args.seed,
        permutation=PermutationOptions(n_permutations=args.n_permutations, seed=args.seed),
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
        formatter_class=argparse.RawDescriptionHelpFormatter,
        epilog=rules_epilog("runs"),
    )
    p.add_argument("qrels", help="qrels file (TREC: qid iter docno rel)")
    p.add_argument("run", help="run file (TREC: qid Q0 docno rank score tag)")
    p.add_argument("-m", "--measure", default="nDCG@10", help="measure (default: %(default)s)")
    add_ties_option(
        p,
        ["trec_eval"],
        "the rule your reported number used; several: the numbers were reported under each, "
        "so the tie-breaking item discloses every one (attention if any depends on the "
        "input), the permutation test shuffles the lines under each (its worst change) and "
        "the sensitivity item lists them all",
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
