"""Paired claims: the lift difference against a brute-force bootstrap, verdicts, bad input."""

import numpy as np
import pandas as pd
import pytest

from rankaudit.runs.significance import paired_lift_difference
from rankbook.ranking.claims import paired_claims


def _rr(n=400, seed=0, gap=0.05, noise=0.05):
    rng = np.random.default_rng(seed)
    base = rng.uniform(0.1, 1.0, n)
    return pd.DataFrame(
        {
            "MLR": base,
            "MLR + NCD_lc": base + gap + rng.normal(0, noise, n),
            "MLR + NCD_l5c": base + rng.normal(0, noise, n),
        }
    )


def test_lift_difference_point_and_bootstrap_reference():
    rr = _rr()
    b, a, c = (rr[k].to_numpy() for k in ("MLR", "MLR + NCD_lc", "MLR + NCD_l5c"))
    diff, lo, hi, p = paired_lift_difference(b, a, c, n_boot=3000, seed=1)
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


def test_claim_verdicts_follow_the_decision_standard():
    base = {"MLR + NCD_lc": "MLR", "MLR + NCD_l5c": "MLR"}
    agree = paired_claims(_rr(gap=0.05), base, n_boot=500).iloc[0]
    assert agree.claim == "last click beats last five (NCD)"
    assert agree.verdict == "agrees with the paper" and agree.agrees_with_paper
    # the opposite resolved, at high power: contradicts
    contra = paired_claims(_rr(gap=-0.05, noise=0.005), base, n_boot=500).iloc[0]
    assert contra.power >= 0.8 and contra.reached == "resolved below zero"
    assert contra.verdict == "contradicts the paper" and not contra.agrees_with_paper
    # the opposite resolved at low power: not a contradiction
    weak = paired_claims(_rr(gap=-0.05, n=60), base, n_boot=500).iloc[0]
    assert weak.power < 0.8 and weak.reached == "resolved below zero"
    assert weak.verdict == "not resolved at this power"
    null = paired_claims(_rr(gap=0.0, n=50), base, n_boot=500).iloc[0]
    assert null.ci_low <= 0 <= null.ci_high and null.p_value > 0.05
    assert null.verdict == "not resolved at this power" and not null.agrees_with_paper


def test_claims_skip_missing_variants_and_need_a_common_baseline():
    rr = _rr()
    out = paired_claims(rr, {"MLR + NCD_lc": "MLR", "MLR + NCD_l5c": "MLR"}, n_boot=100)
    assert list(out.claim) == ["last click beats last five (NCD)"]
    with pytest.raises(ValueError, match="common baseline"):
        paired_claims(rr, {"MLR + NCD_lc": "MLR", "MLR + NCD_l5c": "P1"}, n_boot=100)


def _intent_rr(n=600, seed=0, gap=0.0, noise=0.01):
    rng = np.random.default_rng(seed)
    base = rng.uniform(0.2, 1.0, n)
    return pd.DataFrame(
        {
            "P1": base,
            "P1 + CosSim_Ref_emb": base + 0.01 + gap + rng.normal(0, noise, n),
            "P1 + NCD_Ref_txt": base + 0.01 + rng.normal(0, noise, n),
        }
    )


INTENT_BASE = {"P1 + CosSim_Ref_emb": "P1", "P1 + NCD_Ref_txt": "P1"}


def test_similar_is_an_equivalence_test_that_flips_with_the_gap():
    same = paired_claims(_intent_rr(gap=0.0), INTENT_BASE, n_boot=1000).iloc[0]
    assert same.test == "equivalence" and same.margin_pct == pytest.approx(0.465)
    assert "similar performance enhancements over P1" in same.paper_quote
    assert same.verdict == "agrees with the paper" and same.p_value <= 0.05
    assert -same.margin_pct < same.ci_low <= same.ci_high < same.margin_pct
    far = paired_claims(_intent_rr(gap=0.05), INTENT_BASE, n_boot=1000).iloc[0]
    assert far.verdict == "contradicts the paper" and far.p_value > 0.05
    noisy = paired_claims(_intent_rr(n=30, gap=0.0, noise=0.3), INTENT_BASE, n_boot=1000).iloc[0]
    assert noisy.verdict == "not resolved at this power"


def test_holm_adjusts_across_the_claims_and_never_lowers_a_p_value():
    rr = _rr().join(_intent_rr(n=400))
    base = {"MLR + NCD_lc": "MLR", "MLR + NCD_l5c": "MLR", **INTENT_BASE}
    out = paired_claims(rr, base, n_boot=300)
    assert list(out.test) == ["superiority", "equivalence"]
    assert out.margin_pct.iloc[0] is None
    assert (out.p_holm >= out.p_value).all()
    assert out.p_holm.max() <= 1.0


def test_every_paper_quote_is_in_the_paper():
    from pathlib import Path

    from rankbook.ranking.paper import PAPER_CLAIMS

    paper = Path(__file__).resolve().parents[3] / "shared" / "papers"
    text_file = paper / "progressive-contextual-search-ranking.txt"
    if not text_file.is_file():
        pytest.skip(f"the paper's text is not at {text_file}")
    text = " ".join(text_file.read_text(encoding="utf-8").split())
    for c in PAPER_CLAIMS:
        if c.source == "paper":
            assert " ".join(c.paper_quote.split()) in text, c.claim
        else:
            assert c.paper_quote is None


def test_a_claim_record_refuses_a_mismatched_test_or_source():
    from rankbook.ranking.paper import Claim

    with pytest.raises(ValueError, match="margin_pct"):
        Claim("x", "a", "b", "equivalence", "q")
    with pytest.raises(ValueError, match="quote"):
        Claim("x", "a", "b", "superiority", None)
    assert Claim("x", "a", "b", "superiority", None, source="book").source == "book"


def test_the_books_own_comparison_has_no_quote_none_not_nan():
    """A claim of the book's (no paper sentence) keeps ``paper_quote`` None, which the results
    JSON writes; pandas turned it into NaN, which chapter 11's results writer refuses."""
    rng = np.random.default_rng(3)
    base = rng.uniform(0.1, 1.0, 200)
    rr = pd.DataFrame(
        {
            "MLR": base,
            "MLR + CosSim_lc": base + rng.normal(0, 0.05, 200),
            "MLR + NCD_lc": base + rng.normal(0, 0.05, 200),
        }
    )
    out = paired_claims(rr, {k: "MLR" for k in rr.columns[1:]}, n_boot=200)
    book = out[out.source == "book"]
    assert len(book) == 1
    assert book.paper_quote.iloc[0] is None
