r"""numba kernels of every declared measure over ranked lists, under every tie rule.

Inputs come in four named groups (:class:`ListDocs`, :class:`QueryJudgments`,
:class:`MeasureSpec`, :class:`Tables`), not as positional arrays, and measure codes are the
names below, which :mod:`rankaudit.measures.registry` refers to by name.

- ``ListDocs``: a CSR batch of queries: query ``q`` holds documents
  ``offsets[q]:offsets[q+1]`` with ``scores``, qrels ``labels`` (int64) and ``judged`` flags
  (an unjudged document has no label); ``order`` holds, per query, the positions by score
  descending (ties in input order), from :func:`score_order_kernel`.
- ``QueryJudgments``: every qrels label of query ``q`` (retrieved or not), decreasing:
  ``labels[offsets[q]:offsets[q+1]]``.  ``R`` and ``N`` at any level and IDCG under any gain
  come from them.
- ``MeasureSpec``: per measure ``j``: ``codes[j]``, ``cutoffs[j]`` (0 = none),
  ``levels[j]`` (label >= level is relevant), ``reals[j]`` (RBP's ``p``), ``ints[j]`` (ERR's
  ``max_grade``; RBP: ``RBP_GRADED``, or 0 for binary), ``gain_kind[j]`` (0 linear, 1
  ``2**rel - 1``, 2 a map held in ``map_keys/map_gains[map_offsets[j]:map_offsets[j+1]]``;
  unmapped labels keep their value).
  Exponential gains of a query whose top label exceeds ``EXP_GAIN_TOP`` (960) are summed
  scaled by a power of two (``gain_shift``): ``2**1100 - 1`` overflows a double, and nDCG is a
  ratio of two sums that the same power of two scales alike, so its value does not change.
- ``Tables``: ``log2r[r] = log2(r+1)``, ``cum_disc[r] = sum_{q<=r} 1/log2(q+1)`` and harmonic
  numbers ``harmonic[r]``.

``list_ordered_kernel`` ranks every query by score, ties by ``keys`` ascending (the rule's key:
docno order for trec_eval, file position for input order, hash, a measure's utility for the
bounds) and sums in rank order with trec_eval's arithmetic (``gain / log2(r+1)``,
``rel_so_far / r``), so values agree with trec_eval to the last bits.

``list_expected_kernel`` is the exact mean over uniform random orders of every tie block
(McSherry & Najork, ECIR 2008, for the classic measures).  For a block of ``t`` documents
after ``g`` better ones, with ``m`` relevant documents (gain sum ``G``), ``A`` relevant
documents above it and ``c = clip(k - g, 0, t)`` of its places inside the cutoff:

- nDCG: ``E[DCG@k] += G (C(min(g+t,k)) - C(min(g,k))) / t``, ``C = cum_disc``;
- P@k, R@k, NumRelRet@k: ``E[#relevant in top k] += m c / t``; Rprec the same with ``k = R``;
  Judged@k with the block's judged count for ``m`` (over ``min(n, k)``, not random);
- Success@k: ``P(no relevant in top k) *= C(t-m, c) / C(t, c)`` (hypergeometric) and
  RR@k: the first block with ``m > 0``: ``sum_{j=1}^{min(t-m+1, k-g)} C(t-j, m-1)/C(t, m)/(g+j)``,
  both derived once, in :mod:`rankaudit.measures.expectations` (the row kernels use them too);
- AP@k: a relevant document at block place ``j`` has ``A + 1 + X`` relevant ones at or above
  it, ``E[X | j] = (j-1)(m-1)/(t-1)``, so the block adds
  ``(m/t)[(A+1) dH + (m-1)/(t-1) (c - (g+1) dH)]`` to ``R E[AP@k]``, ``dH = H_{g+c} - H_g``
  (``sum_{j<=c} (j-1)/(g+j) = c - (g+1) dH``); ``AP`` is ``c = t``;
- RBP(p)@k: linear in ranks: ``(1-p) (G/t) sum_{r=g+1}^{g+c} p^(r-1) = (G/t) p^g (1 - p^c)``,
  ``G`` the block's gain sum (graded: its relevant labels; ``RBP(rel=l)``: its count ``m``);
  its residual the same with the block's unjudged count, plus ``p^n``;
- bpref: a relevant document of a block holding ``b`` judged non-relevant ones has
  ``N_above + Y`` of them above it, ``Y`` uniform on ``0..b`` (its place among those ``b+1``
  documents is uniform), so the block adds ``m/(b+1) sum_{y=0}^{b} f(N_above + y)``,
  ``f(x) = 1 - min(x, R)/min(N, R)`` (1 when ``min(N, R) = 0``);
- ERR@k: with ``a_i = 1 - R_i``, the survival into a block ``S`` is the product of ``a`` over
  every document above it, whatever their order.  Inside the block,
  ``E[R_{pi(j)} prod_{i<j} a_{pi(i)}] = F_{j-1} - F_j`` with ``F_s`` the mean of ``prod a``
  over a uniformly random ``s``-subset of the block (because ``R = 1 - a``), so the block adds
  ``S sum_{j=1}^{c} (F_{j-1} - F_j) / (g+j)``.  ``F`` comes from the recurrence over the
  block's documents ``f_s <- ((n-s)/n) f_s + (s/n) a_n f_{s-1}`` (a convex combination: no
  overflow, no cancellation), O(t c) per block: exact, a dynamic programme over the tie block.

Tests hold both kernels to :mod:`rankaudit.measures.list_reference`, to enumeration of every
tie order, and to pytrec_eval / ir_measures.  Queries are independent and run in parallel
(``numba.prange``); each query's arithmetic is sequential, so values do not depend on the
number of threads.
"""

