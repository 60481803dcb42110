"""Exponential gains never overflow: ``nDCG(dcg='exp-log2')`` of labels past 1023 (``2**1024``
is beyond a double) is computed as the exact ratio it is, under every rule, on runs and rows,
and a gain map or an ERR label that a double cannot hold is refused with a hint one can follow.
"""

from __future__ import annotations

import numpy as np
import pytest

from rankaudit.measures.list_reference import expected_by_enumeration, measure_of_ranking
from rankaudit.measures.registry import parse_measure, parse_measures
from rankaudit.runs.evaluate import audit_run
from rankaudit.ties.evaluate import evaluate
from tests.measures.conftest import tables

EXP = parse_measures("nDCG(dcg='exp-log2')@3 nDCG(dcg='exp-log2')")
RULES = ["trec_eval", "expected", "pessimistic", "optimistic"]


def _audit(labels: dict[str, int], scores: dict[str, float]):
    r, q = tables({"q": scores}, {"q": labels})
    return audit_run(r, q, EXP, ties=RULES)


def _bits(x: float) -> bytes:
    return np.float64(x).tobytes()


@pytest.mark.parametrize("base", [1000, 1100, 2**20, 2**52])
def test_labels_past_1023_give_the_bits_of_the_same_gaps_at_100(base):
    """Beyond 53 bits ``2**l - 1`` is ``2**l`` in a double, so labels ``base + a`` and
    ``100 + a`` have gains in one ratio, a power of two: nDCG is the same to the bit."""
    gaps = {"d1": 0, "d2": 5, "d3": 2, "d4": 4}
    scores = {"d1": 3.0, "d2": 2.0, "d3": 2.0, "d4": 1.0}
    big = _audit({d: base + a for d, a in gaps.items()}, scores)
    small = _audit({d: 100 + a for d, a in gaps.items()}, scores)
    for rule in RULES:
        for j, m in enumerate(EXP):
            got, want = big.values[rule][0, j], small.values[rule][0, j]
            assert np.isfinite(got) and 0 < got <= 1, (rule, str(m), got)
            assert _bits(got) == _bits(want), (rule, str(m), got, want)


def test_large_labels_match_the_exact_reference_and_enumeration():
    """The reference takes every gain as the exact ratio ``(2**l - 1) / 2**top`` (another
    scale than the kernels'); tie-free order: the same bits; ties: the enumerated mean and
    envelope."""
    labels = {"d1": 1100, "d2": 1, "d3": 1090, "d4": 1099, "x": 1100}
    tie_free = {"d1": 4.0, "d2": 3.0, "d3": 2.0, "d4": 1.0}
    audit = _audit(labels, tie_free)
    ranked = [labels[d] for d in ("d1", "d2", "d3", "d4")]
    for j, m in enumerate(EXP):
        want = measure_of_ranking(m, ranked, list(labels.values()))
        assert 0 < want < 1
        assert _bits(audit.values["trec_eval"][0, j]) == _bits(want), str(m)
    tied = {"d1": 2.0, "d2": 2.0, "d3": 1.0, "d4": 1.0}
    audit = _audit(labels, tied)
    scores = [tied[d] for d in ("d1", "d2", "d3", "d4")]
    for j, m in enumerate(EXP):
        mean, lo, hi = expected_by_enumeration(m, scores, ranked, list(labels.values()))
        assert audit.values["expected"][0, j] == pytest.approx(mean, rel=1e-12), str(m)
        assert audit.values["pessimistic"][0, j] == pytest.approx(lo, rel=1e-12), str(m)
        assert audit.values["optimistic"][0, j] == pytest.approx(hi, rel=1e-12), str(m)
        assert lo < hi  # the tie between 1100 and 1 matters


def test_labels_up_to_960_keep_their_unscaled_bits():
    """Below the scaling threshold nothing changes: the gains are ``2.0**l - 1.0`` as before."""
    labels = {"d1": 960, "d2": 3, "d3": 959}
    audit = _audit(labels, {"d1": 1.0, "d2": 3.0, "d3": 2.0})
    dcg = (2.0**3 - 1) / np.log2(2) + (2.0**959 - 1) / np.log2(3) + (2.0**960 - 1) / np.log2(4)
    idcg = (2.0**960 - 1) / np.log2(2) + (2.0**959 - 1) / np.log2(3) + (2.0**3 - 1) / np.log2(4)
    assert _bits(audit.values["trec_eval"][0, 0]) == _bits(dcg / idcg)


def test_rows_take_large_labels_too():
    scores = np.array([[3.0, 2.0, 2.0, 1.0]])
    labels = np.array([[1100, 0, 1, 1099]])
    frame = evaluate(scores, labels, measures=["nDCG(dcg='exp-log2')@3"], ties="expected")
    value = frame["nDCG(dcg='exp-log2')@3"].item()
    assert np.isfinite(value) and 0 < value <= 1


def test_a_gain_map_beyond_a_double_sum_is_refused():
    with pytest.raises(ValueError, match=r"gain 1e\+300 of label 1 must be at most 2\*\*960"):
        parse_measure("nDCG(gains={1:1e300})@3")
    assert parse_measure("nDCG(gains={1:1e280})@3").param("gains") == ((1, 1e280),)


@pytest.mark.parametrize(
    ("top", "hint"),
    [(7, "use ERR(max_grade=7)@3"), (61, "max_grade is at most 60"), (1100, "into 0..60")],
)
def test_err_hint_can_be_followed(top, hint):
    r, q = tables({"q": {"d1": 1.0}}, {"q": {"d1": top}})
    with pytest.raises(ValueError, match=r"a qrels label is \d+, above max_grade=4") as info:
        audit_run(r, q, ["ERR@3"], ties=["trec_eval"])
    assert hint in str(info.value)
    if top > 60:
        assert "max_grade=1100" not in str(info.value) and "max_grade=61" not in str(info.value)
