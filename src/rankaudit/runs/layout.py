"""Join a run with its qrels into a per-query CSR batch, trec_eval's way.

:func:`join_run_qrels` decides the evaluated queries (those in both files, or with
``complete=True`` every query of the qrels, as ``trec_eval -c``), looks up each retrieved
document's label (unjudged = none), groups the run's lines by query (file order kept inside a
query), and prepares what the kernels need: gains, relevance flags, the ideal gains of each
query from *all* its judged documents, ``R`` per query, and the docno order trec_eval breaks
ties with (``strcmp``, i.e. byte order, descending).

Everything is vectorised (pyarrow dictionary encoding, numpy sorts); the one loop over rows is
the compiled duplicate check.  A document twice in one query of the run, or twice in one query
of the qrels, is a :class:`~rankaudit.runs.errors.RunFileError` naming the file and line (as
trec_eval, which stops with "duplicate docs").
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from rankaudit._checks import check_int
from rankaudit.runs.errors import RunFileError
from rankaudit.runs.kernels import first_duplicate
from rankaudit.runs.tables import Qrels, Run

__all__ = ["QueryBatch", "join_run_qrels"]


@dataclass(frozen=True)
class QueryBatch:
    """The evaluated queries of one run against one qrels, laid out for the kernels.

    ``queries`` (numpy object array, byte order) names the ``n`` queries; query ``q`` owns rows
    ``offsets[q]:offsets[q+1]`` of the per-row arrays (file order inside a query):
    ``scores``, ``gains`` (``max(rel, 0)``, 0 unjudged), ``relevant`` (bool), ``docno_rank``
    (int64, byte order of the docno among all docnos), ``position`` (0-based line in the run),
    ``query_code`` / ``docno_code`` (indices into ``query_names`` / ``docno_names``).
    ``ideal_offsets`` / ``ideal_gains``: each query's positive qrels labels, decreasing.
    ``n_rel``: relevant documents per query in the qrels (``R``).
    """

    queries: np.ndarray
    offsets: np.ndarray
    scores: np.ndarray
    gains: np.ndarray
    relevant: np.ndarray
    docno_rank: np.ndarray
    position: np.ndarray
    docno_code: np.ndarray
    docno_names: pa.Array
    ideal_offsets: np.ndarray
    ideal_gains: np.ndarray
    n_rel: np.ndarray
    relevance_level: int
    complete: bool
    run_source: str
    qrels_source: str

    @property
    def n_queries(self) -> int:
        return len(self.queries)

    @property
    def max_len(self) -> int:
        """Longest list to rank: retrieved documents or ideal gains of one query."""
        a = int(np.diff(self.offsets).max(initial=0))
        b = int(np.diff(self.ideal_offsets).max(initial=0))
        return max(a, b, 1)


def _check_level(relevance_level: object) -> int:
    """trec_eval's ``-l``: judged labels >= this count as relevant."""
    return check_int(relevance_level, "relevance_level (trec_eval -l)", lo=0)


def _sorted_unique(values: pa.Array) -> pa.Array:
    uniq = pc.unique(values)
    return uniq.take(pc.sort_indices(uniq))


