"""The tie rules for runs and the tie-break key each one sorts by.

Every rule ranks a query's documents by score, descending; they differ only inside a tie
block (documents whose scores are equal doubles):

==============  ==============================================================================
``trec_eval``   docno descending in byte order (``strcmp``), what trec_eval and pytrec_eval do
``input_order`` the order of the lines in the run file (what a stable sort gives)
``hash``        ``tie_hash(seed, query id, docno)`` ascending (:mod:`rankaudit.ties.hashing`),
                collisions by docno ascending
``pessimistic`` lowest gain first, non-relevant before relevant: the minimum of every measure
``optimistic``  highest gain first, relevant before non-relevant: the maximum of every measure
``expected``    no order: the exact mean over uniform random orders of every tie block
==============  ==============================================================================

Why the bounds are bounds: each measure is a sum over ranks of a non-increasing weight times
the gain (nDCG) or a non-decreasing function of how early the relevant documents come (P, R,
AP, RR, Success), so within a block putting higher gains (and relevant documents, whose gains
are at least ``relevance_level``) first can only raise it (rearrangement inequality).
"""

from __future__ import annotations

import numpy as np

from rankaudit.runs.layout import QueryBatch
from rankaudit.ties.hashing import id64, splitmix64, splitmix64_array

__all__ = ["RUN_TIE_RULES", "check_run_rule", "tie_keys"]

RUN_TIE_RULES = ("trec_eval", "input_order", "expected", "pessimistic", "optimistic", "hash")


def check_run_rule(ties: object) -> str:
    """Return ``ties`` if it names a rule of :data:`RUN_TIE_RULES`, else raise ValueError."""
    if ties not in RUN_TIE_RULES:
        raise ValueError(f"unknown tie rule {ties!r}; use one of: {', '.join(RUN_TIE_RULES)}")
    return str(ties)


def _hash_keys(batch: QueryBatch, seed: int) -> np.ndarray:
    seed_key = np.uint64(splitmix64(id64(int(seed))))
    qkeys = np.fromiter((id64(q) for q in batch.queries), dtype=np.uint64, count=batch.n_queries)
    used = np.unique(batch.docno_code)
    dkeys_used = np.fromiter(
        (id64(batch.docno_names[int(c)].as_py()) for c in used), dtype=np.uint64, count=len(used)
    )
    dkey = dkeys_used[np.searchsorted(used, batch.docno_code)]
    row_q = np.repeat(np.arange(batch.n_queries), np.diff(batch.offsets))
    h = splitmix64_array(np.full(1, seed_key) ^ qkeys[row_q])
    return splitmix64_array(h ^ dkey)


def tie_keys(batch: QueryBatch, ties: str, seed: int = 0) -> np.ndarray:
    """The int64 key a deterministic rule sorts each tie block by (ascending)."""
    if ties == "trec_eval":
        return -batch.docno_rank
    if ties == "input_order":
        return batch.position
    if ties in ("pessimistic", "optimistic"):
        # gains are integers >= 0; 2*gain + relevant orders by gain, then relevance
        key = 2 * batch.gains.astype(np.int64) + batch.relevant.astype(np.int64)
        return key if ties == "pessimistic" else -key
    if ties == "hash":
        h = _hash_keys(batch, seed)
        order = np.lexsort((batch.docno_rank, h))
        ranks = np.empty(len(order), dtype=np.int64)
        ranks[order] = np.arange(len(order))
        return ranks
    raise ValueError(f"tie rule {ties!r} has no sort key (expected is computed, not sorted)")
