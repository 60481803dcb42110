"""Sequence encoders (Transformer, Perceiver-like), their training, feature and time windows."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
import torch

from rankbook.context.losses import lambdarank_loss, ndcg
from rankbook.context.sequence import SequenceFeatures, encoder_learning
from rankbook.context.sequence_models import (
    PerceiverSeqEncoder,
    TransformerSeqEncoder,
    cosine_scores,
    make_encoder,
    recency_positions,
)
from rankbook.context.sequence_training import (
    SequenceData,
    TrainResult,
    check_disjoint_windows,
    sequence_feature,
    time_windows,
    train_encoder,
    validation_ndcg,
)

torch.set_num_threads(1)
D = 16


def synthetic(
    n: int, seed: int = 0, n_items: int = 300, k: int = 8, width: int = 12
) -> SequenceData:
    """Clustered items; each query has a latent intent cluster that its clicks and query reveal."""
    rng = np.random.default_rng(seed)
    centres = rng.normal(size=(k, D))
    cluster = rng.integers(0, k, n_items)
    items = centres[cluster] + 0.8 * rng.normal(size=(n_items, D))
    query_embs = centres + 1.0 * rng.normal(size=(k, D))
    intent = rng.integers(0, k, n)
    n_clicks = rng.integers(0, 6, n)
    clicks = np.full((n, 5), -1)
    for r in range(n):
        for j in range(5 - n_clicks[r], 5):
            c = intent[r] if rng.random() < 0.7 else rng.integers(k)
            clicks[r, j] = rng.choice(np.flatnonzero(cluster == c))
    serp = np.stack([rng.choice(n_items, width, replace=False) for _ in range(n)])
    on_intent = cluster[serp] == intent[:, None]
    labels = np.where(on_intent, rng.choice([0, 1, 2], p=[0.5, 0.35, 0.15], size=serp.shape), 0)
    serp[: n // 4, -3:] = -1  # some shorter SERPs
    labels[serp < 0] = 0
    return SequenceData(
        items.astype(np.float32), query_embs.astype(np.float32), intent, clicks, serp, labels
    )


def tensors(seed: int = 0, b: int = 6):
    g = torch.Generator().manual_seed(seed)
    clicks = torch.randn(b, 5, D, generator=g)
    mask = torch.ones(b, 5, dtype=torch.bool)
    mask[1, :3] = False  # 2 clicks
    mask[2, :] = False  # no click
    mask[3, :4] = False  # 1 click
    query = torch.randn(b, D, generator=g)
    serp = torch.randn(b, 7, D, generator=g)
    return clicks, mask, query, serp


@pytest.fixture(params=["trans", "perc"])
def encoder(request):
    torch.manual_seed(0)
    model = make_encoder(request.param, D, d_model=16, n_heads=2, dropout=0.0, correction=True)
    # give the zero-initialised correction some weight so every path is exercised
    torch.nn.init.normal_(model.out_proj.weight, std=0.1)
    return model.eval()


# ----------------------------------------------------------------------------- models
def test_recency_positions_count_back_from_last_click():
    mask = torch.tensor([[0, 0, 1, 1, 1], [1, 1, 0, 0, 0], [0, 0, 0, 0, 0]], dtype=torch.bool)
    assert recency_positions(mask).tolist() == [[0, 0, 2, 1, 0], [1, 0, 0, 0, 0], [0, 0, 0, 0, 0]]


def test_output_shape_and_no_nan_on_zero_click_rows(encoder):
    clicks, mask, query, serp = tensors()
    e_seq, has_context = encoder(clicks, mask, query)
    assert e_seq.shape == (6, D)
    assert torch.isfinite(e_seq).all()
    assert has_context.tolist() == [True, True, False, True, True, True]


def test_padding_contents_and_side_do_not_matter(encoder):
    clicks, mask, query, _ = tensors()
    e1, _ = encoder(clicks, mask, query)
    garbage = clicks.clone()
    garbage[~mask] = 1e3
    e2, _ = encoder(garbage, mask, query)
    torch.testing.assert_close(e1[mask.any(1)], e2[mask.any(1)])
    # row 1 left-padded (2 clicks at the end) == the same clicks right-padded
    right = clicks.clone()
    right_mask = mask.clone()
    right[1, :2], right_mask[1] = clicks[1, 3:], torch.tensor([True, True, False, False, False])
    e3, _ = encoder(right, right_mask, query)
    torch.testing.assert_close(e1[1], e3[1], rtol=1e-5, atol=1e-6)


def test_click_order_matters_through_position_embeddings(encoder):
    clicks, mask, query, _ = tensors()
    e1, _ = encoder(clicks, mask, query)
    e2, _ = encoder(clicks.flip(1), mask.flip(1), query)
    assert not torch.allclose(e1[0], e2[0])


def test_query_is_used_only_by_the_perceiver():
    clicks, mask, query, _ = tensors()
    torch.manual_seed(0)
    trans = TransformerSeqEncoder(D, d_model=16, n_heads=2, dropout=0.0).eval()
    perc = PerceiverSeqEncoder(D, d_model=16, n_heads=2, dropout=0.0).eval()
    with torch.no_grad():
        perc.beta.fill_(0.5)  # a trained query-click relevance weight
    torch.testing.assert_close(trans(clicks, mask, query)[0], trans(clicks, mask, -query)[0])
    assert not torch.allclose(perc(clicks, mask, query)[0], perc(clicks, mask, -query)[0])
    with pytest.raises(ValueError, match="query_emb"):
        perc(clicks, mask, None)


def test_untrained_readout_is_a_convex_combination_of_clicks():
    """With the zero-initialised correction, E_seq of a one-click session is that click."""
    clicks, mask, query, _ = tensors()
    for kind in ("trans", "perc"):
        model = make_encoder(kind, D, d_model=16, n_heads=2).eval()
        e_seq, _ = model(clicks, mask, query)
        torch.testing.assert_close(e_seq[3], clicks[3, 4])


def test_cosine_scores_match_numpy():
    clicks, mask, query, serp = tensors()
    e = torch.randn(6, D)
    got = cosine_scores(e, serp).numpy()
    a, b = e.numpy(), serp.numpy()
    want = np.einsum("bd,bnd->bn", a, b) / (
        np.linalg.norm(a, axis=1)[:, None] * np.linalg.norm(b, axis=2)
    )
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6)  # float32 near zero


def test_loss_with_zero_click_rows_masked_has_finite_gradients(encoder):
    encoder.train()
    clicks, mask, query, serp = tensors()
    cos, has_context = encoder.scores(clicks, mask, query, serp)
    labels = torch.zeros(6, 7, dtype=torch.long)
    labels[:, 0], labels[:, 1] = 2, 1
    loss = lambdarank_loss(encoder.scale * cos, labels, has_context[:, None].expand(-1, 7))
    loss.backward()
    grads = [p.grad for p in encoder.parameters() if p.grad is not None]
    assert torch.isfinite(loss) and grads and all(torch.isfinite(g).all() for g in grads)


def test_bad_shapes_raise():
    model = TransformerSeqEncoder(D, d_model=16, n_heads=2)
    with pytest.raises(ValueError, match="click_embs"):
        model(torch.zeros(2, 4, D), torch.ones(2, 4, dtype=torch.bool))
    with pytest.raises(ValueError, match="n_heads"):
        TransformerSeqEncoder(D, d_model=10, n_heads=4)
    with pytest.raises(ValueError, match="kind"):
        make_encoder("lstm", D)


# ----------------------------------------------------------------------------- data + training
def test_sequence_data_validates_indices():
    data = synthetic(20)
    with pytest.raises(ValueError, match="serp_items row 3"):
        bad = data.serp_items.copy()
        bad[3, 0] = 10_000
        SequenceData(
            data.item_embs, data.query_embs, data.query_index, data.click_items, bad, data.labels
        )
    with pytest.raises(ValueError, match="click_items must have shape"):
        SequenceData(
            data.item_embs,
            data.query_embs,
            data.query_index,
            data.click_items[:, :4],
            data.serp_items,
            data.labels,
        )


@pytest.fixture(scope="module")
def split():
    data = synthetic(900, seed=1)
    return data.subset(np.arange(700)), data.subset(np.arange(700, 900))


@pytest.mark.parametrize("kind", ["trans", "perc"])
def test_training_is_deterministic_and_learns(kind, split):
    train, valid = split
    kw = dict(d_model=16, n_heads=2, epochs=3, batch_size=64, seed=3, progress=False, device="cpu")
    r1 = train_encoder(kind, train, valid, **kw)
    r2 = train_encoder(kind, train, valid, **kw)
    assert r1.history["valid_ndcg"].tolist() == r2.history["valid_ndcg"].tolist()
    f1, f2 = sequence_feature(r1.model, valid), sequence_feature(r2.model, valid)
    np.testing.assert_array_equal(f1, f2)
    assert r1.history["valid_ndcg"].max() == pytest.approx(validation_ndcg(r1.model, valid))
    # the learned cosine ranks on-intent items far better than random scores
    rng = np.random.default_rng(0)
    rows = np.flatnonzero(valid.has_clicks & (valid.labels > 0).any(1))
    mask = torch.as_tensor(valid.serp_items[rows] >= 0)
    rand = ndcg(
        torch.as_tensor(rng.random(mask.shape)), torch.as_tensor(valid.labels[rows]), mask, k=10
    )
    assert validation_ndcg(r1.model, valid) > float(rand.mean()) + 0.1
    assert r1.history["epoch"].tolist() == [0, 1, 2, 3]
    assert np.isnan(r1.history["train_loss"].iloc[0])


def test_perceiver_learns_beyond_the_mean_of_clicks():
    """Clicks mix the intent with noise; the query reveals the intent, so the Perceiver must beat
    the
    untrained encoder (epoch 0 = the plain mean of the clicks) on validation."""
    data = synthetic(1500, seed=4)
    train, valid = data.subset(np.arange(1200)), data.subset(np.arange(1200, 1500))
    res = train_encoder(
        "perc", train, valid, d_model=16, n_heads=2, epochs=4, lr=3e-3, progress=False, device="cpu"
    )
    h = res.history.set_index("epoch")["valid_ndcg"]
    assert res.best_epoch > 0
    assert h.max() > h.loc[0] + 0.01


def test_feature_is_missing_exactly_without_context(split):
    train, valid = split
    res = train_encoder(
        "perc", train, valid, d_model=16, n_heads=2, epochs=1, progress=False, device="cpu"
    )
    f = sequence_feature(res.model, valid)
    no_click = ~valid.has_clicks
    assert np.isnan(f[no_click]).all()
    real = (valid.serp_items >= 0) & valid.has_clicks[:, None]
    assert np.isfinite(f[real]).all() and np.isnan(f[~real]).all()
    assert (np.abs(f[real]) <= 1 + 1e-6).all()


def test_different_seeds_differ(split):
    train, valid = split
    kw = dict(d_model=16, n_heads=2, epochs=1, progress=False, device="cpu")
    a = train_encoder("trans", train, valid, seed=0, **kw)
    b = train_encoder("trans", train, valid, seed=1, **kw)
    # epoch 0 (the untrained readout = mean of clicks) is seed-free; trained weights are not
    assert a.history["valid_ndcg"].iloc[0] == b.history["valid_ndcg"].iloc[0]
    assert a.history["train_loss"].iloc[1] != b.history["train_loss"].iloc[1]


@pytest.mark.skipif(not torch.cuda.is_available(), reason="needs a CUDA device")
def test_cuda_matches_cpu_closely(split):
    train, valid = split
    kw = dict(d_model=16, n_heads=2, epochs=1, dropout=0.0, progress=False)
    cpu = train_encoder("perc", train, valid, device="cpu", **kw)
    gpu = train_encoder("perc", train, valid, device="cuda", **kw)
    assert gpu.device.startswith("cuda")
    np.testing.assert_allclose(
        sequence_feature(cpu.model, valid), sequence_feature(gpu.model, valid), atol=1e-3
    )


# ----------------------------------------------------------------------------- no leakage
def test_time_windows_are_disjoint_and_ordered():
    rng = np.random.default_rng(0)
    ts = rng.integers(0, 500, size=2000)  # many shared timestamps
    w = time_windows(ts, {"encoder": 0.3, "train": 0.4, "valid": 0.1, "test": 0.2})
    assert sum(m.sum() for m in w.values()) == len(ts)
    assert not (w["encoder"] & w["train"]).any()
    assert ts[w["encoder"]].max() < ts[w["train"]].min()
    assert ts[w["train"]].max() < ts[w["valid"]].min() <= ts[w["valid"]].max() < ts[w["test"]].min()
    assert abs(w["encoder"].mean() - 0.3) < 0.02


def test_check_disjoint_windows_rejects_overlap():
    ts = np.arange(10)
    a = ts < 6
    with pytest.raises(ValueError, match="overlap"):
        check_disjoint_windows(ts, {"encoder": a, "train": ts >= 5})
    with pytest.raises(ValueError, match="not before"):
        check_disjoint_windows(ts, {"encoder": ts % 2 == 0, "train": ts % 2 == 1})
    with pytest.raises(ValueError, match="sum to 1"):
        time_windows(ts, {"encoder": 0.5, "train": 0.6})


# ----------------------------------------------------------------------------- session-log adapter
@pytest.fixture(scope="module")
def small_log():
    from rankbook.context.features import click_history, serp_frame
    from rankbook.data.sessions import assign_time_windows, simulate_sessions

    log = simulate_sessions(n_products=300, n_sessions=400, n_users=200, progress=False, seed=5)
    windows = assign_time_windows(
        log.queries, {"encoder": 0.3, "train": 0.4, "valid": 0.1, "test": 0.2}
    )
    return log, serp_frame(log), click_history(log.queries, log.clicks), windows


def test_encoder_window_is_disjoint_from_the_ranker_windows(small_log):
    from rankbook.context.sequence import encoder_rows

    log, _, _, windows = small_log
    enc = encoder_rows(log.queries, windows)
    ranker = np.isin(windows.astype(str).to_numpy(), ["train", "valid", "test"])
    assert enc.any() and ranker.any() and not (enc & ranker).any()
    ts = pd.to_datetime(log.queries.timestamp)
    assert ts[enc].max() < ts[ranker].min()
    assert not set(log.queries.session_id[enc]) & set(log.queries.session_id[ranker])


def test_encoder_rows_drop_queries_running_into_the_ranker_window():
    from rankbook.context.sequence import check_no_leakage, encoder_rows

    t = pd.Timestamp("2024-03-04")
    queries = pd.DataFrame(
        {
            "session_id": [0, 0, 0, 1, 1],
            "timestamp": [
                t,
                t + pd.Timedelta(hours=5),
                t + pd.Timedelta(hours=9),
                t + pd.Timedelta(hours=6),
                t + pd.Timedelta(hours=7),
            ],
        }
    )
    window = np.array(["encoder", "encoder", "encoder", "train", "train"], dtype=object)
    enc = encoder_rows(queries, window)
    assert enc.tolist() == [
        True,
        True,
        False,
        False,
        False,
    ]  # the 9 h query is after the ranker starts
    with pytest.raises(ValueError, match="not before"):
        check_no_leakage(queries, window == "encoder", window == "train")
    with pytest.raises(ValueError, match="session 0"):
        check_no_leakage(queries, np.array([1, 0, 0, 0, 0], bool), np.array([0, 1, 0, 0, 0], bool))


def test_sequence_data_from_log_aligns_with_the_frame(small_log):
    from rankbook.context.sequence import sequence_data_from_log, serp_matrix_positions

    log, frame, history, _ = small_log
    rng = np.random.default_rng(0)
    items = rng.normal(size=(len(log.items), 8)).astype(np.float32)
    queries = rng.normal(size=(len(log.queries), 8)).astype(np.float32)
    data = sequence_data_from_log(log, frame, history, items, queries)
    qpos, slot, width = serp_matrix_positions(frame, len(log.queries))
    assert width == data.serp_items.shape[1]
    np.testing.assert_array_equal(data.serp_items[qpos, slot], frame.item_id.to_numpy())
    np.testing.assert_array_equal(data.labels[qpos, slot], frame.label.to_numpy())
    assert (data.serp_items >= 0).sum() == len(frame)
    # chronological clicks: the most recent click (history column 0) sits in the last slot
    has = history[:, 0] >= 0
    np.testing.assert_array_equal(data.click_items[has, -1], history[has, 0])


def test_compare_with_paper_and_sale_matrix():
    from rankbook.ranking.paper import PAPER_TABLE1_LIFT_PCT
    from rankbook.ranking.summaries import compare_with_paper, sale_score_matrix

    table = pd.DataFrame(
        {
            "variant": ["MLR + CosSim_lc", "P1", "P2 + CosSim_seq:perc"],
            "baseline": ["MLR", "MLR", "P2"],
            "lift_pct": [1.0, 2.0, -0.5],
            "ci_low": [0.5, 1.0, -1.0],
            "ci_high": [2.0, 3.0, 0.0],
            "p_value": [0.01, 0.02, 0.3],
        }
    )
    out = compare_with_paper(table)
    assert len(PAPER_TABLE1_LIFT_PCT) == 8
    # P1 is not in the paper's Table 1: nothing to compare, None rather than False
    assert out["paper_in_ci"].tolist() == [True, None, False]
    assert out["same_sign"].tolist() == [True, None, False]
    assert np.isnan(out["paper_lift_pct"].iloc[1])
    frame = pd.DataFrame(
        {
            "query_id": [1, 1, 1, 2, 2, 2, 3, 3],
            "item_id": [5, 6, 7, 5, 8, 9, 1, 2],
            "label": [0, 2, 1, 0, 0, 1, 2, 0],
        }
    )
    m = sale_score_matrix(frame, np.arange(8.0))
    assert m["scores"].shape == (1, 3) and m["n_dropped"] == 1
    assert m["labels"].tolist() == [[0, 1, 0]] and m["query_ids"].tolist() == [1]


def _fake_run(kind_curves: dict[str, tuple[list[float], int, float]]) -> SequenceFeatures:
    results = {
        k: TrainResult(
            model=None,
            history=pd.DataFrame({"epoch": range(len(c)), "valid_ndcg": c}),
            best_epoch=e,
            device="cpu",
            gain_se=se,
        )
        for k, (c, e, se) in kind_curves.items()
    }
    return SequenceFeatures(columns=pd.DataFrame(), results=results)


def test_encoder_learning_needs_gain_beyond_spread_and_noise():
    runs = [
        _fake_run({"perc": ([0.40, 0.45], 1, 0.005), "trans": ([0.40, 0.401], 1, 0.005)}),
        _fake_run({"perc": ([0.40, 0.44], 1, 0.005), "trans": ([0.40, 0.402], 1, 0.005)}),
    ]
    out = encoder_learning(runs).set_index("encoder")
    assert out.loc["perc", "learned"]  # gain 0.04 > spread 0.01 and > 2 SE 0.01
    assert out.loc["perc", "gain_min"] == pytest.approx(0.04)
    assert out.loc["perc", "seed_spread"] == pytest.approx(0.01)
    assert not out.loc["trans", "learned"]  # gain 0.001 is inside two standard errors
    wide = [
        _fake_run({"perc": ([0.40, 0.45], 1, 0.001)}),
        _fake_run({"perc": ([0.40, 0.42], 1, 0.001)}),
    ]
    assert not encoder_learning(wide).learned.iloc[0]  # gain 0.02 < seed spread 0.03
    assert not encoder_learning(runs[:1]).learned.any()  # one seed: spread unknown
    with pytest.raises(ValueError):
        encoder_learning([])


def test_per_query_validation_ndcg_and_gain_se(split):
    train, valid = split
    res = train_encoder(
        "perc", train, valid, d_model=16, n_heads=2, epochs=2, lr=3e-3, progress=False, device="cpu"
    )
    per = validation_ndcg(res.model, valid, per_query=True)
    assert per.mean() == pytest.approx(validation_ndcg(res.model, valid))
    assert np.isfinite(res.gain_se) and res.gain_se >= 0


def test_perceiver_output_carries_no_residual_of_the_query():
    """E_seq:cross = CrossAttention(Q, clicks): with one click the attention has one key, so the
    query cannot change E_seq, even through the learned correction (beta's query-click logits
    only weigh clicks against each other)."""
    clicks, mask, query, _ = tensors()
    torch.manual_seed(0)
    perc = PerceiverSeqEncoder(D, d_model=16, n_heads=2, dropout=0.0, correction=True).eval()
    torch.nn.init.normal_(perc.out_proj.weight, std=0.5)
    with torch.no_grad():
        perc.beta.fill_(0.5)
    one = mask[3]  # row 3 has a single click
    assert int(one.sum()) == 1
    e_pos, _ = perc(clicks, mask, query)
    e_neg, _ = perc(clicks, mask, -query)
    torch.testing.assert_close(e_pos[3], e_neg[3])
    assert not torch.allclose(e_pos[3], clicks[3, 4])  # the correction did move it
    assert not torch.allclose(e_pos[0], e_neg[0])  # with five clicks the query steers


def test_fit_sequence_features_on_the_rankers_rows_only(small_log):
    """The encoders learn from the log's own SERPs, so a feature table holding the ranker's windows
    only gets the same feature values as the full table's rows."""
    from rankbook.context.sequence import fit_sequence_features

    log, frame, history, windows = small_log
    rng = np.random.default_rng(1)
    items = rng.normal(size=(len(log.items), 8)).astype(np.float32)
    queries = rng.normal(size=(len(log.queries), 8)).astype(np.float32)
    ranker = np.isin(windows.astype(str).to_numpy(), ["train", "valid", "test"])
    part = frame[ranker[frame.qpos.to_numpy()]].reset_index(drop=True)
    kw = dict(
        item_vectors=items,
        query_vectors=queries,
        window=windows,
        kinds=("trans",),
        progress=False,
        device="cpu",
        train_kwargs=dict(d_model=8, n_heads=2, epochs=1),
    )
    full = fit_sequence_features(log, frame, history, **kw)
    some = fit_sequence_features(log, part, history, **kw)
    expected = full.columns[ranker[frame.qpos.to_numpy()]].reset_index(drop=True)
    pd.testing.assert_frame_equal(some.columns, expected)
    assert some.n_train_queries == full.n_train_queries > 0
    assert some.columns.notna().to_numpy().any()


