"""Every measure agrees with its trusted peer on tie-free runs with graded labels.

trec_eval's measures against pytrec_eval (under the ``trec_eval`` rule, per query, to 1e-9);
the others against ir_measures' providers and ranx: ``Judged@k`` and ``RR@k`` (ir_measures),
``nDCG(gains=...)`` (ir_measures through pytrec_eval), ``nDCG(dcg='exp-log2')`` (ranx's
``ndcg_burges``), ``RBP`` (ranx's ``rbp``, on binary labels: ranx weights it by the label),
``ERR@k`` (gdeval through ir_measures, which prints five decimals: agreement to half a unit of
the fifth decimal, the most that output allows).  The peers run in a child process with a
timeout.  The seeds are drawn by hypothesis, so this is a property test over runs.
"""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st

from rankaudit.measures.registry import parse_measure
from rankaudit.runs import evaluate_run
from tests.measures.conftest import ask_peers, tables, tie_free_run_and_qrels

pytest.importorskip("pytrec_eval")
pytest.importorskip("ir_measures")

#: a failing run is reported as drawn: shrinking would rerun the peers for minutes
NO_SHRINK = (Phase.explicit, Phase.reuse, Phase.generate)

TREC_EVAL = {
    "nDCG": "ndcg",
    "nDCG@10": "ndcg_cut.10",
    "P@5": "P.5",
    "R@10": "recall.10",
    "Rprec": "Rprec",
    "AP": "map",
    "AP@10": "map_cut.10",
    "RR": "recip_rank",
    "Success@5": "success.5",
    "NumRet": "num_ret",
    "NumRel": "num_rel",
    "NumRelRet": "num_rel_ret",
    "Bpref": "bpref",
}
OTHERS = {
    "Judged@10": ("ir_measures", "Judged@10", 1e-9),
    "RR@5": ("ir_measures", "RR@5", 1e-9),
    "nDCG(gains={0:0,1:1,2:3,3:7,4:15})@10": (
        "ir_measures",
        "nDCG(gains={0:0,1:1,2:3,3:7,4:15})@10",
        1e-9,
    ),
    "nDCG(gains={1:5,3:1})": ("ir_measures", "nDCG(gains={1:5,3:1})", 1e-9),
    "nDCG(dcg='exp-log2')@10": ("ranx", "ndcg_burges@10", 1e-9),
    "ERR@10": ("ir_measures", "ERR@10", 5e-6 + 1e-12),
}


def _compare(frame, peer: dict, column: str, tol: float) -> None:
    ours = frame.set_index("query")[column]
    assert peer, f"the peer returned nothing for {column}"
    for query, value in peer.items():
        assert ours[query] == pytest.approx(value, abs=tol), (column, query)


@settings(max_examples=3, deadline=None, phases=NO_SHRINK, suppress_health_check=list(HealthCheck))
@given(seed=st.integers(0, 2**31 - 1), level=st.sampled_from([1, 2]))
def test_trec_eval_measures_match_pytrec_eval(seed, level):
    run, qrels = tie_free_run_and_qrels(seed)
    asks = [["pytrec_eval", name, ours] for ours, name in TREC_EVAL.items()]
    peer = ask_peers(run, qrels, level, asks)
    r, q = tables(run, qrels)
    frame = evaluate_run(r, q, list(TREC_EVAL), ties="trec_eval", relevance_level=level)
    for ours in TREC_EVAL:
        _compare(frame, peer[ours], str(parse_measure(ours)), 1e-9)


@settings(max_examples=2, deadline=None, phases=NO_SHRINK, suppress_health_check=list(HealthCheck))
@given(seed=st.integers(0, 2**31 - 1))
def test_other_measures_match_ir_measures_and_ranx(seed):
    run, qrels = tie_free_run_and_qrels(seed, low=0, high=4)
    asks = [[provider, name, ours] for ours, (provider, name, _) in OTHERS.items()]
    peer = ask_peers(run, qrels, 1, asks)
    r, q = tables(run, qrels)
    frame = evaluate_run(r, q, list(OTHERS), ties="trec_eval")
    for ours, (_, _, tol) in OTHERS.items():
        _compare(frame, peer[ours], str(parse_measure(ours)), tol)


@settings(max_examples=2, deadline=None, phases=NO_SHRINK, suppress_health_check=list(HealthCheck))
@given(seed=st.integers(0, 2**31 - 1))
def test_rbp_matches_ranx_on_binary_labels(seed):
    """ranx weights RBP by the label; on 0/1 labels the two definitions coincide."""
    run, qrels = tie_free_run_and_qrels(seed, low=0, high=1)
    asks = [["ranx", "rbp.8", "RBP(p=0.8)"], ["ranx", "rbp.5", "RBP(p=0.5)"]]
    peer = ask_peers(run, qrels, 1, asks)
    r, q = tables(run, qrels)
    frame = evaluate_run(r, q, ["RBP(p=0.8)", "RBP(p=0.5)"], ties="trec_eval")
    for name in ("RBP(p=0.8)", "RBP(p=0.5)"):
        _compare(frame, peer[name], str(parse_measure(name)), 1e-9)
