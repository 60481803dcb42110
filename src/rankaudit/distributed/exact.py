"""Exact, partition-independent sums and means of float64 columns.

A mean computed by a distributed engine is normally a sum of per-partition sums
in floating point, so it changes in its last bits with the partitioning.  Here
every finite float64 ``x`` is written exactly as an integer multiple of the
smallest subnormal power we need,

    ``x = m * 2**(e - 53)``,  ``m = mantissa(x) * 2**53`` (an integer, ``|m| < 2**53``),

and a partition's sum is the Python integer ``sum_i m_i * 2**(e_i - 53 + SHIFT)``
with ``SHIFT = 1126`` (so every term is an integer, down to the smallest
subnormal ``2**-1074``).  Integer sums are associative, so the total does not
depend on how the rows were split, and the mean ``total / (n * 2**SHIFT)`` is
Python's correctly rounded integer division: the float nearest to the exact
mean of the values (Shewchuk, Discrete Comput. Geom. 1997, computes the same
correctly rounded sums with floating-point expansions; ``math.fsum`` is the
single-machine version).

The per-partition work is vectorised: ``np.frexp`` splits the values, the
mantissas are cut into 26-bit halves (so sums of up to 2**36 values fit in
int64) and summed per exponent; only one Python integer per distinct exponent
(at most ~2,100) is built.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

import numpy as np
import pandas as pd

__all__ = [
    "SHIFT",
    "exact_mean",
    "exact_sum",
    "exact_sums",
    "means_from_sums",
    "means_of_totals",
    "sums_from_sums",
    "totals_from_sums",
]

SHIFT = 1126  # 2**-1126 = 2**-1074 * 2**-52: every float64 is an integer multiple of it
_LOW_BITS = 26
_LOW_MASK = (1 << _LOW_BITS) - 1


def exact_sum(values: np.ndarray | pd.Series) -> int:
    """The exact sum of finite float64 ``values``, as an integer in units of ``2**-SHIFT``.

    Raises ValueError on a NaN or infinite value (it has no exact sum).
    """
    x = np.asarray(values, dtype=np.float64).reshape(-1)
    if x.size == 0:
        return 0
    if not np.all(np.isfinite(x)):
        bad = int(np.argmax(~np.isfinite(x)))
        raise ValueError(
            f"value {float(x[bad])!r} at position {bad} is not finite; it has no exact sum"
        )
    mantissa, exponent = np.frexp(x)
    m = (mantissa * 2.0**53).astype(np.int64)  # exact: |mantissa| in [0.5, 1)
    hi = m >> _LOW_BITS  # arithmetic shift: m = hi * 2**26 + lo with 0 <= lo < 2**26
    lo = m & _LOW_MASK
    order = np.argsort(exponent, kind="stable")
    e_sorted = exponent[order]
    starts = np.flatnonzero(np.concatenate(([True], e_sorted[1:] != e_sorted[:-1])))
    hi_sums = np.add.reduceat(hi[order], starts)
    lo_sums = np.add.reduceat(lo[order], starts)
    total = 0
    for e, h, low in zip(
        e_sorted[starts].tolist(), hi_sums.tolist(), lo_sums.tolist(), strict=True
    ):
        total += ((h << _LOW_BITS) + low) << (e - 53 + SHIFT)
    return total


def exact_sums(frame: pd.DataFrame, columns: Iterable[str]) -> dict[str, int]:
    """:func:`exact_sum` of each of ``columns`` of ``frame``, plus ``"__n__"``, the line count."""
    sums = {name: exact_sum(frame[name].to_numpy()) for name in columns}
    sums["__n__"] = len(frame)
    return sums


def totals_from_sums(parts: Iterable[Mapping[str, int]]) -> tuple[dict[str, int], int]:
    """Combine per-partition :func:`exact_sums` into the exact totals (units of
    ``2**-SHIFT``) and the row count.

    Raises ValueError when there are no rows at all (an aggregate of nothing is no number).
    """
    totals: dict[str, int] = {}
    for part in parts:
        for name, value in part.items():
            totals[name] = totals.get(name, 0) + value
    n = totals.pop("__n__", 0)
    if n == 0:
        raise ValueError("there are no rows to average (zero input rows, or every row was dropped)")
    return totals, n


def means_from_sums(parts: Iterable[Mapping[str, int]]) -> tuple[pd.Series, int]:
    """Combine per-partition :func:`exact_sums` into correctly rounded means and the row count.

    Raises ValueError when there are no rows at all (a mean of nothing is not a number).
    """
    totals, n = totals_from_sums(parts)
    return means_of_totals(totals, n), n


def means_of_totals(totals: Mapping[str, int], n: int) -> pd.Series:
    """The correctly rounded means of exact totals (:func:`totals_from_sums`) over ``n`` rows."""
    scale = n << SHIFT
    return pd.Series({name: total / scale for name, total in totals.items()}, dtype=np.float64)


def sums_from_sums(totals: Mapping[str, int]) -> pd.Series:
    """The correctly rounded sums of exact totals (:func:`totals_from_sums`): the float64
    nearest to each exact sum, which is what ``math.fsum`` gives on one machine."""
    scale = 1 << SHIFT
    return pd.Series({name: total / scale for name, total in totals.items()}, dtype=np.float64)


def exact_mean(values: np.ndarray | pd.Series) -> float:
    """The float64 nearest to the exact mean of ``values`` (what the distributed means report).

    Use it on a single-machine result to get the very number
    :func:`rankaudit.distributed.evaluate` reports, whatever the partitioning.
    """
    x = np.asarray(values, dtype=np.float64).reshape(-1)
    if x.size == 0:
        raise ValueError("there are no values to average")
    return exact_sum(x) / (x.size << SHIFT)
