"""Brute force: every ordering of one small row that is consistent with its scores.

The exact expectation and variance of a metric over uniform random tie orders
is, by definition, its mean and (population) variance over all
``prod_b t_b!`` orderings that sort the scores decreasingly, where ``t_b`` are
the tie block sizes.  This module enumerates them literally (use it only for
rows of about 8 candidates or fewer) and scores them with the reference
definitions of :mod:`rankaudit.measures.row_metrics`.  Tests hold the closed forms and
kernels equal to it.
"""

from __future__ import annotations

import itertools
import math

import numpy as np

from rankaudit.measures.row_metrics import hit_rate_at_k, ndcg_at_k, reciprocal_rank

__all__ = ["all_tie_orders", "brute_force_moments"]

MAX_ORDERS = 2_000_000


def all_tie_orders(scores: np.ndarray) -> np.ndarray:
    """All orderings (shape ``(n_orders, n)``) of the candidates of one row by decreasing score."""
    s = np.asarray(scores, dtype=np.float64)
    distinct = np.unique(s)[::-1]
    blocks = [np.flatnonzero(s == v) for v in distinct]
    n_orders = math.prod(math.factorial(len(b)) for b in blocks)
    if n_orders > MAX_ORDERS:
        raise ValueError(f"scores: {n_orders} tie orders is too many to enumerate")
    per_block = [list(itertools.permutations(b.tolist())) for b in blocks]
    orders = [sum(combo, ()) for combo in itertools.product(*per_block)]
    return np.asarray(orders, dtype=np.int64).reshape(n_orders, len(s))


def brute_force_moments(
    scores: np.ndarray, labels: np.ndarray, k: int
) -> tuple[dict[str, float], dict[str, float]]:
    """Mean and population variance of HR@k, NDCG@k and RR over all tie orders of one row."""
    orders = all_tie_orders(scores)
    ranked = np.asarray(labels, dtype=np.float64)[orders]
    values = {
        f"Success@{k}": hit_rate_at_k(ranked, k),
        f"nDCG@{k}": ndcg_at_k(ranked, k),
        "RR": reciprocal_rank(ranked),
    }
    means = {name: float(v.mean()) for name, v in values.items()}
    variances = {name: float(v.var()) for name, v in values.items()}
    return means, variances
