"""Two score matrices are one system exactly when every row orders its candidates alike."""

from __future__ import annotations

import numpy as np
import pytest

from rankbook.audit.duplicates import duplicate_of, same_ranking


def test_monotone_transforms_are_the_same_system_and_a_swapped_tie_is_not():
    rng = np.random.default_rng(0)
    a = rng.integers(0, 4, (50, 9)).astype(float)
    assert same_ranking(a, 3 * a + 1) and same_ranking(a, np.exp(a))
    b = a.copy()
    b[7, 1] = a[7, 0] + (0.5 if a[7, 1] <= a[7, 0] else -0.5)  # one pair of one row compares
    # otherwise: tied becomes ordered, or ordered becomes reversed
    assert not same_ranking(a, b)
    assert duplicate_of(a, {"other": b, "scaled": 2 * a}) == "scaled"
    assert duplicate_of(a, {"other": b}) is None


def test_bad_shapes_and_nan_are_named():
    with pytest.raises(ValueError, match="same shape"):
        same_ranking(np.zeros((2, 3)), np.zeros((3, 2)))
    with pytest.raises(ValueError, match="rows x candidates"):
        same_ranking(np.zeros(3), np.zeros(3))
    with pytest.raises(ValueError, match="NaN"):
        same_ranking(np.array([[0.0, np.nan]]), np.zeros((1, 2)))
