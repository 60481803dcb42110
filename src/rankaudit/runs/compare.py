"""Two runs on one qrels, paired by query, under the expected rule and the worst cases.

For each query ``q`` the paired difference is ``d_q = E[m(B, q)] - E[m(A, q)]`` (exact
expectations over tie orders).  The comparison is *tie-robust* when the sign of the mean
difference survives the worst case for the winner: if B wins on average, B under its
pessimistic order must still beat A under its optimistic order (and symmetrically); a
difference of rounding alone (:func:`rankaudit.measures.list_evaluate.rounding_tolerance`) is
no difference, and no win.
The runs' values are the per-query values aggregated as the measure declares (the mean over
queries, the sum for the counts NumRet, NumRel, NumRelRet, as trec_eval;
:func:`rankaudit.measures.registry.aggregate_value`): ``value_a``, ``value_b`` and
``difference``; ``mean_a``, ``mean_b`` and ``mean_difference`` are the means whatever the
aggregation.
The paired tests (:mod:`rankaudit.runs.significance`) are computed here, on the per-query
expected values, so a Python caller gets the numbers the command line prints:
``p_value_sign_flip``, the two-sided sign-flip randomisation p-value of ``mean(d_q)`` (Fisher
1935; Smucker, Allan & Carterette, CIKM 2007) from ``n_perm`` sign vectors; ``lift_pct`` with
its 95% paired bootstrap CI (Efron & Tibshirani 1993) from ``n_boot`` query resamples (None
when ``mean(A) = 0``: no relative lift exists); and, over several measures
(:func:`compare_measures`), ``p_holm``, Holm's step-down adjustment of the sign-flip p-values
(Holm 1979, Scand. J. Statist. 6:65-70).
``ties`` names the rules whose values are reported besides (``by_rule``: A, B and ``B - A``
under each, aggregated as above, e.g. trec_eval's docno order); the tests stay on the expected
values and the worst case on the two bounds, whatever rules are named.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace

import numpy as np
import pandas as pd
import pyarrow.compute as pc

from rankaudit.measures.aggregation import aggregate_value
from rankaudit.measures.list_evaluate import rounding_tolerance
from rankaudit.measures.registry import Measure, parse_measure, parse_measures
from rankaudit.measures.rules import check_rules
from rankaudit.options import DEFAULT_RESAMPLING, ResamplingOptions
from rankaudit.runs.evaluate import evaluate_rules
from rankaudit.runs.layout import join_run_qrels
from rankaudit.runs.significance import (
    holm_adjust,
    paired_bootstrap_lift,
    paired_randomisation_test,
)
from rankaudit.runs.tables import Qrels, Run, distinct_ids

__all__ = ["PairedTests", "RunComparison", "compare_measures", "compare_runs", "paired_tests"]


@dataclass(frozen=True)
class PairedTests:
    """The paired tests of B against A on the per-query expected values (module docstring):
    ``p_value_sign_flip``, ``lift_pct`` and its CI (None when ``mean(A) = 0``), and the
    resampling they used."""

    p_value_sign_flip: float
    lift_pct: float | None
    lift_ci_low: float | None
    lift_ci_high: float | None
    resampling: ResamplingOptions

    def to_dict(self) -> dict[str, object]:
        r = self.resampling
        return {
            "p_value_sign_flip": self.p_value_sign_flip,
            "lift_pct": self.lift_pct,
            "lift_ci_low": self.lift_ci_low,
            "lift_ci_high": self.lift_ci_high,
            "n_perm": r.n_perm,
            "n_boot": r.n_boot,
            "seed": r.seed,
        }


def paired_tests(a: np.ndarray, b: np.ndarray, resampling: ResamplingOptions) -> PairedTests:
    """Sign-flip p-value of ``mean(b - a)`` and the bootstrap CI of the lift of ``b`` over
    ``a`` (per query, paired), with the draws ``resampling`` names."""
    p = paired_randomisation_test(a, b, n_perm=resampling.n_perm, seed=resampling.seed)
    if a.mean() > 0:
        lift, lo, hi = paired_bootstrap_lift(a, b, n_boot=resampling.n_boot, seed=resampling.seed)
        return PairedTests(p, lift, lo, hi, resampling)
    return PairedTests(p, None, None, None, resampling)


@dataclass(frozen=True)
class RunComparison:
    """Per-query values of runs A and B (queries both runs were evaluated on), and the judged
    queries only one of the runs answered (``only_in_a``, ``only_in_b``): without
    ``complete`` they are left out of the comparison, with it they score 0 for the run that
    did not answer them (trec_eval ``-c``)."""

    measure: Measure
    queries: np.ndarray
    a: dict[str, np.ndarray]
    b: dict[str, np.ndarray]
    only_in_a: np.ndarray
    only_in_b: np.ndarray
    complete: bool = False
    tests: PairedTests | None = None
    p_holm: float | None = None
    rules: tuple[str, ...] = ("expected",)

    @property
    def differences(self) -> np.ndarray:
        """``B - A`` per query under the expected rule."""
        return self.b["expected"] - self.a["expected"]

    def value(self, run: str, rule: str) -> float:
        """Run ``"a"`` or ``"b"``'s value under ``rule``, aggregated as the measure declares
        (the mean over the paired queries; the sum for the counts)."""
        return aggregate_value(self.measure, (self.a if run == "a" else self.b)[rule])

    def summary(self) -> dict[str, object]:
        """Values under expected (aggregated as the measure declares, and as means), the two
        worst cases and whether the sign survives them."""
        value_a, value_b = self.value("a", "expected"), self.value("b", "expected")
        per_query = len(self.queries) if self.measure.aggregation == "sum" else 1
        mean_a, mean_b = value_a / per_query, value_b / per_query
        b_worst = self.value("b", "pessimistic") - self.value("a", "optimistic")
        a_worst = self.value("b", "optimistic") - self.value("a", "pessimistic")
        diff = value_b - value_a
        tol = rounding_tolerance(self.a["optimistic"], self.b["optimistic"]) * per_query
        if diff > tol:  # a gap of rounding alone is no difference
            survives = b_worst > tol
        elif diff < -tol:
            survives = a_worst < -tol
        else:
            survives = False
        return {
            "measure": str(self.measure),
            "n_queries": int(len(self.queries)),
            "aggregation": self.measure.aggregation,
            "value_a": value_a,
            "value_b": value_b,
            "difference": float(diff),
            "mean_a": mean_a,
            "mean_b": mean_b,
            "mean_difference": float(mean_b - mean_a),
            "b_pessimistic_minus_a_optimistic": b_worst,
            "b_optimistic_minus_a_pessimistic": a_worst,
            "sign_survives_worst_case": bool(survives),
            "n_queries_only_in_a": int(len(self.only_in_a)),
            "n_queries_only_in_b": int(len(self.only_in_b)),
            "queries_only_in_a": [str(q) for q in self.only_in_a],
            "queries_only_in_b": [str(q) for q in self.only_in_b],
            "unanswered_scored_as_zero": bool(self.complete),
            "by_rule": {
                r: {
                    "value_a": self.value("a", r),
                    "value_b": self.value("b", r),
                    "difference": self.value("b", r) - self.value("a", r),
                }
                for r in self.rules
            },
            **(self.tests.to_dict() if self.tests is not None else {}),
            **({"p_holm": self.p_holm} if self.p_holm is not None else {}),
        }

    def per_query(self) -> pd.DataFrame:
        out = {"query": self.queries}
        for rule in dict.fromkeys(("expected", "pessimistic", "optimistic", *self.rules)):
            out[f"a_{rule}"] = self.a[rule]
            out[f"b_{rule}"] = self.b[rule]
        out["difference"] = self.differences
        return pd.DataFrame(out)


def compare_runs(
    run_a: Run,
    run_b: Run,
    qrels: Qrels,
    measure: str | Measure = "nDCG@10",
    *,
    relevance_level: int = 1,
    complete: bool = False,
    resampling: ResamplingOptions | None = DEFAULT_RESAMPLING,
    ties: str | Sequence[str] = ("expected",),
) -> RunComparison:
    """Evaluate both runs under expected, pessimistic and optimistic, paired by query, with
    the paired tests of B against A (``resampling``; None: no tests, ``tests`` is None).

    Queries are those evaluated for both runs (with ``complete=True`` all qrels queries, a
    query a run did not answer scoring 0 for it).  The judged queries that only one run
    answered are reported either way (:class:`RunComparison`), never dropped unsaid.
    ``summary()`` holds the values, the worst cases and the tests: the numbers
    ``rankaudit compare`` prints; ``ties``: the rules reported besides, in ``by_rule``
    (module docstring).  Raises ValueError when the runs share no evaluated query.
    """
    m = parse_measure(measure)
    reported = tuple(check_rules(ties, api="runs"))
    evaluated = tuple(dict.fromkeys(("expected", "pessimistic", "optimistic", *reported)))
    if resampling is not None and not isinstance(resampling, ResamplingOptions):
        raise ValueError(
            f"resampling must be a ResamplingOptions or None; got {type(resampling).__name__}"
        )
    judged = distinct_ids(qrels.query)
    answered_a, answered_b = (
        np.asarray(pc.filter(judged, pc.is_in(judged, value_set=distinct_ids(r.query))), dtype=str)
        for r in (run_a, run_b)
    )
    vals = []
    for run in (run_a, run_b):
        batch = join_run_qrels(run, qrels, relevance_level=relevance_level, complete=complete)
        seed = 0 if resampling is None else resampling.seed  # the hash rule's too
        rules = evaluate_rules(batch, (m,), evaluated, seed=seed)
        vals.append((batch.queries, {rule: v[:, 0] for rule, v in rules.items()}))
    (qa, va), (qb, vb) = vals
    common, ia, ib = np.intersect1d(qa.astype(str), qb.astype(str), return_indices=True)
    if len(common) == 0:
        raise ValueError("the two runs share no query that the qrels judge: nothing to compare")
    a, b = {r: v[ia] for r, v in va.items()}, {r: v[ib] for r, v in vb.items()}
    tests = None if resampling is None else paired_tests(a["expected"], b["expected"], resampling)
    return RunComparison(
        m,
        common.astype(object),
        a,
        b,
        np.setdiff1d(answered_a, answered_b).astype(object),
        np.setdiff1d(answered_b, answered_a).astype(object),
        bool(complete),
        tests,
        rules=reported,
    )


def compare_measures(
    run_a: Run,
    run_b: Run,
    qrels: Qrels,
    measures: Sequence[str | Measure] = ("nDCG@10",),
    *,
    relevance_level: int = 1,
    complete: bool = False,
    resampling: ResamplingOptions = DEFAULT_RESAMPLING,
    ties: str | Sequence[str] = ("expected",),
) -> list[RunComparison]:
    """:func:`compare_runs` of every measure of ``measures`` (each with its paired tests),
    each with ``p_holm``: Holm's adjustment of the sign-flip p-values over the measures
    compared together (module docstring).  One measure: ``p_holm`` is its p-value."""
    ms = parse_measures(measures)
    if not isinstance(resampling, ResamplingOptions):
        raise ValueError(f"resampling must be a ResamplingOptions; got {type(resampling).__name__}")
    comparisons = [
        compare_runs(
            run_a,
            run_b,
            qrels,
            m,
            relevance_level=relevance_level,
            complete=complete,
            resampling=resampling,
            ties=ties,
        )
        for m in ms
    ]
    p_values = np.array([c.tests.p_value_sign_flip for c in comparisons if c.tests], dtype=float)
    return [
        replace(c, p_holm=float(p)) for c, p in zip(comparisons, holm_adjust(p_values), strict=True)
    ]
