"""The checklist's pre-sort item: where relevant documents sit in the file order, and whether
that layout is systematic.

Guo et al. (2026, §6) ask every evaluation to report the "pre-sort candidate order": whether
the relevant item has a fixed position and whether rows are shuffled.  The order matters
wherever a tie rule reads it (input order, i.e. a stable sort): inside a tie block the document
stored first is ranked first.  Its effect on one run is the number of ties times the layout's
bias, so a run with few ties can hide a layout that decides every tie of a run with many; this
item therefore rates the *layout*, and reports the present effect beside it.

The statistic.  In each query, take the pairs (relevant document, non-relevant document) whose
order a stable sort could take from the file:

- if the query's lines are stored by score, descending (a ranked TREC run), only the pairs
  inside one tie block (equal scores): elsewhere the file order is the score order;
- otherwise (candidates stored in some other order, e.g. the relevant item first, or a logged
  ranking), every pair of the query: the file order is a layout independent of the score.

``U`` counts the pairs whose relevant document is stored first; ``share_relevant_first =
U / pairs``.  Under a random layout (each group's documents stored in a uniformly random order)
``U`` of a group with ``n1`` relevant and ``n0`` non-relevant documents is a Mann-Whitney
statistic with mean ``n1 n0 / 2`` and variance ``n1 n0 (n1 + n0 + 1) / 12`` (Mann & Whitney,
1947); summed over the independent groups, ``z = (U - E[U]) / sqrt(Var[U])``.  The layout is
**systematic** when ``U`` departs from its expectation under a random layout by the decision
standard (:func:`rankaudit.runs.decision.expectation_verdict`: ``|z| > Z_AGREE``, the one
threshold of "agrees with its expectation"): relevant documents stored first (``z > 0``) or
last (``z < 0``) more often than chance allows.  A
systematic layout is rated ``"warn"`` (ATTENTION) whatever the present effect; so is a present
effect beyond the tolerance (the file order moves the reported measure).

The present effect beside it is one comparison wherever the item is filled (rows, a run, the
command line): the measure under the file order (input order, a stable sort) against its
expectation under uniformly random tie orders (:func:`present_effect`), the reference a
layout-free evaluation reports; a change beyond the checklist's tolerance also asks for
attention.

Public API: :data:`LAYOUT_Z`, :func:`layout_facts`, :func:`pairs_phrase`, :func:`present_effect`,
:func:`presort_item`.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

import numpy as np

from rankaudit.runs.decision import DEPARTS_EXPECTATION, Z_AGREE, expectation_verdict

__all__ = [
    "LAYOUT_Z",
    "layout_facts",
    "pairs_phrase",
    "present_effect",
    "presort_item",
    "share_text",
]

#: |z| beyond which the file order is a systematic layout: the decision standard's ``Z_AGREE``
LAYOUT_Z = Z_AGREE


def layout_facts(offsets: np.ndarray, scores: np.ndarray, relevant: np.ndarray) -> dict[str, Any]:
    """The layout statistic (module docstring) of lines in file order: query ``q`` owns lines
    ``offsets[q]:offsets[q + 1]`` of ``scores`` (float) and ``relevant`` (bool).

    Returns ``pairs`` (relevant/non-relevant pairs the file order can decide), ``relevant_first``
    (``U``), ``share_relevant_first`` (``U / pairs``; 0.5 when there is no pair), ``z`` (0 when
    there is no pair), ``n_queries_stored_by_score`` and ``systematic`` (``U`` departs from its
    expectation: ``|z| > LAYOUT_Z``, :func:`rankaudit.runs.decision.expectation_verdict`).
    """
    offsets = np.asarray(offsets, dtype=np.int64)
    scores = np.asarray(scores)  # compared only: integer scores keep every bit
    rel = np.asarray(relevant, dtype=bool)
    n = len(scores)
    if len(rel) != n or offsets.ndim != 1 or len(offsets) < 1 or offsets[-1] != n:
        raise ValueError(
            f"offsets must end at the number of lines ({n}) and relevant must have {n} entries; "
            f"got offsets ending at {offsets[-1] if len(offsets) else None}, {len(rel)} labels"
        )
    if np.any(np.diff(offsets) < 0):
        raise ValueError("offsets must be non-decreasing")
    if scores.dtype.kind == "f" and np.isnan(scores).any():
        raise ValueError(f"scores hold NaN (line {int(np.isnan(scores).argmax())})")
    sizes = np.diff(offsets)
    query = np.repeat(np.arange(len(sizes)), sizes)
    first = np.zeros(n, dtype=bool)
    first[offsets[:-1][sizes > 0]] = True
    falls = np.ones(n, dtype=bool)  # line i stored no higher than line i - 1 of its query
    falls[1:] = scores[1:] <= scores[:-1]
    falls |= first
    by_score = np.bincount(query, weights=~falls, minlength=len(sizes)) == 0
    # a group starts at each query's first line and, in a query stored by score, at each new score
    starts = first.copy()
    starts[1:] |= by_score[query[1:]] & (scores[1:] != scores[:-1])
    group = np.cumsum(starts) - 1
    non = (~rel).astype(np.float64)
    n1 = np.bincount(group, weights=rel.astype(np.float64))
    n0 = np.bincount(group, weights=non)
    cum_non = np.cumsum(non)
    before_group = (cum_non - non)[starts]  # non-relevant lines before each group starts
    non_after = n0[group] - (cum_non - before_group[group])  # non-relevant stored later, same group
    u = float(np.sum(non_after[rel]))
    pairs = float(np.sum(n1 * n0))
    var = float(np.sum(n1 * n0 * (n1 + n0 + 1.0) / 12.0))
    z = (u - pairs / 2.0) / math.sqrt(var) if var > 0 else 0.0
    return {
        "pairs": int(pairs),
        "relevant_first": int(u),
        "share_relevant_first": u / pairs if pairs > 0 else 0.5,
        "z": z,
        "z_threshold": LAYOUT_Z,
        "n_queries_stored_by_score": int(np.sum(by_score & (sizes > 0))),
        "n_queries": int(np.sum(sizes > 0)),
        "systematic": expectation_verdict(z, z_max=LAYOUT_Z) == DEPARTS_EXPECTATION,
    }


def pairs_phrase(k: int, n: int) -> str:
    """``k`` of ``n`` pairs in words, after "in": "all 110 pairs" when ``k == n``, "none of the
    110 pairs" when ``k == 0``, otherwise the share with one decimal, "62.3% of 110 pairs" (a
    share that one decimal would round to 0.0% or 100.0% reads "less than 0.1%" or "more than
    99.9%"). One pair: "the one pair" / "none of the 1 pair"; two: "both pairs" / "neither of
    the 2 pairs"."""
    if isinstance(k, bool) or isinstance(n, bool) or int(k) != k or int(n) != n:
        raise ValueError(f"pairs_phrase needs whole numbers, got k={k!r}, n={n!r}")
    k, n = int(k), int(n)
    if n < 1 or not 0 <= k <= n:
        raise ValueError(f"pairs_phrase needs 0 <= k <= n and n >= 1, got k={k}, n={n}")
    noun = "pair" if n == 1 else "pairs"
    if k == n:
        return "the one pair" if n == 1 else "both pairs" if n == 2 else f"all {n:,} pairs"
    if k == 0:
        return "neither of the 2 pairs" if n == 2 else f"none of the {n:,} {noun}"
    return f"{share_text(k / n)} of {n:,} {noun}"


