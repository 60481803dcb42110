"""Several variants against one baseline on the same queries: lifts, CIs, p-values, corrections.

:func:`compare_variants` is what a results table with 8-10 rows does: for each variant, the
relative lift of the mean per-query metric with its paired bootstrap CI and its two-sided
p-value, both read off the *same* paired query resamples
(:func:`rankaudit.runs.significance.paired_bootstrap_test`, Efron & Tibshirani 1993; Davison &
Hinkley 1997, sections 4.4 and 5.2), so a row's CI excludes 0 exactly when its ``p <= alpha``,
as the decision standard requires (:mod:`rankaudit.runs.decision`); then the p-values of all
rows adjusted together (Bonferroni; Holm 1979; Benjamini & Hochberg 1995).

:func:`simulate_paired_rr` makes a small worked example with a known truth. Query ``q`` has a
difficulty ``p_q ~ Beta(a, b)``; a system's rank of the sold item is ``min(Geometric(p), n)``
and its reciprocal rank ``1 / rank``. The baseline draws with ``p_q``; variant ``j`` with
``min(1, p_q (1 + effect_j))``. A variant with ``effect_j = 0`` draws from the baseline's
distribution independently given ``p_q``, so (baseline, variant) are exchangeable within each
query: exactly the sign-flip test's null hypothesis. A positive effect moves the rank up.

Public API: :func:`simulate_paired_rr`, :func:`compare_variants`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np
import pandas as pd

from rankaudit._checks import check_int
from rankaudit.runs.decision import ALPHA
from rankaudit.runs.significance import (
    bh_adjust,
    bonferroni_adjust,
    holm_adjust,
    paired_bootstrap_test,
)

__all__ = ["compare_variants", "simulate_paired_rr"]


def simulate_paired_rr(
    n_queries: int,
    effects: Mapping[str, float],
    *,
    seed: int = 0,
    serp_size: int = 20,
    difficulty: tuple[float, float] = (1.5, 3.0),
) -> pd.DataFrame:
    """Per-query reciprocal ranks of a baseline and of each variant (module docstring).

    Returns a DataFrame with one row per query and the columns ``baseline`` and one per key of
    ``effects`` (the variant's name; its value is the relative change of the per-query success
    probability, ``>= 0``).
    """
    check_int(n_queries, "n_queries", lo=2)
    check_int(serp_size, "serp_size", lo=2)
    check_int(seed, "seed", lo=0)
    if not effects:
        raise ValueError("effects must name at least one variant")
    for name, effect in effects.items():
        if name == "baseline" or not np.isfinite(effect) or effect < 0:
            raise ValueError(
                f"effects[{name!r}] must be a finite number >= 0 and not named "
                f"'baseline', got {effect!r}"
            )
    rng = np.random.default_rng(seed)
    p = rng.beta(*difficulty, size=n_queries)

    def reciprocal_rank(success: np.ndarray) -> np.ndarray:
        return 1.0 / np.minimum(rng.geometric(success), serp_size)

    table = {"baseline": reciprocal_rank(p)}
    for name, effect in effects.items():
        table[name] = reciprocal_rank(np.minimum(1.0, p * (1.0 + effect)))
    return pd.DataFrame(table).rename_axis("query")


def compare_variants(
    base: np.ndarray,
    variants: Mapping[str, np.ndarray] | pd.DataFrame,
    *,
    n_boot: int = 2000,
    alpha: float = ALPHA,
    seed: int = 0,
    names: Sequence[str] | None = None,
) -> pd.DataFrame:
    """One row per variant: lift %, its paired bootstrap CI and p-value from the same
    ``n_boot`` resamples (dual: the CI excludes 0 exactly when ``p_value <= alpha``), and the
    adjusted p-values.

    Columns: ``variant, lift_pct, ci_low, ci_high, p_value, p_bonferroni, p_holm, p_bh`` and the
    decisions at ``alpha``: ``reject_unadjusted, reject_bonferroni, reject_holm, reject_bh``.
    Each variant's resamples use the same ``seed`` (common random numbers across rows).
    """
    if not 0 < alpha < 1:
        raise ValueError(f"alpha must be in (0, 1), got {alpha}")
    names = list(names) if names is not None else list(variants)
    if not names:
        raise ValueError("variants is empty: nothing to compare")
    rows = []
    for name in names:
        v = np.asarray(variants[name], dtype=np.float64)
        lift, lo, hi, p = paired_bootstrap_test(base, v, n_boot=n_boot, seed=seed, alpha=alpha)
        rows.append({"variant": name, "lift_pct": lift, "ci_low": lo, "ci_high": hi, "p_value": p})
    table = pd.DataFrame(rows)
    p = table["p_value"].to_numpy()
    table["p_bonferroni"] = bonferroni_adjust(p)
    table["p_holm"] = holm_adjust(p)
    table["p_bh"] = bh_adjust(p)
    for column, source in [
        ("reject_unadjusted", "p_value"),
        ("reject_bonferroni", "p_bonferroni"),
        ("reject_holm", "p_holm"),
        ("reject_bh", "p_bh"),
    ]:
        table[column] = table[source] <= alpha
    return table