def test_shuffled_clicks_keep_the_rows_and_cost_a_trained_encoder_its_gain(split):
    train, valid = split
    shuffled = valid.with_shuffled_clicks(seed=0)
    np.testing.assert_array_equal(shuffled.has_clicks, valid.has_clicks)
    assert sorted(map(tuple, shuffled.click_items)) == sorted(map(tuple, valid.click_items))
    assert (shuffled.click_items != valid.click_items).any()
    np.testing.assert_array_equal(shuffled.serp_items, valid.serp_items)
    res = train_encoder(
        "trans", train, valid, d_model=16, n_heads=2, epochs=3, progress=False, device="cpu"
    )
    # the synthetic intent is revealed by the clicks only (for the Transformer): another query's
    # clicks must rank this query's SERP worse
    assert validation_ndcg(res.model, shuffled) < validation_ndcg(res.model, valid) - 0.05


def test_patience_stops_training_before_the_cap_and_keeps_the_best_epoch(split):
    """A learning rate so large that validation cannot keep improving: with patience 1 training
    stops one epoch after the last improvement, far below the cap, and the kept epoch is the best
    one of those run; without patience every epoch of the cap runs."""
    train, valid = split
    kw = dict(d_model=16, n_heads=2, lr=0.5, batch_size=64, progress=False, device="cpu")
    stopped = train_encoder("trans", train, valid, epochs=30, patience=1, **kw)
    h = stopped.history.set_index("epoch").valid_ndcg
    assert stopped.stopped_early and stopped.epochs_run < 30
    assert stopped.best_epoch < stopped.epochs_run == h.index.max()
    assert stopped.epochs_run - stopped.best_epoch == 1
    assert h.loc[stopped.best_epoch] == h.max()
    full = train_encoder("trans", train, valid, epochs=3, **kw)
    assert full.epochs_run == 3 and not full.stopped_early
    with pytest.raises(ValueError, match="patience"):
        train_encoder("trans", train, valid, epochs=3, patience=0, **kw)
