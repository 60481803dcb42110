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
from rankaudit.measures.list_support import BPREF, JUDGED, NDCG, RBPRES
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
    """What a measure's bound orders by; measures with equal classes share one sort.

    Most measures share the class ``("label",)``: the key ``2 g + b``, ``g`` the label of a
    judged document (0 unjudged or negative), ``b = 0`` for a judged label-0 document and 1
    otherwise.  It orders by the label (so by the linear or exponential gain, ERR's stopping
    probability and relevance at any level >= 1) and, among gain-0 documents, puts judged
    non-relevant ones below unjudged ones (Bpref at level 1).  A gain map, Bpref at another
    level, level 0, Judged and RBP's residual order by their own utilities.
    """
    has_rel = "rel" in [p.name for p in FAMILIES[measure.family].params]
    rel = measure.param("rel") if has_rel else None
    level = relevance_level if rel is None else int(rel)  # type: ignore[call-overload]
    if measure.code == NDCG and measure.param("gains") is not None:
        return ("gain", measure.param("gains"))
    if measure.code == JUDGED:
        return ("judged",)
    if measure.code == RBPRES:
        return ("unjudged",)
    if measure.code == BPREF and level != 1:
        return ("bpref", level)
    if has_rel and level < 1:
        return ("relevant", level)
    return ("label",)


def bound_key(batch: QueryBatch, utility: tuple, ties: str) -> np.ndarray:
    """The int64 key of ``pessimistic`` (utility ascending) or ``optimistic`` (descending)."""
    labels, judged = batch.labels, batch.judged
    kind = utility[0]
    if kind == "label":
        gain = np.where(judged, np.maximum(labels, 0), 0).astype(np.int64)
        key = 2 * gain + (~(judged & (labels == 0))).astype(np.int64)
    elif kind == "gain":
        mapped = np.where(judged, labels, 0).astype(np.float64)
        for label, gain in utility[1]:
            mapped = np.where(judged & (labels == label), gain, mapped)
        key = np.unique(np.maximum(mapped, 0.0), return_inverse=True)[1].astype(np.int64)
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
