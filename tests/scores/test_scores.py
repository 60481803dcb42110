"""Score families against their formulas, computed by brute force on small data."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from rankbook.scores import FAMILIES, compute_scores
from rankbook.scores.centered import centered_attribute
from rankbook.scores.overlap import attribute_overlap
from rankbook.scores.popularity import item_popularity
from rankbook.scores.residualized import residualized_attribute
from rankbook.scores.weighted import weighted_overlap


@pytest.fixture
def toy():
    rng = np.random.default_rng(1)
    n_items, n_attr = 30, 5
    attrs = pd.DataFrame(
        (rng.random((n_items, n_attr)) < 0.35).astype(np.uint8),
        index=pd.Index(np.arange(100, 100 + n_items), name="item_id"),
        columns=[f"a{j}" for j in range(n_attr)],
    )
    attrs.iloc[3] = attrs.iloc[4]  # an identical attribute pattern
    train = pd.DataFrame(
        {
            "user_id": rng.integers(0, 6, 60),
            "item_id": rng.integers(100, 100 + n_items, 60),
            "rating": rng.integers(1, 6, 60).astype(float) / 2 * 2,
        }
    )
    users = np.arange(6)
    items = np.stack([rng.choice(np.arange(100, 100 + n_items), 8, replace=False) for _ in users])
    items[0, :2] = [103, 104]
    return users, items, train, attrs


def _history(train, u):
    return train.loc[train["user_id"] == u]


def test_overlap_is_set_intersection_size(toy) -> None:
    users, items, train, attrs = toy
    s = attribute_overlap(users, items, train, attrs)
    for r, u in enumerate(users):
        prof = set(np.flatnonzero(attrs.loc[_history(train, u)["item_id"]].to_numpy().any(axis=0)))
        for c, i in enumerate(items[r]):
            assert s[r, c] == len(prof & set(np.flatnonzero(attrs.loc[i].to_numpy())))


def test_weighted_matches_formula(toy) -> None:
    users, items, train, attrs = toy
    s = weighted_overlap(users, items, train, attrs)
    for r, u in enumerate(users):
        h = _history(train, u)
        for c, i in enumerate(items[r]):
            num = sum(
                rt * float(attrs.loc[i].to_numpy() @ attrs.loc[j].to_numpy())
                for j, rt in zip(h["item_id"], h["rating"], strict=True)
            )
            assert s[r, c] == pytest.approx(num / h["rating"].sum() if len(h) else 0.0, abs=1e-12)


def test_centered_matches_formula_and_ties_identical_patterns_exactly(toy) -> None:
    users, items, train, attrs = toy
    s = centered_attribute(users, items, train, attrs)
    a = attrs.to_numpy(float)
    mu = a.mean(axis=0)
    for r, u in enumerate(users):
        h = _history(train, u)
        f = attrs.loc[h["item_id"]].to_numpy(float).mean(axis=0) if len(h) else mu
        for c, i in enumerate(items[r]):
            assert s[r, c] == pytest.approx((attrs.loc[i].to_numpy() - mu) @ (f - mu), abs=1e-12)
    assert s[0, 0] == s[0, 1]  # items 103 and 104 share their attributes: bit-identical


def test_centering_is_not_a_row_constant_shift_of_overlap(toy) -> None:
    users, items, train, attrs = toy
    ov = attribute_overlap(users, items, train, attrs)
    ce = centered_attribute(users, items, train, attrs)
    same_order = all(
        np.array_equal(np.argsort(-ov[r], kind="stable"), np.argsort(-ce[r], kind="stable"))
        for r in range(len(users))
    )
    assert not same_order


def test_residualized_is_orthogonal_to_regressors_and_has_few_ties(toy) -> None:
    users, items, train, attrs = toy
    res, beta = residualized_attribute(users, items, train, attrs, return_coefficients=True)
    w = weighted_overlap(users, items, train, attrs)
    a = attrs.to_numpy(float)[attrs.index.get_indexer(items.ravel())]
    pop_w = train.groupby("item_id")["rating"].sum().reindex(items.ravel(), fill_value=0).to_numpy()
    tot = (
        train.groupby("user_id")["rating"]
        .sum()
        .reindex(np.repeat(users, items.shape[1]), fill_value=0)
        .to_numpy()
    )
    x = np.column_stack([np.ones(len(a)), a, np.log1p(pop_w), np.log1p(tot)])
    # OLS residuals are orthogonal to every regressor, and residual = y - X beta
    np.testing.assert_allclose(x.T @ res.ravel(), 0.0, atol=1e-9)
    np.testing.assert_allclose(res.ravel(), w.ravel() - x @ beta, atol=1e-12)
    ref = np.linalg.lstsq(x, w.ravel(), rcond=None)[0]
    np.testing.assert_allclose(x @ ref, x @ beta, atol=1e-9)
    ties_res = sum(len(np.unique(row)) < len(row) for row in res)
    ties_ov = sum(
        len(np.unique(row)) < len(row) for row in attribute_overlap(users, items, train, attrs)
    )
    assert ties_res <= ties_ov


def test_popularity_counts_training_interactions(toy) -> None:
    users, items, train, _ = toy
    s = item_popularity(users, items, train)
    counts = train["item_id"].value_counts()
    for r in range(len(users)):
        for c, i in enumerate(items[r]):
            assert s[r, c] == counts.get(i, 0)


def test_compute_scores_all_families_and_errors(toy) -> None:
    users, items, train, attrs = toy
    out = compute_scores(users, items, train, attrs)
    assert list(out) == list(FAMILIES)
    assert all(
        v.shape == items.shape and v.dtype == np.float64 and np.isfinite(v).all()
        for v in out.values()
    )
    with pytest.raises(ValueError, match="unknown score families"):
        compute_scores(users, items, train, attrs, families=["bm25"])
    with pytest.raises(ValueError, match="item 999 has no row in attributes"):
        attribute_overlap(users, np.full(items.shape, 999), train, attrs)
    with pytest.raises(ValueError, match="binary"):
        attribute_overlap(users, items, train, attrs * 2)


def test_scores_do_not_depend_on_candidate_order(toy) -> None:
    users, items, train, attrs = toy
    perm = np.random.default_rng(0).permutation(items.shape[1])
    for name, s in compute_scores(users, items, train, attrs).items():
        s2 = compute_scores(users, items[:, perm], train, attrs, families=[name])[name]
        np.testing.assert_array_equal(s[:, perm], s2, err_msg=name)


def test_attribute_errors_name_plain_ids() -> None:
    from rankbook.scores._common import attribute_matrix

    dup = pd.DataFrame({"a": [1.0, 0.0]}, index=pd.Index(np.array([5, 5]), name="item_id"))
    with pytest.raises(ValueError, match=r"duplicate item id 5$"):
        attribute_matrix(dup)
    bad = pd.DataFrame({"a": [1.0, np.nan]}, index=pd.Index(np.array([5, 6]), name="item_id"))
    with pytest.raises(ValueError, match=r"attributes\[6, 'a'\] is not finite"):
        attribute_matrix(bad)
