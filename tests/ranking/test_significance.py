"""Paired bootstrap CI and randomisation test against brute force."""

import itertools

import numpy as np
import pytest

from rankaudit.runs.significance import (
    lift_pct,
    paired_bootstrap_lift,
    paired_randomisation_test,
)


def test_randomisation_matches_exact_enumeration():
    rng = np.random.default_rng(0)
    b = rng.random(11)
    v = b + rng.normal(0.05, 0.1, 11)
    d = v - b
    t = abs(d.mean())
    exact = np.mean(
        [abs((np.array(s) * d).mean()) >= t - 1e-12 for s in itertools.product([-1, 1], repeat=11)]
    )
    p = paired_randomisation_test(b, v, n_perm=40000, seed=1)
    assert p == pytest.approx(exact, abs=0.01)


def test_randomisation_identical_systems_p_one():
    x = np.array([0.2, 0.5, 1.0])
    assert paired_randomisation_test(x, x, n_perm=100) == 1.0


def test_bootstrap_matches_loop_reference_statistically():
    rng = np.random.default_rng(3)
    b = rng.random(300)
    v = b * 1.05 + rng.normal(0, 0.05, 300)
    lift, lo, hi = paired_bootstrap_lift(b, v, n_boot=4000, seed=0)
    assert lift == pytest.approx(lift_pct(b, v))
    ref = []
    r2 = np.random.default_rng(99)
    for _ in range(4000):
        i = r2.integers(0, 300, 300)
        ref.append(100 * (v[i].mean() / b[i].mean() - 1))
    rlo, rhi = np.quantile(ref, [0.025, 0.975])
    assert lo == pytest.approx(rlo, abs=0.25) and hi == pytest.approx(rhi, abs=0.25)
    assert lo < lift < hi


def test_coverage_of_true_lift():
    # paired data with a known population lift of 0: the 95% CI should cover 0 most of the time
    rng = np.random.default_rng(5)
    cover = 0
    for k in range(60):
        b = rng.random(200) + 0.1
        v = b + rng.normal(0, 0.1, 200)
        v = v - v.mean() + b.mean() + rng.normal(0, 0.1 / np.sqrt(200))
        _, lo, hi = paired_bootstrap_lift(b, v, n_boot=500, seed=k)
        cover += lo <= 0 <= hi
    assert cover >= 50


def test_bad_input():
    with pytest.raises(ValueError, match="paired"):
        paired_bootstrap_lift(np.ones(3), np.ones(4))
    with pytest.raises(ValueError, match="non-finite"):
        paired_randomisation_test(np.array([1.0, np.nan]), np.ones(2))
    with pytest.raises(ValueError, match="empty"):
        lift_pct(np.array([]), np.array([]))
