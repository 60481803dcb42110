"""LambdaMART + ablation runner on a small simulated log (fast settings)."""

import numpy as np
import pandas as pd
import pytest

from rankaudit.runs.decision import NOT_RESOLVED, RESOLVED_ABOVE, effect_verdict
from rankaudit.runs.significance import holm_adjust
from rankbook.context.embed import PPMISVDEmbedder
from rankbook.context.features import HEURISTIC_FEATURES, INTENT_FEATURES, MLR_FEATURES
from rankbook.context.oracle import ORACLE_FEATURE
from rankbook.data.sessions import SessionConfig, simulate_sessions
from rankbook.ranking.ablation import (
    AblationRow,
    extend_feature_sets,
    progressive_feature_sets,
    run_ablation,
)
from rankbook.ranking.experiment import (
    ORACLE_ROW,
    context_sweep,
    prepare_experiment,
    sweep_verdicts,
    table1_design,
)
from rankbook.ranking.lambdamart import (
    LambdaMARTConfig,
    feature_splits,
    group_sizes,
    shuffle_within_query,
    train_lambdamart,
)

FAST = LambdaMARTConfig(num_boost_round=15, early_stopping_rounds=5)


@pytest.fixture(scope="module")
def exp():
    log = simulate_sessions(progress=False, n_products=500, n_sessions=700, n_days=6, seed=11)
    emb = PPMISVDEmbedder(dim=16).fit(log.items.title.tolist(), log.clicks)
    return prepare_experiment(log, embedder=emb, progress=False)


def test_progressive_sets_follow_the_paper():
    sets, rows = progressive_feature_sets(["a"], ["h1", "h2"], ["i1"])
    assert sets["P1"] == ["a", "h1", "h2"] and sets["P2"] == ["a", "h1", "h2", "i1"]
    assert [(r.variant, r.baseline) for r in rows] == [
        ("MLR + h1", "MLR"),
        ("MLR + h2", "MLR"),
        ("P1", "MLR"),
        ("P1 + i1", "P1"),
        ("P2", "P1"),
    ]
    sets2, rows2 = extend_feature_sets(sets, rows, "P2", ["CosSim_seq:trans"])
    assert sets2["P2 + CosSim_seq:trans"][-1] == "CosSim_seq:trans" and rows2[-1] == AblationRow(
        "P2 + CosSim_seq:trans", "P2"
    )
    assert "P2 + CosSim_seq:trans" not in sets


def test_group_sizes_and_shuffle():
    np.testing.assert_array_equal(group_sizes([3, 3, 1, 1, 1, 2]), [2, 3, 1])
    with pytest.raises(ValueError, match="contiguous"):
        group_sizes([1, 2, 1])
    f = pd.DataFrame({"query_id": [5, 5, 5, 2, 2], "x": range(5)})
    s = shuffle_within_query(f, 0)
    assert s.query_id.tolist() == [5, 5, 5, 2, 2] and sorted(s.x[:3]) == [0, 1, 2]


def test_windows_are_time_ordered(exp):
    q = exp.log.queries.assign(w=exp.windows.to_numpy())
    assert q[q.w == "train"].timestamp.min() <= q[q.w == "test"].timestamp.min()
    assert set(exp.window("test").query_id).isdisjoint(exp.window("train").query_id)


def test_ranker_beats_random_and_ablation_schema(exp):
    tr, va, te = exp.window("train"), exp.window("valid"), exp.window("test")
    sets, rows = progressive_feature_sets(MLR_FEATURES, HEURISTIC_FEATURES, INTENT_FEATURES)
    extra = te.assign(noise=np.random.default_rng(0).random(len(te)))
    tr = tr.assign(noise=np.random.default_rng(1).random(len(tr)))
    va = va.assign(noise=np.random.default_rng(2).random(len(va)))
    sets, rows = extend_feature_sets(sets, rows[:2], "MLR", ["noise"])
    res = run_ablation(
        tr, va, extra, sets, rows, seeds=(0, 1), config=FAST, n_boot=200, progress=False
    )
    t = res.table
    assert list(t.variant) == ["MLR + NCD_lc", "MLR + CosSim_lc", "MLR + noise"]
    assert ((t.ci_low <= t.lift_pct) & (t.lift_pct <= t.ci_high)).all()
    assert ((t.p_value > 0) & (t.p_value <= 1)).all()
    assert (t.lift_seed_min <= t.lift_seed_max).all()
    recs = res.table1("sim")
    assert {
        "variant",
        "baseline",
        "mrr_sale_base",
        "mrr_sale_variant",
        "lift_pct",
        "ci_low",
        "ci_high",
        "p_value",
        "data_source",
    } <= set(recs[0])
    # the learned MLR ranks the sold item better than an all-tied (expected) ranking would
    mrr = res.ties.set_index("feature_set").mrr_sale_expected["MLR"]
    sizes = extra.groupby("query_id").size()
    sold_q = extra[extra.label == 2].query_id.unique()
    random_mrr = np.mean([np.mean(1 / np.arange(1, sizes[q] + 1)) for q in sold_q])
    assert mrr > random_mrr
    # deterministic
    res2 = run_ablation(
        tr, va, extra, sets, rows, seeds=(0, 1), config=FAST, n_boot=200, progress=False
    )
    pd.testing.assert_frame_equal(res.table, res2.table)


