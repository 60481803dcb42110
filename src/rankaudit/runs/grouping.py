"""numba kernels of the run/qrels join: group lines by query, look up labels, find repeats.

Both are single passes over the lines (``O(lines + documents)``), replacing sorts and binary
searches over ``(query, docno)`` keys:

- :func:`group_rows` is a stable counting sort: the lines of each evaluated query, in file
  order, as CSR ``offsets`` / ``rows`` (lines of other queries, code ``-1``, are left out).
- :func:`label_rows` walks the queries once; for each it stamps the query's judged documents
  into a dense table indexed by docno code, then reads the label of each retrieved document
  from it and writes the arrays the measure kernels read (label, judged flag, docno rank).  A
  document judged twice, or retrieved twice, in one query is reported as the smallest
  offending line index (trec_eval stops on both).
"""

from __future__ import annotations

import numba
import numpy as np

__all__ = ["group_rows", "label_rows"]


@numba.njit(cache=True)
def group_rows(codes, n_groups, like):  # pragma: no cover - compiled
    """``(offsets, rows)``: indices of ``codes`` grouped by code ``0..n_groups-1``, stable;
    ``rows`` has the dtype of the array ``like`` (int32 when the indices fit, to halve it)."""
    offsets = np.zeros(n_groups + 1, np.int64)
    for c in codes:
        if c >= 0:
            offsets[c + 1] += 1
    for g in range(n_groups):
        offsets[g + 1] += offsets[g]
    fill = offsets[:-1].copy()
    rows = np.empty(offsets[n_groups], like.dtype)
    for i in range(len(codes)):
        c = codes[i]
        if c >= 0:
            rows[fill[c]] = i
            fill[c] += 1
    return offsets, rows


@numba.njit(cache=True)
def label_rows(
    run_offsets,
    run_rows,
    run_doc,
    qrels_offsets,
    qrels_rows,
    qrels_doc,
    qrels_rel,
    rank_of_code,
):  # pragma: no cover - compiled
    """Per grouped run line: label, judged flag and docno rank; repeated lines.

    Returns ``(labels, judged, doc_rank, repeated_judgment, repeated_retrieval)``.  Grouped
    line ``i`` (file line ``run_rows[i]``) retrieves the document of code ``d = run_doc[
    run_rows[i]]``, whose byte-order rank among all docnos is ``doc_rank[i] =
    rank_of_code[d]`` (in the dtype of ``rank_of_code``); ``labels[i]`` is its qrels label (in
    the dtype of ``qrels_rel``) and ``judged[i]`` whether it has one (an unjudged line has
    label 0, judged False).  The last two are the smallest
    qrels / run line index that repeats a document of its query, or -1.
    """
    n = len(run_rows)
    labels = np.zeros(n, qrels_rel.dtype)
    judged = np.zeros(n, np.bool_)
    doc_rank = np.empty(n, rank_of_code.dtype)
    n_docs = max(len(rank_of_code), 1)
    judged_in = np.full(n_docs, -1, np.int64)
    retrieved_in = np.full(n_docs, -1, np.int64)
    rel_of = np.zeros(n_docs, np.int64)
    repeated_judgment = -1
    repeated_retrieval = -1
    for q in range(len(run_offsets) - 1):
        for i in range(qrels_offsets[q], qrels_offsets[q + 1]):
            row = qrels_rows[i]
            d = qrels_doc[row]
            if judged_in[d] == q:
                if repeated_judgment < 0 or row < repeated_judgment:
                    repeated_judgment = row
            else:
                judged_in[d] = q
                rel_of[d] = qrels_rel[row]
        for i in range(run_offsets[q], run_offsets[q + 1]):
            row = run_rows[i]
            d = run_doc[row]
            if retrieved_in[d] == q:
                if repeated_retrieval < 0 or row < repeated_retrieval:
                    repeated_retrieval = row
            retrieved_in[d] = q
            doc_rank[i] = rank_of_code[d]
            if judged_in[d] == q:
                labels[i] = rel_of[d]
                judged[i] = True
    return labels, judged, doc_rank, repeated_judgment, repeated_retrieval
