"""A tie rule carries its behaviour: every dispatch reads its declaration in
``rankaudit.measures.rules``.  A throwaway rule declared here (ties by input position
*descending*) works end to end with no other code, and an unknown rule (or row-kernel mode) is
the library's ValueError everywhere, never a default rule."""

from __future__ import annotations

import numpy as np
import pytest

import rankaudit
from rankaudit.checklists.from_rows import checklist
from rankaudit.checklists.from_run import run_checklist
from rankaudit.measures import rules
from rankaudit.measures.list_evaluate import envelope_role
from rankaudit.measures.row_ordered import KEY, row_ordered_kernel
from rankaudit.measures.rules import RULES, TieRule
from rankaudit.options import PermutationOptions
from rankaudit.runs.evaluate import audit_run, evaluate_run
from rankaudit.runs.layout import join_run_qrels
from rankaudit.runs.tables import Qrels, Run
from rankaudit.runs.tie_keys import tie_keys
from rankaudit.ties.ranking import rank_candidates
from rankaudit.ties.tie_context import row_tie_keys
from rankaudit.ties.validation import batch_from_arrays

MEASURES = ["nDCG@5", "AP", "RR", "P@3", "Success@2"]


def _rows(seed=0, n=40, m=9):
    rng = np.random.default_rng(seed)
    scores = rng.integers(0, 3, size=(n, m)).astype(np.float64)
    labels = rng.integers(0, 3, size=(n, m)) * (rng.random((n, m)) < 0.4)
    labels[:, 0] = np.maximum(labels[:, 0], 1)  # every row holds a relevant item
    return scores, labels


def test_a_registered_rule_reaches_the_row_kernels(reversed_rule):
    scores, labels = _rows()
    got = rankaudit.evaluate(scores, labels, k=3, ties=reversed_rule)
    want = rankaudit.evaluate(scores[:, ::-1], labels[:, ::-1], k=3, ties="input_order")
    for col in ("Success@3", "nDCG@3", "RR"):
        np.testing.assert_array_equal(got[col].to_numpy(), want[col].to_numpy())
    assert not np.array_equal(
        got["RR"].to_numpy(), rankaudit.evaluate(scores, labels, k=3, ties="input_order")["RR"]
    )


def test_a_registered_rule_takes_the_row_kernels_sort_path(reversed_rule):
    # more relevant items than SORT_ABOVE: the kernel's sorted path reads the key too
    rng = np.random.default_rng(3)
    scores = rng.integers(0, 2, size=(6, 60)).astype(np.float64)
    labels = rng.integers(1, 3, size=(6, 60)) * (rng.random((6, 60)) < 0.6)
    labels[:, 0] = 1
    got = rankaudit.evaluate(scores, labels, k=10, ties=reversed_rule)
    want = rankaudit.evaluate(scores[:, ::-1], labels[:, ::-1], k=10, ties="input_order")
    for col in ("Success@10", "nDCG@10", "RR"):
        np.testing.assert_array_equal(got[col].to_numpy(), want[col].to_numpy())


def test_a_registered_rule_reaches_the_list_kernels_on_rows(reversed_rule):
    scores, labels = _rows(1)
    got = rankaudit.evaluate(scores, labels, ties=reversed_rule, measures=MEASURES)
    want = rankaudit.evaluate(
        scores[:, ::-1], labels[:, ::-1], ties="input_order", measures=MEASURES
    )
    for col in got.attrs["measures"]:
        np.testing.assert_array_equal(got[col].to_numpy(), want[col].to_numpy())


def test_a_registered_rule_reaches_the_reference_ranking(reversed_rule):
    scores, labels = _rows(2)
    got = rank_candidates(scores, labels, ties=reversed_rule)
    m = scores.shape[1]
    want = m - 1 - rank_candidates(scores[:, ::-1], labels[:, ::-1], ties="input_order")
    np.testing.assert_array_equal(got, want)


def _run(reverse: bool):
    rng = np.random.default_rng(4)
    q = np.repeat([f"q{i}" for i in range(12)], 8)
    d = np.array([f"d{j}" for j in range(len(q))])
    s = rng.integers(0, 3, len(q)).astype(np.float64)
    rel = rng.integers(0, 3, len(q))
    order = np.arange(len(q))
    if reverse:  # reverse the lines inside each query
        order = np.concatenate([np.arange(i * 8, (i + 1) * 8)[::-1] for i in range(12)])
    run = Run.from_arrays(q[order], d[order], s[order])
    return run, Qrels.from_arrays(q, d, rel)


def test_a_registered_rule_reaches_the_run_api_and_the_checklist(reversed_rule):
    run, qrels = _run(False)
    flipped, _ = _run(True)
    got = evaluate_run(run, qrels, MEASURES, ties=reversed_rule)
    want = evaluate_run(flipped, qrels, MEASURES, ties="input_order")
    for col in MEASURES:
        np.testing.assert_array_equal(got[col].to_numpy(), want[col].to_numpy())
    audit = audit_run(run, qrels, MEASURES, ties=[reversed_rule, "expected"])
    np.testing.assert_array_equal(audit.values[reversed_rule], got[MEASURES].to_numpy())
    report = run_checklist(run, qrels, ties=reversed_rule, permutation=PermutationOptions(1))
    item = next(i for i in report.items if i.key == "tie_breaking")
    assert "reverse input order" in item.answer and item.status == "warn"
    scores, labels = _rows(5)
    rows_item = next(
        i
        for i in checklist(
            scores, labels, ties=reversed_rule, permutation=PermutationOptions(2)
        ).items
        if i.key == "tie_breaking"
    )
    assert "reverse input order" in rows_item.answer and rows_item.status == "warn"


