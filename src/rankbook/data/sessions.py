"""Shopping-session simulator: buyers with a latent, drifting intent searching a synthetic catalog.

Generative story (every number is a field of :class:`SessionConfig`, i.e. a chapter parameter)
-----------------------------------------------------------------------------------------------
1. **Catalog.** :func:`rankbook.data.catalog.generate_catalog` draws ``n_products`` listings over
   24 categories (brand, product line, type, attribute, size, price, latent quality).
2. **Sessions.** ``n_sessions`` sessions start uniformly over ``n_days`` days. A session is a
   sequence of queries; after each query the buyer continues with probability ``p_continue``
   (``p_continue_after_purchase`` after a purchase), up to ``max_queries``.
3. **Latent intent.** An intent is anchored on a *target product* drawn from the catalog: the buyer
   wants its category and product type and, to varying degrees, its brand, line, attribute and price
   level. Before every query after the first the intent persists, or with probability ``p_switch``
   the buyer shifts to another intent (the paper's "shift from one intent to another"): back to an
   earlier intent of the session with probability ``p_return``, else a fresh one. A purchase
   satisfies the intent and forces a shift; a satisfied intent is never returned to.
4. **Queries, broad to specific.** A query always names the product type and reveals ``level`` of
   the other three preferences (brand, line, attribute, in an order drawn per intent). A fresh
   intent starts at ``level ~ Binomial(3, p_specific_start)``; each further query in the same intent
   refines by one with probability ``p_refine``. Hidden preferences are what the buyer's earlier
   clicks reveal: the contextual signal the paper's features pick up.
5. **Retrieval.** The engine scores the whole catalog with BM25 against the query, adds
   ``retrieval_pop_weight * quality`` and Gumbel noise of scale ``retrieval_noise`` (other signals
   of a production engine, unknown to us), keeps matching items only (BM25 > 0) and shows the top
   ``serp_size`` (SERPs of rare queries can be shorter: ragged lists). It does not know the latent
   intent.
6. **Clicks** (position-based model, Richardson et al., 2007; Craswell et al., 2008): item at rank
   ``r`` is examined with probability ``r ** -position_bias`` and clicked if examined with
   probability ``sigmoid(u)``, ``u = click_base + w_type [type] + w_brand [brand] + w_line [line] +
   w_attribute [attribute]
   - w_price |log price - log target price| + w_quality * quality``, where ``[x]`` is 1 when the
     item matches
   the intent on ``x``.
7. **Purchase.** Each clicked item is bought with probability ``sigmoid(buy_base + buy_match *
   n_match + buy_stage * min(k, 3))``, ``n_match`` the number of matching brand/line/attribute/type,
   ``k`` the number of earlier queries in the intent (buyers browse before they buy); at most one
   purchase per query (the candidate with the highest noisy utility).
8. **Labels and time.** sale 2 > click 1 > none 0. Clicks follow their query by exponential dwell
   times (``click_gap_mean_s``), the next query follows the last event by ``query_gap_mean_s`` on
   average.

Output: a :class:`~rankbook.data.session_log.SessionLog` (its module describes the tables).

The measured context and the log's shape against DIGINETICA: :mod:`rankbook.data.session_shape`.

Public API: :class:`SessionConfig`, :func:`simulate_sessions`; :class:`SessionLog` and
:func:`assign_time_windows` are re-exported from :mod:`rankbook.data.session_log`.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass

import numpy as np
import pandas as pd

from rankaudit._optional import tqdm
from rankbook.data.session_catalog import Catalog
from rankbook.data.session_config import SessionConfig
from rankbook.data.session_log import EPOCH, SessionLog, assign_time_windows
from rankbook.data.source import DataSource

__all__ = [
    "EPOCH",
    "GENERATOR",
    "GENERATOR_VERSION",
    "SessionConfig",
    "SessionLog",
    "assign_time_windows",
    "simulate_sessions",
]

GENERATOR = "rankbook.data.sessions.simulate_sessions"
GENERATOR_VERSION = "1.0"


def _sigmoid(x: np.ndarray) -> np.ndarray:
    return 1.0 / (1.0 + np.exp(-x))


def _query_text(item: pd.Series | tuple, level: int, order: int) -> str:
    """The query for an intent anchored on ``item`` revealing ``level`` of (brand, line,
    attribute)."""
    brand, line, ptype, attr = item
    reveal = [
        ("brand", "line", "attribute"),
        ("brand", "attribute", "line"),
        ("attribute", "brand", "line"),
    ][order][:level]
    parts = []
    if "brand" in reveal or "line" in reveal:
        parts.append(brand)
    if "line" in reveal:
        parts.append(line)
    parts.append(ptype)
    if "attribute" in reveal:
        parts.append(attr)
    return " ".join(parts).lower()


@dataclass
class _Buyers:
    """Every session's state. Arrays over sessions, or over (session, intent slot).

    An intent slot holds one latent intent: its target product, the order in which the query
    reveals brand/line/attribute, its current level of detail and the buyer's price offset.
    """

    target: np.ndarray  # (sessions, slots) target product of each intent
    reveal_order: np.ndarray  # (sessions, slots) order of revealed preferences (0..2)
    level: np.ndarray  # (sessions, slots) preferences the query names (0..3)
    price_offset: np.ndarray  # (sessions, slots) log-price target around the target's price
    clock: np.ndarray  # (sessions,) time of the next query, seconds since EPOCH
    user: np.ndarray  # (sessions,)
    active: np.ndarray  # (sessions,) still searching
    current_slot: np.ndarray  # (sessions,) the intent being searched now
    n_intents: np.ndarray  # (sessions,) intent slots used so far
    queries_in_intent: np.ndarray  # (sessions, slots)
    bought_last: np.ndarray  # (sessions,) the previous query ended in a purchase
    satisfied: np.ndarray  # (sessions, slots) the intent ended in a purchase

    @classmethod
    def draw(cls, cfg: SessionConfig, rng: np.random.Generator, n_items: int) -> _Buyers:
        """Step 2-3 of the module docstring: sessions, their start times and pre-drawn intents."""
        n, slots = cfg.n_sessions, cfg.max_queries
        target = rng.integers(0, n_items, size=(n, slots))
        reveal_order = rng.integers(0, 3, size=(n, slots))
        level = rng.binomial(3, cfg.p_specific_start, size=(n, slots))
        price_offset = rng.normal(0.0, 0.15, size=(n, slots))
        start = rng.integers(0, cfg.n_days, n) * 86400 + rng.uniform(0, 86400, n)
        user = rng.integers(0, cfg.n_users, n)
        return cls(
            target=target,
            reveal_order=reveal_order,
            level=level,
            price_offset=price_offset,
            clock=start.astype(np.float64),
            user=user,
            active=np.ones(n, dtype=bool),
            current_slot=np.zeros(n, dtype=np.int64),
            n_intents=np.ones(n, dtype=np.int64),
            queries_in_intent=np.zeros((n, slots), dtype=np.int64),
            bought_last=np.zeros(n, dtype=bool),
            satisfied=np.zeros((n, slots), dtype=bool),
        )


def _move_intents(cfg: SessionConfig, rng, buyers: _Buyers, sessions: np.ndarray):
    """Step 3: before a later query each buyer keeps, refines, switches or returns to an intent.

    Returns ``(switched, returned)`` per session in ``sessions``.
    """
    n, slots = len(sessions), cfg.max_queries
    switched = (rng.random(n) < cfg.p_switch) | buyers.bought_last[sessions]
    # a return goes to an earlier, unsatisfied intent other than the current one
    open_slot = (np.arange(slots) < buyers.n_intents[sessions, None]) & ~buyers.satisfied[sessions]
    open_slot[np.arange(n), buyers.current_slot[sessions]] = False
    returned = switched & open_slot.any(axis=1) & (rng.random(n) < cfg.p_return)
    fresh = switched & ~returned
    back = sessions[returned]
    keys = np.where(open_slot[returned], rng.random((len(back), slots)), -1.0)
    buyers.current_slot[back] = keys.argmax(axis=1)  # uniform among the open slots
    new = sessions[fresh]
    buyers.current_slot[new] = buyers.n_intents[new]
    buyers.n_intents[new] += 1
    stay = sessions[~switched]
    refine = rng.random(len(stay)) < cfg.p_refine
    slot = buyers.current_slot[stay]
    buyers.level[stay, slot] = np.minimum(buyers.level[stay, slot] + refine, 3)
    return switched, returned


def _retrieve(cfg: SessionConfig, rng, catalog: Catalog, texts: list[str]):
    """Step 5: BM25 once per distinct query text, a noisy production score per impression.

    Returns ``(query_category, serp_items)``, ``serp_items`` padded with -1 for short SERPs.
    """
    distinct, which = np.unique(np.asarray(texts, dtype=object), return_inverse=True)
    bm25 = catalog.index.scores(list(distinct))
    best_category = np.argmax(bm25 @ catalog.category_onehot, axis=1)
    query_category = np.asarray(catalog.category_by_code.loc[best_category].to_numpy())[which]
    n_items = len(catalog.quality)
    shown = min(cfg.serp_size, n_items)
    serp = np.full((len(texts), cfg.serp_size), -1, dtype=np.int64)
    for lo in range(0, len(texts), 1000):
        b = bm25[which[lo : lo + 1000]]
        score = (
            b
            + cfg.retrieval_pop_weight * catalog.quality[None, :]
            + cfg.retrieval_noise * rng.gumbel(size=b.shape)
        )
        score[b <= 0] = -np.inf
        top = np.argpartition(-score, shown - 1, axis=1)[:, :shown]
        top_score = np.take_along_axis(score, top, axis=1)
        by_score = np.argsort(-top_score, axis=1, kind="stable")
        top = np.take_along_axis(top, by_score, axis=1)
        top[~np.isfinite(np.take_along_axis(top_score, by_score, axis=1))] = -1
        serp[lo : lo + 1000, :shown] = top
    return query_category, serp


def _click_and_buy(cfg: SessionConfig, rng, catalog: Catalog, target, price_offset, stage, serp):
    """Steps 6-7: position-based clicks on intent-matching items, at most one purchase per query.

    ``target``/``price_offset``/``stage`` (earlier queries in the intent) are per query.
    Returns ``(clicked, purchased, has_purchase)``.
    """
    shown = serp >= 0
    item = np.where(shown, serp, 0)
    want = target[:, None]
    same_type = catalog.product_type[item] == catalog.product_type[want]
    same_brand = catalog.brand[item] == catalog.brand[want]
    same_line = catalog.line[item] == catalog.line[want]
    same_attribute = catalog.attribute[item] == catalog.attribute[want]
    price_gap = np.abs(catalog.log_price[item] - (catalog.log_price[want] + price_offset[:, None]))
    appeal = (
        cfg.click_base
        + cfg.w_type * same_type
        + cfg.w_brand * same_brand
        + cfg.w_line * same_line
        + cfg.w_attribute * same_attribute
        - cfg.w_price * price_gap
        + cfg.w_quality * catalog.quality[item]
    )
    examined = np.arange(1, cfg.serp_size + 1, dtype=np.float64) ** (-cfg.position_bias)
    clicked = shown & (rng.random(appeal.shape) < examined[None, :] * _sigmoid(appeal))
    n_match = same_type.astype(int) + same_brand + same_line + same_attribute
    buy = (
        cfg.buy_base
        + cfg.buy_match * n_match
        + cfg.buy_stage * np.minimum(stage, 3)[:, None]
        - cfg.w_price * price_gap
    )
    candidate = clicked & (rng.random(appeal.shape) < _sigmoid(buy))
    noisy = np.where(candidate, buy + rng.gumbel(size=appeal.shape), -np.inf)
    has_purchase = candidate.any(axis=1)
    purchased = np.zeros_like(clicked)
    purchased[np.flatnonzero(has_purchase), np.argmax(noisy, axis=1)[has_purchase]] = True
    return clicked, purchased, has_purchase


def simulate_sessions(
    config: SessionConfig | None = None, *, progress: bool = True, **overrides
) -> SessionLog:
    """Simulate search sessions (the module docstring's steps 1-8, one query per session a round).

    ``overrides`` replace fields of ``config`` (default :class:`SessionConfig`). Deterministic
    for a given config (one ``numpy.random.default_rng(config.seed)``).
    """
    cfg = config or SessionConfig()
    if overrides:
        cfg = SessionConfig(**{**asdict(cfg), **overrides})
    rng = np.random.default_rng(cfg.seed)
    catalog = Catalog.build(cfg)
    buyers = _Buyers.draw(cfg, rng, len(catalog.items))
    queries, serps, clicks = [], [], []
    next_query_id = 0
    rounds = tqdm(
        range(cfg.max_queries), desc="simulating sessions", disable=not progress, leave=False
    )
    for t in rounds:
        sessions = np.flatnonzero(buyers.active)
        if len(sessions) == 0:
            break
        switched = returned = np.zeros(len(sessions), dtype=bool)
        if t > 0:
            switched, returned = _move_intents(cfg, rng, buyers, sessions)
        slot = buyers.current_slot[sessions]
        target = buyers.target[sessions, slot]
        level = buyers.level[sessions, slot]
        texts = [
            _query_text(catalog.text_parts[i], lv, order)
            for i, lv, order in zip(target, level, buyers.reveal_order[sessions, slot], strict=True)
        ]
        query_ids = np.arange(next_query_id, next_query_id + len(sessions))
        next_query_id += len(sessions)
        category, serp = _retrieve(cfg, rng, catalog, texts)
        stage = buyers.queries_in_intent[sessions, slot]
        clicked, purchased, has_purchase = _click_and_buy(
            cfg, rng, catalog, target, buyers.price_offset[sessions, slot], stage, serp
        )
        # step 8, time: clicks in rank order after the query, next query after the last event
        gaps = rng.exponential(cfg.click_gap_mean_s, size=serp.shape) + 1.0
        click_time = buyers.clock[sessions][:, None] + np.cumsum(
            np.where(clicked, gaps, 0.0), axis=1
        )
        queries.append(
            pd.DataFrame(
                {
                    "query_id": query_ids,
                    "session_id": sessions,
                    "user_id": buyers.user[sessions],
                    "ts": buyers.clock[sessions],
                    "query_text": texts,
                    "query_category": category,
                    "query_index": t,
                    "intent_slot": slot,
                    "intent_target_item": target,
                    "intent_level": level,
                    "intent_switched": switched,
                    "intent_returned": returned,
                    "intent_query_index": stage,
                }
            )
        )
        row, col = np.nonzero(serp >= 0)
        serps.append(
            pd.DataFrame(
                {
                    "query_id": query_ids[row],
                    "item_id": serp[row, col],
                    "rank": col + 1,
                    "clicked": clicked[row, col],
                    "purchased": purchased[row, col],
                }
            )
        )
        row, col = np.nonzero(clicked)
        clicks.append(
            pd.DataFrame(
                {
                    "session_id": sessions[row],
                    "ts": click_time[row, col],
                    "item_id": serp[row, col],
                    "query_id": query_ids[row],
                }
            )
        )
        last = np.where(
            clicked.sum(axis=1) > 0, click_time.max(axis=1, initial=0.0), buyers.clock[sessions]
        )
        buyers.clock[sessions] = (
            np.maximum(last, buyers.clock[sessions])
            + rng.exponential(cfg.query_gap_mean_s, len(sessions))
            + 1.0
        )
        buyers.queries_in_intent[sessions, slot] += 1
        buyers.bought_last[sessions] = has_purchase
        buyers.satisfied[sessions[has_purchase], slot[has_purchase]] = True
        go_on = np.where(has_purchase, cfg.p_continue_after_purchase, cfg.p_continue)
        buyers.active[sessions] = rng.random(len(sessions)) < go_on
        if t == cfg.max_queries - 1:
            buyers.active[:] = False
    return _session_log(cfg, catalog, queries, serps, clicks)


def _session_log(cfg: SessionConfig, catalog: Catalog, queries, serps, clicks) -> SessionLog:
    """Step 8: the tables of a :class:`SessionLog`, with labels sale 2 > click 1 > none 0."""
    queries = pd.concat(queries, ignore_index=True)
    serp = pd.concat(serps, ignore_index=True)
    clicks = pd.concat(clicks, ignore_index=True)
    queries.insert(3, "timestamp", EPOCH + pd.to_timedelta(queries.pop("ts").round(3), unit="s"))
    clicks.insert(1, "timestamp", EPOCH + pd.to_timedelta(clicks.pop("ts").round(3), unit="s"))
    serp["label"] = serp.clicked.astype(np.int8) + serp.purchased.astype(np.int8)
    clicks = clicks.sort_values(["session_id", "timestamp"], kind="stable").reset_index(drop=True)
    queries = queries.sort_values("query_id").reset_index(drop=True)
    categories = np.asarray(pd.Categorical(catalog.items.category).categories)
    source = DataSource(
        name="Simulated shopping sessions",
        kind="simulated",
        version=GENERATOR_VERSION,
        generator=GENERATOR,
        details={"config": asdict(cfg), "categories": [str(c) for c in categories]},
    )
    return SessionLog(items=catalog.items, queries=queries, serp=serp, clicks=clicks, source=source)
