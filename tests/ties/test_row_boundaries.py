"""The SIMD scans read whole 8-candidate vectors past a row's end and mask those lanes.

These tests pin what that must never change: a row's result does not depend on
its neighbours, and a bad value right after a short row is blamed on the row
that holds it.
"""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rankaudit import evaluate, tie_prevalence
from rankaudit.ties.ranking import TIE_RULES

RULES = [r for r in TIE_RULES if r != "hash"] + ["hash"]


def _kw(ties, rows):
    if ties != "hash":
        return {}
    return {"item_ids": [np.arange(len(r)) for r in rows]}


@pytest.mark.parametrize("ties", RULES)
@pytest.mark.parametrize("short", [1, 3, 7, 9, 15])
def test_bad_score_after_a_short_row_is_blamed_on_its_own_row(ties, short):
    rows_s = [np.zeros(short), np.array([np.nan, 0.0, 1.0]), np.zeros(4)]
    rows_y = [np.eye(1, short)[0], np.array([0.0, 1.0, 0.0]), np.array([1.0, 0, 0, 0])]
    with pytest.raises(ValueError, match=r"scores: row 1 has a non-finite score .* candidate 0"):
        evaluate(rows_s, rows_y, ties=ties, **_kw(ties, rows_s))


@pytest.mark.parametrize("ties", RULES)
@pytest.mark.parametrize("short", [1, 5, 13])
def test_bad_label_after_a_short_row_is_blamed_on_its_own_row(ties, short):
    rows_s = [np.zeros(short), np.zeros(3)]
    rows_y = [np.eye(1, short)[0], np.array([-1.0, 1.0, 0.0])]
    with pytest.raises(ValueError, match=r"labels: row 1"):
        evaluate(rows_s, rows_y, ties=ties, **_kw(ties, rows_s))


def test_row_without_relevant_item_before_relevant_neighbour():
    # the masked lanes of row 0 hold row 1's relevant item: row 0 must still count as empty
    rows_s = [np.zeros(3), np.zeros(5)]
    rows_y = [np.zeros(3), np.array([1.0, 1, 1, 1, 1])]
    with pytest.raises(ValueError, match=r"row 0 has no relevant item"):
        evaluate(rows_s, rows_y)
    out = evaluate(rows_s, rows_y, empty="zero")
    assert out["RR"].tolist() == [0.0, 1.0]
    assert tie_prevalence(rows_s, rows_y).rows["n_relevant"].tolist() == [0, 5]


@st.composite
def ragged_batches(draw):
    n_rows = draw(st.integers(1, 6))
    rows_s, rows_y = [], []
    for _ in range(n_rows):
        n = draw(st.integers(1, 19))
        rows_s.append(np.array(draw(st.lists(st.integers(0, 2), min_size=n, max_size=n)), float))
        y = np.array(draw(st.lists(st.integers(0, 2), min_size=n, max_size=n)), float)
        y[draw(st.integers(0, n - 1))] = draw(st.integers(1, 3))
        rows_y.append(y)
    return rows_s, rows_y


@settings(max_examples=60, deadline=None)
@given(batch=ragged_batches(), ties=st.sampled_from(RULES))
def test_each_row_scores_as_if_alone(batch, ties):
    rows_s, rows_y = batch
    together = evaluate(
        rows_s, rows_y, ties=ties, user_ids=np.arange(len(rows_s)), **_kw(ties, rows_s)
    )
    for i, (s, y) in enumerate(zip(rows_s, rows_y, strict=True)):
        kw = {"item_ids": [np.arange(len(s))]} if ties == "hash" else {}
        alone = evaluate([s], [y], ties=ties, user_ids=[i], **kw)
        cols = alone.attrs["metric_columns"]
        np.testing.assert_array_equal(
            together.loc[i, cols].to_numpy(float), alone.loc[0, cols].to_numpy(float)
        )


@pytest.mark.parametrize("return_variance", [False, True])
def test_lookup_table_path_matches_formulas_bit_for_bit(return_variance):
    """Large batches of short rows read one-relevant results from a (g, t) table
    (``n_rows >= (max_len + 1) ** 2``); single rows use the formulas: same bits."""
    from rankaudit.measures.row_expected import TABLE_MAX_LEN
    from rankaudit.measures.row_reference import expected_metrics_reference

    rng = np.random.default_rng(7)
    n_rows, n = 300, 7
    assert n <= TABLE_MAX_LEN and n_rows >= (n + 1) ** 2
    scores = rng.integers(0, 3, (n_rows, n)).astype(float)
    labels = np.zeros((n_rows, n))
    labels[np.arange(n_rows), rng.integers(0, n, n_rows)] = rng.integers(1, 4, n_rows)
    labels[::10, 0] += 1  # some rows with two relevant items take the general path
    batch = evaluate(scores, labels, k=3, return_variance=return_variance)
    for i in range(0, n_rows, 7):
        alone = evaluate(scores[i : i + 1], labels[i : i + 1], k=3, return_variance=return_variance)
        np.testing.assert_array_equal(
            batch.iloc[i, 1:].to_numpy(float), alone.iloc[0, 1:].to_numpy(float)
        )
        means, variances = expected_metrics_reference(scores[i], labels[i], 3)
        for name, value in means.items():
            assert batch.loc[i, name] == pytest.approx(value, abs=1e-12)
            if return_variance:
                assert batch.loc[i, f"{name}_var"] == pytest.approx(variances[name], abs=1e-12)
