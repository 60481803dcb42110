"""Synthetic concept-overlap rows: shape, bounds, and sparsity -> ties."""

from __future__ import annotations

import numpy as np
import pytest

from rankaudit import tie_prevalence
from rankbook.data.concept_sparsity import concept_overlap_rows


def test_shapes_bounds_and_determinism() -> None:
    s, y = concept_overlap_rows(50, n_concepts=4, density=0.3, n_negatives=9, seed=2)
    assert s.shape == y.shape == (50, 10) and (y[:, 0] == 1).all() and y[:, 1:].sum() == 0
    assert s.min() >= 0 and s.max() <= 4 and np.array_equal(s, np.round(s))
    np.testing.assert_array_equal(
        s, concept_overlap_rows(50, n_concepts=4, density=0.3, n_negatives=9, seed=2)[0]
    )


def test_sparser_concepts_give_larger_relevant_blocks_and_a_larger_gap() -> None:
    from rankaudit import evaluate

    out = {}
    for d in (0.02, 0.4):
        s, y = concept_overlap_rows(2000, density=d, seed=0)
        block = tie_prevalence(s, y, k=10).summary["mean_relevant_block_size"]
        gap = (
            evaluate(s, y, k=10, ties="input_order")["nDCG@10"].mean()
            - evaluate(s, y, k=10, ties="expected")["nDCG@10"].mean()
        )
        out[d] = (block, gap)
    assert out[0.02][0] > 20 > out[0.4][0]
    assert out[0.02][1] > 0.4 > 0.2 > out[0.4][1]
    s, _ = concept_overlap_rows(100, density=0.0)
    assert (s == 0).all()


def test_bad_arguments_are_named() -> None:
    with pytest.raises(ValueError, match="density"):
        concept_overlap_rows(5, density=1.5)
    with pytest.raises(ValueError, match="n_concepts"):
        concept_overlap_rows(5, n_concepts=0)
