"""Scores at lower precision: the ties a served or exported model creates.

A model scored in float64 or float32 rarely produces exact ties; the same model served in half
precision, or exported with scores rounded to a few decimals, does.  :func:`at_precision`
returns the values a score matrix takes after such a conversion, as float64 so that the tie
rules of :mod:`rankaudit.ties` compare exactly the reduced values.

Precisions (``PRECISIONS``):

``float64`` / ``float32``
    the scores as computed / cast to IEEE single (24-bit significand);
``float16``
    IEEE half, ``numpy.float16`` (11-bit significand, largest finite value 65504; larger
    magnitudes overflow to infinity, which is an error here);
``bfloat16``
    brain float, float32's exponent with an 8-bit significand: float32 bits with the low 16
    bits rounded to nearest, ties to even (what ``torch.Tensor.to(torch.bfloat16)`` does), see
    :func:`round_to_bfloat16`;
``round<d>``
    ``numpy.round(scores, d)``: round half to even at ``d`` decimals, as a CSV export with
    ``d`` decimals would store them.

Reference: Kalamkar et al., "A Study of BFLOAT16 for Deep Learning Training",
arXiv:1905.12322 (2019); IEEE 754-2008 for binary16.
"""

from __future__ import annotations

import re

import numpy as np

__all__ = ["PRECISIONS", "at_precision", "check_precision", "round_to_bfloat16"]

#: The precisions of the sweep, from the most to the least precise floating format, then
#: rounding to 3, 2 and 1 decimals.
PRECISIONS: tuple[str, ...] = (
    "float64",
    "float32",
    "bfloat16",
    "float16",
    "round3",
    "round2",
    "round1",
)

_ROUND = re.compile(r"round(\d)")


def check_precision(precision: str) -> str:
    """``precision`` if it is ``float64``, ``float32``, ``float16``, ``bfloat16`` or
    ``round<d>`` (d = 0..9); ValueError naming it otherwise."""
    if not isinstance(precision, str) or not (
        precision in ("float64", "float32", "float16", "bfloat16") or _ROUND.fullmatch(precision)
    ):
        raise ValueError(
            f"precision must be one of float64, float32, float16, bfloat16 or round<d> "
            f"(d = 0..9), got {precision!r}"
        )
    return precision


def round_to_bfloat16(values: np.ndarray) -> np.ndarray:
    """``values`` rounded to bfloat16 (nearest, ties to even), returned as float32.

    With ``b`` the float32 bit pattern, ``bias = 0x7FFF + ((b >> 16) & 1)`` and the result is
    ``(b + bias) & 0xFFFF0000``: adding just under half a unit of the last kept place (plus one
    when that place is odd) then truncating rounds half to even.  NaN is kept NaN.
    """
    x = np.ascontiguousarray(values, dtype=np.float32)
    bits = x.view(np.uint32).astype(np.uint64)
    bias = np.uint64(0x7FFF) + ((bits >> np.uint64(16)) & np.uint64(1))
    rounded = ((bits + bias) & np.uint64(0xFFFF0000)).astype(np.uint32).view(np.float32)
    return np.where(np.isnan(x), np.float32(np.nan), rounded).reshape(np.shape(values))


def at_precision(scores: object, precision: str) -> np.ndarray:
    """The float64 values ``scores`` take at ``precision`` (see the module docstring).

    Raises ValueError if ``scores`` holds a non-finite value, or one that overflows the target
    format (float16 beyond 65504).
    """
    precision = check_precision(precision)
    s = np.asarray(scores, dtype=np.float64)
    if not np.isfinite(s).all():
        raise ValueError("scores hold a NaN or infinite value")
    if precision == "float64":
        out = s.copy()
    elif precision == "float32":
        out = s.astype(np.float32).astype(np.float64)
    elif precision == "float16":
        with np.errstate(over="ignore"):
            out = s.astype(np.float16).astype(np.float64)
    elif precision == "bfloat16":
        with np.errstate(over="ignore"):
            out = round_to_bfloat16(s.astype(np.float32)).astype(np.float64)
    else:
        out = np.round(s, int(precision[5:]))
    if not np.isfinite(out).all():
        worst = float(np.abs(s).max())
        raise ValueError(f"scores overflow {precision}: largest magnitude {worst!r}")
    return out
