"""Words from a number against a stated threshold, from a recorded flag, and lists of names.

A sibling of :mod:`rankaudit.report.prose` (same contract: every word is a predicate of a
computed value, and flips when the value crosses its threshold). The threshold is an argument:
the page that uses the word states it.

Thresholds     ``threshold_word(v, t)``: ``words[0]`` when ``v < t`` (``v <= t`` with
               ``inclusive=True``), else ``words[1]``; e.g. "agrees with" when ``|z| < 2``,
               "holds" when a largest gap is at most ``1e-12``.
Flags          ``flag_word(flag)``: "yes" / "no" for a flag recorded in a results file (a
               verdict computed upstream against its own stated tolerance).
Lists          ``list_phrase(names)``: "a", "a and b", "a, b and c"; ``empty`` when there are
               none ("no rule").

Public API: :func:`threshold_word`, :func:`flag_word`, :func:`list_phrase`.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

__all__ = ["flag_word", "list_phrase", "threshold_word"]


def threshold_word(
    value: float,
    threshold: float,
    *,
    words: tuple[str, str] = ("below", "not below"),
    inclusive: bool = False,
) -> str:
    """``words[0]`` when ``value < threshold`` (``<=`` if ``inclusive``), else ``words[1]``.

    A tolerance check is ``threshold_word(abs(gap), tol, inclusive=True, words=("holds", "does
    not hold"))``; a z-test at two standard errors is ``threshold_word(abs(z), 2.0, ...)``.
    """
    v, t = float(value), float(threshold)
    if not (math.isfinite(v) and math.isfinite(t)):
        raise ValueError(f"threshold_word needs finite numbers, got {value!r} and {threshold!r}")
    below = v <= t if inclusive else v < t
    return words[0] if below else words[1]


def flag_word(flag: object, *, words: tuple[str, str] = ("yes", "no")) -> str:
    """``words[0]`` for a true flag, ``words[1]`` for a false one.

    Accepts ``True``/``False`` or the numbers 1 and 0 (a JSON flag); anything else is refused
    rather than read by Python's truthiness.
    """
    if isinstance(flag, bool):
        return words[0] if flag else words[1]
    if isinstance(flag, (int, float)) and float(flag) in (0.0, 1.0):
        return words[0] if float(flag) == 1.0 else words[1]
    raise ValueError(f"flag must be True/False (or 1/0), got {flag!r}")


def list_phrase(names: Sequence[str], *, empty: str = "none") -> str:
    """Names joined as a sentence lists them: "a", "a and b", "a, b and c"; ``empty`` if none."""
    items = [str(n) for n in names]
    if not items:
        return empty
    if len(items) == 1:
        return items[0]
    return ", ".join(items[:-1]) + " and " + items[-1]
