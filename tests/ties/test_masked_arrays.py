"""Masked arrays are refused at every array entry point, naming the argument: NumPy's
conversions drop a mask and keep the values under it, so a masked top score was ranked first
(``Success@1`` 0 where the unmasked candidates give 1).  A masked array whose mask hides nothing
is read as its values."""

from __future__ import annotations

import numpy as np
import pytest

import rankaudit
from rankaudit.runs.tables import Qrels, Run
from rankaudit.ties.ranking import rank_candidates

SCORES = np.array([[3.0, 1.0, 2.0], [1.0, 2.0, 3.0]])
LABELS = np.array([[0, 1, 0], [0, 1, 1]])
ITEMS = np.array([[1, 2, 3], [1, 2, 3]])
MASK = np.array([[True, False, False], [False, False, False]])


def _masked(values: np.ndarray) -> np.ma.MaskedArray:
    return np.ma.array(values, mask=MASK)


def _refused(name: str, call) -> None:
    with pytest.raises(ValueError, match=rf"^{name}( \(row \d+\))? is a masked array; masks are"):
        call()


@pytest.mark.parametrize("name", ["scores", "labels", "item_ids"])
def test_evaluate_refuses_a_masked_argument(name):
    args = {"scores": SCORES, "labels": LABELS, "item_ids": ITEMS}
    args[name] = _masked(args[name])
    _refused(name, lambda: rankaudit.evaluate(args.pop("scores"), args.pop("labels"), k=1, **args))


def test_evaluate_refuses_masked_user_ids_ideal_labels_and_rows():
    users = np.ma.array([7, 8], mask=[False, True])
    _refused("user_ids", lambda: rankaudit.evaluate(SCORES, LABELS, k=1, user_ids=users))
    ideal = [np.ma.array([1, 0], mask=[True, False]), [1, 1]]
    _refused("ideal_labels", lambda: rankaudit.evaluate(SCORES, LABELS, k=1, ideal_labels=ideal))
    rows = [np.ma.array([3.0, 1.0, 2.0], mask=[True, False, False]), np.array([1.0, 2.0])]
    _refused("scores", lambda: rankaudit.evaluate(rows, [[0, 1, 0], [0, 1]], k=1))


def test_the_reproducer_no_longer_ranks_a_masked_top_score_first():
    with pytest.raises(ValueError, match="masked array"):
        rankaudit.evaluate(_masked(SCORES), LABELS, k=1)
    # what the user meant: the masked candidate removed (ragged rows)
    frame = rankaudit.evaluate([[1.0, 2.0], [1.0, 2.0, 3.0]], [[1, 0], [0, 1, 1]], k=1)
    assert frame["Success@1"].tolist() == [0.0, 1.0]
    frame = rankaudit.evaluate([[2.0, 1.0], [1.0, 2.0, 3.0]], [[1, 0], [0, 1, 1]], k=1)
    assert frame["Success@1"].tolist() == [1.0, 1.0]


def test_a_mask_that_hides_nothing_reads_as_the_values():
    plain = rankaudit.evaluate(SCORES, LABELS, k=2)
    masked = rankaudit.evaluate(np.ma.array(SCORES), np.ma.array(LABELS, mask=False), k=2)
    assert plain.equals(masked)


def test_every_other_array_entry_point_refuses_a_masked_argument():
    masked = _masked(SCORES)
    _refused("scores", lambda: rankaudit.tie_prevalence(masked, LABELS, k=1))
    _refused("labels", lambda: rankaudit.tie_prevalence(SCORES, _masked(LABELS), k=1))

    def evaluator(s, y, **_):
        return rankaudit.evaluate(s, y, k=1, ties="input_order")

    _refused("scores", lambda: rankaudit.audit_row_order(evaluator, masked, LABELS))
    _refused("item_ids", lambda: rankaudit.audit_row_order(evaluator, SCORES, LABELS,
                                                          item_ids=_masked(ITEMS)))
    _refused("scores", lambda: rank_candidates(masked, ties="input_order"))
    _refused("labels", lambda: rank_candidates(SCORES, _masked(LABELS), ties="pessimistic"))
    _refused("scores", lambda: rankaudit.checklist(masked, LABELS, k=1))
    _refused("labels", lambda: rankaudit.checklist(SCORES, _masked(LABELS), k=1))
    score = np.ma.array([1.0, 2.0], mask=[True, False])
    _refused("score", lambda: Run.from_arrays(["q", "q"], ["a", "b"], score))
    _refused("relevance", lambda: Qrels.from_arrays(["q", "q"], ["a", "b"], score.astype(int)))
    _refused("docno", lambda: Run.from_arrays(["q", "q"], np.ma.array(["a", "b"], mask=[1, 0]),
                                              [1.0, 2.0]))
