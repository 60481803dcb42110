"""What a simulated session log holds: its measured context and its shape against DIGINETICA.

Measuring the context (:func:`intent_dynamics`)
    every later query is exactly one of *persist* (same intent, same level of detail), *refine*
    (same intent, one more preference named), *fresh* (a new intent) or *return* (back to an
    earlier intent of the session, A -> B -> A); their shares are the contextual signal a feature
    can find. A return needs an earlier intent that is still open (not the current one, not
    ended by a purchase), so returns stay rare in short sessions whatever ``p_return`` is.

Shape against DIGINETICA (:func:`diginetica_shape`, :func:`calibrate_click_base`)
    :data:`DIGINETICA_PUBLISHED` holds counts of the CIKM Cup 2016 DIGINETICA log as summarised
    publicly (573,935 sessions; 53,427 query-full and 869,700 query-less search logs; 1,127,764
    clicks; 18,025 purchases; source in the constant). From them: 1.61 searches per session,
    1.22 clicks per search, and at most 1.95% of searches with a purchase (purchases are not tied
    to searches there, so this is an upper bound).

    **Calibrated: clicks per search.** The click model's intercept ``click_base`` is set so that
    the default log has DIGINETICA's clicks per search: :func:`calibrate_click_base` bisects
    ``click_base`` on simulated logs until ``clicks / searches`` is within ``tol`` of 1.222; at the
    default configuration it finds -5.27, rounded to :data:`CALIBRATED_CLICK_BASE` = -5.25 (1.227
    clicks per search on the default log).
    A lower intercept also makes clicks more selective: far from the logistic's saturation a
    click says more about the intent (our hypothesis for why Part III's contextual lifts are
    several times larger at this intercept than at the uncalibrated -3.0 used before).

    **Assumptions: searches per session and the share of searches with a purchase.** About 3.9
    searches per session (DIGINETICA 1.61) and about 20% of searches with a purchase (<= 1.95%)
    keep, in a log of a few thousand sessions, enough multi-query sessions for context to exist
    and enough queries with a sale for MRR-sale to be measured within minutes; calibrating them
    would need tens of times more sessions for the same number of sale queries with context.

Public API: :func:`intent_dynamics`, :func:`diginetica_shape`, :func:`calibrate_click_base`,
:data:`DIGINETICA_PUBLISHED`, :data:`CALIBRATED_CLICK_BASE`.
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pandas as pd

from rankbook.data.session_config import SessionConfig
from rankbook.data.session_log import SessionLog
from rankbook.data.sessions import simulate_sessions

__all__ = [
    "CALIBRATED_CLICK_BASE",
    "DIGINETICA_PUBLISHED",
    "calibrate_click_base",
    "clicks_per_search",
    "diginetica_shape",
    "intent_dynamics",
]

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
#: ``click_base`` found by :func:`calibrate_click_base` at the default :class:`SessionConfig`
#: (``tol = 0.01``, rounded to 0.05); the default of ``SessionConfig.click_base``.
CALIBRATED_CLICK_BASE = -5.25


def _published_clicks_per_search() -> float:
    d = DIGINETICA_PUBLISHED
    return d["clicks"] / (d["query_full_searches"] + d["query_less_searches"])


def clicks_per_search(log: SessionLog) -> float:
    """Clicks over searches (queries) of a log: ``sum(clicked) / n_queries``."""
    return float(log.serp.clicked.sum()) / len(log.queries)


def calibrate_click_base(
    config: SessionConfig | None = None,
    *,
    target: float | None = None,
    lo: float = -9.0,
    hi: float = 0.0,
    tol: float = 0.01,
    max_steps: int = 30,
) -> tuple[float, float]:
    """``click_base`` whose simulated log has ``target`` clicks per search (DIGINETICA's 1.222 by
    default), by bisection on ``[lo, hi]``; returns ``(click_base, clicks_per_search)``.

    Each step simulates ``config`` (default :class:`SessionConfig`) with a new ``click_base`` and
    the same seed. Clicks per search grow with ``click_base`` (the click probability is
    ``r ** -position_bias * sigmoid(click_base + ...)``), so the bracket must hold the target:
    ``ValueError`` otherwise, and when ``max_steps`` bisections do not reach ``tol``.
    """
    config = config or SessionConfig()
    target = _published_clicks_per_search() if target is None else float(target)
    if not (target > 0 and lo < hi and tol > 0 and max_steps >= 1):
        raise ValueError(
            f"need target > 0, lo < hi, tol > 0 and max_steps >= 1; got target={target}, "
            f"lo={lo}, hi={hi}, tol={tol}, max_steps={max_steps}"
        )

    def rate(click_base: float) -> float:
        log = simulate_sessions(replace(config, click_base=click_base), progress=False)
        return clicks_per_search(log)

    low, high = rate(lo), rate(hi)
    if not low <= target <= high:
        raise ValueError(
            f"target {target:.4f} clicks per search is outside [{low:.4f}, {high:.4f}], the rates "
            f"at click_base lo={lo} and hi={hi}: widen the bracket"
        )
    for _ in range(max_steps):
        mid = (lo + hi) / 2
        value = rate(mid)
        if abs(value - target) <= tol:
            return mid, value
        lo, hi = (mid, hi) if value < target else (lo, mid)
    raise ValueError(f"no click_base within tol={tol} of {target:.4f} after {max_steps} steps")


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
        "clicks per search": clicks_per_search(log),
        "share of searches with a purchase": float(s.groupby("query_id").purchased.any().mean()),
    }
    theirs = {
        "searches per session": searches / d["sessions"],
        "clicks per search": _published_clicks_per_search(),
        "share of searches with a purchase": d["purchases"] / searches,
    }
    click_base = log.source.details.get("config", {}).get("click_base")
    calibrated = click_base is not None and np.isclose(click_base, CALIBRATED_CLICK_BASE)
    note = {
        "searches per session": "assumption: longer sessions give context to find",
        "clicks per search": f"calibrated: click_base = {CALIBRATED_CLICK_BASE} "
        "(calibrate_click_base)"
        if calibrated
        else "not a simulated log"
        if click_base is None
        else f"not calibrated: click_base = {click_base}, not {CALIBRATED_CLICK_BASE}",
        "share of searches with a purchase": "assumption: enough sale queries for MRR-sale "
        "(DIGINETICA: an upper bound, purchases are not tied to searches)",
    }
    return (
        pd.DataFrame({"this_log": ours, "diginetica_published": theirs, "calibrated": note})
        .rename_axis("statistic")
        .reset_index()
    )
