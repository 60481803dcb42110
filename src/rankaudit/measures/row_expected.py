r"""Exact expectation and variance of HR@k, NDCG@k and RR over uniform random tie orders.

Model: every ordering of a row that sorts its scores decreasingly is equally
likely (a uniform random order inside each tie block, blocks independent).
For a candidate with score ``s`` let ``g`` be the number of candidates with a
strictly greater score and ``t`` the size of its tie block (candidates with
score exactly ``s``, itself included); its rank is uniform on ``g+1 .. g+t``.
Write ``D(r) = 1/log2(r+1)`` for ``r <= k`` and 0 beyond, and for a block
``S1 = sum_{r=g+1}^{g+t} D(r)``, ``S2 = sum_{r=g+1}^{g+t} D(r)^2``.  Let ``m`` be
the number of relevant items in the block, ``G1`` the sum and ``G2`` the sum
of squares of their labels.

NDCG@k (linearity of expectation; McSherry & Najork 2008)
    ``E[DCG@k] = sum_blocks G1 * S1 / t`` and ``E[NDCG@k] = E[DCG@k] / IDCG@k``
    (IDCG depends on the labels only).  Within a block the relevant items take
    ``m`` distinct slots drawn without replacement, so with ``mu = S1/t``,
    ``E[D(P_i)^2] = S2/t`` and, for ``i != j``,
    ``E[D(P_i) D(P_j)] = (S1^2 - S2) / (t (t-1))``:

    ``Var[DCG_block] = G2 (S2/t - mu^2) + (G1^2 - G2) ((S1^2 - S2)/(t(t-1)) - mu^2)``

    and ``Var[NDCG@k] = sum_blocks Var[DCG_block] / IDCG@k^2``.
HR@k (not linear with several relevant items; its block term and RR's are derived once, in
:mod:`rankaudit.measures.expectations`, which the list kernels share)
    The top k takes ``c = clip(k - g, 0, t)`` slots of a block; the chance that
    none of them holds one of its ``m`` relevant items is hypergeometric,
    ``C(t-m, c) / C(t, c) = prod_{q<c} (t-m-q)/(t-q)``.  Blocks are independent:
    ``E[HR@k] = p = 1 - prod_blocks C(t-m, c)/C(t, c)`` and ``Var = p (1 - p)``.
RR
    Only the first block (highest score) holding a relevant item matters.  The
    first relevant item sits at rank ``g + J`` with
    ``P(J = j) = C(t-j, m-1) / C(t, m)``, ``j = 1 .. t-m+1`` (the minimum of
    ``m`` positions drawn from ``t``): ``E[RR] = sum_j P(J=j)/(g+j)``, and
    ``Var[RR] = sum_j P(J=j)/(g+j)^2 - E[RR]^2``.  With ``m = 1`` this is
    ``(H_{g+t} - H_g) / t`` with harmonic numbers ``H``.

With one relevant item and ``g = 0``, ``t = 31``, ``k = 10`` (the worked case of
the tie-audit paper): ``E[HR@10] = 10/31`` and ``E[NDCG@10] = S1/31 = 0.1466``.

:func:`~rankaudit.measures.row_reference.expected_metrics_reference` states these formulas
plainly for one row;
``row_expected_kernel`` is the fused numba version (one pass over a row when it
holds one relevant item); tests hold both equal to brute-force enumeration
(:mod:`rankaudit.ties.bruteforce`) to 1e-12.  Each expectation is then clamped into its
envelope, the pessimistic and optimistic values computed with the ordered kernels' own
arithmetic (the same terms summed in rank order), so ``pessimistic <= expected <=
optimistic`` holds exactly, and a row that no tie moves (lo == hi) gets exactly the bits of
every ordered rule; a block of one takes its discount directly, so such a row's variance is
exactly 0.

References
----------
.. code-block:: bibtex

    @inproceedings{mcsherry2008ties,
      author    = {McSherry, Frank and Najork, Marc},
      title     = {Computing Information Retrieval Performance Measures
                   Efficiently in the Presence of Tied Scores},
      booktitle = {Advances in Information Retrieval, 30th European Conference
                   on IR Research (ECIR 2008)},
      series    = {LNCS}, volume = {4956}, pages = {414--421}, year = {2008}
    }
"""

from __future__ import annotations

import numba
import numpy as np

from rankaudit.measures import expectations, row_support
from rankaudit.measures.expectations import first_relevant_block, miss_after_block
from rankaudit.measures.kernel_cache import refresh_stale_cache
from rankaudit.measures.row_support import (
    BAD_LABEL,
    NONFINITE_SCORE,
    OK,
    collect_relevant,
    count_above_equal,
    first_nonfinite,
    ideal_dcg,
    relevant_blocks,
    row_bounds,
    scan_row,
    sort_relevant_canonical,
)

