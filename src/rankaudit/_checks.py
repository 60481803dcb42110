"""The shared validators of arguments: one place that says what an integer argument is, and
that an array argument is not a masked array.

Every public function that takes a count, a cutoff or a seed checks it here, so the messages
read the same everywhere and name the argument. Bools and floats are not integers (``k=True``
or ``k=10.0`` is an error, never a silent cast); NumPy integers of any width are.

This is a bottom room of the package: it imports nothing from rankaudit but :mod:`scalars`.
"""

from __future__ import annotations

import math
import numbers
from dataclasses import dataclass

import numpy as np

from rankaudit.scalars import plain

__all__ = [
    "BOOTSTRAP_RESAMPLES",
    "CUTOFF_MAX",
    "LABEL_LIMIT",
    "LABEL_RANGE",
    "MONTE_CARLO_DRAWS",
    "RANDOM_REPEATS",
    "RERUNS",
    "SIGN_FLIPS",
    "SYNTHETIC_ROWS",
    "WORKERS",
    "CountBound",
    "check_count",
    "check_cutoff",
    "check_int",
    "check_label_level",
    "check_not_masked",
    "check_number",
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


@dataclass(frozen=True)
class CountBound:
    """The largest value a count a user passes may take, and why it stops there.

    Every count that sets how much work or memory a call takes (resamples, reruns, workers,
    rows) is bounded, so that a typo such as ``--n-perm 100000000000`` is one line naming the
    bound and its reason rather than a run that never ends or ends out of memory.
    """

    most: int
    why: str

    def __str__(self) -> str:
        return str(self.most)


#: Sign flips of one paired randomisation test: a p-value resolved to 10**-6 is finer than any
#: test level; 10**6 flips over 500 queries take about 2 s, per test.
SIGN_FLIPS = CountBound(
    10**6, "10**6 flips resolve a p-value to 10**-6 and take seconds per test already"
)
#: Resamples of one paired bootstrap: 10**5 resamples over 500 queries take about 4 s (the
#: percentile ends of a 95% interval are then stable to a few thousandths of its width).
BOOTSTRAP_RESAMPLES = CountBound(
    10**5, "10**5 resamples fix the interval's ends and take seconds over 500 queries already"
)
#: Uniform random tie orders drawn by a Monte Carlo check (each draw is kept, per row).
MONTE_CARLO_DRAWS = CountBound(
    10**6, "10**6 draws estimate a mean to 1e-3 of its spread; each draw is kept for every row"
)
#: Whole re-evaluations of one input: line shuffles of a permutation test.  Each one costs a
#: full evaluation of the input.
RERUNS = CountBound(1000, "each one evaluates the whole input again")
#: Repeats of the 'random' rule: each draws one uniform tie order of every row (a pass of the
#: sampling kernel over the input, far cheaper than a whole evaluation); 10**5 repeats put a
#: row's mean within about 1/300 of its spread.
RANDOM_REPEATS = CountBound(10**5, "each repeat draws a tie order of every row again")
#: Worker processes of a LocalCluster started on this machine.
WORKERS = CountBound(128, "each worker is a process of its own on this machine")
#: Rows of the Dask example's synthetic table (31 candidates a row: about 5 GB at the bound).
SYNTHETIC_ROWS = CountBound(10**7, "at 31 candidates a row that is about 5 GB of lines")


def check_count(value: object, name: str, bound: CountBound) -> int:
    """A count: an integer in ``[1, bound.most]``; returns it as ``int``.

    Below 1 (or not an integer) the message is :func:`check_int`'s; beyond the bound it
    states the bound and why it stops there, e.g. ``--n-perm must be an integer in
    [1, 1000000]; got 100000000000 (10**6 flips resolve a p-value to 10**-6 ...)``.
    """
    value = check_int(value, name, lo=1)
    if value > bound.most:
        raise ValueError(f"{name} must be an integer in [1, {bound}]; got {value} ({bound.why})")
    return value


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


def check_number(
    value: object, name: str, *, lo: float | None = None, hi: float | None = None
) -> float:
    """``value`` as a Python ``float`` if it is a finite real number in ``[lo, hi]``; else
    ``ValueError`` naming ``name``, the value and, for a non-number, its type.

    Bools are not numbers (``p=True`` is an error); integers and NumPy reals are.
    """
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, numbers.Real):
        raise ValueError(
            f"{name} must be a finite number{_range(lo, hi)}; got {plain(value)!r} "
            f"({type(value).__name__})"
        )
    try:
        number = float(value)
    except OverflowError:  # an int beyond float range
        number = math.inf
    if (
        not math.isfinite(number)
        or (lo is not None and number < lo)
        or (hi is not None and number > hi)
    ):
        raise ValueError(f"{name} must be a finite number{_range(lo, hi)}; got {plain(value)!r}")
    return number


def check_unit_interval(value: object, name: str) -> float:
    """A finite real number in ``[0, 1]`` (a probability or a share)."""
    return check_number(value, name, lo=0, hi=1)


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


def _range(lo: float | None, hi: float | None) -> str:
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
