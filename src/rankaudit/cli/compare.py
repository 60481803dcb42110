"""``rankaudit compare QRELS RUN_A RUN_B``: two runs, paired by query, on values no tie order
can move.  The numbers (values, worst cases, paired tests, Holm over several ``-m``) are
:func:`rankaudit.runs.compare.compare_measures`'s; this module only formats them."""

from __future__ import annotations

import argparse

from rankaudit._checks import BOOTSTRAP_RESAMPLES, SIGN_FLIPS, check_count
from rankaudit.cli.common import (
    add_common_options,
    add_ties_option,
    check_order,
    check_output,
    emit,
    input_records,
    number_text,
    read_qrels_arg,
    read_run_arg,
    rules_epilog,
    tie_rules,
    to_json,
)
from rankaudit.measures.registry import parse_measures
from rankaudit.options import ResamplingOptions
from rankaudit.runs.compare import compare_measures
from rankaudit.runs.pfloor import at_floor, floor_bounds

__all__ = ["cmd_compare", "register"]


def cmd_compare(args: argparse.Namespace) -> int:
    measures = parse_measures(args.measures)
    rules = tie_rules(args.ties)
    check_count(args.n_perm, "--n-perm", SIGN_FLIPS)
    check_count(args.n_boot, "--n-boot", BOOTSTRAP_RESAMPLES)
    resampling = ResamplingOptions(n_perm=args.n_perm, n_boot=args.n_boot, seed=args.seed)
    check_output(args.output, args.qrels, args.run_a, args.run_b)
    check_order(args.qrels, args.run_a, args)
    qrels = read_qrels_arg(args.qrels, args)
    run_a, run_b = read_run_arg(args.run_a, args), read_run_arg(args.run_b, args)
    comparisons = compare_measures(
        run_a,
        run_b,
        qrels,
        measures,
        relevance_level=args.relevance_level,
        complete=args.complete,
        resampling=resampling,
        ties=rules,
    )
    if args.format == "json":
        summaries = []
        for c in comparisons:
            summary = c.summary()
            if args.per_query:
                summary["per_query"] = c.per_query().to_dict(orient="records")
            summaries.append(summary)
        doc = {
            "comparisons": summaries,
            "n_perm": args.n_perm,
            "n_boot": args.n_boot,
            "seed": args.seed,
            "inputs": input_records(qrels=qrels, run_a=run_a, run_b=run_b),
        }
        emit(to_json(doc), args.output)
        return 0
    lines: list[str] = []
    summaries = [c.summary() for c in comparisons]
    holm_bounds = floor_bounds(
        [s["p_holm"] for s in summaries], [s["p_value_sign_flip"] for s in summaries], args.n_perm
    )
    for c, s, bound in zip(comparisons, summaries, holm_bounds, strict=True):
        lines += _comparison_text(s, args, several=len(comparisons) > 1, holm_bound=bound)
        if args.per_query:
            lines += ["", c.per_query().to_string(index=False, float_format=lambda x: f"{x:.4f}")]
        lines.append("")
    emit("\n".join(lines[:-1]) + "\n", args.output)
    return 0


def _comparison_text(
    s: dict, args: argparse.Namespace, *, several: bool, holm_bound: bool
) -> list[str]:
    """One measure's comparison as lines of text (the numbers of :func:`compare_runs`). A
    sign-flip p at its floor ``1 / (n_perm + 1)``, and a Holm value computed from one
    (``holm_bound``, :func:`rankaudit.runs.pfloor.floor_bounds`), print as bounds: "p <= ..."."""
    verdict = "survives" if s["sign_survives_worst_case"] else "does NOT survive"
    over = "summed" if s["aggregation"] == "sum" else "mean"
    holm = (
        f", Holm over the {len(args.measures)} measures "
        f"{'<= ' if holm_bound else ''}{number_text(s['p_holm'])}"
        if several
        else ""
    )
    p_is = "<=" if at_floor(s["p_value_sign_flip"], args.n_perm) else "="
    lines = [
        f"{s['measure']} over {s['n_queries']} queries (expected over tie orders; {over} over "
        "queries, as trec_eval)",
        f"  A {args.run_a}: {s['value_a']:.4f}",
        f"  B {args.run_b}: {s['value_b']:.4f}",
        f"  B - A: {s['difference']:+.4f}   paired sign-flip p {p_is} "
        f"{number_text(s['p_value_sign_flip'])}"
        f" ({args.n_perm} flips{holm})",
    ]
    lines += [
        f"  under {rule}: A {v['value_a']:.4f}, B {v['value_b']:.4f}, B - A {v['difference']:+.4f}"
        for rule, v in s["by_rule"].items()
        if rule != "expected"
    ]
    if s["lift_pct"] is not None:
        lines.append(
            f"  lift of B over A: {s['lift_pct']:+.2f}% (95% paired bootstrap CI "
            f"{s['lift_ci_low']:+.2f}% .. {s['lift_ci_high']:+.2f}%)"
        )
    return [
        *lines,
        f"  worst cases: B pessimistic - A optimistic = "
        f"{s['b_pessimistic_minus_a_optimistic']:+.4f};"
        f" B optimistic - A pessimistic = {s['b_optimistic_minus_a_pessimistic']:+.4f}",
        f"  the sign of B - A {verdict} the worst-case tie orders",
        f"  judged queries answered by one run only: {s['n_queries_only_in_a']} only in A, "
        f"{s['n_queries_only_in_b']} only in B: "
        + (
            "scored as 0 for the run that did not answer them (-c)"
            if args.complete
            else "left out of the comparison (-c scores them as 0)"
        ),
    ]


def register(sub: argparse._SubParsersAction) -> None:
    """Add this command to the ``rankaudit`` subcommands."""
    p = sub.add_parser(
        "compare",
        help="two runs, paired by query, tie-robustly",
        description="Paired comparison of RUN_B against RUN_A on QRELS under the expected "
        "rule (sign-flip test, bootstrap CI of the lift) and whether the sign of "
        "the difference survives the worst-case tie orders.",
        formatter_class=argparse.RawDescriptionHelpFormatter,
        epilog=rules_epilog("runs"),
    )
    p.add_argument("qrels", help="qrels file (TREC: qid iter docno rel)")
    p.add_argument("run_a", help="baseline run file (TREC: qid Q0 docno rank score tag)")
    p.add_argument("run_b", help="other run file")
    p.add_argument(
        "-m",
        "--measures",
        nargs="+",
        default=["nDCG@10"],
        metavar="M",
        help="measures, each compared on its own; several: Holm-adjusted p-values "
        "(default: %(default)s)",
    )
    add_ties_option(
        p,
        ["expected"],
        "several: A, B and B - A are also reported under each (by_rule in the JSON); the "
        "paired tests stay on the expected values, the worst case on the two bounds",
    )
    p.add_argument(
        "--n-perm",
        type=int,
        default=10000,
        help=f"sign flips, 1..{SIGN_FLIPS} (more resolve no finer p-value than "
        f"{number_text(1 / SIGN_FLIPS.most)}; default: %(default)s)",
    )
    p.add_argument(
        "--n-boot",
        type=int,
        default=2000,
        help=f"bootstrap resamples, 1..{BOOTSTRAP_RESAMPLES} (memory and time grow with "
        "them; default: %(default)s)",
    )
    p.add_argument("--per-query", action="store_true", help="also report every query")
    p.add_argument("--format", choices=("table", "json"), default="table")
    add_common_options(p)
    p.set_defaults(func=cmd_compare)
