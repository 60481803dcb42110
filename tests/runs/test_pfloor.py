"""The floor of a Monte Carlo p-value and the adjusted p-values that are bounds because of it
(:mod:`rankaudit.runs.pfloor`), the one test the book's tables and the command line share."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from rankaudit.runs.pfloor import at_floor, floor_bounds, monte_carlo_floor
from rankaudit.runs.significance import holm_adjust


def test_the_floor_of_b_draws():
    assert monte_carlo_floor(999) == 1 / 1000
    assert monte_carlo_floor(1999, sides=2) == 2 / 2000
    assert at_floor(1 / 1000, 999) and at_floor(0.0, 999)
    assert not at_floor(2 / 1000, 999) and not at_floor(None, 999)
    assert not at_floor(float("nan"), 999)
    for bad in (0, -3, 2.5, True):
        with pytest.raises(ValueError, match="n_draws"):
            monte_carlo_floor(bad)
    with pytest.raises(ValueError, match="sides must be 1 or 2"):
        monte_carlo_floor(99, sides=3)


def test_holm_carries_a_floored_row_s_bound_to_the_row_it_shares_a_value_with():
    """Holm's step-down maximum gives the fourth row (its own term 1 x 0.004) the floored
    rows' 4 x floor: a bound as well; the row above, with a larger value of its own, is exact."""
    floor = 1 / 1000
    raw = [floor, floor, floor, 0.002, 0.3]
    adjusted = holm_adjust(np.array(raw)).tolist()
    assert floor_bounds(adjusted, raw, 999) == [True, True, True, True, False]
    assert floor_bounds([0.01, None, float("nan")], [0.005, floor, floor], 999) == [False] * 3
    with pytest.raises(ValueError, match="raw has 1 p-values for 2 rows"):
        floor_bounds([0.1, 0.2], [0.1], 999)


@given(
    st.integers(1, 5000),
    st.lists(st.integers(0, 50), min_size=1, max_size=12),
)
def test_every_row_at_the_floor_is_a_bound_and_no_row_above_every_floored_value_is(b, counts):
    """A raw p ``(1 + k) / (B + 1)`` with ``k = 0`` is at the floor and its Holm value is a
    bound; an adjusted value larger than every floored row's adjusted value never is."""
    raw = [(1 + min(k, b)) / (b + 1) for k in counts]
    adjusted = holm_adjust(np.array(raw)).tolist()
    bounds = floor_bounds(adjusted, raw, b)
    floored = [a for a, k in zip(adjusted, counts, strict=True) if k == 0]
    for a, k, bound in zip(adjusted, counts, bounds, strict=True):
        if k == 0:
            assert bound
        if floored and a > max(floored) * (1 + 1e-9):
            assert not bound
