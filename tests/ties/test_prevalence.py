"""Tie diagnostics against a plain per-row computation."""

import numpy as np
import pandas as pd

from rankaudit import tie_prevalence


def _naive(s, y, k):
    s = np.asarray(s, float)
    y = np.asarray(y, float)
    desc = np.sort(s)[::-1]
    rel = np.flatnonzero(y > 0)
    out = {
        "any_tie": len(np.unique(s)) < len(s),
        "boundary_tie": len(s) > k and desc[k - 1] == desc[k],
        "relevant_tied": any((s == s[i]).sum() > 1 for i in rel),
        "relevant_boundary_tie": any(
            (s > s[i]).sum() < k < (s > s[i]).sum() + (s == s[i]).sum() for i in rel
        ),
        "relevant_block_size": int((s == s[rel].max()).sum()) if len(rel) else 0,
    }
    return out


def test_prevalence_matches_naive(rows_factory):
    rng = np.random.default_rng(8)
    scores, labels, _ = rows_factory(rng, 200, max_len=12, n_levels=6)
    labels[3] = np.zeros_like(labels[3])
    res = tie_prevalence(scores, labels, k=3)
    for i, (s, y) in enumerate(zip(scores, labels, strict=True)):
        want = _naive(s, y, 3)
        for name, value in want.items():
            assert res.rows[name].iloc[i] == value, (i, name)
    assert res.summary["n_rows"] == 200
    assert res.summary["n_rows_without_relevant"] == 1
    assert res.summary["frac_any_tie"] == res.rows["any_tie"].mean()


def test_paper_case_and_untied_row():
    s = np.vstack([np.zeros(31), np.arange(31.0)])
    y = np.zeros((2, 31))
    y[:, 0] = 1
    res = tie_prevalence(s, y, k=10)
    assert res.rows["relevant_block_size"].tolist() == [31, 1]
    assert res.rows["boundary_tie"].tolist() == [True, False]
    assert res.summary["frac_relevant_tied"] == 0.5
    assert res.summary["mean_relevant_block_size"] == 16.0


def test_prevalence_long_format():
    df = pd.DataFrame({"row_id": [0, 0, 1, 1], "score": [1, 1, 2, 1], "label": [1, 0, 1, 0]})
    res = tie_prevalence(df, k=1)
    assert res.rows["relevant_tied"].tolist() == [True, False]
