"""``rankaudit.evaluate(..., measures=...)``: any registered measure on rectangular rows, by the
same kernels as runs; HR@k / nDCG@k / RR equal the specialised row kernels under every rule
(the same bits under every rule that does not sample, the same draws under ``random``)."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import numpy as np
import pandas as pd
import pytest

from rankaudit.measures.rules import RULES as DECLARED
from rankaudit.measures.rules import TIE_RULES
from rankaudit.runs import evaluate_run
from rankaudit.runs.tables import Qrels, Run
from rankaudit.ties import evaluate
from rankaudit.ties.fast_path import default_measures, metric_names

RULES = ["expected", "input_order", "pessimistic", "optimistic", "hash"]
#: the documented rules that fix a value without sampling, read from the registry
UNSAMPLED = [n for n in TIE_RULES if DECLARED[n].order != "sample"]
PAIRS = [("Success@5", "Success@5"), ("nDCG@5", "nDCG@5"), ("RR", "RR")]
#: the fast path's measures with one more (P@5), so that the list kernels compute all four
LISTED = ["HR@5", "nDCG@5", "RR", "P@5"]


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
    b = evaluate(scores, labels, ties=ties, item_ids=items, measures=LISTED)
    np.testing.assert_allclose(a["Success@5"], b["Success@5"], atol=1e-12)
    np.testing.assert_allclose(a["nDCG@5"], b["nDCG@5"], atol=1e-12)
    np.testing.assert_allclose(a["RR"], b["RR"], atol=1e-12)


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
    with pytest.raises(ValueError, match="did you mean 'nDCG'"):
        evaluate(scores, labels, measures=["nDGC@10"])
    graded = labels.copy()
    graded[0, 0] = 5
    with pytest.raises(ValueError, match="above max_grade=4"):
        evaluate(scores, graded, measures=["ERR@5"])
    with pytest.raises(ValueError, match="needs item_ids"):
        evaluate(scores, labels, ties="hash", measures=["AP"])


def _graded(seed, n=300, m=25, top=4, one=False):
    """Random rows with many ties and graded labels (some rows with one relevant item; every
    row with ``one``)."""
    rng = np.random.default_rng(seed)
    scores = rng.integers(0, 4, (n, m)).astype(float)
    labels = rng.integers(0, top, (n, m)) * (rng.random((n, m)) < rng.random((n, 1)))
    if one:
        labels[:, 1:] = 0
    labels[:, 0] = np.maximum(labels[:, 0], 1)
    return scores, labels.astype(float), np.tile(np.arange(m), (n, 1))


@pytest.mark.parametrize("ties", TIE_RULES)
def test_every_documented_rule_works_with_and_without_measures(ties):
    scores, labels, items = _graded(0, n=20, m=8)
    a = evaluate(scores, labels, k=5, ties=ties, item_ids=items)
    b = evaluate(scores, labels, ties=ties, item_ids=items, measures=LISTED)
    assert len(a) == len(b) == 20
    for x, y in PAIRS:
        assert np.all(np.isfinite(a[x])) and np.all(np.isfinite(b[y]))


@pytest.mark.parametrize("one", [False, True])
@pytest.mark.parametrize("seed", [1, 2, 3])
@pytest.mark.parametrize("ties", UNSAMPLED)
def test_row_kernels_and_list_kernels_are_the_same_bits(ties, seed, one):
    """HR@k = Success@k, nDCG@k and RR: the row kernels sum as trec_eval and the list kernels
    do (label / log2(r+1) in rank order) and take the expectation by the same formulas
    (:mod:`rankaudit.measures.expectations`), rows with one relevant item included."""
    # 700 rows of one relevant item: the (g, t) table path of the expected kernel
    scores, labels, items = _graded(seed, n=700 if one else 300, top=3 + seed, one=one)
    a = evaluate(scores, labels, k=5, ties=ties, item_ids=items)
    declared = a.attrs["measures"]  # the fast path's declaration: a measure is its column
    assert declared == list(default_measures(5)) == list(metric_names(5))
    b = evaluate(scores, labels, ties=ties, item_ids=items, measures=[*declared, "P@5"])
    for x in declared:
        np.testing.assert_array_equal(a[x].to_numpy(), b[x].to_numpy(), err_msg=f"{ties} {x}")


@pytest.mark.parametrize("n_repeats", [1, 4])
def test_random_with_measures_takes_the_row_kernels_draws(n_repeats):
    """The same seed and user ids give the same tie orders on both paths: HR and RR (whose
    values do not depend on the order of a sum) are the same bits, their spread too."""
    scores, labels, _ = _graded(4, n=200, m=30)
    users = [f"u{i}" for i in range(len(scores))]
    kw = dict(ties="random", seed=9, n_repeats=n_repeats, user_ids=users)
    a = evaluate(scores, labels, k=5, **kw)
    b = evaluate(scores, labels, measures=LISTED, **kw)
    for x, y in PAIRS:
        np.testing.assert_allclose(a[x].to_numpy(), b[y].to_numpy(), rtol=0, atol=1e-15)
    np.testing.assert_array_equal(a["Success@5"].to_numpy(), b["Success@5"].to_numpy())
    np.testing.assert_array_equal(a["RR"].to_numpy(), b["RR"].to_numpy())
    if n_repeats > 1:
        np.testing.assert_array_equal(a["RR_std"].to_numpy(), b["RR_std"].to_numpy())
        assert b.attrs["measures"] == ["Success@5", "nDCG@5", "RR", "P@5"]
    else:
        assert not [c for c in b.columns if c.endswith("_std")]


def test_random_with_measures_is_row_order_invariant_and_seeded():
    scores, labels, _ = _graded(5, n=60, m=12)
    names = ["AP", "nDCG(dcg='exp-log2')@5", "ERR@5", "Bpref"]
    base = evaluate(scores, labels, ties="random", seed=3, n_repeats=3, measures=names)
    perm = np.random.default_rng(0).permuted(np.tile(np.arange(12), (60, 1)), axis=1)
    moved = evaluate(
        np.take_along_axis(scores, perm, 1),
        np.take_along_axis(labels, perm, 1),
        ties="random",
        seed=3,
        n_repeats=3,
        measures=names,
    )
    for name in names:
        np.testing.assert_array_equal(base[name].to_numpy(), moved[name].to_numpy())
    other = evaluate(scores, labels, ties="random", seed=4, n_repeats=3, measures=names)
    assert any(not np.array_equal(base[n].to_numpy(), other[n].to_numpy()) for n in names)


def test_random_with_measures_averages_to_the_expectation():
    """Many draws: each row's mean is within 5 standard errors of the exact expectation."""
    scores, labels, _ = _graded(6, n=40, m=10)
    names = ["AP", "nDCG@5", "P@3"]
    exact = evaluate(scores, labels, ties="expected", measures=names)
    drawn = evaluate(scores, labels, ties="random", n_repeats=4000, measures=names)
    for name in names:
        err = drawn[f"{name}_std"].to_numpy() / np.sqrt(4000)
        gap = np.abs(drawn[name].to_numpy() - exact[name].to_numpy())
        assert np.all(gap <= 5 * err + 1e-12), name


