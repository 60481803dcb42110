"""Plain-Python reference of the run measures for one query (no speed tricks).

:func:`measure_of_ranking` applies a definition of :mod:`rankaudit.measures.registry` to one
ranked list; :func:`ranked_order` sorts a query under a deterministic rule;
:func:`expected_reference` writes the closed forms of
:mod:`rankaudit.measures.list_kernels` plainly, block by block, with exact binomials;
:func:`expected_by_enumeration` averages every tie order.  Tests hold the kernels to these.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Sequence
from fractions import Fraction

from rankaudit.measures.registry import Measure

__all__ = [
    "expected_by_enumeration",
    "expected_reference",
    "gain_of",
    "gain_scale",
    "ideal_dcg",
    "measure_of_ranking",
    "ranked_order",
]


def _exponential(measure: Measure) -> bool:
    return measure.family == "nDCG" and measure.param("dcg") == "exp-log2"


def gain_scale(measure: Measure, judged_labels: Sequence[int]) -> int:
    """The power of two the reference divides a query's gains by: for exponential gains of a
    query whose top label is 1000 or more (``2**1024`` overflows a double), the top label
    itself, so that every gain is an exact ratio ``(2**label - 1) / 2**top``; else 0.  (The
    kernels scale by another power of two; nDCG, a ratio, is the same either way.)"""
    top = max(judged_labels, default=0)
    return int(top) if _exponential(measure) and top >= 1000 else 0


def gain_of(measure: Measure, label: int | None, scale: int = 0) -> float:
    """The measure's gain of a label (None = unjudged): linear, ``2**rel - 1`` or mapped;
    an exponential gain divided by ``2**scale`` (:func:`gain_scale`), rounded once."""
    if label is None:
        return 0.0
    gains = measure.param("gains") if measure.family == "nDCG" else None
    if gains is not None:
        value = float(dict(gains).get(label, label))  # type: ignore[arg-type]
    elif _exponential(measure):
        value = float(Fraction(2**label - 1, 2**scale)) if label > 0 else 0.0
    else:
        value = float(label)
    return max(value, 0.0)


def ideal_dcg(
    judged_labels: Sequence[int], cutoff: int | None, measure: Measure | None = None
) -> float:
    """IDCG of the query from all its judged labels (their gains, decreasing, divided by
    ``2**gain_scale``)."""
    m = measure or Measure("nDCG")
    scale = gain_scale(m, judged_labels)
    gains = sorted((gain_of(m, g, scale) for g in judged_labels), reverse=True)
    gains = [g for g in gains if g > 0]
    if cutoff is not None:
        gains = gains[:cutoff]
    return sum(g / math.log2(r + 1) for r, g in enumerate(gains, start=1))


def measure_of_ranking(
    measure: Measure,
    ranked_labels: Sequence[int | None],
    judged_labels: Sequence[int],
    relevance_level: int = 1,
) -> float:
    """The measure of one ranked list, written from its definition
    (:mod:`rankaudit.measures.registry`); ``ranked_labels[r-1]`` is the label at rank r
    (None = unjudged); ``judged_labels`` all labels of the query in the qrels."""
    level = measure.level(relevance_level)
    rel = [lab is not None and lab >= level for lab in ranked_labels]
    n_rel = sum(1 for lab in judged_labels if lab >= level)
    n_nonrel = sum(1 for lab in judged_labels if 0 <= lab < level)
    n = len(ranked_labels)
    k = measure.cutoff
    top = rel if k is None else rel[:k]
    fam = measure.family
    if fam == "nDCG":
        scale = gain_scale(measure, judged_labels)
        gains = [gain_of(measure, lab, scale) for lab in ranked_labels][: k if k is not None else n]
        dcg = sum(g / math.log2(r + 1) for r, g in enumerate(gains, start=1) if g > 0)
        idcg = ideal_dcg(judged_labels, k, measure)
        return dcg / idcg if idcg > 0 else 0.0
    if fam == "P":
        return sum(top) / k
    if fam in ("R", "Rprec"):
        if fam == "Rprec":
            top = rel[:n_rel]
        return sum(top) / n_rel if n_rel else 0.0
    if fam == "Success":
        return 1.0 if any(top) else 0.0
    if fam == "RR":
        return next((1.0 / r for r, x in enumerate(top, start=1) if x), 0.0)
    if fam == "Judged":
        shown = ranked_labels[:k]
        return sum(lab is not None for lab in shown) / len(shown) if shown else 0.0
    if fam == "NumRet":
        return float(len(top))
    if fam == "NumRel":
        return float(n_rel)
    if fam == "NumRelRet":
        return float(sum(top))
    if fam in ("RBP", "RBPres"):
        p = float(measure.param("p"))  # type: ignore[arg-type]
        if fam == "RBP" and measure.param("rel") is None:  # graded: the label is the gain
            labels = ranked_labels if k is None else ranked_labels[:k]
            return (1 - p) * sum(
                lab * p ** (r - 1)
                for r, (lab, x) in enumerate(zip(labels, top, strict=True), start=1)
                if x and lab > 0  # type: ignore[operator]
            )
        if fam == "RBP":
            return (1 - p) * sum(p ** (r - 1) for r, x in enumerate(top, start=1) if x)
        unjudged = [r for r, lab in enumerate(ranked_labels, start=1) if lab is None]
        return (1 - p) * sum(p ** (r - 1) for r in unjudged) + p**n
    if fam == "ERR":
        top_grade = 2.0 ** int(measure.param("max_grade"))  # type: ignore[call-overload]
        total, survive = 0.0, 1.0
        for r, lab in enumerate(ranked_labels[:k], start=1):
            stop = (2.0**lab - 1.0) / top_grade if lab is not None and lab > 0 else 0.0
            total += survive * stop / r
            survive *= 1.0 - stop
        return total
    if fam == "Bpref":
        above, total = 0, 0.0
        for lab in ranked_labels:
            if lab is None or lab < 0:
                continue
            if lab < level:
                above += 1
            else:
                total += 1.0 if above == 0 else 1.0 - min(above, n_rel) / min(n_nonrel, n_rel)
        return total / n_rel if n_rel else 0.0
    if fam == "AP":
        hits = 0
        total = 0.0
        for r, x in enumerate(top, start=1):
            if x:
                hits += 1
                total += hits / r
        return total / n_rel if n_rel else 0.0
    raise ValueError(f"measure {measure}: the reference has no definition of {fam!r}")


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
