"""The join's dictionary encoding gives the same codes however the work is cut into pieces, and
keeps a dictionary-encoded input's codes as they are."""

from __future__ import annotations

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rankaudit.runs.encoding import encode_ids, index_dtype

ids = st.lists(st.sampled_from(["a", "b", "c", "d01", "d1", "é", ""]), max_size=40)


@settings(max_examples=80, deadline=None)
@given(first=ids, second=ids, parts=st.integers(1, 9))
def test_pieces_encode_like_one_pass(first, second, parts):
    a, b = pa.array(first, pa.string()), pa.array(second, pa.string())
    one_pass = pc.dictionary_encode(pa.array(first + second, pa.string()))
    names, (ca, cb) = encode_ids(a, b, parts=parts)
    codes = np.concatenate([ca, cb])
    assert names.equals(one_pass.dictionary)
    assert np.array_equal(codes, one_pass.indices.to_numpy())
    assert codes.dtype == np.int32  # codes are int32 while they fit


@pytest.mark.parametrize("parts", [None, 2, 3])
def test_long_arrays_take_the_threaded_path(parts):
    rng = np.random.default_rng(0)
    values = pa.array(np.char.add("d", rng.integers(0, 50_000, 1 << 20).astype(str)))
    names, pieces = encode_ids(values, values.slice(0, 1000), parts=parts)
    codes = np.concatenate(pieces)
    reference = pc.dictionary_encode(pa.chunked_array([values, values.slice(0, 1000)]))
    assert names.equals(reference.chunk(0).dictionary)
    assert np.array_equal(codes, np.concatenate([c.indices.to_numpy() for c in reference.chunks]))


@settings(max_examples=80, deadline=None)
@given(first=ids, second=ids, spare=ids, repeat=st.booleans(), parts=st.integers(1, 4))
def test_dictionary_inputs_encode_their_values(first, second, spare, repeat, parts):
    """A dictionary-encoded input (what the readers return) is used as it is: the codes name
    the same values as a plain encoding, every returned value occurs, none twice, even when
    the dictionary holds values no row uses (``spare``) or a value twice (``repeat``)."""
    values = sorted(set(first) | set(spare))
    dictionary = values + values[:1] if repeat and values else values
    index = {v: i for i, v in enumerate(values)}
    given_array = pa.DictionaryArray.from_arrays(
        pa.array([index[v] for v in first], pa.int32()), pa.array(dictionary, pa.string())
    )
    names, (ca, cb) = encode_ids(given_array, pa.array(second, pa.string()), parts=parts)
    codes = np.concatenate([ca, cb])
    assert names.to_pylist() == [] or len(set(names.to_pylist())) == len(names)
    assert [names[int(c)].as_py() for c in codes] == first + second
    assert set(names.to_pylist()) == set(first + second)


def test_index_dtype_widens_past_int32():
    assert index_dtype(10) is np.int32
    assert index_dtype(2**31) is np.int64


def test_a_dictionary_input_keeps_its_codes_without_a_copy():
    """The readers' dictionary-encoded docnos are used in place: no run-length copy."""
    run_docnos = pc.dictionary_encode(pa.array([f"d{i % 7}" for i in range(50)]))
    names, (run_codes, qrels_codes) = encode_ids(run_docnos, pa.array(["d3", "x", "d0"]))
    assert np.shares_memory(run_codes, run_docnos.indices.to_numpy())
    assert names.to_pylist() == [f"d{i}" for i in range(7)] + ["x"]
    assert qrels_codes.tolist() == [3, 7, 0]
