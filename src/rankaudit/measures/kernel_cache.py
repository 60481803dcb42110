"""numba's on-disk cache, kept in step with every source a kernel compiles in.

numba keys a cached kernel on its own file's modification time and size only; the helpers it
inlines from other modules (:mod:`~rankaudit.measures.list_support`,
:mod:`~rankaudit.measures.row_support`, :mod:`~rankaudit.measures.hashing`) and the global
constants it freezes (measure codes, the rules' kernel modes,
:mod:`~rankaudit.measures.rules`) are not part of the key, so editing them would leave the
cached machine code running the old version.  :func:`refresh_stale_cache` closes that gap: a
kernel module calls it at import with its dispatchers and the modules it depends on; the
SHA-256 of those sources is stored beside numba's index, and when it changes the index is
emptied (``numba.core.caching.FunctionCache.flush``), so the next call compiles afresh.
Nobody deletes a cache file by hand.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from pathlib import Path

from numba.core.caching import FunctionCache

__all__ = ["refresh_stale_cache", "sources_digest"]


def sources_digest(sources: Sequence[str | Path]) -> str:
    """SHA-256 over the files ``sources`` (in the given order)."""
    digest = hashlib.sha256()
    for source in sources:
        path = Path(source)
        digest.update(path.name.encode())
        digest.update(path.read_bytes())
    return digest.hexdigest()


def refresh_stale_cache(dispatchers: Sequence[object], sources: Sequence[str | Path]) -> bool:
    """Empty numba's cache index of each of ``dispatchers`` (``numba.njit(cache=True)``
    functions) when the files ``sources`` (the kernel's own module and every module it
    compiles in) changed since it was written; returns whether anything was emptied.  A cache
    that cannot be written is left to numba (it then compiles in memory)."""
    want = sources_digest(sources)
    flushed = False
    for dispatcher in dispatchers:
        py_func = getattr(dispatcher, "py_func", None)
        if py_func is None:
            raise ValueError(f"{dispatcher!r} is not a numba dispatcher")
        cache = FunctionCache(py_func)
        stamp = Path(cache.cache_path) / f"{py_func.__module__}.{py_func.__qualname__}.sources"
        try:
            if stamp.exists() and stamp.read_text() == want:
                continue
            cache.flush()
            stamp.parent.mkdir(parents=True, exist_ok=True)
            stamp.write_text(want)
            flushed = True
        except OSError:
            continue
    return flushed
