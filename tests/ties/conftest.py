"""Shared generators of small, tie-heavy test rows."""

from __future__ import annotations

import numpy as np
import pytest


def make_rows(
    rng: np.random.Generator,
    n_rows: int,
    *,
    min_len: int = 1,
    max_len: int = 8,
    n_levels: int = 3,
    max_label: int = 3,
    ragged: bool = True,
) -> tuple[list[np.ndarray], list[np.ndarray], list[np.ndarray]]:
    """Rows of integer scores in [0, n_levels) (heavy ties), graded labels with at least
    one relevant item per row, and distinct integer item ids per row."""
    scores, labels, items = [], [], []
    fixed = int(rng.integers(min_len, max_len + 1))
    for _ in range(n_rows):
        n = int(rng.integers(min_len, max_len + 1)) if ragged else fixed
        s = rng.integers(0, n_levels, n).astype(np.float64)
        y = rng.integers(0, max_label + 1, n) * (rng.random(n) < 0.4)
        y[rng.integers(0, n)] = rng.integers(1, max_label + 1)
        scores.append(s)
        labels.append(y.astype(np.float64))
        items.append(rng.choice(np.arange(-50, 50), size=n, replace=False))
    return scores, labels, items


@pytest.fixture
def rows_factory():
    return make_rows
