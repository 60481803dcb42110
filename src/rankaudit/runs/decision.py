"""One decision standard: every verdict on an estimate, a paper's claim or an expectation.

A verdict is one of a small fixed set (:data:`VERDICTS`), a pure function of numbers the caller
states: the estimate, its confidence interval and p-value (from the same resampling, so the CI
excludes the null exactly when ``p <= alpha``;
:func:`rankaudit.runs.significance.dual_interval_test`), the p-value adjusted within a stated
family (Holm, 1979) and the power at the effect the claim is about (Cohen, 1988, ch. 2).

Effect            :func:`effect_verdict`: "resolved above zero" when ``p_holm <= alpha`` and the
                  estimate is positive, "resolved below zero" when ``p_holm <= alpha`` and it is
                  negative, otherwise "not resolved at this power". It refuses a CI and p-value
                  that disagree (a CI excluding the null with ``p > alpha``, or the reverse).
Equivalence       :func:`equivalence_verdict`: "equivalent within the margin" when the two
                  one-sided tests (Schuirmann, 1987) reject after adjustment
                  (``p_tost_holm <= alpha``), otherwise "not resolved at this power".
A paper's claim   :func:`claim_verdict`: "agrees with the paper" when the claimed verdict is the
                  one reached; "contradicts the paper" only when the opposite is resolved after
                  Holm *and* the power is at least :data:`MIN_POWER`; otherwise "not resolved at
                  this power". A row of a table and a claim about it use this same rule.
An expectation    :func:`expectation_verdict`: an observed value agrees with its expectation when
                  ``|z| = |observed - expected| / se <= Z_AGREE`` (one threshold for the whole
                  book), otherwise it departs from it. For the largest ``|z|`` of a stated family
                  of ``n`` comparisons the threshold is :func:`family_z` (Sidak, 1967: the level
                  ``ALPHA`` shared by the family), which is never below ``Z_AGREE``.
A test alone      :func:`direction_verdict`: the effect verdict of a test that has no interval
                  (a sign-flip p-value), by the same rule on ``p_holm``.
Two orders        :func:`swap_verdict`: a pair that two protocols order oppositely is a
                  "resolved swap" only when each order is resolved (:func:`direction_verdict`
                  on each side), an "unresolved swap" otherwise, and "same order" when the two
                  estimates do not have opposite signs.

Public API: the constants :data:`ALPHA`, :data:`MIN_POWER`, :data:`Z_AGREE`, the verdicts
(:data:`RESOLVED_ABOVE`, :data:`RESOLVED_BELOW`, :data:`NOT_RESOLVED`, :data:`EQUIVALENT`,
:data:`AGREES`, :data:`CONTRADICTS`, :data:`MATCHES_EXPECTATION`, :data:`DEPARTS_EXPECTATION`,
:data:`VERDICTS`), the words of two orders (:data:`SAME_ORDER`, :data:`RESOLVED_SWAP`,
:data:`UNRESOLVED_SWAP`, :data:`SWAP_VERDICTS`) and :func:`effect_verdict`,
:func:`direction_verdict`, :func:`equivalence_verdict`, :func:`claim_verdict`,
:func:`expectation_verdict`, :func:`swap_verdict`, :func:`family_z`, :func:`interval_z`,
:func:`z_score`.
"""

from __future__ import annotations

import math
from statistics import NormalDist

__all__ = [
    "AGREES",
    "ALPHA",
    "CONTRADICTS",
    "DEPARTS_EXPECTATION",
    "EQUIVALENT",
    "MATCHES_EXPECTATION",
    "MIN_POWER",
    "NOT_RESOLVED",
    "RESOLVED_ABOVE",
    "RESOLVED_BELOW",
    "RESOLVED_SWAP",
    "SAME_ORDER",
    "SWAP_VERDICTS",
    "UNRESOLVED_SWAP",
    "VERDICTS",
    "Z_AGREE",
    "claim_verdict",
    "direction_verdict",
    "effect_verdict",
    "equivalence_verdict",
    "expectation_verdict",
    "family_z",
    "interval_z",
    "swap_verdict",
    "z_score",
]

#: Level of every test (two-sided), after adjustment within the stated family.
ALPHA = 0.05
#: Power needed before a non-result counts against a claim (Cohen, 1988).
MIN_POWER = 0.8
#: Largest ``|z|`` (standard errors) at which an observed value agrees with its expectation:
#: the two-sided 95% normal quantile, 1.96, rounded to 2.
Z_AGREE = 2.0

RESOLVED_ABOVE = "resolved above zero"
RESOLVED_BELOW = "resolved below zero"
NOT_RESOLVED = "not resolved at this power"
EQUIVALENT = "equivalent within the margin"
AGREES = "agrees with the paper"
CONTRADICTS = "contradicts the paper"
MATCHES_EXPECTATION = "agrees with its expectation"
DEPARTS_EXPECTATION = "departs from its expectation"

