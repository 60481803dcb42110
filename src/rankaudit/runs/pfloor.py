"""Monte Carlo p-values at their floor, and the adjusted p-values that are bounds because of it.

Floor                a p-value estimated from ``B`` random draws (sign flips, permutations,
                     bootstrap resamples) as ``p = sides * (1 + k) / (B + 1)`` can be no smaller
                     than ``sides / (B + 1)`` (Phipson & Smyth, 2010, "Permutation p-values should
                     never be zero", Stat. Appl. Genet. Mol. Biol. 9(1), article 39). A ``p`` at
                     the floor only says the exact p-value is *at most* that.
Adjusted bounds      an adjusted p-value (Holm, 1979; Benjamini & Hochberg, 1995) computed from
                     a floored ``p`` is then an upper bound too, and so is every adjusted value
                     equal to it: Holm's step-down maximum and BH's step-up minimum give a row
                     another row's term, and when that term is a floored row's, the two adjusted
                     values are equal. (An exact value marked as a bound stays true; a bound
                     shown as exact would not.)

The book's tables and prose (``rankbook.report``) and the command line's tables print these
values as bounds ("p <= 0.0055"); this module is their one test of "at the floor".

Public API: :data:`FLOOR_RTOL`, :func:`monte_carlo_floor`, :func:`at_floor`,
:func:`floor_bounds`.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

from rankaudit._checks import check_int

__all__ = ["FLOOR_RTOL", "at_floor", "floor_bounds", "monte_carlo_floor"]

#: relative slack of "at the floor": ``p <= floor * (1 + FLOOR_RTOL)`` (one rounding of the
#: division ``sides / (B + 1)``, or of a value read back from JSON).
FLOOR_RTOL = 1e-9


def monte_carlo_floor(n_draws: int, sides: int = 1) -> float:
    """The smallest p-value ``B = n_draws`` draws can give: ``sides / (B + 1)``."""
    b = check_int(n_draws, "n_draws", lo=1)
    if sides not in (1, 2):
        raise ValueError(f"sides must be 1 or 2, got {sides!r}")
    return sides / (b + 1)


def at_floor(p: float | None, n_draws: int, sides: int = 1) -> bool:
    """True when ``p`` is the floor :func:`monte_carlo_floor` (up to :data:`FLOOR_RTOL`); a
    missing value (None or NaN) is not."""
    return _present(p) and float(p) <= monte_carlo_floor(n_draws, sides) * (1 + FLOOR_RTOL)


def floor_bounds(
    adjusted: Sequence[float | None],
    raw: Sequence[float | None],
    n_draws: int,
    sides: int = 1,
) -> list[bool]:
    """For each row of a family, whether its adjusted p-value is only an upper bound: its own
    unadjusted p (``raw``, same rows) is at the floor, or its adjusted value equals (to 12
    significant digits) the adjusted value of a row whose unadjusted p is."""
    if len(raw) != len(adjusted):
        raise ValueError(f"raw has {len(raw)} p-values for {len(adjusted)} rows")
    floored = [
        float(a)
        for a, r in zip(adjusted, raw, strict=True)
        if _present(a) and at_floor(r, n_draws, sides)
    ]
    return [
        _present(a) and any(math.isclose(float(a), b, rel_tol=1e-12) for b in floored)
        for a in adjusted
    ]


def _present(p: float | None) -> bool:
    """A p-value that is there: neither None nor NaN."""
    return p is not None and not math.isnan(float(p))
