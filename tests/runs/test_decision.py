"""The one decision standard: the CI and the test agree by construction, and each verdict flips
with the number it is a function of."""

from __future__ import annotations

from statistics import NormalDist

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rankaudit.runs.decision import (
    AGREES,
    ALPHA,
    CONTRADICTS,
    DEPARTS_EXPECTATION,
    EQUIVALENT,
    MATCHES_EXPECTATION,
    MIN_POWER,
    NOT_RESOLVED,
    RESOLVED_ABOVE,
    RESOLVED_BELOW,
    RESOLVED_SWAP,
    SAME_ORDER,
    SWAP_VERDICTS,
    UNRESOLVED_SWAP,
    VERDICTS,
    Z_AGREE,
    claim_verdict,
    direction_verdict,
    effect_verdict,
    equivalence_verdict,
    expectation_verdict,
    family_z,
    interval_z,
    swap_verdict,
    z_score,
)
from rankaudit.runs.significance import (
    dual_interval_test,
    equivalence_lift_difference,
    paired_bootstrap_test,
    paired_lift_difference,
)

_draws = st.lists(
    st.floats(min_value=-5, max_value=5, allow_nan=False).map(lambda x: round(x, 1)),
    min_size=40,
    max_size=400,
)


@settings(max_examples=300, deadline=None)
@given(draws=_draws, alpha=st.sampled_from([0.01, 0.05, 0.1, 0.2]), null=st.sampled_from([0, 0.5]))
def test_the_ci_excludes_the_null_exactly_when_p_is_at_most_alpha(draws, alpha, null):
    """Rounded draws put many exactly on the null: the boundary cases are hit."""
    if 2 / (len(draws) + 1) > alpha:
        with pytest.raises(ValueError, match="cannot reach level"):
            dual_interval_test(np.array(draws), alpha=alpha, null=null)
        return
    lo, hi, p = dual_interval_test(np.array(draws), alpha=alpha, null=null)
    assert lo <= hi and 0 < p <= 1
    assert (lo > null or hi < null) == (p <= alpha)


@settings(max_examples=40, deadline=None)
@given(
    seed=st.integers(0, 10_000),
    n=st.integers(3, 60),
    shift=st.floats(-0.3, 0.3),
    n_boot=st.integers(40, 400),
)
def test_paired_tests_agree_with_their_own_intervals(seed, n, shift, n_boot):
    rng = np.random.default_rng(seed)
    b = rng.uniform(0.1, 1.0, n)
    v = np.clip(b + shift + rng.normal(0, 0.2, n), 0.01, None)
    c = np.clip(b + rng.normal(0, 0.2, n), 0.01, None)
    _, lo, hi, p = paired_bootstrap_test(b, v, n_boot=n_boot, seed=seed)
    assert (lo > 0 or hi < 0) == (p <= ALPHA)
    effect_verdict((lo + hi) / 2, lo, hi, p, p)  # never refuses its own numbers
    _, lo, hi, p = paired_lift_difference(b, v, c, n_boot=n_boot, seed=seed)
    assert (lo > 0 or hi < 0) == (p <= ALPHA)
    _, lo, hi, p = equivalence_lift_difference(b, v, c, margin_pct=5.0, n_boot=n_boot, seed=seed)
    assert (-5.0 < lo and hi < 5.0) == (p <= ALPHA)


def test_identical_systems_give_p_one_and_a_ci_with_zero():
    b = np.linspace(0.1, 1, 30)
    _, lo, hi, p = paired_bootstrap_test(b, b.copy(), n_boot=200)
    assert p == 1.0 and lo <= 0 <= hi


def test_effect_verdict_flips_with_holm_and_sign():
    assert effect_verdict(1.0, 0.2, 1.8, 0.01, 0.03) == RESOLVED_ABOVE
    assert effect_verdict(-1.0, -1.8, -0.2, 0.01, 0.03) == RESOLVED_BELOW
    # the Perceiver row of the issue: resolved alone, not within its family of four
    assert effect_verdict(-0.8, -1.66, -0.01, 0.04, 0.16) == NOT_RESOLVED
    assert effect_verdict(0.3, -0.2, 0.8, 0.3, 0.9) == NOT_RESOLVED