__all__ = ["row_expected_kernel"]


# --------------------------------------------------------------------------- kernel
@numba.njit(cache=True)
def _expected_row_general(
    scores,
    labels,
    a,
    n,
    m,
    rel,
    gains,
    blocks,
    k,
    want_var,
    disc,
    log2k,
    cum1,
    cum2,
    h1,
    h2,
    row,
    hr,
    ndcg,
    rr,
    hr_var,
    ndcg_var,
    rr_var,
):  # pragma: no cover - compiled
    """One row with several relevant items; returns the position of a non-finite score or -1.

    ``blocks`` is scratch of shape ``(3, size + 1)``: the start, ``g`` and ``t`` of each tie
    block (:func:`~rankaudit.measures.row_support.relevant_blocks`), allocated once a batch."""
    # several relevant items: walk their tie blocks from the best score down
    sort_relevant_canonical(rel, m, scores, labels, a)
    idcg = ideal_dcg(rel, m, labels, a, log2k, gains)
    blk_start, blk_g, blk_t = blocks[0], blocks[1], blocks[2]
    n_blocks, bad = relevant_blocks(scores, a, n, rel, m, blk_start, blk_g, blk_t)
    if bad >= 0:
        return bad
    e_dcg = 0.0
    v_dcg = 0.0
    p_miss = 1.0
    e_rr = 0.0
    e_rr2 = 0.0
    lo_dcg = 0.0  # the envelope, summed in rank order as the ordered kernels sum it
    hi_dcg = 0.0
    lo_hit = 0.0
    for b in range(n_blocks):
        g1 = 0.0
        g2 = 0.0
        for e in range(blk_start[b], blk_start[b + 1]):
            lab = float(labels[a + rel[e]])
            g1 += lab
            g2 += lab * lab
        mb = blk_start[b + 1] - blk_start[b]
        g = blk_g[b]
        t = blk_t[b]
        _block_labels_ascending(labels, a, rel, blk_start[b], mb, gains)
        for i in range(mb):  # optimistic: labels descending from g + 1
            hi_dcg += gains[mb - 1 - i] / log2k[g + 1 + i]
        for i in range(mb):  # pessimistic: labels ascending, last in the block
            lo_dcg += gains[i] / log2k[g + t - mb + 1 + i]
        if g + t - mb < k:
            lo_hit = 1.0
        # a block of one: its discount itself, not a difference of cumulative sums, so the
        # variance of a row that no tie moves is exactly 0 (its mean's bits come from the clamp)
        s1 = disc[g + 1] if t == 1 else cum1[g + t] - cum1[g]
        mu = s1 / t
        # the mean as the list kernel sums it, (G (C(g+t) - C(g))) / t, so both are the same bits
        e_dcg += g1 * (cum1[g + t] - cum1[g]) / t
        if want_var:
            s2 = disc[g + 1] * disc[g + 1] if t == 1 else cum2[g + t] - cum2[g]
            v = g2 * (s2 / t - mu * mu)
            if mb >= 2:
                v += (g1 * g1 - g2) * ((s1 * s1 - s2) / (t * (t - 1.0)) - mu * mu)
            v_dcg += v
        p_miss = miss_after_block(p_miss, t, mb, min(max(k - g, 0), t))
        if b == 0:  # RR has no cutoff: every place of the block counts
            e_rr, e_rr2 = first_relevant_block(g, t, mb, t, h1, h2)
    p_hit = min(max(1.0 - p_miss, lo_hit), 1.0 if blk_g[0] < k else 0.0)
    hr[row] = p_hit
    ndcg[row] = min(max(e_dcg / idcg, lo_dcg / idcg), hi_dcg / idcg)
    g0 = blk_g[0]
    rr[row] = min(
        max(e_rr, 1.0 / (g0 + blk_t[0] - (blk_start[1] - blk_start[0]) + 1)), 1.0 / (g0 + 1)
    )
    if want_var:
        hr_var[row] = p_hit * (1.0 - p_hit)
        ndcg_var[row] = max(v_dcg, 0.0) / (idcg * idcg)
        rr_var[row] = max(e_rr2 - e_rr * e_rr, 0.0)
    return -1


