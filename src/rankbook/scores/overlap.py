r"""Attribute overlap with the user's history (the tie-heavy content score).

.. math::

    s(u, i) = \sum_a A_{ia}\, \mathbb{1}\Big[\sum_{j \in H(u)} A_{ja} > 0\Big]
            = |\mathrm{attrs}(i) \cap \mathrm{attrs}(H(u))|

for binary item attributes :math:`A` (genres, thresholded Tag Genome concepts or lexical
tokens) and the user's training history :math:`H(u)`: the number of the candidate's
attributes that appear anywhere in the history. The score is a small integer, so exact ties
are the rule, not the exception.

Content-based profile matching (Lops, de Gemmis & Semeraro, 2011, "Content-based Recommender
Systems: State of the Art and Trends", Recommender Systems Handbook, Springer); used as the
tie-heavy attribute-overlap score of Guo et al. (2026, "Tie Handling Is Part of the Evaluation
Protocol", arXiv:2609.26977, §4.1).
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

__all__ = ["attribute_overlap"]


def attribute_overlap(
    user_ids: np.ndarray, item_ids: np.ndarray, train: pd.DataFrame, attributes: pd.DataFrame
) -> np.ndarray:
    """Scores ``(n, m)`` float64: see the module docstring. ``attributes`` must be binary."""
    user_ids, item_ids = check_inputs(user_ids, item_ids, train)
    a = attribute_matrix(attributes)
    if not np.isin(a, (0.0, 1.0)).all():
        raise ValueError("attribute_overlap needs binary (0/1) attributes")
    sums, _ = user_profile_sums(user_ids, train, attributes, weight="count")
    profile = (sums > 0).astype(np.float64)
    return candidate_dot(a, item_rows(attributes, item_ids), profile)
