"""Exact, partition-independent sums and means (rankaudit.distributed.exact)."""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

from rankaudit.distributed.exact import SHIFT, exact_mean, exact_sum, exact_sums, means_from_sums

finite = st.floats(allow_nan=False, allow_infinity=False, allow_subnormal=True)


@settings(max_examples=200, deadline=None)
@given(arrays(np.float64, st.integers(0, 60), elements=finite))
def test_exact_sum_equals_rational_sum(values):
    assert Fraction(exact_sum(values), 1 << SHIFT) == sum(
        map(Fraction, values.tolist()), Fraction(0)
    )


@settings(max_examples=100, deadline=None)
@given(arrays(np.float64, st.integers(1, 80), elements=st.floats(0, 1)), st.data())
def test_mean_does_not_depend_on_the_split(values, data):
    cuts = sorted(data.draw(st.lists(st.integers(0, len(values)), max_size=5)))
    pieces = np.split(values, cuts)
    parts = [exact_sums(pd.DataFrame({"x": piece}), ["x"]) for piece in pieces]
    means, n = means_from_sums(parts)
    assert n == len(values)
    exact = sum(map(Fraction, values.tolist()), Fraction(0)) / len(values)
    assert means["x"] == float(exact) == exact_mean(values)
    assert means["x"] == pytest.approx(math.fsum(values) / len(values), rel=1e-15)


def test_large_and_tiny_values():
    values = np.array([1e308, 5e-324, -1e308, 0.1, -0.0])
    assert exact_sum(values) == exact_sum(np.array([5e-324, 0.1]))
    assert exact_mean(values) == float((Fraction(5e-324) + Fraction(0.1)) / 5)


def test_bad_values():
    with pytest.raises(ValueError, match="not finite"):
        exact_sum(np.array([0.5, np.nan]))
    with pytest.raises(ValueError, match="no values"):
        exact_mean(np.array([]))
    with pytest.raises(ValueError, match="no rows to average"):
        means_from_sums([exact_sums(pd.DataFrame({"x": []}), ["x"])])
