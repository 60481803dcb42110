"""``rankaudit compare``: two runs, paired by query, on values no tie order can move."""

from __future__ import annotations

import argparse

from rankaudit._checks import BOOTSTRAP_RESAMPLES, SIGN_FLIPS, check_count
from rankaudit.cli.common import (
    add_common_options,
    check_output,
    emit,
    input_records,
    read_qrels_arg,
    read_run_arg,
    to_json,
)
from rankaudit.measures.registry import parse_measures
from rankaudit.runs.compare import compare_runs
from rankaudit.runs.significance import paired_bootstrap_lift, paired_randomisation_test

__all__ = ["cmd_compare", "register"]


def cmd_compare(args: argparse.Namespace) -> int:
    (measure,) = parse_measures([args.measure])
    check_count(args.n_perm, "--n-perm", SIGN_FLIPS)
    check_count(args.n_boot, "--n-boot", BOOTSTRAP_RESAMPLES)
    check_output(args.output, args.run_a, args.run_b, args.qrels)
    qrels = read_qrels_arg(args.qrels, args)
    run_a, run_b = read_run_arg(args.run_a, args), read_run_arg(args.run_b, args)
    comparison = compare_runs(
        run_a,
        run_b,
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
        inputs=input_records(run_a=run_a, run_b=run_b, qrels=qrels),
    )
    if args.format == "json":
        doc = dict(summary)
        if args.per_query:
            doc["per_query"] = comparison.per_query().to_dict(orient="records")
        emit(to_json(doc), args.output)
        return 0
    s = summary
    verdict = "survives" if s["sign_survives_worst_case"] else "does NOT survive"
    over = "summed" if s["aggregation"] == "sum" else "mean"
    lines = [
        f"{s['measure']} over {s['n_queries']} queries (expected over tie orders; {over} over "
        "queries, as trec_eval)",
        f"  A {args.run_a}: {s['value_a']:.4f}",
        f"  B {args.run_b}: {s['value_b']:.4f}",
        f"  B - A: {s['difference']:+.4f}   paired sign-flip p = {s['p_value_sign_flip']:.4g}"
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
        f"  judged queries answered by one run only: {s['n_queries_only_in_a']} only in A, "
        f"{s['n_queries_only_in_b']} only in B: "
        + (
            "scored as 0 for the run that did not answer them (-c)"
            if args.complete
            else "left out of the comparison (-c scores them as 0)"
        ),
    ]
    if args.per_query:
        lines += [
            "",
            comparison.per_query().to_string(index=False, float_format=lambda x: f"{x:.4f}"),
        ]
    emit("\n".join(lines) + "\n", args.output)
    return 0


def register(sub: argparse._SubParsersAction) -> None:
    """Add this command to the ``rankaudit`` subcommands."""
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
    p.add_argument(
        "--n-perm",
        type=int,
        default=10000,
        help=f"sign flips, 1..{SIGN_FLIPS} (more resolve no finer p-value than 1e-6; "
        "default: %(default)s)",
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
