"""rankaudit.evaluate(ideal_labels=...) takes IDCG from the qrels, and agrees with runs."""

from __future__ import annotations

import numpy as np
import pytest

import rankaudit
from rankaudit.runs import Qrels, Run, evaluate_run


def _toy():
    scores = [[0.9, 0.5, 0.5, 0.5, 0.1], [0.3, 0.3, 0.2, 0.2, 0.2]]
    labels = [[0, 2, 0, 1, 0], [1, 0, 0, 3, 0]]
    ideal = [[2, 1, 3, 0], [1, 3, 2, 2]]  # judged labels of each query, some never retrieved
    return np.array(scores), np.array(labels), ideal


def _as_run(scores, labels, ideal):
    q, d, s, qq, qd, ql = [], [], [], [], [], []
    for i, (row_s, row_l) in enumerate(zip(scores, labels, strict=True)):
        for j, (x, lab) in enumerate(zip(row_s, row_l, strict=True)):
            q.append(f"r{i}")
            d.append(f"c{j}")
            s.append(x)
            if lab > 0:
                qq.append(f"r{i}")
                qd.append(f"c{j}")
                ql.append(lab)
        retrieved_pos = sorted(lab for lab in row_l if lab > 0)
        rest = list(ideal[i])
        for lab in retrieved_pos:
            rest.remove(lab)
        for j, lab in enumerate(rest):
            qq.append(f"r{i}")
            qd.append(f"unretrieved{j}")
            ql.append(lab)
    return Run.from_arrays(q, d, s), Qrels.from_arrays(qq, qd, np.array(ql))


@pytest.mark.parametrize("k", [1, 3, 10])
@pytest.mark.parametrize("rule", ["expected", "pessimistic", "optimistic"])
def test_ideal_labels_match_runs(k, rule):
    scores, labels, ideal = _toy()
    got = rankaudit.evaluate(scores, labels, k=k, ties=rule, ideal_labels=ideal)[f"nDCG@{k}"]
    run, qrels = _as_run(scores, labels, ideal)
    want = evaluate_run(run, qrels, [f"nDCG@{k}"], ties=rule)[f"nDCG@{k}"]
    np.testing.assert_allclose(got.to_numpy(), want.to_numpy(), rtol=1e-13, atol=1e-15)


def test_default_unchanged_and_variance_scaled():
    scores, labels, ideal = _toy()
    base = rankaudit.evaluate(scores, labels, k=3, return_variance=True)
    same = rankaudit.evaluate(
        scores, labels, k=3, return_variance=True, ideal_labels=[r[r > 0] for r in labels]
    )
    np.testing.assert_allclose(base.to_numpy(), same.to_numpy(), rtol=1e-14)
    wide = rankaudit.evaluate(scores, labels, k=3, return_variance=True, ideal_labels=ideal)
    ratio = wide["nDCG@3"] / base["nDCG@3"]
    np.testing.assert_allclose(wide["nDCG@3_var"], base["nDCG@3_var"] * ratio**2, rtol=1e-12)
    assert (wide["nDCG@3"] < base["nDCG@3"]).all()
    np.testing.assert_array_equal(wide["RR"], base["RR"])


def test_ideal_labels_bad_input():
    scores, labels, ideal = _toy()
    with pytest.raises(ValueError, match="one sequence per row"):
        rankaudit.evaluate(scores, labels, ideal_labels=ideal[:1])
    with pytest.raises(ValueError, match="below that of its own candidates"):
        rankaudit.evaluate(scores, labels, ideal_labels=[[1], [1]])
