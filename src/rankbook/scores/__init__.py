"""Score families of the tie audit (Guo et al., 2026, arXiv:2609.26977, §4.1).

Each family maps candidate rows ``(user_ids (n,), item_ids (n, m))`` plus the training
interactions (and, for attribute scores, a binary item-attribute table indexed by item id) to a
float64 score array ``(n, m)``; the formula is in each module's docstring.

========================  ============================================  ==============
name                      function                                      ties
========================  ============================================  ==============
``overlap``               :func:`~rankbook.scores.overlap.attribute_overlap`        very many
``weighted``              :func:`~rankbook.scores.weighted.weighted_overlap`        many
``centered``              :func:`~rankbook.scores.centered.centered_attribute`      many
``residualized``          :func:`~rankbook.scores.residualized.residualized_attribute`  few
``popularity``            :func:`~rankbook.scores.popularity.item_popularity`       some
========================  ============================================  ==============
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from rankbook.scores.centered import centered_attribute
from rankbook.scores.overlap import attribute_overlap
from rankbook.scores.popularity import item_popularity
from rankbook.scores.residualized import residualized_attribute
from rankbook.scores.weighted import weighted_overlap

__all__ = [
    "FAMILIES",
    "attribute_overlap",
    "centered_attribute",
    "compute_scores",
    "item_popularity",
    "residualized_attribute",
    "weighted_overlap",
]

#: Family name -> one-line description (used in tables and the checklist).
FAMILIES = {
    "overlap": "attribute overlap with the user's history",
    "weighted": "rating-weighted attribute overlap",
    "centered": "catalog-mean-centered attribute score",
    "residualized": "residualized attribute score",
    "popularity": "item popularity (training interactions)",
}


def compute_scores(
    user_ids: np.ndarray,
    item_ids: np.ndarray,
    train: pd.DataFrame,
    attributes: pd.DataFrame,
    families: tuple[str, ...] | list[str] = tuple(FAMILIES),
) -> dict[str, np.ndarray]:
    """Scores of the named families for the same candidate rows, ``{name: (n, m) float64}``."""
    unknown = [f for f in families if f not in FAMILIES]
    if unknown:
        raise ValueError(f"unknown score families {unknown}; valid: {list(FAMILIES)}")
    fns = {
        "overlap": lambda: attribute_overlap(user_ids, item_ids, train, attributes),
        "weighted": lambda: weighted_overlap(user_ids, item_ids, train, attributes),
        "centered": lambda: centered_attribute(user_ids, item_ids, train, attributes),
        "residualized": lambda: residualized_attribute(user_ids, item_ids, train, attributes),
        "popularity": lambda: item_popularity(user_ids, item_ids, train),
    }
    return {name: fns[name]() for name in families}
