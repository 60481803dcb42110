"""Issue 16 reproducers in the tie-aware core: exact ties, odd k, bad labels, odd dtypes."""

import subprocess
import sys

import numpy as np
import pytest

from rankaudit import evaluate
from rankaudit.ties.prevalence import tie_prevalence
from rankaudit.ties.ranking import TIE_RULES

BIG = 2**53


def _ev(scores, labels, rule="input_order", **kw):
    n = len(labels[0])
    kw.setdefault("item_ids", [list(range(n))] * len(labels))
    return evaluate(scores, labels, ties=rule, **kw)


@pytest.mark.parametrize(
    "scores",
    [
        [[BIG, BIG + 1]],  # list of Python ints (int64)
        np.array([[BIG, BIG + 1]], dtype=np.int64),
        np.array([[2**63, 2**63 + 1]], dtype=np.uint64),
        [[2**63, 2**63 + 1]],  # NumPy would make this float64
        [[2**64, 2**64 + 1]],  # object array
        [[-(2**63) - 1, -(2**63)]],
    ],
)
def test_large_integer_scores_are_compared_exactly(scores):
    # the second candidate scores higher, so the relevant first one is at rank 2
    for rule in ("input_order", "optimistic", "hash", "expected"):
        got = _ev(scores, [[1, 0]], rule)
        assert got["RR"].item() == 0.5, rule


def test_mixed_python_int_and_float_scores_are_exact():
    got = _ev([[BIG + 1, 0.5, float(BIG)]], [[0, 0, 1]])
    assert got["RR"].item() == 0.5


def test_ragged_rows_of_mixed_dtypes_stay_exact():
    rows = [np.array([2**60, 2**60 + 1]), np.array([0.5])]
    got = evaluate(rows, [[1, 0], [1]], ties="input_order")
    assert got["RR"].tolist() == [0.5, 1.0]


def test_long_double_scores_work_and_keep_their_precision():
    a = np.ones((1, 2), dtype=np.longdouble)
    a[0, 1] += np.finfo(np.longdouble).eps  # one ulp above 1: not a tie
    exact = np.finfo(np.longdouble).eps < np.finfo(np.float64).eps
    for rule in ("input_order", "expected", "pessimistic"):
        got = evaluate(a, [[1, 0]], ties=rule)
        assert got["RR"].item() == (
            0.5 if exact else pytest.approx(0.75 if rule == "expected" else 0.5)
        )


def test_negative_zero_ties_with_zero_and_float32_stays_float32():
    got = evaluate(np.array([[-0.0, 0.0]], dtype=np.float32), [[0, 1]], ties="expected")
    assert got["RR"].item() == 0.75  # a tie: expected rank 1.5
    # 0.1 in float32 and float64 differ; each is compared as given, not re-rounded
    s32 = np.array([[np.float32(0.1), np.float32(0.1)]])
    assert s32.dtype == np.float32
    assert evaluate(s32, [[1, 0]], ties="expected")["RR"].item() == 0.75


@pytest.mark.parametrize("label", [np.inf, 1e160, 2.0**53, np.nan, -1.0])
@pytest.mark.parametrize("rule", TIE_RULES)
def test_infinite_or_huge_labels_are_rejected(label, rule):
    kw = {"return_variance": True} if rule == "expected" else {}
    with pytest.raises(ValueError, match=r"labels: row 0 has an invalid label .* at candidate 0"):
        _ev([[1.0, 1.0]], [[label, 0.0]], rule, **kw)
    with pytest.raises(ValueError, match="invalid label"):
        tie_prevalence([[1.0, 1.0]], [[label, 0.0]])


def test_largest_allowed_label_gives_finite_variance():
    got = evaluate([[1.0, 1.0]], [[2.0**53 - 1, 1.0]], return_variance=True)
    assert np.isfinite(got.to_numpy(dtype=float)).all()


