r"""Item popularity from the training interactions.

.. math::

    s(u, i) = |\{(v, i) \in \mathcal{D}_{\mathrm{train}}\}|

the number of training interactions of item :math:`i` (all users, any rating), the same for
every user. Long-tail items share small counts, so ties are common among unpopular negatives
but rare around a popular held-out item.

The most-popular baseline (Cremonesi, Koren & Turrin, 2010, "Performance of Recommender
Algorithms on Top-N Recommendation Tasks", RecSys); the popularity comparison score of
Guo et al. (2026, "Tie Handling Is Part of the Evaluation Protocol", arXiv:2609.26977, §4.1).
"""

from __future__ import annotations

import numpy as np
import pandas as pd

__all__ = ["item_popularity", "popularity_counts"]


def popularity_counts(train: pd.DataFrame) -> pd.Series:
    """Training interaction count per item id."""
    if "item_id" not in train.columns:
        raise ValueError("train lacks column 'item_id'")
    return train["item_id"].value_counts(sort=False)


def item_popularity(user_ids: np.ndarray, item_ids: np.ndarray, train: pd.DataFrame) -> np.ndarray:
    """Scores ``(n, m)`` float64: training counts; items never seen in training score 0.
    ``user_ids`` is accepted for a uniform signature and only checked for shape."""
    item_ids = np.asarray(item_ids)
    if item_ids.ndim != 2 or np.shape(user_ids) != (item_ids.shape[0],):
        raise ValueError(
            f"item_ids must be (n, m) and user_ids (n,); got {item_ids.shape}, {np.shape(user_ids)}"
        )
    counts = popularity_counts(train)
    idx = counts.index.get_indexer(item_ids.ravel())
    values = np.where(idx >= 0, counts.to_numpy(np.float64)[np.maximum(idx, 0)], 0.0)
    return values.reshape(item_ids.shape)
