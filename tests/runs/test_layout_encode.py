"""The join's dictionary encoding gives the same codes however the work is cut into pieces."""

from __future__ import annotations

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rankaudit.runs.layout import _encode

ids = st.lists(st.sampled_from(["a", "b", "c", "d01", "d1", "é", ""]), max_size=40)


@settings(max_examples=80, deadline=None)
@given(first=ids, second=ids, parts=st.integers(1, 9))
def test_pieces_encode_like_one_pass(first, second, parts):
    a, b = pa.array(first, pa.string()), pa.array(second, pa.string())
    one_pass = pc.dictionary_encode(pa.array(first + second, pa.string()))
    names, codes = _encode(a, b, parts=parts)
    assert names.equals(one_pass.dictionary)
    assert np.array_equal(codes, one_pass.indices.to_numpy())
    assert codes.dtype == np.int64


@pytest.mark.parametrize("parts", [None, 2, 3])
def test_long_arrays_take_the_threaded_path(parts):
    rng = np.random.default_rng(0)
    values = pa.array(np.char.add("d", rng.integers(0, 50_000, 1 << 20).astype(str)))
    names, codes = _encode(values, values.slice(0, 1000), parts=parts)
    reference = pc.dictionary_encode(pa.chunked_array([values, values.slice(0, 1000)]))
    assert names.equals(reference.chunk(0).dictionary)
    assert np.array_equal(codes, np.concatenate([c.indices.to_numpy() for c in reference.chunks]))
