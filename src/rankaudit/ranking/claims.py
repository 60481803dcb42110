"""The paper's qualitative claims as paired tests: does variant ``a`` lift more than variant ``b``?

Sheng et al. (2025, section 3.2) read their Table 1 as "embedding beats text", "the last click beats
the last five" and "the Perceiver beats the Transformer"
(:data:`rankaudit.ranking.paper.PAPER_CLAIMS`). Two lifts over the same baseline and the same test
queries are paired, so their difference is tested per query
(:func:`rankaudit.ranking.significance.paired_lift_difference`):

    ``diff = L_a - L_b = 100 * (MRR_a - MRR_b) / MRR_baseline``   (percentage points of lift)

with a paired bootstrap CI and a sign-flip p-value. The paper claims ``diff > 0``. A claim
*agrees* when the CI lies above zero, is *contradicted* when it lies below zero, and is
*not resolved* otherwise (``agrees_with_paper`` is true only in the first case).

Public API: :func:`paired_claims`.
"""

from __future__ import annotations

from collections.abc import Sequence

import pandas as pd

from rankaudit.ranking.paper import PAPER_CLAIMS
from rankaudit.ranking.significance import paired_lift_difference

__all__ = ["paired_claims"]


def paired_claims(
    rr: pd.DataFrame,
    baselines: dict[str, str],
    *,
    claims: Sequence[tuple[str, str, str]] = PAPER_CLAIMS,
    n_boot: int = 2000,
    n_perm: int = 5000,
    seed: int = 0,
) -> pd.DataFrame:
    """One line per claim whose two variants are columns of ``rr`` (others are skipped).

    ``rr``: per-query RR, one column per feature set (rows = the same test queries, e.g. the
    seed-averaged RR of :meth:`rankaudit.ranking.ablation.AblationResult.rr_by_feature_set`);
    ``baselines``: variant -> its baseline feature set (both variants of a claim must share it).
    Columns: ``claim, variant_a, variant_b, baseline, diff_pct, ci_low, ci_high, p_value,
    verdict, agrees_with_paper``.
    """
    out = []
    for k, (claim, a, b) in enumerate(claims):
        if a not in rr or b not in rr:
            continue
        base = baselines.get(a)
        if base is None or baselines.get(b) != base:
            raise ValueError(
                f"claim {claim!r}: {a!r} and {b!r} need one common baseline, got "
                f"{baselines.get(a)!r} and {baselines.get(b)!r}"
            )
        if base not in rr:
            raise ValueError(f"claim {claim!r}: rr has no column for the baseline {base!r}")
        diff, lo, hi, p = paired_lift_difference(
            rr[base].to_numpy(),
            rr[a].to_numpy(),
            rr[b].to_numpy(),
            n_boot=n_boot,
            n_perm=n_perm,
            seed=seed + k,
        )
        verdict = "agrees" if lo > 0 else "contradicts" if hi < 0 else "not resolved"
        out.append(
            {
                "claim": claim,
                "variant_a": a,
                "variant_b": b,
                "baseline": base,
                "diff_pct": diff,
                "ci_low": lo,
                "ci_high": hi,
                "p_value": p,
                "verdict": verdict,
                "agrees_with_paper": bool(lo > 0),
            }
        )
    cols = [
        "claim",
        "variant_a",
        "variant_b",
        "baseline",
        "diff_pct",
        "ci_low",
        "ci_high",
        "p_value",
        "verdict",
        "agrees_with_paper",
    ]
    return pd.DataFrame(out, columns=cols)
