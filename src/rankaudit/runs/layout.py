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
from rankaudit.runs.errors import RunFileError
from rankaudit.runs.grouping import group_rows, label_rows
from rankaudit.runs.kernels import score_order_kernel
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
    ``score_order``: per query, positions by score descending (ties in file order), shared by
    the rules; ``tied``: per query, whether two of its documents share a score.
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
    score_order: np.ndarray
    tied: np.ndarray

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
    gains, relevant, doc, docno_rank, repeated_judgment, repeated_retrieval = label_rows(
        offsets,
        grouped,
        run_doc,
        qrels_offsets,
        qrels_grouped,
        qrels_doc,
        qrels.relevance,
        rank_of_code,
        level,
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

    # ideal gains and R from every judged document of the query
    qq = qrels_q[qrels_grouped]
    rel_all = qrels.relevance[qrels_grouped]
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
        scores=scores,
        gains=gains,
        relevant=relevant,
        docno_rank=docno_rank,
        position=grouped,
        docno_code=doc,
        docno_names=names,
        ideal_offsets=ideal_offsets,
        ideal_gains=ideal_gains,
        n_rel=n_rel,
        relevance_level=level,
        complete=bool(complete),
        run_source=run.source,
        qrels_source=qrels.source,
        score_order=score_order,
        tied=tied,
    )
