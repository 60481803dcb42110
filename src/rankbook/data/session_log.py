"""Search sessions in one schema, whatever produced them: the simulator or a real log.

:func:`rankbook.data.sessions.simulate_sessions` and
:func:`rankbook.data.diginetica.load_diginetica` both return a :class:`SessionLog`; everything
downstream (features, windows, rankers) reads only it.

Output: :class:`SessionLog` (the same tables :mod:`rankbook.data.diginetica` produces)
--------------------------------------------------------------------------------------
``items``   ``item_id, title, category, price`` (+ simulator-only latent columns)
``queries`` ``query_id, session_id, user_id, timestamp, query_text, query_category`` (+ ``intent_*``
            latent columns and ``query_index``: position in the session)
``serp``    ``query_id, item_id, rank, clicked, purchased, label``: one row per shown item, ``rank``
1-based ``clicks``  ``session_id, timestamp, item_id, query_id``: click events in time order; a
            query's *history* is its session's clicks strictly before the query's timestamp.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from rankbook.data.source import DataSource

__all__ = ["EPOCH", "SessionLog", "assign_time_windows"]

#: Time zero of simulated logs (timestamps are EPOCH + seconds).
EPOCH = pd.Timestamp("2024-03-04")


@dataclass
class SessionLog:
    """Search sessions in the shared schema (see module docstring)."""

    items: pd.DataFrame
    queries: pd.DataFrame
    serp: pd.DataFrame
    clicks: pd.DataFrame
    source: DataSource
    extra: dict = field(default_factory=dict)

    def summary(self) -> dict[str, float]:
        """Headline counts: sessions, queries, SERP rows, CTR, queries with a sale."""
        q = self.queries
        s = self.serp
        sale_q = s.groupby("query_id").purchased.any()
        return {
            "n_items": int(len(self.items)),
            "n_sessions": int(q.session_id.nunique()),
            "n_queries": int(len(q)),
            "n_serp_rows": int(len(s)),
            "mean_serp_length": float(s.groupby("query_id").size().mean()),
            "ctr": float(s.clicked.mean()),
            "queries_with_click": float(s.groupby("query_id").clicked.any().mean()),
            "queries_with_sale": float(sale_q.mean()),
            "mean_queries_per_session": float(q.groupby("session_id").size().mean()),
        }


def assign_time_windows(queries: pd.DataFrame, fractions: dict[str, float]) -> pd.Series:
    """Label each query with a time window by its **session's** start time (sessions are never cut).

    ``fractions`` maps window names, in time order, to the share of sessions they take, e.g.
    ``{"train": 0.6, "valid": 0.2, "test": 0.2}`` (the sequence encoders prepend an ``"encoder"``
    window). Returns a categorical Series aligned with ``queries``.
    """
    if (
        not fractions
        or any(v < 0 for v in fractions.values())
        or not np.isclose(sum(fractions.values()), 1.0)
    ):
        raise ValueError(f"fractions must be non-negative and sum to 1, got {fractions}")
    first = queries.groupby("session_id").timestamp.min().sort_values(kind="stable")
    rank = np.arange(len(first)) / max(len(first), 1)
    edges = np.cumsum(list(fractions.values()))
    window_idx = np.searchsorted(edges, rank, side="right").clip(0, len(fractions) - 1)
    names = list(fractions)
    by_session = pd.Series(np.asarray(names, dtype=object)[window_idx], index=first.index)
    return pd.Series(
        pd.Categorical(queries.session_id.map(by_session), categories=names, ordered=True),
        index=queries.index,
        name="window",
    )