def test_effect_verdict_refuses_a_ci_and_p_from_different_resamplings():
    with pytest.raises(ValueError, match="disagree"):
        effect_verdict(-0.8, -1.66, -0.01, 0.052, 0.206)
    with pytest.raises(ValueError, match="disagree"):
        effect_verdict(0.3, -0.2, 0.8, 0.01, 0.02)
    with pytest.raises(ValueError, match="never below"):
        effect_verdict(1.0, 0.2, 1.8, 0.01, 0.005)
    with pytest.raises(ValueError, match="finite"):
        effect_verdict(float("nan"), 0.2, 1.8, 0.01, 0.02)


def test_equivalence_verdict():
    assert equivalence_verdict(0.01, 0.04) == EQUIVALENT
    assert equivalence_verdict(0.01, 0.06) == NOT_RESOLVED


def test_contradicts_needs_the_opposite_resolved_and_power():
    assert claim_verdict(RESOLVED_ABOVE, RESOLVED_ABOVE, 0.1) == AGREES
    assert claim_verdict(RESOLVED_ABOVE, RESOLVED_BELOW, MIN_POWER) == CONTRADICTS
    assert claim_verdict(RESOLVED_ABOVE, RESOLVED_BELOW, MIN_POWER - 0.01) == NOT_RESOLVED
    assert claim_verdict(RESOLVED_ABOVE, RESOLVED_BELOW, None) == NOT_RESOLVED
    assert claim_verdict(RESOLVED_ABOVE, NOT_RESOLVED, 0.99) == NOT_RESOLVED
    assert claim_verdict(EQUIVALENT, RESOLVED_BELOW, 0.9) == CONTRADICTS
    assert claim_verdict(EQUIVALENT, EQUIVALENT, None) == AGREES
    with pytest.raises(ValueError):
        claim_verdict(AGREES, RESOLVED_ABOVE, 0.9)


def test_expectation_verdict_has_one_threshold():
    assert expectation_verdict(z_score(1.0 + Z_AGREE * 0.1, 1.0, 0.1)) == MATCHES_EXPECTATION
    assert expectation_verdict(z_score(1.0 + 2.01 * 0.1, 1.0, 0.1)) == DEPARTS_EXPECTATION
    with pytest.raises(ValueError, match="identity"):
        z_score(1.0, 1.0, 0.0)


def test_verdicts_are_distinct():
    assert len(set(VERDICTS)) == len(VERDICTS) == 8


def test_direction_verdict_is_the_effect_rule_without_an_interval():
    assert direction_verdict(0.1, ALPHA) == RESOLVED_ABOVE
    assert direction_verdict(-0.1, ALPHA) == RESOLVED_BELOW
    assert direction_verdict(0.1, ALPHA + 1e-9) == NOT_RESOLVED
    assert direction_verdict(0.0, 0.0) == NOT_RESOLVED
    assert effect_verdict(0.1, 0.05, 0.2, 0.01, 0.02) == direction_verdict(0.1, 0.02)


def test_a_swap_needs_opposite_signs_and_both_orders_resolved():
    up, down, no = RESOLVED_ABOVE, RESOLVED_BELOW, NOT_RESOLVED
    assert swap_verdict(0.1, up, -0.1, down) == RESOLVED_SWAP
    assert swap_verdict(0.1, up, -0.1, no) == UNRESOLVED_SWAP
    assert swap_verdict(0.1, no, -0.1, no) == UNRESOLVED_SWAP
    assert swap_verdict(0.1, up, 0.2, up) == SAME_ORDER
    assert swap_verdict(0.0, no, -0.1, down) == SAME_ORDER
    assert set(SWAP_VERDICTS) == {SAME_ORDER, RESOLVED_SWAP, UNRESOLVED_SWAP}
    assert not set(SWAP_VERDICTS) & set(VERDICTS)
    with pytest.raises(ValueError, match="direction verdict"):
        swap_verdict(0.1, AGREES, -0.1, down)


def test_family_z_is_sidak_at_alpha_and_never_below_z_agree():
    assert family_z(1) == Z_AGREE  # 1.96 for a family of one, rounded up to the one threshold
    assert interval_z() == pytest.approx(1.959964, abs=1e-6)
    z10 = family_z(10)
    # the largest of 10 independent |z| stays below z10 with probability 1 - ALPHA
    p_one = 2 * (1 - NormalDist().cdf(z10))
    assert (1 - p_one) ** 10 == pytest.approx(1 - ALPHA)
    assert family_z(100) > z10 > Z_AGREE
    with pytest.raises(ValueError, match="n_tests"):
        family_z(0)
