"""Id columns as codes into one shared list of distinct values (the join's dictionary encoding).

:func:`encode_ids` gives every value of several id columns (query ids, or the docnos of a run
and its qrels) a code into one list of distinct values.  A plain string column is
dictionary-encoded (long ones in slices on a thread pool: pyarrow releases the GIL); a
dictionary-encoded column, which the TREC readers return, keeps its codes as they are (no
copy), and the other columns' values are matched onto its dictionary.  Nothing is
concatenated or re-coded that need not be, so a 10-million-line run's docno codes cost no
memory beyond the run's own.

The compiled helpers (:func:`gather`, :func:`mark_used`) index with int32 arrays as they are:
NumPy's fancy indexing would first copy an int32 index to int64, which on a run's length is
the largest transient of the join.

Public API: :func:`encode_ids`, :func:`index_dtype`, :func:`gather`, :func:`mark_used`,
:func:`release_arrow_memory`,
:data:`PARALLEL_ENCODE_MIN`.
"""

from __future__ import annotations

import os
from concurrent.futures import ThreadPoolExecutor

import numba
import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

__all__ = [
    "PARALLEL_ENCODE_MIN",
    "encode_ids",
    "gather",
    "index_dtype",
    "mark_used",
    "release_arrow_memory",
]

#: Plain columns longer than this are dictionary-encoded in slices on several threads.
PARALLEL_ENCODE_MIN = 1 << 20


def index_dtype(n: int) -> type:
    """The narrowest of int32 / int64 that holds indices ``0..n``."""
    return np.int32 if n < np.iinfo(np.int32).max else np.int64


def release_arrow_memory() -> None:
    """Give Arrow's freed buffers back to the system: its allocator keeps freed pages for Arrow
    alone, where the NumPy arrays built next cannot use them (the readers and the join call
    this once their Arrow temporaries are gone)."""
    pa.default_memory_pool().release_unused()


@numba.njit(cache=True)
def gather(values, index):  # pragma: no cover - compiled
    """``values[index]`` for an integer ``index`` of any width, without widening it first."""
    out = np.empty(len(index), values.dtype)
    for i in range(len(index)):
        out[i] = values[index[i]]
    return out


@numba.njit(cache=True)
def mark_used(codes, used):  # pragma: no cover - compiled
    """``used[c] = True`` for every code ``c`` of ``codes``."""
    for i in range(len(codes)):
        used[codes[i]] = True


def _slices(values: pa.Array, parts: int | None) -> list[pa.Array]:
    threads = min(os.cpu_count() or 1, 4)
    n = len(values)
    if parts is None:
        cut = threads if n >= PARALLEL_ENCODE_MIN else 1
    else:
        cut = max(1, min(parts, n))
    bounds = [n * i // cut for i in range(cut + 1)]
    return [values.slice(a, b - a) for a, b in zip(bounds[:-1], bounds[1:], strict=True)]


def _distinct(dictionary: pa.Array) -> bool:
    return pc.count_distinct(dictionary, mode="all").as_py() == len(dictionary)


def _pieces(arrays: tuple[pa.Array, ...], parts: int | None) -> list[list[pa.Array]]:
    """Each input as dictionary arrays: a given dictionary array whose values are distinct as
    it is, anything else (plain, or a dictionary holding a value twice) encoded in slices."""
    out: list[list[pa.Array]] = []
    todo: list[tuple[int, int]] = []
    flat: list[pa.Array] = []
    for values in arrays:
        if pa.types.is_dictionary(values.type):
            if _distinct(values.dictionary):
                out.append([values])
                continue
            values = values.cast(values.type.value_type)
        slices = _slices(values, parts)
        out.append(slices)
        todo += [(len(out) - 1, j) for j in range(len(slices))]
        flat += slices
    if len(flat) > 1:
        threads = min(os.cpu_count() or 1, 4)
        with ThreadPoolExecutor(min(len(flat), threads)) as pool:
            done = list(pool.map(pc.dictionary_encode, flat))
    else:
        done = [pc.dictionary_encode(a) for a in flat]
    for (i, j), encoded in zip(todo, done, strict=True):
        out[i][j] = encoded
    return out


def encode_ids(*arrays: pa.Array, parts: int | None = None) -> tuple[pa.Array, list[np.ndarray]]:
    """``(distinct values, [codes of each input])``: every value of every input array as a
    code into one list of distinct strings.

    The first piece's dictionary comes first, then each later piece's values not seen before,
    in its dictionary's order; for plain arrays that is the order of first appearance over
    the inputs laid end to end, and the codes equal those of one ``dictionary_encode`` pass
    over the concatenation whatever ``parts`` is (tested).  Plain arrays of
    :data:`PARALLEL_ENCODE_MIN` values or more are cut into ``parts`` slices (default: one per
    core, at most 4).  A dictionary value no row uses is dropped, so every value returned
    occurs; codes are int32 while they fit (:func:`index_dtype`).
    """
    pieces = _pieces(arrays, parts)
    flat = [p for ps in pieces for p in ps]
    base = flat[0].dictionary
    maps: list[np.ndarray | None] = [None]
    for piece in flat[1:]:
        where = pc.index_in(piece.dictionary, value_set=base)
        new = where.is_null()
        n_base = len(base)
        mapping = where.fill_null(-1).to_numpy().astype(np.int64)
        fresh = np.flatnonzero(np.asarray(new))
        if len(fresh):
            base = pa.concat_arrays([base, piece.dictionary.filter(new)])
            mapping[fresh] = n_base + np.arange(len(fresh))
        maps.append(mapping)
    dtype = index_dtype(len(base))
    codes = []
    for piece, mapping in zip(flat, maps, strict=True):
        idx = piece.indices.to_numpy()
        if mapping is None:
            codes.append(idx if idx.dtype == dtype else idx.astype(dtype))
        else:
            codes.append(gather(mapping.astype(dtype), idx))
    used = np.zeros(len(base), np.bool_)
    for c in codes:
        mark_used(c, used)
    if not used.all():
        remap = (np.cumsum(used) - 1).astype(dtype)
        base = base.filter(pa.array(used))
        codes = [gather(remap, c) for c in codes]
    out, start = [], 0
    for ps in pieces:
        mine = codes[start : start + len(ps)]
        start += len(ps)
        out.append(mine[0] if len(mine) == 1 else np.concatenate(mine))
    return base, out
