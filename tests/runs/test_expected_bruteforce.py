"""Every rule against enumeration of every tie order, and kernels against the plain reference."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rankaudit.measures.list_reference import expected_reference, measure_of_ranking, ranked_order
from rankaudit.measures.registry import parse_measures
from rankaudit.runs import Qrels, Run, audit_run
from rankaudit.runs.evaluate import evaluate_batch
from rankaudit.runs.layout import join_run_qrels
from rankaudit.ties.bruteforce import all_tie_orders

MEASURES = parse_measures(
    ["nDCG@3", "nDCG@5", "nDCG", "P@3", "R@3", "AP", "RR", "Success@2", "Success@4"]
)
RULES = ("trec_eval", "input_order", "expected", "pessimistic", "optimistic", "hash")


def _one_query(scores, labels, extra_judged=(), level=1):
    """A one-query Run and Qrels: labels None = unjudged; extra_judged = labels of judged
    documents the run did not retrieve."""
    docs = [f"d{i:02d}" for i in range(len(scores))]
    run = Run.from_arrays(["q"] * len(docs), docs, scores)
    qd = [d for d, lab in zip(docs, labels, strict=True) if lab is not None]
    ql = [lab for lab in labels if lab is not None]
    qd += [f"x{i}" for i in range(len(extra_judged))]
    ql += list(extra_judged)
    if not qd:
        qd, ql = ["x_none"], [0]
    qrels = Qrels.from_arrays(["q"] * len(qd), qd, np.asarray(ql, dtype=np.int64))
    return run, qrels, docs, ql


def _brute(scores, labels, judged, level):
    orders = all_tie_orders(np.asarray(scores, dtype=np.float64))
    values = np.array(
        [
            [measure_of_ranking(m, [labels[i] for i in order], judged, level) for m in MEASURES]
            for order in orders
        ]
    )
    return values


CASES = [
    # scores, labels (None = unjudged), judged-but-not-retrieved labels
    ([1.0, 1.0, 1.0, 1.0, 0.5, 0.5], [2, 0, 1, None, 3, 1], [2]),
    ([2.0, 2.0, 2.0, 2.0, 2.0, 2.0, 2.0], [1, 1, 0, 3, None, 0, 2], []),
    ([3.0, 1.0, 1.0, 1.0, 1.0, 0.0, 0.0], [0, 1, 1, 1, 0, 2, None], [1, 1]),
    ([0.5, 0.5, 0.5, 0.2, 0.2, 0.2, 0.2], [-2, 2, None, 1, 1, 0, 3], [3]),
    ([1.0, 0.9, 0.8], [1, 0, 2], []),
    ([1.0, 1.0, 1.0, 1.0], [None, None, 0, 0], [1]),
]


@pytest.mark.parametrize("level", [1, 2])
@pytest.mark.parametrize("case", range(len(CASES)))
def test_rules_against_every_tie_order(case, level):
    scores, labels, extra = CASES[case]
    run, qrels, docs, judged = _one_query(scores, labels, extra, level)
    brute = _brute(scores, labels, judged, level)
    batch = join_run_qrels(run, qrels, relevance_level=level)
    got = {rule: evaluate_batch(batch, MEASURES, rule)[0] for rule in RULES}
    np.testing.assert_allclose(got["expected"], brute.mean(axis=0), rtol=0, atol=1e-12)
    np.testing.assert_allclose(got["pessimistic"], brute.min(axis=0), rtol=0, atol=1e-12)
    np.testing.assert_allclose(got["optimistic"], brute.max(axis=0), rtol=0, atol=1e-12)
    for rule in ("trec_eval", "input_order", "hash"):
        # a deterministic rule gives one of the tie orders
        assert np.any(np.all(np.abs(brute - got[rule]) < 1e-12, axis=1)), rule
    # trec_eval and input order, written plainly
    for rule, keys in (
        ("trec_eval", [tuple(-b for b in d.encode()) + (1,) for d in docs]),
        ("input_order", list(range(len(docs)))),
    ):
        order = ranked_order(scores, keys)
        want = [measure_of_ranking(m, [labels[i] for i in order], judged, level) for m in MEASURES]
        np.testing.assert_allclose(got[rule], want, rtol=0, atol=1e-15)
    ref = [expected_reference(m, scores, labels, judged, level) for m in MEASURES]
    np.testing.assert_allclose(got["expected"], ref, rtol=0, atol=1e-12)


def test_expected_ap_two_relevant_in_one_block_by_hand():
    # two relevant among t = 3 tied at the top, R = 2: orders RRN, RNR, NRR (x2 each)
    # AP = 1, (1 + 2/3)/2, (1/2 + 2/3)/2  -> mean (1 + 5/6 + 7/12) / 3
    run, qrels, _, _ = _one_query([1.0, 1.0, 1.0], [1, 1, 0])
    value = audit_run(run, qrels, ["AP"], ties=["expected"]).values["expected"][0, 0]
    assert value == pytest.approx((1 + 5 / 6 + 7 / 12) / 3, abs=1e-15)


label_st = st.one_of(st.none(), st.integers(-2, 3))


@settings(max_examples=60, deadline=None)
@given(
    data=st.lists(st.tuples(st.integers(0, 3), label_st), min_size=1, max_size=12),
    extra=st.lists(st.integers(0, 3), max_size=3),
    level=st.integers(0, 2),
)
def test_expected_between_bounds(data, extra, level):
    scores = [s / 2 for s, _ in data]
    labels = [lab for _, lab in data]
    run, qrels, _, judged = _one_query(scores, labels, extra, level)
    batch = join_run_qrels(run, qrels, relevance_level=level)
    lo = evaluate_batch(batch, MEASURES, "pessimistic")
    hi = evaluate_batch(batch, MEASURES, "optimistic")
    mid = evaluate_batch(batch, MEASURES, "expected")
    for rule in ("trec_eval", "input_order", "hash"):
        v = evaluate_batch(batch, MEASURES, rule)
        assert np.all(lo <= v) and np.all(v <= hi)  # exactly: no tolerance
    assert np.all(lo <= mid) and np.all(mid <= hi)
    ref = [expected_reference(m, scores, labels, judged, level) for m in MEASURES]
    np.testing.assert_allclose(mid[0], ref, rtol=0, atol=1e-12)
