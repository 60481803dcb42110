"""NCD: reference formula, vectorised/cached version equals it, compressors, missing values."""

import gzip
import zlib

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rankbook.context.ncd import NCD, ZlibCompressor, get_compressor, ncd

TITLES = [
    "Nioxin System 4 Shampoo for Colored Hair, 10.1 oz",
    "Nioxin System 4 Conditioner for Colored Hair, 10.1 oz",
    "Sony WH-1000XM5 Noise Cancelling Wireless Headphones, Black",
    "",
    "a",
]


def test_reference_formula_by_hand():
    x, y = TITLES[0], TITLES[2]
    cx, cy = len(gzip.compress(x.encode(), mtime=0)), len(gzip.compress(y.encode(), mtime=0))
    cxy = len(gzip.compress((x + " " + y).encode(), mtime=0))
    assert ncd(x, y, "gzip") == pytest.approx((cxy - min(cx, cy)) / max(cx, cy))


def test_similar_titles_are_closer():
    calc = NCD()
    d = calc.pairs([TITLES[0], TITLES[0]], [TITLES[1], TITLES[2]])
    assert d[0] < d[1]
    assert ncd(TITLES[0], TITLES[0]) < 0.2


def test_zlib_compressor_is_raw_deflate_of_full_level():
    c = ZlibCompressor()
    data = TITLES[0].encode()
    co = zlib.compressobj(9, zlib.DEFLATED, -12, 4)
    assert c.size(data) == len(co.compress(data) + co.flush())
    # for short texts the 4 KiB window gives the same length as the full 32 KiB window
    full = zlib.compressobj(9, zlib.DEFLATED, -15, 9)
    assert c.size(data) == len(full.compress(data) + full.flush())


@pytest.mark.parametrize("name", ["zlib", "gzip", "bz2", "lzma"])
def test_vectorised_equals_reference(name):
    rng = np.random.default_rng(0)
    x = [TITLES[i] for i in rng.integers(0, len(TITLES), 60)]
    y = [TITLES[i] for i in rng.integers(0, len(TITLES), 60)]
    got = NCD(name).pairs(x, y)
    want = [ncd(a, b, name) for a, b in zip(x, y, strict=True)]
    np.testing.assert_allclose(got, want, rtol=0, atol=0)


@settings(max_examples=40, deadline=None)
@given(st.lists(st.tuples(st.text(max_size=30), st.text(max_size=30)), min_size=1, max_size=20))
def test_vectorised_equals_reference_random_text(pairs):
    x, y = zip(*pairs, strict=True)
    np.testing.assert_allclose(NCD().pairs(list(x), list(y)), [ncd(a, b) for a, b in pairs], atol=0)


def test_missing_gives_nan_and_cache_reused():
    calc = NCD()
    out = calc.pairs([TITLES[0], TITLES[1], None], [None, TITLES[2], TITLES[0]])
    assert np.isnan(out[0]) and np.isnan(out[2]) and np.isfinite(out[1])
    n = len(calc._size_cache)
    calc.pairs([TITLES[1]], [TITLES[2]])
    assert len(calc._size_cache) == n
    np.testing.assert_array_equal(
        calc.sizes([TITLES[0], TITLES[0]]), [ZlibCompressor().size(TITLES[0].encode())] * 2
    )


def test_bad_compressor_and_shapes():
    with pytest.raises(ValueError, match="compressor"):
        get_compressor("zstd-nope")
    with pytest.raises(ValueError, match="equal length"):
        NCD().pairs(["a"], ["a", "b"])


def test_parallel_equals_serial():
    rng = np.random.default_rng(2)
    words = [
        "nioxin",
        "system",
        "shampoo",
        "sony",
        "black",
        "10.1",
        "oz",
        "for",
        "hair",
        "cleanser",
    ]
    texts = [" ".join(rng.choice(words, 6)) for _ in range(400)]
    x = [texts[i] for i in rng.integers(0, 400, 30_000)]
    y = [texts[i] for i in rng.integers(0, 400, 30_000)]
    np.testing.assert_array_equal(NCD(n_jobs=2).pairs(x, y), NCD().pairs(x, y))
    with pytest.raises(ValueError, match="n_jobs"):
        NCD(n_jobs=0)
