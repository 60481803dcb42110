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

import os
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from rankaudit._checks import check_label_level
from rankaudit.measures.list_support import score_order_kernel
from rankaudit.runs.errors import RunFileError
from rankaudit.runs.grouping import group_rows, label_rows
from rankaudit.runs.tables import Qrels, Run

__all__ = ["QueryBatch", "join_run_qrels"]


@dataclass(frozen=True)
class QueryBatch:
    """The evaluated queries of one run against one qrels, laid out for the kernels.

    ``queries`` (numpy object array, byte order) names the ``n`` queries; query ``q`` owns rows
    ``offsets[q]:offsets[q+1]`` of the per-row arrays (file order inside a query):
    ``scores``, ``labels`` (int64 qrels label, 0 when unjudged), ``judged`` (bool),
    ``docno_rank`` (int64, byte order of the docno among all docnos), ``position`` (0-based
    line in the run), ``docno_code`` (index into ``docno_names``).
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
    position: np.ndarray
    docno_code: np.ndarray
    docno_names: pa.Array
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


#: Arrays longer than this are dictionary-encoded in slices on several threads.
PARALLEL_ENCODE_MIN = 1 << 20


def _encode(*arrays: pa.Array, parts: int | None = None) -> tuple[pa.Array, np.ndarray]:
    """``(distinct values, code of each value)`` of the arrays laid end to end, distinct values
    in order of first appearance.

    Arrays of ``PARALLEL_ENCODE_MIN`` values or more are cut into ``parts`` contiguous slices
    (default: one per core, at most 4; an explicit ``parts`` cuts every array); all
    pieces are encoded on a thread pool (pyarrow releases the GIL), then their dictionaries are
    unified: piece 1's dictionary followed by the new values of piece 2, and so on, which is
    the order of first appearance over the whole sequence, so the codes equal those of one
    pass over the concatenation whatever ``parts`` is (tested).  Nothing is concatenated.
    """
    threads = min(os.cpu_count() or 1, 4)
    pieces = []
    for values in arrays:
        n = len(values)
        if parts is None:
            cut = threads if n >= PARALLEL_ENCODE_MIN else 1
        else:
            cut = max(1, min(parts, n))
        bounds = [n * i // cut for i in range(cut + 1)]
        pieces += [values.slice(a, b - a) for a, b in zip(bounds[:-1], bounds[1:], strict=True)]
    if len(pieces) == 1:
        encoded = pc.dictionary_encode(pieces[0])
    else:
        with ThreadPoolExecutor(min(len(pieces), threads)) as pool:
            chunks = list(pool.map(pc.dictionary_encode, pieces))
        encoded = pa.chunked_array(chunks).unify_dictionaries().combine_chunks()
    return encoded.dictionary, encoded.indices.to_numpy().astype(np.int64)


def _recode(names: pa.Array, codes: np.ndarray, onto: pa.Array) -> np.ndarray:
    """``codes`` into ``names`` re-expressed as indices into ``onto`` (-1 where absent)."""
    mapping = pc.index_in(names, value_set=onto).fill_null(-1).to_numpy().astype(np.int64)
    return mapping[codes] if len(codes) else codes


def join_run_qrels(
    run: Run, qrels: Qrels, *, relevance_level: int = 1, complete: bool = False
) -> QueryBatch:
    """Lay out ``run`` against ``qrels`` (module docstring); raises RunFileError / ValueError."""
    if not isinstance(run, Run) or not isinstance(qrels, Qrels):
        raise ValueError("join_run_qrels needs a Run and a Qrels (see rankaudit.runs readers)")
    level = _check_level(relevance_level)
    run_qnames, run_qcodes = _encode(run.query)
    qrels_qnames, qrels_qcodes = _encode(qrels.query)
    qrels_queries = _sorted(qrels_qnames)
    if complete:
        queries = qrels_queries
    else:
        in_qrels = pc.is_in(run_qnames, value_set=qrels_queries)
        queries = _sorted(run_qnames.filter(in_qrels))
    n_q = len(queries)
    run_q = _recode(run_qnames, run_qcodes, queries)
    qrels_q = _recode(qrels_qnames, qrels_qcodes, queries)

    # shared docno dictionary for run and qrels; its byte order ranks trec_eval's tie-break
    names, codes = _encode(run.docno, qrels.docno)
    n_docs = len(names)
    rank_of_code = np.empty(n_docs, dtype=np.int64)
    rank_of_code[pc.sort_indices(names).to_numpy()] = np.arange(n_docs)
    run_doc, qrels_doc = codes[: len(run)], codes[len(run) :]

    # lines of each evaluated query (file order kept), labels, repeated documents
    offsets, grouped = group_rows(run_q, n_q)
    qrels_offsets, qrels_grouped = group_rows(qrels_q, n_q)
    labels, judged, doc, docno_rank, repeated_judgment, repeated_retrieval = label_rows(
        offsets,
        grouped,
        run_doc,
        qrels_offsets,
        qrels_grouped,
        qrels_doc,
        qrels.relevance,
        rank_of_code,
    )
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
    scores = np.ascontiguousarray(run.score[grouped])
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

    return QueryBatch(
        queries=np.asarray(queries.to_pylist(), dtype=object),
        offsets=offsets,
        scores=scores,
        labels=labels,
        judged=judged,
        docno_rank=docno_rank,
        position=grouped,
        docno_code=doc,
        docno_names=names,
        judged_offsets=judged_offsets,
        judged_labels=judged_labels,
        relevance_level=level,
        complete=bool(complete),
        run_source=run.source,
        qrels_source=qrels.source,
        score_order=score_order,
        tied=tied,
    )