@numba.njit(cache=True, inline="always")
def _block_labels_ascending(labels, a, rel, start, mb, out):  # pragma: no cover - compiled
    """The labels of a tie block's ``mb`` relevant items (``rel[start:start + mb]``) into
    ``out[:mb]``, ascending (an insertion sort for short blocks, else a library sort)."""
    if mb > 32:
        for i in range(mb):
            out[i] = float(labels[a + rel[start + i]])
        out[:mb] = np.sort(out[:mb])
        return
    for i in range(mb):
        v = float(labels[a + rel[start + i]])
        j = i - 1
        while j >= 0 and out[j] > v:
            out[j + 1] = out[j]
            j -= 1
        out[j + 1] = v


@numba.njit(cache=True, inline="always")
def _one_relevant(
    g, t, k, cum1, cum2, h1, h2, inv_d1, inv_log2k, want_var
):  # pragma: no cover - compiled
    """Expectation and (if ``want_var``, else 0) variance of (HR@k, NDCG@k, RR) for a row
    whose one relevant item has ``g`` better candidates and a tie block of ``t`` (the
    formulas above with m = 1; the gain cancels against IDCG = gain * D(1)).  HR and RR come
    from :mod:`rankaudit.measures.expectations`, as the list kernels take them (the same
    bits); NDCG is a label-1 item's, ``(C(g+t) - C(g)) / t`` as the list kernel divides, held
    in its envelope ``[1/log2(g+t+1), 1/log2(g+2)]`` (the ordered kernels' ``1 / log2``)."""
    inv_t = 1.0 / t
    c = min(max(k - g, 0), t)
    p = 1.0 - miss_after_block(1.0, t, 1, c)
    mu = (cum1[g + t] - cum1[g]) * inv_t
    e_rr, e_rr2 = first_relevant_block(g, t, 1, t, h1, h2)
    p_var = ndcg_var = rr_var = 0.0
    if want_var:
        p_var = p * (1.0 - p)
        ndcg_var = max((cum2[g + t] - cum2[g]) * inv_t - mu * mu, 0.0) * (inv_d1 * inv_d1)
        rr_var = max(e_rr2 - e_rr * e_rr, 0.0)
    # each held in its envelope (pessimistic: last of the block; optimistic: first)
    ndcg = min(max((cum1[g + t] - cum1[g]) / t, inv_log2k[g + t]), inv_log2k[g + 1])
    p = min(max(p, 1.0 if g + t <= k else 0.0), 1.0 if g < k else 0.0)
    e_rr = min(max(e_rr, 1.0 / (g + t)), 1.0 / (g + 1))
    return p, ndcg, e_rr, p_var, ndcg_var, rr_var


# rows of at most this many candidates read the m = 1 results from a (g, t) table
TABLE_MAX_LEN = 64


@numba.njit(cache=True)
def _one_relevant_table(
    max_len, k, cum1, cum2, h1, h2, inv_d1, inv_log2k
):  # pragma: no cover - compiled
    """``_one_relevant`` for every ``(g, t)`` with ``g + t <= max_len``, flat with stride 6
    at ``(g * (max_len + 1) + t) * 6``: the same arithmetic, so lookups are bit-identical."""
    width = max_len + 1
    table = np.zeros(width * width * 6)
    for g in range(width):
        for t in range(1, width - g):
            i = (g * width + t) * 6
            vals = _one_relevant(g, t, k, cum1, cum2, h1, h2, inv_d1, inv_log2k, True)
            for q in range(6):
                table[i + q] = vals[q]
    return table


