"""Exact sign-flip p-values and multiple-comparison adjustments against brute-force procedures."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rankaudit.runs.significance import (
    MAX_EXACT_N,
    bh_adjust,
    bonferroni_adjust,
    exact_sign_flip_pvalue,
    holm_adjust,
    paired_randomisation_test,
)


def _holm_rejects(p, alpha):
    """Holm's procedure as written in Holm (1979): step down, stop at the first acceptance."""
    order = sorted(range(len(p)), key=lambda i: p[i])
    rejected = set()
    for j, i in enumerate(order):
        if p[i] <= alpha / (len(p) - j):
            rejected.add(i)
        else:
            break
    return rejected


def _bh_rejects(p, alpha):
    """Benjamini-Hochberg as written in the 1995 paper: the largest j with p_(j) <= j alpha / m."""
    order = sorted(range(len(p)), key=lambda i: p[i])
    m = len(p)
    largest = 0
    for j, i in enumerate(order, start=1):
        if p[i] <= j * alpha / m:
            largest = j
    return set(order[:largest])


pvalue_lists = st.lists(
    st.one_of(st.floats(0, 1), st.sampled_from([0.0, 0.01, 0.02, 0.04, 0.05, 1.0])),
    min_size=1,
    max_size=9,
)


@settings(max_examples=300, deadline=None)
@given(pvalue_lists)
def test_adjusted_pvalues_reject_exactly_what_the_procedures_reject(p):
    holm, bh, bonf = holm_adjust(p), bh_adjust(p), bonferroni_adjust(p)
    # a level between every pair of thresholds at which a decision can change (a level exactly
    # on a threshold compares two roundings of the same number; levels of 1 or more are moot)
    cuts = sorted({float(x) for x in np.concatenate([holm, bh, bonf])} | {0.0, 1.0})
    alphas = [(a + b) / 2 for a, b in itertools.pairwise(cuts) if b - a > 1e-9]
    for alpha in alphas:
        assert {i for i in range(len(p)) if holm[i] <= alpha} == _holm_rejects(p, alpha)
        assert {i for i in range(len(p)) if bh[i] <= alpha} == _bh_rejects(p, alpha)
        assert {i for i in range(len(p)) if bonf[i] <= alpha} == {
            i for i in range(len(p)) if len(p) * p[i] <= alpha
        }


@settings(max_examples=200, deadline=None)
@given(pvalue_lists)
def test_adjustments_are_ordered_and_bounded(p):
    p = np.asarray(p)
    holm, bh, bonf = holm_adjust(p), bh_adjust(p), bonferroni_adjust(p)
    assert np.all((p <= bh + 1e-15) & (bh <= holm + 1e-15) & (holm <= bonf + 1e-15) & (bonf <= 1))
    # monotone in the raw p-values
    order = np.argsort(p, kind="stable")
    for adjusted in (holm, bh, bonf):
        assert np.all(np.diff(adjusted[order]) >= -1e-15)


def test_known_values_by_hand():
    p = [0.01, 0.04, 0.03, 0.005]
    # sorted: 0.005, 0.01, 0.03, 0.04 -> Holm 4*0.005, 3*0.01, max(2*0.03, .), 1*0.04 -> running max
    np.testing.assert_allclose(holm_adjust(p), [0.03, 0.06, 0.06, 0.02])
    # BH: m p_(j) / j = 0.02, 0.02, 0.04, 0.04 -> running min from the top
    np.testing.assert_allclose(bh_adjust(p), [0.02, 0.04, 0.04, 0.02])
    np.testing.assert_allclose(bonferroni_adjust(p), [0.04, 0.16, 0.12, 0.02])
    np.testing.assert_allclose(bh_adjust([0.01, 0.02, 0.03, 0.04, 0.05]), [0.05] * 5)


@pytest.mark.parametrize("bad", [[], [0.5, 1.5], [np.nan], [[0.1, 0.2]], [-0.1]])
def test_bad_pvalues_are_refused(bad):
    for adjust in (holm_adjust, bh_adjust, bonferroni_adjust):
        with pytest.raises(ValueError, match="pvalues"):
            adjust(bad)


def test_exact_sign_flip_matches_a_loop_and_the_sampled_test():
    rng = np.random.default_rng(4)
    b = rng.random(10)
    v = b + rng.normal(0.05, 0.1, 10)
    d = v - b
    loop = np.mean(
        [
            abs(np.dot(s, d)) / 10 >= abs(d.mean()) - 1e-12
            for s in itertools.product([-1, 1], repeat=10)
        ]
    )
    exact = exact_sign_flip_pvalue(b, v)
    assert exact == pytest.approx(loop, abs=1e-15)
    assert paired_randomisation_test(b, v, n_perm=40000, seed=2) == pytest.approx(exact, abs=0.01)


def test_exact_sign_flip_extremes_and_limits():
    b = np.zeros(6)
    assert exact_sign_flip_pvalue(b, np.ones(6)) == pytest.approx(2 / 64)  # all +, or all -
    assert exact_sign_flip_pvalue(b, b) == 1.0
    with pytest.raises(ValueError, match="at most"):
        exact_sign_flip_pvalue(np.zeros(MAX_EXACT_N + 1), np.ones(MAX_EXACT_N + 1))
