"""RBP without ``rel`` is graded, as ir_measures defines it (``rel`` "not provided: graded
relevance"; its provider, trectools' ``get_rbp(binary_topical_relevance=False)``, weights a
relevant document's ``(1-p) p^(r-1)`` by its label) and as ranx computes it; ``RBP(rel=l)`` is
binary at ``l`` (ir_measures' cwl_eval).  It was binary at ``-l`` either way."""

from __future__ import annotations

import ir_measures
import numpy as np
import pytest
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st

from rankaudit.measures.registry import parse_measure
from rankaudit.runs import evaluate_run
from rankaudit.runs.evaluate import audit_run
from tests.measures.conftest import ask_peers, tables, tie_free_run_and_qrels

NO_SHRINK = (Phase.explicit, Phase.reuse, Phase.generate)


def _trectools_graded(ranked_labels: list[int | None], p: float, depth: int | None) -> float:
    """trectools' graded RBP written from its code: ``(1-p) p^(rank-1) * rel`` summed over the
    retrieved documents judged ``rel > 0`` in the top ``depth``."""
    shown = ranked_labels if depth is None else ranked_labels[:depth]
    return float(
        sum((1.0 - p) * p ** (r - 1) * lab for r, lab in enumerate(shown, 1) if lab and lab > 0)
    )


def test_ir_measures_objects_keep_their_meaning():
    assert parse_measure(ir_measures.RBP(p=0.5)) == parse_measure("RBP(p=0.5)")
    assert parse_measure(ir_measures.RBP(p=0.5, rel=2)).param("rel") == 2


@pytest.mark.parametrize("spelled", ["RBP(p=0.5)", "RBP(p=0.5)@3", "rbp.5"])
def test_without_rel_a_relevant_document_adds_its_label(spelled):
    run = {"q": {"a": 4.0, "b": 3.0, "c": 2.0, "d": 1.0, "e": 0.5}}
    qrels = {"q": {"a": 2, "b": 0, "c": 3, "d": -1, "e": 1}}
    r, q = tables(run, qrels)
    m = parse_measure(spelled)
    value = evaluate_run(r, q, [m])[str(m)].item()
    want = _trectools_graded([2, 0, 3, -1, 1], 0.5, m.cutoff)
    assert value == pytest.approx(want, abs=1e-15)
    assert value > _trectools_graded([1, 0, 1, 0, 1], 0.5, m.cutoff)  # not binary


def test_rel_makes_it_binary_and_minus_l_sets_the_graded_level():
    run = {"q": {"a": 3.0, "b": 2.0, "c": 1.0}}
    qrels = {"q": {"a": 1, "b": 3, "c": 2}}
    r, q = tables(run, qrels)
    frame = evaluate_run(r, q, ["RBP(p=0.5)", "RBP(p=0.5, rel=2)"], relevance_level=2)
    assert frame["RBP(p=0.5)"].item() == pytest.approx(0.5 * (3 * 0.5 + 2 * 0.25))
    assert frame["RBP(p=0.5, rel=2)"].item() == pytest.approx(0.5 * (0.5 + 0.25))


def test_graded_bounds_and_expectation_under_ties():
    run = {"q": {"a": 3.0, "b": 2.0, "c": 2.0, "d": 1.0}}
    qrels = {"q": {"a": 2, "b": 3, "c": 0, "d": 1}}
    r, q = tables(run, qrels)
    audit = audit_run(r, q, ["RBP(p=0.5)"], ties=["expected", "pessimistic", "optimistic"])
    lo = _trectools_graded([2, 0, 3, 1], 0.5, None)
    hi = _trectools_graded([2, 3, 0, 1], 0.5, None)
    assert audit.values["pessimistic"][0, 0] == lo
    assert audit.values["optimistic"][0, 0] == hi
    assert audit.values["expected"][0, 0] == pytest.approx((lo + hi) / 2, abs=1e-15)


@settings(max_examples=2, deadline=None, phases=NO_SHRINK, suppress_health_check=list(HealthCheck))
@given(seed=st.integers(0, 2**31 - 1))
def test_graded_rbp_matches_ranx_and_trectools_definition(seed):
    run, qrels = tie_free_run_and_qrels(seed, low=0, high=4)
    asks = [["ranx", "rbp.8", "RBP(p=0.8)"], ["ranx", "rbp.5", "RBP(p=0.5)"]]
    peer = ask_peers(run, qrels, 1, asks)
    r, q = tables(run, qrels)
    frame = evaluate_run(r, q, ["RBP(p=0.8)", "RBP(p=0.5)"], ties="trec_eval")
    ours = frame.set_index("query")
    for name, p in (("RBP(p=0.8)", 0.8), ("RBP(p=0.5)", 0.5)):
        assert peer[name]
        column = str(parse_measure(name))
        for query, value in peer[name].items():
            assert ours.loc[query, column] == pytest.approx(value, abs=1e-12), (name, query)
        for query, docs in run.items():
            ranked = sorted(docs, key=lambda d: -docs[d])
            labels = [qrels.get(query, {}).get(d) for d in ranked]
            if query in ours.index:
                want = _trectools_graded(labels, p, None)
                assert ours.loc[query, column] == pytest.approx(want, abs=1e-12)
    assert np.isfinite(frame["RBP"]).all()
