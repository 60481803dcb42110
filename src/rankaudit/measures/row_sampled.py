"""The ``"random"`` rule: seeded uniform random tie orders, averaged over ``n_repeats``.

What is drawn
    The metrics depend on a tie order only through the ranks of the relevant
    items, and under a uniform random order inside a block of size ``t``
    (``g`` candidates strictly above it) the ``m`` relevant items of that
    block take ``m`` slots of ``g+1 .. g+t`` drawn uniformly *without
    replacement*.  The kernel draws exactly that (and nothing for the
    ``t - m`` non-relevant items), so no order is materialised: a repeat costs
    ``O(#relevant)`` draws after one pass over the row.  Repeats are looped
    inside the kernel, which accumulates per-row running means and squared
    deviations (Welford) and reports their mean and sample standard deviation
    (``ddof = 1``; the ``*_std`` columns, present when ``n_repeats > 1``).

Random stream (documented, deterministic, platform-independent)
    ``row_key = splitmix64(splitmix64(splitmix64(seed) ^ id64(user)) ^ RANDOM_DOMAIN)``
    with ``id64(user)`` as in :mod:`rankaudit.measures.hashing` (the row's user id,
    or its row position when no user ids are given).  Repeat ``r`` uses the
    SplitMix64 sequence started at ``splitmix64(row_key ^ r)``: draw ``q`` is
    ``u_q = mix64(state + (q + 1) * GAMMA)``, turned into an integer in
    ``[0, n)`` by ``floor((u_q >> 11) * 2**-53 * n)`` (bias below ``n / 2**53``).
    Draws are consumed in a canonical order: blocks by decreasing score and,
    inside a block, relevant items by decreasing label.

The list kernels' ``random`` (:func:`random_tie_keys`)
    Any measure of the registry under this rule (``rankaudit.evaluate(..., measures=)``)
    orders each tie block by the *same* draws: the relevant documents of a block, in the
    canonical order, take the slots drawn above, the other documents the free slots in input
    order (every non-relevant document of a row is judged with label 0, so their order among
    themselves changes no measure), and :func:`rankaudit.measures.list_evaluate.evaluate_sampled`
    scores each repeat with the ordered list kernel and averages them as this kernel does.  A
    row's tie orders are therefore the same on both paths, draw for draw.

What it depends on
    The result of a row depends only on ``(seed, user id or row position,
    repeat count)`` and on the row's multiset of (score, label) pairs, never on
    the order of its candidates, so the rule is row-order invariant exactly
    (not only in distribution), and it does not need item ids.  Without user
    ids, moving a row to another position of the batch changes its draws (the
    distribution is unchanged); pass ``user_ids`` to pin them.
"""

from __future__ import annotations

import numba
import numpy as np

from rankaudit.measures import hashing, row_support
from rankaudit.measures.hashing import GAMMA, mix64_nb, splitmix64_nb
from rankaudit.measures.kernel_cache import refresh_stale_cache
from rankaudit.measures.row_support import (
    BAD_LABEL,
    INSERTION_SORT_MAX,
    NONFINITE_SCORE,
    OK,
    first_nonfinite,
    ideal_dcg,
    relevant_blocks,
    relevant_positions,
    row_bounds,
    sort_relevant_canonical,
)

__all__ = ["RANDOM_DOMAIN", "random_tie_keys", "row_random_kernel"]

RANDOM_DOMAIN = 0x72616E646F6D7469  # ASCII "randomti": separates this stream from the hash rule
_TO_UNIT = 1.0 / 9007199254740992.0  # 2**-53


