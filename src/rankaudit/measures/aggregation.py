"""A run's value of a measure from its per-query values, as trec_eval aggregates them.

trec_eval reports the mean over the evaluated queries for every measure except its counts
(``num_ret``, ``num_rel``, ``num_rel_ret``), which it sums; ir_measures writes the same with
``MeanAgg`` and ``SumAgg``.  Each family declares which (:attr:`Family.aggregation
<rankaudit.measures.families.Family>`); every path that aggregates reads it here.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np

from rankaudit.measures.registry import Measure

__all__ = ["aggregate_value", "aggregate_values"]


def aggregate_value(measure: Measure, values: object) -> float:
    """The run's value of ``measure`` from its per-query ``values``, as trec_eval aggregates it:
    ``sum_q v_q`` for a ``"sum"`` measure (the counts), ``(1/n) sum_q v_q`` otherwise
    (module docstring).  The sum is ``math.fsum`` (correctly rounded), so the result does not
    depend on the order of the queries.  Raises ValueError when there is no value (a mean of
    nothing is no number) or when a value is not finite."""
    x = np.asarray(values, dtype=np.float64).reshape(-1)
    if x.size == 0:
        raise ValueError(f"measure {measure}: no query to aggregate")
    if not np.all(np.isfinite(x)):
        bad = int(np.argmax(~np.isfinite(x)))
        raise ValueError(f"measure {measure}: the value of query {bad} is {x[bad]!r}, not finite")
    total = math.fsum(x.tolist())
    return total if measure.aggregation == "sum" else total / x.size


def aggregate_values(measures: Sequence[Measure], values: np.ndarray) -> np.ndarray:
    """:func:`aggregate_value` of each column of a ``(queries, measures)`` array."""
    v = np.asarray(values, dtype=np.float64)
    if v.ndim != 2 or v.shape[1] != len(measures):
        raise ValueError(f"need a (queries, {len(measures)}) array, got shape {v.shape}")
    return np.array([aggregate_value(m, v[:, j]) for j, m in enumerate(measures)])
