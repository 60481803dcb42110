"""The decision standard at each threshold, just below and just above it, and NaN and the
infinities refused naming the argument (``rankaudit.runs.decision``).

Thresholds are the module's (``ALPHA``, ``MIN_POWER``, ``Z_AGREE``, ``family_z``); "just below"
and "just above" are the neighbouring floats, so a ``<`` that should be ``<=`` fails here.
"""

from __future__ import annotations

import pytest

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
    UNRESOLVED_SWAP,
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
from tests.thresholds import NON_FINITE, above, below


@pytest.mark.parametrize("alpha", [ALPHA, 0.01, 0.2])
@pytest.mark.parametrize(
    "p_holm, estimate, verdict",
    [
        ("at", 0.3, RESOLVED_ABOVE),
        ("below", 0.3, RESOLVED_ABOVE),
        ("above", 0.3, NOT_RESOLVED),
        ("at", -0.3, RESOLVED_BELOW),
        ("above", -0.3, NOT_RESOLVED),
        ("at", 0.0, NOT_RESOLVED),  # no side to resolve on
    ],
)
def test_direction_verdict_at_and_beside_alpha(alpha, p_holm, estimate, verdict):
    p = {"at": alpha, "below": below(alpha), "above": above(alpha)}[p_holm]
    assert direction_verdict(estimate, p, alpha=alpha) == verdict


@pytest.mark.parametrize("null", [0.0, 0.5])
def test_effect_verdict_at_and_beside_alpha_and_the_null(null):
    # the CI excludes the null exactly when p <= alpha: a CI touching the null includes it
    up = (null + 0.3, above(null), null + 0.6)
    assert effect_verdict(*up, ALPHA, ALPHA, null=null) == RESOLVED_ABOVE
    assert effect_verdict(*up, ALPHA, above(ALPHA), null=null) == NOT_RESOLVED  # Holm
    assert effect_verdict(null - 0.3, null - 0.6, below(null), ALPHA, ALPHA, null=null) == (
        RESOLVED_BELOW
    )
    assert effect_verdict(null + 0.3, null, null + 0.6, above(ALPHA), 1.0, null=null) == (
        NOT_RESOLVED
    )
    with pytest.raises(ValueError, match="disagree"):  # touching the null, yet p <= alpha
        effect_verdict(null + 0.3, null, null + 0.6, ALPHA, ALPHA, null=null)
    with pytest.raises(ValueError, match="disagree"):  # beside the null, yet p > alpha
        effect_verdict(*up, above(ALPHA), above(ALPHA), null=null)
    with pytest.raises(ValueError, match="never below"):
        effect_verdict(*up, ALPHA, below(ALPHA), null=null)
    with pytest.raises(ValueError, match="ci_low"):
        effect_verdict(null, above(null), null, 0.5, 0.5, null=null)


@pytest.mark.parametrize(
    "p_holm, verdict",
    [(ALPHA, EQUIVALENT), (below(ALPHA), EQUIVALENT), (above(ALPHA), NOT_RESOLVED)],
)
def test_equivalence_verdict_at_and_beside_alpha(p_holm, verdict):
    assert equivalence_verdict(min(p_holm, 0.01), p_holm) == verdict


@pytest.mark.parametrize(
    "claimed, reached",
    [(RESOLVED_ABOVE, RESOLVED_BELOW), (RESOLVED_BELOW, RESOLVED_ABOVE),
     (EQUIVALENT, RESOLVED_ABOVE), (EQUIVALENT, RESOLVED_BELOW)],
)
def test_claim_verdict_contradicts_from_min_power_on(claimed, reached):
    assert claim_verdict(claimed, reached, MIN_POWER) == CONTRADICTS
    assert claim_verdict(claimed, reached, above(MIN_POWER)) == CONTRADICTS
    assert claim_verdict(claimed, reached, below(MIN_POWER)) == NOT_RESOLVED
    assert claim_verdict(claimed, reached, None) == NOT_RESOLVED
    assert claim_verdict(claimed, claimed, 0.0) == AGREES
    assert claim_verdict(claimed, NOT_RESOLVED, 1.0) == NOT_RESOLVED


@pytest.mark.parametrize("z_max", [Z_AGREE, family_z(10), 3.0])
def test_expectation_verdict_at_and_beside_its_threshold(z_max):
    for z in (z_max, -z_max, below(z_max), above(-z_max), 0.0):
        assert expectation_verdict(z, z_max=z_max) == MATCHES_EXPECTATION
    for z in (above(z_max), below(-z_max)):
        assert expectation_verdict(z, z_max=z_max) == DEPARTS_EXPECTATION


