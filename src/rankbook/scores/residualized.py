r"""Residualized attribute score: rating-weighted overlap with its predictable item-attribute
and interaction-weight components regressed out.

With :math:`s^{w}(u, i)` the rating-weighted overlap (:mod:`rankbook.scores.weighted`), the
regressors of a candidate cell are

.. math::

    x(u, i) = \big(1,\; A_{i1}, \dots, A_{iK},\; \log(1 + w_i),\; \log(1 + W_u)\big),
    \qquad w_i = \sum_{(v, i) \in \mathcal{D}_{\mathrm{train}}} r_{vi},
    \qquad W_u = \sum_{j \in H(u)} r_{uj}

(item attributes, the item's training interaction weight and the user's history weight), and
the score is the ordinary-least-squares residual over all candidate cells of the audit:

.. math::

    s^{\mathrm{res}}(u, i) = s^{w}(u, i) - x(u, i)^\top \hat\beta,
    \qquad \hat\beta = \arg\min_\beta \sum_{(u, i)} \big(s^{w}(u, i) - x(u, i)^\top\beta\big)^2 .

By Frisch-Waugh-Lovell (Frisch & Waugh, 1933, Econometrica 1(4); Lovell, 1963, JASA 58(304)) the
residual is the part of the personalised overlap not explained by what the item is or how much
it was interacted with. Because :math:`\log(1 + w_i)` is (almost) continuous, two candidates of
a row tie exactly only if they share both their attribute set and their training weight: the
score has few exact ties. It is the low-tie stability check of Guo et al. (2026, "Tie Handling
Is Part of the Evaluation Protocol", arXiv:2609.26977, §4.1).
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from rankbook.scores._common import (
    attribute_matrix,
    candidate_dot,
    check_inputs,
    item_rows,
    user_profile_sums,
)

__all__ = ["residualized_attribute"]


def residualized_attribute(
    user_ids: np.ndarray,
    item_ids: np.ndarray,
    train: pd.DataFrame,
    attributes: pd.DataFrame,
    *,
    return_coefficients: bool = False,
):
    """Scores ``(n, m)`` float64 (see the module docstring); with ``return_coefficients=True``
    also the fitted :math:`\\hat\\beta` (intercept, one per attribute, item weight, user weight).

    The normal equations are assembled from per-item aggregates (``X'X = sum over cells``
    regrouped by item), visiting cells in a canonical order (by item within each row), so the fit
    and every score are bit-identical however the candidates of a row are ordered. The fitted
    item part is evaluated once per distinct (attribute set, item weight) pattern, so candidates
    sharing both tie exactly.
    """
    user_ids, item_ids = check_inputs(user_ids, item_ids, train)
    a = attribute_matrix(attributes)
    n_items, n_attr = a.shape
    sums, total = user_profile_sums(user_ids, train, attributes, weight="rating")
    weight = (
        train.groupby("item_id", sort=False)["rating"]
        .sum()
        .reindex(attributes.index, fill_value=0.0)
    ).to_numpy(np.float64)
    idx = item_rows(attributes, item_ids)
    n, m = idx.shape
    y = candidate_dot(a, idx, sums) / np.where(total > 0, total, 1.0)[:, None]

    # Canonical cell order, then per-item aggregates of the cell-level sums.
    order = np.argsort(idx, axis=1, kind="stable")
    cells = np.take_along_axis(idx, order, axis=1).ravel()
    y_c = np.take_along_axis(y, order, axis=1).ravel()
    g = np.repeat(np.log1p(total), m)  # user history weight, per cell
    h = np.log1p(weight)  # item training weight, per item
    count = np.bincount(cells, minlength=n_items).astype(np.float64)
    g_item = np.bincount(cells, weights=g, minlength=n_items)
    y_item = np.bincount(cells, weights=y_c, minlength=n_items)
    p = n_attr + 3
    xtx = np.empty((p, p))
    xtx[0, 0] = n * m
    xtx[0, 1:-2] = count @ a
    xtx[0, -2] = count @ h
    xtx[0, -1] = g.sum()
    xtx[1:-2, 1:-2] = a.T @ (a * count[:, None])
    xtx[1:-2, -2] = a.T @ (count * h)
    xtx[1:-2, -1] = a.T @ g_item
    xtx[-2, -2] = count @ (h * h)
    xtx[-2, -1] = h @ g_item
    xtx[-1, -1] = g @ g
    xtx = np.triu(xtx) + np.triu(xtx, 1).T
    xty = np.concatenate([[y_c.sum()], a.T @ y_item, [h @ y_item], [g @ y_c]])
    beta = np.linalg.lstsq(xtx, xty, rcond=None)[0]

    # Fitted item part once per distinct (attribute set, item weight); user part once per row.
    patterns, item_key = np.unique(np.hstack([a, weight[:, None]]), axis=0, return_inverse=True)
    item_key = item_key.ravel()
    part = beta[0] + patterns[:, :-1] @ beta[1:-2] + beta[-2] * np.log1p(patterns[:, -1])
    user_part = beta[-1] * np.log1p(total)
    scores = y - part[item_key[idx]] - user_part[:, None]
    return (scores, beta) if return_coefficients else scores
