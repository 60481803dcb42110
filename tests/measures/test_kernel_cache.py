"""numba's cache follows every source a kernel compiles in: when a helper module changes, the
kernel's cache index is emptied at import (no file to delete by hand)."""

from __future__ import annotations

import uuid

import numba
import pytest

from rankaudit.measures import expectations, list_kernels, list_support, row_ordered
from rankaudit.measures.kernel_cache import refresh_stale_cache, sources_digest


@numba.njit(cache=True)
def _toy(x):  # pragma: no cover - compiled
    return x + 1


def test_a_changed_helper_empties_the_cache_once(tmp_path):
    helper = tmp_path / "helper.py"
    helper.write_text(f"# {uuid.uuid4()}\n")
    sources = [__file__, helper]
    assert refresh_stale_cache([_toy], sources) is True  # sources never seen: emptied
    assert refresh_stale_cache([_toy], sources) is False  # unchanged: the cache is kept
    assert _toy(1) == 2
    helper.write_text(helper.read_text() + "x = 1\n")
    assert refresh_stale_cache([_toy], sources) is True
    assert refresh_stale_cache([_toy], sources) is False


def test_the_digest_reads_every_source(tmp_path):
    a, b = tmp_path / "a.py", tmp_path / "b.py"
    a.write_text("1")
    b.write_text("2")
    first = sources_digest([a, b])
    b.write_text("3")
    assert sources_digest([a, b]) != first


def test_the_kernel_modules_keep_their_caches_in_step():
    # importing list_kernels stamped its cache with these very sources: it is current
    assert not refresh_stale_cache(
        [list_kernels.list_ordered_kernel],
        [list_kernels.__file__, list_support.__file__, expectations.__file__],
    )
    with pytest.raises(ValueError, match="not a numba dispatcher"):
        refresh_stale_cache([row_ordered.SORT_ABOVE], [row_ordered.__file__])
