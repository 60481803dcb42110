r"""Rating-weighted attribute overlap with the user's history.

.. math::

    s(u, i) = \frac{\sum_{j \in H(u)} r_{uj}\, \sum_a A_{ia} A_{ja}}{\sum_{j \in H(u)} r_{uj}}
            = \frac{\sum_a A_{ia} W_{ua}}{\sum_{j \in H(u)} r_{uj}},
    \qquad W_{ua} = \sum_{j \in H(u)} r_{uj} A_{ja}

i.e. the rating-weighted mean number of attributes a candidate shares with each history item.
The numerator is a sum of integers (or half-stars), computed exactly in float64, and the
denominator is constant within a row, so two candidates tie exactly when their numerators
are equal (identical attribute sets, or coincidental equal sums).

The rating-weighted attribute-overlap score of Guo et al. (2026, "Tie Handling Is Part of the
Evaluation Protocol", arXiv:2609.26977, §4.1, the Amazon tie-heavy score); weighting a
content profile by ratings follows Pazzani & Billsus (2007, "Content-Based Recommendation
Systems", The Adaptive Web, LNCS 4321).
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

__all__ = ["weighted_overlap"]


def weighted_overlap(
    user_ids: np.ndarray, item_ids: np.ndarray, train: pd.DataFrame, attributes: pd.DataFrame
) -> np.ndarray:
    """Scores ``(n, m)`` float64: see the module docstring. Users with no history score 0."""
    user_ids, item_ids = check_inputs(user_ids, item_ids, train)
    a = attribute_matrix(attributes)
    sums, total = user_profile_sums(user_ids, train, attributes, weight="rating")
    numerator = candidate_dot(a, item_rows(attributes, item_ids), sums)
    return numerator / np.where(total > 0, total, 1.0)[:, None]
