"""Fast HR@k, NDCG@k and RR under the deterministic tie rules, without sorting.

Under a deterministic rule the rank of candidate ``i`` is

    ``rank(i) = 1 + #{j : s_j > s_i} + #{j != i : s_j == s_i and j precedes i}``

where "precedes" is the rule's within-tie order (see :mod:`rankaudit.ties.ranking`):

- ``input_order``: ``j < i`` (a stable sort by decreasing score);
- ``optimistic``: higher label first, then input position;
- ``pessimistic``: lower label first (relevant items last), then input position;
- ``hash``: smaller ``tie_hash(seed, user, item)`` first, then smaller item id
  (:func:`rankaudit.measures.hashing.hash_order_key_nb`, the order of
  :func:`rankaudit.measures.hashing.hash_order_ranks`);
- ``KEY`` (any other rule that orders every measure alike): smaller ``order_keys[i]`` first,
  the rule's declared key (:mod:`rankaudit.measures.rules`).

The modes are the registry's (:data:`rankaudit.measures.rules.ROW_MODES`); an unknown mode
is an error, never a default rule.

The metrics need only the ranks of the relevant items, so for rows with few
relevant items (``m <= SORT_ABOVE``) the kernel makes one pass over the row per
relevant item (one pass in the common one-relevant case) instead of sorting it:
``O(m n)``.  Rows with more relevant items are sorted once by decreasing score
(a stable merge sort, ``O(n log n)``) and each tie block that holds a relevant
item is ordered by the rule's key (``O(t log t)`` for a block of ``t``), so a row
of 40,000 candidates with 20,000 relevant costs milliseconds, not seconds.  Both
paths give the same integer ranks, hence bit-identical metrics.  Ranks are then put in increasing
order before summing, so the result does not depend on the input order beyond what the rule itself
does.  Tests hold the kernel equal to the sort-based reference
:func:`rankaudit.ties.ranking.rank_candidates` + :mod:`rankaudit.measures.row_metrics`.
"""

from __future__ import annotations

import numba
import numpy as np

