"""What the list kernels share (:mod:`rankaudit.measures.list_kernels`): the named input
groups, gains, counts, the score order and the small per-block routines.

numba's on-disk cache of the kernels follows edits of this module too: the kernel modules
refresh it at import (:mod:`rankaudit.measures.kernel_cache`).
"""

from __future__ import annotations

import math
from typing import NamedTuple

import numba
import numpy as np

__all__ = [
    "EXP_GAIN",
    "EXP_GAIN_TOP",
    "INSERTION_SORT_MAX",
    "LINEAR_GAIN",
    "MAPPED_GAIN",
    "RBP_GRADED",
    "ListDocs",
    "MeasureSpec",
    "QueryJudgments",
    "Tables",
    "bpref_term",
    "counts",
    "err_block",
    "err_r",
    "gain",
    "gain_shift",
    "ideal_dcg",
    "level_counts",
    "list_tables",
    "score_order_kernel",
    "tie_sorted",
]

LINEAR_GAIN, EXP_GAIN, MAPPED_GAIN = 0, 1, 2
#: ``MeasureSpec.ints[j]`` of an RBP without ``rel``: graded (a relevant document adds its
#: label, as ir_measures and ranx weight RBP); 0 is binary (``RBP(rel=l)``).
RBP_GRADED = 1
#: The largest binary exponent of a gain the kernels sum: an exponential gain ``2**label - 1``
#: of a query whose top label is above it is scaled by ``2**-(top - EXP_GAIN_TOP)`` (nDCG, a
#: ratio of two sums scaled alike by a power of two, keeps its value to the bit while nothing
#: underflows), and a mapped gain is refused above ``2**EXP_GAIN_TOP``; a sum of at most
#: 2**31 such gains over discounts <= 1 stays below the largest double (2**1024).
EXP_GAIN_TOP = 960
#: Tie blocks up to this size are re-sorted in place by insertion sort (no allocation); longer
#: blocks by a stable merge sort.  Both are stable, so the order is the same either way.
INSERTION_SORT_MAX = 32


class ListDocs(NamedTuple):
    """The retrieved documents, per query (module docstring)."""

    offsets: np.ndarray
    order: np.ndarray
    scores: np.ndarray
    labels: np.ndarray
    judged: np.ndarray


class QueryJudgments(NamedTuple):
    """Every qrels label of each query, decreasing."""

    offsets: np.ndarray
    labels: np.ndarray


class MeasureSpec(NamedTuple):
    """The measures, one entry each (module docstring)."""

    codes: np.ndarray
    cutoffs: np.ndarray
    levels: np.ndarray
    reals: np.ndarray
    ints: np.ndarray
    gain_kind: np.ndarray
    map_offsets: np.ndarray
    map_keys: np.ndarray
    map_gains: np.ndarray


class Tables(NamedTuple):
    """Lookup tables indexed by rank."""

    log2r: np.ndarray
    cum_disc: np.ndarray
    harmonic: np.ndarray


@numba.njit(cache=True, inline="always")
def gain_shift(judg, q, spec, j):  # pragma: no cover - compiled
    """The power of two by which measure ``j`` scales query ``q``'s gains down: for
    exponential gains ``max(0, top - EXP_GAIN_TOP)``, ``top`` the query's largest qrels label;
    0 otherwise (a linear gain is below 2**53, a mapped one below 2**EXP_GAIN_TOP)."""
    if spec.gain_kind[j] != EXP_GAIN:
        return 0
    lo = judg.offsets[q]
    if judg.offsets[q + 1] == lo:
        return 0
    top = judg.labels[lo]  # labels decreasing
    return top - EXP_GAIN_TOP if top > EXP_GAIN_TOP else 0


@numba.njit(cache=True, inline="always")
def gain(label, judged, spec, j, shift):  # pragma: no cover - compiled
    """The gain of a document under measure ``j`` (0 when unjudged or not positive); an
    exponential gain ``2**label - 1`` scaled by ``2**-shift`` (:func:`gain_shift`), computed
    as ``2**(label - shift) - 2**-shift`` so that it never overflows (exponents below -1100
    give 0, below the smallest double)."""
    if not judged:
        return 0.0
    kind = spec.gain_kind[j]
    if kind == LINEAR_GAIN:
        value = float(label)
    elif kind == EXP_GAIN:
        if label > 0:
            value = math.ldexp(1.0, max(label - shift, -1100)) - math.ldexp(1.0, max(-shift, -1100))
        else:
            value = 0.0
    else:
        value = float(label)
        for i in range(spec.map_offsets[j], spec.map_offsets[j + 1]):
            if spec.map_keys[i] == label:
                value = spec.map_gains[i]
                break
    return value if value > 0 else 0.0


@numba.njit(cache=True)
def ideal_dcg(judg, q, spec, j, log2r):  # pragma: no cover - compiled
    """IDCG(@k) of query ``q`` under measure ``j``'s gain: all its judged labels' gains,
    decreasing (scaled by ``2**-gain_shift``, as the query's DCG is)."""
    lo = judg.offsets[q]
    n = judg.offsets[q + 1] - lo
    shift = gain_shift(judg, q, spec, j)
    gains = np.empty(n)
    for i in range(n):
        gains[i] = gain(judg.labels[lo + i], True, spec, j, shift)
    if spec.gain_kind[j] == MAPPED_GAIN:  # a map need not keep the label order
        gains = np.sort(gains)[::-1]
    k = spec.cutoffs[j]
    top = n if (k == 0 or k > n) else k
    total = 0.0
    for i in range(top):
        if gains[i] > 0:
            total += gains[i] / log2r[i + 1]
    return total


