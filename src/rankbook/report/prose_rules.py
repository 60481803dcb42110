"""Words from a number against a stated threshold (flags and lists of names:
:func:`rankbook.report.prose.flag_word`, :func:`rankbook.report.prose.list_phrase`).

A sibling of :mod:`rankbook.report.prose` (same contract: every word is a predicate of a
computed value, and flips when the value crosses its threshold). The threshold is an argument:
the page that uses the word states it.

Thresholds     ``threshold_word(v, t)``: ``words[0]`` when ``v < t`` (``v <= t`` with
               ``inclusive=True``), else ``words[1]``; e.g. "holds" when a largest gap is at
               most ``1e-12``. Not for a verdict: a z against its expectation, a p-value
               against a level are :mod:`rankaudit.runs.decision`'s.

Public API: :func:`threshold_word`.
"""

from __future__ import annotations

import math

__all__ = ["threshold_word"]


def threshold_word(
    value: float,
    threshold: float,
    *,
    words: tuple[str, str] = ("below", "not below"),
    inclusive: bool = False,
) -> str:
    """``words[0]`` when ``value < threshold`` (``<=`` if ``inclusive``), else ``words[1]``.

    A tolerance check is ``threshold_word(abs(gap), tol, inclusive=True, words=("holds", "does
    not hold"))``. A z or a p-value is read by :mod:`rankaudit.runs.decision`, not here.
    """
    v, t = float(value), float(threshold)
    for name, x, given in (("value", v, value), ("threshold", t, threshold)):
        if not math.isfinite(x):
            raise ValueError(f"threshold_word: {name} must be a finite number, got {given!r}")
    below = v <= t if inclusive else v < t
    return words[0] if below else words[1]
