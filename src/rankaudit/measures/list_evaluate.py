"""Any set of registered measures over ranked lists under one tie rule: the one entry point of
the list kernels, which both input shapes call (runs: :mod:`rankaudit.runs.evaluate`; rows:
:mod:`rankaudit.ties.measures_rows`).

The adapters lay their input out as :class:`~rankaudit.measures.list_support.ListDocs` and
:class:`~rankaudit.measures.list_support.QueryJudgments` and, for a rule that orders every
measure alike (``trec_eval``, ``input_order``, ``hash``), pass the rule's sort key.  The bound
rules sort each tie block by the *measure's* utility instead (:func:`utility_class`,
:func:`utility_key`): lowest first for ``pessimistic``, highest first for ``optimistic``, so
each measure gets its own minimum and maximum; measures with the same utility share one sort.
The ``random`` rule (rows only) draws each repeat's order of every tie block with the row
kernel's stream (:func:`evaluate_sampled`) and averages the ordered kernel's values.

The envelope holds in floating point, not only on paper (:func:`evaluate_envelope`):

- ``pessimistic`` and ``optimistic`` are the smaller and the larger of the two extreme orders'
  values (each the value of an actual tie order, summed in rank order as trec_eval sums), so
  ``pessimistic <= optimistic`` even where rounding could invert two nearly equal sums;
- ``expected`` (the closed forms and dynamic programmes of the expected kernel, which sum in
  another order) is clamped into ``[pessimistic, optimistic]``.  Where no tie moves a query
  (no tie at all, or tie blocks whose order does not change the measure) both bounds are the
  same order's value, so ``expected``, ``pessimistic``, ``optimistic`` and every ordered rule
  (``trec_eval`` among them) are the same bits; and ``pessimistic <= expected <= optimistic``
  always holds exactly.  A batch without any tie is evaluated once, by the ordered kernel;
  with ties, one of these rules alone costs both bound orders (and the expectation), about
  two to three times one ordered pass; all three together cost what they cost before.

Values of *different* computations that differ by rounding alone (two runs whose per-query
values are mathematically equal but summed in other orders) are told apart from real
differences by :data:`ROUNDING_TOLERANCE` (:func:`rounding_tolerance`): leaderboard orders,
rank intervals, Kendall's tau and the paired tests treat them as equal.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import NamedTuple

import numba
import numpy as np

from rankaudit.measures.families import ERR_MAX_GRADE
from rankaudit.measures.list_kernels import list_expected_kernel, list_ordered_kernel
from rankaudit.measures.list_support import (
    ListDocs,
    QueryJudgments,
    Tables,
    list_tables,
)
from rankaudit.measures.registry import FAMILIES, Measure, measure_spec
from rankaudit.measures.row_sampled import random_tie_keys
from rankaudit.measures.rules import rule

__all__ = [
    "BOUND_RULES",
    "Draws",
    "ROUNDING_TOLERANCE",
    "check_labels",
    "envelope_role",
    "evaluate_envelope",
    "evaluate_lists",
    "evaluate_sampled",
    "rounding_tolerance",
    "utility_class",
    "utility_key",
]

#: the keys of :func:`evaluate_envelope`'s bounds: lower, upper
BOUND_RULES = ("pessimistic", "optimistic")
#: Two values of a measure (or of an aggregate, or of a difference) whose gap is at most this
#: times ``max(1, |largest value|)`` differ by rounding alone.  A value is a sum of ``n`` terms,
#: each rounded once: off by at most about ``n 2**-53`` of its magnitude (below 1e-12 up to
#: 9,000 terms) and typically by ``sqrt(n) 2**-53`` (below it for any list).  The price: a real
#: difference below 1e-12 (RBP(p=0.5) moved at rank 45 changes by 2**-45 = 2.8e-14) counts as
#: none.  The same constant decides whether a tie moves a query (the prevalence).
ROUNDING_TOLERANCE = 1e-12


class Draws(NamedTuple):
    """What the ``random`` rule draws from: one ``row_key`` per query
    (:mod:`rankaudit.measures.row_sampled`: seed and query or user id) and the number of
    orders averaged."""

    row_keys: np.ndarray
    n_repeats: int


def rounding_tolerance(*values: object) -> float:
    """``ROUNDING_TOLERANCE * max(1, max |v|)`` over every value of ``values`` (arrays or
    numbers): the largest gap that rounding alone explains between values of this size."""
    top = 1.0
    for v in values:
        a = np.abs(np.asarray(v, dtype=np.float64))
        if a.size:
            top = max(top, float(a.max()))
    return ROUNDING_TOLERANCE * top


def envelope_role(ties: str) -> str | None:
    """Which array of :func:`evaluate_envelope` a rule is, as its declaration says
    (:mod:`rankaudit.measures.rules`): ``"expected"``, ``"pessimistic"`` (a bound worst
    first), ``"optimistic"`` (best first), or None for a rule that orders by a key.  A
    ``sample`` rule is not part of the envelope (:func:`evaluate_sampled` draws its orders):
    a ValueError."""
    declared = rule(ties)
    if declared.order == "expected":
        return "expected"
    if declared.order == "bound":
        return BOUND_RULES[declared.bound > 0]
    if declared.order == "key":
        return None
    raise ValueError(
        f"ties={ties!r} (order={declared.order!r}) is not an envelope rule nor a key rule: "
        "its orders are drawn (evaluate_sampled)"
    )


def check_labels(measures: Sequence[Measure], judged_labels: np.ndarray) -> None:
    """ERR's stopping probability needs labels <= ``max_grade`` (gdeval refuses larger
    ones); raise a ValueError naming the measure and the label otherwise, with a hint that
    can be followed: ``max_grade`` itself is at most :data:`ERR_MAX_GRADE`."""
    top = int(judged_labels.max(initial=0))
    for m in measures:
        if m.family == "ERR" and top > int(m.param("max_grade")):  # type: ignore[call-overload]
            if top <= ERR_MAX_GRADE:
                hint = f"use ERR(max_grade={top})@{m.cutoff}"
            else:
                hint = (
                    f"ERR's max_grade is at most {ERR_MAX_GRADE} (its stopping probability "
                    f"is (2**label - 1) / 2**max_grade); map the labels into 0..{ERR_MAX_GRADE}"
                )
            raise ValueError(
                f"measure {m}: a qrels label is {top}, above max_grade="
                f"{m.param('max_grade')}; {hint}"
            )


def utility_class(measure: Measure, relevance_level: int) -> tuple:
    """What a measure's bound orders by, as its family declares
    (:attr:`~rankaudit.measures.families.Family.utility`); measures with equal classes share
    one sort.

    Most measures share the class ``("label",)``: the key ``2 g + b``, ``g`` the label of a
    judged document (0 unjudged or negative), ``b = 0`` for a judged label-0 document and 1
    otherwise.  It orders by the label (so by the linear or exponential gain, ERR's stopping
    probability and relevance at any level >= 1) and, among gain-0 documents, puts judged
    non-relevant ones below unjudged ones (Bpref at level 1).  Graded RBP's gain (its label at
    or above the level, else 0) never decreases along it, at any level.  A gain map
    (``("gain", map)``), Bpref at another level (``("bpref", level)``), level 0
    (``("relevant", level)``), Judged (``("judged",)``) and RBP's residual
    (``("unjudged",)``) order by their own utilities (:func:`utility_key`).
    """
    return FAMILIES[measure.family].utility(measure, relevance_level)


@numba.njit(cache=True)
def _label_utility(labels, judged, out):  # pragma: no cover - compiled
    """``out[i] = 2 g + b`` (class ``("label",)`` of :func:`utility_class`), one pass."""
    for i in range(len(labels)):
        lab = labels[i]
        if judged[i]:
            out[i] = 2 * max(lab, 0) + (lab != 0)
        else:
            out[i] = 1


def utility_key(utility: tuple, labels: np.ndarray, judged: np.ndarray) -> np.ndarray:
    """The utility of each document for a class of :func:`utility_class` (higher is better
    for the measure), as int32 when it fits (int64 otherwise): a run's keys are as long as
    the run."""
    kind = utility[0]
    if kind == "label":
        top = int(labels.max(initial=0))
        out = np.empty(len(labels), np.int32 if top < 2**30 else np.int64)
        _label_utility(labels, judged, out)
        return out
    if kind == "gain":
        mapped = np.where(judged, labels, 0).astype(np.float64)
        for label, gain in utility[1]:
            mapped = np.where(judged & (labels == label), gain, mapped)
        return np.unique(np.maximum(mapped, 0.0), return_inverse=True)[1].astype(np.int64)
    if kind == "judged":
        return judged.astype(np.int32)
    if kind == "unjudged":
        return (~judged).astype(np.int32)
    if kind == "bpref":
        level = utility[1]
        rel = judged & (labels >= level)
        nonrel = judged & (labels >= 0) & (labels < level)
        return 2 * rel.astype(np.int32) + (~nonrel).astype(np.int32)
    return (judged & (labels >= utility[1])).astype(np.int32)


def _sort_key(keys: np.ndarray) -> np.ndarray:
    """``keys`` as the kernels take them: contiguous int32 or int64."""
    keys = np.ascontiguousarray(keys)
    if keys.dtype not in (np.int32, np.int64):
        keys = keys.astype(np.int64)
    return keys


@numba.njit(cache=True)
def _any_tie(offsets, order, scores):  # pragma: no cover - compiled
    """Whether any query holds two documents with exactly equal scores."""
    for q in range(len(offsets) - 1):
        a = offsets[q]
        for r in range(1, offsets[q + 1] - a):
            if scores[a + order[a + r]] == scores[a + order[a + r - 1]]:
                return True
    return False


def _bound(
    docs: ListDocs,
    judg: QueryJudgments,
    measures: Sequence[Measure],
    role: str,
    relevance_level: int,
    tables: Tables,
) -> np.ndarray:
    """Every measure under the order of ``role`` (``pessimistic`` or ``optimistic``): each tie
    block sorted by the measure's own utility (module docstring)."""
    out = np.empty((len(docs.offsets) - 1, len(measures)))
    groups: dict[tuple, list[int]] = {}
    for j, m in enumerate(measures):
        groups.setdefault(utility_class(m, relevance_level), []).append(j)
    for utility, columns in groups.items():
        key = _sort_key(utility_key(utility, docs.labels, docs.judged))
        if role == BOUND_RULES[1]:
            np.negative(key, out=key)
        spec = measure_spec([measures[j] for j in columns], relevance_level)
        part = np.empty((len(out), len(columns)))
        list_ordered_kernel(docs, judg, spec, tables, key, part)
        out[:, columns] = part
    return out


