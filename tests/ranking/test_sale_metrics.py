"""MRR of the sold item: tie rules against brute force over tie orders; ragged SERPs."""

import itertools
import math

import numpy as np
import pandas as pd
import pytest

from rankbook.ranking.sale_metrics import sale_rr, sale_tie_prevalence


def brute_rr(scores, sold, rule):
    n = len(scores)
    if rule == "input_order":
        order = sorted(range(n), key=lambda i: -scores[i])  # stable
        return 1 / (order.index(int(np.flatnonzero(sold)[0])) + 1)
    vals = []
    for perm in itertools.permutations(range(n)):
        order = sorted(perm, key=lambda i: -scores[i])
        first = min(order.index(i) for i in np.flatnonzero(sold))
        vals.append(1 / (first + 1))
    return float(np.mean(vals))


def make_frame(rng, n_q=25):
    rows = []
    for q in range(n_q):
        n = int(rng.integers(2, 7))  # ragged
        lab = rng.integers(0, 2, n)
        if q % 4:
            lab[rng.integers(0, n)] = 2
        for i in range(n):
            rows.append((q, 100 + i, int(lab[i]), float(rng.integers(0, 3))))
    return pd.DataFrame(rows, columns=["query_id", "item_id", "label", "score"])


@pytest.mark.parametrize("rule", ["expected", "input_order"])
def test_sale_rr_equals_brute_force(rule):
    f = make_frame(np.random.default_rng(0))
    got = sale_rr(f, f.score.to_numpy(), ties=rule)
    for q, g in f.groupby("query_id"):
        sold = g.label.to_numpy() == 2
        if not sold.any():
            assert q not in got.index  # only queries with a sale
            continue
        assert got[q] == pytest.approx(brute_rr(g.score.to_numpy(), sold, rule), abs=1e-12)


def test_clicks_are_not_relevant():
    f = pd.DataFrame({"query_id": [1, 1, 1], "item_id": [1, 2, 3], "label": [1, 0, 2]})
    assert sale_rr(f, np.array([3.0, 2.0, 1.0]))[1] == pytest.approx(1 / 3)


def test_all_tied_expected_rr():
    f = pd.DataFrame({"query_id": [0] * 4, "item_id": range(4), "label": [2, 0, 0, 0]})
    got = sale_rr(f, np.zeros(4))[0]
    assert got == pytest.approx(sum(1 / r for r in range(1, 5)) / 4)
    assert sale_rr(f, np.zeros(4), ties="input_order")[0] == 1.0  # the logged order leaks in
    tp = sale_tie_prevalence(f, np.zeros(4), k=2)
    assert tp["frac_relevant_tied"] == 1.0
    assert math.isfinite(tp["mean_relevant_block_size"])


def test_no_sale_raises():
    f = pd.DataFrame({"query_id": [0, 0], "item_id": [1, 2], "label": [1, 0]})
    with pytest.raises(ValueError, match="sale"):
        sale_rr(f, np.zeros(2))
    with pytest.raises(ValueError, match="scores"):
        sale_rr(f, np.zeros(3))