def share_text(frac: float) -> str:
    """A share with one decimal, "62.3%", that never rounds a partial share to an end: exactly 1
    is "all", exactly 0 "none", and a share that one decimal would print as 0.0% or 100.0%
    reads "less than 0.1%" or "more than 99.9%"."""
    if isinstance(frac, bool) or not isinstance(frac, (int, float)) or not 0.0 <= frac <= 1.0:
        raise ValueError(f"share_text needs a share between 0 and 1, got {frac!r}")
    if frac == 1.0:
        return "all"
    if frac == 0.0:
        return "none"
    share = f"{frac:.1%}"
    if share == "0.0%":
        return "less than 0.1%"
    if share == "100.0%":
        return "more than 99.9%"
    return share


def _layout_sentence(facts: Mapping[str, Any]) -> str:
    if facts["pairs"] == 0:
        return (
            "No relevant document shares a tie block (or an unsorted query) with a non-relevant "
            "one, so the file order decides no pair here."
        )
    where = (
        "inside tie blocks"
        if facts["n_queries_stored_by_score"] == facts["n_queries"]
        else "in the file order"
    )
    head = (
        f"Relevant documents are stored before non-relevant ones {where} in "
        f"{pairs_phrase(facts['relevant_first'], facts['pairs'])} (a random layout: "
        f"50%; z = {facts['z']:.2f})"
    )
    if not facts["systematic"]:
        return f"{head}: not resolved as a systematic layout (|z| <= {LAYOUT_Z:.2f})."
    side = "first" if facts["z"] > 0 else "last"
    return (
        f"{head}: a systematic layout, relevant documents {side} (|z| > {LAYOUT_Z:.2f}). A stable "
        "sort turns it into rank at every tie, and its effect grows with the ties, so shuffle "
        "the rows or break ties by the expectation whatever the effect on this run."
    )


def present_effect(
    measure: str, file_order: float, expected: float, tolerance: float
) -> tuple[str, str]:
    """``(status, sentence)`` of the file order's present effect: ``|file_order - expected|``,
    the measure under the file order (a stable sort) against its expectation under uniformly
    random tie orders, compared exactly with ``tolerance``: ``"warn"`` when the difference
    exceeds it, else ``"ok"`` (no change, or a change within the tolerance, disclosed)."""
    diff = abs(file_order - expected)
    head = f"{measure} under the stored order {file_order:.4f} vs the expectation {expected:.4f}"
    if diff == 0.0:
        return "ok", f"{head}: the stored order does not change the result."
    beyond = diff > tolerance
    return "warn" if beyond else "ok", (
        f"{head}: the stored order changes the result by {diff:.4g}, "
        f"{'beyond' if beyond else 'within'} this checklist's warning tolerance of {tolerance:g}."
    )


def presort_item(
    facts: Mapping[str, Any],
    effect: tuple[str, str] | None = None,
    extra: Mapping[str, Any] | None = None,
) -> tuple[str, str, dict[str, Any]]:
    """``(status, answer, facts)`` of the pre-sort item: the layout sentence of
    :func:`layout_facts`' ``facts``, then ``effect`` (the present effect's ``(status,
    sentence)``, :func:`present_effect`).  ``"warn"``
    when the layout is systematic or the effect's status is ``"warn"``, else ``"ok"``."""
    answer = _layout_sentence(facts)
    status = "warn" if facts["systematic"] else "ok"
    if effect is not None:
        effect_status, sentence = effect
        answer += f" Present effect: {sentence}"
        if effect_status == "warn":
            status = "warn"
    return status, answer, {**dict(extra or {}), "layout": dict(facts)}
