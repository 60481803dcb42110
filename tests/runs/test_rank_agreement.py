"""Kendall's tau, tau_AP and rank intervals against scipy and plain enumeration."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats

from rankaudit.runs.rank_agreement import (
    kendall_tau,
    leaderboard_order,
    positions,
    rank_intervals,
    tau_ap,
)

NAMES = [f"s{i:02d}" for i in range(12)]


def _tau_ap_loop(compared, reference):
    """Yilmaz et al. (2008) as written: C(i) counted one system at a time."""
    n = len(compared)
    ref = {s: k for k, s in enumerate(reference)}
    total = 0.0
    for i in range(1, n):
        c = sum(ref[compared[j]] < ref[compared[i]] for j in range(i))
        total += c / i
    return 2.0 / (n - 1) * total - 1.0


@settings(max_examples=60, deadline=None)
@given(st.permutations(NAMES), st.permutations(NAMES), st.integers(2, 12))
def test_kendall_tau_equals_scipy_and_tau_ap_equals_loop(a, b, n):
    keep = set(NAMES[:n])
    a, b = [s for s in a if s in keep], [s for s in b if s in keep]
    expected = stats.kendalltau(positions(a, a), positions(b, a)).statistic
    assert kendall_tau(a, b) == pytest.approx(expected, abs=1e-12)
    assert tau_ap(a, b) == pytest.approx(_tau_ap_loop(a, b), abs=1e-12)


def test_tau_ap_extremes_and_top_weighting():
    order = NAMES[:6]
    assert tau_ap(order, order) == 1.0 and kendall_tau(order, order) == 1.0
    assert tau_ap(order[::-1], order) == pytest.approx(-1.0)
    top_swap = [order[1], order[0], *order[2:]]
    bottom_swap = [*order[:4], order[5], order[4]]
    assert kendall_tau(top_swap, order) == kendall_tau(bottom_swap, order)
    assert tau_ap(top_swap, order) < tau_ap(bottom_swap, order)


def test_leaderboard_order_breaks_equal_values_by_name_whatever_the_input_order():
    names = ["b", "a", "c", "d"]
    values = np.array([0.5, 0.5, 0.7, 0.1])
    assert leaderboard_order(names, values) == ["c", "a", "b", "d"]
    perm = [2, 0, 3, 1]
    assert leaderboard_order([names[i] for i in perm], values[perm]) == ["c", "a", "b", "d"]
    with pytest.raises(ValueError, match="share a name"):
        leaderboard_order(["a", "a"], np.array([1.0, 2.0]))


@settings(max_examples=80, deadline=None)
@given(st.integers(0, 10_000), st.integers(2, 7), st.booleans())
def test_every_order_in_the_envelopes_lands_inside_the_rank_interval(seed, n, coarse):
    rng = np.random.default_rng(seed)
    lo = rng.integers(0, 4, n) / 4 if coarse else rng.random(n)
    hi = lo + (rng.integers(0, 3, n) / 4 if coarse else rng.random(n) * rng.integers(0, 2, n))
    names = NAMES[:n]
    best, worst = rank_intervals(lo, hi)
    # every corner of the box of envelopes, plus random interior points
    corners = [np.where(np.array(c), hi, lo) for c in itertools.product([0, 1], repeat=n)]
    inner = [lo + rng.random(n) * (hi - lo) for _ in range(20)]
    reached_best, reached_worst = np.full(n, n + 1), np.zeros(n, dtype=int)
    for v in corners + inner:
        pos = positions(leaderboard_order(names, v), names)
        assert np.all(best <= pos) and np.all(pos <= worst)
        reached_best, reached_worst = np.minimum(reached_best, pos), np.maximum(reached_worst, pos)
    if not coarse:  # no exactly equal values: both ends are reached at a corner
        assert np.array_equal(reached_best, best) and np.array_equal(reached_worst, worst)


def test_rank_intervals_by_hand_and_bad_input():
    best, worst = rank_intervals(np.array([0.8, 0.5, 0.1]), np.array([0.9, 0.85, 0.2]))
    assert best.tolist() == [1, 1, 3] and worst.tolist() == [2, 2, 3]
    # the by-hand exercise of the leaderboard chapter
    best, worst = rank_intervals(np.array([0.40, 0.45, 0.30]), np.array([0.48, 0.50, 0.39]))
    assert best.tolist() == [1, 1, 3] and worst.tolist() == [2, 2, 3]
    with pytest.raises(ValueError, match="lower exceeds upper"):
        rank_intervals(np.array([0.5, 0.2]), np.array([0.4, 0.3]))
    with pytest.raises(ValueError, match="finite"):
        rank_intervals(np.array([np.nan, 0.2]), np.array([0.4, 0.3]))