def test_expectation_verdict_default_is_z_agree():
    assert expectation_verdict(Z_AGREE) == MATCHES_EXPECTATION
    assert expectation_verdict(above(Z_AGREE)) == DEPARTS_EXPECTATION


@pytest.mark.parametrize("n", [1, 2, 5, 20, 1000])
def test_family_z_never_below_z_agree_and_grows_with_n(n):
    z = family_z(n)
    assert z >= Z_AGREE
    assert family_z(n + 1) >= z
    assert family_z(n, z_min=0.0) == pytest.approx(interval_z(1 - (1 - ALPHA) ** (1 / n)))


@pytest.mark.parametrize(
    "a, b, verdict",
    [((0.1, RESOLVED_ABOVE), (-0.1, RESOLVED_BELOW), RESOLVED_SWAP),
     ((0.1, RESOLVED_ABOVE), (-0.1, NOT_RESOLVED), UNRESOLVED_SWAP),
     ((5e-324, NOT_RESOLVED), (-5e-324, NOT_RESOLVED), UNRESOLVED_SWAP),  # beside zero
     ((0.0, NOT_RESOLVED), (-0.1, RESOLVED_BELOW), SAME_ORDER),  # at zero: no order to swap
     ((0.1, RESOLVED_ABOVE), (0.2, RESOLVED_ABOVE), SAME_ORDER)],
)
def test_swap_verdict_at_and_beside_zero(a, b, verdict):
    assert swap_verdict(*a, *b) == verdict
    assert swap_verdict(*b, *a) == verdict


def test_z_score_needs_a_positive_spread():
    assert z_score(1.0, 0.0, 0.5) == 2.0
    for se in (0.0, -0.1):
        with pytest.raises(ValueError, match="se must be > 0"):
            z_score(1.0, 0.0, se)


#: (call, the argument's name): each call puts its argument ``x`` where that argument goes.
REFUSALS = [
    (lambda x: effect_verdict(x, 0.1, 0.5, 0.01, 0.02), "estimate"),
    (lambda x: effect_verdict(0.3, x, 0.5, 0.01, 0.02), "ci_low"),
    (lambda x: effect_verdict(0.3, 0.1, x, 0.01, 0.02), "ci_high"),
    (lambda x: effect_verdict(0.3, 0.1, 0.5, x, 0.02), "p_value"),
    (lambda x: effect_verdict(0.3, 0.1, 0.5, 0.01, x), "p_holm"),
    (lambda x: effect_verdict(0.3, 0.1, 0.5, 0.01, 0.02, alpha=x), "alpha"),
    (lambda x: effect_verdict(0.3, 0.1, 0.5, 0.01, 0.02, null=x), "null"),
    (lambda x: direction_verdict(x, 0.01), "estimate"),
    (lambda x: direction_verdict(0.3, x), "p_holm"),
    (lambda x: direction_verdict(0.3, 0.01, alpha=x), "alpha"),
    (lambda x: direction_verdict(0.3, 0.01, null=x), "null"),
    (lambda x: equivalence_verdict(x, 0.02), "p_tost"),
    (lambda x: equivalence_verdict(0.01, x), "p_tost_holm"),
    (lambda x: equivalence_verdict(0.01, 0.02, alpha=x), "alpha"),
    (lambda x: claim_verdict(RESOLVED_ABOVE, RESOLVED_BELOW, x), "power"),
    (lambda x: claim_verdict(RESOLVED_ABOVE, RESOLVED_BELOW, 0.9, min_power=x), "min_power"),
    (lambda x: swap_verdict(x, RESOLVED_ABOVE, -0.1, RESOLVED_BELOW), "estimate_a"),
    (lambda x: swap_verdict(0.1, RESOLVED_ABOVE, x, RESOLVED_BELOW), "estimate_b"),
    (lambda x: interval_z(x), "alpha"),
    (lambda x: family_z(x), "n_tests"),
    (lambda x: family_z(5, alpha=x), "alpha"),
    (lambda x: family_z(5, z_min=x), "z_min"),
    (lambda x: z_score(x, 0.0, 1.0), "observed"),
    (lambda x: z_score(1.0, x, 1.0), "expected"),
    (lambda x: z_score(1.0, 0.0, x), "se"),
    (lambda x: expectation_verdict(x), "z"),
    (lambda x: expectation_verdict(1.0, z_max=x), "z_max"),
]


@pytest.mark.parametrize("bad", NON_FINITE, ids=["nan", "inf", "-inf"])
@pytest.mark.parametrize(
    "call, name", REFUSALS, ids=[f"{i}-{n}" for i, (_, n) in enumerate(REFUSALS)]
)
def test_non_finite_input_is_refused_naming_its_argument(call, name, bad):
    with pytest.raises(ValueError) as err:
        call(bad)
    assert name in str(err.value), str(err.value)
