"""Reference metric definitions on hand-computed examples."""

import math

import numpy as np
import pytest

from rankaudit.measures.row_metrics import (
    dcg_at_k,
    hit_rate_at_k,
    metrics_of_ranking,
    ndcg_at_k,
    reciprocal_rank,
)


def test_dcg_hand_computed():
    assert dcg_at_k([3, 2, 0, 1], 10) == pytest.approx(3 + 2 / math.log2(3) + 1 / math.log2(5))
    assert dcg_at_k([3, 2, 0, 1], 2) == pytest.approx(3 + 2 / math.log2(3))


def test_ndcg_uses_ideal_of_own_labels():
    ideal = 3 + 2 / math.log2(3) + 1 / math.log2(4)
    got = ndcg_at_k([0, 3, 2, 1], 3)
    assert got == pytest.approx((3 / math.log2(3) + 2 / math.log2(4)) / ideal)
    assert ndcg_at_k([0, 0, 0], 3) == 0.0


def test_hit_rate_and_rr():
    assert hit_rate_at_k([0, 0, 1], 2) == 0.0
    assert hit_rate_at_k([0, 0, 1], 3) == 1.0
    assert reciprocal_rank([0, 0, 2, 1]) == pytest.approx(1 / 3)
    assert reciprocal_rank([0, 0]) == 0.0


def test_metrics_of_ranking_batches_rows():
    labels = np.array([[1, 0, 0], [0, 0, 1]])
    order = np.array([[2, 1, 0], [2, 0, 1]])
    out = metrics_of_ranking(labels, order, k=2)
    np.testing.assert_allclose(out["Success@2"], [0, 1])
    np.testing.assert_allclose(out["RR"], [1 / 3, 1])
