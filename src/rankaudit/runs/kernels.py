r"""numba kernels of the run measures under every tie rule (the fast providers).

Input is a CSR batch of queries (:class:`rankaudit.runs.layout.QueryBatch`): query ``q``
holds documents ``offsets[q]:offsets[q+1]`` with ``scores``, ``gains`` (``max(rel, 0)``,
0 when unjudged) and ``relevant`` flags; its ideal gains (all positive qrels labels of the
query, decreasing) are ``ideal_gains[ideal_offsets[q]:ideal_offsets[q+1]]`` and ``n_rel[q]``
is ``R``.  Measures come as ``codes`` / ``cutoffs`` (0 = no cutoff) from
:class:`~rankaudit.runs.measures.Measure`; the output is ``(queries, measures)``.

``ordered_kernel``: documents sorted by score descending, ties by ``keys`` ascending (the
rule's tie-break key: docno order for trec_eval, file position for input order, hash, label
for the bounds).  The sums run in rank order with trec_eval's arithmetic (``gain / log2(r+1)``
and ``rel_so_far / r``), so values agree with trec_eval to the last bits.

``expected_kernel``: the exact expectation over uniform random orders within each tie block
(McSherry & Najork, ECIR 2008).  For a block of ``t`` documents after ``g`` better ones,
holding ``m`` relevant documents with gain sum ``G``, and ``A`` relevant documents above it,
with ``c = clip(k - g, 0, t)`` and harmonic numbers ``H``:

- ``E[DCG@k] += G (C(min(g+t,k)) - C(min(g,k))) / t``, ``C(r) = sum_{q<=r} 1/log2(q+1)``;
- ``E[#relevant in top k] += m c / t`` (P@k and R@k);
- ``P(no relevant in top k) *= C(t-m, c) / C(t, c)`` (Success@k, hypergeometric);
- RR: first block with ``m > 0``: ``sum_{j=1}^{t-m+1} C(t-j, m-1)/C(t, m) / (g+j)``;
- AP: a relevant document at block position ``j`` has ``A + 1 + X`` relevant documents at or
  above it, ``E[X | j] = (j-1)(m-1)/(t-1)`` (the other ``m-1`` relevant ones fill the other
  ``t-1`` places uniformly), so the block adds
  ``(m/t) [(A+1)(H_{g+t} - H_g) + (m-1)/(t-1) (t - (g+1)(H_{g+t} - H_g))]`` to ``R * E[AP]``
  (using ``sum_{j=1}^t (j-1)/(g+j) = t - (g+1)(H_{g+t} - H_g)``).

Tests hold both kernels to :mod:`rankaudit.runs.reference` and to enumeration of every tie
order.  ``score_order_kernel`` sorts each query by score once per batch; the rules only
re-sort inside tie blocks.  Queries are independent, so the kernels run them in parallel
(``numba.prange``); each query's arithmetic is sequential, so values do not depend on the
number of threads.
"""

from __future__ import annotations

import numba
import numpy as np

__all__ = [
    "AP",
    "NDCG",
    "P",
    "R",
    "RR",
    "SUCCESS",
    "expected_kernel",
    "ordered_kernel",
    "score_order_kernel",
]

NDCG, P, R, AP, RR, SUCCESS = 0, 1, 2, 3, 4, 5
#: Tie blocks up to this size are re-sorted in place by insertion sort (no allocation); longer
#: blocks by a stable merge sort.  Both are stable, so the order is the same either way.
INSERTION_SORT_MAX = 32


@numba.njit(cache=True)
def _ideal_dcg(ideal_gains, lo, hi, k, log2r):  # pragma: no cover - compiled
    n = hi - lo
    if k > 0 and k < n:
        n = k
    total = 0.0
    for i in range(n):
        total += ideal_gains[lo + i] / log2r[i + 1]
    return total


@numba.njit(cache=True, parallel=True)
def score_order_kernel(offsets, scores):  # pragma: no cover - compiled
    """Per query, the positions ``0..n-1`` by score descending (stable), and a tie flag.

    ``order[offsets[q] + r]`` is the position (within query ``q``) of the document at rank
    ``r`` when ties keep file order; ``tied[q]`` is True when two documents share a score.
    Computed once per batch and shared by every rule.
    """
    nq = len(offsets) - 1
    order = np.empty(len(scores), np.int64)
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
def _tie_sorted(order, scores, keys, a, n):  # pragma: no cover - compiled
    """The query's score order with every tie block re-sorted by ``keys`` ascending."""
    out = order[a : a + n].copy()
    i = 0
    while i < n:
        s = scores[a + out[i]]
        e = i + 1
        while e < n and scores[a + out[e]] == s:
            e += 1
        if 1 < e - i <= INSERTION_SORT_MAX:
            # stable insertion sort: the same order as the stable merge sort below
            for x in range(i + 1, e):
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


