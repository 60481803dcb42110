"""``rankaudit.evaluate(..., measures=...)``: any registered measure on rectangular rows, by the
same kernels as runs; HR@k / nDCG@k / RR equal the specialised row kernels under every rule."""

from __future__ import annotations

import numpy as np
import pytest

from rankaudit.runs import evaluate_run
from rankaudit.runs.tables import Qrels, Run
from rankaudit.ties import evaluate

RULES = ["expected", "input_order", "pessimistic", "optimistic", "hash"]


def _rows(seed=0, n=150, m=12):
    rng = np.random.default_rng(seed)
    scores = rng.integers(0, 3, (n, m)).astype(float)
    labels = rng.integers(0, 3, (n, m)).astype(float)
    labels[:, 0] = np.maximum(labels[:, 0], 1)
    items = np.tile(np.arange(m), (n, 1))
    return scores, labels, items


@pytest.mark.parametrize("ties", RULES)
def test_default_measures_agree_with_the_row_kernels(ties):
    scores, labels, items = _rows()
    a = evaluate(scores, labels, k=5, ties=ties, item_ids=items)
    b = evaluate(scores, labels, ties=ties, item_ids=items, measures=["HR@5", "nDCG@5", "RR"])
    np.testing.assert_allclose(a["hr@5"], b["Success@5"], atol=1e-12)
    np.testing.assert_allclose(a["ndcg@5"], b["nDCG@5"], atol=1e-12)
    np.testing.assert_allclose(a["rr"], b["RR"], atol=1e-12)


@pytest.mark.parametrize("ties", ["expected", "input_order", "pessimistic", "optimistic"])
def test_rows_equal_the_same_rows_as_a_run(ties):
    scores, labels, _ = _rows(1, n=40)
    names = ["nDCG(dcg='exp-log2')@5", "AP", "Bpref", "ERR@5", "RBP(p=0.6)", "Rprec"]
    rows = evaluate(scores, labels, ties=ties, measures=names)
    n, m = scores.shape
    q = np.repeat([f"q{i:03d}" for i in range(n)], m)
    d = np.tile([f"d{j:02d}" for j in range(m)], n)
    run = Run.from_arrays(q, d, scores.reshape(-1))
    qrels = Qrels.from_arrays(q, d, labels.reshape(-1).astype(int))
    # input order = file order in a run; trec_eval's docno order is another rule
    frame = evaluate_run(run, qrels, names, ties=ties)
    for name in rows.attrs["measures"]:
        np.testing.assert_allclose(rows[name].to_numpy(), frame[name].to_numpy(), atol=1e-12)


def test_bad_input_names_the_argument():
    scores, labels, _ = _rows(n=3)
    half = labels.copy()
    half[1, 2] = 0.5
    with pytest.raises(ValueError, match="whole-number grades"):
        evaluate(scores, half, measures=["AP"])
    with pytest.raises(ValueError, match="ties='random' is for the default"):
        evaluate(scores, labels, ties="random", measures=["AP"])
    with pytest.raises(ValueError, match="did you mean 'nDCG'"):
        evaluate(scores, labels, measures=["nDGC@10"])
    graded = labels.copy()
    graded[0, 0] = 5
    with pytest.raises(ValueError, match="above max_grade=4"):
        evaluate(scores, graded, measures=["ERR@5"])
    with pytest.raises(ValueError, match="needs item_ids"):
        evaluate(scores, labels, ties="hash", measures=["AP"])
