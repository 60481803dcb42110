"""NDCG against the qrels' ideal: IDCG@k from every judged label of a row (trec_eval's
``ndcg_cut``), and the kernels' NDCG rescaled to it (Jarvelin & Kekalainen, ACM TOIS 2002).
"""

from __future__ import annotations

import numpy as np

from rankaudit.ties.validation import (
    Batch,
)

__all__ = ["rescale_to_ideal"]


def _idcg_per_row(labels: np.ndarray, row_of: np.ndarray, n_rows: int, k: int) -> np.ndarray:
    """IDCG@k of every row from flat ``labels`` with their row numbers (vectorised)."""
    pos = labels > 0
    lab, row = labels[pos].astype(np.float64), row_of[pos]
    order = np.lexsort((-lab, row))
    lab, row = lab[order], row[order]
    starts = np.concatenate(([0], np.cumsum(np.bincount(row, minlength=n_rows))[:-1]))
    rank = np.arange(len(lab)) - starts[row] + 1
    keep = rank <= k
    gains = lab[keep] / np.log2(rank[keep] + 1.0)
    return np.bincount(row[keep], weights=gains, minlength=n_rows)


def rescale_to_ideal(
    values: dict[str, np.ndarray], batch: Batch, ideal_labels: object, k: int
) -> None:
    """Take IDCG@k from ``ideal_labels`` (one sequence per row) instead of the candidates."""
    n = batch.n_rows
    rows = list(ideal_labels)  # type: ignore[call-overload]
    if len(rows) != n:
        raise ValueError(f"ideal_labels must hold one sequence per row ({n}); got {len(rows)}")
    arrays = [np.asarray(r, dtype=np.float64).reshape(-1) for r in rows]
    flat = np.concatenate(arrays) if arrays else np.zeros(0)
    if not np.all(np.isfinite(flat)):
        raise ValueError("ideal_labels: a label is NaN or infinite")
    ideal = _idcg_per_row(flat, np.repeat(np.arange(n), [len(a) for a in arrays]), n, k)
    _, row_len, offsets = batch.kernel_layout()
    flat_labels = np.asarray(batch.labels, dtype=np.float64).reshape(-1)
    if row_len >= 0:
        lengths, start = np.full(n, row_len), 0
    else:
        lengths, start = np.diff(offsets), int(offsets[0])
    own = _idcg_per_row(
        flat_labels[start : start + int(lengths.sum())], np.repeat(np.arange(n), lengths), n, k
    )
    short = np.flatnonzero(ideal < own * (1 - 1e-12))
    if len(short):
        raise ValueError(
            f"ideal_labels: {batch.describe_row(int(short[0]))} gives IDCG@{k} "
            f"{ideal[short[0]]:.6g} "
            f"below that of its own candidates ({own[short[0]]:.6g}); pass every judged label"
        )
    ratio = np.divide(own, ideal, out=np.zeros(n), where=ideal > 0)
    name = f"nDCG@{k}"
    values[name] = values[name] * ratio
    if f"{name}_var" in values:
        values[f"{name}_var"] = values[f"{name}_var"] * ratio**2
    if f"{name}_std" in values:
        values[f"{name}_std"] = values[f"{name}_std"] * ratio
