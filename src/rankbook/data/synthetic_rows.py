"""Synthetic candidate rows for the Part I chapters, each with the DataSource that names it.

- :func:`tie_block_rows`: worked rows, the relevant item first and tied with ``t - 1`` negatives;
- :func:`simulate_tie_heavy_rows`: a tie-heavy sample in the paper's row layout (Guo et al.
  2026, §4: one held-out relevant item stored first, then sampled negatives), coarse integer
  scores so that exact ties are the rule;
- :func:`random_small_rows`: small ragged rows with graded labels for exact checks.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from rankaudit._checks import check_int, check_unit_interval
from rankaudit._version import __version__
from rankbook.data.source import DataSource

__all__ = [
    "TieHeavySample",
    "random_small_rows",
    "simulate_tie_heavy_rows",
    "synthetic_source",
    "tie_block_rows",
]

_GENERATORS = ("tie_block_rows", "simulate_tie_heavy_rows", "random_small_rows")


def synthetic_source(generator: str, name: str, **params: Any) -> DataSource:
    """The :class:`DataSource` of rows made by one of this module's generators with ``params``."""
    if generator not in _GENERATORS:
        raise ValueError(f"generator must be one of {list(_GENERATORS)}, got {generator!r}")
    return DataSource(
        name=name,
        kind="simulated",
        version=__version__,
        generator=f"rankbook.data.synthetic_rows.{generator}",
        details=dict(params),
    )


def tie_block_rows(
    block_sizes: Sequence[int], n_candidates: int = 31, above: int = 0
) -> tuple[np.ndarray, np.ndarray]:
    """Rows with the relevant item first, tied with ``t - 1`` negatives, one row per ``t``.

    Row ``i`` has ``n_candidates`` candidates; column 0 holds the relevant item (label 1).
    ``above`` negatives score 2 (strictly higher), the relevant item and ``t - 1``
    negatives score 1, and the remaining negatives score 0. Negatives above are stored
    *after* the tie block, so only a score-respecting sort can move them ahead.

    Returns ``(scores, labels)``, both of shape ``(len(block_sizes), n_candidates)``.
    """
    n_candidates = check_int(n_candidates, "n_candidates", lo=1)
    above = check_int(above, "above", lo=0)
    sizes = [check_int(t, "block_sizes[]", lo=1) for t in block_sizes]
    if not sizes:
        raise ValueError("block_sizes is empty")
    if max(sizes) + above > n_candidates:
        raise ValueError(
            f"block_sizes: a block of {max(sizes)} plus above={above} exceeds "
            f"n_candidates={n_candidates}"
        )
    scores = np.zeros((len(sizes), n_candidates))
    labels = np.zeros((len(sizes), n_candidates))
    labels[:, 0] = 1.0
    for i, t in enumerate(sizes):
        scores[i, :t] = 1.0
        scores[i, t : t + above] = 2.0
    return scores, labels


@dataclass(frozen=True)
class TieHeavySample:
    """Simulated candidate rows: ``item_ids[:, 0]`` is each row's relevant item."""

    user_ids: np.ndarray
    item_ids: np.ndarray
    scores: np.ndarray
    labels: np.ndarray
    source: DataSource


def simulate_tie_heavy_rows(
    n_rows: int,
    *,
    n_negatives: int = 30,
    n_levels: int = 4,
    p_relevant: float = 0.6,
    p_negative: float = 0.3,
    n_items: int = 1682,
    seed: int = 0,
) -> TieHeavySample:
    """A tie-heavy sample in the paper's row layout: one relevant item first, then negatives.

    Generator (one ``numpy.random.default_rng(seed)``):

    - user ids ``1..n_rows``; per row, ``1 + n_negatives`` distinct item ids drawn
      uniformly from ``1..n_items`` (the relevant item is the first draw);
    - integer scores, like a count of shared attributes: the relevant item's score is
      ``Binomial(n_levels - 1, p_relevant)``, each negative's ``Binomial(n_levels - 1,
      p_negative)``, so the score is informative but coarse and exact ties are the rule;
    - labels 1 for the relevant item (column 0) and 0 for the negatives.
    """
    n_rows = check_int(n_rows, "n_rows", lo=1)
    n_negatives = check_int(n_negatives, "n_negatives", lo=1)
    n_levels = check_int(n_levels, "n_levels", lo=2)
    n_items = check_int(n_items, "n_items", lo=n_negatives + 1)
    check_unit_interval(p_relevant, "p_relevant")
    check_unit_interval(p_negative, "p_negative")
    rng = np.random.default_rng(check_int(seed, "seed", lo=0))
    n = 1 + n_negatives
    keys = rng.random((n_rows, n_items))
    item_ids = np.argpartition(keys, n - 1, axis=1)[:, :n]
    item_ids = np.take_along_axis(item_ids, np.argsort(np.take_along_axis(keys, item_ids, 1), 1), 1)
    item_ids = item_ids.astype(np.int64) + 1
    scores = np.empty((n_rows, n))
    scores[:, 0] = rng.binomial(n_levels - 1, p_relevant, size=n_rows)
    scores[:, 1:] = rng.binomial(n_levels - 1, p_negative, size=(n_rows, n_negatives))
    labels = np.zeros((n_rows, n))
    labels[:, 0] = 1.0
    params = dict(
        n_rows=n_rows,
        n_negatives=n_negatives,
        n_levels=n_levels,
        p_relevant=float(p_relevant),
        p_negative=float(p_negative),
        n_items=n_items,
        seed=int(seed),
    )
    source = synthetic_source("simulate_tie_heavy_rows", "Tie-heavy candidate rows", **params)
    users = np.arange(1, n_rows + 1, dtype=np.int64)
    return TieHeavySample(users, item_ids, scores, labels, source)


def random_small_rows(
    n_rows: int,
    *,
    max_candidates: int = 7,
    n_levels: int = 3,
    max_label: int = 3,
    seed: int = 0,
) -> list[tuple[np.ndarray, np.ndarray]]:
    """Small ragged rows for exact checks: heavy ties, several relevant items, graded labels.

    Each row has ``2..max_candidates`` candidates, integer scores in ``0..n_levels-1`` and
    labels in ``0..max_label`` with at least one label > 0.
    """
    n_rows = check_int(n_rows, "n_rows", lo=1)
    max_candidates = check_int(max_candidates, "max_candidates", lo=2)
    rng = np.random.default_rng(check_int(seed, "seed", lo=0))
    rows = []
    for _ in range(n_rows):
        n = int(rng.integers(2, max_candidates + 1))
        scores = rng.integers(0, n_levels, size=n).astype(np.float64)
        labels = rng.integers(0, max_label + 1, size=n).astype(np.float64)
        if not (labels > 0).any():
            labels[rng.integers(n)] = float(rng.integers(1, max_label + 1))
        rows.append((scores, labels))
    return rows
