"""What a simulated session log holds: its measured context and its shape against DIGINETICA.

Measuring the context (:func:`intent_dynamics`)
    every later query is exactly one of *persist* (same intent, same level of detail), *refine*
    (same intent, one more preference named), *fresh* (a new intent) or *return* (back to an
    earlier intent of the session, A -> B -> A); their shares are the contextual signal a feature
    can find. A return needs an earlier intent that is still open (not the current one, not
    ended by a purchase), so returns stay rare in short sessions whatever ``p_return`` is.

Shape against DIGINETICA (:func:`diginetica_shape`)
    :data:`DIGINETICA_PUBLISHED` holds counts of the CIKM Cup 2016 DIGINETICA log as summarised
    publicly (573,935 sessions; 53,427 query-full and 869,700 query-less search logs; 1,127,764
    clicks; 18,025 purchases; source in the constant). From them: 1.61 searches per session,
    1.22 clicks per search, and at most 1.95% of searches with a purchase (purchases are not tied
    to searches there, so this is an upper bound). The defaults are **not** calibrated to these:
    they are assumptions chosen so that a 6,000-session log holds enough queries with a sale
    (about 28% of queries instead of <= 2%) and enough multi-query sessions (about 3.4 queries
    per session) for a ranking experiment on context within minutes.

Public API: :func:`intent_dynamics`, :func:`diginetica_shape`, :data:`DIGINETICA_PUBLISHED`.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from rankaudit.data.session_log import SessionLog

__all__ = ["DIGINETICA_PUBLISHED", "diginetica_shape", "intent_dynamics"]

#: Published counts of the DIGINETICA (CIKM Cup 2016, track 2) log; secondary source: the dataset
#: summary at https://www.emergentmind.com/topics/alibaba-s-personalized-re-ranking-dataset
#: (citing Wu et al., 2017). Query-full plus query-less logs are the searches.
DIGINETICA_PUBLISHED = {
    "sessions": 573_935,
    "query_full_searches": 53_427,
    "query_less_searches": 869_700,
    "clicks": 1_127_764,
    "purchases": 18_025,
}


def intent_dynamics(queries: pd.DataFrame) -> dict[str, float]:
    """Shares of later queries (``query_index > 0``) that persist, refine, go fresh or return.

    Needs the simulator's latent columns (``intent_switched``, ``intent_returned``, ``intent_slot``,
    ``intent_level``, ``session_id``, ``query_index``); the four shares sum to one.
    """
    need = (
        "session_id",
        "query_index",
        "intent_slot",
        "intent_level",
        "intent_switched",
        "intent_returned",
    )
    missing = [c for c in need if c not in queries]
    if missing:
        raise ValueError(f"queries lacks the simulator's latent column(s) {missing}")
    q = queries.sort_values(["session_id", "query_index"], kind="stable")
    prev_level = q.groupby("session_id").intent_level.shift()
    later = q.query_index.to_numpy() > 0
    if not later.any():
        raise ValueError("queries has no later query (every session has one query)")
    switched = q.intent_switched.to_numpy(bool)[later]
    returned = q.intent_returned.to_numpy(bool)[later]
    refined = ~switched & (q.intent_level.to_numpy()[later] > prev_level.to_numpy()[later])
    return {
        "persist": float(np.mean(~switched & ~refined)),
        "refine": float(np.mean(refined)),
        "fresh": float(np.mean(switched & ~returned)),
        "return": float(np.mean(returned)),
    }


def diginetica_shape(log: SessionLog) -> pd.DataFrame:
    """The log's searches per session, clicks per search and share of searches with a purchase,
    next to DIGINETICA's published figures (module docstring); one row per statistic."""
    d = DIGINETICA_PUBLISHED
    searches = d["query_full_searches"] + d["query_less_searches"]
    q, s = log.queries, log.serp
    ours = {
        "searches per session": len(q) / q.session_id.nunique(),
        "clicks per search": float(s.clicked.sum()) / len(q),
        "share of searches with a purchase": float(s.groupby("query_id").purchased.any().mean()),
    }
    theirs = {
        "searches per session": searches / d["sessions"],
        "clicks per search": d["clicks"] / searches,
        "share of searches with a purchase": d["purchases"] / searches,
    }
    note = {
        "searches per session": "assumption: longer sessions give context to find",
        "clicks per search": "assumption: follows from the click model's defaults",
        "share of searches with a purchase": "assumption: enough sale queries for MRR-sale "
        "(DIGINETICA: an upper bound, purchases are not tied to searches)",
    }
    return (
        pd.DataFrame({"this_log": ours, "diginetica_published": theirs, "calibrated": note})
        .rename_axis("statistic")
        .reset_index()
    )
