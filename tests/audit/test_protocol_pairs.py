"""Protocol swaps count only what a paired test resolves in both protocols; user-kNN scores
are similarity-weighted votes of the K most similar other users."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
import scipy.sparse as sp

from rankaudit.runs.significance import holm_adjust, paired_randomisation_test
from rankbook.audit.protocol_pairs import (
    SWAP_STATUS,
    above_floor,
    lead_test,
    pair_tests,
    protocol_swaps,
    swap_status,
)
from rankbook.audit.recommenders import DEFAULT_MODELS, fit_and_score, with_params


def _values(seed: int, shifts: dict[str, float], n: int = 80) -> dict[str, np.ndarray]:
    rng = np.random.default_rng(seed)
    base = rng.random(n)
    return {name: base + shift + 0.05 * rng.standard_normal(n) for name, shift in shifts.items()}


def test_pair_tests_are_the_leaderboard_tests_holm_within_the_family():
    values = _values(0, {"a": 0.0, "b": 0.2, "c": 0.21})
    tests = pair_tests(values, n_perm=999, seed=3)
    assert [(t["run_a"], t["run_b"]) for t in tests] == [("a", "b"), ("a", "c"), ("b", "c")]
    raw = [
        paired_randomisation_test(values[t["run_a"]], values[t["run_b"]], n_perm=999, seed=3)
        for t in tests
    ]
    assert [t["p_value"] for t in tests] == raw
    np.testing.assert_allclose([t["p_holm"] for t in tests], holm_adjust(np.array(raw)))
    assert tests[0]["diff"] == pytest.approx(values["b"].mean() - values["a"].mean())


def test_a_swap_counts_only_when_both_orders_are_resolved():
    # a clear swap: b far above a on full, far below on sampled
    full = pair_tests(_values(1, {"a": 0.0, "b": 0.3, "c": 0.0}), n_perm=999)
    sampled = pair_tests(_values(2, {"a": 0.3, "b": 0.0, "c": 0.0}), n_perm=999)
    status = {(r["run_a"], r["run_b"]): r["status"] for r in protocol_swaps(full, sampled)}
    assert status[("a", "b")] == "resolved swap"
    # a and c (and b and c) are equal on one protocol: any opposite order there is noise
    assert status[("a", "c")] in ("same order", "unresolved swap")
    assert status[("a", "c")] != "resolved swap"
    assert swap_status(0.1, 0.01, -0.1, 0.2, 0.05) == "unresolved swap"
    assert swap_status(0.1, 0.01, -0.1, 0.04, 0.05) == "resolved swap"
    assert swap_status(0.1, 0.01, 0.2, 0.04, 0.05) == "same order"
    assert swap_status(0.0, 1.0, -0.1, 0.0, 0.05) == "same order"  # equal on one protocol
    assert set(SWAP_STATUS) == {"same order", "resolved swap", "unresolved swap"}


def test_mismatched_pairs_and_bad_level_are_refused():
    full = pair_tests(_values(1, {"a": 0.0, "b": 0.1}), n_perm=99)
    other = pair_tests(_values(1, {"a": 0.0, "c": 0.1}), n_perm=99)
    with pytest.raises(ValueError, match="same pairs"):
        protocol_swaps(full, other)
    with pytest.raises(ValueError, match="alpha"):
        protocol_swaps(full, full, alpha=1.5)
    with pytest.raises(ValueError, match="same rows"):
        pair_tests({"a": np.zeros(3), "b": np.zeros(4)})
    with pytest.raises(ValueError, match="floor model"):
        above_floor(full, "random")


def test_above_floor_signs_the_difference_model_minus_floor():
    values = _values(4, {"random": 0.0, "m1": 0.3, "m2": -0.3})
    got = above_floor(pair_tests(values, n_perm=999), "random")
    assert got.loc["m1", "diff"] > 0 > got.loc["m2", "diff"]
    assert got.loc["m1", "diff"] == pytest.approx(values["m1"].mean() - values["random"].mean())


def test_user_knn_is_the_similarity_weighted_vote_of_the_k_nearest_other_users():
    pytest.importorskip("implicit")
    rng = np.random.default_rng(5)
    dense = (rng.random((30, 40)) < 0.2).astype(np.float32)
    matrix = sp.csr_matrix(dense)
    k = 4
    spec = with_params(DEFAULT_MODELS, "user_knn", K=k)[2]
    rows = np.arange(30)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        got = fit_and_score(spec, matrix, rows)
    norms = np.sqrt(dense.sum(axis=1))
    cos = (dense @ dense.T) / np.maximum(np.outer(norms, norms), 1e-12)
    np.fill_diagonal(cos, -np.inf)
    checked = 0
    for u in rows:
        order = np.argsort(-cos[u], kind="stable")
        top = order[:k]
        if k < 29 and cos[u, order[k - 1]] == cos[u, order[k]]:
            continue  # a tie at the K-th neighbour: either neighbour is a valid top-K
        weights = np.where(np.isfinite(cos[u, top]), cos[u, top], 0.0)
        np.testing.assert_allclose(got[u], weights @ dense[top], rtol=1e-5, atol=1e-6)
        checked += 1
    assert checked >= 10
    # not an average: an item two neighbours share scores more than an item one has seen
    assert got.max() > 1.0


def test_a_lead_is_the_leader_minus_the_runner_up_and_its_verdict_reads_the_holm_p():
    values = _values(1, {"a": 0.0, "b": 0.3, "c": 0.29})
    tests = pair_tests(values, n_perm=999, seed=3)
    means = {name: float(v.mean()) for name, v in values.items()}
    lead = lead_test(tests, means)
    ranked = sorted(means, key=lambda n: -means[n])
    assert (lead["leader"], lead["runner_up"]) == tuple(ranked[:2])
    assert lead["diff"] == pytest.approx(means[ranked[0]] - means[ranked[1]])
    assert lead["diff"] > 0
    pair = next(t for t in tests if {t["run_a"], t["run_b"]} == set(ranked[:2]))
    assert lead["p_holm"] == pair["p_holm"]
    # b and c are 0.01 apart with noise 0.05 on 80 rows: the lead is not resolved
    assert lead["verdict"] == "not resolved at this power"
    # a clear leader: resolved above zero
    clear = _values(2, {"a": 0.0, "b": 0.5})
    clear_tests = pair_tests(clear, n_perm=999, seed=3)
    clear_lead = lead_test(clear_tests, {n: float(v.mean()) for n, v in clear.items()})
    assert clear_lead["leader"] == "b" and clear_lead["verdict"] == "resolved above zero"
    with pytest.raises(ValueError, match="at least 2 models"):
        lead_test(tests, {"a": 0.1})
    with pytest.raises(ValueError, match="no pair test"):
        lead_test(tests, {"x": 0.2, "y": 0.1})


def test_a_lead_given_its_rows_carries_what_its_power_is_computed_from():
    values = _values(1, {"a": 0.0, "b": 0.3, "c": 0.29})
    tests = pair_tests(values, n_perm=99, seed=3)
    means = {name: float(v.mean()) for name, v in values.items()}
    lead = lead_test(tests, means, values=values)
    leader, runner_up = lead["leader"], lead["runner_up"]
    assert lead["n_rows"] == 80 and lead["n_pairs"] == len(tests) == 3
    assert lead["sd_diff"] == pytest.approx(np.std(values[leader] - values[runner_up], ddof=1))
    assert "sd_diff" not in lead_test(tests, means)  # without the rows, no spread is claimed
