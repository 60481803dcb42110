"""The typed parameters of the measure families (:mod:`rankaudit.measures.families`): each
parameter's name, type, default and check, and the checks themselves (nDCG's ``dcg`` and gain
map, RBP's persistence ``p``, a relevance level ``rel``, ERR's ``max_grade``).

Public API: :class:`Param`, :data:`REL`, :data:`RBP_REL`, :data:`ERR_MAX_GRADE` and the checks.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass

from rankaudit._checks import LABEL_LIMIT, check_label_level
from rankaudit.measures import list_support as K

__all__ = [
    "ERR_MAX_GRADE",
    "GAIN_MAX",
    "RBP_REL",
    "REL",
    "Param",
    "check_dcg",
    "check_gains",
    "check_max_grade",
    "check_p",
    "check_rel",
]

#: ERR's largest ``max_grade``: ``1 - 2**-60`` is still below 1 in a double.
ERR_MAX_GRADE = 60

GAIN_MAX = 2.0**K.EXP_GAIN_TOP


def check_dcg(value: object, name: str) -> str:
    if value not in ("log2", "exp-log2"):
        raise ValueError(f"{name}={value!r}: use 'log2' (linear gain) or 'exp-log2' (2**rel - 1)")
    return str(value)


def check_gains(value: object, name: str) -> tuple[tuple[int, float], ...]:
    if not isinstance(value, dict) or not value:
        raise ValueError(f"{name} must be a non-empty dict {{label: gain}}, e.g. {{0:0,1:1,2:3}}")
    out = []
    for label, gain in value.items():
        if isinstance(label, bool) or not isinstance(label, int) or abs(label) >= LABEL_LIMIT:
            raise ValueError(f"{name}: label {label!r} must be an integer with |label| < 2**53")
        if isinstance(gain, bool) or not isinstance(gain, int | float) or not math.isfinite(gain):
            raise ValueError(f"{name}: gain {gain!r} of label {label} must be a finite number")
        if abs(gain) > GAIN_MAX:  # a DCG sum of such gains would overflow to infinity
            raise ValueError(
                f"{name}: gain {gain!r} of label {label} must be at most 2**{K.EXP_GAIN_TOP} "
                "in magnitude (a sum of larger gains overflows a double)"
            )
        if float(gain) != float(label):  # an identity entry changes nothing (ir_measures drops it)
            out.append((label, float(gain)))
    return tuple(sorted(out))


def check_p(value: object, name: str) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float) or not 0 < value < 1:
        raise ValueError(f"{name}={value!r}: the persistence p must be a number in (0, 1)")
    return float(value)


def check_rel(value: object, name: str) -> int:
    return check_label_level(value, name)


def check_max_grade(value: object, name: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value <= ERR_MAX_GRADE:
        raise ValueError(f"{name}={value!r}: max_grade must be an integer in [0, {ERR_MAX_GRADE}]")
    return int(value)


@dataclass(frozen=True)
class Param:
    """A measure parameter: name, type name (for help), default (None = not set), check."""

    name: str
    kind: str
    default: object
    check: Callable[[object, str], object]
    doc: str


REL = Param("rel", "int", None, check_rel, "relevance level (default: the evaluation's -l)")
#: RBP's ``rel`` as ir_measures reads it: given, RBP is binary at that level; not given, RBP
#: is graded (a document at or above the evaluation's -l adds its label).
RBP_REL = Param(
    "rel", "int", None, check_rel, "binary at this level (default: graded, labels >= -l)"
)
