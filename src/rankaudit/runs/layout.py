"""Join a run with its qrels into a per-query CSR batch, trec_eval's way.

:func:`join_run_qrels` decides the evaluated queries (those in both files, or with
``complete=True`` every query of the qrels, as ``trec_eval -c``), looks up each retrieved
document's label (unjudged = none), groups the run's lines by query (file order kept inside a
query), and prepares what the kernels need: gains, relevance flags, the ideal gains of each
query from *all* its judged documents, ``R`` per query, and the docno order trec_eval breaks
ties with (``strcmp``, i.e. byte order, descending).

Ids are hashed once each (pyarrow dictionary encoding); the passes over lines are compiled
(:mod:`rankaudit.runs.grouping`: a counting sort by query, a label lookup through a dense
table) and linear in the number of lines.  A document twice in one query of the run, or twice
in one query of the qrels, is a :class:`~rankaudit.runs.errors.RunFileError` naming the file
and line (as trec_eval, which stops with "duplicate docs").
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from rankaudit._checks import check_label_level
from rankaudit.measures.list_support import score_order_kernel
from rankaudit.runs.encoding import encode_ids, gather, index_dtype, release_arrow_memory
from rankaudit.runs.errors import RunFileError
from rankaudit.runs.grouping import group_rows, label_rows
from rankaudit.runs.tables import Qrels, Run

__all__ = ["QueryBatch", "join_run_qrels"]


@dataclass(frozen=True)
class QueryBatch:
    """The evaluated queries of one run against one qrels, laid out for the kernels.

    ``queries`` (numpy object array, byte order) names the ``n`` queries; query ``q`` owns rows
    ``offsets[q]:offsets[q+1]`` of the per-row arrays, in file order inside a query (so the
    row order is the input order): ``scores``, ``labels`` (qrels label, 0 when unjudged;
    int32 when every label fits), ``judged`` (bool) and ``docno_rank`` (the byte order of the
    row's docno among all docnos, whose names in that order are ``docno_sorted``; int32 when
    it fits, :func:`index_dtype`).  Nothing else is kept per row, so the layout of a large
    run stays small (about 20 bytes a line).
    ``judged_offsets`` / ``judged_labels``: every qrels label of each query, decreasing (``R``,
    ``N`` and the ideal gains at any level and gain come from them).
    ``score_order``: per query, positions by score descending (ties in file order), shared by
    the rules; ``tied``: per query, whether two of its documents share a score.
    """

    queries: np.ndarray
    offsets: np.ndarray
    scores: np.ndarray
    labels: np.ndarray
    judged: np.ndarray
    docno_rank: np.ndarray
    docno_sorted: pa.Array
    judged_offsets: np.ndarray
    judged_labels: np.ndarray
    relevance_level: int
    complete: bool
    run_source: str
    qrels_source: str
    score_order: np.ndarray
    tied: np.ndarray

    @property
    def n_queries(self) -> int:
        return len(self.queries)

    @property
    def max_len(self) -> int:
        """Longest list to rank: retrieved documents or judged labels of one query."""
        a = int(np.diff(self.offsets).max(initial=0))
        b = int(np.diff(self.judged_offsets).max(initial=0))
        return max(a, b, 1)

    @property
    def relevant(self) -> np.ndarray:
        """Per row: judged with a label at or above the relevance level."""
        return self.judged & (self.labels >= self.relevance_level)

    @property
    def gains(self) -> np.ndarray:
        """Per row: trec_eval's gain ``max(label, 0)``, 0 when unjudged."""
        return np.where(self.judged, np.maximum(self.labels, 0), 0).astype(np.float64)

    @property
    def n_rel(self) -> np.ndarray:
        """``R`` per query at the relevance level: qrels labels >= level."""
        q = np.repeat(np.arange(self.n_queries), np.diff(self.judged_offsets))
        keep = self.judged_labels >= self.relevance_level
        return np.bincount(q[keep], minlength=self.n_queries).astype(np.int64)


def _check_level(relevance_level: object) -> int:
    """trec_eval's ``-l``: judged labels >= this count as relevant."""
    return check_label_level(relevance_level, "relevance_level (trec_eval -l)")


def _sorted(values: pa.Array) -> pa.Array:
    return values.take(pc.sort_indices(values))


def _narrow_labels(labels: np.ndarray) -> np.ndarray:
    """The qrels labels as int32 when they fit (|label| < 2**31), so the per-line labels of a
    large run take half the memory; int64 otherwise."""
    lo, hi = (int(labels.min(initial=0)), int(labels.max(initial=0)))
    i32 = np.iinfo(np.int32)
    return labels.astype(np.int32) if i32.min < lo and hi < i32.max else labels


