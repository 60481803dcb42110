"""Plain-Python reference of the run measures for one query (no speed tricks).

:func:`measure_of_ranking` applies a family's declared reference
(:mod:`rankaudit.measures.families`) to one ranked list; :func:`ranked_order` sorts a query
under a deterministic rule;
:func:`expected_reference` writes the closed forms of
:mod:`rankaudit.measures.list_kernels` plainly, block by block, with exact binomials;
:func:`expected_by_enumeration` averages every tie order.  Tests hold the kernels to these.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Sequence

from rankaudit.measures.families import FAMILIES, Ranked
from rankaudit.measures.gains import ideal_dcg
from rankaudit.measures.registry import Measure

__all__ = [
    "expected_by_enumeration",
    "expected_reference",
    "measure_of_ranking",
    "ranked_order",
]


def measure_of_ranking(
    measure: Measure,
    ranked_labels: Sequence[int | None],
    judged_labels: Sequence[int],
    relevance_level: int = 1,
) -> float:
    """The measure of one ranked list by its family's declared ``reference``
    (:class:`rankaudit.measures.families.Family`); ``ranked_labels[r-1]`` is the label at rank
    r (None = unjudged); ``judged_labels`` all labels of the query in the qrels."""
    level = measure.level(relevance_level)
    rel = [lab is not None and lab >= level for lab in ranked_labels]
    k = measure.cutoff
    ranked = Ranked(
        measure,
        ranked_labels,
        judged_labels,
        level,
        rel,
        rel if k is None else rel[:k],
        sum(1 for lab in judged_labels if lab >= level),
        sum(1 for lab in judged_labels if 0 <= lab < level),
    )
    if measure.family not in FAMILIES:
        raise ValueError(f"measure {measure}: no declared family {measure.family!r}")
    return float(FAMILIES[measure.family].reference(ranked))  # type: ignore[misc]


def ranked_order(scores: Sequence[float], tie_keys: Sequence[object]) -> list[int]:
    """Positions sorted by score descending, then by ``tie_keys`` ascending."""
    return sorted(range(len(scores)), key=lambda i: (-scores[i], tie_keys[i]))


def expected_reference(
    measure: Measure,
    scores: Sequence[float],
    labels: Sequence[int | None],
    judged_labels: Sequence[int],
    relevance_level: int = 1,
) -> float:
    """The exact mean of the measure over uniform random tie orders (closed forms, plainly)."""
    n = len(scores)
    rel = [lab is not None and lab >= relevance_level for lab in labels]
    gain = [max(lab, 0) if lab is not None else 0 for lab in labels]
    n_rel = sum(1 for lab in judged_labels if lab >= relevance_level)
    k = measure.cutoff
    total = 0.0
    p_miss = 1.0
    above = 0
    first_rr = None
    for s in sorted(set(scores), reverse=True):
        block = [i for i in range(n) if scores[i] == s]
        g = sum(1 for x in scores if x > s)
        t = len(block)
        m = sum(rel[i] for i in block)
        gsum = sum(gain[i] for i in block)
        c = t if k is None else min(max(k - g, 0), t)
        if measure.family == "nDCG":
            ranks = range(g + 1, g + t + 1)
            total += gsum * sum(1 / math.log2(r + 1) for r in ranks if k is None or r <= k) / t
        elif measure.family in ("P", "R"):
            total += m * c / t
        elif measure.family == "Success":
            p_miss *= math.comb(t - m, c) / math.comb(t, c)
        elif measure.family == "AP" and m:
            for j in range(1, t + 1):
                ex = (j - 1) * (m - 1) / (t - 1) if t > 1 else 0.0
                total += m / t * (above + 1 + ex) / (g + j)
        if m and first_rr is None:
            first_rr = sum(
                math.comb(t - j, m - 1) / math.comb(t, m) / (g + j) for j in range(1, t - m + 2)
            )
        above += m
    if measure.family == "nDCG":
        idcg = ideal_dcg(judged_labels, k)
        return total / idcg if idcg > 0 else 0.0
    if measure.family == "P":
        return total / k
    if measure.family in ("R", "AP"):
        return total / n_rel if n_rel else 0.0
    if measure.family == "Success":
        return 1.0 - p_miss
    if measure.family == "RR":
        return first_rr or 0.0
    raise ValueError(f"measure {measure}: the plain expectation covers nDCG, P, R, AP, Success, RR")


def expected_by_enumeration(
    measure: Measure,
    scores: Sequence[float],
    labels: Sequence[int | None],
    judged_labels: Sequence[int],
    relevance_level: int = 1,
) -> tuple[float, float, float]:
    """``(mean, min, max)`` of the measure over *every* order of every tie block (small lists
    only: the product of the blocks' factorials)."""
    blocks = [
        [i for i in range(len(scores)) if scores[i] == s] for s in sorted(set(scores), reverse=True)
    ]
    values = []
    for perm in itertools.product(*(itertools.permutations(b) for b in blocks)):
        ranked = [labels[i] for block in perm for i in block]
        values.append(measure_of_ranking(measure, ranked, judged_labels, relevance_level))
    return sum(values) / len(values), min(values), max(values)
