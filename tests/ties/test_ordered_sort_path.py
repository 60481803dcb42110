"""The O(n log n) sort path of the deterministic rules (rows with many relevant items).

Rows with more than ``SORT_ABOVE`` relevant items are ranked by one stable sort
instead of one pass per relevant item; both paths must give exactly the ranks of
the sort-based reference :func:`rankaudit.ties.ranking.rank_candidates`, so the
metrics agree bit for bit with the per-item path on the same row.
"""

import numpy as np
import pytest

from rankaudit import evaluate
from rankaudit.measures.row_metrics import metrics_of_ranking
from rankaudit.measures.row_ordered import SORT_ABOVE
from rankaudit.ties.ranking import DETERMINISTIC_RULES, rank_candidates


def _rows(seed, n_rows=40, n=120, levels=4):
    rng = np.random.default_rng(seed)
    s = rng.integers(0, levels, (n_rows, n)).astype(np.float64)
    y = rng.integers(1, 4, (n_rows, n)) * (rng.random((n_rows, n)) < rng.random((n_rows, 1)) * 0.5)
    items = np.stack([rng.permutation(np.arange(-n, n))[:n] for _ in range(n_rows)])
    return s, y, items


@pytest.mark.parametrize("rule", DETERMINISTIC_RULES)
@pytest.mark.parametrize("k", [1, 10, 200])
def test_sort_path_equals_reference(rule, k):
    s, y, items = _rows(k)
    assert ((y > 0).sum(axis=1) > SORT_ABOVE).any()  # the sort path runs
    assert ((y > 0).sum(axis=1) <= SORT_ABOVE).any()  # and the per-item path
    order = rank_candidates(s, y, ties=rule, seed=3, item_ids=items)
    want = metrics_of_ranking(y, order, k)
    got = evaluate(s, y, k=k, ties=rule, seed=3, item_ids=items, empty="zero")
    for name, values in want.items():
        np.testing.assert_allclose(got[name], values, rtol=0, atol=1e-12, err_msg=name)


@pytest.mark.parametrize("rule", DETERMINISTIC_RULES)
def test_sort_path_is_bit_identical_to_per_item_path(rule):
    """Bit for bit: the sort path's NDCG equals the kernel's formula (gains divided by
    log2(rank + 1), summed in rank order, IDCG from labels sorted decreasingly) applied to the
    reference ranks."""
    rng = np.random.default_rng(7)
    n = 60
    s = rng.integers(0, 3, (1, n)).astype(np.float32)
    y = np.zeros((1, n), dtype=np.int64)
    y[0, rng.choice(n, SORT_ABOVE + 1, replace=False)] = rng.integers(1, 5, SORT_ABOVE + 1)
    items = rng.permutation(n)[None, :]
    order = rank_candidates(s, y, ties=rule, seed=11, item_ids=items)
    ranked = np.take_along_axis(y, order, axis=1)[0]
    ranks = np.flatnonzero(ranked > 0) + 1
    gains = ranked[ranks - 1].astype(np.float64)
    dcg = 0.0  # trec_eval's arithmetic: gain / log2(rank + 1), summed in rank order
    for g, r in zip(gains, ranks, strict=True):
        dcg += g / np.log2(r + 1.0) if r <= 10 else 0.0
    ideal = np.sort(y[0][y[0] > 0].astype(np.float64))[::-1]
    idcg = 0.0
    for i, g in enumerate(ideal):
        idcg += g / np.log2(i + 2.0) if i < 10 else 0.0
    got = evaluate(s, y, k=10, ties=rule, seed=11, item_ids=items)
    assert got["nDCG@10"].item() == dcg / idcg
    assert got["RR"].item() == 1.0 / ranks[0]


def test_all_tied_all_relevant_row_is_perfect_under_hash():
    n = 40
    s = np.zeros((1, n))
    y = np.ones((1, n))
    items = np.arange(n)[None, :]
    got = evaluate(s, y, k=5, ties="hash", item_ids=items)
    assert got["RR"].item() == 1.0 and got["nDCG@5"].item() == pytest.approx(1.0, abs=1e-15)


@pytest.mark.parametrize("rule", DETERMINISTIC_RULES)
def test_big_row_many_relevant_is_fast_enough_to_run(rule):
    """40,000 candidates, about 20,000 relevant (issue 16): runs (O(n log n)) and agrees
    with the reference; no timing assert (timings live in benchmarks/)."""
    rng = np.random.default_rng(0)
    n = 40_000
    s = rng.integers(0, 50, (1, n)).astype(np.float64)
    y = (rng.random((1, n)) < 0.5).astype(np.int8)
    items = rng.permutation(n)[None, :]
    got = evaluate(s, y, k=10, ties=rule, item_ids=items)
    order = rank_candidates(s, y, ties=rule, seed=0, item_ids=items)
    want = metrics_of_ranking(y, order, 10)
    for name, values in want.items():
        np.testing.assert_allclose(got[name], values, rtol=0, atol=1e-12, err_msg=name)