def _graded_queries(n_queries: int, seed: int) -> pd.DataFrame:
    """Queries of 10 results whose label follows ``x`` (the top result sold, the next two
    clicked), with a constant column ``c`` and a column ``noise`` of pure noise."""
    rng = np.random.default_rng(seed)
    x = rng.normal(size=(n_queries, 10))
    rank = (-x).argsort(axis=1).argsort(axis=1)
    label = np.select([rank == 0, rank <= 2], [2, 1], 0)
    return pd.DataFrame(
        {
            "query_id": np.repeat(np.arange(n_queries), 10),
            "item_id": np.tile(np.arange(10), n_queries),
            "label": label.ravel(),
            "x": x.ravel(),
            "c": 1.0,
            "noise": rng.normal(size=n_queries * 10),
        }
    )


def test_feature_splits_count_what_the_model_uses():
    """A constant column is never split on; the column the labels follow is; the counts follow
    the order of the names; the row of an ablation that adds the constant counts 0 splits on
    it, the row that adds the informative column more."""
    train, valid, test = (_graded_queries(n, s) for n, s in ((200, 0), (60, 1), (60, 2)))
    model = train_lambdamart(train, ["c", "x", "noise"], valid=valid, config=FAST)
    used = feature_splits(model, ["c", "x", "noise"])
    assert list(used.index) == ["c", "x", "noise"]
    assert used.splits["c"] == 0 and used.gain["c"] == 0.0
    assert used.splits["x"] > 0 and used.gain["x"] > 0.0
    assert used.splits.dtype == np.int64
    with pytest.raises(ValueError, match="3 features but 2"):
        feature_splits(model, ["c", "x"])
    sets = {"x": ["x"], "x + c": ["x", "c"], "c": ["c"], "c + x": ["c", "x"]}
    rows = [AblationRow("x + c", "x"), AblationRow("c + x", "c")]
    res = run_ablation(
        train, valid, test, sets, rows, seeds=(0, 1), config=FAST, n_boot=50, progress=False
    )
    by_row = res.table.set_index("variant")
    assert by_row.added_splits["x + c"] == 0 and by_row.added_gain["x + c"] == 0.0
    assert by_row.added_splits["c + x"] > 0 and by_row.added_gain["c + x"] > 0.0
    # the row's count is its variant's models' splits on the added column, over both seeds
    per_model = res.splits.set_index(["feature_set", "feature"]).splits
    assert by_row.added_splits["c + x"] == per_model.loc[("c + x", "x")].sum()
    assert set(res.splits.seed) == {0, 1}


def test_train_rejects_missing_feature(exp):
    with pytest.raises(ValueError, match="not in the table"):
        train_lambdamart(exp.window("train"), ["nope"], config=FAST)


def test_oracle_column_and_table1_design(exp):
    assert ORACLE_FEATURE in exp.table
    with_history = exp.table.n_history.to_numpy() > 0
    assert np.isnan(exp.table[ORACLE_FEATURE].to_numpy()[~with_history]).all()
    sets, rows = table1_design(exp.table)
    assert rows[-1].variant == ORACLE_ROW and rows[-1].baseline == "MLR"
    sets2, rows2 = table1_design(exp.table.drop(columns=ORACLE_FEATURE))
    assert ORACLE_ROW not in sets2 and len(rows2) == len(rows) - 1