@numba.njit(cache=True, parallel=True)
def ordered_kernel(
    offsets,
    score_order,
    scores,
    gains,
    relevant,
    keys,
    ideal_offsets,
    ideal_gains,
    n_rel,
    codes,
    cutoffs,
    log2r,
    out,
):  # pragma: no cover - compiled
    """Fill ``out[q, j]`` with measure ``j`` of query ``q`` in the deterministic order."""
    nq = len(offsets) - 1
    nm = len(codes)
    for q in numba.prange(nq):
        a = offsets[q]
        n = offsets[q + 1] - a
        big_r = n_rel[q]
        if n == 0:
            for j in range(nm):
                out[q, j] = 0.0
            continue
        order = _tie_sorted(score_order, scores, keys, a, n)
        rg = np.empty(n)
        rr_ = np.empty(n, np.bool_)
        for r in range(n):
            rg[r] = gains[a + order[r]]
            rr_[r] = relevant[a + order[r]]
        for j in range(nm):
            code = codes[j]
            k = cutoffs[j]
            kk = n if (k == 0 or k > n) else k
            if code == NDCG:
                dcg = 0.0
                for r in range(kk):
                    if rg[r] > 0:
                        dcg += rg[r] / log2r[r + 1]
                idcg = _ideal_dcg(ideal_gains, ideal_offsets[q], ideal_offsets[q + 1], k, log2r)
                out[q, j] = dcg / idcg if idcg > 0 else 0.0
            elif code == P or code == R or code == SUCCESS:
                cnt = 0
                for r in range(kk):
                    if rr_[r]:
                        cnt += 1
                if code == P:
                    out[q, j] = cnt / k
                elif code == R:
                    out[q, j] = cnt / big_r if big_r > 0 else 0.0
                else:
                    out[q, j] = 1.0 if cnt > 0 else 0.0
            elif code == AP:
                so_far = 0
                total = 0.0
                for r in range(n):
                    if rr_[r]:
                        so_far += 1
                        total += so_far / (r + 1.0)
                out[q, j] = total / big_r if big_r > 0 else 0.0
            else:  # RR
                value = 0.0
                for r in range(n):
                    if rr_[r]:
                        value = 1.0 / (r + 1.0)
                        break
                out[q, j] = value


@numba.njit(cache=True, parallel=True)
def expected_kernel(
    offsets,
    score_order,
    scores,
    gains,
    relevant,
    ideal_offsets,
    ideal_gains,
    n_rel,
    codes,
    cutoffs,
    log2r,
    cum_disc,
    harmonic,
    out,
):  # pragma: no cover - compiled
    """Fill ``out[q, j]`` with the exact expectation of measure ``j`` over random tie orders."""
    nq = len(offsets) - 1
    nm = len(codes)
    for q in numba.prange(nq):
        a = offsets[q]
        n = offsets[q + 1] - a
        big_r = n_rel[q]
        if n == 0:
            for j in range(nm):
                out[q, j] = 0.0
            continue
        order = score_order[a : a + n]
        acc = np.zeros(nm)
        p_miss = np.ones(nm)
        above = 0  # relevant documents above the current block
        rr_value = 0.0
        rr_done = False
        i = 0
        while i < n:
            s = scores[a + order[i]]
            e = i
            m = 0
            gsum = 0.0
            while e < n and scores[a + order[e]] == s:
                if relevant[a + order[e]]:
                    m += 1
                gv = gains[a + order[e]]
                if gv > 0:
                    gsum += gv
                e += 1
            g = i
            t = e - i
            dh = harmonic[g + t] - harmonic[g]
            for j in range(nm):
                code = codes[j]
                k = cutoffs[j]
                if code == NDCG:
                    if gsum > 0:
                        hi = g + t if (k == 0 or g + t < k) else k
                        lo = g if (k == 0 or g < k) else k
                        acc[j] += gsum * (cum_disc[hi] - cum_disc[lo]) / t
                elif code == P or code == R:
                    c = min(max(k - g, 0), t)
                    acc[j] += m * c / t
                elif code == SUCCESS:
                    if m > 0 and p_miss[j] > 0.0:
                        c = min(max(k - g, 0), t)
                        if c > t - m:
                            p_miss[j] = 0.0
                        else:
                            for u in range(c):
                                p_miss[j] *= (t - m - u) / (t - u)
                elif code == AP:
                    if m > 0:
                        block = (above + 1.0) * dh
                        if t > 1:
                            block += (m - 1.0) / (t - 1.0) * (t - (g + 1.0) * dh)
                        acc[j] += m / t * block
            if m > 0 and not rr_done:
                if m == 1:
                    rr_value = dh / t
                else:
                    prob = m / t  # P(first relevant at block position 1)
                    for jj in range(1, t - m + 2):
                        rr_value += prob / (g + jj)
                        prob *= (t - jj - m + 1.0) / (t - jj)
                rr_done = True
            above += m
            i = e
        for j in range(nm):
            code = codes[j]
            if code == NDCG:
                idcg = _ideal_dcg(
                    ideal_gains, ideal_offsets[q], ideal_offsets[q + 1], cutoffs[j], log2r
                )
                out[q, j] = acc[j] / idcg if idcg > 0 else 0.0
            elif code == P:
                out[q, j] = acc[j] / cutoffs[j]
            elif code == R or code == AP:
                out[q, j] = acc[j] / big_r if big_r > 0 else 0.0
            elif code == SUCCESS:
                out[q, j] = 1.0 - p_miss[j]
            else:
                out[q, j] = rr_value