@numba.njit(cache=True)
def _draw_block_fenwick(state, gamma, g, t, mb, start, ranks, tree, best):  # pragma: no cover
    """The ``mb`` draws of one tie block of ``t`` slots, as the insertion loop of
    :func:`row_random_kernel` makes them (draw ``q`` takes the ``pos``-th still free slot, ``pos``
    uniform on ``0 .. t - q - 1``), with a Fenwick tree over the free slots: O(t + mb log t)
    instead of O(mb^2).  Writes the ranks; returns the best rank seen (``best`` included)."""
    for i in range(1, t + 1):
        tree[i] = i & (-i)  # every slot free: the tree of an all-ones array
    top = 1
    while top * 2 <= t:
        top *= 2
    for q in range(mb):
        state += gamma
        u = mix64_nb(state)
        pos = numba.int64((u >> numba.uint64(11)) * _TO_UNIT * (t - q))
        idx = 0
        rem = pos + 1
        step = top
        while step > 0:
            nxt = idx + step
            if nxt <= t and tree[nxt] < rem:
                idx = nxt
                rem -= tree[nxt]
            step //= 2
        j = idx + 1  # 1-based free slot; 0-based slot idx
        while j <= t:
            tree[j] -= 1
            j += j & (-j)
        r = g + 1 + idx
        ranks[start + q] = r
        if r < best:
            best = r
    return best


@numba.njit(cache=True)
def row_random_kernel(rows, k, n_repeats, row_keys, tables, out):  # pragma: no cover - compiled
    """Fill per-row means (and sample std when ``n_repeats > 1``) over random tie orders.

    ``row_keys[row]`` is the row's ``row_key`` (see module docstring).
    Returns ``(status, row, position)``; status 0 means every row was valid
    (labels finite, >= 0 and < ``MAX_LABEL``; scores finite).
    """
    n_rows, row_len, offsets, scores, labels = rows
    log2k = tables.log2k
    max_len = tables.max_len
    hr, ndcg, rr, hr_std, ndcg_std, rr_std, has_rel = out
    size = max(max_len, 1)
    rel = np.empty(size, np.int64)
    ideal = np.empty(size, np.float64)
    blk_start = np.empty(size + 1, np.int64)  # first index into rel of each block
    fenwick = np.empty(size + 1, np.int64)  # free slots of a block with many relevant items
    blk_g = np.empty(size, np.int64)
    blk_t = np.empty(size, np.int64)
    ranks = np.empty(size, np.int64)
    taken = np.empty(size, np.int64)
    gamma = numba.uint64(GAMMA)
    for row in range(n_rows):
        a, n = row_bounds(row, row_len, offsets)
        m, bad = relevant_positions(labels, a, n, rel)
        if bad >= 0:
            return BAD_LABEL, row, bad
        has_rel[row] = m > 0
        if m == 0:
            bad = first_nonfinite(scores, a, n)
            if bad >= 0:
                return NONFINITE_SCORE, row, bad
            hr[row] = 0.0
            ndcg[row] = 0.0
            rr[row] = 0.0
            if n_repeats > 1:
                hr_std[row] = 0.0
                ndcg_std[row] = 0.0
                rr_std[row] = 0.0
            continue
        if m > 1:
            sort_relevant_canonical(rel, m, scores, labels, a)
        idcg = ideal_dcg(rel, m, labels, a, log2k, ideal)
        n_blocks, bad = relevant_blocks(scores, a, n, rel, m, blk_start, blk_g, blk_t)
        if bad >= 0:
            return NONFINITE_SCORE, row, bad

        row_key = row_keys[row]
        mean_hr = 0.0
        mean_ndcg = 0.0
        mean_rr = 0.0
        m2_hr = 0.0
        m2_ndcg = 0.0
        m2_rr = 0.0
        for rep in range(n_repeats):
            state = splitmix64_nb(row_key ^ numba.uint64(rep))
            best = n + 1
            dcg = 0.0
            for b in range(n_blocks):
                t = blk_t[b]
                g = blk_g[b]
                mb = blk_start[b + 1] - blk_start[b]
                if mb > INSERTION_SORT_MAX:
                    best = _draw_block_fenwick(
                        state, gamma, g, t, mb, blk_start[b], ranks, fenwick, best
                    )
                    state += gamma * numba.uint64(mb)
                    continue
                for q in range(mb):
                    state += gamma
                    u = mix64_nb(state)
                    pos = numba.int64((u >> numba.uint64(11)) * _TO_UNIT * (t - q))
                    # the pos-th free slot of the block, keeping ``taken`` sorted
                    w = 0
                    while w < q and taken[w] <= pos:
                        pos += 1
                        w += 1
                    for z in range(q, w, -1):
                        taken[z] = taken[z - 1]
                    taken[w] = pos
                    r = g + 1 + pos
                    ranks[blk_start[b] + q] = r
                    if r < best:
                        best = r
            for q in range(m):
                dcg += labels[a + rel[q]] / log2k[ranks[q]]
            x_hr = 1.0 if best <= k else 0.0
            x_ndcg = dcg / idcg
            x_rr = 1.0 / best
            # Welford running mean and sum of squared deviations
            cnt = rep + 1.0
            d = x_hr - mean_hr
            mean_hr += d / cnt
            m2_hr += d * (x_hr - mean_hr)
            d = x_ndcg - mean_ndcg
            mean_ndcg += d / cnt
            m2_ndcg += d * (x_ndcg - mean_ndcg)
            d = x_rr - mean_rr
            mean_rr += d / cnt
            m2_rr += d * (x_rr - mean_rr)
        hr[row] = mean_hr
        ndcg[row] = mean_ndcg
        rr[row] = mean_rr
        if n_repeats > 1:
            hr_std[row] = np.sqrt(max(m2_hr, 0.0) / (n_repeats - 1))
            ndcg_std[row] = np.sqrt(max(m2_ndcg, 0.0) / (n_repeats - 1))
            rr_std[row] = np.sqrt(max(m2_rr, 0.0) / (n_repeats - 1))
    return OK, -1, -1