def test_table1_share_of_oracle_and_rr_by_feature_set(exp):
    sets = {
        "MLR": MLR_FEATURES,
        "MLR + CosSim_lc": [*MLR_FEATURES, "CosSim_lc"],
        ORACLE_ROW: [*MLR_FEATURES, "Oracle_intent"],
    }
    rows = [AblationRow("MLR + CosSim_lc", "MLR"), AblationRow(ORACLE_ROW, "MLR")]
    res = run_ablation(
        exp.window("train"),
        exp.window("valid"),
        exp.window("test"),
        sets,
        rows,
        seeds=(0,),
        config=FAST,
        n_boot=100,
        progress=False,
    )
    recs = {r["variant"]: r for r in res.table1("sim", ORACLE_ROW)}
    oracle = recs[ORACLE_ROW]["lift_pct"]
    if oracle > 0:
        assert recs[ORACLE_ROW]["share_of_oracle"] == pytest.approx(1.0)
        assert recs["MLR + CosSim_lc"]["share_of_oracle"] == pytest.approx(
            recs["MLR + CosSim_lc"]["lift_pct"] / oracle
        )
    else:  # no positive ceiling: no share
        assert all(r["share_of_oracle"] is None for r in recs.values())
    assert all(r["share_of_oracle"] is None for r in res.table1("sim"))
    # the oracle row is a family of one: its Holm-adjusted p-value is its own p-value
    assert recs[ORACLE_ROW]["p_holm"] == recs[ORACLE_ROW]["p_value"]
    family = [r for v, r in recs.items() if v != ORACLE_ROW]
    assert all(r["p_value"] <= r["p_holm"] <= 1 for r in family)
    # without an oracle every row is in the family, so the adjustment is at least as large
    plain = {r["variant"]: r["p_holm"] for r in res.table1("sim")}
    assert all(plain[v] >= r["p_holm"] for v, r in recs.items() if v != ORACLE_ROW)
    with pytest.raises(ValueError, match="oracle_variant"):
        res.table1("sim", "nope")
    rr = res.rr_by_feature_set()
    assert set(rr.columns) == set(sets)
    lift = 100 * (rr[ORACLE_ROW].mean() / rr["MLR"].mean() - 1)
    assert lift == pytest.approx(oracle)


@pytest.fixture(scope="module")
def sweep_setup():
    """The small session configuration the sweep tests re-simulate, and an embedder fitted on
    its log."""
    cfg = SessionConfig(n_products=300, n_sessions=400, n_days=4, seed=2)
    log = simulate_sessions(cfg, progress=False)
    return cfg, PPMISVDEmbedder(dim=8).fit(log.items.title.tolist(), log.clicks)


def test_context_sweep_grid_oracle_and_measured_returns(sweep_setup):
    cfg, emb = sweep_setup
    out = context_sweep(
        [0.5],
        [0.0, 0.9],
        config=cfg,
        embedder=emb,
        features=["CosSim_lc"],
        lgb_config=FAST,
        n_boot=100,
        progress=False,
    )
    assert len(out) == 4  # 2 grid points x (feature + oracle)
    assert (out.added_splits >= 0).all() and out.added_splits.dtype == np.int64
    assert set(out.variant) == {"MLR + CosSim_lc", f"MLR + {ORACLE_FEATURE}"}
    by_return = out.groupby("p_return").share_returned.first()
    assert by_return[0.0] == 0.0 and by_return[0.9] > 0.0
    with pytest.raises(ValueError, match="at least one"):
        context_sweep([], [0.1], config=cfg, embedder=emb, features=["CosSim_lc"])


def test_context_sweep_runs_a_repeated_log_once_and_marks_it(sweep_setup):
    """At p_switch = 0 no intent shifts, so p_return changes nothing: the two grid points are one
    configuration (same rows, the repeat not distinct), and a real change of p_return is not."""
    cfg, emb = sweep_setup
    out = context_sweep(
        [0.0, 0.5],
        [0.0, 0.9],
        config=cfg,
        embedder=emb,
        features=["CosSim_lc"],
        lgb_config=FAST,
        n_boot=100,
        progress=False,
    )
    assert len(out) == 8  # every grid point keeps its rows
    point = out.set_index(["p_switch", "p_return", "variant"])
    assert list(out.groupby(["p_switch", "p_return"], sort=True).distinct.first()) == [
        True,
        False,
        True,
        True,
    ]
    assert out.config.nunique() == 3
    cols = ["lift_pct", "ci_low", "ci_high", "p_value", "share_returned", "config"]
    pd.testing.assert_frame_equal(
        point.loc[(0.0, 0.0)][cols], point.loc[(0.0, 0.9)][cols], check_exact=True
    )
    assert point.loc[(0.5, 0.0), "config"].iloc[0] != point.loc[(0.5, 0.9), "config"].iloc[0]


