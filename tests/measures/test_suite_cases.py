"""Published test cases of the peers' own suites, reproduced when the convention is named.

- ranx's ``test_ndcg_burges`` / ``test_ndcg_jarvelin`` (tests/unit/ranx/metrics_test.py): judged
  docs 2:5, 4:4, 5:3, 10:2 and three rankings; the expected values are the suite's formulas.
- ranx's RBP case (Moffat & Zobel 2008's example): relevant at ranks 1, 2, 6, 11, 17 of 20;
  RBP = 0.7661 (p = 0.5), 0.4526 (p = 0.8), 0.1881 (p = 0.95) to four decimals.
- ir_measures' pytrec_eval suite (test/test_pytrec_eval.py): ``NumRet(rel=l)``, ``NumRel``,
  ``Success(rel=l)@2`` and AP / AP(rel=2) with negative labels in the qrels.
"""

from __future__ import annotations

import numpy as np
import pytest

from rankaudit.runs import evaluate_run
from tests.measures.conftest import tables

RANX_QRELS = {"q": {"2": 5, "4": 4, "5": 3, "10": 2}}
RANX_RANKINGS = {  # doc ids in rank order; the suite's comment gives their labels
    "p1": ["1", "2", "3", "4", "5"],  # rel = 0, 5, 0, 4, 3
    "p2": ["10", "5", "2", "4", "3"],  # rel = 2, 3, 5, 4, 0
    "p3": ["1", "3", "6", "7", "8"],  # rel = 0, 0, 0, 0, 0
}


def _ranked(ids):
    return {"q": {d: float(len(ids) - i) for i, d in enumerate(ids)}}


def _linear(gains):
    return sum(g / np.log2(r + 1) for r, g in enumerate(gains, start=1))


def _exp(gains):
    return sum((2.0**g - 1) / np.log2(r + 1) for r, g in enumerate(gains, start=1))


@pytest.mark.parametrize(
    ("ranking", "gains"),
    [("p1", [0, 5, 0, 4, 3]), ("p2", [2, 3, 5, 4, 0]), ("p3", [0, 0, 0, 0, 0])],
)
def test_ranx_ndcg_jarvelin_and_burges(ranking, gains):
    run, qrels = tables(_ranked(RANX_RANKINGS[ranking]), RANX_QRELS)
    frame = evaluate_run(run, qrels, ["nDCG@10", "ndcg_burges@10"])  # ranx's name
    ideal = [5, 4, 3, 2]
    assert frame["nDCG@10"].item() == pytest.approx(_linear(gains) / _linear(ideal))
    exp_col = "nDCG(dcg='exp-log2')@10"
    assert frame[exp_col].item() == pytest.approx(_exp(gains) / _exp(ideal))


def test_ranx_rank_biased_precision_case():
    relevant = {1, 2, 6, 11, 17}
    qrels = {"q": {f"d{i}": 1 for i in relevant}}
    run = {"q": {f"d{i}": float(21 - i) for i in range(1, 21)}}
    r, q = tables(run, qrels)
    frame = evaluate_run(r, q, ["RBP(p=0.5)", "RBP(p=0.8)", "rbp.95"])
    assert round(frame["RBP(p=0.5)"].item(), 4) == 0.7661
    assert round(frame["RBP"].item(), 4) == 0.4526  # p = 0.8 is the default
    assert round(frame["RBP(p=0.95)"].item(), 4) == 0.1881


IRM_RUN = {
    "0": {"D0": 0.8, "D2": 0.7, "D1": 0.3, "D3": 0.4, "D4": 0.1},
    "1": {"D1": 0.8, "D3": 0.7, "D4": 0.3, "D2": 0.4},
}


def test_ir_measures_numret_numrel_cases():
    qrels = {
        "0": {"D0": 0, "D1": 1, "D2": 1, "D3": 2, "D4": 0},
        "1": {"D0": 1, "D3": 2, "D5": 2},
    }
    r, q = tables(IRM_RUN, qrels)
    names = ["NumRet", "NumRet(rel=1)", "NumRet(rel=2)", "NumRet(rel=3)", "NumRel"]
    frame = evaluate_run(r, q, names).set_index("query")
    assert frame["NumRet"].tolist() == [5, 4]
    assert frame["NumRelRet(rel=1)"].tolist() == [3, 1]  # NumRet(rel=l) is NumRelRet(rel=l)
    assert frame["NumRelRet(rel=2)"].tolist() == [1, 1]
    assert frame["NumRelRet(rel=3)"].tolist() == [0, 0]
    assert frame["NumRel"].tolist() == [3, 3]


def test_ir_measures_success_and_ap_with_negative_labels():
    run = {
        "0": IRM_RUN["0"],
        "1": {"D1": 0.8, "D4": 0.7, "D3": 0.3, "D2": 0.4},
    }
    qrels = {
        "0": {"D0": 1, "D1": -1, "D2": 0, "D3": 2, "D4": 0},
        "1": {"D0": 1, "D3": 2, "D4": -1, "D5": 0},
    }
    r, q = tables(run, qrels)
    frame = evaluate_run(r, q, ["AP", "AP(rel=2)"]).set_index("query")
    assert frame["AP"].round(4).tolist() == [0.8333, 0.125]
    assert frame["AP(rel=2)"].round(4).tolist() == [0.3333, 0.25]
    qrels_s = {
        "0": {"D0": 0, "D1": 1, "D2": 2, "D3": 2, "D4": 0},
        "1": {"D0": 1, "D3": 2, "D5": 0},
    }
    r, q = tables(run, qrels_s)
    frame = evaluate_run(r, q, ["Success@2", "Success(rel=2)@2", "Success(rel=3)@2"])
    assert frame["Success@2"].tolist() == [1.0, 0.0]
    assert frame["Success(rel=2)@2"].tolist() == [1.0, 0.0]
    assert frame["Success(rel=3)@2"].tolist() == [0.0, 0.0]
