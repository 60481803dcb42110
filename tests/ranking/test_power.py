"""Power formula against simulated paired tests, n_needed against its definition, the report."""

import numpy as np
import pandas as pd
import pytest
from scipy.stats import norm

from rankbook.ranking.power import (
    n_needed,
    paired_sd,
    power_paired,
    power_report,
    share_of_oracle,
)


@pytest.mark.parametrize("delta, sd, n", [(0.02, 0.2, 400), (0.01, 0.1, 300), (-0.03, 0.25, 250)])
def test_power_matches_simulated_rejection_rate(delta, sd, n):
    rng = np.random.default_rng(5)
    reps = 4000
    d = rng.normal(delta, sd, size=(reps, n))
    z = d.mean(axis=1) / (d.std(axis=1, ddof=1) / np.sqrt(n))
    rejected = np.mean(np.abs(z) > norm.ppf(0.975))
    predicted = power_paired(delta, sd, n)
    assert rejected == pytest.approx(
        predicted, abs=4 * np.sqrt(predicted * (1 - predicted) / reps) + 0.01
    )


def test_n_needed_is_the_smallest_n_reaching_the_power():
    for delta, sd in [(0.004, 0.1), (0.05, 0.26), (0.2, 1.0)]:
        n = n_needed(delta, sd, power=0.8)
        assert power_paired(delta, sd, n) >= 0.8
        assert power_paired(delta, sd, n - 1) < 0.8 + 1e-3  # the far tail adds a hair


def test_n_needed_textbook_value_and_power_term():
    # Cohen's d = 0.2 at alpha 0.05 and 80% power: ((1.96 + 0.8416) / 0.2)^2 = 196.2 -> 197
    assert n_needed(0.2, 1.0) == 197
    # without the power term (50% power) the same effect needs ~(1.96 / 0.2)^2 = 96.04 -> 97
    assert n_needed(0.2, 1.0, power=0.5) == 97


def test_power_at_zero_effect_is_alpha():
    assert power_paired(0.0, 1.0, 100) == pytest.approx(0.05)


@pytest.mark.parametrize("kwargs", [dict(sd=0.0), dict(sd=np.nan), dict(alpha=1.5)])
def test_bad_input_raises(kwargs):
    args = dict(delta=0.1, sd=1.0, alpha=0.05) | kwargs
    with pytest.raises(ValueError):
        power_paired(args["delta"], args["sd"], 10, alpha=args["alpha"])
    with pytest.raises(ValueError):
        n_needed(args["delta"], args["sd"], alpha=args["alpha"])


def test_n_needed_zero_effect_raises():
    with pytest.raises(ValueError, match="delta"):
        n_needed(0.0, 1.0)


def test_paired_sd_and_share():
    b = np.array([1.0, 0.5, 0.25, 1.0])
    v = np.array([1.0, 1.0, 0.5, 0.5])
    assert paired_sd(b, v) == pytest.approx(np.std(v - b, ddof=1))
    with pytest.raises(ValueError):
        paired_sd(b, v[:3])
    assert share_of_oracle(2.0, 8.0) == 0.25
    assert share_of_oracle(2.0, -1.0) is None


def test_power_report_uses_row_sd_and_baseline_mrr():
    rng = np.random.default_rng(0)
    base = rng.random(500)
    rr = pd.DataFrame({"MLR": base, "MLR + x": base + rng.normal(0.01, 0.1, 500)})
    rows = pd.DataFrame({"variant": ["MLR + x"], "baseline": ["MLR"]})
    rep = power_report(rr, rows, {"MLR + x": 2.0, "other": 1.0}).set_index("target")
    sd = np.std(rr["MLR + x"] - rr["MLR"], ddof=1)
    assert rep.loc["MLR + x", "sd_diff"] == pytest.approx(sd)
    assert rep.loc["MLR + x", "delta_rr"] == pytest.approx(0.02 * base.mean())
    assert rep.loc["other", "power"] < rep.loc["MLR + x", "power"]
    assert rep.loc["MLR + x", "n_needed"] == n_needed(0.02 * base.mean(), sd)
    with pytest.raises(ValueError, match="feature set"):
        power_report(rr[["MLR"]], rows, {"a": 1.0})
