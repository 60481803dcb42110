"""What a run offers a tie rule that orders every measure alike (the rules carry their keys:
one registry, :mod:`rankaudit.measures.rules`).

:class:`RunTieContext` gives, per document of a :class:`~rankaudit.runs.layout.QueryBatch`,
its line position inside the query, its docno's rank in byte order, and its place in the
seeded hash order (:func:`rankaudit.measures.hashing.hash_order_ranks`, keyed by
``tie_hash(seed, query id, docno)``).  :func:`tie_keys` is the key a rule sorts each tie block
by; the bounds sort by each measure's own utility, in the core
(:mod:`rankaudit.measures.list_evaluate`).
"""

from __future__ import annotations

import numpy as np

from rankaudit.measures.hashing import hash_order_ranks, id64, splitmix64, splitmix64_array
from rankaudit.measures.rules import rule
from rankaudit.runs.encoding import index_dtype
from rankaudit.runs.layout import QueryBatch

__all__ = ["RunTieContext", "tie_keys"]


class RunTieContext:
    """The :class:`~rankaudit.measures.rules.TieContext` of a run's batch (module docstring)."""

    def __init__(self, batch: QueryBatch, seed: int = 0) -> None:
        self.batch = batch
        self.seed = seed

    def position(self) -> np.ndarray:
        """Line order: rows are in file order inside each query."""
        n = len(self.batch.scores)
        return np.arange(n, dtype=index_dtype(n))

    def item_rank(self) -> np.ndarray:
        """The docno's rank in byte order (``strcmp``)."""
        return self.batch.docno_rank

    def hash_rank(self) -> np.ndarray:
        """Rank in the hash order of ``(query id, docno)`` under the seed."""
        batch = self.batch
        seed_key = np.uint64(splitmix64(id64(int(self.seed))))
        qkeys = np.fromiter(
            (id64(q) for q in batch.queries), dtype=np.uint64, count=batch.n_queries
        )
        used = np.unique(batch.docno_rank)
        dkeys_used = np.fromiter(
            (id64(batch.docno_sorted[int(c)].as_py()) for c in used),
            dtype=np.uint64,
            count=len(used),
        )
        dkey = dkeys_used[np.searchsorted(used, batch.docno_rank)]
        row_q = np.repeat(np.arange(batch.n_queries), np.diff(batch.offsets))
        row_keys = splitmix64_array(np.full(1, seed_key) ^ qkeys)
        return hash_order_ranks(row_keys[row_q], dkey, batch.docno_rank)


def tie_keys(batch: QueryBatch, ties: str, seed: int = 0) -> np.ndarray:
    """The integer key a rule that orders every measure alike (``order="key"``) sorts each tie
    block by, ascending; any other rule is a ValueError."""
    declared = rule(ties)
    if declared.key is None:
        raise ValueError(f"tie rule {ties!r} has no common sort key (order={declared.order!r})")
    return declared.key(RunTieContext(batch, seed))
