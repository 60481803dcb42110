"""The oracle feature against a per-row brute force, and its refusal on a log without intent."""

import numpy as np
import pytest

from rankbook.context.features import build_feature_table
from rankbook.context.oracle import oracle_intent_feature
from rankbook.data.sessions import simulate_sessions


@pytest.fixture(scope="module")
def small():
    log = simulate_sessions(progress=False, n_products=300, n_sessions=150, n_days=3, seed=3)
    rng = np.random.default_rng(1)
    iv = rng.normal(size=(len(log.items), 8)).astype(np.float32)
    iv /= np.linalg.norm(iv, axis=1, keepdims=True)
    qv = np.ones((len(log.queries), 8), dtype=np.float32) / np.sqrt(8)
    tab = build_feature_table(
        log,
        item_vectors=iv,
        query_vectors=qv,
        popularity_query_ids=log.queries.query_id.to_numpy(),
        progress=False,
    )
    return log, iv, tab


def test_oracle_is_cosine_to_the_current_target(small):
    log, iv, tab = small
    got = oracle_intent_feature(log.queries, tab, iv)
    for row in range(0, len(tab), 97):
        r = tab.iloc[row]
        if r.n_history == 0:
            assert np.isnan(got[row])
            continue
        target = log.queries.intent_target_item.iloc[int(r.qpos)]
        a, b = iv[int(r.item_id)].astype(float), iv[int(target)].astype(float)
        assert got[row] == pytest.approx(a @ b / np.linalg.norm(a) / np.linalg.norm(b), abs=1e-6)
    assert np.isnan(got[tab.n_history.to_numpy() == 0]).all()
    assert np.isfinite(got[tab.n_history.to_numpy() > 0]).all()


def test_oracle_is_one_on_the_target_item_itself(small):
    log, iv, tab = small
    got = oracle_intent_feature(log.queries, tab, iv)
    target = log.queries.intent_target_item.to_numpy()[tab.qpos.to_numpy()]
    on_target = (tab.item_id.to_numpy() == target) & (tab.n_history.to_numpy() > 0)
    assert on_target.any()
    assert np.allclose(got[on_target], 1.0)


def test_oracle_needs_latent_intent(small):
    log, iv, tab = small
    with pytest.raises(ValueError, match="intent_target_item"):
        oracle_intent_feature(log.queries.drop(columns="intent_target_item"), tab, iv)
    with pytest.raises(ValueError, match="n_history"):
        oracle_intent_feature(log.queries, tab.drop(columns="n_history"), iv)
