"""Shared pieces of the numba kernels: lookup tables, status codes, small sorts.

Every kernel works on a CSR-style batch: row ``i`` holds the candidates
``offsets[i]:offsets[i + 1]`` of the flat ``scores`` / ``labels`` arrays, or
``i * row_len:(i + 1) * row_len`` for rectangular input (:func:`row_bounds`),
so ragged rows (search result lists of different lengths) and rectangular
rows go through the same code.

Kernels validate while they read (non-finite scores, negative / NaN labels,
duplicate item ids) and return ``(status, row, position)`` instead of raising,
so the input is read once; :mod:`rankaudit.ties.validation` turns a non-zero
status into a ``ValueError`` naming the row.

numba's on-disk cache of the row kernels follows edits of this module too: the kernel
modules refresh it at import (:mod:`rankaudit.measures.kernel_cache`).
"""

from __future__ import annotations

from typing import NamedTuple

import numba
import numpy as np

from rankaudit._checks import LABEL_LIMIT
from rankaudit.measures.list_support import list_tables
from rankaudit.measures.row_metrics import discount

__all__ = [
    "BAD_LABEL",
    "RowBatch",
    "RowOutput",
    "RowTables",
    "DUPLICATE_ITEM",
    "NONFINITE_SCORE",
    "OK",
    "collect_relevant",
    "count_above_equal",
    "discount_tables",
    "first_nonfinite",
    "harmonic_tables",
    "ideal_dcg",
    "log2_table",
    "padded_stop",
    "relevant_positions",
    "row_bounds",
    "scan_labels",
    "scan_row",
    "sort_by_rank",
    "relevant_blocks",
    "sort_relevant_canonical",
]


class RowBatch(NamedTuple):
    """The rows a kernel reads: ``row_len >= 0`` for rectangular rows of that length
    (``offsets`` unused), ``-1`` for ragged rows delimited by ``offsets``."""

    n_rows: int
    row_len: int
    offsets: np.ndarray
    scores: np.ndarray
    labels: np.ndarray


class RowTables(NamedTuple):
    """Rank-indexed tables (:func:`discount_tables`, :func:`harmonic_tables`,
    :func:`log2_table`) and the longest row (scratch size)."""

    disc: np.ndarray
    cum1: np.ndarray
    cum2: np.ndarray
    h1: np.ndarray
    h2: np.ndarray
    max_len: int
    log2k: np.ndarray


class RowOutput(NamedTuple):
    """Per-row outputs, filled in place: HR@k, NDCG@k, RR, a second moment of each (variance
    or sample standard deviation; empty when not asked for) and whether a row holds a relevant
    item."""

    hr: np.ndarray
    ndcg: np.ndarray
    rr: np.ndarray
    hr_extra: np.ndarray
    ndcg_extra: np.ndarray
    rr_extra: np.ndarray
    has_rel: np.ndarray


OK = 0
NONFINITE_SCORE = 1
BAD_LABEL = 2
DUPLICATE_ITEM = 3

# Labels are gains: finite numbers in [0, MAX_LABEL), the range rankaudit._checks.LABEL_LIMIT
# declares for every entry point.  Beyond 2**53 a float64 no longer holds every integer.
MAX_LABEL = float(LABEL_LIMIT)