@pytest.mark.parametrize(
    "k", [np.uint64(2**64 - 1), 2**64 - 1, 2**70, np.int64(2**63 - 1), np.uint8(200), np.int16(3)]
)
@pytest.mark.parametrize("rule", TIE_RULES)
def test_odd_integer_k_equals_the_row_length_cutoff(k, rule):
    rng = np.random.default_rng(1)
    s = rng.integers(0, 3, (20, 9)).astype(float)
    y = rng.integers(0, 3, (20, 9))
    y[:, 0] = 1
    items = np.tile(np.arange(9), (20, 1))
    got = evaluate(s, y, k=k, ties=rule, item_ids=items)
    want = evaluate(s, y, k=min(int(k), 9), ties=rule, item_ids=items)
    np.testing.assert_array_equal(got.iloc[:, 1:].to_numpy(), want.iloc[:, 1:].to_numpy())
    assert got.columns[1] == f"Success@{int(k)}"
    assert (got[f"Success@{int(k)}"] == 1.0).all() or int(k) < 9
    prev = tie_prevalence(s, y, k=k).summary
    assert (
        prev["frac_boundary_tie"]
        == tie_prevalence(s, y, k=min(int(k), 10)).summary["frac_boundary_tie"]
    )


def test_uint64_k_in_a_fresh_process():
    """The issue's reproducer ran in a fresh process (numba's first compilation)."""
    code = (
        "import numpy as np, rankaudit\n"
        "s = np.zeros((1, 31)); y = np.zeros((1, 31)); y[0, 5] = 1\n"
        "r = rankaudit.evaluate(s, y, k=np.uint64(2**64 - 1), ties='input_order')\n"
        "print(r.iloc[0, 1], r.iloc[0, 2])\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    hr, ndcg = map(float, out.stdout.split())
    assert hr == 1.0 and ndcg == pytest.approx(1 / np.log2(7))


def test_bool_k_and_float_k_are_rejected():
    for k in (True, 2.0, np.float64(3)):
        with pytest.raises(ValueError, match="k must be an integer"):
            evaluate([[1.0, 0.0]], [[1, 0]], k=k)


# --------------------------------------------------------------------------- audit_row_order
def _small():
    rng = np.random.default_rng(0)
    s = rng.integers(0, 2, (5, 6)).astype(float)
    y = np.zeros((5, 6))
    y[:, 0] = 1
    return s, y


def test_audit_row_order_refuses_nan_from_the_evaluator():
    from rankaudit.ties.invariance import audit_row_order

    s, y = _small()

    def nan_eval(scores, labels):
        out = scores[:, 0].copy()
        out[2] = np.nan
        return out

    with pytest.raises(ValueError, match=r"non-finite value nan on the input order \(row 2"):
        audit_row_order(nan_eval, s, y, n_permutations=3)
    calls = []

    def nan_later(scores, labels):
        calls.append(1)
        return np.full(5, np.nan) if len(calls) > 1 else np.zeros(5)

    with pytest.raises(ValueError, match="after permutation 0"):
        audit_row_order(nan_later, s, y, n_permutations=3)


@pytest.mark.parametrize("atol", ["1e-12", None, -1.0, np.nan, np.inf, True])
def test_audit_row_order_checks_atol_before_running(atol):
    from rankaudit.ties.invariance import audit_row_order

    s, y = _small()
    calls = []

    def ev(scores, labels):
        calls.append(1)
        return scores[:, 0]

    with pytest.raises(ValueError, match="atol must be a finite number >= 0"):
        audit_row_order(ev, s, y, atol=atol)
    assert calls == []


@pytest.mark.parametrize("seed", ["0", 1.5, None])
def test_audit_row_order_checks_seed_before_running(seed):
    from rankaudit.ties.invariance import audit_row_order

    s, y = _small()
    with pytest.raises(ValueError, match="seed must be an integer"):
        audit_row_order(lambda a, b: a[:, 0], s, y, seed=seed)


def test_audit_row_order_negative_and_huge_seeds_work():
    from rankaudit.ties.invariance import audit_row_order

    s, y = _small()
    for seed in (-1, 2**70):
        res = audit_row_order(lambda a, b: evaluate(a, b), s, y, n_permutations=2, seed=seed)
        assert res.is_invariant


def test_audit_row_order_non_numeric_output_is_a_value_error():
    from rankaudit.ties.invariance import audit_row_order

    s, y = _small()
    with pytest.raises(ValueError, match="not numeric"):
        audit_row_order(lambda a, b: np.array(["x"] * 5), s, y, n_permutations=1)


# --------------------------------------------------------------------------- ids and long format
def _long(**cols):
    import pandas as pd

    base = {"row_id": [0, 0, 0], "item_id": [1, 2, 3], "score": [1.0, 1.0, 0.0], "label": [1, 0, 0]}
    base.update(cols)
    return pd.DataFrame(base)


def test_duplicate_column_names_in_long_format_are_refused():
    df = _long()
    df.insert(2, "dup", [9.0, 0.0, 0.0])
    df.columns = ["row_id", "item_id", "score", "score", "label"]
    for rule in TIE_RULES:
        with pytest.raises(ValueError, match=r"LongColumns.score='score' names 2 columns"):
            evaluate(df, ties=rule)
    with pytest.raises(ValueError, match="names 2 columns"):
        tie_prevalence(df)
    df.columns = ["row_id", "label", "score", "x", "label"]
    with pytest.raises(ValueError, match=r"LongColumns.label='label' names 2 columns"):
        evaluate(df)


def test_long_format_object_scores_with_big_ints_are_exact():
    df = _long(score=np.array([BIG, BIG + 1, 0], dtype=object))
    assert evaluate(df, ties="input_order")["RR"].item() == 0.5


@pytest.mark.parametrize(
    "items, message",
    [
        ([[1, None, 3]], r"item_ids: row 0 candidate 1 is None"),
        ([[1, 2.5, 3]], r"item_ids: row 0 candidate 1 is 2.5"),
        ([[1, True, 3]], r"item_ids: row 0 candidate 1 is True"),
    ],
)
def test_bad_item_ids_name_their_position(items, message):
    with pytest.raises(ValueError, match=message):
        evaluate(
            [[1.0, 1.0, 0.0]], [[1, 0, 0]], ties="hash", item_ids=np.array(items, dtype=object)
        )


def test_item_id_none_in_long_format():
    df = _long(item_id=[1, None, 3])
    with pytest.raises(ValueError, match="item_id: DataFrame line 1 has a missing value"):
        evaluate(df, ties="hash")


@pytest.mark.parametrize(
    "ids",
    [[2**63, 2**63 + 1, 2**64 + 5], [-1, -(2**63) - 7, 2**70], [1, "1", b"1"], [-1, 2**64 - 1, 0]],
)
def test_python_int_ids_any_size_and_mixed_types_are_distinct(ids):
    from rankaudit.measures.hashing import id64, tie_hash

    s = [[1.0, 1.0, 1.0]]
    y = [[1, 0, 0]]
    got = evaluate(s, y, ties="hash", item_ids=[ids], user_ids=[7], seed=3)
    # the reference: order by tie_hash (ids modulo 2**64), collisions by the id itself
    keys = [tie_hash(3, 7, i) for i in ids]
    rank = 1 + sum(
        (kj < keys[0]) or (kj == keys[0] and j < 0) for j, kj in enumerate(keys) if j != 0
    )
    if ids == [-1, 2**64 - 1, 0]:  # -1 and 2**64 - 1 share a key (id64 is modulo 2**64)
        assert id64(-1) == id64(2**64 - 1)
        rank = 1 + (keys[2] < keys[0])  # ids -1 < 2**64 - 1: -1 goes first on the collision
    assert got["RR"].item() == 1.0 / rank


def test_int_and_str_ids_are_not_a_repeat():
    got = evaluate([[1.0, 1.0]], [[1, 0]], ties="hash", item_ids=[np.array([1, "1"], dtype=object)])
    assert got["RR"].item() in (0.5, 1.0)
    with pytest.raises(ValueError, match="repeats item id"):
        evaluate([[1.0, 1.0]], [[1, 0]], ties="hash", item_ids=[np.array([1, 1], dtype=object)])