@numba.njit(cache=True, parallel=True)
def random_tie_keys(offsets, order, scores, labels, row_keys, rep, keys):  # pragma: no cover
    """Repeat ``rep``'s tie order of every query as sort keys: ``keys[offsets[q] + i]`` is the
    slot (``0 .. t-1``) of document ``i`` of query ``q`` inside its tie block of ``t``.

    ``order`` is :func:`rankaudit.measures.list_support.score_order_kernel`'s (positions by
    score descending, ties in input order), ``row_keys[q]`` the query's ``row_key`` (module
    docstring).  The relevant documents (label > 0) of each block, by label descending (equal
    labels in input order), take the slots :func:`row_random_kernel` draws for them, from the
    same stream consumed in the same order (blocks by decreasing score); the other documents
    take the free slots in input order.  Queries run in parallel; each query's draws are
    sequential, so the keys do not depend on the number of threads.
    """
    gamma = numba.uint64(GAMMA)
    for q in numba.prange(len(offsets) - 1):
        a = offsets[q]
        n = offsets[q + 1] - a
        state = splitmix64_nb(row_keys[q] ^ numba.uint64(rep))
        tree = np.empty(n + 1, np.int64)
        slots = np.empty(n, np.int64)
        rel = np.empty(n, np.int64)
        neg = np.empty(n, np.float64)
        free = np.empty(n, np.bool_)
        i = 0
        while i < n:
            s = scores[a + order[a + i]]
            e = i + 1
            while e < n and scores[a + order[a + e]] == s:
                e += 1
            t = e - i
            mb = 0
            for x in range(i, e):
                p = order[a + x]
                if labels[a + p] > 0:
                    rel[mb] = p
                    mb += 1
            if mb == 0:
                for x in range(i, e):
                    keys[a + order[a + x]] = x - i
                i = e
                continue
            if mb > 1:  # the canonical order: label descending, then input order
                for z in range(mb):
                    neg[z] = -float(labels[a + rel[z]])
                by_label = np.argsort(neg[:mb], kind="mergesort")
                rel[:mb] = rel[:mb][by_label]
            _draw_block_fenwick(state, gamma, 0, t, mb, 0, slots, tree, t + 1)
            state += gamma * numba.uint64(mb)
            for z in range(t):
                free[z] = True
            for z in range(mb):
                keys[a + rel[z]] = slots[z] - 1
                free[slots[z] - 1] = False
            nxt = 0
            for x in range(i, e):
                p = order[a + x]
                if labels[a + p] <= 0:
                    while not free[nxt]:
                        nxt += 1
                    keys[a + p] = nxt
                    nxt += 1
            i = e


refresh_stale_cache(
    [_draw_block_fenwick, row_random_kernel, random_tie_keys],
    [__file__, row_support.__file__, hashing.__file__],
)