def discount_tables(k: int, max_len: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Discount ``D(r) = 1/log2(r + 1)`` for ``r <= k`` and 0 beyond, with cumulative sums.

    Returns ``disc, cum1, cum2`` of length ``max_len + 1`` (index = rank, index 0
    unused): ``cum1[r] = sum_{q<=r} D(q)`` and ``cum2[r] = sum_{q<=r} D(q)**2``,
    so the discount mass of ranks ``g+1..g+t`` is ``cum1[g+t] - cum1[g]``.
    """
    ranks = np.arange(1, max(max_len, 1) + 1, dtype=np.float64)
    d = np.where(ranks <= k, discount(ranks), 0.0)
    disc = np.concatenate(([0.0], d))
    cum1 = np.concatenate(([0.0], np.cumsum(d)))
    cum2 = np.concatenate(([0.0], np.cumsum(d * d)))
    return disc, cum1, cum2


def log2_table(k: int, max_len: int) -> np.ndarray:
    """``log2k[r] = log2(r + 1)`` for ranks ``r <= k`` and ``inf`` beyond (index 0 unused).

    DCGs are summed as trec_eval and the list kernels sum them, ``label / log2(r+1)`` in rank
    order (not ``label * (1/log2(r+1))``, which rounds differently): the same bits on both
    paths, from the list kernels' own table (:func:`~rankaudit.measures.list_support.list_tables`);
    past the cutoff a label over ``inf`` adds ``0.0``, which changes no sum."""
    out = list_tables(max(max_len, 1)).log2r.copy()
    out[min(k, len(out) - 1) + 1 :] = np.inf
    return out


def harmonic_tables(max_len: int) -> tuple[np.ndarray, np.ndarray]:
    """``h1[r] = sum_{q<=r} 1/q`` and ``h2[r] = sum_{q<=r} 1/q**2`` for ``r = 0..max_len``."""
    r = np.arange(1, max_len + 1, dtype=np.float64)
    h1 = np.concatenate(([0.0], np.cumsum(1.0 / r)))
    h2 = np.concatenate(([0.0], np.cumsum(1.0 / (r * r))))
    return h1, h2


@numba.njit(cache=True, inline="always")
def row_bounds(row, row_len, offsets):  # pragma: no cover - compiled
    """``(start, length)`` of ``row``: ``row_len >= 0`` means rectangular rows of that
    length (``offsets`` unused), ``-1`` means ragged rows delimited by ``offsets``."""
    if row_len >= 0:
        return row * row_len, row_len
    a = offsets[row]
    return a, offsets[row + 1] - a


@numba.njit(cache=True)
def collect_relevant(labels, a, n, rel):  # pragma: no cover - compiled
    """Positions of relevant candidates (label > 0) of one row into ``rel``.

    Returns ``(m, bad)``: the number of relevant items and the position of the
    first negative, NaN, infinite or too large (>= ``MAX_LABEL``) label (-1 if none).
    """
    m = 0
    for j in range(n):
        lab = labels[a + j]
        if not (lab >= 0 and lab < MAX_LABEL):
            return m, j
        if lab > 0:
            rel[m] = j
            m += 1
    return m, -1


@numba.njit(cache=True, inline="always")
def padded_stop(a, n, size):  # pragma: no cover - compiled
    """End of a row's scan rounded up to a multiple of 8 candidates, when that stays
    inside the flat array (else ``n``).

    The SIMD scans below read whole 8-lane vectors past the row's end (into the
    next row) and mask those lanes out, instead of running a scalar remainder
    loop: with AVX2 a row of 31 candidates is then 4 vector steps rather than 3
    vector steps and 7 scalar ones (about 1.4x faster end to end).
    """
    un = numba.uint64(n)
    up = (un + numba.uint64(7)) & ~numba.uint64(7)
    if numba.uint64(a) + up > numba.uint64(size):
        return un
    return up


@numba.njit(cache=True, inline="always")
def scan_labels(labels, a, n):  # pragma: no cover - compiled
    """One branch-free (SIMD) pass over a row's labels: ``(m, w, bad)``.

    ``m`` = number of relevant labels (> 0), ``w`` = sum of their positions
    (so ``w`` *is* the position when ``m == 1``), ``bad`` = number of negative
    or NaN labels.  Counters are int32, lanes past the row end are masked
    (:func:`padded_stop`) so that LLVM vectorises the loop even for rows of
    ~30 candidates.
    """
    base = numba.uint64(a)
    nn = np.int32(n)
    m = np.int32(0)
    w = np.int32(0)
    bad = np.int32(0)
    for j in range(padded_stop(a, n, labels.size)):
        keep = -np.int32(np.int32(j) < nn)  # all ones inside the row, 0 past its end
        lab = labels[base + j]
        isr = np.int32(lab > 0) & keep
        m = np.int32(m + isr)
        w = np.int32(w + isr * np.int32(j))
        bad = np.int32(bad + (np.int32(not ((lab >= 0) & (lab < MAX_LABEL))) & keep))
    return m, w, bad


@numba.njit(cache=True, inline="always")
def relevant_positions(labels, a, n, rel):  # pragma: no cover - compiled
    """Positions of a row's relevant candidates into ``rel[:m]``: ``(m, bad)``.

    One SIMD pass (:func:`scan_labels`) settles rows with at most one relevant
    item; rows with several take a second, scalar pass.  ``bad`` is the position
    of the first negative or NaN label, or -1.
    """
    m, w, n_bad = scan_labels(labels, a, n)
    if n_bad > 0:
        return m, collect_relevant(labels, a, n, rel)[1]
    if m == 1:
        rel[0] = w
    elif m > 1:
        collect_relevant(labels, a, n, rel)
    return m, -1


@numba.njit(cache=True, inline="always")
def scan_row(labels, scores, a, n, s):  # pragma: no cover - compiled
    """:func:`scan_labels` and :func:`count_above_equal` (against a guessed score ``s``)
    fused into one SIMD pass: ``(m, w, bad_labels, #scores > s, #scores == s, #non-finite)``."""
    base = numba.uint64(a)
    nn = np.int32(n)
    m = np.int32(0)
    w = np.int32(0)
    bad = np.int32(0)
    gt = np.int32(0)
    eq = np.int32(0)
    nonfinite = np.int32(0)
    for j in range(padded_stop(a, n, min(labels.size, scores.size))):
        keep = -np.int32(np.int32(j) < nn)
        lab = labels[base + j]
        isr = np.int32(lab > 0) & keep
        m = np.int32(m + isr)
        w = np.int32(w + isr * np.int32(j))
        bad = np.int32(bad + (np.int32(not ((lab >= 0) & (lab < MAX_LABEL))) & keep))
        x = scores[base + j]
        gt = np.int32(gt + (np.int32(x > s) & keep))
        eq = np.int32(eq + (np.int32(x == s) & keep))
        nonfinite = np.int32(nonfinite + (np.int32((x - x) != 0) & keep))
    return m, w, bad, np.int64(gt), np.int64(eq), nonfinite


@numba.njit(cache=True)
def first_nonfinite(scores, a, n):  # pragma: no cover - compiled
    """Position of the first NaN / infinite score of one row, or -1."""
    for j in range(n):
        x = scores[a + j]
        if (x - x) != 0.0:
            return j
    return -1


@numba.njit(cache=True, inline="always")
def count_above_equal(scores, a, n, s):  # pragma: no cover - compiled
    """One branch-free (SIMD, masked tail) pass: ``(#scores > s, #scores == s, #non-finite)``."""
    base = numba.uint64(a)
    nn = np.int32(n)
    gt = np.int32(0)
    eq = np.int32(0)
    bad = np.int32(0)
    for j in range(padded_stop(a, n, scores.size)):
        keep = -np.int32(np.int32(j) < nn)
        x = scores[base + j]
        gt = np.int32(gt + (np.int32(x > s) & keep))
        eq = np.int32(eq + (np.int32(x == s) & keep))
        bad = np.int32(bad + (np.int32((x - x) != 0) & keep))
    return np.int64(gt), np.int64(eq), bad


# Rows with more relevant items than this sort them with two stable merge sorts, not by
# insertion (the same order: score desc, label desc, input order among equals).
INSERTION_SORT_MAX = 32

# Rows with more relevant tie blocks than this count each block's (g, t) by binary search in a
# sorted copy of the row (O(n log n)), not by one pass over the row per block (O(n * blocks)).
BLOCK_PASSES_MAX = 8


@numba.njit(cache=True)
def sort_relevant_canonical(rel, m, scores, labels, a):  # pragma: no cover - compiled
    """Sort ``rel[:m]`` by (score desc, label desc), equal pairs in input order: an order
    that does not depend on the input order of the candidates (ties of both are
    interchangeable for every metric).  Insertion sort for short lists, two stable merge
    sorts (label, then score) beyond ``INSERTION_SORT_MAX``: the same order either way."""
    if m > INSERTION_SORT_MAX:
        key = np.empty(m, np.float64)
        for i in range(m):
            key[i] = -float(labels[a + rel[i]])
        by_label = np.argsort(key, kind="mergesort")
        for i in range(m):
            key[i] = -scores[a + rel[by_label[i]]]
        by_score = np.argsort(key, kind="mergesort")
        old = rel[:m].copy()
        for i in range(m):
            rel[i] = old[by_label[by_score[i]]]
        return
    for i in range(1, m):
        v = rel[i]
        sv = scores[a + v]
        lv = labels[a + v]
        j = i - 1
        while j >= 0:
            u = rel[j]
            su = scores[a + u]
            if su > sv or (su == sv and labels[a + u] >= lv):
                break
            rel[j + 1] = u
            j -= 1
        rel[j + 1] = v


@numba.njit(cache=True)
def relevant_blocks(scores, a, n, rel, m, blk_start, blk_g, blk_t):  # pragma: no cover
    """Group the sorted ``rel[:m]`` into tie blocks: block ``b`` holds ``rel[blk_start[b]:
    blk_start[b + 1]]``, has ``blk_g[b]`` candidates scored strictly above it and
    ``blk_t[b]`` candidates tied with it.  Returns ``(n_blocks, bad)``, ``bad`` the position
    of a non-finite score of the row or -1.  O(n) for a few blocks, O(n log n) for many."""
    nb = 0
    i = 0
    while i < m:
        s = scores[a + rel[i]]
        blk_start[nb] = i
        e = i + 1
        while e < m and scores[a + rel[e]] == s:
            e += 1
        nb += 1
        i = e
    blk_start[nb] = m
    if nb <= BLOCK_PASSES_MAX:
        for b in range(nb):
            g, t, nbad = count_above_equal(scores, a, n, scores[a + rel[blk_start[b]]])
            if nbad > 0:
                return nb, first_nonfinite(scores, a, n)
            blk_g[b] = g
            blk_t[b] = t
        return nb, -1
    bad = first_nonfinite(scores, a, n)
    if bad >= 0:
        return nb, bad
    srt = np.sort(scores[a : a + n])
    for b in range(nb):
        s = scores[a + rel[blk_start[b]]]
        lo = np.searchsorted(srt, s, side="left")
        hi = np.searchsorted(srt, s, side="right")
        blk_g[b] = n - hi
        blk_t[b] = hi - lo
    return nb, -1


@numba.njit(cache=True)
def ideal_dcg(rel, m, labels, a, log2k, gains):  # pragma: no cover - compiled
    """IDCG@k of a row: its relevant labels sorted descending, each divided by
    ``log2k[rank]`` (:func:`log2_table`; linear gain), summed in rank order."""
    for i in range(m):
        gains[i] = labels[a + rel[i]]
    if m > INSERTION_SORT_MAX:  # the same values in the same order as the insertion sort
        gains[:m] = np.sort(gains[:m])[::-1]
    for i in range(1, m if m <= INSERTION_SORT_MAX else 0):
        v = gains[i]
        j = i - 1
        while j >= 0 and gains[j] < v:
            gains[j + 1] = gains[j]
            j -= 1
        gains[j + 1] = v
    total = 0.0
    for i in range(m):
        total += gains[i] / log2k[i + 1]
    return total


@numba.njit(cache=True)
def sort_by_rank(ranks, gains, m):  # pragma: no cover - compiled
    """Insertion-sort the pairs (ranks[:m], gains[:m]) by ascending rank, so that sums
    over relevant items run in rank order (bitwise row-order invariant).  Ranks are
    distinct, so a merge sort beyond ``INSERTION_SORT_MAX`` gives the same order."""
    if m > INSERTION_SORT_MAX:
        order = np.argsort(ranks[:m], kind="mergesort")
        ranks[:m] = ranks[:m][order]
        gains[:m] = gains[:m][order]
        return
    for i in range(1, m):
        r = ranks[i]
        gv = gains[i]
        j = i - 1
        while j >= 0 and ranks[j] > r:
            ranks[j + 1] = ranks[j]
            gains[j + 1] = gains[j]
            j -= 1
        ranks[j + 1] = r
        gains[j + 1] = gv
