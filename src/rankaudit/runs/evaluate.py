"""Evaluate a run against qrels: every measure, every tie rule, per query and in aggregate.

:func:`evaluate_run` is the one-rule call (a DataFrame, one row per query).
:func:`audit_run` evaluates several rules on one layout and adds what the rules disagree on:
the tie envelope (optimistic minus pessimistic) and the moved share (share of queries whose
value moves between the bounds: a tie that can change the measure; not to be confused with
:func:`rankaudit.tie_prevalence`, the structural tie flags of rows).
The run's value of a measure is its per-query values aggregated as trec_eval aggregates them:
the mean over the evaluated queries, the sum for the counts (``NumRet``, ``NumRel``,
``NumRelRet``), as each family declares (:func:`rankaudit.measures.registry.aggregate_value`).
Under the expected and bound rules ``pessimistic <= expected <= optimistic`` holds exactly,
and where no tie moves a query the three are the same bits as every ordered rule
(:func:`rankaudit.measures.list_evaluate.evaluate_envelope`).
Definitions: :mod:`rankaudit.measures.registry`; rules: :mod:`rankaudit.runs.tie_keys`.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd

from rankaudit._checks import check_seed
from rankaudit.measures.aggregation import aggregate_values
from rankaudit.measures.list_evaluate import (
    BOUND_RULES,
    ROUNDING_TOLERANCE,
    envelope_role,
    evaluate_envelope,
    evaluate_lists,
)
from rankaudit.measures.list_support import ListDocs, QueryJudgments
from rankaudit.measures.registry import FAMILIES, Measure, parse_measures
from rankaudit.measures.rules import check_rule, check_rules
from rankaudit.runs.layout import QueryBatch, join_run_qrels
from rankaudit.runs.tables import Qrels, Run
from rankaudit.runs.tie_keys import tie_keys

__all__ = [
    "RunAudit",
    "audit_batch",
    "audit_run",
    "evaluate_batch",
    "evaluate_rules",
    "evaluate_run",
]

DEFAULT_MEASURES = ("nDCG@10", "P@10", "AP", "RR")


def _lists(batch: QueryBatch) -> tuple[ListDocs, QueryJudgments]:
    docs = ListDocs(batch.offsets, batch.score_order, batch.scores, batch.labels, batch.judged)
    return docs, QueryJudgments(batch.judged_offsets, batch.judged_labels)


def evaluate_batch(
    batch: QueryBatch, measures: Sequence[Measure], ties: str, *, seed: int = 0
) -> np.ndarray:
    """``(queries, measures)`` values of ``batch`` under ``ties`` (the core's
    :func:`~rankaudit.measures.list_evaluate.evaluate_lists`; no argument checks)."""
    docs, judg = _lists(batch)
    keys = None if envelope_role(ties) else tie_keys(batch, ties, seed)
    return evaluate_lists(docs, judg, measures, ties, batch.relevance_level, keys)


def evaluate_rules(
    batch: QueryBatch, measures: Sequence[Measure], rules: Sequence[str], *, seed: int = 0
) -> dict[str, np.ndarray]:
    """:func:`evaluate_batch` of every rule of ``rules``; ``expected``, ``pessimistic`` and
    ``optimistic`` come from one :func:`~rankaudit.measures.list_evaluate.evaluate_envelope`
    (the bounds computed once, the expectation clamped between them; no argument checks)."""
    roles = {name: envelope_role(name) for name in rules}
    envelope: dict[str, np.ndarray] = {}
    if any(roles.values()):
        docs, judg = _lists(batch)
        wanted = "expected" in roles.values()
        envelope = evaluate_envelope(docs, judg, measures, batch.relevance_level, expected=wanted)
    return {
        name: (envelope[role] if role else evaluate_batch(batch, measures, name, seed=seed))
        for name, role in roles.items()
    }


def evaluate_run(
    run: Run,
    qrels: Qrels,
    measures: Sequence[str | Measure] = DEFAULT_MEASURES,
    *,
    ties: str = "trec_eval",
    relevance_level: int = 1,
    complete: bool = False,
    seed: int = 0,
) -> pd.DataFrame:
    """Every measure of every evaluated query under one tie rule.

    Returns a DataFrame with a ``query`` column and one column per measure (named as
    ``str(measure)``, e.g. ``nDCG@10``).  The trec_eval aggregate of a column is its mean over
    rows for most measures and its *sum* for the counts ``NumRet``, ``NumRel`` and
    ``NumRelRet`` (trec_eval's ``num_ret``, ``num_rel``, ``num_rel_ret``): use
    :func:`rankaudit.measures.registry.aggregate_value` (or :meth:`RunAudit.aggregate`), which
    reads each measure's declared aggregation.
    ``complete=True`` is ``trec_eval -c``; ``relevance_level`` is ``trec_eval -l``.
    """
    ms = parse_measures(measures)
    ties = check_rule(ties, api="runs")
    seed = check_seed(seed)
    batch = join_run_qrels(run, qrels, relevance_level=relevance_level, complete=complete)
    values = evaluate_batch(batch, ms, ties, seed=seed)
    frame = pd.DataFrame(values, columns=[str(m) for m in ms])
    frame.insert(0, "query", batch.queries)
    frame.attrs.update(ties=ties, relevance_level=batch.relevance_level, complete=batch.complete)
    return frame


@dataclass(frozen=True)
class RunAudit:
    """The values of one run under several tie rules.

    ``values[rule]`` is a ``(queries, measures)`` array; ``queries`` names the rows and
    ``measures`` the columns.  ``moves[:, j]`` flags, per query, whether measure ``j`` differs
    between the pessimistic and optimistic orders by more than rounding
    (:data:`~rankaudit.measures.list_evaluate.ROUNDING_TOLERANCE`).  ``run_sha256`` and
    ``qrels_sha256`` are the digests of the bytes the readers read (``None`` for tables built in
    memory), so a report can name its inputs after the run itself is gone (a pipe cannot be
    read twice).
    """

    queries: np.ndarray
    measures: tuple[Measure, ...]
    values: dict[str, np.ndarray]
    moves: np.ndarray
    any_tie: np.ndarray
    run_sha256: str | None = None
    qrels_sha256: str | None = None

    @property
    def n_queries(self) -> int:
        return len(self.queries)

    def aggregated(self, rule: str) -> np.ndarray:
        """The run's value of every measure under ``rule``: its per-query values aggregated
        as the measure declares (the mean over queries; the sum for the counts).  Raises
        ValueError when no query was evaluated."""
        if self.n_queries == 0:
            raise ValueError("no query is in both the run and the qrels: nothing to aggregate")
        return aggregate_values(self.measures, self.values[rule])

    def aggregate(self) -> pd.DataFrame:
        """Long table ``measure, ties, value, aggregation``: each measure's per-query values
        aggregated as trec_eval aggregates them (``aggregation``: ``"mean"`` over queries, or
        ``"sum"`` for the counts NumRet, NumRel, NumRelRet).  0 queries: ValueError."""
        values = {rule: self.aggregated(rule) for rule in self.values}
        rows = [
            {
                "measure": str(m),
                "ties": rule,
                "value": float(values[rule][j]),
                "aggregation": m.aggregation,
            }
            for j, m in enumerate(self.measures)
            for rule in self.values
        ]
        return pd.DataFrame(rows)

    def envelope(self) -> pd.DataFrame:
        """One row per measure: the value under each rule (aggregated as the measure declares),
        the tie envelope, the moved share (:meth:`moved_share`), ``exact`` (whether ``expected``
        is exact; every measure of the registry is) and ``aggregation`` (``"mean"`` or
        ``"sum"``)."""
        agg = self.aggregate().pivot(index="measure", columns="ties", values="value")
        agg = agg.reindex(index=[str(m) for m in self.measures], columns=list(self.values))
        agg.columns.name = None
        if "optimistic" in agg and "pessimistic" in agg:
            agg["envelope"] = agg["optimistic"] - agg["pessimistic"]
        agg["moved_share"] = self.moves.mean(axis=0)
        # how ``expected`` was computed: True = exactly (closed form or dynamic programme)
        agg["exact"] = [FAMILIES[m.family].expectation == "exact" for m in self.measures]
        agg["aggregation"] = [m.aggregation for m in self.measures]
        return agg.reset_index()

    def per_query(self) -> pd.DataFrame:
        """Long table ``query, measure, ties, value``."""
        parts = []
        for rule, vals in self.values.items():
            for j, m in enumerate(self.measures):
                parts.append(
                    pd.DataFrame(
                        {
                            "query": self.queries,
                            "measure": str(m),
                            "ties": rule,
                            "value": vals[:, j],
                        }
                    )
                )
        return pd.concat(parts, ignore_index=True)

    def moved_share(self) -> dict[str, float]:
        """Per measure, the share of queries whose value a tie order moves: ``#{q : opt_q -
        pess_q > rounding} / n`` (0 when no query was evaluated)."""
        return {
            str(m): float(self.moves[:, j].mean()) if self.n_queries else 0.0
            for j, m in enumerate(self.measures)
        }

    def any_tie_share(self) -> float:
        """Share of queries whose retrieved list holds two equal scores (0 with no query)."""
        return float(self.any_tie.mean()) if self.n_queries else 0.0


def audit_batch(
    batch: QueryBatch,
    measures: Sequence[str | Measure] = DEFAULT_MEASURES,
    *,
    ties: Sequence[str] = ("trec_eval", "expected", "pessimistic", "optimistic"),
    seed: int = 0,
    run_sha256: str | None = None,
    qrels_sha256: str | None = None,
) -> RunAudit:
    """:func:`audit_run` on a run already joined with its qrels (:func:`~rankaudit.runs.
    layout.join_run_qrels`), so a caller can let the run itself go before evaluating: the
    layout is all the rules need."""
    ms = parse_measures(measures)
    rules = check_rules(ties, api="runs")
    seed = check_seed(seed)
    computed = evaluate_rules(batch, ms, list(dict.fromkeys([*rules, *BOUND_RULES])), seed=seed)
    low, high = computed["pessimistic"], computed["optimistic"]
    moves = high - low > ROUNDING_TOLERANCE * np.maximum(1.0, np.abs(high))
    values = {rule: computed[rule] for rule in rules}
    return RunAudit(batch.queries, ms, values, moves, batch.tied, run_sha256, qrels_sha256)


def audit_run(
    run: Run,
    qrels: Qrels,
    measures: Sequence[str | Measure] = DEFAULT_MEASURES,
    *,
    ties: Sequence[str] = ("trec_eval", "expected", "pessimistic", "optimistic"),
    relevance_level: int = 1,
    complete: bool = False,
    seed: int = 0,
) -> RunAudit:
    """Evaluate ``run`` under every rule of ``ties`` (the bounds are always computed, for the
    moved share) on one layout."""
    ms = parse_measures(measures)  # checked before the join: bad arguments fail fast
    rules = check_rules(ties, api="runs")
    seed = check_seed(seed)
    batch = join_run_qrels(run, qrels, relevance_level=relevance_level, complete=complete)
    return audit_batch(
        batch, ms, ties=rules, seed=seed, run_sha256=run.sha256, qrels_sha256=qrels.sha256
    )
