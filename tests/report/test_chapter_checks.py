"""The chapter checks of rankbook.report.checks fail on perturbed inputs (each check's
``unit_test`` names a test here)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from rankaudit.runs.significance import exact_sign_flip_pvalue, paired_randomisation_test
from rankaudit.ties.evaluate import evaluate
from rankbook.data.synthetic_rows import random_small_rows
from rankbook.report.checks import (
    closed_form_checks,
    early_stop_check,
    sampled_p_check,
    shared_rows_check,
)
from rankbook.ties.montecarlo import three_way_check


def _errors(check: pd.DataFrame) -> tuple[float, float, float]:
    ndcg = check[check["metric"] == "nDCG@k"]
    enum = max(
        np.nanmax(np.abs(check["expected"] - check["enumeration"])),
        np.nanmax(np.abs(check["variance"] - check["enumeration_variance"])),
    )
    return (
        float(enum),
        float(np.nanmax(np.abs(ndcg["expected"] - ndcg["sklearn"]))),
        float(check["mc_z"].abs().max()),
    )


def test_closed_form_checks_fail_for_a_shifted_formula():
    rows = random_small_rows(40, max_candidates=6, seed=3)
    ks = [len(s) for s, _ in rows]
    good = three_way_check(rows, ks, evaluate, n_draws=400, seed=0)
    assert all(c["passed"] for c in closed_form_checks(*_errors(good), z_chance=6.0))

    def shifted(*args, **kw):  # a formula that is off by 0.01 on every metric
        frame = evaluate(*args, **kw)
        for col in frame.attrs.get("metric_columns", []):
            frame[col] = frame[col] * 0.99
        return frame

    bad = three_way_check(rows, ks, shifted, n_draws=400, seed=0)
    assert not any(c["passed"] for c in closed_form_checks(*_errors(bad), z_chance=6.0))


def test_sampled_p_check_fails_for_a_wrong_sampler():
    rng = np.random.default_rng(0)
    base = rng.random(14)
    v1 = base + rng.normal(0.05, 0.1, 14)
    p_exact = exact_sign_flip_pvalue(base, v1)
    p_good = paired_randomisation_test(base, v1, n_perm=4000, seed=1)
    assert sampled_p_check(p_exact, p_good, 4000)["passed"]
    # a sampler that tests the wrong data (the differences halved and shifted) disagrees
    p_wrong = paired_randomisation_test(base, base + 0.3, n_perm=4000, seed=1)
    assert not sampled_p_check(p_exact, p_wrong, 4000)["passed"]


def test_shared_rows_check_fails_when_a_row_differs():
    row = {"variant": "P1", "lift_pct": 1.0, "ci_low": 0.1, "ci_high": 2.0, "p_value": 0.01}
    gap, check = shared_rows_check([row, {**row, "variant": "P2 + seq"}], [row])
    assert gap == 0 and check["passed"]
    gap, check = shared_rows_check([{**row, "ci_high": 2.001}], [row])
    assert gap == pytest.approx(0.001) and not check["passed"]
    with pytest.raises(ValueError, match="share no variant"):
        shared_rows_check([{**row, "variant": "X"}], [row])


def test_early_stop_check_fails_at_the_cap():
    assert early_stop_check("perc", 4, 30)["passed"]
    assert not early_stop_check("perc", 30, 30)["passed"]
