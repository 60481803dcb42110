"""hash_agreement's flags come from counted relevant-item ties, not from rounding noise."""

from __future__ import annotations

import numpy as np

from rankaudit.runs.decision import DEPARTS_EXPECTATION, MATCHES_EXPECTATION
from rankbook.audit.tables import hash_agreement
from rankbook.data.candidates import CandidateRows


def _rows(n: int, m: int) -> CandidateRows:
    labels = np.zeros((n, m), dtype=np.int64)
    labels[:, 0] = 1
    return CandidateRows(
        user_ids=np.arange(n, dtype=np.int64),
        item_ids=np.arange(n * m, dtype=np.int64).reshape(n, m),
        labels=labels,
        seed=0,
    )


def test_a_tied_relevant_item_below_the_cutoff_clears_the_flag() -> None:
    """Row 0's relevant item ties with a negative at ranks 5-6, below k = 3: every tie order
    gives the same metric, so hash mean and expectation agree to rounding, but a relevant item
    *is* tied and the flag must say so (it used to be derived from that rounding agreement)."""
    n, m = 200, 6
    rows = _rows(n, m)
    scores = np.tile(np.arange(m, 0, -1, dtype=np.float64), (n, 1))  # relevant strictly first
    scores[0] = [1.0, 6.0, 5.0, 4.0, 3.0, 1.0]  # row 0: relevant tied with the last negative
    out = hash_agreement(rows, scores, k=3, n_seeds=3)
    assert out["hash_mean_ndcg10"] == out["expected_ndcg10"]
    assert out["n_relevant_tied"] == 1
    assert out["no_relevant_ties"] is False


def test_no_tied_relevant_item_sets_the_flag() -> None:
    rows = _rows(50, 6)
    scores = np.tile(
        np.array([5.0, 1.0, 1.0, 1.0, 0.0, 0.0]), (50, 1)
    )  # negatives tie, relevant not
    out = hash_agreement(rows, scores, k=3, n_seeds=3)
    assert out["n_relevant_tied"] == 0 and out["no_relevant_ties"] is True
    assert out["z"] == 0.0 and out["verdict"] == MATCHES_EXPECTATION


def test_within_se_fails_when_the_hash_runs_are_shifted_off_the_expectation() -> None:
    """The agreement check can fail: shift every seed's NDCG away from the expectation by ten
    standard errors and the verdict turns to 'departs from its expectation' (the chapters report
    this check as a test)."""
    rng = np.random.default_rng(0)
    n, m = 300, 6
    rows = _rows(n, m)
    scores = rng.integers(0, 2, (n, m)).astype(np.float64)  # many relevant-item ties
    fair = hash_agreement(rows, scores, k=3, n_seeds=8)
    assert fair["n_relevant_tied"] > 0
    per_seed = np.full((8, 1), fair["expected_ndcg10"]) + rng.normal(0, 0.01, (8, 1))
    ok = hash_agreement(rows, scores, k=3, n_seeds=8, per_seed=per_seed)
    shifted = per_seed + 10 * max(ok["hash_se_ndcg10"], 1e-3)
    bad = hash_agreement(rows, scores, k=3, n_seeds=8, per_seed=shifted)
    assert bad["verdict"] == DEPARTS_EXPECTATION
    assert abs(bad["z"]) > 2
