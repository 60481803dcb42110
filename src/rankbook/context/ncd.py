"""Normalized compression distance (NCD) with a pluggable compressor, cached and deduplicated.

Definition (Cilibrasi & Vitanyi, 2005, "Clustering by compression", IEEE Trans. Inf. Theory 51(4);
used as a ranking feature by Sheng et al., 2025, "Progressive refinement of e-commerce search
ranking", eq. NCD_lc):

    NCD(x, y) = (C(x + y) - min(C(x), C(y))) / max(C(x), C(y))

where ``C(s)`` is the compressed length in bytes of ``s`` and ``x + y`` is the concatenation (here
joined by a single space, as in npc_gzip, Jiang et al., 2023, ACL Findings). NCD is ~0 for identical
strings and ~1 for unrelated ones (it can slightly exceed 1 with real compressors).

Compressors (``compressor=``)
-----------------------------
``"zlib"`` (default)  raw DEFLATE (no header), level 9, a 4 KiB window (``wbits=12``) and
                      ``memLevel=4``. For short texts such as titles this gives the same lengths as
                      a full 32 KiB window (matches can only reach back over the text itself) while
                      skipping most of zlib's per-call memory set-up, about 10x faster per call than
                      ``gzip.compress``. Texts longer than 4 KiB lose long-range matches: pass
                      ``ZlibCompressor(window_bits=15)`` for those.
``"gzip"``            ``gzip.compress`` (the npc_gzip reference; 18-byte header + trailer).
``"bz2"``, ``"lzma"`` the standard-library codecs (slower; headers included).
Any object with ``name: str`` and ``size(data: bytes) -> int`` also works.

Speed (see ``benchmarks/bench_ncd.py``): :class:`NCD` caches ``C(x)`` per unique text, compresses
each unique ``(x, y)`` pair's concatenation once, and does all bookkeeping with numpy (factorised
text codes, unique pair keys), so repeated (SERP item, click) pairs cost one dictionary-free array
lookup.

Public API: :func:`ncd` (plain reference), :class:`NCD` (``.sizes(texts)``, ``.pairs(x, y)``),
:func:`get_compressor`, :class:`ZlibCompressor`.
"""

from __future__ import annotations

import bz2
import gzip
import lzma
import zlib
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Protocol

import numpy as np
import pandas as pd

__all__ = [
    "Compressor",
    "NCD",
    "SEP",
    "ZlibCompressor",
    "get_compressor",
    "ncd",
]

SEP = " "


class Compressor(Protocol):
    name: str

    def size(self, data: bytes) -> int: ...


@dataclass(frozen=True)
class ZlibCompressor:
    """Raw DEFLATE length: ``len(compressobj(level, DEFLATED, -window_bits, mem_level).compress(d)
    + flush())``."""

    level: int = 9
    window_bits: int = 12
    mem_level: int = 4

    @property
    def name(self) -> str:
        return f"zlib(level={self.level},wbits={self.window_bits},mem={self.mem_level})"

    def size(self, data: bytes) -> int:
        c = zlib.compressobj(self.level, zlib.DEFLATED, -self.window_bits, self.mem_level)
        return len(c.compress(data)) + len(c.flush())


@dataclass(frozen=True)
class _FuncCompressor:
    name: str
    func: object

    def size(self, data: bytes) -> int:
        return len(self.func(data))  # type: ignore[operator]


def _gzip(b: bytes) -> bytes:
    return gzip.compress(b, mtime=0)


def _bz2(b: bytes) -> bytes:
    return bz2.compress(b, 9)


def _lzma(b: bytes) -> bytes:
    return lzma.compress(b)


_NAMED = {
    "zlib": ZlibCompressor(),
    "gzip": _FuncCompressor("gzip", _gzip),
    "bz2": _FuncCompressor("bz2", _bz2),
    "lzma": _FuncCompressor("lzma", _lzma),
}


def get_compressor(compressor: str | Compressor) -> Compressor:
    """Resolve a compressor name (``zlib``, ``gzip``, ``bz2``, ``lzma``) or pass an object
    through."""
    if isinstance(compressor, str):
        try:
            return _NAMED[compressor]
        except KeyError:
            raise ValueError(
                f"compressor must be one of {sorted(_NAMED)} or a Compressor object, got "
                f"{compressor!r}"
            ) from None
    if not hasattr(compressor, "size"):
        raise ValueError(f"compressor object {compressor!r} has no size(bytes) method")
    return compressor


def ncd(x: str, y: str, compressor: str | Compressor = "zlib") -> float:
    """Plain reference: ``(C(x + ' ' + y) - min(C(x), C(y))) / max(C(x), C(y))`` (Cilibrasi &
    Vitanyi, 2005)."""
    comp = get_compressor(compressor)
    cx, cy = comp.size(x.encode()), comp.size(y.encode())
    cxy = comp.size((x + SEP + y).encode())
    return (cxy - min(cx, cy)) / max(cx, cy)


_WORK: tuple = ()  # (compressor, left, right) shared with forked workers


