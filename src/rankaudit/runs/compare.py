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
Significance tests are left to the caller (the command line uses
:mod:`rankaudit.runs.significance`), so this room imports nothing above it.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd
import pyarrow.compute as pc

from rankaudit.measures.aggregation import aggregate_value
from rankaudit.measures.list_evaluate import rounding_tolerance
from rankaudit.measures.registry import Measure, parse_measure
from rankaudit.runs.evaluate import evaluate_rules
from rankaudit.runs.layout import join_run_qrels
from rankaudit.runs.tables import Qrels, Run, distinct_ids

__all__ = ["RunComparison", "compare_runs"]


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
        }

    def per_query(self) -> pd.DataFrame:
        out = {"query": self.queries}
        for rule in ("expected", "pessimistic", "optimistic"):
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
) -> RunComparison:
    """Evaluate both runs under expected, pessimistic and optimistic, paired by query.

    Queries are those evaluated for both runs (with ``complete=True`` all qrels queries, a
    query a run did not answer scoring 0 for it).  The judged queries that only one run
    answered are reported either way (:class:`RunComparison`), never dropped unsaid.
    Raises ValueError when the runs share no evaluated query.
    """
    m = parse_measure(measure)
    judged = distinct_ids(qrels.query)
    answered_a, answered_b = (
        np.asarray(pc.filter(judged, pc.is_in(judged, value_set=distinct_ids(r.query))), dtype=str)
        for r in (run_a, run_b)
    )
    vals = []
    for run in (run_a, run_b):
        batch = join_run_qrels(run, qrels, relevance_level=relevance_level, complete=complete)
        rules = evaluate_rules(batch, (m,), ("expected", "pessimistic", "optimistic"))
        vals.append((batch.queries, {rule: v[:, 0] for rule, v in rules.items()}))
    (qa, va), (qb, vb) = vals
    common, ia, ib = np.intersect1d(qa.astype(str), qb.astype(str), return_indices=True)
    if len(common) == 0:
        raise ValueError("the two runs share no query that the qrels judge: nothing to compare")
    return RunComparison(
        m,
        common.astype(object),
        {r: v[ia] for r, v in va.items()},
        {r: v[ib] for r, v in vb.items()},
        np.setdiff1d(answered_a, answered_b).astype(object),
        np.setdiff1d(answered_b, answered_a).astype(object),
        bool(complete),
    )
