"""LightGBM LambdaMART ranker over a long (query, item) feature table.

LambdaMART (Burges, 2010, "From RankNet to LambdaRank to LambdaMART: an overview", MSR-TR-2010-82)
fits gradient-boosted trees to the LambdaRank gradients ``lambda_ij = -|delta NDCG_ij| / (1 +
exp(s_i - s_j))``, here with LightGBM's ``lambdarank`` objective (Ke et al., 2017, NeurIPS). Gains
follow the paper's engagement order sale > click > none: ``label_gain = (0, 1, 3)`` for labels 0, 1,
2 (LightGBM's default ``2**label - 1``). Missing feature values (NaN, e.g. no earlier click) are
handled natively: each split learns on which side missing values go.

Tuning (:func:`tune_lambdamart`): a small grid over learning rate and leaves, each fit stopped
early on the validation window (so the number of rounds is tuned too); the setting with the best
validation NDCG@10 is kept. The test window is never read.

What a fitted model uses (:func:`feature_splits`): the number of splits on each feature, and
their total gain, in the trees :func:`predict_scores` uses. With feature bagging
(``feature_fraction < 1``) and early stopping a model can stop before it ever splits on a
feature it was given: its scores then do not depend on that feature at all.

Public API: :class:`LambdaMARTConfig`, :func:`group_sizes`, :func:`shuffle_within_query`,
:func:`train_lambdamart`, :func:`predict_scores`, :func:`feature_splits`,
:func:`tune_lambdamart`, :data:`TUNING_GRID`.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import asdict, dataclass, replace
from typing import Any

import numpy as np
import pandas as pd

from rankaudit._optional import require

__all__ = [
    "TUNING_GRID",
    "LambdaMARTConfig",
    "feature_splits",
    "group_sizes",
    "predict_scores",
    "shuffle_within_query",
    "train_lambdamart",
    "tune_lambdamart",
]

#: The grid :func:`tune_lambdamart` searches: learning rates x leaves (rounds by early stopping).
TUNING_GRID = {"learning_rate": (0.05, 0.15), "num_leaves": (7, 15, 31)}


@dataclass(frozen=True)
class LambdaMARTConfig:
    """LightGBM settings; row/feature bagging make ``seed`` matter, so seed spread is measurable."""

    num_boost_round: int = 400
    learning_rate: float = 0.15
    num_leaves: int = 15
    min_data_in_leaf: int = 100
    feature_fraction: float = 0.8
    bagging_fraction: float = 0.6
    bagging_freq: int = 1
    max_bin: int = 31
    label_gain: tuple[float, ...] = (0.0, 1.0, 3.0)
    early_stopping_rounds: int = 20
    num_threads: int = (
        1  # OpenMP threads spin badly on a shared 2-core machine; 1 was 7x faster there
    )

    def lgb_params(self, seed: int) -> dict:
        p = asdict(self)
        for k in ("num_boost_round", "early_stopping_rounds"):
            p.pop(k)
        p.update(
            objective="lambdarank",
            metric="ndcg",
            eval_at=[10],
            label_gain=list(self.label_gain),
            seed=seed,
            deterministic=True,
            force_row_wise=True,
            verbosity=-1,
        )
        return p


def group_sizes(query_ids: Sequence | np.ndarray) -> np.ndarray:
    """Sizes of consecutive runs of equal ``query_ids``; raises if a query's rows are not
    contiguous."""
    q = np.asarray(query_ids)
    if len(q) == 0:
        raise ValueError("group_sizes: no rows")
    starts = np.flatnonzero(np.r_[True, q[1:] != q[:-1]])
    if len(starts) != len(pd.unique(q)):
        raise ValueError("rows of each query_id must be contiguous (sort the table by query first)")
    return np.diff(np.r_[starts, len(q)])


def shuffle_within_query(frame: pd.DataFrame, seed: int) -> pd.DataFrame:
    """Rows permuted uniformly at random inside each query (queries stay contiguous, in their
    order)."""
    rng = np.random.default_rng(seed)
    q = frame.query_id.to_numpy()
    starts = np.r_[0, np.flatnonzero(q[1:] != q[:-1]) + 1]
    group = np.repeat(np.arange(len(starts)), np.diff(np.r_[starts, len(q)]))
    order = np.lexsort((rng.random(len(q)), group))
    return frame.iloc[order]


def _dataset(frame: pd.DataFrame, features: Sequence[str], reference=None):
    lgb = require("lightgbm", purpose="LambdaMART")

    missing = [f for f in features if f not in frame.columns]
    if missing:
        raise ValueError(f"feature column(s) {missing} not in the table")
    x = frame[list(features)].to_numpy(dtype=np.float64)
    return lgb.Dataset(
        x,
        label=frame.label.to_numpy(),
        group=group_sizes(frame.query_id.to_numpy()),
        feature_name=[f.replace(":", "_") for f in features],
        reference=reference,
        params={"max_bin": 31, "verbosity": -1},
        free_raw_data=True,
    )


def train_lambdamart(
    train: pd.DataFrame,
    features: Sequence[str],
    *,
    valid: pd.DataFrame | None = None,
    seed: int = 0,
    config: LambdaMARTConfig | None = None,
    shuffle: bool = True,
):
    """Fit a LambdaMART booster on ``train`` (columns ``query_id``, ``label`` and ``features``).

    With ``valid``, boosting stops early when validation NDCG@10 has not improved for
    ``config.early_stopping_rounds`` rounds.

    ``shuffle=True`` (default) permutes rows within each query first (seeded). LightGBM sorts each
    list by the current scores with ties left in **input order**, both in the lambdarank gradients
    (at iteration 0 every score is tied) and in its NDCG@k early-stopping metric. A table in logged
    SERP order would thereby leak the production ranking into training and make a one-tree,
    tie-heavy model look best on validation (we saw early stopping pick iteration 1 for exactly this
    reason). Shuffling breaks ties at random instead.
    """
    lgb = require("lightgbm", purpose="LambdaMART")

    cfg = config or LambdaMARTConfig()
    if not features:
        raise ValueError("features must name at least one column")
    if shuffle:
        train = shuffle_within_query(train, seed)
        valid = None if valid is None else shuffle_within_query(valid, seed + 1)
    dtrain = _dataset(train, features)
    valid_sets, callbacks = [], []
    if valid is not None:
        valid_sets = [_dataset(valid, features, reference=dtrain)]
        callbacks = [lgb.early_stopping(cfg.early_stopping_rounds, verbose=False)]
    return lgb.train(
        cfg.lgb_params(seed),
        dtrain,
        num_boost_round=cfg.num_boost_round,
        valid_sets=valid_sets,
        callbacks=callbacks,
    )


def predict_scores(model, frame: pd.DataFrame, features: Sequence[str]) -> np.ndarray:
    """Scores for every row of ``frame`` (float64)."""
    x = frame[list(features)].to_numpy(dtype=np.float64)
    it = model.best_iteration if getattr(model, "best_iteration", 0) else None
    return np.asarray(model.predict(x, num_iteration=it), dtype=np.float64)


def feature_splits(model, features: Sequence[str]) -> pd.DataFrame:
    """How often ``model`` splits on each of ``features`` (the list it was trained with, in order)
    and the total gain of those splits, counted over the trees :func:`predict_scores` uses (up
    to the best iteration when the fit stopped early; LightGBM's
    ``Booster.feature_importance``). One row per feature, index ``features``, columns
    ``splits`` (int) and ``gain`` (float); a feature with 0 splits plays no part in the scores.
    """
    features = list(features)
    if model.num_feature() != len(features):
        raise ValueError(f"model has {model.num_feature()} features but {len(features)} were named")
    it = model.best_iteration if getattr(model, "best_iteration", 0) else 0
    splits = model.feature_importance(importance_type="split", iteration=it)
    gain = model.feature_importance(importance_type="gain", iteration=it)
    return pd.DataFrame(
        {"splits": np.asarray(splits, dtype=np.int64), "gain": np.asarray(gain, dtype=np.float64)},
        index=pd.Index(features, name="feature"),
    )


def tune_lambdamart(
    train: pd.DataFrame,
    valid: pd.DataFrame,
    features: Sequence[str],
    *,
    seed: int = 0,
    base: LambdaMARTConfig | None = None,
    grid: dict[str, Sequence[Any]] | None = None,
) -> tuple[LambdaMARTConfig, list[dict[str, Any]]]:
    """Pick learning rate and leaves on the validation window; rounds by early stopping.

    Every ``(learning_rate, num_leaves)`` of ``grid`` (default :data:`TUNING_GRID`) is fitted on
    ``train`` with ``features`` and stopped early on ``valid``; the kept setting maximises the
    validation NDCG@10 at its best iteration (first in grid order on a tie). Returns the tuned
    config (``base`` with the chosen values) and one record per grid point: ``learning_rate``,
    ``num_leaves``, ``best_iteration``, ``valid_ndcg10``, ``chosen``.
    """
    cfg = base or LambdaMARTConfig()
    grid = dict(grid or TUNING_GRID)
    if set(grid) != {"learning_rate", "num_leaves"} or not all(grid.values()):
        raise ValueError("grid must give non-empty 'learning_rate' and 'num_leaves' values")
    records = []
    for lr in grid["learning_rate"]:
        for leaves in grid["num_leaves"]:
            trial = replace(cfg, learning_rate=float(lr), num_leaves=int(leaves))
            model = train_lambdamart(train, features, valid=valid, seed=seed, config=trial)
            score = float(model.best_score["valid_0"]["ndcg@10"])
            records.append(
                {
                    "learning_rate": float(lr),
                    "num_leaves": int(leaves),
                    "best_iteration": int(model.best_iteration or model.current_iteration()),
                    "valid_ndcg10": score,
                    "chosen": False,
                }
            )
    best = max(range(len(records)), key=lambda i: (records[i]["valid_ndcg10"], -i))
    records[best]["chosen"] = True
    tuned = replace(
        cfg,
        learning_rate=records[best]["learning_rate"],
        num_leaves=records[best]["num_leaves"],
    )
    return tuned, records