def _sizes_serial(
    compressor: Compressor, left: list[bytes], right: list[bytes], ua: np.ndarray, ub: np.ndarray
) -> np.ndarray:
    """``C(left[a] + right[b])`` per index pair; a tight loop with zlib's calls bound locally."""
    if isinstance(compressor, ZlibCompressor):
        co, lvl, wb, ml = (
            zlib.compressobj,
            compressor.level,
            -compressor.window_bits,
            compressor.mem_level,
        )
        defl = zlib.DEFLATED

        def size(d: bytes) -> int:
            c = co(lvl, defl, wb, ml)
            return len(c.compress(d)) + len(c.flush())
    else:
        size = compressor.size
    return np.fromiter(
        (size(left[a] + right[b]) for a, b in zip(ua.tolist(), ub.tolist(), strict=True)),
        dtype=np.float64,
        count=len(ua),
    )


def _worker(args: tuple[np.ndarray, np.ndarray]) -> np.ndarray:
    comp, left, right = _WORK
    return _sizes_serial(comp, left, right, *args)


def _concat_sizes(
    compressor: Compressor,
    left: list[bytes],
    right: list[bytes],
    ua: np.ndarray,
    ub: np.ndarray,
    n_jobs: int,
) -> np.ndarray:
    """Serial, or split over ``n_jobs`` forked processes (POSIX only; the texts are inherited, not
    pickled)."""
    import multiprocessing as mp

    if n_jobs == 1 or len(ua) < 20_000 or "fork" not in mp.get_all_start_methods():
        return _sizes_serial(compressor, left, right, ua, ub)
    global _WORK
    _WORK = (compressor, left, right)
    try:
        chunks = [
            (a, b)
            for a, b in zip(
                np.array_split(ua, n_jobs * 4), np.array_split(ub, n_jobs * 4), strict=True
            )
        ]
        with mp.get_context("fork").Pool(n_jobs) as pool:
            return np.concatenate(pool.map(_worker, chunks))
    finally:
        _WORK = ()


class NCD:
    """Vectorised NCD over many ``(x[i], y[i])`` pairs with a per-text ``C(x)`` cache.

    ``NCD("zlib").pairs(x, y)`` returns ``ncd(x[i], y[i])`` for every ``i`` (float64). Missing texts
    (``None`` or NaN in ``x`` or ``y``) give NaN, so queries without a click history get missing
    features, not zeros. ``n_jobs > 1`` compresses the unique concatenations in that many forked
    processes (same values; leave it at 1 inside processes that already run threaded libraries,
    where fork is unsafe).
    """

    def __init__(self, compressor: str | Compressor = "zlib", *, n_jobs: int = 1) -> None:
        self.compressor = get_compressor(compressor)
        self._size_cache: dict[str, int] = {}
        if n_jobs < 1:
            raise ValueError(f"n_jobs must be >= 1, got {n_jobs}")
        self.n_jobs = n_jobs

    @property
    def name(self) -> str:
        return self.compressor.name

    def sizes(self, texts: Sequence[str]) -> np.ndarray:
        """``C(t)`` for each text (cached per unique text across calls)."""
        codes, uniq = pd.factorize(np.asarray(texts, dtype=object))
        return self._unique_sizes(uniq)[codes] if len(uniq) else np.zeros(len(codes))

    def _unique_sizes(self, uniq: Sequence[str]) -> np.ndarray:
        cache, size = self._size_cache, self.compressor.size
        out = np.empty(len(uniq), dtype=np.float64)
        for i, t in enumerate(uniq):
            v = cache.get(t)
            if v is None:
                v = cache[t] = size(t.encode())
            out[i] = v
        return out

    def pairs(self, x: Sequence[str | None], y: Sequence[str | None]) -> np.ndarray:
        """NCD of each aligned pair; concatenations compressed once per unique pair."""
        x = np.asarray(x, dtype=object)
        y = np.asarray(y, dtype=object)
        if x.shape != y.shape or x.ndim != 1:
            raise ValueError(
                f"x and y must be 1-D and of equal length, got shapes {x.shape} and {y.shape}"
            )
        n = len(x)
        out = np.full(n, np.nan)
        if n == 0:
            return out
        codes, uniq = pd.factorize(np.concatenate([x, y]), use_na_sentinel=True)
        cx, cy = codes[:n], codes[n:]
        ok = (cx >= 0) & (cy >= 0)
        if not ok.any():
            return out
        sizes = self._unique_sizes(uniq)
        key = cx[ok].astype(np.int64) * len(uniq) + cy[ok]
        ukey, inv = np.unique(key, return_inverse=True)
        ua, ub = np.divmod(ukey, len(uniq))
        sep = SEP.encode()
        left = [t.encode() + sep for t in uniq]
        right = [t.encode() for t in uniq]
        cxy = _concat_sizes(self.compressor, left, right, ua, ub, self.n_jobs)
        sa, sb = sizes[ua], sizes[ub]
        val = (cxy - np.minimum(sa, sb)) / np.maximum(sa, sb)
        out[ok] = val[inv]
        return out
