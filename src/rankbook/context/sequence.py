"""Sequential attention contextualisation (Sheng et al., 2024, §2.3): ``CosSim_seq:trans``,
``CosSim_seq:perc``.

.. math::

    \\mathrm{CosSim}_{i,seq} = \\frac{E_{item_i^n} \\cdot E_{seq}}
        {\\lVert E_{item_i^n} \\rVert \\lVert E_{seq} \\rVert},
    \\quad E_{seq:trans} = \\mathrm{Transformer}(E_{item^{n-5}}, \\dots, E_{item^{n-1}}),
    \\quad E_{seq:perc} = \\mathrm{SelfAttention}(
        \\mathrm{CrossAttention}(Q, \\{E_{item^{n-j}}\\})).

This module connects the encoders (:mod:`rankbook.context.sequence_models`) and their LambdaRank
training (:mod:`rankbook.context.sequence_training`, :mod:`rankbook.context.losses`) to the
session tables of :mod:`rankbook.data.sessions` and the feature table of
:mod:`rankbook.context.features`:

- :func:`sequence_data_from_log` turns a :class:`~rankbook.data.sessions.SessionLog` (or any log in
  the same schema, e.g. Diginetica) plus item/query embeddings into :class:`SequenceData`.
- :func:`encoder_rows` picks the encoder-training queries and enforces **no leakage**: they come
  from an earlier time window than every query the ranker trains, validates or tests on (disjoint
  sessions, and the last encoder query is strictly earlier than the first ranker query).
- :func:`encoder_learning` says whether an encoder *learned*: its kept epoch beats the untrained
  encoder (epoch 0, the plain mean of the clicks) on validation NDCG@10 by more than the
  seed-to-seed spread of the kept NDCG over encoder seeds **and** by more than two paired standard
  errors of the per-query gain (the kept epoch is the best of several on the same validation
  queries, so a gain inside that noise is what selection alone produces):
  ``learned = g > max_s best_s - min_s best_s  and  g > 2 max_s SE_s``, ``g = min_s(best_s -
  ndcg_0)`` (with one seed the spread is unknown and ``learned`` is False).
- :func:`fit_sequence_features` trains both encoders and returns the two feature columns aligned
  with the rows of :func:`rankbook.context.features.serp_frame` / ``build_feature_table``, NaN for
  queries with no earlier click in their session (as the other contextual features).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from rankbook.context.features import serp_frame
from rankbook.context.sequence_training import (
    SequenceData,
    TrainResult,
    sequence_feature,
    time_windows,
    train_encoder,
)

__all__ = [
    "FEATURE_NAMES",
    "SequenceFeatures",
    "check_no_leakage",
    "encoder_learning",
    "encoder_rows",
    "fit_sequence_features",
    "sequence_data_from_log",
    "serp_matrix_positions",
]

#: Feature column names, as in the paper's Table 1.
FEATURE_NAMES = {"trans": "CosSim_seq:trans", "perc": "CosSim_seq:perc"}


def serp_matrix_positions(
    frame: pd.DataFrame, n_queries: int
) -> tuple[np.ndarray, np.ndarray, int]:
    """Row (query position ``qpos``) and column (slot within its SERP) of every frame row, and the
    width.

    ``frame`` is :func:`rankbook.context.features.serp_frame` (sorted by ``qpos`` then ``rank``).
    """
    for col in ("qpos", "item_id", "label"):
        if col not in frame:
            raise ValueError(
                f"frame needs a {col!r} column (see rankbook.context.features.serp_frame)"
            )
    qpos = frame["qpos"].to_numpy(np.int64)
    if len(qpos) and (qpos.min() < 0 or qpos.max() >= n_queries):
        raise ValueError(f"frame.qpos must lie in [0, {n_queries})")
    if (np.diff(qpos) < 0).any():
        raise ValueError("frame must be sorted by qpos (use rankbook.context.features.serp_frame)")
    starts = np.r_[0, np.flatnonzero(np.diff(qpos)) + 1]
    slot = np.arange(len(qpos)) - np.repeat(starts, np.diff(np.r_[starts, len(qpos)]))
    width = int(slot.max()) + 1 if len(slot) else 1
    return qpos, slot, width


def sequence_data_from_log(
    log,
    frame: pd.DataFrame,
    history: np.ndarray,
    item_vectors: np.ndarray,
    query_vectors: np.ndarray,
) -> SequenceData:
    """:class:`SequenceData` over every query of ``log`` (row = position in ``log.queries``).

    ``frame``: :func:`~rankbook.context.features.serp_frame` of the log; ``history``:
    :func:`~rankbook.context.features.click_history` (most recent first, ``-1`` pads), flipped here
    to chronological order; ``item_vectors`` aligned with ``item_id``; ``query_vectors`` with
    ``log.queries`` rows.
    """
    n_q = len(log.queries)
    if history.shape[0] != n_q or query_vectors.shape[0] != n_q:
        raise ValueError(
            f"history ({history.shape[0]} rows) and query_vectors ({query_vectors.shape[0]} rows) "
            f"must align with log.queries ({n_q} rows)"
        )
    if history.shape[1] != 5:
        raise ValueError(f"history must hold the last 5 clicks; got {history.shape[1]} columns")
    qpos, slot, width = serp_matrix_positions(frame, n_q)
    serp = np.full((n_q, width), -1, dtype=np.int64)
    labels = np.zeros((n_q, width), dtype=np.int64)
    serp[qpos, slot] = frame["item_id"].to_numpy(np.int64)
    labels[qpos, slot] = frame["label"].to_numpy(np.int64)
    return SequenceData(
        item_embs=np.asarray(item_vectors, dtype=np.float32),
        query_embs=np.asarray(query_vectors, dtype=np.float32),
        query_index=np.arange(n_q),
        click_items=np.ascontiguousarray(history[:, ::-1]).astype(np.int64),
        serp_items=serp,
        labels=labels,
    )


def check_no_leakage(
    queries: pd.DataFrame, encoder_mask: np.ndarray, ranker_mask: np.ndarray
) -> None:
    """Raise ValueError unless encoder queries precede, and share no session with, ranker
    queries."""
    enc, rk = np.asarray(encoder_mask, bool), np.asarray(ranker_mask, bool)
    if (enc & rk).any():
        raise ValueError(
            f"query row {int(np.argmax(enc & rk))} is in both the encoder and the ranker data"
        )
    shared = set(queries.session_id[enc]) & set(queries.session_id[rk])
    if shared:
        raise ValueError(
            f"session {sorted(shared)[0]!r} feeds both the encoder and the ranker data"
        )
    if enc.any() and rk.any():
        ts = pd.to_datetime(queries.timestamp)
        if not ts[enc].max() < ts[rk].min():
            raise ValueError(
                f"encoder data ends at {ts[enc].max()}, not before the ranker data starts at "
                f"{ts[rk].min()}"
            )


def encoder_rows(
    queries: pd.DataFrame,
    window: pd.Series | np.ndarray,
    *,
    encoder_window: str = "encoder",
    ranker_windows: Iterable[str] = ("train", "valid", "test"),
) -> np.ndarray:
    """Boolean mask of the queries that may train the sequence encoders.

    ``window`` labels each query with its time window (e.g. from
    :func:`rankbook.data.sessions.assign_time_windows`, which assigns whole sessions by start
    time).
    A session that started in the encoder window may run past the first ranker query: its later
    queries are dropped (used by nobody), so that the encoder data ends strictly before the ranker's
    first query (paper §2.3.1: "collected from different time frames than the ranking model's
    data"). Checked by :func:`check_no_leakage`.
    """
    window = np.asarray(window, dtype=object)
    if len(window) != len(queries):
        raise ValueError(f"window has {len(window)} entries, queries has {len(queries)}")
    enc = window == encoder_window
    ranker = np.isin(window, list(ranker_windows))
    if not enc.any():
        raise ValueError(f"no query is in the encoder window {encoder_window!r}")
    if ranker.any():
        ts = pd.to_datetime(queries.timestamp).to_numpy()
        enc &= ts < ts[ranker].min()
    check_no_leakage(queries, enc, ranker)
    return enc


@dataclass
class SequenceFeatures:
    """Output of :func:`fit_sequence_features`."""

    columns: pd.DataFrame  # one column per encoder, aligned with the frame rows
    results: dict[str, TrainResult] = field(default_factory=dict)
    n_train_queries: int = 0
    n_valid_queries: int = 0
    encoder_rows: np.ndarray | None = None
    valid: SequenceData | None = None  # the encoder window's validation queries

    def history(self) -> pd.DataFrame:
        """Per-epoch training history of every encoder, long format."""
        return pd.concat(
            [r.history.assign(encoder=FEATURE_NAMES[k]) for k, r in self.results.items()],
            ignore_index=True,
        )


def fit_sequence_features(
    log,
    frame: pd.DataFrame,
    history: np.ndarray,
    *,
    item_vectors: np.ndarray,
    query_vectors: np.ndarray,
    window: pd.Series | np.ndarray,
    kinds: Iterable[str] = ("trans", "perc"),
    valid_fraction: float = 0.15,
    seed: int = 0,
    device: object = None,  # a torch.device or a device string
    progress: bool = True,
    train_kwargs: Mapping[str, object] | None = None,
) -> SequenceFeatures:
    """Train each encoder on the encoder window and compute ``CosSim_seq:<kind>`` for every frame
    row.

    The encoders learn from the log's own SERPs (:func:`~rankbook.context.features.serp_frame`),
    so ``frame`` (the ranker's feature table, sorted by ``qpos`` then ``rank``) may hold the
    ranker's windows only. The encoder window's queries (:func:`encoder_rows`) are split by time:
    the last ``valid_fraction`` pick the best epoch (validation NDCG@10), the rest train. Features
    are then computed for the queries of ``frame``. ``train_kwargs`` go to :func:`train_encoder`
    (``d_model``, ``epochs``, ...).
    """
    if not 0 < valid_fraction < 1:
        raise ValueError(f"valid_fraction must be in (0, 1); got {valid_fraction}")
    data = sequence_data_from_log(log, serp_frame(log), history, item_vectors, query_vectors)
    enc = encoder_rows(log.queries, window)
    rows = np.flatnonzero(enc)
    ts = pd.to_datetime(log.queries.timestamp).to_numpy()[rows]
    split = time_windows(ts, {"fit": 1 - valid_fraction, "valid": valid_fraction})
    train, valid = data.subset(rows[split["fit"]]), data.subset(rows[split["valid"]])
    qpos, slot, _ = serp_matrix_positions(frame, len(log.queries))
    wanted, at = np.unique(qpos, return_inverse=True)  # the frame's queries, once each
    columns, results = {}, {}
    for kind in kinds:
        res = train_encoder(
            kind,
            train,
            valid,
            seed=seed,
            device=device,
            progress=progress,
            **dict(train_kwargs or {}),
        )
        feat = sequence_feature(res.model, data.subset(wanted))
        columns[FEATURE_NAMES[kind]] = feat[at, slot]
        results[kind] = res
    return SequenceFeatures(
        pd.DataFrame(columns, index=frame.index),
        results,
        n_train_queries=len(train),
        n_valid_queries=len(valid),
        encoder_rows=enc,
        valid=valid,
    )


def encoder_learning(runs: Iterable[SequenceFeatures]) -> pd.DataFrame:
    """One line per encoder over the runs of several encoder seeds (module docstring).

    Columns: ``encoder, feature, n_seeds, ndcg_epoch0, best_ndcg`` (list, per seed),
    ``gain_min`` (smallest gain over epoch 0), ``seed_spread`` (range of the kept NDCG),
    ``gain_se`` (largest paired standard error of a seed's gain), ``best_epoch`` (list),
    ``learned``.
    """
    runs = list(runs)
    if not runs:
        raise ValueError("runs must hold at least one SequenceFeatures")
    out = []
    for kind in runs[0].results:
        hist = [r.results[kind].history.set_index("epoch").valid_ndcg for r in runs]
        best_epoch = [int(r.results[kind].best_epoch) for r in runs]
        best = np.array([h.loc[e] for h, e in zip(hist, best_epoch, strict=True)], dtype=float)
        epoch0 = np.array([h.loc[0] for h in hist], dtype=float)
        gain_min = float(np.min(best - epoch0))
        spread = float(best.max() - best.min())
        se = float(np.nanmax([r.results[kind].gain_se for r in runs]))
        noise = 0.0 if np.isnan(se) else 2.0 * se
        out.append(
            {
                "encoder": kind,
                "feature": FEATURE_NAMES[kind],
                "n_seeds": len(runs),
                "ndcg_epoch0": float(epoch0[0]),
                "best_ndcg": best.tolist(),
                "best_epoch": best_epoch,
                "gain_min": gain_min,
                "seed_spread": spread,
                "gain_se": se,
                "learned": bool(len(runs) > 1 and gain_min > spread and gain_min > noise),
            }
        )
    return pd.DataFrame(out)