def evaluate_envelope(
    docs: ListDocs,
    judg: QueryJudgments,
    measures: Sequence[Measure],
    relevance_level: int,
    *,
    expected: bool = True,
) -> dict[str, np.ndarray]:
    """``{"pessimistic", "optimistic"[, "expected"]}``: ``(queries, measures)`` arrays with
    ``pessimistic <= expected <= optimistic`` exactly, all three the same bits wherever no tie
    moves a query (module docstring).  ``expected=False`` leaves the expectation out."""
    check_labels(measures, judg.labels)
    tables = _tables(docs, judg)
    if not _any_tie(docs.offsets, docs.order, docs.scores):
        # one order: every rule's value is the ordered kernel's, bit for bit
        one = np.empty((len(docs.offsets) - 1, len(measures)))
        keys = np.zeros(len(docs.scores), np.int32)  # no tie block: never read
        list_ordered_kernel(docs, judg, measure_spec(measures, relevance_level), tables, keys, one)
        out = {"pessimistic": one, "optimistic": one.copy()}
        if expected:
            out["expected"] = one.copy()
        return out
    low = _bound(docs, judg, measures, "pessimistic", relevance_level, tables)
    high = _bound(docs, judg, measures, "optimistic", relevance_level, tables)
    out = {"pessimistic": np.minimum(low, high), "optimistic": np.maximum(low, high)}
    if expected:
        mean = np.empty_like(low)
        list_expected_kernel(docs, judg, measure_spec(measures, relevance_level), tables, mean)
        np.clip(mean, out["pessimistic"], out["optimistic"], out=mean)
        out["expected"] = mean
    return out