@numba.njit(cache=True)
def counts(judg, q, level):  # pragma: no cover - compiled
    """``(R, N)``: qrels labels >= level, and in ``[0, level)`` (judged non-relevant)."""
    big_r = 0
    big_n = 0
    for i in range(judg.offsets[q], judg.offsets[q + 1]):
        lab = judg.labels[i]
        if lab >= level:
            big_r += 1
        elif lab >= 0:
            big_n += 1
    return big_r, big_n


@numba.njit(cache=True)
def level_counts(judg, q, spec):  # pragma: no cover - compiled
    """``(R, N)`` of query ``q`` for every measure, counted once per distinct level."""
    nm = len(spec.codes)
    out = []
    for j in range(nm):
        found = -1
        for i in range(j):
            if spec.levels[i] == spec.levels[j]:
                found = i
                break
        if found >= 0:
            out.append(out[found])
        else:
            out.append(counts(judg, q, spec.levels[j]))
    return out


@numba.njit(cache=True, inline="always")
def bpref_term(x, big_r, big_n):  # pragma: no cover - compiled
    """trec_eval's bpref credit of a relevant document with ``x`` judged non-relevant above."""
    if x == 0:
        return 1.0
    return 1.0 - min(x, big_r) / min(big_n, big_r)


@numba.njit(cache=True, parallel=True)
def score_order_kernel(offsets, scores):  # pragma: no cover - compiled
    """Per query, the positions ``0..n-1`` by score descending (stable), and a tie flag.

    ``order[offsets[q] + r]`` is the position (within query ``q``) of the document at rank
    ``r`` when ties keep input order; ``tied[q]`` is True when two documents share a score.
    Computed once per batch and shared by every rule.
    """
    nq = len(offsets) - 1
    order = np.empty(len(scores), np.int32)  # positions within one query
    tied = np.zeros(nq, np.bool_)
    for q in numba.prange(nq):
        a = offsets[q]
        n = offsets[q + 1] - a
        neg = np.empty(n)
        for i in range(n):
            neg[i] = -scores[a + i]
        local = np.argsort(neg, kind="mergesort")
        for i in range(n):
            order[a + i] = local[i]
            if i > 0 and neg[local[i]] == neg[local[i - 1]]:
                tied[q] = True
    return order, tied


@numba.njit(cache=True)
def tie_sorted(order, scores, keys, a, n):  # pragma: no cover - compiled
    """The query's score order with every tie block re-sorted by ``keys`` ascending."""
    out = order[a : a + n].copy()
    i = 0
    while i < n:
        s = scores[a + out[i]]
        e = i + 1
        while e < n and scores[a + out[e]] == s:
            e += 1
        if 1 < e - i <= INSERTION_SORT_MAX:
            for x in range(i + 1, e):  # stable insertion sort: the merge sort's order
                v = out[x]
                kv = keys[a + v]
                y = x - 1
                while y >= i and keys[a + out[y]] > kv:
                    out[y + 1] = out[y]
                    y -= 1
                out[y + 1] = v
        elif e - i > 1:
            kb = np.empty(e - i, np.int64)
            for q in range(e - i):
                kb[q] = keys[a + out[i + q]]
            sub = np.argsort(kb, kind="mergesort")
            tmp = out[i:e].copy()
            for q in range(e - i):
                out[i + q] = tmp[sub[q]]
        i = e
    return out


@numba.njit(cache=True)
def err_r(label, judged, max_grade):  # pragma: no cover - compiled
    """ERR's stopping probability ``(2**g - 1) / 2**max_grade`` of a document."""
    if not judged or label <= 0:
        return 0.0
    return (2.0 ** float(label) - 1.0) / 2.0 ** float(max_grade)


@numba.njit(cache=True)
def err_block(avals, t, c, g, scratch):  # pragma: no cover - compiled
    """``sum_{j=1}^{c} (F_{j-1} - F_j) / (g+j)`` for a block with ``a`` values ``avals[:t]``
    (``F_s``: mean of ``prod a`` over a random ``s``-subset; the recurrence of the module
    docstring), and ``prod a`` over the whole block."""
    f = scratch[: c + 1]
    f[0] = 1.0
    for s in range(1, c + 1):
        f[s] = 0.0
    for i in range(t):
        nn = i + 1.0
        a = avals[i]
        top = c if c < i + 1 else i + 1
        for s in range(top, 0, -1):
            f[s] = ((nn - s) / nn) * f[s] + (s / nn) * a * f[s - 1]
    total = 0.0
    for jj in range(1, c + 1):
        total += (f[jj - 1] - f[jj]) / (g + jj)
    whole = 1.0
    for i in range(t):
        whole *= avals[i]
    return total, whole


def list_tables(max_len: int) -> Tables:
    """The rank-indexed tables for lists of up to ``max_len`` documents."""
    size = max(max_len, 1) + 1
    r = np.arange(size, dtype=np.float64)
    log2r = np.log2(r + 1.0)  # log2r[r] = log2(r + 1): trec_eval divides by it
    disc = np.zeros(size)
    disc[1:] = 1.0 / log2r[1:]
    harmonic = np.zeros(size)
    harmonic[1:] = np.cumsum(1.0 / r[1:])
    return Tables(log2r, np.cumsum(disc), harmonic)
