"""Paired significance over queries: bootstrap CI of a relative lift and a randomisation test.

Both resample *queries*, keeping each query's (baseline, variant) pair together, as recommended for
IR system comparisons (Smucker, Allan & Carterette, 2007, CIKM, "A comparison of statistical
significance tests for information retrieval evaluation"; Sakai, 2014, "Statistical reform in
information retrieval?", SIGIR Forum).

Lift (per cent)            ``L = 100 * (mean(v) / mean(b) - 1)`` over the ``n`` paired queries.
Paired bootstrap CI        resample queries with replacement ``B`` times (Efron & Tibshirani, 1993),
                           recompute ``L`` with the same resample for both systems, take the
                           ``alpha/2`` and ``1 - alpha/2`` percentiles. Vectorised: each resample is
                           a multinomial count vector ``w`` and ``mean = w @ x / n``.
Bootstrap test and CI      one resampling gives both (:func:`dual_interval_test`; Davison &
 from the same draws       Hinkley, 1997, "Bootstrap methods and their application", sections 4.4
                           and 5.2; Efron & Tibshirani, 1993, section 15.4). With the ``B`` sorted
                           draws ``s_(0) <= ... <= s_(B-1)``, ``k_lo = #{s <= null}`` and
                           ``k_hi = #{s >= null}``:
                           ``p = min(1, 2 (1 + min(k_lo, k_hi)) / (B + 1))``
                           and the CI is ``[s_(j), s_(B-1-j)]`` with ``j`` the largest integer for
                           which ``2 (1 + j) / (B + 1) <= alpha``. Then ``ci_low > null`` exactly
                           when ``k_lo <= j``, so *the CI excludes the null if and only if*
                           ``p <= alpha``: a CI that excludes 0 beside ``p > alpha`` cannot occur.
                           One-sided (TOST, :func:`equivalence_lift_difference`): ``p = (1 + k) /
                           (B + 1)`` and ``j`` the largest with ``(1 + j) / (B + 1) <= alpha``.
Paired randomisation test  H0: the labels "baseline"/"variant" are exchangeable within each query.
                           Statistic ``T = mean(v - b)``; each permutation flips the sign of every
                           ``d_q = v_q - b_q`` independently (Fisher, 1935; Smucker et al., 2007).
                           Two-sided ``p = (1 + #{|T*| >= |T|}) / (1 + P)``. ``T`` and the lift have
                           the same sign because ``mean(b) > 0`` for MRR.  Differences of rounding
                           alone (every ``|d_q|`` within
                           :func:`rankaudit.measures.list_evaluate.rounding_tolerance` of the
                           values) are no difference: ``p = 1``, as for all-zero differences.

Exact sign-flip test       for small ``n``, all ``2**n`` sign vectors
                           (:func:`exact_sign_flip_pvalue`): the p-value the randomisation test
                           estimates, ``#{|T*| >= |T|} / 2**n``.
Multiple comparisons       adjusted p-values for ``m`` hypotheses tested together; reject ``i`` when
                           ``adjusted_i <= alpha``.  Bonferroni ``min(1, m p_i)``; Holm (1979,
                           Scand. J. Statist. 6:65-70), step-down, ``max_{j <= r(i)} min(1, (m - j +
                           1) p_(j))``; both control the family-wise error rate.  Benjamini &
                           Hochberg (1995, JRSS B 57:289-300), step-up, ``min_{j >= r(i)} min(1, m
                           p_(j) / j)``, controls the false discovery rate for independent or
                           positively dependent tests.


Difference of two lifts   ``D = L_a - L_b = 100 * (mean(a) - mean(b)) / mean(b0)`` for two variants
                           ``a``, ``b`` over the same baseline ``b0`` (percentage points); the
                           bootstrap resamples the triple ``(b0, a, b)`` of each query together, the
                           sign-flip test uses ``a_q - b_q``.

Equivalence of two lifts  two one-sided tests of ``|D| >= margin`` on the same bootstrap draws
                           (:func:`equivalence_lift_difference`).

Public API: :func:`lift_pct`, :func:`equivalence_lift_difference`, :func:`paired_bootstrap_lift`,
:func:`paired_bootstrap_test`, :func:`dual_interval_test`, :func:`paired_randomisation_test`,
:func:`paired_lift_difference`, :func:`exact_sign_flip_pvalue`, :func:`bonferroni_adjust`,
:func:`holm_adjust`, :func:`bh_adjust`.
"""