def _sweep_rows(p_values, *, oracle_p=(0.001, 0.001)) -> pd.DataFrame:
    """A sweep of feature rows (p-values as given) on configurations 0, 1, ... plus one oracle
    row per configuration, every lift positive and every CI dual to its p-value; the last
    configuration repeated as a second grid point (not distinct)."""
    rows = []
    for c, (p, po) in enumerate(zip(p_values, oracle_p, strict=True)):
        for variant, pv in (("MLR + f", p), (f"MLR + {ORACLE_FEATURE}", po)):
            low = 0.1 if pv <= 0.05 else -0.1
            rows.append(
                dict(variant=variant, lift_pct=1.0, ci_low=low, ci_high=2.0, p_value=pv,
                     config=c, distinct=True)
            )
    repeat = [dict(r, distinct=False) for r in rows[-2:]]
    return pd.DataFrame(rows + repeat)


def test_sweep_verdicts_holm_within_the_family_of_distinct_feature_points():
    sweep = _sweep_rows([0.03, 0.02])
    out = sweep_verdicts(sweep)
    feats = out[(out.family == "features") & out.distinct]
    # two distinct feature points in one family: Holm, not each at its own p
    np.testing.assert_allclose(feats.p_holm, holm_adjust(np.array([0.03, 0.02])))
    assert list(feats.verdict) == [
        effect_verdict(1.0, 0.1, 2.0, 0.03, 0.04),
        effect_verdict(1.0, 0.1, 2.0, 0.02, 0.04),
    ]
    assert set(feats.verdict) == {RESOLVED_ABOVE}
    # a third distinct point in the family makes the same rows unresolved (Holm: 3 x 0.02)
    wider = sweep_verdicts(_sweep_rows([0.03, 0.02, 0.5], oracle_p=(0.001,) * 3))
    first_two = wider[(wider.family == "features") & wider.distinct & (wider.config < 2)]
    assert set(first_two.verdict) == {NOT_RESOLVED}
    # the repeated grid point is the same test: its configuration's values, not a new member
    rep = out[~out.distinct].set_index("variant")
    orig = out[out.distinct & (out.config == 1)].set_index("variant")
    pd.testing.assert_series_equal(rep.p_holm, orig.p_holm)
    pd.testing.assert_series_equal(rep.verdict, orig.verdict)
    # the oracle's rows are their own family
    oracle = out[(out.family == "oracle") & out.distinct]
    np.testing.assert_allclose(oracle.p_holm, holm_adjust(np.array([0.001, 0.001])))
    with pytest.raises(ValueError, match="distinct"):
        sweep_verdicts(sweep.drop(columns="distinct"))


def test_part3_log_gives_the_encoders_their_own_earlier_sessions():
    from rankbook.data.sessions import assign_time_windows
    from rankbook.ranking.experiment import PART3_FRACTIONS, RANKER_WINDOWS, load_part3_log

    cfg = SessionConfig(n_products=300, n_sessions=200, n_days=4, seed=2)
    log, fractions = load_part3_log(None, config=cfg, encoder_sessions=600, progress=False)
    assert log.queries.session_id.nunique() == 800
    assert list(fractions) == ["encoder", *RANKER_WINDOWS]
    assert sum(fractions.values()) == pytest.approx(1.0)
    windows = assign_time_windows(log.queries, fractions)
    sessions = log.queries.groupby(windows.to_numpy(), observed=True).session_id.nunique()
    assert abs(sessions["encoder"] - 600) <= 1
    ranker = {w: PART3_FRACTIONS[w] for w in RANKER_WINDOWS}
    for w in RANKER_WINDOWS:  # the ranker's 200 sessions split as PART3_FRACTIONS does
        assert abs(sessions[w] - 200 * ranker[w] / sum(ranker.values())) <= 1
    with pytest.raises(ValueError, match="encoder_sessions"):
        load_part3_log(None, config=cfg, encoder_sessions=0)


def test_feature_windows_build_the_rankers_rows_only(exp):
    from rankbook.ranking.experiment import RANKER_WINDOWS

    emb = PPMISVDEmbedder(dim=16).fit(exp.log.items.title.tolist(), exp.log.clicks)
    fractions = {"encoder": 0.4, "train": 0.3, "valid": 0.1, "test": 0.2}
    part = prepare_experiment(
        exp.log, embedder=emb, fractions=fractions, feature_windows=RANKER_WINDOWS, progress=False
    )
    whole = prepare_experiment(exp.log, embedder=emb, fractions=fractions, progress=False)
    assert set(part.windows.to_numpy()[part.table.qpos]) == set(RANKER_WINDOWS)
    for w in RANKER_WINDOWS:
        pd.testing.assert_frame_equal(part.window(w), whole.window(w))
    with pytest.raises(ValueError, match="feature_windows"):
        prepare_experiment(
            exp.log, embedder=emb, fractions=fractions, feature_windows=["tset"], progress=False
        )