#: Every verdict this module can return, in the order the decision page lists them.
VERDICTS: tuple[str, ...] = (
    RESOLVED_ABOVE,
    RESOLVED_BELOW,
    NOT_RESOLVED,
    EQUIVALENT,
    AGREES,
    CONTRADICTS,
    MATCHES_EXPECTATION,
    DEPARTS_EXPECTATION,
)

SAME_ORDER = "same order"
RESOLVED_SWAP = "resolved swap"
UNRESOLVED_SWAP = "unresolved swap"
#: What :func:`swap_verdict` can return: one pair under two orders (e.g. two protocols).
SWAP_VERDICTS: tuple[str, ...] = (SAME_ORDER, RESOLVED_SWAP, UNRESOLVED_SWAP)


def _finite(value: float, name: str) -> float:
    v = float(value)
    if not math.isfinite(v):
        raise ValueError(f"{name} must be a finite number, got {value!r}")
    return v


def _probability(value: float, name: str) -> float:
    v = _finite(value, name)
    if not 0.0 <= v <= 1.0:
        raise ValueError(f"{name} must lie in [0, 1], got {value!r}")
    return v


def _level(alpha: float) -> float:
    a = _finite(alpha, "alpha")
    if not 0.0 < a < 1.0:
        raise ValueError(f"alpha must lie in (0, 1), got {alpha!r}")
    return a


def effect_verdict(
    estimate: float,
    ci_low: float,
    ci_high: float,
    p_value: float,
    p_holm: float,
    *,
    alpha: float = ALPHA,
    null: float = 0.0,
) -> str:
    """:data:`RESOLVED_ABOVE`, :data:`RESOLVED_BELOW` or :data:`NOT_RESOLVED`.

    ``p_holm``: the p-value adjusted within the family the page states (pass ``p_value`` for a
    family of one). Resolved when ``p_holm <= alpha``, on the side of ``estimate``. Raises when
    the CI and the unadjusted test disagree (``ci`` excludes ``null`` but ``p > alpha``, or the
    reverse): they must come from one resampling.
    """
    est, lo, hi = (
        _finite(estimate, "estimate"),
        _finite(ci_low, "ci_low"),
        _finite(ci_high, "ci_high"),
    )
    p, ph, a, n0 = (
        _probability(p_value, "p_value"),
        _probability(p_holm, "p_holm"),
        _level(alpha),
        _finite(null, "null"),
    )
    if lo > hi:
        raise ValueError(f"ci_low must be <= ci_high, got {lo} > {hi}")
    if ph < p:
        raise ValueError(f"an adjusted p-value is never below the raw one: {ph} < {p}")
    excludes = lo > n0 or hi < n0
    if excludes != (p <= a):
        raise ValueError(
            f"CI [{lo}, {hi}] and p = {p} disagree at level {a}: they must come from the same "
            "resampling (rankaudit.runs.significance.dual_interval_test)"
        )
    return direction_verdict(est, ph, alpha=a, null=n0)


def direction_verdict(
    estimate: float, p_holm: float, *, alpha: float = ALPHA, null: float = 0.0
) -> str:
    """The verdict of :func:`effect_verdict` for a test without an interval (e.g. a sign-flip
    p-value): :data:`RESOLVED_ABOVE` or :data:`RESOLVED_BELOW` (the side of ``estimate``) when
    ``p_holm <= alpha``, else :data:`NOT_RESOLVED`."""
    est, ph, a, n0 = (
        _finite(estimate, "estimate"),
        _probability(p_holm, "p_holm"),
        _level(alpha),
        _finite(null, "null"),
    )
    if ph > a or est == n0:
        return NOT_RESOLVED
    return RESOLVED_ABOVE if est > n0 else RESOLVED_BELOW


def equivalence_verdict(p_tost: float, p_tost_holm: float, *, alpha: float = ALPHA) -> str:
    """:data:`EQUIVALENT` when the two one-sided tests reject after adjustment
    (``p_tost_holm <= alpha``), else :data:`NOT_RESOLVED`."""
    p, ph, a = (
        _probability(p_tost, "p_tost"),
        _probability(p_tost_holm, "p_tost_holm"),
        _level(alpha),
    )
    if ph < p:
        raise ValueError(f"an adjusted p-value is never below the raw one: {ph} < {p}")
    return EQUIVALENT if ph <= a else NOT_RESOLVED