from __future__ import annotations

import numba
import numpy as np

from rankaudit.measures import expectations, list_support
from rankaudit.measures.expectations import first_relevant_block, miss_after_block
from rankaudit.measures.kernel_cache import refresh_stale_cache
from rankaudit.measures.list_support import (
    RBP_GRADED,
    bpref_term,
    err_block,
    err_r,
    gain,
    gain_shift,
    ideal_dcg,
    level_counts,
    tie_sorted,
)

__all__ = [
    "AP",
    "BPREF",
    "ERR",
    "JUDGED",
    "NDCG",
    "NUMREL",
    "NUMRELRET",
    "NUMRET",
    "N_CODES",
    "P",
    "R",
    "RBP",
    "RBPRES",
    "RPREC",
    "RR",
    "SUCCESS",
    "check_codes",
    "list_expected_kernel",
    "list_ordered_kernel",
]

#: The measure codes: a family's ``kernel`` (:mod:`rankaudit.measures.families`) is one of these,
#: and each has a branch in both kernels below (a new measure adds its code here).
NDCG, P, R, AP, RR, SUCCESS = 0, 1, 2, 3, 4, 5
RPREC, JUDGED, NUMRET, NUMREL, NUMRELRET, RBP, RBPRES, ERR, BPREF = 6, 7, 8, 9, 10, 11, 12, 13, 14
#: the kernels know the codes ``0 .. N_CODES - 1``; any other is refused (:func:`check_codes`)
N_CODES = 15


@numba.njit(cache=True)
def check_codes(spec):  # pragma: no cover - compiled
    """Raise ValueError when a measure code is not one the kernels know (no default branch:
    an unknown code is never computed as another measure).  Called before the parallel loop,
    where an exception propagates cleanly."""
    for j in range(len(spec.codes)):
        if spec.codes[j] < 0 or spec.codes[j] >= N_CODES:
            raise ValueError("the list kernels do not know this measure code")


