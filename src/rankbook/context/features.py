"""The per-(query, SERP item) feature table: MLR baseline, heuristic and intent-aware contextual
features.

Notation (Sheng et al., 2025, "Progressive refinement of e-commerce search ranking based on
short-term activities of the buyer", section 2): ``item_i^n`` is the i-th item on the n-th SERP of a
session, ``item^{n-j}`` the j-th most recent click *before* that query (clicks strictly earlier in
the same session, from any earlier SERP), ``T`` a title, ``E`` an embedding, ``Q`` the query text,
``C`` a compressor (:mod:`rankbook.context.ncd`).

Heuristic autoregressive features (section 2.1)
    ``NCD_lc``      = NCD(T_item_i, T_item^{n-1})
    ``NCD_l5c``     = NCD(T_item_i, T_concat), T_concat = the last <= 5 click titles, oldest first,
    space-joined ``CosSim_lc``   = cos(E_item_i, E_item^{n-1})
    ``CosSim_l5c``  = (1/m) sum_{j=1..m} cos(E_item_i, E_item^{n-j}), m = min(5, #earlier clicks)
                      (the paper writes 1/5 sum_{j=1..5} and does not say what a shorter history
                      gives; averaging over the clicks that exist is the book's choice)
Intent-aware features (section 2.2)
    ``NCD_Ref_txt``    = NCD(T_item_i, T_Ref_txt),  Ref_txt = argmin_j NCD(Q, T_item^{n-j})
    ``CosSim_Ref_emb`` = cos(E_item_i, E_Ref_emb),  Ref_emb = argmax_j cos(E_Q, E_item^{n-j})
    (j over the last <= 5 clicks; ties go to the most recent click)

A query with no earlier click in its session gets **NaN** for all six (missing, not zero): LightGBM
routes missing values down a learned default branch (Ke et al., 2017, NeurIPS), so "no context" is
its own state.

MLR baseline features (no position feature: the SERP position is the production engine's output, and
a ranker trained on it would learn to copy the logged order)
    ``bm25``               BM25(Q, T_item)  (:class:`rankbook.data.lexical.BM25Index`, k1=1.2,
    b=0.75) ``query_coverage``     share of the query's tokens found in the title
    ``log_price``          ln(price)
    ``price_rel_serp``     ln(price) - median ln(price) over the SERP
    ``popularity_clicks``  ln(1 + clicks on the item in the popularity window) (training window
    only) ``popularity_sales``   ln(1 + sales of the item in the popularity window)
    ``category_match``     1 if the item's category equals the query's category, else 0 (NaN if
    unknown)

Interfaces for other modules (the sequence encoders reuse these)
---------------------------------------------------
``click_history(queries, clicks, max_clicks=5) -> ndarray (n_queries, max_clicks)``  item ids of the
    earlier clicks of each query's session, column 0 = most recent, ``-1`` = padding.
``serp_frame(log) -> DataFrame``  one row per (query, SERP item): ``query_id, session_id, item_id,
    rank, label, qpos`` (``qpos`` = row position in ``log.queries``), sorted by query then rank.
``pair_cosine(vectors_a, index_a, vectors_b, index_b) -> ndarray``  cosine per aligned pair, NaN for
    padding (``-1``) or zero vectors; deduplicated and chunked.
``build_feature_table(log, *, item_vectors, query_vectors, popularity_query_ids, compressor="zlib",
    max_history=5, query_mask=None) -> DataFrame``  the frame above plus every feature in
    ``MLR_FEATURES``, ``HEURISTIC_FEATURES`` and ``INTENT_FEATURES``; with ``query_mask`` only the
    rows of the masked queries (the same values as the full table's rows). Add further columns
    (e.g. ``CosSim_seq:trans``) with the same row order and pass them to
    :func:`rankbook.ranking.ablation.run_ablation`.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from rankaudit._optional import tqdm
from rankbook.context.ncd import NCD
from rankbook.data.lexical import BM25Index

__all__ = [
    "CONTEXT_FEATURES",
    "HEURISTIC_FEATURES",
    "INTENT_FEATURES",
    "MLR_FEATURES",
    "build_feature_table",
    "click_history",
    "heuristic_features",
    "intent_features",
    "serp_popularity",
    "mlr_features",
    "pair_cosine",
    "reference_clicks",
    "serp_frame",
]

MLR_FEATURES = [
    "bm25",
    "query_coverage",
    "log_price",
    "price_rel_serp",
    "popularity_clicks",
    "popularity_sales",
    "category_match",
]
HEURISTIC_FEATURES = ["NCD_lc", "CosSim_lc", "NCD_l5c", "CosSim_l5c"]
INTENT_FEATURES = ["NCD_Ref_txt", "CosSim_Ref_emb"]
CONTEXT_FEATURES = HEURISTIC_FEATURES + INTENT_FEATURES


def _to_ns(ts: pd.Series) -> np.ndarray:
    return pd.to_datetime(ts).to_numpy(dtype="datetime64[ns]").astype(np.int64)


def click_history(queries: pd.DataFrame, clicks: pd.DataFrame, max_clicks: int = 5) -> np.ndarray:
    """Earlier clicks of each query's session, most recent first (``-1`` pads); see module
    docstring.

    A click counts as *earlier* when its timestamp is strictly before the query's.
    """
    if max_clicks < 1:
        raise ValueError(f"max_clicks must be >= 1, got {max_clicks}")
    for col in ("session_id", "timestamp"):
        if col not in queries or col not in clicks:
            raise ValueError(f"click_history: queries and clicks need a {col!r} column")
    nq, nc = len(queries), len(clicks)
    s_codes, _ = pd.factorize(pd.concat([queries.session_id, clicks.session_id], ignore_index=True))
    ts = np.concatenate([_to_ns(queries.timestamp), _to_ns(clicks.timestamp)])
    kind = np.concatenate(
        [np.zeros(nq, np.int8), np.ones(nc, np.int8)]
    )  # query before click at equal time
    order = np.lexsort((kind, ts, s_codes))
    is_click = kind[order] == 1
    sess = s_codes[order]
    # running click count within session, and index into the time-sorted click list
    click_rank = np.cumsum(is_click) - 1  # global sorted click index of the latest click so far
    new_sess = np.r_[True, sess[1:] != sess[:-1]]
    sess_start_clicks = np.maximum.accumulate(np.where(new_sess, np.cumsum(is_click) - is_click, 0))
    n_before = np.cumsum(is_click) - sess_start_clicks - is_click  # clicks earlier in this session
    sorted_click_items = clicks.item_id.to_numpy()[order[is_click] - nq]
    hist = np.full((nq, max_clicks), -1, dtype=np.int64)
    qmask = ~is_click
    q_orig = order[qmask]
    last = click_rank[qmask]
    nb = n_before[qmask]
    for j in range(max_clicks):
        ok = nb > j
        hist[q_orig[ok], j] = sorted_click_items[last[ok] - j]
    return hist


def serp_frame(log) -> pd.DataFrame:
    """One row per shown item with ``query_id, session_id, item_id, rank, label, qpos`` (module
    docstring)."""
    s = log.serp
    qpos = pd.Index(log.queries.query_id).get_indexer(s.query_id)
    if (qpos < 0).any():
        bad = s.query_id.to_numpy()[np.flatnonzero(qpos < 0)[0]]
        raise ValueError(f"serp row with query_id={bad!r} has no entry in queries")
    frame = pd.DataFrame(
        {
            "query_id": s.query_id.to_numpy(),
            "session_id": log.queries.session_id.to_numpy()[qpos],
            "item_id": s.item_id.to_numpy(),
            "rank": s["rank"].to_numpy(),
            "label": s.label.to_numpy().astype(np.int8),
            "qpos": qpos,
        }
    )
    return frame.sort_values(["qpos", "rank"], kind="stable").reset_index(drop=True)


def pair_cosine(
    vectors_a: np.ndarray,
    index_a: np.ndarray,
    vectors_b: np.ndarray,
    index_b: np.ndarray,
    *,
    chunk: int = 200_000,
) -> np.ndarray:
    """``cos(vectors_a[index_a[i]], vectors_b[index_b[i]])``; NaN where an index is ``-1`` or a
    vector is zero.

    Rows of both matrices are assumed L2-normalised (or zero), so the cosine is a dot product.
    """
    index_a = np.asarray(index_a, dtype=np.int64)
    index_b = np.asarray(index_b, dtype=np.int64)
    out = np.full(len(index_a), np.nan)
    ok = (index_a >= 0) & (index_b >= 0)
    if not ok.any():
        return out
    key = index_a[ok] * len(vectors_b) + index_b[ok]
    ukey, inv = np.unique(key, return_inverse=True)
    ua, ub = np.divmod(ukey, len(vectors_b))
    val = np.empty(len(ukey))
    for lo in range(0, len(ukey), chunk):
        a = vectors_a[ua[lo : lo + chunk]]
        b = vectors_b[ub[lo : lo + chunk]]
        d = np.einsum("ij,ij->i", a, b, dtype=np.float64)
        zero = (np.abs(a).sum(axis=1) == 0) | (np.abs(b).sum(axis=1) == 0)
        d[zero] = np.nan
        val[lo : lo + chunk] = np.clip(d, -1.0, 1.0)
    out[ok] = val[inv]
    return out


def serp_popularity(
    serp: pd.DataFrame, query_ids: np.ndarray, n_items: int
) -> tuple[np.ndarray, np.ndarray]:
    """Click and sale counts per item over SERP rows of ``query_ids`` (the popularity window)."""
    s = serp[serp.query_id.isin(query_ids)]
    clicks = np.bincount(s.item_id[s.clicked.astype(bool)], minlength=n_items).astype(np.float64)
    sales = np.bincount(s.item_id[s.purchased.astype(bool)], minlength=n_items).astype(np.float64)
    return clicks, sales


def mlr_features(log, frame: pd.DataFrame, popularity_query_ids: np.ndarray) -> pd.DataFrame:
    """The non-contextual baseline columns (module docstring) for the rows of ``frame``."""
    items = log.items
    q = log.queries
    index = BM25Index(items.title.to_numpy())
    qtext = q.query_text.fillna("").astype(str)
    uq_codes, uq = pd.factorize(qtext)
    qi = uq_codes[frame.qpos.to_numpy()]
    it = frame.item_id.to_numpy()
    out = pd.DataFrame(index=frame.index)
    out["bm25"] = index.pair_scores(list(uq), qi, it)
    out["query_coverage"] = index.pair_coverage(list(uq), qi, it)
    logp = np.log(items.price.to_numpy(dtype=np.float64))[it]
    out["log_price"] = logp
    out["price_rel_serp"] = (
        logp - pd.Series(logp).groupby(frame.qpos.to_numpy()).transform("median").to_numpy()
    )
    clicks, sales = serp_popularity(log.serp, popularity_query_ids, len(items))
    out["popularity_clicks"] = np.log1p(clicks[it])
    out["popularity_sales"] = np.log1p(sales[it])
    qcat = q.query_category.to_numpy(dtype=object)[frame.qpos.to_numpy()]
    icat = items.category.to_numpy(dtype=object)[it]
    known = pd.notna(qcat)
    out["category_match"] = np.where(known, (qcat == icat).astype(np.float64), np.nan)
    return out


def heuristic_features(
    frame: pd.DataFrame, history: np.ndarray, titles: np.ndarray, item_vectors: np.ndarray, ncd: NCD
) -> pd.DataFrame:
    """``NCD_lc, CosSim_lc, NCD_l5c, CosSim_l5c`` (section 2.1) for each row of ``frame``."""
    h = history[frame.qpos.to_numpy()]
    it = frame.item_id.to_numpy()
    titles = np.asarray(titles, dtype=object)
    item_t = titles[it]
    out = pd.DataFrame(index=frame.index)
    lc = h[:, 0]
    lc_t = np.where(lc >= 0, titles[np.maximum(lc, 0)], None)
    out["NCD_lc"] = ncd.pairs(item_t, lc_t)
    out["CosSim_lc"] = pair_cosine(item_vectors, it, item_vectors, lc)
    # last-5 concatenation per query (oldest first), built once per query then broadcast to rows
    hq = history
    concat = np.full(len(hq), None, dtype=object)
    has = hq[:, 0] >= 0
    parts = [
        np.where(hq[:, j] >= 0, titles[np.maximum(hq[:, j], 0)], "")
        for j in range(hq.shape[1] - 1, -1, -1)
    ]
    joined = [" ".join(p for p in row if p) for row in zip(*parts, strict=True)]
    concat[has] = np.asarray(joined, dtype=object)[has]
    out["NCD_l5c"] = ncd.pairs(item_t, concat[frame.qpos.to_numpy()])
    cos = np.column_stack(
        [pair_cosine(item_vectors, it, item_vectors, h[:, j]) for j in range(h.shape[1])]
    )
    with np.errstate(invalid="ignore"):
        cnt = np.sum(~np.isnan(cos), axis=1)
        out["CosSim_l5c"] = np.where(cnt > 0, np.nansum(cos, axis=1) / np.maximum(cnt, 1), np.nan)
    return out


def reference_clicks(
    history: np.ndarray,
    query_texts: np.ndarray,
    titles: np.ndarray,
    query_vectors: np.ndarray,
    item_vectors: np.ndarray,
    ncd: NCD,
) -> tuple[np.ndarray, np.ndarray]:
    """Per query, ``Ref_txt`` (argmin NCD(Q, click title)) and ``Ref_emb`` (argmax cos(E_Q,
    E_click)) item ids.

    ``-1`` when the query has no earlier click. Ties go to the most recent click.
    """
    nq, m = history.shape
    valid = history >= 0
    titles = np.asarray(titles, dtype=object)
    qt = np.asarray(query_texts, dtype=object)
    ncd_q = np.full((nq, m), np.inf)
    cos_q = np.full((nq, m), -np.inf)
    qidx = np.arange(nq)
    for j in range(m):
        ok = valid[:, j]
        if not ok.any():
            continue
        ncd_q[ok, j] = ncd.pairs(qt[ok], titles[history[ok, j]])
        c = pair_cosine(query_vectors, qidx[ok], item_vectors, history[ok, j])
        cos_q[ok, j] = np.where(np.isnan(c), 0.0, c)
    j_txt = np.argmin(ncd_q, axis=1)
    j_emb = np.argmax(cos_q, axis=1)
    ref_txt = np.where(valid[:, 0], history[qidx, j_txt], -1)
    ref_emb = np.where(valid[:, 0], history[qidx, j_emb], -1)
    return ref_txt, ref_emb


def intent_features(
    frame: pd.DataFrame,
    ref_txt: np.ndarray,
    ref_emb: np.ndarray,
    titles: np.ndarray,
    item_vectors: np.ndarray,
    ncd: NCD,
) -> pd.DataFrame:
    """``NCD_Ref_txt, CosSim_Ref_emb`` (section 2.2) given the per-query reference clicks."""
    it = frame.item_id.to_numpy()
    qp = frame.qpos.to_numpy()
    titles = np.asarray(titles, dtype=object)
    rt = ref_txt[qp]
    out = pd.DataFrame(index=frame.index)
    out["NCD_Ref_txt"] = ncd.pairs(titles[it], np.where(rt >= 0, titles[np.maximum(rt, 0)], None))
    out["CosSim_Ref_emb"] = pair_cosine(item_vectors, it, item_vectors, ref_emb[qp])
    return out


def build_feature_table(
    log,
    *,
    item_vectors: np.ndarray,
    query_vectors: np.ndarray,
    popularity_query_ids: np.ndarray,
    compressor: str = "zlib",
    max_history: int = 5,
    query_mask: np.ndarray | None = None,
    progress: bool = True,
) -> pd.DataFrame:
    """SERP frame + MLR + heuristic + intent-aware features (module docstring), one row per shown
    item.

    ``query_mask`` (bool, aligned with ``log.queries``) keeps the rows of those queries only, e.g.
    the ranker's windows when an earlier window serves the sequence encoders alone: every feature
    of a query depends on its own session's earlier clicks, so the kept rows hold the same values
    as in the full table, and the features of the other queries are never computed.

    ``item_vectors`` rows align with ``log.items.item_id``; ``query_vectors`` rows with
    ``log.queries`` (see :func:`rankbook.context.embed.embed_items_and_queries`).
    ``popularity_query_ids`` are the queries whose clicks and sales define popularity: pass the
    **training window** only.
    """
    if len(query_vectors) != len(log.queries):
        raise ValueError(
            f"query_vectors has {len(query_vectors)} rows, log.queries has {len(log.queries)}"
        )
    if len(item_vectors) != len(log.items):
        raise ValueError(
            f"item_vectors has {len(item_vectors)} rows, log.items has {len(log.items)}"
        )
    steps = tqdm(total=4, desc="features", disable=not progress, leave=False)
    frame = serp_frame(log)
    history = click_history(log.queries, log.clicks, max_history)
    if query_mask is not None:
        query_mask = np.asarray(query_mask)
        if query_mask.dtype != bool or query_mask.shape != (len(log.queries),):
            raise ValueError(
                f"query_mask must be a boolean array of {len(log.queries)} entries (one per "
                f"query); got dtype {query_mask.dtype}, shape {query_mask.shape}"
            )
        frame = frame[query_mask[frame.qpos.to_numpy()]].reset_index(drop=True)
        history = np.where(query_mask[:, None], history, -1)  # no NCD work for dropped queries
    titles = log.items.title.to_numpy(dtype=object)
    ncd = NCD(compressor)
    parts = [frame, mlr_features(log, frame, popularity_query_ids)]
    steps.update()
    parts.append(heuristic_features(frame, history, titles, item_vectors, ncd))
    steps.update()
    ref_txt, ref_emb = reference_clicks(
        history,
        log.queries.query_text.fillna("").to_numpy(dtype=object),
        titles,
        query_vectors,
        item_vectors,
        ncd,
    )
    steps.update()
    parts.append(intent_features(frame, ref_txt, ref_emb, titles, item_vectors, ncd))
    steps.update()
    steps.close()
    table = pd.concat(parts, axis=1)
    table["n_history"] = (history >= 0).sum(axis=1)[frame.qpos.to_numpy()]
    return table
