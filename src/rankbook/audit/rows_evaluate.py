"""One tie rule's per-row measures on candidate rows
(:class:`rankbook.data.candidates.CandidateRows`).

Public API: :func:`evaluate_rows`.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

from rankaudit.ties.evaluate import evaluate
from rankbook.data.candidates import CandidateRows

__all__ = ["evaluate_rows"]


def evaluate_rows(
    rows: CandidateRows, scores: np.ndarray, *, k: int, ties: str, seed: int = 0, **options: Any
) -> pd.DataFrame:
    """:func:`rankaudit.evaluate` of ``scores`` against ``rows.labels`` under tie rule ``ties``,
    with the rows' user and item ids (the keys the hash rule reads; Guo et al., section 3.2),
    one line per row; ``options`` pass through (``return_variance``, ``measures``)."""
    return evaluate(
        scores,
        rows.labels,
        k=k,
        ties=ties,
        seed=seed,
        user_ids=rows.user_ids,
        item_ids=rows.item_ids,
        **options,
    )