@numba.njit(cache=True)
def _ordered_value(rl, rj, n, judg, q, spec, j, tables, counts):  # pragma: no cover
    """Measure ``j`` of query ``q`` whose documents, in rank order, have labels ``rl`` and
    judged flags ``rj``; ``counts[j]`` is ``(R, N)`` at the measure's level."""
    code = spec.codes[j]
    k = spec.cutoffs[j]
    kk = n if (k == 0 or k > n) else k
    level = spec.levels[j]
    big_r, big_n = counts[j]
    log2r = tables.log2r
    if code == NDCG:
        idcg = ideal_dcg(judg, q, spec, j, log2r)
        if idcg <= 0:
            return 0.0
        shift = gain_shift(judg, q, spec, j)
        dcg = 0.0
        for r in range(kk):
            gv = gain(rl[r], rj[r], spec, j, shift)
            if gv > 0:
                dcg += gv / log2r[r + 1]
        return dcg / idcg
    if code == NUMRET:
        return float(kk)
    if code == NUMREL:
        return float(big_r)
    if code == JUDGED:
        cnt = 0
        for r in range(kk):
            if rj[r]:
                cnt += 1
        return cnt / kk if kk > 0 else 0.0
    if code == RBPRES:
        p = spec.reals[j]
        total = 0.0
        w = 1.0
        for r in range(n):
            if not rj[r]:
                total += w
            w *= p
        return (1.0 - p) * total + w
    if code == ERR:
        total = 0.0
        survive = 1.0
        for r in range(kk):
            pr = err_r(rl[r], rj[r], spec.ints[j])
            total += survive * pr / (r + 1.0)
            survive *= 1.0 - pr
        return total
    if code == BPREF:
        so_far = 0
        total = 0.0
        for r in range(n):
            if not rj[r] or rl[r] < 0:
                continue
            if rl[r] < level:
                so_far += 1
            else:
                total += bpref_term(so_far, big_r, big_n)
        return total / big_r if big_r > 0 else 0.0
    if code == RPREC:
        kk = n if big_r > n else big_r
    if code == RBP:
        p = spec.reals[j]
        graded = spec.ints[j] == RBP_GRADED
        total = 0.0
        w = 1.0
        for r in range(kk):
            if rj[r] and rl[r] >= level:
                if not graded:
                    total += w
                elif rl[r] > 0:
                    total += rl[r] * w
            w *= p
        return (1.0 - p) * total
    if code == AP:
        so_far = 0
        total = 0.0
        for r in range(kk):
            if rj[r] and rl[r] >= level:
                so_far += 1
                total += so_far / (r + 1.0)
        return total / big_r if big_r > 0 else 0.0
    if code == RR:
        for r in range(kk):
            if rj[r] and rl[r] >= level:
                return 1.0 / (r + 1.0)
        return 0.0
    cnt = 0
    for r in range(kk):
        if rj[r] and rl[r] >= level:
            cnt += 1
    if code == P:
        return cnt / k
    if code == R or code == RPREC:
        return cnt / big_r if big_r > 0 else 0.0
    if code == SUCCESS:
        return 1.0 if cnt > 0 else 0.0
    if code == NUMRELRET:
        return float(cnt)
    raise ValueError("the list kernels do not know this measure code")


@numba.njit(cache=True, parallel=True)
def list_ordered_kernel(docs, judg, spec, tables, keys, out):  # pragma: no cover - compiled
    """Fill ``out[q, j]`` with measure ``j`` of query ``q`` in the order of ``keys``; an
    unknown measure code raises ValueError."""
    check_codes(spec)
    nq = len(docs.offsets) - 1
    nm = len(spec.codes)
    for q in numba.prange(nq):
        a = docs.offsets[q]
        n = docs.offsets[q + 1] - a
        order = tie_sorted(docs.order, docs.scores, keys, a, n)
        rl = np.empty(n, np.int64)
        rj = np.empty(n, np.bool_)
        for r in range(n):
            rl[r] = docs.labels[a + order[r]]
            rj[r] = docs.judged[a + order[r]]
        counts = level_counts(judg, q, spec)
        for j in range(nm):
            out[q, j] = _ordered_value(rl, rj, n, judg, q, spec, j, tables, counts)


