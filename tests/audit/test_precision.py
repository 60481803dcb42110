"""Scores at lower precision: bfloat16 rounding against torch, float16 and rounding."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rankbook.audit.precision import PRECISIONS, at_precision, round_to_bfloat16

torch = pytest.importorskip("torch")


@settings(max_examples=200, deadline=None)
@given(st.lists(st.floats(-(2.0**100), 2.0**100, width=32), min_size=1, max_size=50))
def test_bfloat16_rounding_equals_torch(values):
    x = np.asarray(values, dtype=np.float32)
    ours = round_to_bfloat16(x)
    theirs = torch.from_numpy(x).to(torch.bfloat16).to(torch.float32).numpy()
    np.testing.assert_array_equal(ours, theirs)


def test_bfloat16_halfway_rounds_to_even():
    # 1 + 2**-8 is exactly half-way between bfloat16 neighbours 1 and 1 + 2**-7: goes to 1 (even)
    assert round_to_bfloat16(np.float32(1 + 2**-8)) == np.float32(1.0)
    # 1 + 3 * 2**-8 is half-way between 1 + 2**-7 (odd) and 1 + 2**-6 (even): goes up
    assert round_to_bfloat16(np.float32(1 + 3 * 2**-8)) == np.float32(1 + 2**-6)


def test_precisions_create_ties_and_keep_order():
    rng = np.random.default_rng(0)
    s = rng.normal(size=(20, 200))
    n_distinct = []
    for p in PRECISIONS:
        r = at_precision(s, p)
        assert r.dtype == np.float64 and r.shape == s.shape
        # a monotone conversion never reverses the order of two scores
        i, j = np.argsort(s, axis=1)[:, :-1], np.argsort(s, axis=1)[:, 1:]
        assert (np.take_along_axis(r, i, 1) <= np.take_along_axis(r, j, 1)).all()
        n_distinct.append(len(np.unique(r)))
    assert n_distinct[0] == s.size  # float64: no ties
    assert n_distinct[PRECISIONS.index("round1")] < n_distinct[PRECISIONS.index("float16")]
    np.testing.assert_array_equal(at_precision(s, "float16"), s.astype(np.float16))


@pytest.mark.parametrize("bad", ["float8", "round", "round10", 16, None])
def test_unknown_precision_is_named(bad):
    with pytest.raises(ValueError, match="precision must be"):
        at_precision(np.zeros(3), bad)


def test_overflow_and_nonfinite_are_errors():
    with pytest.raises(ValueError, match="overflow float16"):
        at_precision(np.array([1e6]), "float16")
    with pytest.raises(ValueError, match="NaN or infinite"):
        at_precision(np.array([np.nan]), "float32")
