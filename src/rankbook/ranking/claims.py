"""The paper's qualitative claims as paired tests over the same test queries.

Sheng et al. (2025, section 3.2) read their Table 1 in words
(:data:`rankbook.ranking.paper.PAPER_CLAIMS`, each quoted verbatim). Two lifts over the same
baseline and the same test queries are paired, so their difference is tested per query
(:mod:`rankaudit.runs.significance`):

    ``diff = L_a - L_b = 100 * (MRR_a - MRR_b) / MRR_baseline``   (percentage points of lift)

*Superiority* ("beats", "outperforms"; the paper claims ``diff > 0``): paired bootstrap 95% CI
and a two-sided sign-flip p-value. The claim *agrees* when the CI lies above zero, is
*contradicted* when it lies below zero, and is *not resolved* otherwise.

*Equivalence* ("similar"; the paper claims ``|diff| < margin``): two one-sided tests (TOST) with
the stated ``margin_pct``, on the 90% bootstrap CI. The claim *agrees* when ``p_tost <= 0.05``
(the 90% CI lies inside ``(-margin, margin)``), is *contradicted* when the 95% CI lies wholly
outside the margin, and is *not resolved* otherwise.

``p_holm`` adjusts the claims' p-values together (Holm, 1979), so reading several claims at
once does not inflate the family-wise error rate.

Public API: :func:`paired_claims`.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd

from rankaudit.runs.significance import (
    equivalence_lift_difference,
    holm_adjust,
    paired_lift_difference,
)
from rankbook.ranking.paper import PAPER_CLAIMS, Claim

__all__ = ["CLAIM_COLUMNS", "paired_claims"]

#: Columns of :func:`paired_claims`.
CLAIM_COLUMNS = [
    "claim",
    "source",
    "paper_quote",
    "test",
    "margin_pct",
    "variant_a",
    "variant_b",
    "baseline",
    "diff_pct",
    "ci_low",
    "ci_high",
    "p_value",
    "p_holm",
    "verdict",
    "agrees_with_paper",
]


def paired_claims(
    rr: pd.DataFrame,
    baselines: dict[str, str],
    *,
    claims: Sequence[Claim] = PAPER_CLAIMS,
    n_boot: int = 2000,
    n_perm: int = 5000,
    seed: int = 0,
) -> pd.DataFrame:
    """One line per claim whose two variants are columns of ``rr`` (others are skipped).

    ``rr``: per-query RR, one column per feature set (rows = the same test queries, e.g. the
    seed-averaged RR of :meth:`rankbook.ranking.ablation.AblationResult.rr_by_feature_set`);
    ``baselines``: variant -> its baseline feature set (both variants of a claim must share it).
    Columns: :data:`CLAIM_COLUMNS`; ``ci_low``/``ci_high`` are the 95% CI for superiority and
    the 90% CI (the TOST interval) for equivalence; ``margin_pct`` is None for superiority.
    """
    out = []
    for k, c in enumerate(claims):
        a, b = c.variant_a, c.variant_b
        if a not in rr or b not in rr:
            continue
        base = baselines.get(a)
        if base is None or baselines.get(b) != base:
            raise ValueError(
                f"claim {c.claim!r}: {a!r} and {b!r} need one common baseline, got "
                f"{baselines.get(a)!r} and {baselines.get(b)!r}"
            )
        if base not in rr:
            raise ValueError(f"claim {c.claim!r}: rr has no column for the baseline {base!r}")
        arrays = rr[base].to_numpy(), rr[a].to_numpy(), rr[b].to_numpy()
        if c.test == "superiority":
            diff, lo, hi, p = paired_lift_difference(
                *arrays, n_boot=n_boot, n_perm=n_perm, seed=seed + k
            )
            verdict = "agrees" if lo > 0 else "contradicts" if hi < 0 else "not resolved"
        else:
            m = float(c.margin_pct)
            diff, lo, hi, p = equivalence_lift_difference(
                *arrays, margin_pct=m, n_boot=n_boot, seed=seed + k
            )
            _, lo95, hi95, _ = paired_lift_difference(
                *arrays, n_boot=n_boot, n_perm=1, seed=seed + k
            )
            outside = lo95 >= m or hi95 <= -m
            verdict = "agrees" if p <= 0.05 else "contradicts" if outside else "not resolved"
        out.append(
            {
                "claim": c.claim,
                "source": c.source,
                "paper_quote": c.paper_quote,
                "test": c.test,
                "margin_pct": c.margin_pct,
                "variant_a": a,
                "variant_b": b,
                "baseline": base,
                "diff_pct": diff,
                "ci_low": lo,
                "ci_high": hi,
                "p_value": p,
                "verdict": verdict,
                "agrees_with_paper": verdict == "agrees",
            }
        )
    frame = pd.DataFrame(out, columns=[col for col in CLAIM_COLUMNS if col != "p_holm"])
    # None (no margin: superiority), not NaN, which results JSON refuses
    frame["margin_pct"] = pd.Series([r["margin_pct"] for r in out], dtype=object)
    holm = holm_adjust(frame.p_value.to_numpy()) if len(frame) else np.empty(0)
    frame.insert(CLAIM_COLUMNS.index("p_holm"), "p_holm", holm)
    return frame