@numba.njit(cache=True)
def row_expected_kernel(rows, k, want_var, tables, out):  # pragma: no cover - compiled
    """Fill the per-row expectation (and variance if ``want_var``) arrays in place.

    Returns ``(status, row, position)``; status 0 means every row was valid
    (labels finite, >= 0 and < ``MAX_LABEL``; scores finite).
    Rows without a relevant item get 0 everywhere and ``has_rel = False``.  The loop
    body is the one-relevant-item case: a single fused SIMD pass over labels and
    scores when the relevant item sits where it sat in the previous such row
    (always, for relevant-first rows), else one more pass over the (L1-resident)
    scores; its metrics come from a precomputed ``(g, t)`` table when rows are
    short (at most ``TABLE_MAX_LEN``) and the batch is large enough to repay it,
    else from the formulas.  Rows with several relevant items branch out to
    ``_expected_row_general``.
    """
    n_rows, row_len, offsets, scores, labels = rows
    disc, cum1, cum2, h1, h2, max_len, log2k = tables
    hr, ndcg, rr, hr_var, ndcg_var, rr_var, has_rel = out
    size = max(max_len, 1)
    rel = np.empty(size, np.int64)
    gains = np.empty(size, np.float64)
    blocks = np.empty((3, size + 1), np.int64)  # tie-block scratch of the multi-relevant rows
    inv_d1 = 1.0 / disc[1]
    # ``1 / log2(r+1)`` as the ordered kernels divide (``1.0 / x`` rounds as ``lab / x`` does
    # for ``lab = 1``); ``log2(2)`` is exactly 1, which the label-1 shortcut below relies on
    inv_log2k = 1.0 / log2k
    unit_idcg = log2k[1] == 1.0
    width = max_len + 1
    use_table = max_len <= TABLE_MAX_LEN and n_rows >= width * width
    if use_table:
        table = _one_relevant_table(max_len, k, cum1, cum2, h1, h2, inv_d1, inv_log2k)
    else:
        table = np.zeros(0)
    guess = 0  # where the relevant item sat in the last one-relevant row
    for row in range(n_rows):
        a, n = row_bounds(row, row_len, offsets)
        if n == 0:
            m = w = pos = g = t = 0
            has_rel[row] = False
        else:
            # speculate that the relevant item sits where it sat in the previous row
            # (e.g. relevant-first rows): then labels and scores need one fused pass
            pos = min(guess, n - 1)
            m, w, n_bad_labels, g, t, nbad = scan_row(labels, scores, a, n, scores[a + pos])
            if n_bad_labels > 0:
                return BAD_LABEL, row, collect_relevant(labels, a, n, rel)[1]
            if nbad > 0:
                return NONFINITE_SCORE, row, first_nonfinite(scores, a, n)
            has_rel[row] = m > 0
        if m == 1:  # the common case
            if w != pos:  # wrong guess: a second pass against the right score
                g, t, _ = count_above_equal(scores, a, n, scores[a + w])
                guess = w
            if use_table:
                i = numba.uint64((g * width + t) * 6)
                hr[row] = table[i]
                ndcg[row] = table[i + 1]
                rr[row] = table[i + 2]
                if want_var:
                    hr_var[row] = table[i + 3]
                    ndcg_var[row] = table[i + 4]
                    rr_var[row] = table[i + 5]
            else:
                vals = _one_relevant(g, t, k, cum1, cum2, h1, h2, inv_d1, inv_log2k, want_var)
                hr[row] = vals[0]
                ndcg[row] = vals[1]
                rr[row] = vals[2]
                if want_var:
                    hr_var[row] = vals[3]
                    ndcg_var[row] = vals[4]
                    rr_var[row] = vals[5]
            # HR and RR come in their envelopes (``_one_relevant``), computed with the ordered
            # kernels' arithmetic: exact bounds, and with no tie (t == 1, lo == hi) exactly
            # the ordered rules' bits.  So does nDCG for a label of 1: its IDCG is exactly 1,
            # and the divisions below by it return their dividends; another label's nDCG is
            # recomputed here as the list kernel computes it, and clamped the same way
            lab = float(labels[a + w])
            if lab != 1.0 or not unit_idcg:
                idcg1 = 0.0 + lab / log2k[1]
                # the mean as the list kernel computes it (a label times the block's mean
                # discount over the IDCG), so that both paths are the same bits; the table's
                # nDCG is the label-free value, which this replaces
                ndcg[row] = (0.0 + lab * (cum1[g + t] - cum1[g]) / t) / idcg1
                ndcg[row] = min(
                    max(ndcg[row], (0.0 + lab / log2k[g + t]) / idcg1),
                    (0.0 + lab / log2k[g + 1]) / idcg1,
                )
            if want_var and t == 1:
                hr_var[row] = 0.0
                ndcg_var[row] = 0.0
                rr_var[row] = 0.0
        elif m == 0:  # scan_row has already checked every score of the row
            hr[row] = 0.0
            ndcg[row] = 0.0
            rr[row] = 0.0
            if want_var:
                hr_var[row] = 0.0
                ndcg_var[row] = 0.0
                rr_var[row] = 0.0
        else:
            collect_relevant(labels, a, n, rel)
            bad = _expected_row_general(
                scores,
                labels,
                a,
                n,
                m,
                rel,
                gains,
                blocks,
                k,
                want_var,
                disc,
                log2k,
                cum1,
                cum2,
                h1,
                h2,
                row,
                hr,
                ndcg,
                rr,
                hr_var,
                ndcg_var,
                rr_var,
            )
            if bad >= 0:
                return NONFINITE_SCORE, row, bad
    return OK, -1, -1


refresh_stale_cache(
    [
        _expected_row_general,
        _block_labels_ascending,
        _one_relevant,
        _one_relevant_table,
        row_expected_kernel,
    ],
    [__file__, row_support.__file__, expectations.__file__],
)
