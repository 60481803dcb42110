"""Recommender libraries' evaluators: equal to the reference without ties, their tie behaviour
as the audit reports it, and a clear reason where a library cannot run."""

from __future__ import annotations

import numpy as np
import pytest

from rankaudit.ties.evaluate import evaluate
from rankbook.ties.recsys_peers import NOT_INSTALLED, RECSYS_PEERS


def _ids(shape):
    return np.char.add(
        "i", np.char.zfill(np.tile(np.arange(1, shape[1] + 1), (shape[0], 1)).astype(str), 4)
    )


@pytest.mark.parametrize("name", ["cornac", "implicit"])
def test_without_ties_the_library_equals_the_reference(name):
    pytest.importorskip(name)
    rng = np.random.default_rng(3)
    scores = rng.random((30, 25))
    labels = np.zeros_like(scores)
    labels[np.arange(30), rng.integers(0, 25, 30)] = 1
    ours = evaluate(scores, labels, k=10, ties="expected")["nDCG@10"].to_numpy()
    theirs = RECSYS_PEERS[name](scores, labels, k=10, item_ids=_ids(scores.shape))
    np.testing.assert_allclose(theirs, ours, rtol=0, atol=1e-6)


def test_implicit_breaks_ties_by_item_column_not_storage():
    pytest.importorskip("implicit")
    scores = np.zeros((1, 20))
    labels = np.zeros((1, 20))
    labels[0, 0] = 1
    ids = _ids((1, 20))
    first = RECSYS_PEERS["implicit"](scores, labels, k=10, item_ids=ids)
    order = np.roll(np.arange(20), -1)  # relevant stored last, ids travel with it
    last = RECSYS_PEERS["implicit"](
        scores[:, order], labels[:, order], k=10, item_ids=ids[:, order]
    )
    renamed = RECSYS_PEERS["implicit"](scores, labels, k=10, item_ids=ids[:, ::-1])
    assert first[0] == last[0]
    assert first[0] != renamed[0]


def test_cornac_depends_on_where_the_relevant_item_is_stored():
    pytest.importorskip("cornac")
    scores = np.zeros((1, 20))
    labels = np.zeros((1, 20))
    labels[0, 0] = 1
    order = np.roll(np.arange(20), -1)
    first = RECSYS_PEERS["cornac"](scores, labels, k=10)
    last = RECSYS_PEERS["cornac"](scores[:, order], labels[:, order], k=10)
    assert first[0] != last[0]


def test_recbole_that_cannot_run_says_why():
    with pytest.raises(ImportError, match="recbole"):
        RECSYS_PEERS["recbole"](np.zeros((1, 5)), np.eye(1, 5), k=3)
    assert len(NOT_INSTALLED) >= 3 and all(NOT_INSTALLED.values())