def _tables(docs: ListDocs, judg: QueryJudgments) -> Tables:
    longest = max(
        int(np.diff(docs.offsets).max(initial=0)), int(np.diff(judg.offsets).max(initial=0))
    )
    return list_tables(longest)


def evaluate_sampled(
    docs: ListDocs,
    judg: QueryJudgments,
    measures: Sequence[Measure],
    relevance_level: int,
    draws: Draws,
) -> tuple[np.ndarray, np.ndarray | None]:
    """``(mean, std)``, ``(queries, measures)`` arrays, of every measure over ``n_repeats``
    seeded uniform random orders of every tie block (the ``random`` rule).

    Repeat ``r`` orders each query's tie blocks by
    :func:`rankaudit.measures.row_sampled.random_tie_keys` (the row kernel's draws, from
    ``row_keys[q]``) and scores that order with the ordered kernel; the repeats are averaged by
    Welford's running mean ``mean += (x - mean) / (r + 1)`` and ``std`` is the sample standard
    deviation (``ddof = 1``; None for one repeat), as
    :func:`rankaudit.measures.row_sampled.row_random_kernel` computes them.  A Python loop runs
    over the repeats only; each repeat is two compiled passes over every query.
    """
    check_labels(measures, judg.labels)
    row_keys = np.ascontiguousarray(draws.row_keys, dtype=np.uint64)
    nq = len(docs.offsets) - 1
    if len(row_keys) != nq:
        raise ValueError(f"draws.row_keys holds {len(row_keys)} keys for {nq} queries")
    spec = measure_spec(measures, relevance_level)
    tables = _tables(docs, judg)
    keys = np.empty(len(docs.scores), np.int64)
    x = np.empty((nq, len(measures)))
    mean = np.zeros_like(x)
    m2 = np.zeros_like(x)
    for rep in range(draws.n_repeats):
        random_tie_keys(docs.offsets, docs.order, docs.scores, docs.labels, row_keys, rep, keys)
        list_ordered_kernel(docs, judg, spec, tables, keys, x)
        d = x - mean
        mean += d / (rep + 1.0)
        m2 += d * (x - mean)
    if draws.n_repeats == 1:
        return mean, None
    return mean, np.sqrt(np.maximum(m2, 0.0) / (draws.n_repeats - 1))


