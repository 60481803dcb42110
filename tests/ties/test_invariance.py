"""Row-order invariance (hypothesis) and the permutation audit."""

import numpy as np
import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from rankaudit import audit_row_order, evaluate
from rankaudit.ties.ranking import TIE_RULES

INVARIANT_RULES = [r for r in TIE_RULES if r != "input_order"]


@st.composite
def tied_batches(draw):
    n_rows = draw(st.integers(1, 4))
    n = draw(st.integers(1, 7))
    levels = draw(st.integers(1, 3))
    scores = np.array(
        draw(st.lists(st.integers(0, levels - 1), min_size=n_rows * n, max_size=n_rows * n)),
        dtype=np.float64,
    ).reshape(n_rows, n)
    labels = np.array(
        draw(
            st.lists(st.sampled_from([0, 0, 0, 1, 2, 3]), min_size=n_rows * n, max_size=n_rows * n)
        ),
        dtype=np.float64,
    ).reshape(n_rows, n)
    for i in range(n_rows):
        if not labels[i].any():
            labels[i, draw(st.integers(0, n - 1))] = draw(st.integers(1, 3))
    items = np.stack([draw(st.permutations(list(range(100, 100 + n)))) for _ in range(n_rows)])
    seed = draw(st.integers(0, 2**31))
    perm = np.argsort(np.random.default_rng(seed).random((n_rows, n)), axis=1)
    return scores, labels, items, perm


def _run(rule, s, y, items, k):
    kw = {"n_repeats": 3} if rule == "random" else {}
    return (
        evaluate(s, y, k=k, ties=rule, item_ids=items, seed=7, **kw)
        if rule == "hash"
        else (evaluate(s, y, k=k, ties=rule, seed=7, **kw))
    )


@pytest.mark.parametrize("rule", INVARIANT_RULES)
@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(batch=tied_batches(), k=st.integers(1, 5))
def test_rules_are_row_order_invariant(rule, batch, k):
    s, y, items, perm = batch
    take = lambda a: np.take_along_axis(a, perm, axis=1)  # noqa: E731
    before = _run(rule, s, y, items, k)
    after = _run(rule, take(s), take(y), take(items), k)
    # exactly equal, not just close: sums run in an order that does not depend on input order
    assert before.equals(after)


@settings(max_examples=60, deadline=None)
@given(batch=tied_batches(), k=st.integers(1, 5))
def test_input_order_is_not_invariant(batch, k):
    """Relevant-first vs relevant-last rows: RR moves whenever the best relevant item is tied
    with a non-relevant one."""
    s, y, _, _ = batch
    top = np.array([s[i][y[i] > 0].max() for i in range(len(s))])
    tied_with_negative = ((s == top[:, None]) & (y == 0)).any(axis=1)
    assume(tied_with_negative.any())
    first = np.argsort(-(y > 0).astype(int), axis=1, kind="stable")
    last = np.argsort(y > 0, axis=1, kind="stable")
    take = lambda a, p: np.take_along_axis(a, p, axis=1)  # noqa: E731
    a = evaluate(take(s, first), take(y, first), k=k, ties="input_order")["RR"].to_numpy()
    b = evaluate(take(s, last), take(y, last), k=k, ties="input_order")["RR"].to_numpy()
    assert np.all(a[tied_with_negative] > b[tied_with_negative])
    np.testing.assert_array_equal(a[~tied_with_negative], b[~tied_with_negative])


def _paper_rows(n_rows=50):
    rng = np.random.default_rng(0)
    s = rng.integers(0, 3, (n_rows, 31)).astype(np.float32)
    y = np.zeros((n_rows, 31))
    y[:, 0] = 1
    items = np.tile(np.arange(31), (n_rows, 1)) + 1000 * np.arange(n_rows)[:, None]
    return s, y, items


def test_audit_flags_input_order_and_passes_hash():
    s, y, items = _paper_rows()
    bad = audit_row_order(
        lambda sc, la, **ids: evaluate(sc, la, ties="input_order"), s, y, n_permutations=10
    )
    assert not bad.is_invariant
    assert bad.max_row_change > 0.5 and bad.max_mean_change > 0.1
    assert list(bad.summary["metric"]) == ["Success@10", "nDCG@10", "RR"]
    good = audit_row_order(
        lambda sc, la, **ids: evaluate(sc, la, ties="hash", **ids),
        s,
        y,
        n_permutations=10,
        item_ids=items,
        user_ids=np.arange(50),
    )
    assert good.is_invariant and good.max_row_change == 0.0
    assert good.per_row.shape == (50, 3)


def test_audit_accepts_arrays_and_scalars():
    s, y, _ = _paper_rows(20)
    per_row = audit_row_order(
        lambda sc, la: evaluate(sc, la)["nDCG@10"].to_numpy(), s, y, n_permutations=3
    )
    assert per_row.is_invariant
    scalar = audit_row_order(
        lambda sc, la: float((sc[:, 0] > sc[:, 1]).mean()), s, y, n_permutations=5
    )
    assert not scalar.is_invariant
    with pytest.raises(ValueError, match="n_permutations must be an integer >= 1"):
        audit_row_order(lambda sc, la: 0.0, s, y, n_permutations=0)
    with pytest.raises(ValueError, match="shapes differ"):
        audit_row_order(lambda sc, la: 0.0, s, y[:, :3])
