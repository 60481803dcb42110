"""Paired claims: the lift difference against a brute-force bootstrap, verdicts, bad input."""

import numpy as np
import pandas as pd
import pytest

from rankaudit.ranking.claims import paired_claims
from rankaudit.ranking.significance import paired_lift_difference


def _rr(n=400, seed=0, gap=0.05):
    rng = np.random.default_rng(seed)
    base = rng.uniform(0.1, 1.0, n)
    return pd.DataFrame(
        {
            "MLR": base,
            "MLR + NCD_lc": base + gap + rng.normal(0, 0.05, n),
            "MLR + NCD_l5c": base + rng.normal(0, 0.05, n),
        }
    )


def test_lift_difference_point_and_bootstrap_reference():
    rr = _rr()
    b, a, c = (rr[k].to_numpy() for k in ("MLR", "MLR + NCD_lc", "MLR + NCD_l5c"))
    diff, lo, hi, p = paired_lift_difference(b, a, c, n_boot=3000, n_perm=2000, seed=1)
    assert diff == pytest.approx(100 * (a.mean() - c.mean()) / b.mean())
    rng = np.random.default_rng(7)
    ref = []
    for _ in range(3000):
        i = rng.integers(0, len(b), len(b))
        ref.append(100 * (a[i].mean() - c[i].mean()) / b[i].mean())
    rlo, rhi = np.quantile(ref, [0.025, 0.975])
    assert lo == pytest.approx(rlo, abs=0.25 * (rhi - rlo))
    assert hi == pytest.approx(rhi, abs=0.25 * (rhi - rlo))
    assert lo < diff < hi
    assert p < 0.01


def test_claim_verdicts_follow_the_ci():
    base = {"MLR + NCD_lc": "MLR", "MLR + NCD_l5c": "MLR"}
    agree = paired_claims(_rr(gap=0.05), base, n_boot=500, n_perm=500).iloc[0]
    assert agree.claim == "last click beats last five (NCD)"
    assert agree.verdict == "agrees" and agree.agrees_with_paper
    contra = paired_claims(_rr(gap=-0.05), base, n_boot=500, n_perm=500).iloc[0]
    assert contra.verdict == "contradicts" and not contra.agrees_with_paper
    null = paired_claims(_rr(gap=0.0, n=50), base, n_boot=500, n_perm=500).iloc[0]
    assert null.ci_low <= 0 <= null.ci_high
    assert null.verdict == "not resolved" and not null.agrees_with_paper


def test_claims_skip_missing_variants_and_need_a_common_baseline():
    rr = _rr()
    out = paired_claims(rr, {"MLR + NCD_lc": "MLR", "MLR + NCD_l5c": "MLR"}, n_boot=100, n_perm=100)
    assert list(out.claim) == ["last click beats last five (NCD)"]
    with pytest.raises(ValueError, match="common baseline"):
        paired_claims(rr, {"MLR + NCD_lc": "MLR", "MLR + NCD_l5c": "P1"}, n_boot=100, n_perm=100)
