"""The worked comparison: simulated paired reciprocal ranks with a known truth, and the table."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rankaudit.runs.significance import (
    bh_adjust,
    holm_adjust,
    lift_pct,
    paired_randomisation_test,
)
from rankbook.ranking.comparisons import compare_variants, simulate_paired_rr


def test_simulated_ranks_are_reciprocal_ranks_and_deterministic():
    a = simulate_paired_rr(300, {"x": 0.0, "y": 0.5}, seed=3, serp_size=20)
    b = simulate_paired_rr(300, {"x": 0.0, "y": 0.5}, seed=3, serp_size=20)
    assert a.equals(b)
    assert list(a.columns) == ["baseline", "x", "y"]
    ranks = 1 / a.to_numpy()
    assert np.allclose(ranks, np.round(ranks)) and ranks.min() >= 1 and ranks.max() <= 20


def test_a_null_variant_has_no_lift_and_a_real_one_has():
    """Over many queries the null lift is near 0 and a 50% success boost lifts MRR clearly."""
    t = simulate_paired_rr(40000, {"null": 0.0, "better": 0.5}, seed=0)
    assert abs(lift_pct(t.baseline, t.null)) < 2.0
    assert lift_pct(t.baseline, t.better) > 15.0


def test_null_pvalues_are_roughly_uniform():
    """Exchangeable pairs: the sign-flip test rejects a true null about alpha of the time."""
    t = simulate_paired_rr(200, {f"v{j}": 0.0 for j in range(200)}, seed=1)
    p = np.array(
        [paired_randomisation_test(t.baseline, t[f"v{j}"], n_perm=400, seed=j) for j in range(200)]
    )
    assert 0.01 <= np.mean(p <= 0.05) <= 0.11


def test_compare_variants_table():
    t = simulate_paired_rr(400, {"a": 0.0, "b": 0.6, "c": 0.0}, seed=2)
    table = compare_variants(t.baseline, t, names=["a", "b", "c"], n_boot=300, seed=0)
    assert list(table.variant) == ["a", "b", "c"]
    np.testing.assert_allclose(table.p_holm, holm_adjust(table.p_value))
    np.testing.assert_allclose(table.p_bh, bh_adjust(table.p_value))
    assert (table.ci_low <= table.lift_pct).all() and (table.lift_pct <= table.ci_high).all()
    assert table.set_index("variant").loc["b", "reject_holm"]
    assert (table.reject_holm <= table.reject_unadjusted).all()
    np.testing.assert_allclose(table.lift_pct, [lift_pct(t.baseline, t[v]) for v in "abc"])


@settings(max_examples=60, deadline=None)
@given(
    pairs=st.lists(
        st.tuples(
            st.integers(1, 20).map(lambda r: 1.0 / r), st.integers(1, 20).map(lambda r: 1.0 / r)
        ),
        min_size=2,
        max_size=40,
    ),
    shift=st.sampled_from([0.0, 0.05, 0.3]),
    alpha=st.sampled_from([0.01, 0.05, 0.1, 0.2]),
    n_boot=st.integers(200, 500),
    seed=st.integers(0, 2**16),
)
def test_a_rows_ci_excludes_zero_exactly_when_its_p_is_at_most_alpha(
    pairs, shift, alpha, n_boot, seed
):
    """CI and p come from the same resamples: they cannot disagree, whatever the data."""
    base = np.array([b for b, _ in pairs])
    variant = np.array([v for _, v in pairs]) + shift
    table = compare_variants(
        base, {"v": variant, "same": base.copy()}, n_boot=n_boot, alpha=alpha, seed=seed
    )
    for row in table.itertuples():
        excludes = row.ci_low > 0 or row.ci_high < 0
        assert excludes == (row.p_value <= alpha), row
        assert row.reject_unadjusted == (row.p_value <= alpha)
    assert table.set_index("variant").loc["same", "p_value"] == 1.0


@pytest.mark.parametrize("effects", [{}, {"a": -0.1}, {"baseline": 0.1}, {"a": float("nan")}])
def test_bad_effects(effects):
    with pytest.raises(ValueError, match="effects"):
        simulate_paired_rr(10, effects)


def test_bad_alpha_and_empty():
    t = simulate_paired_rr(20, {"a": 0.1})
    with pytest.raises(ValueError, match="alpha"):
        compare_variants(t.baseline, t, names=["a"], alpha=1.5)
    with pytest.raises(ValueError, match="empty"):
        compare_variants(t.baseline, {}, names=[])
