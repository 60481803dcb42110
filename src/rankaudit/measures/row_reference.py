r"""Reference formulas, written literally, that the kernels are checked against.

One relevant item, closed form (Guo et al. 2026, §3.2; McSherry & Najork 2008)
    With ``g`` candidates scoring strictly higher and a tie block of ``t`` (the relevant
    item included), its rank ``R`` is uniform on ``g+1 .. g+t``.  With
    ``D(r) = 1/log2(r+1)`` for ``r <= k`` and 0 beyond:

    ``E[HR@k] = p = clip(k-g, 0, t)/t``,                ``Var = p(1-p)``;
    ``E[NDCG@k] = (1/t) sum_{r=g+1}^{g+t} D(r)``,        ``Var = E[D(R)^2] - E[D(R)]^2``;
    ``E[RR] = (1/t) sum_{r=g+1}^{g+t} 1/r``,             ``Var = E[1/R^2] - E[RR]^2``.

Several relevant items: :func:`ndcg_moments_by_blocks` (tie-averaged DCG and Hoeffding's
permutation variance). Hash keys: :func:`collision_bound` (the birthday bound).

References
----------
.. code-block:: bibtex

    @misc{guo2026ties,
      author = {Guo, Chengkun and Chen, Han and Zhu, Yilin and Li, Yingrui},
      title  = {Tie Handling Is Part of the Evaluation Protocol: An Order-Invariance
                Audit for Tie-Heavy Recommender Scores},
      year   = {2026}, eprint = {2609.26977}, archivePrefix = {arXiv}
    }
    @inproceedings{mcsherry2008ties,
      author    = {McSherry, Frank and Najork, Marc},
      title     = {Computing Information Retrieval Performance Measures Efficiently
                   in the Presence of Tied Scores},
      booktitle = {ECIR 2008}, series = {LNCS}, volume = {4956}, pages = {414--421},
      year = {2008}
    }
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd

from rankaudit._checks import check_int

__all__ = [
    "expected_metrics_reference",
    "single_relevant_means",
    "collision_bound",
    "ndcg_moments_by_blocks",
    "single_relevant_moments",
]


def single_relevant_means(g: np.ndarray, t: np.ndarray, k: int) -> tuple[np.ndarray, np.ndarray]:
    """Vectorised ``(E[HR@k], E[NDCG@k])`` of one relevant item with ``g`` candidates above
    it and a tie block of ``t`` (itself included): ``clip(k-g, 0, t)/t`` and
    ``(C(min(g+t, k)) - C(min(g, k)))/t`` with ``C(r) = sum_{s<=r} 1/log2(s+1)`` (IDCG = 1)."""
    g = np.asarray(g, dtype=np.int64)
    t = np.asarray(t, dtype=np.int64)
    top = int(max(g.max(initial=0) + t.max(initial=1), k)) + 1
    ranks = np.arange(1, top, dtype=np.float64)
    cum = np.concatenate(([0.0], np.cumsum(np.where(ranks <= k, 1.0 / np.log2(ranks + 1.0), 0.0))))
    hr = np.clip(k - g, 0, t) / t
    ndcg = (cum[np.minimum(g + t, k)] - cum[np.minimum(g, k)]) / t
    return hr, ndcg


def single_relevant_moments(g: int, t: int, k: int) -> pd.DataFrame:
    r"""Exact mean and variance of HR@k, NDCG@k and RR for one relevant item.

    The item has ``g`` candidates strictly above it and a tie block of ``t`` (itself
    included), so its rank ``R`` is uniform on ``g+1..g+t`` (Guo et al. 2026, §3.2).
    With ``D(r) = 1/log2(r+1)`` for ``r <= k`` (0 beyond) and IDCG = ``D(1) = 1``:
    ``E[HR@k] = clip(k-g,0,t)/t``, ``E[NDCG@k] = mean_r D(r)``, ``E[RR] = mean_r 1/r``, and
    each variance is ``E[X^2] - E[X]^2``.

    Returns a DataFrame indexed by metric (``Success@k``, ``nDCG@k``, ``RR``) with columns
    ``mean`` and ``variance``.
    """
    g = check_int(g, "g", lo=0)
    t = check_int(t, "t", lo=1)
    k = check_int(k, "k", lo=1)
    ranks = np.arange(g + 1, g + t + 1, dtype=np.float64)
    values = {
        f"Success@{k}": (ranks <= k).astype(np.float64),
        f"nDCG@{k}": np.where(ranks <= k, 1.0 / np.log2(ranks + 1.0), 0.0),
        "RR": 1.0 / ranks,
    }
    rows = {}
    for name, x in values.items():
        mean = float(x.mean())
        rows[name] = {"mean": mean, "variance": max(float((x**2).mean()) - mean**2, 0.0)}
    hit = min(max(k - g, 0), t) / t  # the closed form, not the sample mean
    rows[f"Success@{k}"] = {"mean": hit, "variance": hit * (1.0 - hit)}
    return pd.DataFrame.from_dict(rows, orient="index")


def ndcg_moments_by_blocks(scores: np.ndarray, labels: np.ndarray, k: int) -> tuple[float, float]:
    r"""Exact mean and variance of NDCG@k of one row, block by block.

    Tie blocks ``b`` (candidates of equal score) occupy ranks ``g_b+1 .. g_b+t_b``. With
    ``D(r) = 1/log2(r+1)`` for ``r <= k`` (0 beyond), block mean discount
    ``Dbar_b = (1/t_b) sum_r D(r)`` and block gains ``y_i`` (mean ``ybar_b``):

    - mean, the tie-averaged DCG of McSherry & Najork (ECIR 2008):
      ``E[DCG@k] = sum_b (sum_{i in b} y_i) Dbar_b``;
    - variance: a block's DCG is a linear permutation statistic
      ``sum_i y_i D(g_b + pi(i))`` with ``pi`` uniform, whose variance is
      ``(1/(t_b-1)) sum_i (y_i - ybar_b)^2 sum_r (D(r) - Dbar_b)^2`` (Hoeffding, Ann. Math.
      Statist. 1951), 0 for ``t_b = 1``; blocks are independent, so variances add.

    Both are divided by IDCG@k (and its square), which depends on the labels only.
    Independent of the library's kernels; used to cross-check them.
    """
    s = np.asarray(scores, dtype=np.float64).ravel()
    y = np.asarray(labels, dtype=np.float64).ravel()
    k = check_int(k, "k", lo=1)
    if s.shape != y.shape:
        raise ValueError(f"scores and labels differ in length: {s.size} and {y.size}")

    def disc(r: np.ndarray) -> np.ndarray:
        return np.where(r <= k, 1.0 / np.log2(r + 1.0), 0.0)

    ideal = np.sort(y)[::-1]
    idcg = float((ideal * disc(np.arange(1, y.size + 1, dtype=np.float64))).sum())
    if idcg <= 0:
        raise ValueError("labels: the row has no relevant item (label > 0)")
    mean = var = 0.0
    for value in np.unique(s):
        block = s == value
        g, t = int((s > value).sum()), int(block.sum())
        d = disc(np.arange(g + 1, g + t + 1, dtype=np.float64))
        gains = y[block]
        mean += gains.sum() * d.mean()
        if t > 1:
            var += ((gains - gains.mean()) ** 2).sum() * ((d - d.mean()) ** 2).sum() / (t - 1)
    return mean / idcg, var / idcg**2


def collision_bound(block_size: int, bits: int = 64) -> float:
    """Birthday bound on the chance that two of ``block_size`` keys of ``bits`` bits collide.

    ``P(collision) <= C(t, 2) / 2**bits``.
    """
    t = check_int(block_size, "block_size", lo=1)
    return math.comb(t, 2) / 2.0**bits


def expected_metrics_reference(
    scores: np.ndarray, labels: np.ndarray, k: int
) -> tuple[dict[str, float], dict[str, float]]:
    """Closed-form expectation and variance for one row, written plainly (no speed tricks): the
    formulas of :mod:`rankaudit.measures.row_expected`, which its kernel is held to."""
    s = np.asarray(scores, dtype=np.float64)
    y = np.asarray(labels, dtype=np.float64)

    def d(r: int) -> float:
        return 1.0 / math.log2(r + 1) if r <= k else 0.0

    ideal = np.sort(y[y > 0])[::-1]
    idcg = sum(gain * d(r) for r, gain in enumerate(ideal, start=1))

    e_dcg = var_dcg = 0.0
    p_miss = 1.0
    e_rr = e_rr2 = None
    for value in np.unique(s[y > 0])[::-1]:  # blocks holding a relevant item, best first
        g = int((s > value).sum())
        t = int((s == value).sum())
        gains = y[(s == value) & (y > 0)]
        m, g1, g2 = len(gains), float(gains.sum()), float((gains**2).sum())
        s1 = sum(d(r) for r in range(g + 1, g + t + 1))
        s2 = sum(d(r) ** 2 for r in range(g + 1, g + t + 1))
        mu = s1 / t
        e_dcg += g1 * mu
        var_dcg += g2 * (s2 / t - mu**2)
        if m >= 2:
            var_dcg += (g1**2 - g2) * ((s1**2 - s2) / (t * (t - 1)) - mu**2)
        c = min(max(k - g, 0), t)
        p_miss *= math.comb(t - m, c) / math.comb(t, c)
        if e_rr is None:
            probs = [math.comb(t - j, m - 1) / math.comb(t, m) for j in range(1, t - m + 2)]
            e_rr = sum(p / (g + j) for j, p in enumerate(probs, start=1))
            e_rr2 = sum(p / (g + j) ** 2 for j, p in enumerate(probs, start=1))
    if e_rr is None:
        raise ValueError("labels: the row has no relevant item (label > 0)")
    p_hit = 1.0 - p_miss
    means = {f"Success@{k}": p_hit, f"nDCG@{k}": e_dcg / idcg, "RR": e_rr}
    variances = {
        f"Success@{k}": p_hit * (1.0 - p_hit),
        f"nDCG@{k}": var_dcg / idcg**2,
        "RR": e_rr2 - e_rr**2,
    }
    return means, variances