def _recode(names: pa.Array, codes: np.ndarray, onto: pa.Array) -> np.ndarray:
    """``codes`` into ``names`` re-expressed as indices into ``onto`` (-1 where absent)."""
    mapping = pc.index_in(names, value_set=onto).fill_null(-1).to_numpy()
    mapping = mapping.astype(index_dtype(len(onto)), copy=False)
    return gather(mapping, codes)


def join_run_qrels(
    run: Run, qrels: Qrels, *, relevance_level: int = 1, complete: bool = False
) -> QueryBatch:
    """Lay out ``run`` against ``qrels`` (module docstring); raises RunFileError / ValueError."""
    if not isinstance(run, Run) or not isinstance(qrels, Qrels):
        raise ValueError("join_run_qrels needs a Run and a Qrels (see rankaudit.runs readers)")
    level = _check_level(relevance_level)
    run_qnames, (run_qcodes,) = encode_ids(run.query)
    qrels_qnames, (qrels_qcodes,) = encode_ids(qrels.query)
    qrels_queries = _sorted(qrels_qnames)
    if complete:
        queries = qrels_queries
    else:
        in_qrels = pc.is_in(run_qnames, value_set=qrels_queries)
        queries = _sorted(run_qnames.filter(in_qrels))
    n_q = len(queries)
    line_index = np.empty(0, index_dtype(len(run) + len(qrels)))
    # lines of each evaluated query (file order kept); the query codes are dropped at once
    offsets, grouped = group_rows(_recode(run_qnames, run_qcodes, queries), n_q, line_index)
    del run_qcodes
    qrels_q = _recode(qrels_qnames, qrels_qcodes, queries)
    qrels_offsets, qrels_grouped = group_rows(qrels_q, n_q, line_index)

    # shared docno dictionary for run and qrels; its byte order ranks trec_eval's tie-break
    names, (run_doc, qrels_doc) = encode_ids(run.docno, qrels.docno)
    n_docs = len(names)
    by_name = pc.sort_indices(names)
    rank_of_code = np.empty(n_docs, dtype=index_dtype(n_docs))
    rank_of_code[by_name.to_numpy()] = np.arange(n_docs)

    # labels of the grouped lines, repeated documents
    labels, judged, docno_rank, repeated_judgment, repeated_retrieval = label_rows(
        offsets,
        grouped,
        run_doc,
        qrels_offsets,
        qrels_grouped,
        qrels_doc,
        _narrow_labels(qrels.relevance),
        rank_of_code,
    )
    del run_doc, qrels_doc
    if repeated_judgment >= 0:
        row = int(repeated_judgment)
        source, line, where = qrels.location(row)
        raise RunFileError(
            source,
            line,
            f"document {qrels.docno[row].as_py()!r} is judged twice "
            f"for query {qrels.query[row].as_py()!r} ({where})",
        )
    if repeated_retrieval >= 0:
        row = int(repeated_retrieval)
        source, line, where = run.location(row)
        raise RunFileError(
            source,
            line,
            f"document {run.docno[row].as_py()!r} is retrieved twice "
            f"for query {run.query[row].as_py()!r} ({where}); trec_eval rejects this",
        )
    scores = gather(run.score, grouped)
    del grouped
    score_order, tied = score_order_kernel(offsets, scores)

    # every judged label of each query, decreasing
    qq = qrels_q[qrels_grouped]
    rel_all = qrels.relevance[qrels_grouped].astype(np.int64)
    keep = qq >= 0
    iq, il = qq[keep], rel_all[keep]
    iorder = np.lexsort((-il, iq))
    judged_labels = np.ascontiguousarray(il[iorder])
    judged_offsets = np.concatenate(([0], np.cumsum(np.bincount(iq, minlength=n_q)))).astype(
        np.int64
    )

    release_arrow_memory()  # the encoders' freed buffers
    return QueryBatch(
        queries=np.asarray(queries.to_pylist(), dtype=object),
        offsets=offsets,
        scores=scores,
        labels=labels,
        judged=judged,
        docno_rank=docno_rank,
        docno_sorted=names.take(by_name),
        judged_offsets=judged_offsets,
        judged_labels=judged_labels,
        relevance_level=level,
        complete=bool(complete),
        run_source=run.source,
        qrels_source=qrels.source,
        score_order=score_order,
        tied=tied,
    )