def join_run_qrels(
    run: Run, qrels: Qrels, *, relevance_level: int = 1, complete: bool = False
) -> QueryBatch:
    """Lay out ``run`` against ``qrels`` (module docstring); raises RunFileError / ValueError."""
    if not isinstance(run, Run) or not isinstance(qrels, Qrels):
        raise ValueError("join_run_qrels needs a Run and a Qrels (see rankaudit.runs readers)")
    level = _check_level(relevance_level)
    qrels_queries = _sorted_unique(qrels.query)
    if complete:
        queries = qrels_queries
    else:
        run_queries = _sorted_unique(run.query)
        queries = run_queries.filter(pc.is_in(run_queries, value_set=qrels_queries))
    n_q = len(queries)

    # shared docno dictionary for run and qrels; its byte order ranks trec_eval's tie-break
    both = pa.chunked_array([run.docno, qrels.docno]).combine_chunks()
    encoded = pc.dictionary_encode(both)
    names = encoded.dictionary
    codes = encoded.indices.to_numpy().astype(np.int64)
    n_docs = len(names)
    rank_of_code = np.empty(n_docs, dtype=np.int64)
    rank_of_code[pc.sort_indices(names).to_numpy()] = np.arange(n_docs)
    run_doc, qrels_doc = codes[: len(run)], codes[len(run) :]

    run_q = pc.index_in(run.query, value_set=queries).fill_null(-1).to_numpy().astype(np.int64)
    qrels_q = pc.index_in(qrels.query, value_set=queries).fill_null(-1).to_numpy().astype(np.int64)

    # qrels: keep evaluated queries, check duplicates, index by (query, docno)
    keep = np.flatnonzero(qrels_q >= 0)
    qkey = qrels_q[keep] * n_docs + qrels_doc[keep]
    order = np.argsort(qkey, kind="stable")
    skey = qkey[order]
    dup = np.flatnonzero(skey[1:] == skey[:-1])
    if len(dup):
        rows = keep[order[dup + 1]]
        row = int(rows.min())
        source, line, label = qrels.location(row)
        raise RunFileError(
            source,
            line,
            f"document {qrels.docno[row].as_py()!r} is judged twice "
            f"for query {qrels.query[row].as_py()!r} ({label})",
        )
    rel_sorted = qrels.relevance[keep][order]

    # run: rows of evaluated queries, grouped by query with file order kept
    rows = np.flatnonzero(run_q >= 0)
    grouped = rows[np.argsort(run_q[rows], kind="stable")]
    counts = np.bincount(run_q[grouped], minlength=n_q)
    offsets = np.concatenate(([0], np.cumsum(counts))).astype(np.int64)
    doc = run_doc[grouped]
    bad = first_duplicate(offsets, doc, max(n_docs, 1))
    if bad >= 0:
        row = int(grouped[bad])
        source, line, label = run.location(row)
        raise RunFileError(
            source,
            line,
            f"document {run.docno[row].as_py()!r} is retrieved twice "
            f"for query {run.query[row].as_py()!r} ({label}); trec_eval rejects this",
        )

    # labels of retrieved documents
    rkey = run_q[grouped] * n_docs + doc
    at = np.searchsorted(skey, rkey)
    at_c = np.minimum(at, max(len(skey) - 1, 0))
    judged = (len(skey) > 0) & (skey[at_c] == rkey) if len(skey) else np.zeros(len(rkey), bool)
    label = np.where(judged, rel_sorted[at_c] if len(skey) else 0, -1)
    gains = np.where(judged, np.maximum(label, 0), 0).astype(np.float64)
    relevant = judged & (label >= level)

    # ideal gains and R from every judged document of the query
    qq = qrels_q[keep]
    rel_all = qrels.relevance[keep]
    pos = rel_all > 0
    iq, ig = qq[pos], rel_all[pos]
    iorder = np.lexsort((-ig, iq))
    ideal_gains = ig[iorder].astype(np.float64)
    ideal_offsets = np.concatenate(([0], np.cumsum(np.bincount(iq, minlength=n_q)))).astype(
        np.int64
    )
    n_rel = np.bincount(qq[rel_all >= level], minlength=n_q).astype(np.int64)

    return QueryBatch(
        queries=np.asarray(queries.to_pylist(), dtype=object),
        offsets=offsets,
        scores=np.ascontiguousarray(run.score[grouped]),
        gains=gains,
        relevant=relevant,
        docno_rank=rank_of_code[doc],
        position=grouped.astype(np.int64),
        docno_code=doc,
        docno_names=names,
        ideal_offsets=ideal_offsets,
        ideal_gains=ideal_gains,
        n_rel=n_rel,
        relevance_level=level,
        complete=bool(complete),
        run_source=run.source,
        qrels_source=qrels.source,
    )
