"""Rows with many relevant items and many tie blocks: the O(n log n) paths of the kernels
(merge sorts past ``INSERTION_SORT_MAX``, binary-searched block counts past
``BLOCK_PASSES_MAX``, Fenwick draws) give what the plain formulas and the insertion draws give."""

from __future__ import annotations

import numba
import numpy as np
import pytest

import rankaudit
from rankaudit.measures.hashing import GAMMA, mix64_nb
from rankaudit.measures.row_reference import expected_metrics_reference
from rankaudit.measures.row_sampled import _TO_UNIT, _draw_block_fenwick
from rankaudit.measures.row_support import BLOCK_PASSES_MAX, INSERTION_SORT_MAX


def _row(n: int, n_values: int, share_relevant: float, seed: int) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    scores = rng.integers(0, n_values, n).astype(np.float64)
    labels = np.where(rng.random(n) < share_relevant, rng.integers(1, 4, n), 0)
    return scores, labels


@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize("k", [1, 10, 1000])
def test_expected_on_long_rows_equals_the_plain_formulas(seed, k):
    scores, labels = _row(600, 150, 0.4, seed)
    m = int((labels > 0).sum())
    blocks = len(np.unique(scores[labels > 0]))
    assert m > INSERTION_SORT_MAX and blocks > BLOCK_PASSES_MAX  # the long-row paths run
    got = rankaudit.evaluate(scores[None, :], labels[None, :], k=k, return_variance=True)
    means, variances = expected_metrics_reference(scores, labels, k)
    for name, value in means.items():
        assert got[name].iloc[0] == pytest.approx(value, rel=1e-12, abs=1e-15)
        assert got[f"{name}_var"].iloc[0] == pytest.approx(variances[name], rel=1e-9, abs=1e-15)


def test_long_rows_keep_row_order_invariance_bit_for_bit():
    scores, labels = _row(3000, 200, 0.5, 7)
    perm = np.random.default_rng(1).permutation(len(scores))
    for ties in ("expected", "pessimistic", "optimistic"):
        a = rankaudit.evaluate(scores[None, :], labels[None, :], ties=ties)
        b = rankaudit.evaluate(scores[None, perm], labels[None, perm], ties=ties)
        cols = a.attrs["metric_columns"]
        assert np.array_equal(a[cols].to_numpy(), b[cols].to_numpy()), ties


def test_random_on_long_rows_is_row_order_invariant_and_near_the_expectation():
    scores, labels = _row(2000, 40, 0.5, 3)  # tie blocks holding many relevant items
    items = np.arange(len(scores))
    perm = np.random.default_rng(2).permutation(len(scores))
    kw = dict(ties="random", n_repeats=400, user_ids=[5], seed=11)
    a = rankaudit.evaluate(scores[None, :], labels[None, :], item_ids=items[None, :], **kw)
    b = rankaudit.evaluate(scores[None, perm], labels[None, perm], item_ids=items[None, perm], **kw)
    exact = rankaudit.evaluate(scores[None, :], labels[None, :])
    for name in ("nDCG@10", "RR"):
        assert a[name].iloc[0] == b[name].iloc[0]
        se = a[f"{name}_std"].iloc[0] / np.sqrt(400)
        assert abs(a[name].iloc[0] - exact[name].iloc[0]) <= 5 * se + 1e-12


def _draw_block_insertion(state: int, g: int, t: int, mb: int) -> list[int]:
    """The documented draw, plainly: draw q takes the pos-th free slot, pos uniform on
    0 .. t-q-1 (the insertion loop of row_random_kernel, in Python)."""
    free = list(range(t))
    ranks = []
    mask = (1 << 64) - 1
    for q in range(mb):
        state = (state + GAMMA) & mask
        u = int(mix64_nb(numba.uint64(state)))
        pos = int((u >> 11) * _TO_UNIT * (t - q))
        ranks.append(g + 1 + free.pop(pos))
    return ranks


@pytest.mark.parametrize(("g", "t", "mb"), [(0, 40, 33), (5, 300, 120), (2, 1000, 1000), (0, 1, 1)])
def test_fenwick_draw_takes_the_same_slots_as_the_insertion_draw(g, t, mb):
    for start_state in (0, 12345, (1 << 64) - 3):
        ranks = np.zeros(mb, np.int64)
        tree = np.zeros(t + 1, np.int64)
        best = _draw_block_fenwick(
            numba.uint64(start_state), numba.uint64(GAMMA), g, t, mb, 0, ranks, tree, t + g + 1
        )
        want = _draw_block_insertion(start_state, g, t, mb)
        assert ranks.tolist() == want
        assert best == min(want)
