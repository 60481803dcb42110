r"""Catalog-mean-centered attribute score.

.. math::

    s(u, i) = \sum_a (A_{ia} - \mu_a)\,(f_{ua} - \mu_a),
    \qquad \mu_a = \frac{1}{|I|}\sum_{i \in I} A_{ia},
    \qquad f_{ua} = \frac{1}{|H(u)|}\sum_{j \in H(u)} A_{ja}

the inner product of the candidate's centered attribute vector with the user's centered
attribute frequency profile (:math:`I` is the whole catalog, every row of the attribute table).
Centering rewards attributes that are *more* frequent in the history than in the catalog and
penalises common ones, so unlike plain overlap the score is not an integer; candidates still tie
exactly when their attribute vectors are identical (each distinct attribute pattern of a row is
evaluated once, so such ties are bit-exact).

Mean-centering of profiles follows Resnick et al. (1994, "GroupLens: An Open Architecture for
Collaborative Filtering of Netnews", CSCW); the centered attribute score is the one of Guo et al.
(2026, "Tie Handling Is Part of the Evaluation Protocol", arXiv:2609.26977, §4.1).
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from rankbook.scores._common import (
    attribute_matrix,
    by_pattern,
    check_inputs,
    item_rows,
    pattern_ids,
    user_profile_sums,
)

__all__ = ["centered_attribute"]


def centered_attribute(
    user_ids: np.ndarray, item_ids: np.ndarray, train: pd.DataFrame, attributes: pd.DataFrame
) -> np.ndarray:
    """Scores ``(n, m)`` float64: see the module docstring. Users with no history score 0
    (their profile is taken to equal the catalog mean)."""
    user_ids, item_ids = check_inputs(user_ids, item_ids, train)
    a = attribute_matrix(attributes)
    mu = a.mean(axis=0)
    sums, total = user_profile_sums(user_ids, train, attributes, weight="count")
    freq = np.where(total[:, None] > 0, sums / np.where(total > 0, total, 1.0)[:, None], mu)
    user_c = freq - mu
    patterns, pid = pattern_ids(a)
    patterns_c = patterns - mu
    keys = pid[item_rows(attributes, item_ids)]
    return by_pattern(keys, lambda r, p: np.einsum("ka,ka->k", patterns_c[p], user_c[r]))
