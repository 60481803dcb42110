"""Bad input raises a ValueError naming the problem and the first offending row."""

import numpy as np
import pandas as pd
import pytest

from rankaudit import evaluate, tie_prevalence
from rankaudit.ties.validation import batch_from_arrays, narrow_labels


def _ok(n_rows=4, n=5):
    s = np.arange(n_rows * n, dtype=float).reshape(n_rows, n) % 3
    y = np.zeros((n_rows, n))
    y[:, 0] = 1
    return s, y


@pytest.mark.parametrize("bad", [np.nan, np.inf, -np.inf])
@pytest.mark.parametrize("ties", ["expected", "hash", "random", "input_order"])
def test_non_finite_scores(bad, ties):
    s, y = _ok()
    s[2, 3] = bad
    kw = {"item_ids": np.tile(np.arange(5), (4, 1))} if ties == "hash" else {}
    with pytest.raises(ValueError, match=r"scores: row 2 has a non-finite score .* candidate 3"):
        evaluate(s, y, ties=ties, **kw)


def test_non_finite_score_in_row_without_relevant_item():
    s, y = _ok()
    y[1] = 0
    s[1, 4] = np.nan
    with pytest.raises(ValueError, match="scores: row 1 has a non-finite"):
        evaluate(s, y, empty="zero")


def test_shapes_differ():
    s, y = _ok()
    with pytest.raises(ValueError, match="shapes differ: row 0 has 5 scores but 4 labels"):
        evaluate(s, y[:, :4])
    with pytest.raises(ValueError, match="scores has 4 rows but labels has 3; row 3"):
        evaluate(s, y[:3])
    with pytest.raises(ValueError, match="shapes differ: row 1 has 2 scores but 3 labels"):
        evaluate([[1, 2], [1, 2]], [[1, 0], [1, 0, 0]])
    with pytest.raises(ValueError, match="must be 2-D"):
        evaluate(s[0], y[0])


@pytest.mark.parametrize("ties", ["expected", "pessimistic", "random"])
def test_negative_or_nan_labels(ties):
    s, y = _ok()
    y[3, 2] = -1
    with pytest.raises(ValueError, match=r"labels: row 3 has an invalid label -1.0 at candidate 2"):
        evaluate(s, y, ties=ties)
    y[3, 2] = np.nan
    with pytest.raises(ValueError, match="labels: row 3 has an invalid label nan"):
        evaluate(s, y, ties=ties)


def test_non_numeric_labels_and_scores():
    s, y = _ok()
    ylist = y.tolist()
    ylist[1][2] = "relevant"
    with pytest.raises(ValueError, match="labels: row 1 holds a non-numeric value 'relevant'"):
        evaluate(s, ylist)
    with pytest.raises(ValueError, match="labels: row 0 holds a non-numeric value"):
        evaluate(s, y.astype(str))
    slist = s.tolist()
    slist[2][0] = None
    with pytest.raises(ValueError, match="scores: row 2 holds a non-numeric value None"):
        evaluate(slist, y)


@pytest.mark.parametrize("k", [0, -3, 2.5, 10.0, "10", True])
def test_bad_k(k):
    s, y = _ok()
    with pytest.raises(ValueError, match="k must be an integer >= 1"):
        evaluate(s, y, k=k)


def test_unknown_rule_lists_valid_ones():
    s, y = _ok()
    with pytest.raises(
        ValueError,
        match="ties='stable' is not a tie rule; valid rules are: input_order, hash, random, "
        "expected, pessimistic, optimistic",
    ):
        evaluate(s, y, ties="stable")


def test_hash_needs_distinct_item_ids():
    s, y = _ok()
    with pytest.raises(ValueError, match="ties='hash' needs item_ids"):
        evaluate(s, y, ties="hash")
    items = np.tile(np.arange(5), (4, 1))
    items[2, 4] = 1
    with pytest.raises(ValueError, match="item_ids: row 2 repeats item id 1 at candidate 4"):
        evaluate(s, y, ties="hash", item_ids=items)
    str_items = items.astype(str)
    with pytest.raises(ValueError, match="item_ids: row 2 repeats item id '1'"):
        evaluate(s, y, ties="hash", item_ids=str_items)


