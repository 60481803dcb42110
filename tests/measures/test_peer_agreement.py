"""Every measure agrees with its trusted peer on tie-free runs with graded labels.

On these tie-free runs every tie rule gives the same bits (``trec_eval``, ``expected``,
``pessimistic``, ``optimistic``, ``input_order``, ``hash``: one order, one value), for every
measure family.  trec_eval's measures equal pytrec_eval's per query exactly, under every rule
(bits, not a tolerance); the others agree with ir_measures' providers and ranx (to 1e-9 unless
said): ``Judged@k`` and ``RR@k`` (ir_measures),
``nDCG(gains=...)`` (ir_measures through pytrec_eval), ``nDCG(dcg='exp-log2')`` (ranx's
``ndcg_burges``), ``RBP`` (ranx's ``rbp``, on binary labels: ranx weights it by the label),
``ERR@k`` (gdeval through ir_measures, which prints five decimals: agreement to half a unit of
the fifth decimal, the most that output allows).  The peers run in a child process with a
timeout.  The seeds are drawn by hypothesis, so this is a property test over runs.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st

from rankaudit.measures.registry import FAMILIES, parse_measure
from rankaudit.measures.rules import RUN_TIE_RULES
from rankaudit.runs import audit_run
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
#: no peer computes these; the rules must still agree on them to the bit
OWN_ONLY = ("RBPres(p=0.8)", "RBP(p=0.7,rel=2)@10", "NumRet@5")


def _every_rule(run: dict, qrels: dict, names: list[str], level: int = 1) -> dict[str, dict]:
    """``{measure: {query: value}}`` under the trec_eval rule, after asserting that every other
    rule gives the same bits on this tie-free run."""
    r, q = tables(run, qrels)
    audit = audit_run(r, q, names, ties=list(RUN_TIE_RULES), relevance_level=level)
    ref = audit.values["trec_eval"]
    for rule, values in audit.values.items():
        assert np.array_equal(values, ref), rule
    queries = [str(x) for x in audit.queries]
    return {
        str(m): dict(zip(queries, ref[:, j].tolist(), strict=True))
        for j, m in enumerate(audit.measures)
    }


def _compare(ours: dict, peer: dict, column: str, tol: float) -> None:
    assert peer, f"the peer returned nothing for {column}"
    for query, value in peer.items():
        if tol == 0:
            assert ours[column][query] == value, (column, query, ours[column][query], value)
        else:
            assert ours[column][query] == pytest.approx(value, abs=tol), (column, query)


def test_the_suites_cover_every_family():
    names = [*TREC_EVAL, *OTHERS, "RBP(p=0.8)", *OWN_ONLY]
    assert {parse_measure(n).family for n in names} == set(FAMILIES)


@settings(max_examples=3, deadline=None, phases=NO_SHRINK, suppress_health_check=list(HealthCheck))
@given(seed=st.integers(0, 2**31 - 1), level=st.sampled_from([1, 2]))
def test_trec_eval_measures_match_pytrec_eval(seed, level):
    run, qrels = tie_free_run_and_qrels(seed)
    asks = [["pytrec_eval", name, ours] for ours, name in TREC_EVAL.items()]
    peer = ask_peers(run, qrels, level, asks)
    ours = _every_rule(run, qrels, list(TREC_EVAL), level)
    for name in TREC_EVAL:
        _compare(ours, peer[name], str(parse_measure(name)), 0.0)


@settings(max_examples=2, deadline=None, phases=NO_SHRINK, suppress_health_check=list(HealthCheck))
@given(seed=st.integers(0, 2**31 - 1))
def test_other_measures_match_ir_measures_and_ranx(seed):
    run, qrels = tie_free_run_and_qrels(seed, low=0, high=4)
    asks = [[provider, name, ours] for ours, (provider, name, _) in OTHERS.items()]
    peer = ask_peers(run, qrels, 1, asks)
    ours = _every_rule(run, qrels, [*OTHERS, *OWN_ONLY])
    for name, (_, _, tol) in OTHERS.items():
        _compare(ours, peer[name], str(parse_measure(name)), tol)


@settings(max_examples=2, deadline=None, phases=NO_SHRINK, suppress_health_check=list(HealthCheck))
@given(seed=st.integers(0, 2**31 - 1))
def test_rbp_matches_ranx_on_binary_labels(seed):
    """ranx weights RBP by the label; on 0/1 labels the two definitions coincide."""
    run, qrels = tie_free_run_and_qrels(seed, low=0, high=1)
    asks = [["ranx", "rbp.8", "RBP(p=0.8)"], ["ranx", "rbp.5", "RBP(p=0.5)"]]
    peer = ask_peers(run, qrels, 1, asks)
    ours = _every_rule(run, qrels, ["RBP(p=0.8)", "RBP(p=0.5)"])
    for name in ("RBP(p=0.8)", "RBP(p=0.5)"):
        _compare(ours, peer[name], str(parse_measure(name)), 1e-9)
