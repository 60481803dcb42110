r"""Synthetic rows for one question: how does concept sparsity drive exact ties?

Items carry ``n_concepts`` binary concepts, each present independently with probability
``density`` (the share of films above a Tag Genome threshold, say). A user's profile is the
union of the concepts of ``history_length`` history items. Each row holds one relevant item
first and ``n_negatives`` negatives, all drawn from the same concept distribution, and the score
is the attribute overlap

.. math:: s(u, i) = \sum_a A_{ia}\, \mathbf{1}[a \in \text{profile}(u)],

an integer in ``0..n_concepts``. With few concepts and a low density most scores are exactly 0,
so rows become one large tie block and the relevant-first input order decides the metric. The
score carries no signal here on purpose (relevant and negatives are exchangeable), so any gap
between input order and a uniform tie order is due to ties alone. The setting mirrors the
attribute-overlap score of Guo et al. (2026, "Tie Handling Is Part of the Evaluation Protocol",
arXiv:2609.26977, §4.1: six Tag Genome concepts thresholded at 0.7).
"""

from __future__ import annotations

import numpy as np

from rankaudit._checks import check_positive_int, check_unit_interval

__all__ = ["concept_overlap_rows"]


def concept_overlap_rows(
    n_rows: int,
    *,
    n_concepts: int = 6,
    density: float = 0.1,
    history_length: int = 20,
    n_negatives: int = 30,
    seed: int = 0,
) -> tuple[np.ndarray, np.ndarray]:
    """``(scores, labels)``, both ``(n_rows, 1 + n_negatives)``; the relevant item in column 0."""
    for name, value in (
        ("n_rows", n_rows),
        ("n_concepts", n_concepts),
        ("history_length", history_length),
        ("n_negatives", n_negatives),
    ):
        check_positive_int(value, name)
    check_unit_interval(density, "density")
    rng = np.random.default_rng(seed)
    history = rng.random((n_rows, history_length, n_concepts)) < density
    profile = history.any(axis=1)  # (n_rows, n_concepts)
    candidates = rng.random((n_rows, 1 + n_negatives, n_concepts)) < density
    scores = (candidates & profile[:, None, :]).sum(axis=2).astype(np.float64)
    labels = np.zeros(scores.shape, dtype=np.int64)
    labels[:, 0] = 1
    return scores, labels
