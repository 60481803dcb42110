"""Fast HR@k, NDCG@k and RR under the deterministic tie rules, without sorting.

Under a deterministic rule the rank of candidate ``i`` is

    ``rank(i) = 1 + #{j : s_j > s_i} + #{j != i : s_j == s_i and j precedes i}``

where "precedes" is the rule's within-tie order (see :mod:`rankaudit.ties.rules`):

- ``input_order``: ``j < i`` (a stable sort by decreasing score);
- ``optimistic``: higher label first, then input position;
- ``pessimistic``: lower label first (relevant items last), then input position;
- ``hash``: smaller ``tie_hash(seed, user, item)`` first, then smaller item id.

The metrics need only the ranks of the relevant items, so the kernel makes one
pass over the row per relevant item (one pass in the common one-relevant case)
instead of sorting it.  Ranks are then put in increasing order before summing,
so the result does not depend on the input order beyond what the rule itself
does.  Tests hold the kernel equal to the sort-based reference
:func:`rankaudit.ties.rules.rank_candidates` + :mod:`rankaudit.ties.metrics`.
"""

from __future__ import annotations

import numba
import numpy as np

from rankaudit.ties.hashing import mix64_nb, splitmix64_nb
from rankaudit.ties.kernel_support import (
    BAD_LABEL,
    DUPLICATE_ITEM,
    NONFINITE_SCORE,
    OK,
    first_nonfinite,
    ideal_dcg,
    relevant_positions,
    row_bounds,
    sort_by_rank,
)

__all__ = ["HASH", "INPUT_ORDER", "OPTIMISTIC", "PESSIMISTIC", "ordered_kernel"]

INPUT_ORDER = 0
OPTIMISTIC = 1
PESSIMISTIC = 2
HASH = 3


@numba.njit(cache=True)
def _rank_of(scores, labels, a, n, p, mode, row_key, item_keys, item_codes):  # pragma: no cover
    """1-based rank of candidate ``p`` of the row starting at ``a`` under rule ``mode``,
    and the number of non-finite scores seen in the pass."""
    s = scores[a + p]
    lp = labels[a + p]
    hp = numba.uint64(0)
    if mode == HASH:
        hp = splitmix64_nb(row_key ^ numba.uint64(item_keys[a + p]))
    cnt = 0
    bad = 0
    for j in range(n):
        x = scores[a + j]
        bad += (x - x) != 0.0
        cnt += x > s
        if x == s and j != p:
            if mode == INPUT_ORDER:
                cnt += j < p
            elif mode == OPTIMISTIC:
                lj = labels[a + j]
                cnt += (lj > lp) or (lj == lp and j < p)
            elif mode == PESSIMISTIC:
                lj = labels[a + j]
                cnt += (lj < lp) or (lj == lp and j < p)
            else:
                hj = splitmix64_nb(row_key ^ numba.uint64(item_keys[a + j]))
                cnt += (hj < hp) or (hj == hp and item_codes[a + j] < item_codes[a + p])
    return cnt + 1, bad


@numba.njit(cache=True)
def _first_duplicate(item_keys, item_codes, a, n, table, stamp, mask, row):  # pragma: no cover
    """Open-addressing check for a repeated item id in one row; position or -1."""
    for j in range(n):
        slot = numba.int64(mix64_nb(numba.uint64(item_keys[a + j])) & numba.uint64(mask))
        while stamp[slot] == row:
            if item_codes[a + table[slot]] == item_codes[a + j]:
                return j
            slot = (slot + 1) & mask
        stamp[slot] = row
        table[slot] = j
    return -1


@numba.njit(cache=True)
def ordered_kernel(
    n_rows, row_len, offsets, scores, labels, k, mode, row_keys, item_keys, item_codes, disc,
    max_len, hr, ndcg, rr, has_rel,
):  # pragma: no cover - compiled
    """Fill per-row HR@k, NDCG@k and RR under a deterministic tie rule.

    ``row_keys[row] = splitmix64(splitmix64(seed) ^ id64(user))`` (hash mode only).
    Returns ``(status, row, position)``; status 0 means every row was valid.
    """
    size = max(max_len, 1)
    rel = np.empty(size, np.int64)
    ranks = np.empty(size, np.int64)
    gains = np.empty(size, np.float64)
    ideal = np.empty(size, np.float64)
    tsize = 4
    while tsize < 2 * size:
        tsize *= 2
    table = np.empty(tsize, np.int64)
    stamp = np.full(tsize, -1, np.int64)
    row_key = numba.uint64(0)
    for row in range(n_rows):
        a, n = row_bounds(row, row_len, offsets)
        m, bad = relevant_positions(labels, a, n, rel)
        if bad >= 0:
            return BAD_LABEL, row, bad
        has_rel[row] = m > 0
        if mode == HASH:
            dup = _first_duplicate(item_keys, item_codes, a, n, table, stamp, tsize - 1, row)
            if dup >= 0:
                return DUPLICATE_ITEM, row, dup
            row_key = row_keys[row]
        if m == 0:
            bad = first_nonfinite(scores, a, n)
            if bad >= 0:
                return NONFINITE_SCORE, row, bad
            hr[row] = 0.0
            ndcg[row] = 0.0
            rr[row] = 0.0
            continue
        for i in range(m):
            r, nbad = _rank_of(scores, labels, a, n, rel[i], mode, row_key, item_keys, item_codes)
            if i == 0 and nbad > 0:
                return NONFINITE_SCORE, row, first_nonfinite(scores, a, n)
            ranks[i] = r
            gains[i] = labels[a + rel[i]]
        idcg = ideal_dcg(rel, m, labels, a, disc, ideal)
        sort_by_rank(ranks, gains, m)
        dcg = 0.0
        for i in range(m):
            dcg += gains[i] * disc[ranks[i]]
        hr[row] = 1.0 if ranks[0] <= k else 0.0
        ndcg[row] = dcg / idcg
        rr[row] = 1.0 / ranks[0]
    return OK, -1, -1