def evaluate_lists(
    docs: ListDocs,
    judg: QueryJudgments,
    measures: Sequence[Measure],
    ties: str,
    relevance_level: int,
    keys: np.ndarray | None = None,
    draws: Draws | None = None,
) -> np.ndarray:
    """``(queries, measures)`` values under ``ties``, as its declaration's ``order`` says:
    the exact expectation or a bound (:func:`evaluate_envelope`), the order of ``keys``
    (``"key"``: ascending inside a tie block, required) or the mean over seeded random orders
    (``"sample"``: :func:`evaluate_sampled` with ``draws``, required).  An order this function
    does not know is a ValueError (no default branch)."""
    order = rule(ties).order
    if order in ("expected", "bound"):
        role = envelope_role(ties)
        wanted = role == "expected"
        return evaluate_envelope(docs, judg, measures, relevance_level, expected=wanted)[role]
    if order == "sample":
        if draws is None:
            raise ValueError(f"ties={ties!r} needs its draws (row keys and n_repeats)")
        return evaluate_sampled(docs, judg, measures, relevance_level, draws)[0]
    if order != "key":
        raise ValueError(f"ties={ties!r}: the list kernels do not know order={order!r}")
    check_labels(measures, judg.labels)
    if keys is None:
        raise ValueError(f"ties={ties!r} needs the rule's sort key")
    out = np.empty((len(docs.offsets) - 1, len(measures)))
    spec = measure_spec(measures, relevance_level)
    list_ordered_kernel(docs, judg, spec, _tables(docs, judg), _sort_key(keys), out)
    return out
