r"""The expectations under uniform random tie orders that both kernel families use, derived once.

A tie block of ``t`` documents sits after ``g`` better ones and holds ``m`` relevant ones; the
cutoff leaves ``c = clip(k - g, 0, t)`` of its places inside the top ``k`` (``c = t`` without a
cutoff).  Every order of the block is equally likely, so the places of its relevant documents
are ``m`` of ``t`` drawn without replacement (McSherry & Najork, ECIR 2008).

Success@k / HR@k
    No relevant document of the block in its first ``c`` places has the hypergeometric
    probability ``C(t-m, c) / C(t, c) = prod_{q<c} (t-m-q) / (t-q)`` (0 when ``c > t - m``);
    blocks are independent, so ``P(miss) = prod_blocks`` of it and ``E[HR@k] = 1 - P(miss)``
    (:func:`miss_after_block`).
RR, RR@k
    Only the first block holding a relevant document matters; the first relevant document sits
    at block place ``J`` with ``P(J = j) = C(t-j, m-1) / C(t, m)``, ``j = 1 .. t-m+1`` (the
    minimum of ``m`` places drawn from ``t``), so ``E[RR] = sum_{j <= min(t-m+1, c)} P(J=j) /
    (g+j)`` and ``E[RR^2]`` the same with ``(g+j)^2`` (:func:`first_relevant_block`).  With
    ``m = 1`` the sums are ``(H_{g+c} - H_g) / t`` and ``(H2_{g+c} - H2_g) / t`` (harmonic
    numbers of order 1 and 2); a block of one is exactly ``1 / (g+1)``.

The row kernels (:mod:`rankaudit.measures.row_expected`, with variances) and the list kernels
(:mod:`rankaudit.measures.list_kernels`) call these; tests hold both to enumeration of every
tie order.
"""

from __future__ import annotations

import numba

__all__ = ["first_relevant_block", "miss_after_block"]


@numba.njit(cache=True, inline="always")
def miss_after_block(p_miss, t, m, c):  # pragma: no cover - compiled
    """``P(miss)`` after a block: ``p_miss * C(t-m, c) / C(t, c)`` (module docstring)."""
    if c > t - m:
        return 0.0
    for q in range(c):
        p_miss *= (t - m - q) / (t - q)
    return p_miss


@numba.njit(cache=True, inline="always")
def first_relevant_block(g, t, m, c, h1, h2):  # pragma: no cover - compiled
    """``(E[RR], E[RR^2])`` contributed by the first block holding ``m >= 1`` relevant
    documents (module docstring); ``h1``/``h2`` are harmonic numbers of order 1 and 2
    indexed by rank (``h2`` may be ``h1`` when the second moment is not read)."""
    if c <= 0:
        return 0.0, 0.0
    if t == 1:
        e = 1.0 / (g + 1)
        return e, e * e
    if m == 1:
        return (h1[g + c] - h1[g]) / t, (h2[g + c] - h2[g]) / t
    e = 0.0
    e2 = 0.0
    prob = m / t  # P(J = 1)
    top = t - m + 1 if t - m + 1 < c else c
    for j in range(1, top + 1):
        inv = 1.0 / (g + j)
        e += prob * inv
        e2 += prob * inv * inv
        prob *= (t - j - m + 1.0) / (t - j)
    return e, e2