def claim_verdict(
    claimed: str, reached: str, power: float | None, *, min_power: float = MIN_POWER
) -> str:
    """A paper's claim against the verdict its test reached.

    ``claimed``: the verdict the paper's sentence asserts (:data:`RESOLVED_ABOVE`,
    :data:`RESOLVED_BELOW` or :data:`EQUIVALENT`); ``reached``: what :func:`effect_verdict` or
    :func:`equivalence_verdict` returned for the same comparison; ``power``: the test's power at
    the paper's effect (None when unknown). :data:`AGREES` when ``reached == claimed``;
    :data:`CONTRADICTS` only when the opposite is resolved (the other side for a direction; a
    resolved difference for an equivalence) and ``power >= min_power``; else
    :data:`NOT_RESOLVED`.
    """
    if claimed not in (RESOLVED_ABOVE, RESOLVED_BELOW, EQUIVALENT):
        raise ValueError(f"claimed must be a direction or equivalence verdict, got {claimed!r}")
    if reached not in (RESOLVED_ABOVE, RESOLVED_BELOW, EQUIVALENT, NOT_RESOLVED):
        raise ValueError(f"reached must be a verdict of effect or equivalence, got {reached!r}")
    mp = _probability(min_power, "min_power")
    pw = None if power is None else _probability(power, "power")
    if reached == claimed:
        return AGREES
    opposite = {
        RESOLVED_ABOVE: (RESOLVED_BELOW,),
        RESOLVED_BELOW: (RESOLVED_ABOVE,),
        EQUIVALENT: (RESOLVED_ABOVE, RESOLVED_BELOW),
    }[claimed]
    if reached in opposite and pw is not None and pw >= mp:
        return CONTRADICTS
    return NOT_RESOLVED


def swap_verdict(estimate_a: float, verdict_a: str, estimate_b: float, verdict_b: str) -> str:
    """One pair's difference under two orders (``a`` and ``b``, e.g. two protocols), each with
    the verdict :func:`direction_verdict` or :func:`effect_verdict` reached for it.

    :data:`SAME_ORDER` when the estimates do not have opposite signs (one exactly 0 included);
    :data:`RESOLVED_SWAP` when they do and both verdicts are resolved; else
    :data:`UNRESOLVED_SWAP` (at least one order is within the noise of its test).
    """
    ea, eb = _finite(estimate_a, "estimate_a"), _finite(estimate_b, "estimate_b")
    directions = (RESOLVED_ABOVE, RESOLVED_BELOW, NOT_RESOLVED)
    for name, v in (("verdict_a", verdict_a), ("verdict_b", verdict_b)):
        if v not in directions:
            raise ValueError(f"{name} must be a direction verdict, got {v!r}")
    if not (ea > 0 > eb or ea < 0 < eb):  # signs, not a product that underflows to 0
        return SAME_ORDER
    resolved = verdict_a != NOT_RESOLVED and verdict_b != NOT_RESOLVED
    return RESOLVED_SWAP if resolved else UNRESOLVED_SWAP


def interval_z(alpha: float = ALPHA) -> float:
    """The two-sided normal quantile ``z_(1 - alpha/2)`` of a ``1 - alpha`` normal interval
    (1.96 at the default): the half-width of a band or a precision target in standard errors."""
    return NormalDist().inv_cdf(1.0 - _level(alpha) / 2.0)


def family_z(n_tests: int, *, alpha: float = ALPHA, z_min: float = Z_AGREE) -> float:
    """The ``|z|`` that the largest of ``n_tests`` independent standard normal z-scores stays
    at or below with probability ``1 - alpha`` (Sidak, 1967), and never below ``z_min``: the
    threshold :func:`expectation_verdict` reads a family's largest ``|z|`` against."""
    whole = not isinstance(n_tests, bool) and math.isfinite(n_tests) and n_tests == int(n_tests)
    if not whole or n_tests < 1:
        raise ValueError(f"n_tests must be a positive integer, got {n_tests!r}")
    n = int(n_tests)
    a = _level(alpha)
    sidak = NormalDist().inv_cdf(1.0 - (1.0 - (1.0 - a) ** (1.0 / n)) / 2.0)
    return max(sidak, _finite(z_min, "z_min"))


def z_score(observed: float, expected: float, se: float) -> float:
    """``(observed - expected) / se``; ``se`` must be positive (a zero standard error is an
    identity, not a test: the caller says so instead)."""
    o, e, s = _finite(observed, "observed"), _finite(expected, "expected"), _finite(se, "se")
    if s <= 0:
        raise ValueError(f"se must be > 0, got {se!r}: a zero spread is an identity, not a test")
    return (o - e) / s


def expectation_verdict(z: float, *, z_max: float = Z_AGREE) -> str:
    """:data:`MATCHES_EXPECTATION` when ``|z| <= z_max``, else :data:`DEPARTS_EXPECTATION`."""
    zz, zm = _finite(z, "z"), _finite(z_max, "z_max")
    if zm <= 0:
        raise ValueError(f"z_max must be > 0, got {z_max!r}")
    return MATCHES_EXPECTATION if abs(zz) <= zm else DEPARTS_EXPECTATION