def test_zero_rows():
    with pytest.raises(ValueError, match="zero rows"):
        evaluate(np.zeros((0, 5)), np.zeros((0, 5)))
    with pytest.raises(ValueError, match="zero rows"):
        evaluate(pd.DataFrame({"row_id": [], "score": [], "label": []}))


def test_rows_without_relevant_item():
    s, y = _ok()
    y[1] = 0
    y[3] = 0
    with pytest.raises(ValueError, match=r"labels: row 1 has no relevant item .* 2 of 4 rows"):
        evaluate(s, y)
    zero = evaluate(s, y, empty="zero", return_variance=True)
    assert len(zero) == 4 and (zero.iloc[[1, 3], 1:] == 0).all().all()
    dropped = evaluate(s, y, empty="drop")
    assert dropped["row"].tolist() == [0, 2]
    with pytest.raises(ValueError, match="empty='skip' is not valid"):
        evaluate(s, y, empty="skip")


def test_misused_options():
    s, y = _ok()
    with pytest.raises(ValueError, match="n_repeats=5 applies only to ties='random'"):
        evaluate(s, y, n_repeats=5)
    with pytest.raises(ValueError, match="n_repeats must be an integer >= 1"):
        evaluate(s, y, ties="random", n_repeats=0)
    with pytest.raises(ValueError, match="return_variance=True applies only to ties='expected'"):
        evaluate(s, y, ties="hash", return_variance=True, item_ids=np.tile(np.arange(5), (4, 1)))
    with pytest.raises(ValueError, match="seed must be an integer"):
        evaluate(s, y, ties="random", seed=1.5)
    with pytest.raises(ValueError, match="user_ids must be 1-D with one id per row"):
        evaluate(s, y, user_ids=[1, 2])


def test_prevalence_validates_too():
    s, y = _ok()
    s[1, 1] = np.nan
    with pytest.raises(ValueError, match="scores: row 1 has a non-finite"):
        tie_prevalence(s, y)


def test_dtypes_accepted_without_copy_semantics_changing_results():
    s, y = _ok()
    ref = evaluate(s, y)
    for sd in (np.float32, np.float64, np.int64, np.int8):
        for yd in (np.int8, np.uint8, np.int64, np.float32, bool):
            got = evaluate(s.astype(sd), y.astype(yd))
            np.testing.assert_allclose(got["nDCG@10"], ref["nDCG@10"], atol=1e-12)


def test_batches_hand_the_kernels_read_only_views_without_copying_scores():
    s, y = _ok()
    batch = batch_from_arrays(s, y.astype(np.int8))
    assert not batch.scores.flags.writeable and not batch.labels.flags.writeable
    assert np.shares_memory(batch.scores, s)  # a view, not a copy
    assert s.flags.writeable  # the caller's array keeps its flag
    frozen = s.copy()
    frozen.flags.writeable = False
    np.testing.assert_array_equal(evaluate(frozen, y)["nDCG@10"], evaluate(s, y)["nDCG@10"])


@pytest.mark.parametrize("dtype", [np.int16, np.int32, np.int64, np.uint8, np.uint64, bool])
def test_integer_labels_that_fit_are_narrowed_to_int8_with_their_values(dtype):
    labels = np.array([0, 1, 1, 0, 1], dtype=dtype)
    out = narrow_labels(labels)
    assert out.dtype == np.int8
    np.testing.assert_array_equal(out, labels.astype(np.int64))


@pytest.mark.parametrize("values", [[0, 128], [-129, 1], [0, 2**40]])
def test_integer_labels_outside_int8_keep_their_dtype(values):
    labels = np.array(values, dtype=np.int64)
    out = narrow_labels(labels)
    assert out.dtype == np.int64
    np.testing.assert_array_equal(out, labels)


def test_float_labels_are_not_narrowed():
    labels = np.array([0.0, 1.0, 2.0])
    assert narrow_labels(labels) is labels


def test_graded_labels_beyond_int8_give_the_same_measures_as_float_labels():
    rng = np.random.default_rng(3)
    scores = rng.integers(0, 4, (20, 9)).astype(np.float64)
    labels = rng.integers(0, 300, (20, 9))
    as_int = evaluate(scores, labels, k=5, ties="expected")
    as_float = evaluate(scores, labels.astype(np.float64), k=5, ties="expected")
    pd.testing.assert_frame_equal(as_int, as_float)
