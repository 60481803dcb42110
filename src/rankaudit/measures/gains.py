"""The gains of graded labels as the plain references read them (no speed tricks): linear,
exponential ``2**rel - 1`` (Burges et al., 2005) or a user's map, and the ideal DCG of a query
from all its judged labels, as trec_eval takes it (Järvelin & Kekäläinen, 2002).

The list kernels compute the same gains in :mod:`rankaudit.measures.list_support`; the tests
hold them to these.

Public API: :func:`gain_scale`, :func:`gain_of`, :func:`ideal_dcg`.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from fractions import Fraction
from typing import Any

__all__ = ["gain_of", "gain_scale", "ideal_dcg"]


def _exponential(measure: Any) -> bool:
    return (
        measure is not None and measure.family == "nDCG" and measure.param("dcg") == "exp-log2"
    )


def gain_scale(measure: Any, judged_labels: Sequence[int]) -> int:
    """The power of two the reference divides a query's gains by: for exponential gains of a
    query whose top label is 1000 or more (``2**1024`` overflows a double), the top label
    itself, so that every gain is an exact ratio ``(2**label - 1) / 2**top``; else 0.  (The
    kernels scale by another power of two; nDCG, a ratio, is the same either way.)"""
    top = max(judged_labels, default=0)
    return int(top) if _exponential(measure) and top >= 1000 else 0


def gain_of(measure: Any, label: int | None, scale: int = 0) -> float:
    """The measure's gain of a label (None = unjudged): linear, ``2**rel - 1`` or mapped;
    an exponential gain divided by ``2**scale`` (:func:`gain_scale`), rounded once.
    ``measure`` None: linear gains."""
    if label is None:
        return 0.0
    gains = measure.param("gains") if measure is not None and measure.family == "nDCG" else None
    if gains is not None:
        value = float(dict(gains).get(label, label))
    elif _exponential(measure):
        value = float(Fraction(2**label - 1, 2**scale)) if label > 0 else 0.0
    else:
        value = float(label)
    return max(value, 0.0)


def ideal_dcg(judged_labels: Sequence[int], cutoff: int | None, measure: Any = None) -> float:
    """IDCG@k of the query from all its judged labels: ``sum_{r<=k} g_(r) / log2(r + 1)`` over
    their gains sorted decreasingly (divided by ``2**gain_scale``); ``measure`` None: linear
    gains."""
    scale = gain_scale(measure, judged_labels)
    gains = sorted((gain_of(measure, g, scale) for g in judged_labels), reverse=True)
    gains = [g for g in gains if g > 0]
    if cutoff is not None:
        gains = gains[:cutoff]
    return sum(g / math.log2(r + 1) for r, g in enumerate(gains, start=1))
