"""Data -> candidate rows -> scores: everything a Part II audit evaluates.

The audit design follows Guo et al. (2026, "Tie Handling Is Part of the Evaluation Protocol",
arXiv:2609.26977, §4-5): each row holds the held-out relevant item first and ``n_negatives``
sampled negatives; candidates and scores stay fixed and only the tie rule changes.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd

from rankaudit.scalars import plain
from rankbook.data.amazon import load_amazon_beauty
from rankbook.data.candidates import CandidateRows, build_candidate_rows
from rankbook.data.movielens import load_movielens
from rankbook.data.source import DataSource
from rankbook.scores import FAMILIES, compute_scores

__all__ = ["DATASETS", "AuditRun", "prepare_audit"]

#: The datasets an audit can load (a real folder via ``data_dir``, else the default).
DATASETS = ("movielens", "amazon")


@dataclass(frozen=True)
class AuditRun:
    """Candidate rows and every score family's scores for one dataset."""

    dataset: str
    source: DataSource
    rows: CandidateRows
    scores: dict[str, np.ndarray]
    train: pd.DataFrame


def _load(dataset: str, data_dir: str | Path | None, simulate: dict | None):
    if dataset == "movielens":
        return load_movielens(data_dir)
    if dataset == "amazon":
        return load_amazon_beauty(data_dir, simulate=simulate)
    raise ValueError(f"dataset must be one of {list(DATASETS)}, got {dataset!r}")


def prepare_audit(
    dataset: str,
    *,
    data_dir: str | Path | None = None,
    n_rows: int | str | None = None,
    n_negatives: int = 30,
    seed: int = 42,
    families: Sequence[str] | None = None,
    simulate: dict | None = None,
) -> AuditRun:
    """Load ``dataset`` ("movielens" or "amazon"), build candidate rows, compute the scores.

    ``n_rows``: rows (test users) to sample, ``None``/``"all"`` for every eligible user.
    ``simulate``: overrides of the Amazon simulator's arguments when ``data_dir`` is None.
    """
    ratings, attributes, source = _load(dataset, data_dir, simulate)
    n = None if n_rows in (None, "all") else int(n_rows)
    # Work on order-preserving integer codes (sorted unique ids -> 0..n-1): string ids are slow
    # in pandas, and since code order equals id order every step gives the same rows as raw ids.
    users = np.sort(pd.unique(ratings["user_id"]))
    items = np.asarray(attributes.index)
    order = np.argsort(items, kind="stable")
    items = items[order]
    coded_attrs = attributes.iloc[order].set_axis(pd.RangeIndex(len(items), name="item_id"))
    item_codes = pd.Index(items).get_indexer(ratings["item_id"].to_numpy())
    if (item_codes < 0).any():
        bad = plain(ratings["item_id"].to_numpy()[item_codes < 0][0])
        raise ValueError(f"ratings item {bad!r} has no row in the item attributes")
    coded = pd.DataFrame(
        {
            "user_id": pd.Index(users).get_indexer(ratings["user_id"].to_numpy()),
            "item_id": item_codes,
            "rating": ratings["rating"].to_numpy(np.float64),
            "timestamp": ratings["timestamp"].to_numpy(),
        }
    )
    rows_c, train_c = build_candidate_rows(
        coded, n_negatives=n_negatives, seed=seed, n_rows=n, item_pool=np.arange(len(items))
    )
    scores = compute_scores(
        rows_c.user_ids, rows_c.item_ids, train_c, coded_attrs, families or tuple(FAMILIES)
    )
    rows = CandidateRows(
        user_ids=users[rows_c.user_ids],
        item_ids=items[rows_c.item_ids],
        labels=rows_c.labels,
        seed=rows_c.seed,
        policy=rows_c.policy,
    )
    train = train_c.assign(
        user_id=users[train_c["user_id"].to_numpy()], item_id=items[train_c["item_id"].to_numpy()]
    )
    return AuditRun(dataset=dataset, source=source, rows=rows, scores=scores, train=train)
