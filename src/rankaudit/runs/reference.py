"""Plain-Python reference of the run measures for one query (no speed tricks).

:func:`measure_of_ranking` applies a definition of :mod:`rankaudit.runs.measures` to one
ranked list; :func:`ranked_order` sorts a query under a deterministic rule;
:func:`expected_reference` writes the closed forms of :mod:`rankaudit.runs.kernels` plainly,
block by block, with exact binomials.  Tests hold the kernels to these and both to
enumeration of every tie order.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

from rankaudit.runs.measures import Measure

__all__ = ["expected_reference", "ideal_dcg", "measure_of_ranking", "ranked_order"]


def ideal_dcg(judged_labels: Sequence[int], cutoff: int | None) -> float:
    """IDCG of the query from all its judged labels (positive ones, decreasing)."""
    gains = sorted((g for g in judged_labels if g > 0), reverse=True)
    if cutoff is not None:
        gains = gains[:cutoff]
    return sum(g / math.log2(r + 1) for r, g in enumerate(gains, start=1))


def measure_of_ranking(
    measure: Measure,
    ranked_labels: Sequence[int | None],
    judged_labels: Sequence[int],
    relevance_level: int = 1,
) -> float:
    """The measure of one ranked list; ``ranked_labels[r-1]`` is the label at rank r (None =
    unjudged); ``judged_labels`` all labels of the query in the qrels."""
    rel = [lab is not None and lab >= relevance_level for lab in ranked_labels]
    n_rel = sum(1 for lab in judged_labels if lab >= relevance_level)
    k = measure.cutoff
    top = rel if k is None else rel[:k]
    if measure.family == "nDCG":
        gains = [max(lab, 0) if lab is not None else 0 for lab in ranked_labels]
        if k is not None:
            gains = gains[:k]
        dcg = sum(g / math.log2(r + 1) for r, g in enumerate(gains, start=1))
        idcg = ideal_dcg(judged_labels, k)
        return dcg / idcg if idcg > 0 else 0.0
    if measure.family == "P":
        return sum(top) / k
    if measure.family == "R":
        return sum(top) / n_rel if n_rel else 0.0
    if measure.family == "Success":
        return 1.0 if any(top) else 0.0
    if measure.family == "RR":
        return next((1.0 / r for r, x in enumerate(rel, start=1) if x), 0.0)
    # AP
    hits = 0
    total = 0.0
    for r, x in enumerate(rel, start=1):
        if x:
            hits += 1
            total += hits / r
    return total / n_rel if n_rel else 0.0


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
    return first_rr or 0.0