@numba.njit(cache=True, parallel=True)
def list_expected_kernel(docs, judg, spec, tables, out):  # pragma: no cover - compiled
    """Fill ``out[q, j]`` with the exact expectation of measure ``j`` over random tie orders;
    an unknown measure code raises ValueError."""
    check_codes(spec)
    nq = len(docs.offsets) - 1
    nm = len(spec.codes)
    cum_disc = tables.cum_disc
    harmonic = tables.harmonic
    for q in numba.prange(nq):
        a = docs.offsets[q]
        n = docs.offsets[q + 1] - a
        order = docs.order[a : a + n]
        acc = np.zeros(nm)
        state = np.ones(nm)  # Success: P(miss); ERR: survival into the block
        above = np.zeros(nm, np.int64)  # relevant (bpref: judged non-relevant) above the block
        done = np.zeros(nm, np.bool_)  # RR: its first relevant block is past
        counts = level_counts(judg, q, spec)
        big_r = np.empty(nm, np.int64)
        big_n = np.empty(nm, np.int64)
        shift = np.empty(nm, np.int64)
        for j in range(nm):
            big_r[j], big_n[j] = counts[j]
            shift[j] = gain_shift(judg, q, spec, j)
        avals = np.empty(n)
        scratch = np.empty(n + 1)
        i = 0
        while i < n:
            s = docs.scores[a + order[i]]
            e = i
            while e < n and docs.scores[a + order[e]] == s:
                e += 1
            g = i
            t = e - i
            for j in range(nm):
                code = spec.codes[j]
                if code == NUMRET or code == NUMREL:
                    continue
                k = spec.cutoffs[j]
                level = spec.levels[j]
                if code == RPREC:
                    k = big_r[j]
                kk = k if k > 0 else g + t
                c = min(max(kk - g, 0), t)
                if code == ERR:
                    if c > 0 and state[j] > 0.0:
                        for x in range(t):
                            d = a + order[i + x]
                            avals[x] = 1.0 - err_r(docs.labels[d], docs.judged[d], spec.ints[j])
                        part, whole = err_block(avals, t, c, g, scratch)
                        acc[j] += state[j] * part
                        state[j] *= whole
                    continue
                m = 0
                b = 0
                u = 0
                gsum = 0.0
                for x in range(t):
                    d = a + order[i + x]
                    lab = docs.labels[d]
                    jd = docs.judged[d]
                    if code == NDCG:
                        gsum += gain(lab, jd, spec, j, shift[j])
                    elif not jd:
                        u += 1
                    elif lab >= level:
                        m += 1
                        if lab > 0:
                            gsum += lab  # graded RBP's gain
                    elif lab >= 0:
                        b += 1
                if code == NDCG:
                    if gsum > 0:
                        hi = g + t if (k == 0 or g + t < k) else k
                        lo = g if (k == 0 or g < k) else k
                        acc[j] += gsum * (cum_disc[hi] - cum_disc[lo]) / t
                elif code == JUDGED:
                    acc[j] += (t - u) * c / t
                elif code == RBP:
                    p = spec.reals[j]
                    weight = gsum if spec.ints[j] == RBP_GRADED else m
                    acc[j] += weight / t * p**g * (1.0 - p**c)
                elif code == RBPRES:
                    p = spec.reals[j]
                    acc[j] += u / t * p**g * (1.0 - p**t)
                elif code == BPREF:
                    if m > 0:
                        total = 0.0
                        for y in range(b + 1):
                            total += bpref_term(above[j] + y, big_r[j], big_n[j])
                        acc[j] += m * total / (b + 1.0)
                    above[j] += b
                elif code == SUCCESS:
                    if m > 0 and state[j] > 0.0:
                        state[j] = miss_after_block(state[j], t, m, c)
                elif code == AP:
                    if m > 0 and c > 0:
                        dh = harmonic[g + c] - harmonic[g]
                        block = (above[j] + 1.0) * dh
                        if t > 1:
                            block += (m - 1.0) / (t - 1.0) * (c - (g + 1.0) * dh)
                        acc[j] += m / t * block
                    above[j] += m
                elif code == RR:
                    if m > 0 and not done[j]:
                        acc[j] += first_relevant_block(g, t, m, c, harmonic, harmonic)[0]
                        done[j] = True
                elif code == P or code == R or code == RPREC or code == NUMRELRET:
                    acc[j] += m * c / t
            i = e
        for j in range(nm):
            code = spec.codes[j]
            k = spec.cutoffs[j]
            if code == NDCG:
                idcg = ideal_dcg(judg, q, spec, j, tables.log2r)
                out[q, j] = acc[j] / idcg if idcg > 0 else 0.0
            elif code == P:
                out[q, j] = acc[j] / k
            elif code == JUDGED:
                top = n if k > n else k
                out[q, j] = acc[j] / top if top > 0 else 0.0
            elif code == R or code == AP or code == RPREC or code == BPREF:
                out[q, j] = acc[j] / big_r[j] if big_r[j] > 0 else 0.0
            elif code == SUCCESS:
                out[q, j] = 1.0 - state[j]
            elif code == NUMRET:
                out[q, j] = float(n if (k == 0 or k > n) else k)
            elif code == NUMREL:
                out[q, j] = float(big_r[j])
            elif code == RBPRES:
                out[q, j] = acc[j] + spec.reals[j] ** n
            elif code == RR or code == ERR or code == RBP or code == NUMRELRET:
                out[q, j] = acc[j]


refresh_stale_cache(
    [_ordered_value, list_ordered_kernel, list_expected_kernel],
    [__file__, list_support.__file__, expectations.__file__],
)
