"""Full-row permutations make input order right in expectation; moving the relevant item does
not."""

from __future__ import annotations

import numpy as np
import pytest

from rankaudit import evaluate
from rankbook.ties.row_permutation import restore_rows


def _all_tied(n: int, m: int):
    labels = np.zeros((n, m))
    labels[:, 0] = 1
    return np.zeros((n, m)), labels


def test_relevant_last_is_the_pessimistic_bound_and_first_the_optimistic() -> None:
    s, y = _all_tied(5, 8)
    for how, rule in (("relevant_last", "pessimistic"), ("relevant_first", "optimistic")):
        s2, y2 = restore_rows(s, y, how)
        io = evaluate(s2, y2, k=3, ties="input_order")["nDCG@3"]
        np.testing.assert_allclose(io, evaluate(s, y, k=3, ties=rule)["nDCG@3"], atol=1e-15)


def test_full_row_permutation_is_unbiased_over_permutations() -> None:
    s, y = _all_tied(4000, 8)
    s2, y2 = restore_rows(s, y, "full_row_permutation", seed=1)
    assert sorted(map(tuple, np.sort(s2, axis=1))) == sorted(map(tuple, np.sort(s, axis=1)))
    assert (y2.sum(axis=1) == 1).all()
    mean = evaluate(s2, y2, k=3, ties="input_order")["Success@3"].mean()
    assert mean == pytest.approx(3 / 8, abs=4 * np.sqrt(3 / 8 * 5 / 8 / 4000))
    with pytest.raises(ValueError, match="how"):
        restore_rows(s, y, "shuffle")