from rankaudit.measures import hashing, row_support, rules
from rankaudit.measures.hashing import hash_order_key_nb, mix64_nb
from rankaudit.measures.kernel_cache import refresh_stale_cache
from rankaudit.measures.row_support import (
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
from rankaudit.measures.rules import ROW_MODES

__all__ = [
    "HASH",
    "INPUT_ORDER",
    "KEY",
    "OPTIMISTIC",
    "PESSIMISTIC",
    "SORT_ABOVE",
    "row_ordered_kernel",
]

INPUT_ORDER = ROW_MODES["input_order"]
OPTIMISTIC = ROW_MODES["optimistic"]
PESSIMISTIC = ROW_MODES["pessimistic"]
HASH = ROW_MODES["hash"]
KEY = ROW_MODES["key"]

SORT_ABOVE = 16  # rows with more relevant items than this take the sort path


@numba.njit(cache=True)
def _rank_of(
    scores, labels, a, n, p, mode, row_key, item_keys, item_codes, order_keys
):  # pragma: no cover - compiled
    """1-based rank of candidate ``p`` of the row starting at ``a`` under rule ``mode``,
    and the number of non-finite scores seen in the pass."""
    s = scores[a + p]
    lp = labels[a + p]
    hp = numba.uint64(0)
    if mode == HASH:
        hp = hash_order_key_nb(row_key, item_keys[a + p])
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
            elif mode == HASH:
                hj = hash_order_key_nb(row_key, item_keys[a + j])
                cnt += (hj < hp) or (hj == hp and item_codes[a + j] < item_codes[a + p])
            elif mode == KEY:
                kj = order_keys[a + j]
                kp = order_keys[a + p]
                cnt += (kj < kp) or (kj == kp and j < p)
            else:  # never another rule's rank (row_ordered_kernel refuses it before the loop)
                raise ValueError("row kernels: unknown tie mode")
    return cnt + 1, bad


@numba.njit(cache=True)
def _sorted_ranks(
    scores, labels, a, n, mode, row_key, item_keys, item_codes, order_keys, ranks, gains
):  # pragma: no cover - compiled
    """Ranks of all relevant candidates of one row by one stable sort: ``O(n log n)``.

    Fills ``ranks[:m]`` / ``gains[:m]`` in increasing rank order and returns ``m``.
    The row's scores must already be known finite.
    """
    neg = np.empty(n, np.float64)
    for j in range(n):
        neg[j] = -np.float64(scores[a + j])
    order = np.argsort(neg, kind="mergesort")  # decreasing score, then input position
    m = 0
    b = 0
    while b < n:
        s = neg[order[b]]
        e = b + 1
        n_rel = 1 if labels[a + order[b]] > 0 else 0
        while e < n and neg[order[e]] == s:
            if labels[a + order[e]] > 0:
                n_rel += 1
            e += 1
        if n_rel > 0:
            if mode == INPUT_ORDER or e - b == 1:
                for q in range(b, e):
                    lab = labels[a + order[q]]
                    if lab > 0:
                        ranks[m] = q + 1
                        gains[m] = lab
                        m += 1
            elif mode == OPTIMISTIC or mode == PESSIMISTIC:
                rel_lab = np.empty(n_rel, np.float64)
                r = 0
                for q in range(b, e):
                    lab = labels[a + order[q]]
                    if lab > 0:
                        rel_lab[r] = -np.float64(lab) if mode == OPTIMISTIC else np.float64(lab)
                        r += 1
                by_label = np.argsort(rel_lab, kind="mergesort")  # then input position
                first = b + 1 if mode == OPTIMISTIC else b + 1 + (e - b - n_rel)
                for r in range(n_rel):
                    lab = rel_lab[by_label[r]]
                    ranks[m] = first + r
                    gains[m] = -lab if mode == OPTIMISTIC else lab
                    m += 1
            elif mode == KEY:  # the rule's key, then input position (a stable sort)
                t = e - b
                ks = np.empty(t, np.int64)
                for q in range(t):
                    ks[q] = order_keys[a + order[b + q]]
                by_key = np.argsort(ks, kind="mergesort")
                r0 = m
                for q in range(t):
                    lab = labels[a + order[b + by_key[q]]]
                    if lab > 0:
                        ranks[m] = b + q + 1
                        gains[m] = lab
                        m += 1
            elif mode == HASH:  # order by (key, item code) within the block
                t = e - b
                hs = np.empty(t, np.uint64)
                for q in range(t):
                    hs[q] = hash_order_key_nb(row_key, item_keys[a + order[b + q]])
                by_hash = np.argsort(hs, kind="mergesort")
                r0 = m
                for q in range(t):
                    jq = order[b + by_hash[q]]
                    lab = labels[a + jq]
                    if lab > 0:
                        # items with an equal key (a 64-bit collision) go by item code
                        before = q
                        lo = q
                        while lo > 0 and hs[by_hash[lo - 1]] == hs[by_hash[q]]:
                            lo -= 1
                        hi = q + 1
                        while hi < t and hs[by_hash[hi]] == hs[by_hash[q]]:
                            hi += 1
                        if hi - lo > 1:
                            before = lo
                            for u in range(lo, hi):
                                ju = order[b + by_hash[u]]
                                before += item_codes[a + ju] < item_codes[a + jq]
                        ranks[m] = b + before + 1
                        gains[m] = lab
                        m += 1
                if m - r0 > 1:
                    sort_by_rank(ranks[r0:m], gains[r0:m], m - r0)
            else:  # never another rule's ranks (row_ordered_kernel refuses it before the loop)
                raise ValueError("row kernels: unknown tie mode")
        b = e
    return m


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
def row_ordered_kernel(
    rows, k, mode, row_keys, item_keys, item_codes, order_keys, tables, out
):  # pragma: no cover - compiled
    """Fill per-row HR@k, NDCG@k and RR under a deterministic tie rule.

    ``row_keys[row] = splitmix64(splitmix64(seed) ^ id64(user))`` (hash mode only);
    ``order_keys``: the rule's key per candidate, indexed as ``scores`` (``KEY`` mode only).
    Returns ``(status, row, position)``; status 0 means every row was valid.  An unknown
    ``mode`` raises ValueError.
    """
    if mode != INPUT_ORDER and mode != OPTIMISTIC and mode != PESSIMISTIC:
        if mode != HASH and mode != KEY:
            raise ValueError("row_ordered_kernel: unknown tie mode")
    n_rows, row_len, offsets, scores, labels = rows
    log2k = tables.log2k  # trec_eval's arithmetic: label / log2(r + 1) (row_support.log2_table)
    max_len = tables.max_len
    hr, ndcg, rr, _, _, _, has_rel = out
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
        if m > SORT_ABOVE:
            bad = first_nonfinite(scores, a, n)
            if bad >= 0:
                return NONFINITE_SCORE, row, bad
            _sorted_ranks(
                scores, labels, a, n, mode, row_key, item_keys, item_codes, order_keys, ranks, gains
            )
            for i in range(m):
                ideal[i] = labels[a + rel[i]]
            ideal[:m] = np.sort(ideal[:m])[::-1]  # the same values ideal_dcg sorts, O(m log m)
            idcg = 0.0
            for i in range(m):
                idcg += ideal[i] / log2k[i + 1]
        else:
            for i in range(m):
                r, nbad = _rank_of(
                    scores, labels, a, n, rel[i], mode, row_key, item_keys, item_codes, order_keys
                )
                if i == 0 and nbad > 0:
                    return NONFINITE_SCORE, row, first_nonfinite(scores, a, n)
                ranks[i] = r
                gains[i] = labels[a + rel[i]]
            idcg = ideal_dcg(rel, m, labels, a, log2k, ideal)
            sort_by_rank(ranks, gains, m)
        dcg = 0.0
        for i in range(m):
            dcg += gains[i] / log2k[ranks[i]]
        hr[row] = 1.0 if ranks[0] <= k else 0.0
        ndcg[row] = dcg / idcg
        rr[row] = 1.0 / ranks[0]
    return OK, -1, -1


refresh_stale_cache(
    [_rank_of, _sorted_ranks, _first_duplicate, row_ordered_kernel],
    [__file__, row_support.__file__, hashing.__file__, rules.__file__],
)
