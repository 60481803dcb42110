"""Power of a paired per-query comparison, computed from the run's own per-query differences.

A Table 1 row compares a variant with its baseline on the same ``n`` test queries. With per-query
reciprocal ranks ``b_q`` (baseline) and ``v_q`` (variant), the test statistic is the mean paired
difference ``d = mean(v_q - b_q)``; a relative lift of ``L`` per cent is a difference of
``delta = L / 100 * mean(b)``. For large ``n`` the mean difference is normal with standard error
``sd / sqrt(n)``, ``sd`` the standard deviation of ``v_q - b_q``, so a two-sided level-``alpha``
test has power (Cohen, 1988, "Statistical power analysis for the behavioral sciences", ch. 2; Sakai,
2016, "Statistical significance, power, and sample sizes", SIGIR)

    ``power(delta) = Phi(sqrt(n) |delta| / sd - z_{1-alpha/2}) + Phi(-sqrt(n) |delta| / sd -
    z_{1-alpha/2})``

and the number of paired queries that reaches power ``1 - beta`` is

    ``n_needed = ((z_{1-alpha/2} + z_{1-beta}) * sd / delta) ** 2``

(the power term ``z_{1-beta}`` is what makes 80% power need about twice the queries of a CI
half-width equal to ``delta``, which corresponds to 50% power).

The share of the oracle's lift a feature recovers is ``share = L_feature / L_oracle``
(:mod:`rankbook.context.oracle`): 1 means the feature recovers all the context the oracle uses.

Public API: :func:`power_paired`, :func:`n_needed`, :func:`paired_sd`, :func:`power_report`,
:func:`share_of_oracle`.
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np
import pandas as pd
from scipy.stats import norm

from rankaudit.runs.decision import ALPHA, MIN_POWER

__all__ = ["n_needed", "paired_sd", "power_paired", "power_report", "share_of_oracle"]


def _check_level(alpha: float, power: float | None = None) -> None:
    if not 0 < alpha < 1:
        raise ValueError(f"alpha must be in (0, 1), got {alpha}")
    if power is not None and not 0 < power < 1:
        raise ValueError(f"power must be in (0, 1), got {power}")


def power_paired(delta: float, sd: float, n: float, *, alpha: float = ALPHA) -> float:
    """Two-sided power of the paired mean-difference test (module docstring) for effect
    ``delta``."""
    _check_level(alpha)
    if sd <= 0 or not np.isfinite(sd):
        raise ValueError(f"sd must be positive and finite, got {sd}")
    if n < 1:
        raise ValueError(f"n must be >= 1, got {n}")
    z = norm.ppf(1 - alpha / 2)
    shift = np.sqrt(n) * abs(delta) / sd
    return float(norm.cdf(shift - z) + norm.cdf(-shift - z))


def n_needed(delta: float, sd: float, *, alpha: float = ALPHA, power: float = MIN_POWER) -> int:
    """Paired queries for power ``power`` at effect ``delta``: ``((z_{1-a/2} + z_power) sd /
    delta)^2``."""
    _check_level(alpha, power)
    if sd <= 0 or not np.isfinite(sd):
        raise ValueError(f"sd must be positive and finite, got {sd}")
    if delta == 0 or not np.isfinite(delta):
        raise ValueError(f"delta must be non-zero and finite, got {delta}")
    z = norm.ppf(1 - alpha / 2) + norm.ppf(power)
    return int(np.ceil((z * sd / abs(delta)) ** 2))


def paired_sd(base: np.ndarray, variant: np.ndarray) -> float:
    """Standard deviation (ddof 1) of the per-query differences ``variant - base``."""
    b = np.asarray(base, dtype=np.float64)
    v = np.asarray(variant, dtype=np.float64)
    if b.ndim != 1 or b.shape != v.shape or len(b) < 2:
        raise ValueError(
            f"base and variant must be paired 1-D arrays of >= 2 queries, got {b.shape}, {v.shape}"
        )
    if not (np.isfinite(b).all() and np.isfinite(v).all()):
        raise ValueError("base and variant must be finite")
    return float(np.std(v - b, ddof=1))


def share_of_oracle(lift_pct: float, oracle_lift_pct: float) -> float | None:
    """``lift / oracle lift``; None when the oracle's lift is not positive (no ceiling to share)."""
    if not np.isfinite(oracle_lift_pct) or oracle_lift_pct <= 0:
        return None
    return float(lift_pct / oracle_lift_pct)


def power_report(
    rr: pd.DataFrame,
    rows: pd.DataFrame,
    targets_pct: Mapping[str, float],
    *,
    alpha: float = ALPHA,
    power: float = MIN_POWER,
) -> pd.DataFrame:
    """Power of this run for each target lift, and the queries needed for ``power``.

    ``rr``: per-query RR, one column per feature set (e.g. seed-averaged, rows = test queries with a
    sale); ``rows``: the ablation table (``variant``, ``baseline``), whose rows give the per-query
    difference variance; ``targets_pct``: name -> relative lift in per cent to detect. The ``sd`` of
    a target named like a row is that row's; otherwise the median ``sd`` over all rows. ``delta`` is
    the lift applied to the MRR of the MLR baseline (first row's baseline).
    """
    for col in ("variant", "baseline"):
        if col not in rows:
            raise ValueError(f"rows needs a {col!r} column (AblationResult.table)")
    missing = sorted({*rows.variant, *rows.baseline} - set(rr.columns))
    if missing:
        raise ValueError(f"rr has no column for feature set(s) {missing}")
    n = len(rr)
    sds = {
        r.variant: paired_sd(rr[r.baseline].to_numpy(), rr[r.variant].to_numpy())
        for r in rows.itertuples()
    }
    sd_median = float(np.median(list(sds.values())))
    base_mrr = float(rr[rows.baseline.iloc[0]].mean())
    out = []
    for name, lift in targets_pct.items():
        sd = sds.get(name, sd_median)
        delta = lift / 100.0 * base_mrr
        out.append(
            {
                "target": name,
                "lift_pct": float(lift),
                "delta_rr": delta,
                "sd_diff": sd,
                "n_queries": n,
                "power": power_paired(delta, sd, n, alpha=alpha),
                "n_needed": n_needed(delta, sd, alpha=alpha, power=power),
            }
        )
    return pd.DataFrame(out)
