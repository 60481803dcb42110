"""Any set of registered measures over ranked lists under one tie rule: the one entry point of
the list kernels, which both input shapes call (runs: :mod:`rankaudit.runs.evaluate`; rows:
:mod:`rankaudit.ties.measures_rows`).

The adapters lay their input out as :class:`~rankaudit.measures.list_support.ListDocs` and
:class:`~rankaudit.measures.list_support.QueryJudgments` and, for a rule that orders every
measure alike (``trec_eval``, ``input_order``, ``hash``), pass the rule's sort key.  The bound
rules sort each tie block by the *measure's* utility instead (:func:`utility_class`,
:func:`utility_key`): lowest first for ``pessimistic``, highest first for ``optimistic``, so
each measure gets its own minimum and maximum; measures with the same utility share one sort.
"""

from __future__ import annotations

from collections.abc import Sequence

import numba
import numpy as np

from rankaudit.measures.families import ERR_MAX_GRADE
from rankaudit.measures.list_kernels import list_expected_kernel, list_ordered_kernel
from rankaudit.measures.list_support import (
    BPREF,
    JUDGED,
    NDCG,
    RBPRES,
    ListDocs,
    QueryJudgments,
    list_tables,
)
from rankaudit.measures.registry import FAMILIES, Measure, measure_spec

__all__ = ["check_labels", "evaluate_lists", "utility_class", "utility_key"]

BOUND_RULES = ("pessimistic", "optimistic")


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
    """What a measure's bound orders by; measures with equal classes share one sort.

    Most measures share the class ``("label",)``: the key ``2 g + b``, ``g`` the label of a
    judged document (0 unjudged or negative), ``b = 0`` for a judged label-0 document and 1
    otherwise.  It orders by the label (so by the linear or exponential gain, ERR's stopping
    probability and relevance at any level >= 1) and, among gain-0 documents, puts judged
    non-relevant ones below unjudged ones (Bpref at level 1).  Graded RBP's gain (its label at
    or above the level, else 0) never decreases along it, at any level.  A gain map, Bpref at
    another level, level 0, Judged and RBP's residual order by their own utilities.
    """
    has_rel = any(p.name == "rel" for p in FAMILIES[measure.family].params)
    level = measure.level(relevance_level)
    if measure.code == NDCG and measure.param("gains") is not None:
        return ("gain", measure.param("gains"))
    if measure.code == JUDGED:
        return ("judged",)
    if measure.code == RBPRES:
        return ("unjudged",)
    if measure.code == BPREF and level != 1:
        return ("bpref", level)
    if measure.family == "RBP" and measure.param("rel") is None:
        return ("label",)  # graded: its gain never decreases along the label key
    if has_rel and level < 1:
        return ("relevant", level)
    return ("label",)


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


def evaluate_lists(
    docs: ListDocs,
    judg: QueryJudgments,
    measures: Sequence[Measure],
    ties: str,
    relevance_level: int,
    keys: np.ndarray | None = None,
) -> np.ndarray:
    """``(queries, measures)`` values under ``ties``: the exact expectation, the bounds, or
    the order of ``keys`` (ascending inside a tie block; required by every other rule)."""
    check_labels(measures, judg.labels)
    n_queries = len(docs.offsets) - 1
    longest = max(
        int(np.diff(docs.offsets).max(initial=0)), int(np.diff(judg.offsets).max(initial=0))
    )
    tables = list_tables(longest)
    out = np.empty((n_queries, len(measures)))
    if ties == "expected":
        list_expected_kernel(docs, judg, measure_spec(measures, relevance_level), tables, out)
        return out
    if ties not in BOUND_RULES:
        if keys is None:
            raise ValueError(f"ties={ties!r} needs the rule's sort key")
        key = _sort_key(keys)
        list_ordered_kernel(docs, judg, measure_spec(measures, relevance_level), tables, key, out)
        return out
    groups: dict[tuple, list[int]] = {}
    for j, m in enumerate(measures):
        groups.setdefault(utility_class(m, relevance_level), []).append(j)
    for utility, columns in groups.items():
        key = _sort_key(utility_key(utility, docs.labels, docs.judged))
        if ties == "optimistic":
            np.negative(key, out=key)
        spec = measure_spec([measures[j] for j in columns], relevance_level)
        part = np.empty((n_queries, len(columns)))
        list_ordered_kernel(docs, judg, spec, tables, key, part)
        out[:, columns] = part
    return out
