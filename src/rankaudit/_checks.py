"""The shared validators of arguments: one place that says what an integer argument is, and
that an array argument is not a masked array.

Every public function that takes a count, a cutoff or a seed checks it here, so the messages
read the same everywhere and name the argument. Bools and floats are not integers (``k=True``
or ``k=10.0`` is an error, never a silent cast); NumPy integers of any width are.

This is a bottom room of the package: it imports nothing from rankaudit but :mod:`scalars`.
"""

from __future__ import annotations

import numbers

import numpy as np

from rankaudit.scalars import plain

__all__ = [
    "CUTOFF_MAX",
    "LABEL_LIMIT",
    "LABEL_RANGE",
    "check_cutoff",
    "check_int",
    "check_label_level",
    "check_not_masked",
    "check_positive_int",
    "check_seed",
    "check_unit_interval",
    "first_label_out_of_range",
]

#: The representable range of relevance labels, gains and relevance levels, in one place:
#: integers of magnitude below 2**53.  Beyond it a float64 no longer holds every integer (two
#: labels would compare equal), and the kernels' integer tie keys (``2 * gain``) come close to
#: int64 overflow.  Every reader and every entry point checks labels against it.
LABEL_LIMIT = 2**53
#: The range as messages state it.
LABEL_RANGE = "|label| < 2**53"

#: The largest cutoff (``@k``) and the largest list the kernels index: 2**31 - 1.
CUTOFF_MAX = 2**31 - 1


def check_int(value: object, name: str, *, lo: int | None = None, hi: int | None = None) -> int:
    """``value`` as a Python ``int`` if it is an integer in ``[lo, hi]``; else ``ValueError``.

    The message names ``name``, the value and, for a non-integer, its type.
    """
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, numbers.Integral):
        raise ValueError(
            f"{name} must be an integer{_range(lo, hi)}; got {plain(value)!r} "
            f"({type(value).__name__})"
        )
    value = int(value)
    if (lo is not None and value < lo) or (hi is not None and value > hi):
        raise ValueError(f"{name} must be an integer{_range(lo, hi)}; got {value}")
    return value


def check_positive_int(value: object, name: str) -> int:
    """``value`` must be an integer >= 1 (bools and floats are rejected); returns it as ``int``."""
    return check_int(value, name, lo=1)


def check_seed(seed: object, name: str = "seed") -> int:
    """A seed: any integer (hash-based rules use it modulo 2**64)."""
    return check_int(seed, name)


def check_unit_interval(value: object, name: str) -> float:
    """A finite real number in ``[0, 1]`` (a probability or a share)."""
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, numbers.Real):
        raise ValueError(f"{name} must be a number in [0, 1]; got {plain(value)!r}")
    value = float(value)
    if not 0.0 <= value <= 1.0:
        raise ValueError(f"{name} must be a number in [0, 1]; got {value}")
    return value


def check_cutoff(value: object, name: str) -> int:
    """A cutoff ``k``: an integer in ``[1, CUTOFF_MAX]``."""
    return check_int(value, name, lo=1, hi=CUTOFF_MAX)


def check_label_level(value: object, name: str) -> int:
    """A relevance level (trec_eval's ``-l``): an integer in ``[0, LABEL_LIMIT)``."""
    return check_int(value, name, lo=0, hi=LABEL_LIMIT - 1)


def first_label_out_of_range(labels: np.ndarray) -> int:
    """Position of the first label of magnitude ``>= LABEL_LIMIT`` (or not finite); -1 if none.

    Works on integer arrays of any width (unsigned included) and on float arrays."""
    values = np.asarray(labels)
    if values.dtype.kind == "u":
        bad = values >= np.uint64(LABEL_LIMIT)
    elif values.dtype.kind in "ib":
        v = values.astype(np.int64)
        bad = (v >= LABEL_LIMIT) | (v <= -LABEL_LIMIT)
    else:
        v = values.astype(np.float64)
        bad = ~(np.abs(v) < float(LABEL_LIMIT))
    hits = np.flatnonzero(bad)
    return int(hits[0]) if len(hits) else -1


def _range(lo: int | None, hi: int | None) -> str:
    if lo is not None and hi is not None:
        return f" in [{lo}, {hi}]"
    if lo is not None:
        return f" >= {lo}"
    if hi is not None:
        return f" <= {hi}"
    return ""


def check_not_masked(value: object, name: str) -> None:
    """Refuse a NumPy masked array (``numpy.ma``) with a masked entry, or a list of rows holding
    one, as ``name`` (a masked array whose mask hides nothing is read as its values).

    rankaudit does not honour masks: ``np.asarray`` drops a mask and keeps the values under
    it, so a masked score or label would be evaluated as if it were there.  The error says to
    remove the masked entries first (ragged rows are accepted) or fill them deliberately.
    """
    rows = value if isinstance(value, list | tuple) else ()
    if np.ma.is_masked(value):
        where = ""
    else:
        where = next((f" (row {i})" for i, r in enumerate(rows) if np.ma.is_masked(r)), None)
        if where is None:
            return
    raise ValueError(
        f"{name}{where} is a masked array; masks are not honoured (NumPy's conversions drop "
        f"them and keep the masked values): remove the masked entries (ragged rows are "
        f"accepted) or fill them deliberately, e.g. {name}.filled(value)"
    )