from __future__ import annotations

import numpy as np

from rankaudit._checks import BOOTSTRAP_RESAMPLES, SIGN_FLIPS, check_count, check_int
from rankaudit.measures.list_evaluate import rounding_tolerance

__all__ = [
    "bh_adjust",
    "bonferroni_adjust",
    "dual_interval_test",
    "equivalence_lift_difference",
    "exact_sign_flip_pvalue",
    "holm_adjust",
    "lift_pct",
    "paired_bootstrap_lift",
    "paired_bootstrap_test",
    "paired_lift_difference",
    "paired_randomisation_test",
]

#: Largest number of queries :func:`exact_sign_flip_pvalue` enumerates (2**20 sign vectors).
MAX_EXACT_N = 20
#: Largest block of resamples drawn at once (``chunk``): a block is ``chunk x n`` numbers.
MAX_CHUNK = 10_000


def _check_pair(base: np.ndarray, variant: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    b = np.asarray(base, dtype=np.float64)
    v = np.asarray(variant, dtype=np.float64)
    if b.ndim != 1 or b.shape != v.shape:
        raise ValueError(
            f"base and variant must be 1-D and paired (same length), got {b.shape} and {v.shape}"
        )
    if len(b) == 0:
        raise ValueError("base and variant are empty: no queries to compare")
    for name, x in (("base", b), ("variant", v)):
        bad = np.flatnonzero(~np.isfinite(x))
        if len(bad):
            raise ValueError(f"{name} has a non-finite value at position {bad[0]}")
    return b, v


def _rounding_alone(base: np.ndarray, variant: np.ndarray, d: np.ndarray) -> bool:
    """Whether every paired difference is within the rounding of the values (no difference)."""
    return bool(np.all(np.abs(d) <= rounding_tolerance(base, variant)))


def lift_pct(base: np.ndarray, variant: np.ndarray) -> float:
    """``100 * (mean(variant) / mean(base) - 1)``."""
    b, v = _check_pair(base, variant)
    if b.mean() <= 0:
        raise ValueError("mean(base) must be > 0 for a relative lift")
    return float(100.0 * (v.mean() / b.mean() - 1.0))


def _lift_draws(
    b: np.ndarray, v: np.ndarray, n_boot: int, seed: int, chunk: int, alpha: float
) -> np.ndarray:
    """The ``n_boot`` paired bootstrap draws of the lift (whole queries resampled), finite ones;
    the resampling arguments (``alpha`` included, for the interval drawn from them) checked."""
    n_boot = check_count(n_boot, "n_boot", BOOTSTRAP_RESAMPLES)
    chunk = check_int(chunk, "chunk", lo=1, hi=MAX_CHUNK)
    if not 0 < alpha < 1:
        raise ValueError(f"need 0 < alpha < 1, got alpha={alpha}")
    n = len(b)
    rng = np.random.default_rng(seed)
    xs = np.column_stack([b, v])
    stats = np.empty(n_boot)
    p = np.full(n, 1.0 / n)
    for lo in range(0, n_boot, chunk):
        m = min(chunk, n_boot - lo)
        w = rng.multinomial(n, p, size=m).astype(np.float64)
        means = w @ xs  # (m, 2) sums
        with np.errstate(divide="ignore", invalid="ignore"):
            stats[lo : lo + m] = 100.0 * (means[:, 1] / means[:, 0] - 1.0)
    return stats[np.isfinite(stats)]


def paired_bootstrap_lift(
    base: np.ndarray,
    variant: np.ndarray,
    *,
    n_boot: int = 2000,
    seed: int = 0,
    alpha: float = 0.05,
    chunk: int = 250,
) -> tuple[float, float, float]:
    """``(lift, ci_low, ci_high)`` in per cent: percentile CI from ``n_boot`` paired query
    resamples (``1 <= n_boot <= BOOTSTRAP_RESAMPLES.most``, drawn ``chunk`` at a time)."""
    b, v = _check_pair(base, variant)
    stats = _lift_draws(b, v, n_boot, seed, chunk, alpha)
    lo_q, hi_q = np.quantile(stats, [alpha / 2, 1 - alpha / 2])
    return lift_pct(b, v), float(lo_q), float(hi_q)


def _order_index(n_draws: int, alpha: float, sides: int) -> int:
    """The largest ``j >= 0`` with ``sides * (1 + j) / (n_draws + 1) <= alpha`` (the float
    expression the p-value uses, so the two agree bit for bit)."""
    j = int(alpha * (n_draws + 1) / sides) - 1
    while j + 1 < n_draws and sides * (1 + (j + 1)) / (n_draws + 1) <= alpha:
        j += 1
    while j >= 0 and sides * (1 + j) / (n_draws + 1) > alpha:
        j -= 1
    if j < 0:
        need = int(np.ceil(sides / alpha)) - 1
        raise ValueError(
            f"{n_draws} bootstrap draws cannot reach level {alpha}: need at least {need}"
        )
    return j


def dual_interval_test(
    draws: np.ndarray, *, null: float = 0.0, alpha: float = 0.05
) -> tuple[float, float, float]:
    """``(ci_low, ci_high, p)`` from one set of bootstrap draws, dual by construction.

    Two-sided (module docstring): ``p = min(1, 2 (1 + min(k_lo, k_hi)) / (B + 1))`` with
    ``k_lo = #{draws <= null}``, ``k_hi = #{draws >= null}``, and the CI ``[s_(j), s_(B-1-j)]``
    of the sorted draws, ``j`` the largest integer with ``2 (1 + j) / (B + 1) <= alpha``. The CI
    excludes ``null`` exactly when ``p <= alpha`` (Davison & Hinkley, 1997, section 4.4).
    """
    s = np.sort(np.asarray(draws, dtype=np.float64))
    if s.ndim != 1 or len(s) == 0 or not np.isfinite(s).all():
        raise ValueError("draws must be a non-empty 1-D array of finite numbers")
    if not 0 < alpha < 1:
        raise ValueError(f"need 0 < alpha < 1, got alpha={alpha}")
    n = len(s)
    j = _order_index(n, alpha, 2)
    k = min(int(np.sum(s <= null)), int(np.sum(s >= null)))
    p = min(1.0, 2 * (1 + k) / (n + 1))
    return float(s[j]), float(s[n - 1 - j]), float(p)


def paired_bootstrap_test(
    base: np.ndarray,
    variant: np.ndarray,
    *,
    n_boot: int = 2000,
    seed: int = 0,
    alpha: float = 0.05,
    chunk: int = 250,
) -> tuple[float, float, float, float]:
    """``(lift, ci_low, ci_high, p)``: the lift in per cent, its CI and its two-sided p-value,
    all from the same ``n_boot`` paired query resamples (:func:`dual_interval_test`), so the CI
    excludes 0 exactly when ``p <= alpha``. Differences of rounding alone are no difference:
    ``p = 1`` and the CI is widened to include 0."""
    b, v = _check_pair(base, variant)
    lift = lift_pct(b, v)
    lo, hi, p = dual_interval_test(_lift_draws(b, v, n_boot, seed, chunk, alpha), alpha=alpha)
    if _rounding_alone(b, v, v - b):
        return lift, min(lo, 0.0), max(hi, 0.0), 1.0
    return lift, lo, hi, p


def paired_randomisation_test(
    base: np.ndarray, variant: np.ndarray, *, n_perm: int = 10000, seed: int = 0, chunk: int = 500
) -> float:
    """Two-sided sign-flip randomisation p-value of ``mean(variant - base)`` (module docstring),
    from ``1 <= n_perm <= SIGN_FLIPS.most`` sign vectors drawn ``chunk`` at a time."""
    b, v = _check_pair(base, variant)
    n_perm = check_count(n_perm, "n_perm", SIGN_FLIPS)
    chunk = check_int(chunk, "chunk", lo=1, hi=MAX_CHUNK)
    d = v - b
    if _rounding_alone(b, v, d):
        return 1.0
    t_obs = abs(d.mean())
    rng = np.random.default_rng(seed)
    n = len(d)
    hits = 0
    tol = 1e-12 * max(1.0, float(np.abs(d).sum()) / n)
    for lo in range(0, n_perm, chunk):
        m = min(chunk, n_perm - lo)
        signs = rng.integers(0, 2, size=(m, n), dtype=np.int8) * 2 - 1
        t = np.abs(signs @ d) / n
        hits += int(np.sum(t >= t_obs - tol))
    return (1 + hits) / (1 + n_perm)


def exact_sign_flip_pvalue(base: np.ndarray, variant: np.ndarray) -> float:
    """Two-sided sign-flip p-value over all ``2**n`` sign vectors (``n <= MAX_EXACT_N`` queries).

    ``p = #{s in {-1, 1}^n : |mean(s * d)| >= |mean(d)|} / 2**n`` with ``d = variant - base``: the
    exact value that :func:`paired_randomisation_test` estimates by sampling sign vectors.
    """
    b, v = _check_pair(base, variant)
    n = len(b)
    if n > MAX_EXACT_N:
        raise ValueError(
            f"exact enumeration needs at most {MAX_EXACT_N} queries, got {n}; "
            "use paired_randomisation_test"
        )
    d = v - b
    if _rounding_alone(b, v, d):
        return 1.0
    codes = np.arange(2**n, dtype=np.int64)[:, None]
    signs = ((codes >> np.arange(n)) & 1) * 2 - 1
    t = np.abs(signs @ d) / n
    tol = 1e-12 * max(1.0, float(np.abs(d).sum()) / n)
    return float(np.mean(t >= abs(d.mean()) - tol))


def _check_pvalues(pvalues: np.ndarray) -> np.ndarray:
    p = np.asarray(pvalues, dtype=np.float64)
    if p.ndim != 1 or len(p) == 0:
        raise ValueError(f"pvalues must be a non-empty 1-D array, got shape {p.shape}")
    bad = np.flatnonzero(~((p >= 0) & (p <= 1)))
    if len(bad):
        raise ValueError(f"pvalues must lie in [0, 1]; position {bad[0]} is {p[bad[0]]}")
    return p


def bonferroni_adjust(pvalues: np.ndarray) -> np.ndarray:
    """Bonferroni-adjusted p-values ``min(1, m p_i)`` (family-wise error rate)."""
    p = _check_pvalues(pvalues)
    return np.minimum(1.0, len(p) * p)


def holm_adjust(pvalues: np.ndarray) -> np.ndarray:
    """Holm step-down adjusted p-values, in the input order (family-wise error rate)."""
    p = _check_pvalues(pvalues)
    m = len(p)
    order = np.argsort(p, kind="stable")
    stepped = np.minimum(1.0, (m - np.arange(m)) * p[order])
    adjusted = np.empty(m)
    adjusted[order] = np.maximum.accumulate(stepped)
    return adjusted


def bh_adjust(pvalues: np.ndarray) -> np.ndarray:
    """Benjamini-Hochberg step-up adjusted p-values, in the input order (false discovery rate)."""
    p = _check_pvalues(pvalues)
    m = len(p)
    order = np.argsort(p, kind="stable")
    stepped = np.minimum(1.0, m * p[order] / np.arange(1, m + 1))
    adjusted = np.empty(m)
    adjusted[order] = np.minimum.accumulate(stepped[::-1])[::-1]
    return adjusted


def paired_lift_difference(
    base: np.ndarray,
    a: np.ndarray,
    b: np.ndarray,
    *,
    n_boot: int = 2000,
    seed: int = 0,
    alpha: float = 0.05,
) -> tuple[float, float, float, float]:
    """``(diff, ci_low, ci_high, p)``: lift of ``a`` minus lift of ``b`` over ``base``, in points.

    The CI and the two-sided p-value come from the same ``n_boot`` resamples of whole queries
    (:func:`dual_interval_test`), so the CI excludes 0 exactly when ``p <= alpha``; differences
    of rounding alone between ``a`` and ``b`` give ``p = 1`` and a CI widened to include 0.
    """
    b0, va = _check_pair(base, a)
    _, vb = _check_pair(base, b)
    if b0.mean() <= 0:
        raise ValueError("mean(base) must be > 0 for a relative lift")
    n_boot = check_count(n_boot, "n_boot", BOOTSTRAP_RESAMPLES)
    if not 0 < alpha < 1:
        raise ValueError(f"need 0 < alpha < 1, got alpha={alpha}")
    diff, stats = _difference_draws(b0, va, vb, n_boot, seed)
    lo, hi, p = dual_interval_test(stats, alpha=alpha)
    if _rounding_alone(vb, va, va - vb):
        return diff, min(lo, 0.0), max(hi, 0.0), 1.0
    return diff, lo, hi, p


def _difference_draws(
    b0: np.ndarray, va: np.ndarray, vb: np.ndarray, n_boot: int, seed: int
) -> tuple[float, np.ndarray]:
    """``L_a - L_b`` and its ``n_boot`` paired bootstrap draws (whole queries resampled)."""
    diff = float(100.0 * (va.mean() - vb.mean()) / b0.mean())
    n = len(b0)
    rng = np.random.default_rng(seed)
    xs = np.column_stack([b0, va, vb])
    stats = np.empty(n_boot)
    p = np.full(n, 1.0 / n)
    for lo in range(0, n_boot, 250):
        m = min(250, n_boot - lo)
        sums = rng.multinomial(n, p, size=m).astype(np.float64) @ xs
        with np.errstate(divide="ignore", invalid="ignore"):
            stats[lo : lo + m] = 100.0 * (sums[:, 1] - sums[:, 2]) / sums[:, 0]
    return diff, stats[np.isfinite(stats)]


def equivalence_lift_difference(
    base: np.ndarray,
    a: np.ndarray,
    b: np.ndarray,
    *,
    margin_pct: float,
    n_boot: int = 2000,
    seed: int = 0,
    alpha: float = 0.05,
) -> tuple[float, float, float, float]:
    """``(diff, ci_low, ci_high, p_tost)``: are the lifts of ``a`` and ``b`` within a margin?

    Two one-sided tests (Schuirmann, 1987, J. Pharmacokinet. Biopharm. 15:657-680) of
    H0: ``|L_a - L_b| >= margin_pct`` (percentage points of lift) on the paired bootstrap draws
    ``D*`` of :func:`paired_lift_difference`: ``p_lower = (1 + #{D* <= -margin}) / (1 + B)``,
    ``p_upper = (1 + #{D* >= margin}) / (1 + B)``, ``p_tost = max(p_lower, p_upper)``.
    The returned ``1 - 2 alpha`` CI is ``[s_(j), s_(B-1-j)]`` of the sorted draws, ``j`` the
    largest integer with ``(1 + j) / (B + 1) <= alpha`` (module docstring), so equivalence at
    level ``alpha`` (``p_tost <= alpha``) holds exactly when the CI lies inside
    ``(-margin, margin)``.
    """
    b0, va = _check_pair(base, a)
    _, vb = _check_pair(base, b)
    if b0.mean() <= 0:
        raise ValueError("mean(base) must be > 0 for a relative lift")
    if not margin_pct > 0 or not np.isfinite(margin_pct):
        raise ValueError(f"margin_pct must be a finite number > 0, got {margin_pct!r}")
    n_boot = check_count(n_boot, "n_boot", BOOTSTRAP_RESAMPLES)
    if not 0 < alpha < 0.5:
        raise ValueError(f"need 0 < alpha < 0.5, got alpha={alpha}")
    diff, stats = _difference_draws(b0, va, vb, n_boot, seed)
    s = np.sort(stats)
    n = len(s)
    j = _order_index(n, alpha, 1)
    p_lower = (1 + int(np.sum(s <= -margin_pct))) / (1 + n)
    p_upper = (1 + int(np.sum(s >= margin_pct))) / (1 + n)
    return diff, float(s[j]), float(s[n - 1 - j]), float(max(p_lower, p_upper))
