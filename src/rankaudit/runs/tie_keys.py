"""The key each deterministic tie rule sorts a run's tie blocks by (rules: one registry,
:mod:`rankaudit.measures.rules`).

``trec_eval`` sorts by docno descending in byte order, ``input_order`` by line, ``hash`` by
``tie_hash(seed, query id, docno)`` (collisions by docno ascending).  The bounds sort each
block by the *measure's* utility (:func:`bound_key`), lowest first for ``pessimistic``,
highest first for ``optimistic``, so each measure gets its own minimum and maximum.
"""

from __future__ import annotations

import numpy as np

from rankaudit.measures.hashing import id64, splitmix64, splitmix64_array
from rankaudit.measures.list_kernels import BPREF, ERR, JUDGED, NDCG, RBPRES
from rankaudit.measures.registry import FAMILIES, Measure
from rankaudit.runs.layout import QueryBatch

__all__ = ["bound_key", "tie_keys", "utility_class"]


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
    """The int64 key a rule that is the same for every measure sorts each tie block by."""
    if ties == "trec_eval":
        return -batch.docno_rank
    if ties == "input_order":
        return batch.position
    if ties == "hash":
        h = _hash_keys(batch, seed)
        order = np.lexsort((batch.docno_rank, h))
        ranks = np.empty(len(order), dtype=np.int64)
        ranks[order] = np.arange(len(order))
        return ranks
    raise ValueError(f"tie rule {ties!r} has no common sort key (bounds: bound_key)")


def utility_class(measure: Measure, relevance_level: int) -> tuple:
    """What a measure's bound orders by; measures with equal classes share one sort."""
    has_rel = "rel" in [p.name for p in FAMILIES[measure.family].params]
    rel = measure.param("rel") if has_rel else None
    level = relevance_level if rel is None else int(rel)  # type: ignore[call-overload]
    if measure.code == NDCG:
        return ("gain", measure.param("dcg"), measure.param("gains"))
    if measure.code == ERR:
        return ("gain", "log2", None)  # ERR's R_i rises with the label
    if measure.code == JUDGED:
        return ("judged",)
    if measure.code == RBPRES:
        return ("unjudged",)
    if measure.code == BPREF:
        return ("bpref", level)
    return ("relevant", level)


def bound_key(batch: QueryBatch, utility: tuple, ties: str) -> np.ndarray:
    """The int64 key of ``pessimistic`` (utility ascending) or ``optimistic`` (descending)."""
    labels, judged = batch.labels, batch.judged
    kind = utility[0]
    if kind == "gain":
        _, dcg, gains = utility
        value = np.where(judged, labels, 0)
        if gains is not None:
            mapped = np.asarray(value, dtype=np.float64)
            for label, gain in gains:
                mapped = np.where(judged & (labels == label), gain, mapped)
            value = np.unique(np.maximum(mapped, 0.0), return_inverse=True)[1]
        key = np.maximum(value, 0).astype(np.int64)
    elif kind == "judged":
        key = judged.astype(np.int64)
    elif kind == "unjudged":
        key = (~judged).astype(np.int64)
    elif kind == "bpref":
        level = utility[1]
        rel = judged & (labels >= level)
        nonrel = judged & (labels >= 0) & (labels < level)
        key = 2 * rel.astype(np.int64) + (~nonrel).astype(np.int64)
    else:
        key = (judged & (labels >= utility[1])).astype(np.int64)
    return key if ties == "pessimistic" else -key
