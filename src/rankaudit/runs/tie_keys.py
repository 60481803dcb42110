"""The key each tie rule that orders every measure alike sorts a run's tie blocks by (rules:
one registry, :mod:`rankaudit.measures.rules`).

``trec_eval`` sorts by docno descending in byte order, ``input_order`` by line, ``hash`` by
``tie_hash(seed, query id, docno)`` (collisions by docno ascending).  The bounds sort by each
measure's own utility, in the core (:mod:`rankaudit.measures.list_evaluate`).
"""

from __future__ import annotations

import numpy as np

from rankaudit.measures.hashing import id64, splitmix64, splitmix64_array
from rankaudit.runs.encoding import index_dtype
from rankaudit.runs.layout import QueryBatch

__all__ = ["tie_keys"]


def _hash_keys(batch: QueryBatch, seed: int) -> np.ndarray:
    seed_key = np.uint64(splitmix64(id64(int(seed))))
    qkeys = np.fromiter((id64(q) for q in batch.queries), dtype=np.uint64, count=batch.n_queries)
    used = np.unique(batch.docno_rank)
    dkeys_used = np.fromiter(
        (id64(batch.docno_sorted[int(c)].as_py()) for c in used), dtype=np.uint64, count=len(used)
    )
    dkey = dkeys_used[np.searchsorted(used, batch.docno_rank)]
    row_q = np.repeat(np.arange(batch.n_queries), np.diff(batch.offsets))
    h = splitmix64_array(np.full(1, seed_key) ^ qkeys[row_q])
    return splitmix64_array(h ^ dkey)


def tie_keys(batch: QueryBatch, ties: str, seed: int = 0) -> np.ndarray:
    """The integer key (int32 or int64) a rule that is the same for every measure sorts each
    tie block by."""
    if ties == "trec_eval":
        return np.negative(batch.docno_rank)
    if ties == "input_order":  # rows are in file order inside each query
        return np.arange(len(batch.scores), dtype=index_dtype(len(batch.scores)))
    if ties == "hash":
        h = _hash_keys(batch, seed)
        order = np.lexsort((batch.docno_rank, h))
        ranks = np.empty(len(order), dtype=np.int64)
        ranks[order] = np.arange(len(order))
        return ranks
    raise ValueError(f"tie rule {ties!r} has no common sort key (bounds: measures.list_evaluate)")