def test_within_query_correlation_ignores_per_query_shifts():
    from rankbook.ranking.summaries import within_query_correlation

    rng = np.random.default_rng(0)
    q = np.repeat(np.arange(50), 8)
    x = rng.normal(size=len(q))
    noise = rng.normal(size=len(q))
    t = pd.DataFrame(
        {
            "query_id": q,
            "x": x,
            "shifted": 2 * x + 10 * rng.normal(size=50)[q],  # same order inside every query
            "other": noise,
            "half": np.where(np.arange(len(q)) % 3 == 0, np.nan, x + noise),
        }
    )
    r = within_query_correlation(t, ["x"], ["shifted", "other", "half"])
    assert r.loc["x", "shifted"] == pytest.approx(1.0)
    assert abs(r.loc["x", "other"]) < 0.15
    # brute force on the finite rows, each column centred per query
    both = t[["query_id", "x", "half"]].dropna()
    c = both[["x", "half"]] - both.groupby("query_id")[["x", "half"]].transform("mean")
    assert r.loc["x", "half"] == pytest.approx(np.corrcoef(c.x, c.half)[0, 1], abs=1e-9)
    with pytest.raises(ValueError, match="lacks"):
        within_query_correlation(t, ["x"], ["nope"])
    with pytest.raises(ValueError, match="no within-query variation"):
        within_query_correlation(t.assign(flat=1.0), ["x"], ["flat"])


def test_within_query_r2_against_a_brute_force_fit():
    from rankbook.ranking.summaries import within_query_r2

    rng = np.random.default_rng(1)
    q = np.repeat(np.arange(40), 6)
    a, b = rng.normal(size=len(q)), rng.normal(size=len(q))
    t = pd.DataFrame(
        {
            "query_id": q,
            "a": a,
            "b": b,
            "mix": 2 * a - b + 5 * rng.normal(size=40)[q],  # a mix of a and b inside each query
            "noisy": a + rng.normal(size=len(q)),
        }
    )
    r2 = within_query_r2(t, ["mix", "noisy"], ["a", "b"])
    assert r2["mix"] == pytest.approx(1.0)
    c = t[["a", "b", "noisy"]] - t.groupby("query_id")[["a", "b", "noisy"]].transform("mean")
    coef, *_ = np.linalg.lstsq(c[["a", "b"]].to_numpy(), c.noisy.to_numpy(), rcond=None)
    resid = c.noisy.to_numpy() - c[["a", "b"]].to_numpy() @ coef
    assert r2["noisy"] == pytest.approx(1 - (resid**2).sum() / (c.noisy**2).sum())
    assert 0.2 < r2["noisy"] < 0.8
    with pytest.raises(ValueError, match="lacks"):
        within_query_r2(t, ["mix"], ["zz"])


def test_tuning_keeps_the_best_validation_setting_and_reads_no_test_rows(exp):
    """The kept setting is the grid point with the highest validation NDCG@10; the tuned config
    differs from the base only in the tuned values; tuning is deterministic; a bad grid or a
    missing P2 set is refused."""
    from rankbook.ranking.experiment import tune_part3_ranker
    from rankbook.ranking.lambdamart import tune_lambdamart

    sets, _ = table1_design(exp.table)
    train, valid = exp.window("train"), exp.window("valid")
    grid = {"learning_rate": (0.05, 0.3), "num_leaves": (3, 15)}
    cfg, records = tune_lambdamart(train, valid, sets["P2"], base=FAST, grid=grid)
    assert len(records) == 4 and sum(r["chosen"] for r in records) == 1
    best = max(records, key=lambda r: r["valid_ndcg10"])
    assert best["chosen"]
    assert (cfg.learning_rate, cfg.num_leaves) == (best["learning_rate"], best["num_leaves"])
    assert cfg.num_boost_round == FAST.num_boost_round
    assert all(1 <= r["best_iteration"] <= FAST.num_boost_round for r in records)
    # deterministic: the same windows give the same records and the same choice
    again, rec2 = tune_lambdamart(train, valid, sets["P2"], base=FAST, grid=grid)
    assert again == cfg and rec2 == records
    with pytest.raises(ValueError, match="grid"):
        tune_lambdamart(train, valid, sets["P2"], grid={"learning_rate": (0.1,)})
    with pytest.raises(ValueError, match="P2"):
        tune_part3_ranker(train, valid, {"MLR": sets["MLR"]})