_CHILD = """
import json, sys
import numpy as np
import pandas as pd
from rankaudit.ties import evaluate
rng = np.random.default_rng(7)
s = rng.integers(0, 3, (30, 9)).astype(float)
y = rng.integers(0, 3, (30, 9)).astype(float)
y[:, 0] = 1
f = evaluate(s, y, ties="random", seed=5, n_repeats=2, user_ids=[f"user-{i}" for i in range(30)],
             measures=["AP", "RR"])
json.dump([f["AP"].tolist(), f["RR"].tolist()], sys.stdout)
"""


def test_random_with_measures_is_the_same_in_another_process():
    """String user ids enter through the library's own hash, never Python's salted hash()."""
    runs = []
    for salt in ("1", "2"):
        env = {**os.environ, "PYTHONHASHSEED": salt}
        out = subprocess.run(
            [sys.executable, "-c", _CHILD], env=env, capture_output=True, text=True, check=True
        )
        runs.append(json.loads(out.stdout))
    assert runs[0] == runs[1]


@pytest.mark.parametrize("ties", TIE_RULES)
def test_the_default_measures_named_take_the_one_dispatch(ties):
    """``measures=`` naming the fast path's measures (any order, any accepted spelling) is the
    default call: the same columns, in bits, ``*_var`` / ``*_std`` included; another measure
    beside them sends all of them to the list kernels, where ``return_variance`` is refused."""
    scores, labels, items = _graded(6, n=120, m=15)
    labels[:, 1] += 0.5  # fractional labels: accepted by the fast path only
    kw = dict(ties=ties, item_ids=items, seed=3)
    if DECLARED[ties].order == "expected":
        kw["return_variance"] = True
    if DECLARED[ties].order == "sample":
        kw["n_repeats"] = 3
    a = evaluate(scores, labels, k=10, **kw)
    b = evaluate(scores, labels, k=4, measures=["nDCG@10", "HR@10", "RR"], **kw)
    assert sorted(a.columns) == sorted(b.columns)
    assert list(b.columns)[1:4] == ["nDCG@10", "Success@10", "RR"]
    pd.testing.assert_frame_equal(a, b[a.columns], check_exact=True)
    assert a.attrs["measures"] == ["Success@10", "nDCG@10", "RR"]
    assert b.attrs["measures"] == ["nDCG@10", "Success@10", "RR"]
    if kw.get("return_variance"):
        with pytest.raises(ValueError, match=r"return_variance .*P@10"):
            evaluate(scores, labels.round(), measures=["nDCG@10", "P@10"], **kw)
    with pytest.raises(ValueError, match="whole-number grades"):
        evaluate(scores, labels, ties=ties, item_ids=items, measures=["nDCG@10", "P@10"])
