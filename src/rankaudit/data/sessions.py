"""Shopping-session simulator: buyers with a latent, drifting intent searching a synthetic catalog.

Generative story (every number is a field of :class:`SessionConfig`, i.e. a chapter parameter)
-----------------------------------------------------------------------------------------------
1. **Catalog.** :func:`rankaudit.data.catalog.generate_catalog` draws ``n_products`` listings over 24
   categories (brand, product line, type, attribute, size, price, latent quality).
2. **Sessions.** ``n_sessions`` sessions start uniformly over ``n_days`` days. A session is a sequence of
   queries; after each query the buyer continues with probability ``p_continue`` (``p_continue_after_purchase``
   after a purchase), up to ``max_queries``.
3. **Latent intent.** An intent is anchored on a *target product* drawn from the catalog: the buyer wants its
   category and product type and, to varying degrees, its brand, line, attribute and price level. Before
   every query after the first the intent persists, or with probability ``p_switch`` the buyer shifts to
   another intent (the paper's "shift from one intent to another"): back to an earlier intent of the session
   with probability ``p_return``, else a fresh one. A purchase satisfies the intent and forces a shift;
   a satisfied intent is never returned to.
4. **Queries, broad to specific.** A query always names the product type and reveals ``level`` of the other
   three preferences (brand, line, attribute, in an order drawn per intent). A fresh intent starts at
   ``level ~ Binomial(3, p_specific_start)``; each further query in the same intent refines by one with
   probability ``p_refine``. Hidden preferences are what the buyer's earlier clicks reveal: the contextual
   signal the paper's features pick up.
5. **Retrieval.** The engine scores the whole catalog with BM25 against the query, adds
   ``retrieval_pop_weight * quality`` and Gumbel noise of scale ``retrieval_noise`` (other signals of a
   production engine, unknown to us), keeps matching items only (BM25 > 0) and shows the top ``serp_size``
   (SERPs of rare queries can be shorter: ragged lists). It does not know the latent intent.
6. **Clicks** (position-based model, Richardson et al., 2007; Craswell et al., 2008): item at rank ``r`` is
   examined with probability ``r ** -position_bias`` and clicked if examined with probability
   ``sigmoid(u)``, ``u = click_base + w_type [type] + w_brand [brand] + w_line [line] + w_attribute [attribute]
   - w_price |log price - log target price| + w_quality * quality``, where ``[x]`` is 1 when the item matches
   the intent on ``x``.
7. **Purchase.** Each clicked item is bought with probability ``sigmoid(buy_base + buy_match * n_match +
   buy_stage * min(k, 3))``, ``n_match`` the number of matching brand/line/attribute/type, ``k`` the number of
   earlier queries in the intent (buyers browse before they buy); at most one purchase per query (the
   candidate with the highest noisy utility).
8. **Labels and time.** sale 2 > click 1 > none 0. Clicks follow their query by exponential dwell times
   (``click_gap_mean_s``), the next query follows the last event by ``query_gap_mean_s`` on average.

Output: :class:`SessionLog` (the same tables :mod:`rankaudit.data.diginetica` produces)
--------------------------------------------------------------------------------------
``items``   ``item_id, title, category, price`` (+ simulator-only latent columns)
``queries`` ``query_id, session_id, user_id, timestamp, query_text, query_category`` (+ ``intent_*`` latent
            columns and ``query_index``: position in the session)
``serp``    ``query_id, item_id, rank, clicked, purchased, label``: one row per shown item, ``rank`` 1-based
``clicks``  ``session_id, timestamp, item_id, query_id``: click events in time order; a query's *history* is
            its session's clicks strictly before the query's timestamp.

Public API: :class:`SessionConfig`, :func:`simulate_sessions`, :class:`SessionLog`, :func:`assign_time_windows`.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field

import numpy as np
import pandas as pd
from tqdm.auto import tqdm

from rankaudit.data.catalog import generate_catalog
from rankaudit.data.lexical import BM25Index
from rankaudit.data.source import DataSource

__all__ = [
    "EPOCH",
    "GENERATOR",
    "GENERATOR_VERSION",
    "SessionConfig",
    "SessionLog",
    "assign_time_windows",
    "simulate_sessions",
]

GENERATOR = "rankaudit.data.sessions.simulate_sessions"
GENERATOR_VERSION = "1.0"
EPOCH = pd.Timestamp("2024-03-04")


@dataclass(frozen=True)
class SessionConfig:
    """Every knob of the simulator (see the module docstring for the story)."""

    n_products: int = 3000
    n_sessions: int = 6000
    n_days: int = 14
    n_users: int = 4000
    serp_size: int = 20
    max_queries: int = 12
    p_continue: float = 0.85
    p_continue_after_purchase: float = 0.35
    p_switch: float = 0.15
    p_return: float = 0.35
    p_specific_start: float = 0.2
    p_refine: float = 0.35
    retrieval_noise: float = 1.0
    retrieval_pop_weight: float = 0.5
    position_bias: float = 0.8
    click_base: float = -3.0
    w_type: float = 1.5
    w_brand: float = 2.5
    w_line: float = 2.0
    w_attribute: float = 1.5
    w_price: float = 0.8
    w_quality: float = 0.4
    buy_base: float = -4.0
    buy_match: float = 0.6
    buy_stage: float = 0.7
    query_gap_mean_s: float = 90.0
    click_gap_mean_s: float = 25.0
    seed: int = 0

    def __post_init__(self) -> None:
        for name in ("n_products", "n_sessions", "n_days", "n_users", "serp_size", "max_queries"):
            if getattr(self, name) < 1:
                raise ValueError(f"SessionConfig.{name} must be >= 1, got {getattr(self, name)}")
        for name in ("p_continue", "p_continue_after_purchase", "p_switch", "p_return", "p_specific_start", "p_refine"):
            v = getattr(self, name)
            if not 0.0 <= v <= 1.0:
                raise ValueError(f"SessionConfig.{name} must be in [0, 1], got {v}")
        for name in ("retrieval_noise", "position_bias", "query_gap_mean_s", "click_gap_mean_s"):
            if getattr(self, name) < 0:
                raise ValueError(f"SessionConfig.{name} must be >= 0, got {getattr(self, name)}")


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


def _sigmoid(x: np.ndarray) -> np.ndarray:
    return 1.0 / (1.0 + np.exp(-x))


def _query_text(item: pd.Series | tuple, level: int, order: int) -> str:
    """The query for an intent anchored on ``item`` revealing ``level`` of (brand, line, attribute)."""
    brand, line, ptype, attr = item
    reveal = [("brand", "line", "attribute"), ("brand", "attribute", "line"), ("attribute", "brand", "line")][order][:level]
    parts = []
    if "brand" in reveal or "line" in reveal:
        parts.append(brand)
    if "line" in reveal:
        parts.append(line)
    parts.append(ptype)
    if "attribute" in reveal:
        parts.append(attr)
    return " ".join(parts).lower()


def simulate_sessions(config: SessionConfig | None = None, *, progress: bool = True, **overrides) -> SessionLog:
    """Simulate search sessions; ``overrides`` replace fields of ``config`` (default :class:`SessionConfig`)."""
    cfg = config or SessionConfig()
    if overrides:
        cfg = SessionConfig(**{**asdict(cfg), **overrides})
    rng = np.random.default_rng(cfg.seed)
    items = generate_catalog(cfg.n_products, seed=cfg.seed)
    n_items = len(items)
    index = BM25Index(items.title.to_numpy())
    cat_onehot = np.zeros((n_items, items.category_code.max() + 1))
    cat_onehot[np.arange(n_items), items.category_code.to_numpy()] = 1.0
    cat_names = np.asarray(pd.Categorical(items.category).categories)
    cat_by_code = items.drop_duplicates("category_code").set_index("category_code").category

    S, M = cfg.n_sessions, cfg.max_queries
    # intent slots per session, pre-drawn: target item, reveal order, starting level
    target = rng.integers(0, n_items, size=(S, M))
    order = rng.integers(0, 3, size=(S, M))
    level0 = rng.binomial(3, cfg.p_specific_start, size=(S, M))
    price_tol = rng.normal(0.0, 0.15, size=(S, M))  # buyer's price target around the target item's price

    it_type = items.type_code.to_numpy()
    it_brand = items.brand_code.to_numpy()
    it_line = items.line_code.to_numpy()
    it_attr = items.attribute_code.to_numpy()
    it_logp = np.log(items.price.to_numpy())
    it_q = items.quality.to_numpy()
    text_parts = list(zip(items.brand, items.line, items.product_type, items.attribute, strict=True))

    start = (rng.integers(0, cfg.n_days, S) * 86400 + rng.uniform(0, 86400, S)).astype(np.float64)
    clock = start.copy()
    user = rng.integers(0, cfg.n_users, S)
    active = np.ones(S, dtype=bool)
    cur = np.zeros(S, dtype=np.int64)           # current intent slot
    n_intents = np.ones(S, dtype=np.int64)      # slots used
    level = level0.copy()                       # current level per slot
    k_in_intent = np.zeros((S, M), dtype=np.int64)
    bought_last = np.zeros(S, dtype=bool)
    satisfied = np.zeros((S, M), dtype=bool)   # slots whose intent ended in a purchase

    q_rows, serp_rows, click_rows = [], [], []
    qid_next = 0
    exam = np.arange(1, cfg.serp_size + 1, dtype=np.float64) ** (-cfg.position_bias)
    rounds = tqdm(range(M), desc="simulating sessions", disable=not progress, leave=False)
    for t in rounds:
        s_idx = np.flatnonzero(active)
        if len(s_idx) == 0:
            break
        switched = np.zeros(len(s_idx), dtype=bool)
        returned = np.zeros(len(s_idx), dtype=bool)
        if t > 0:
            switched = (rng.random(len(s_idx)) < cfg.p_switch) | bought_last[s_idx]
            # a return goes to an earlier, unsatisfied intent other than the current one
            slots = np.arange(M)
            open_slot = (slots < n_intents[s_idx, None]) & ~satisfied[s_idx]
            open_slot[np.arange(len(s_idx)), cur[s_idx]] = False
            can_return = open_slot.any(axis=1)
            returned = switched & can_return & (rng.random(len(s_idx)) < cfg.p_return)
            fresh = switched & ~returned
            r = s_idx[returned]
            keys = np.where(open_slot[returned], rng.random((len(r), M)), -1.0)
            cur[r] = keys.argmax(axis=1)  # uniform among the open slots
            f = s_idx[fresh]
            cur[f] = n_intents[f]
            n_intents[f] += 1
            stay = s_idx[~switched]
            refine = rng.random(len(stay)) < cfg.p_refine
            level[stay, cur[stay]] = np.minimum(level[stay, cur[stay]] + refine, 3)
        slot = cur[s_idx]
        tgt = target[s_idx, slot]
        lv = level[s_idx, slot]
        od = order[s_idx, slot]
        texts = [_query_text(text_parts[i], l_, o) for i, l_, o in zip(tgt, lv, od, strict=True)]
        n_q = len(s_idx)
        qids = np.arange(qid_next, qid_next + n_q)
        qid_next += n_q

        # retrieval: BM25 once per unique query text, noisy production score per impression
        uq, uq_inv = np.unique(np.asarray(texts, dtype=object), return_inverse=True)
        bm = index.scores(list(uq))
        qcat = np.asarray(cat_by_code.loc[np.argmax(bm @ cat_onehot, axis=1)].to_numpy())[uq_inv]
        serp_items = np.full((n_q, cfg.serp_size), -1, dtype=np.int64)
        step = 1000
        for lo in range(0, n_q, step):
            b = bm[uq_inv[lo : lo + step]]
            score = b + cfg.retrieval_pop_weight * it_q[None, :] + cfg.retrieval_noise * rng.gumbel(size=b.shape)
            score[b <= 0] = -np.inf
            kk = min(cfg.serp_size, n_items)
            top = np.argpartition(-score, kk - 1, axis=1)[:, :kk]
            top_s = np.take_along_axis(score, top, axis=1)
            o = np.argsort(-top_s, axis=1, kind="stable")
            top = np.take_along_axis(top, o, axis=1)
            top_s = np.take_along_axis(top_s, o, axis=1)
            top[~np.isfinite(top_s)] = -1
            serp_items[lo : lo + step, :kk] = top
        valid = serp_items >= 0
        si = np.where(valid, serp_items, 0)

        # clicks: position-based model with intent-dependent attractiveness
        tg = tgt[:, None]
        m_type = it_type[si] == it_type[tg]
        m_brand = it_brand[si] == it_brand[tg]
        m_line = it_line[si] == it_line[tg]
        m_attr = it_attr[si] == it_attr[tg]
        dprice = np.abs(it_logp[si] - (it_logp[tg] + price_tol[s_idx, slot][:, None]))
        u = (cfg.click_base + cfg.w_type * m_type + cfg.w_brand * m_brand + cfg.w_line * m_line
             + cfg.w_attribute * m_attr - cfg.w_price * dprice + cfg.w_quality * it_q[si])
        p_click = exam[None, :] * _sigmoid(u)
        clicked = valid & (rng.random(u.shape) < p_click)

        # purchase: at most one per query, among clicked items
        n_match = m_type.astype(int) + m_brand + m_line + m_attr
        ub = cfg.buy_base + cfg.buy_match * n_match + cfg.buy_stage * np.minimum(k_in_intent[s_idx, slot], 3)[:, None] - cfg.w_price * dprice
        cand = clicked & (rng.random(u.shape) < _sigmoid(ub))
        noisy = np.where(cand, ub + rng.gumbel(size=u.shape), -np.inf)
        has_buy = cand.any(axis=1)
        buy_pos = np.argmax(noisy, axis=1)
        purchased = np.zeros_like(clicked)
        purchased[np.flatnonzero(has_buy), buy_pos[has_buy]] = True

        # timestamps: clicks in rank order after the query, next query after the last event
        n_clk = clicked.sum(axis=1)
        gaps = rng.exponential(cfg.click_gap_mean_s, size=u.shape) + 1.0
        ctime = clock[s_idx][:, None] + np.cumsum(np.where(clicked, gaps, 0.0), axis=1)
        q_rows.append(pd.DataFrame({
            "query_id": qids, "session_id": s_idx, "user_id": user[s_idx], "ts": clock[s_idx],
            "query_text": texts, "query_category": qcat, "query_index": t,
            "intent_slot": slot, "intent_target_item": tgt, "intent_level": lv,
            "intent_switched": switched, "intent_returned": returned,
            "intent_query_index": k_in_intent[s_idx, slot],
        }))
        rr, cc = np.nonzero(valid)
        serp_rows.append(pd.DataFrame({
            "query_id": qids[rr], "item_id": serp_items[rr, cc], "rank": cc + 1,
            "clicked": clicked[rr, cc], "purchased": purchased[rr, cc],
        }))
        cr, ccol = np.nonzero(clicked)
        click_rows.append(pd.DataFrame({
            "session_id": s_idx[cr], "ts": ctime[cr, ccol], "item_id": serp_items[cr, ccol], "query_id": qids[cr],
        }))
        last = np.where(n_clk > 0, ctime.max(axis=1, initial=0.0), clock[s_idx])
        clock[s_idx] = np.maximum(last, clock[s_idx]) + rng.exponential(cfg.query_gap_mean_s, n_q) + 1.0
        k_in_intent[s_idx, slot] += 1
        bought_last[s_idx] = has_buy
        satisfied[s_idx[has_buy], slot[has_buy]] = True
        cont_p = np.where(has_buy, cfg.p_continue_after_purchase, cfg.p_continue)
        active[s_idx] = rng.random(n_q) < cont_p
        if t == M - 1:
            active[:] = False

    queries = pd.concat(q_rows, ignore_index=True)
    serp = pd.concat(serp_rows, ignore_index=True)
    clicks = pd.concat(click_rows, ignore_index=True)
    queries.insert(3, "timestamp", EPOCH + pd.to_timedelta(queries.pop("ts").round(3), unit="s"))
    clicks.insert(1, "timestamp", EPOCH + pd.to_timedelta(clicks.pop("ts").round(3), unit="s"))
    serp["label"] = serp.clicked.astype(np.int8) + serp.purchased.astype(np.int8)
    clicks = clicks.sort_values(["session_id", "timestamp"], kind="stable").reset_index(drop=True)
    queries = queries.sort_values("query_id").reset_index(drop=True)
    source = DataSource(
        name="Simulated shopping sessions",
        kind="simulated",
        version=GENERATOR_VERSION,
        generator=GENERATOR,
        details={"config": asdict(cfg), "categories": [str(c) for c in cat_names]},
    )
    return SessionLog(items=items, queries=queries, serp=serp, clicks=clicks, source=source)


def assign_time_windows(queries: pd.DataFrame, fractions: dict[str, float]) -> pd.Series:
    """Label each query with a time window by its **session's** start time (sessions are never cut).

    ``fractions`` maps window names, in time order, to the share of sessions they take, e.g.
    ``{"train": 0.6, "valid": 0.2, "test": 0.2}`` (the sequence encoders prepend an ``"encoder"`` window). Returns a
    categorical Series aligned with ``queries``.
    """
    if not fractions or any(v < 0 for v in fractions.values()) or not np.isclose(sum(fractions.values()), 1.0):
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
