"""Any measure of the core registry on rectangular (or ragged) rows: the rows laid out as the
list kernels' queries (:mod:`rankaudit.measures.list_kernels`), so a measure declared once in
:mod:`rankaudit.measures.registry` works here as it does on runs.

Every candidate of a row is judged (its label is its qrels label); the judged labels of a row,
from which ``R``, ``N`` and IDCG come, are its candidates' labels, or ``ideal_labels`` (one
sequence per row: every judged label of the row's query, as trec_eval's qrels) when given.
Labels must be whole numbers here (the registry's measures take integer grades, as trec_eval).
Every rule of the rectangular API works here: a key rule sorts by its key, the bounds and the
expectation come from the envelope, and ``random`` orders each tie block by the row kernel's
own draws (:func:`rankaudit.measures.row_sampled.random_tie_keys`), averaged over
``n_repeats``.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from rankaudit._checks import LABEL_LIMIT
from rankaudit.measures.list_evaluate import Draws, evaluate_lists, evaluate_sampled
from rankaudit.measures.list_support import ListDocs, QueryJudgments, score_order_kernel
from rankaudit.measures.registry import Measure
from rankaudit.measures.row_sampled import RANDOM_DOMAIN
from rankaudit.measures.rules import rule
from rankaudit.ties.tie_context import row_tie_keys
from rankaudit.ties.validation import Batch, row_keys

__all__ = ["evaluate_measures"]


def _flat(batch: Batch) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``(offsets, scores, labels)`` of the rows, flat and contiguous."""
    lengths = batch.row_lengths()
    offsets = np.concatenate(([0], np.cumsum(lengths))).astype(np.int64)
    start = batch.row_start(0) if batch.n_rows else 0
    size = int(offsets[-1])
    scores = np.asarray(batch.scores).reshape(-1)[start : start + size].astype(np.float64)
    labels = np.asarray(batch.labels, dtype=np.float64).reshape(-1)[start : start + size]
    return offsets, scores, labels


def _check(batch: Batch, scores: np.ndarray, labels: np.ndarray) -> None:
    bad = np.flatnonzero(~np.isfinite(scores))
    if len(bad):
        raise ValueError(f"scores: {batch.describe_position(int(bad[0]))} is NaN or infinite")
    ok = np.isfinite(labels) & (labels >= 0) & (labels < LABEL_LIMIT) & (labels == np.floor(labels))
    bad = np.flatnonzero(~ok)
    if len(bad):
        raise ValueError(
            f"labels: {batch.describe_position(int(bad[0]))} is {labels[bad[0]]!r}; with "
            "measures=, labels are whole-number grades in [0, 2**53) (as trec_eval's qrels)"
        )


def _judged(batch: Batch, labels: np.ndarray, ideal_labels: object) -> QueryJudgments:
    if ideal_labels is None:
        rows = np.repeat(np.arange(batch.n_rows), batch.row_lengths())
        flat = labels.astype(np.int64)
    else:
        seqs = [np.asarray(r, dtype=np.float64).reshape(-1) for r in ideal_labels]  # type: ignore[attr-defined]
        if len(seqs) != batch.n_rows:
            raise ValueError(
                f"ideal_labels must hold one sequence per row ({batch.n_rows}); got {len(seqs)}"
            )
        flat_f = np.concatenate(seqs) if seqs else np.zeros(0)
        if not np.all(np.isfinite(flat_f) & (flat_f == np.floor(flat_f))):
            raise ValueError("ideal_labels: a label is NaN, infinite or not a whole number")
        flat = flat_f.astype(np.int64)
        rows = np.repeat(np.arange(batch.n_rows), [len(s) for s in seqs])
    order = np.lexsort((-flat, rows))
    offsets = np.concatenate(([0], np.cumsum(np.bincount(rows, minlength=batch.n_rows))))
    return QueryJudgments(offsets.astype(np.int64), np.ascontiguousarray(flat[order]))


def evaluate_measures(
    batch: Batch,
    measures: Sequence[Measure],
    ties: str,
    *,
    seed: int = 0,
    ideal_labels: object = None,
    n_repeats: int = 1,
) -> tuple[dict[str, np.ndarray], np.ndarray]:
    """``({str(measure): per-row values}, has_relevant)`` of the rows under ``ties``; under
    ``random`` with ``n_repeats > 1`` also ``{str(measure)}_std``, the sample standard
    deviation over the repeats (as the default measures' ``*_std`` columns)."""
    declared = rule(ties)
    offsets, scores, labels = _flat(batch)
    _check(batch, scores, labels)
    order, _ = score_order_kernel(offsets, scores)
    docs = ListDocs(offsets, order, scores, labels.astype(np.int64), np.ones(len(scores), bool))
    judg = _judged(batch, labels, ideal_labels)
    names = [str(m) for m in measures]
    values: dict[str, np.ndarray] = {}
    if declared.order == "sample":
        draws = Draws(row_keys(batch, seed, domain=RANDOM_DOMAIN), n_repeats)
        out, std = evaluate_sampled(docs, judg, measures, 1, draws)
        if std is not None:
            values.update({f"{name}_std": std[:, j] for j, name in enumerate(names)})
    else:
        keys = row_tie_keys(batch, ties, seed) if declared.order == "key" else None
        out = evaluate_lists(docs, judg, measures, ties, 1, keys)
    has_rel = (
        np.bincount(
            np.repeat(np.arange(batch.n_rows), np.diff(offsets)),
            weights=labels > 0,
            minlength=batch.n_rows,
        )
        > 0
    )
    return {**{name: out[:, j] for j, name in enumerate(names)}, **values}, has_rel
