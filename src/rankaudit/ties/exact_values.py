"""Scores compared exactly: integers beyond 2**53, long doubles and Python ints are replaced by
their dense rank (order-preserving, no lossy cast), so two values tie only when they are equal.
"""

from __future__ import annotations

import numbers

import numpy as np

__all__ = ["asarray_exact", "kernel_scores"]


_EXACT_INT = 2**53  # every integer of magnitude <= 2**53 is exactly a float64


def _dense_rank(values: np.ndarray, finite: np.ndarray) -> np.ndarray:
    """Finite values -> their rank among the distinct finite values (as float64), non-finite
    ones kept as float64 (so the kernels still report them).  The ranks order and tie exactly
    as the values do, which is all any rule looks at."""
    out = (
        np.asarray(values, dtype=np.float64).copy()
        if values.dtype.kind != "O"
        else np.array([float(x) for x in values.reshape(-1)], dtype=np.float64).reshape(
            values.shape
        )
    )
    if values.dtype.kind == "O":  # Python compares int, float and Fraction exactly
        chosen = [x for x, ok in zip(values.reshape(-1), finite.reshape(-1), strict=True) if ok]
        position = {x: float(i) for i, x in enumerate(sorted(set(chosen)))}
        flat = out.reshape(-1)
        for j, (x, ok) in enumerate(zip(values.reshape(-1), finite.reshape(-1), strict=True)):
            if ok:
                flat[j] = position[x]
        return out
    _, inverse = np.unique(values[finite], return_inverse=True)
    out[finite] = inverse.reshape(-1)
    return out


def kernel_scores(values: np.ndarray) -> np.ndarray:
    """Scores for the kernels, compared exactly as given (what counts as a tie).

    float16 -> float32; float32 and float64 pass through; integers of magnitude <= 2**53 become
    float64 (exact); larger integers, long doubles that float64 cannot hold, and Python ints or
    other exact numbers in object arrays are replaced by their dense rank, which keeps every
    ``>`` and ``==`` of the input (a lossy cast would turn ``2**53`` and ``2**53 + 1`` into a tie).
    """
    kind = values.dtype.kind
    if kind == "f":
        if values.dtype.itemsize < 4:
            return values.astype(np.float32)
        if values.dtype.itemsize <= 8:
            return values
        finite = np.isfinite(values)
        with np.errstate(over="ignore"):
            as64 = values.astype(np.float64)
        if np.array_equal(as64[finite], values[finite]):
            return as64
        return _dense_rank(values, finite)
    if kind in "iu":
        if values.size == 0 or (values.min() >= -_EXACT_INT and values.max() <= _EXACT_INT):
            return values.astype(np.float64)
        return _dense_rank(values, np.ones(values.shape, dtype=bool))
    # object array of numbers.Real
    flat = values.reshape(-1)
    finite = np.array([_finite_real(x) for x in flat], dtype=bool).reshape(values.shape)
    if all(isinstance(x, (float, np.floating)) or _small_int(x) for x in flat):
        return np.asarray(values, dtype=np.float64)
    return _dense_rank(values, finite)


def _finite_real(x: object) -> bool:
    if isinstance(x, numbers.Integral):
        return True
    try:
        return bool(np.isfinite(x))  # type: ignore[call-overload]
    except (TypeError, OverflowError):
        return True


def _small_int(x: object) -> bool:
    return isinstance(x, numbers.Integral) and -_EXACT_INT <= int(x) <= _EXACT_INT


def asarray_exact(values: object) -> np.ndarray:
    """``np.asarray``, except that nested lists holding integers beyond 2**53 stay exact
    (an object array) instead of being rounded to float64, and lists mixing strings with
    numbers stay an object array instead of becoming strings (ids ``1`` and ``"1"`` differ)."""
    arr = np.asarray(values)
    if isinstance(values, np.ndarray):
        return arr
    if arr.dtype.kind in "US":  # NumPy turns [1, "1"] into ["1", "1"]: keep the ids' types
        obj = np.asarray(values, dtype=object)
        if obj.shape == arr.shape and not all(isinstance(x, (str, bytes)) for x in obj.reshape(-1)):
            return obj
        return arr
    if arr.dtype != np.float64:
        return arr
    obj = np.asarray(values, dtype=object)
    if any(isinstance(x, numbers.Integral) and not _small_int(x) for x in obj.reshape(-1)):
        return obj
    return arr
