"""What the threshold tests of the decision standard and of the prose words share: the
non-finite values every numeric argument must refuse, and the floats just either side of a
threshold (``math.nextafter``), so a test sits at, just below and just above each one."""

from __future__ import annotations

import math

__all__ = ["NON_FINITE", "above", "below"]

NON_FINITE = [math.nan, math.inf, -math.inf]


def below(x: float) -> float:
    """The largest float below ``x``."""
    return math.nextafter(x, -math.inf)


def above(x: float) -> float:
    """The smallest float above ``x``."""
    return math.nextafter(x, math.inf)
