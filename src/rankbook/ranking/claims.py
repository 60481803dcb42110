"""The paper's qualitative claims as paired tests over the same test queries.

Sheng et al. (2025, section 3.2) read their Table 1 in words
(:data:`rankbook.ranking.paper.PAPER_CLAIMS`, each quoted verbatim; the book adds comparisons of
its own, ``source == "book"``). Two lifts over the same baseline and the same test queries are
paired, so their difference is tested per query (:mod:`rankaudit.runs.significance`):

    ``diff = L_a - L_b = 100 * (MRR_a - MRR_b) / MRR_baseline``   (percentage points of lift)

Every verdict is :mod:`rankaudit.runs.decision`'s, the rule every table row follows too.

*Superiority* ("beats", "outperforms"; the claim is ``diff > 0``): paired bootstrap 95% CI and
two-sided p-value from the same resamples; ``reached`` is
:func:`~rankaudit.runs.decision.effect_verdict` at the Holm-adjusted p-value.

*Equivalence* ("similar"; the claim is ``|diff| < margin``): two one-sided tests (TOST) with the
stated ``margin_pct`` on the 90% bootstrap CI; ``reached`` is "equivalent within the margin" when
the Holm-adjusted TOST p-value is at most :data:`~rankaudit.runs.decision.ALPHA`, a resolved
side when the 95% CI lies wholly outside the margin, otherwise not resolved.

``verdict`` is :func:`~rankaudit.runs.decision.claim_verdict`: "agrees with the paper" when
``reached`` is what the claim asserts; "contradicts the paper" only when the opposite is resolved
and ``power`` (the paired test's power at the paper's own difference, ``|L_a - L_b|`` of its
Table 1, or at the margin for equivalence; :func:`rankbook.ranking.power.power_paired`) is at
least 0.8. ``p_holm`` adjusts the claims' p-values together (Holm, 1979).

A difference between two rows is judged by its own paired interval, never by one row's lift
interval: :func:`pair_half_width` is the median half-width of the superiority claims' paired 95%
CIs, the precision at which two rows of Table 1 can be told apart.

Public API: :func:`paired_claims`, :func:`pair_half_width`.
"""

from __future__ import annotations

import statistics
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import pandas as pd

from rankaudit.runs.decision import (
    AGREES,
    EQUIVALENT,
    NOT_RESOLVED,
    RESOLVED_ABOVE,
    RESOLVED_BELOW,
    claim_verdict,
    effect_verdict,
    equivalence_verdict,
)
from rankaudit.runs.significance import (
    equivalence_lift_difference,
    holm_adjust,
    paired_lift_difference,
)
from rankbook.ranking.paper import PAPER_CLAIMS, PAPER_TABLE1_LIFT_PCT, Claim
from rankbook.ranking.power import paired_sd, power_paired

__all__ = ["CLAIM_COLUMNS", "pair_half_width", "paired_claims"]

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
    "power",
    "reached",
    "verdict",
    "agrees_with_paper",
]


def _claim_power(c: Claim, arrays: tuple[np.ndarray, ...]) -> float | None:
    """Power of the paired test at the paper's difference (or the margin, for equivalence)."""
    base, a, b = arrays
    if c.test == "equivalence":
        effect = float(c.margin_pct)
    elif c.variant_a in PAPER_TABLE1_LIFT_PCT and c.variant_b in PAPER_TABLE1_LIFT_PCT:
        effect = PAPER_TABLE1_LIFT_PCT[c.variant_a] - PAPER_TABLE1_LIFT_PCT[c.variant_b]
    else:
        return None
    sd = paired_sd(b, a)
    if effect == 0 or sd == 0:
        return None
    return power_paired(effect / 100.0 * float(base.mean()), sd, len(base))


def paired_claims(
    rr: pd.DataFrame,
    baselines: dict[str, str],
    *,
    claims: Sequence[Claim] = PAPER_CLAIMS,
    n_boot: int = 2000,
    seed: int = 0,
) -> pd.DataFrame:
    """One line per claim whose two variants are columns of ``rr`` (others are skipped).

    ``rr``: per-query RR, one column per feature set (rows = the same test queries, e.g. the
    seed-averaged RR of :meth:`rankbook.ranking.ablation.AblationResult.rr_by_feature_set`);
    ``baselines``: variant -> its baseline feature set (both variants of a claim must share it).
    Columns: :data:`CLAIM_COLUMNS`; ``ci_low``/``ci_high`` are the 95% CI for superiority and
    the 90% CI (the TOST interval) for equivalence; ``margin_pct`` is None for superiority.
    """
    out, outside = [], []
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
            diff, lo, hi, p = paired_lift_difference(*arrays, n_boot=n_boot, seed=seed + k)
            outside.append(None)
        else:
            m = float(c.margin_pct)
            diff, lo, hi, p = equivalence_lift_difference(
                *arrays, margin_pct=m, n_boot=n_boot, seed=seed + k
            )
            _, lo95, hi95, _ = paired_lift_difference(*arrays, n_boot=n_boot, seed=seed + k)
            side = RESOLVED_ABOVE if lo95 >= m else RESOLVED_BELOW if hi95 <= -m else None
            outside.append(side)
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
                "power": _claim_power(c, arrays),
            }
        )
    holm = holm_adjust(np.array([r["p_value"] for r in out])) if out else np.empty(0)
    for r, ph, side in zip(out, holm, outside, strict=True):
        r["p_holm"] = float(ph)
        if r["test"] == "superiority":
            claimed = RESOLVED_ABOVE
            reached = effect_verdict(r["diff_pct"], r["ci_low"], r["ci_high"], r["p_value"], ph)
        else:
            claimed = EQUIVALENT
            reached = equivalence_verdict(r["p_value"], ph)
            if reached == NOT_RESOLVED and side is not None:
                reached = side
        r["reached"] = reached
        r["verdict"] = claim_verdict(claimed, reached, r["power"])
        r["agrees_with_paper"] = r["verdict"] == AGREES
    frame = pd.DataFrame(out, columns=CLAIM_COLUMNS)
    # None (no margin: superiority; no paper difference: power; no quote: the book's own
    # comparison), not NaN, which JSON refuses
    for col in ("margin_pct", "power", "paper_quote"):
        frame[col] = pd.Series([r[col] for r in out], dtype=object)
    return frame


def pair_half_width(claims: Sequence[Mapping[str, Any]]) -> float:
    """The median half-width, in percentage points, of the paired 95% CIs of the differences
    between two rows: ``median((ci_high - ci_low) / 2)`` over the superiority claims of
    :func:`paired_claims` (records), each resampling the same test queries for both rows
    (Davison & Hinkley, 1997, section 5.2). Equivalence claims (90% CIs against a margin) are
    left out; a list without a superiority claim is a ValueError naming ``claims``."""
    rows = [c for c in claims if c["test"] == "superiority"]
    if not rows:
        raise ValueError("claims holds no superiority claim: no paired difference between rows")
    return float(statistics.median((c["ci_high"] - c["ci_low"]) / 2 for c in rows))
