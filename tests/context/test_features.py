"""Contextual features against a brute-force per-row implementation of the paper's formulas."""

import numpy as np
import pandas as pd
import pytest

from rankbook.context.features import (
    CONTEXT_FEATURES,
    MLR_FEATURES,
    build_feature_table,
    click_history,
    pair_cosine,
)
from rankbook.context.ncd import ncd
from rankbook.data.sessions import simulate_sessions


@pytest.fixture(scope="module")
def small():
    log = simulate_sessions(progress=False, n_products=300, n_sessions=150, n_days=3, seed=7)
    rng = np.random.default_rng(0)
    iv = rng.normal(size=(len(log.items), 8)).astype(np.float32)
    iv /= np.linalg.norm(iv, axis=1, keepdims=True)
    qv = rng.normal(size=(len(log.queries), 8)).astype(np.float32)
    qv /= np.linalg.norm(qv, axis=1, keepdims=True)
    train_ids = log.queries.query_id[
        log.queries.timestamp < log.queries.timestamp.median()
    ].to_numpy()
    tab = build_feature_table(
        log, item_vectors=iv, query_vectors=qv, popularity_query_ids=train_ids, progress=False
    )
    return log, iv, qv, train_ids, tab


def brute_history(log, max_clicks=5):
    out = np.full((len(log.queries), max_clicks), -1)
    for i, q in enumerate(log.queries.itertuples()):
        c = log.clicks[
            (log.clicks.session_id == q.session_id) & (log.clicks.timestamp < q.timestamp)
        ]
        c = c.sort_values("timestamp", kind="stable").item_id.to_numpy()[::-1][:max_clicks]
        out[i, : len(c)] = c
    return out


def test_click_history_matches_brute_force(small):
    log = small[0]
    np.testing.assert_array_equal(click_history(log.queries, log.clicks, 5), brute_history(log))
    np.testing.assert_array_equal(click_history(log.queries, log.clicks, 2), brute_history(log, 2))


def test_click_history_strictly_before_and_handcrafted():
    t = pd.Timestamp("2024-01-01")
    queries = pd.DataFrame(
        {"session_id": ["a", "a", "b"], "timestamp": [t, t + pd.Timedelta(10, "s"), t]}
    )
    clicks = pd.DataFrame(
        {
            "session_id": ["a", "a", "a", "b"],
            "item_id": [5, 6, 7, 9],
            "timestamp": [
                t,
                t + pd.Timedelta(3, "s"),
                t + pd.Timedelta(10, "s"),
                t - pd.Timedelta(1, "s"),
            ],
        }
    )
    h = click_history(queries, clicks, 3)
    # click at exactly the query's time is not "earlier"
    np.testing.assert_array_equal(h, [[-1, -1, -1], [6, 5, -1], [9, -1, -1]])


def test_features_equal_brute_force(small):
    log, iv, qv, _, tab = small
    titles = log.items.title.to_numpy()
    hist = brute_history(log)
    rng = np.random.default_rng(1)
    for r in tab.iloc[rng.choice(len(tab), 150, replace=False)].itertuples():
        h = [c for c in hist[r.qpos] if c >= 0]
        got = {f: getattr(r, f) for f in CONTEXT_FEATURES}
        if not h:
            assert all(np.isnan(v) for v in got.values())
            continue
        t_i, e_i = titles[r.item_id], iv[r.item_id]
        assert got["NCD_lc"] == pytest.approx(ncd(t_i, titles[h[0]]))
        assert got["NCD_l5c"] == pytest.approx(ncd(t_i, " ".join(titles[c] for c in h[::-1])))
        assert got["CosSim_lc"] == pytest.approx(float(e_i @ iv[h[0]]), abs=1e-6)
        assert got["CosSim_l5c"] == pytest.approx(
            np.mean([float(e_i @ iv[c]) for c in h]), abs=1e-6
        )
        q = log.queries.query_text.iloc[r.qpos]
        d = [ncd(q, titles[c]) for c in h]
        ref_txt = h[int(np.argmin(d))]
        assert got["NCD_Ref_txt"] == pytest.approx(ncd(t_i, titles[ref_txt]))
        cs = [float(qv[r.qpos] @ iv[c]) for c in h]
        ref_emb = h[int(np.argmax(cs))]
        assert got["CosSim_Ref_emb"] == pytest.approx(float(e_i @ iv[ref_emb]), abs=1e-6)


def test_missing_not_zero_and_mlr_columns(small):
    log, *_, tab = small
    no_hist = tab.n_history == 0
    assert no_hist.any() and (~no_hist).any()
    assert tab.loc[no_hist, CONTEXT_FEATURES].isna().all().all()
    assert tab.loc[~no_hist, CONTEXT_FEATURES].notna().all().all()
    assert tab[MLR_FEATURES].notna().all().all()
    assert "rank" not in MLR_FEATURES
    assert len(tab) == len(log.serp)


def test_popularity_only_from_given_window(small):
    log, iv, qv, train_ids, tab = small
    s = log.serp[log.serp.query_id.isin(train_ids)]
    want = np.log1p(s[s.clicked].groupby("item_id").size())
    got = tab.drop_duplicates("item_id").set_index("item_id").popularity_clicks
    np.testing.assert_allclose(got.reindex(want.index), want)
    # an item never clicked in the window has popularity 0 even if clicked later
    later = set(log.serp[log.serp.clicked & ~log.serp.query_id.isin(train_ids)].item_id) - set(
        want.index
    )
    if later:
        assert (got.reindex(sorted(later)) == 0).all()


def test_pair_cosine_padding_and_zero_vectors():
    v = np.array([[1.0, 0.0], [0.0, 1.0], [0.0, 0.0]], dtype=np.float32)
    out = pair_cosine(v, np.array([0, 0, 0, -1]), v, np.array([0, 1, 2, 0]))
    assert out[0] == pytest.approx(1.0) and out[1] == pytest.approx(0.0)
    assert np.isnan(out[2]) and np.isnan(out[3])


def test_bad_vectors_rejected(small):
    log, iv, qv, ids, _ = small
    with pytest.raises(ValueError, match="query_vectors"):
        build_feature_table(
            log, item_vectors=iv, query_vectors=qv[:-1], popularity_query_ids=ids, progress=False
        )


def test_query_mask_keeps_the_full_tables_rows(small):
    """A table built for some queries only holds exactly those rows of the full table, with the
    same values (features depend on each query's own session only)."""
    log, iv, qv, train_ids, tab = small
    rng = np.random.default_rng(3)
    sessions = log.queries.session_id.unique()
    kept_sessions = rng.choice(sessions, size=len(sessions) // 2, replace=False)
    mask = log.queries.session_id.isin(kept_sessions).to_numpy()
    part = build_feature_table(
        log,
        item_vectors=iv,
        query_vectors=qv,
        popularity_query_ids=train_ids,
        query_mask=mask,
        progress=False,
    )
    expected = tab[mask[tab.qpos.to_numpy()]].reset_index(drop=True)
    assert 0 < len(part) < len(tab)
    pd.testing.assert_frame_equal(part, expected)


@pytest.mark.parametrize("bad", ["ints", "short"])
def test_query_mask_must_be_one_bool_per_query(small, bad):
    log, iv, qv, train_ids, _ = small
    n = len(log.queries)
    mask = np.ones(n, dtype=int) if bad == "ints" else np.ones(n - 1, dtype=bool)
    with pytest.raises(ValueError, match="query_mask"):
        build_feature_table(
            log,
            item_vectors=iv,
            query_vectors=qv,
            popularity_query_ids=train_ids,
            query_mask=mask,
            progress=False,
        )