@pytest.mark.parametrize("name", ["stable", "nonsense", "", "RANDOM"])
def test_an_unknown_rule_is_an_error_everywhere(name):
    scores, labels = _rows()
    run, qrels = _run(False)
    batch = join_run_qrels(run, qrels)
    rows = batch_from_arrays(scores, labels)
    calls = [
        lambda: rules.rule(name),
        lambda: rankaudit.evaluate(scores, labels, ties=name),
        lambda: rankaudit.evaluate(scores, labels, ties=name, measures=MEASURES),
        lambda: rank_candidates(scores, labels, ties=name),
        lambda: evaluate_run(run, qrels, MEASURES, ties=name),
        lambda: audit_run(run, qrels, MEASURES, ties=[name]),
        lambda: tie_keys(batch, name),
        lambda: row_tie_keys(rows, name),
        lambda: envelope_role(name),
        lambda: checklist(scores, labels, ties=name, permutation=PermutationOptions(2)),
        lambda: run_checklist(run, qrels, ties=name, permutation=PermutationOptions(1)),
    ]
    for call in calls:
        with pytest.raises(ValueError, match="tie rule"):
            call()


def test_a_rule_without_a_common_order_has_no_key():
    run, qrels = _run(False)
    batch = join_run_qrels(run, qrels)
    for name in ("expected", "pessimistic", "optimistic"):
        with pytest.raises(ValueError, match="no common sort key"):
            tie_keys(batch, name)
    with pytest.raises(ValueError, match="not an envelope rule"):
        envelope_role("random")
    with pytest.raises(ValueError, match="does not fix an order"):
        RULES["expected"].kernel_mode  # noqa: B018


def test_an_unknown_row_kernel_mode_is_an_error():
    scores, labels = _rows()
    rows = batch_from_arrays(scores, labels)
    from rankaudit.measures.row_support import RowBatch, RowOutput, RowTables, discount_tables

    n, m = scores.shape
    disc, c1, c2 = discount_tables(3, m)
    tables = RowTables(disc, c1, c2, np.zeros(1), np.zeros(1), m, np.ones(m + 1))
    out = RowOutput(
        *(np.empty(n) for _ in range(3)), *(np.empty(0) for _ in range(3)), np.empty(n, np.bool_)
    )
    layout = RowBatch(*rows.kernel_layout(), rows.scores, rows.labels)
    z = np.zeros(1, np.int64)
    with pytest.raises(ValueError, match="unknown tie mode"):
        row_ordered_kernel(layout, 3, KEY + 1, np.zeros(1, np.uint64), z, z, z, tables, out)


def test_a_declaration_is_checked():
    with pytest.raises(ValueError, match="order"):
        TieRule("x", "x", "shuffle", "x", rows=True, runs=True)
    with pytest.raises(ValueError, match="a key exactly when"):
        TieRule("x", "x", "key", "x", rows=True, runs=True)
    with pytest.raises(ValueError, match="bound"):
        TieRule("x", "x", "bound", "x", rows=True, runs=True)
    with pytest.raises(ValueError, match="already declared"):
        rules.register_rule(RULES["hash"])


def test_the_row_kernels_inner_dispatch_refuses_an_unknown_mode():
    """Behind the kernel's entry check, the per-item rank and the sort path raise on a mode
    they do not know rather than ranking by another rule."""
    from rankaudit.measures.row_ordered import _rank_of, _sorted_ranks

    scores = np.array([1.0, 1.0, 1.0, 0.0])
    labels = np.array([1.0, 1.0, 0.0, 1.0])
    z = np.zeros(4, np.int64)
    h = np.uint64(0)
    for mode in (KEY + 1, -1):
        with pytest.raises(ValueError, match="unknown tie mode"):
            _rank_of(scores, labels, 0, 4, 1, mode, h, z, z, z)
        with pytest.raises(ValueError, match="unknown tie mode"):
            ranks, gains = np.empty(4, np.int64), np.empty(4)
            _sorted_ranks(scores, labels, 0, 4, mode, h, z, z, z, ranks, gains)


def test_list_evaluation_and_rank_candidates_refuse_an_order_they_do_not_know(monkeypatch):
    """A declaration whose order no dispatch knows (one that slipped past TieRule's own check)
    is an error in the list core and in rank_candidates, never another rule's value."""
    from rankaudit.measures.list_evaluate import evaluate_lists

    odd = TieRule("odd", "x", "key", "x", rows=True, runs=True, key=lambda ctx: ctx.position())
    object.__setattr__(odd, "order", "shuffle")
    monkeypatch.setitem(RULES, "odd", odd)
    assert odd.deterministic is False
    scores, labels = _rows()
    with pytest.raises(ValueError, match="order='shuffle'"):
        evaluate_lists(None, None, [], "odd", 1)
    monkeypatch.setattr(TieRule, "deterministic", property(lambda self: True))
    with pytest.raises(ValueError, match="does not know order='shuffle'"):
        rank_candidates(scores, labels, ties="odd")
