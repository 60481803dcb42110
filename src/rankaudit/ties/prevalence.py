"""Tie diagnostics: how often exact ties can change HR@k, NDCG@k or RR.

Per row (relevant = label > 0; a *tie block* is a maximal set of candidates
with exactly equal scores; ``g`` = candidates strictly above a block, ``t`` =
its size):

``any_tie``
    some two candidates have exactly the same score;
``boundary_tie``
    a tie block crosses the top-k boundary: the k-th and (k+1)-th highest
    scores are equal, so which candidates make the top k is up to the rule;
``relevant_tied``
    some relevant item shares its score with another candidate;
``relevant_boundary_tie``
    some relevant item's tie block crosses the boundary (``g < k < g + t``):
    its top-k membership, hence HR@k, is up to the tie rule;
``relevant_block_size``
    ``t`` of the block of the highest-scored relevant item (the one that sets
    RR), 1 when it is untied, 0 when the row has no relevant item.

The summary gives the fraction of rows with each flag, the mean
``relevant_block_size`` over rows with a relevant item, and row counts.  These
are the prevalence measures the tie-audit paper (Guo et al., arXiv:2609.26977,
§4.2) asks to report: ties inside the top k can still change NDCG@k, ties
across the boundary can change HR@k.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import numba
import numpy as np
import pandas as pd

from rankaudit.measures.row_support import (
    BAD_LABEL,
    NONFINITE_SCORE,
    OK,
    collect_relevant,
    count_above_equal,
    first_nonfinite,
    row_bounds,
)
from rankaudit.options import DEFAULT_COLUMNS, LONG_COLUMN_KEYWORDS, LongColumns, moved_keywords
from rankaudit.ties.longformat import batch_from_long
from rankaudit.ties.validation import Batch, batch_from_arrays, check_k, raise_for_status

__all__ = ["TiePrevalence", "tie_prevalence"]


@dataclass(frozen=True)
class TiePrevalence:
    """Result of :func:`tie_prevalence`: per-row flags and summary fractions."""

    rows: pd.DataFrame
    summary: pd.Series
    k: int

    def __repr__(self) -> str:
        return f"TiePrevalence(k={self.k})\n{self.summary.to_string()}"


@numba.njit(cache=True)
def prevalence_kernel(
    n_rows,
    row_len,
    offsets,
    scores,
    labels,
    k,
    max_len,
    any_tie,
    boundary,
    rel_tied,
    rel_boundary,
    block,
    n_rel,
):  # pragma: no cover - compiled
    """Per-row tie flags; ``(status, row, position)`` as the metric kernels (labels finite,
    >= 0 and < ``MAX_LABEL``; scores finite)."""
    rel = np.empty(max(max_len, 1), np.int64)
    for row in range(n_rows):
        a, n = row_bounds(row, row_len, offsets)
        m, bad = collect_relevant(labels, a, n, rel)
        if bad >= 0:
            return BAD_LABEL, row, bad
        bad = first_nonfinite(scores, a, n)
        if bad >= 0:
            return NONFINITE_SCORE, row, bad
        n_rel[row] = m
        srt = np.sort(scores[a : a + n])  # ascending
        tie = False
        for j in range(1, n):
            if srt[j] == srt[j - 1]:
                tie = True
                break
        any_tie[row] = tie
        boundary[row] = n > k and srt[n - k] == srt[n - k - 1]
        tied = False
        crosses = False
        best = -1
        for i in range(m):  # O(m log n): counts from the sorted row by binary search
            p = rel[i]
            if best < 0 or scores[a + p] > scores[a + best]:
                best = p
            lo = np.searchsorted(srt, scores[a + p], side="left")
            hi = np.searchsorted(srt, scores[a + p], side="right")
            g = n - hi
            t = hi - lo
            if t > 1:
                tied = True
            if g < k and k < g + t:
                crosses = True
        rel_tied[row] = tied
        rel_boundary[row] = crosses
        if best >= 0:
            block[row] = count_above_equal(scores, a, n, scores[a + best])[1]
        else:
            block[row] = 0
    return OK, -1, -1


@moved_keywords(LONG_COLUMN_KEYWORDS)
def tie_prevalence(
    scores: object,
    labels: object = None,
    *,
    k: int = 10,
    columns: LongColumns = DEFAULT_COLUMNS,
) -> TiePrevalence:
    """Per-row tie flags and summary fractions (definitions in the module docstring).

    Parameters
    ----------
    scores, labels
        As in :func:`rankaudit.evaluate`: ``(rows, candidates)`` arrays, lists of
        rows, or a long-format DataFrame (``labels=None``; columns named by ``columns``, a
        :class:`rankaudit.LongColumns`, whose user column is not used).  A masked array is
        refused (masks are not honoured).
    k
        The cutoff whose boundary matters, an integer >= 1.

    Returns
    -------
    TiePrevalence
        ``.rows``: DataFrame with the row id, ``n_candidates``, ``n_relevant`` and
        the flags; ``.summary``: Series with ``n_rows``, ``n_rows_without_relevant``,
        ``frac_any_tie``, ``frac_boundary_tie``, ``frac_relevant_tied``,
        ``frac_relevant_boundary_tie`` and ``mean_relevant_block_size``.
    """
    k = check_k(k)
    if isinstance(scores, pd.DataFrame):
        if labels is not None:
            raise ValueError(
                "with a long-format DataFrame, pass labels as a column "
                "(columns=LongColumns(label=))"
            )
        if not isinstance(columns, LongColumns):
            raise ValueError(f"columns must be a LongColumns; got {type(columns).__name__}")
        batch: Batch = batch_from_long(scores, replace(columns, user=None))
    else:
        if labels is None:
            raise ValueError("labels are required (same shape as scores)")
        batch = batch_from_arrays(scores, labels)
    n = batch.n_rows
    any_tie, boundary, rel_tied, rel_boundary = (np.empty(n, dtype=np.bool_) for _ in range(4))
    block = np.empty(n, dtype=np.int64)
    n_rel = np.empty(n, dtype=np.int64)
    status = prevalence_kernel(
        *batch.kernel_layout(),
        batch.scores,
        batch.labels,
        min(k, batch.max_len + 1),
        batch.max_len,
        any_tie,
        boundary,
        rel_tied,
        rel_boundary,
        block,
        n_rel,
    )
    raise_for_status(*status, batch)
    rows = pd.DataFrame(
        {
            batch.row_id_name: batch.row_ids,
            "n_candidates": batch.row_lengths(),
            "n_relevant": n_rel,
            "any_tie": any_tie,
            "boundary_tie": boundary,
            "relevant_tied": rel_tied,
            "relevant_boundary_tie": rel_boundary,
            "relevant_block_size": block,
        }
    )
    has_rel = n_rel > 0
    summary = pd.Series(
        {
            "n_rows": n,
            "n_rows_without_relevant": int((~has_rel).sum()),
            "frac_any_tie": float(any_tie.mean()),
            "frac_boundary_tie": float(boundary.mean()),
            "frac_relevant_tied": float(rel_tied.mean()),
            "frac_relevant_boundary_tie": float(rel_boundary.mean()),
            "mean_relevant_block_size": float(block[has_rel].mean()) if has_rel.any() else 0.0,
        },
        dtype=object,
    )
    return TiePrevalence(rows=rows, summary=summary, k=k)
