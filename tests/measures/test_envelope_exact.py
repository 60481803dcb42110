"""Every number exact: where no tie moves a query, ``expected``, ``pessimistic``,
``optimistic`` and every ordered rule (``trec_eval`` among them) are the same bits, for every
measure family; ``pessimistic <= expected <= optimistic`` holds exactly, never up to a
tolerance; and what differs by rounding alone is equal on a leaderboard and in its tests."""

from __future__ import annotations

import json

import numpy as np
import pytest

from rankaudit.cli import main
from rankaudit.measures.list_evaluate import rounding_tolerance
from rankaudit.measures.registry import FAMILIES, parse_measures
from rankaudit.measures.rules import RUN_TIE_RULES
from rankaudit.runs import audit_run, read_trec_qrels, read_trec_run
from rankaudit.runs.evaluate import RunAudit
from rankaudit.runs.leaderboard import build_leaderboard, paired_t_pvalue
from rankaudit.runs.rank_agreement import leaderboard_order, rank_intervals
from rankaudit.runs.significance import exact_sign_flip_pvalue, paired_randomisation_test
from tests.measures.conftest import tables, tie_free_run_and_qrels

#: one measure (or more) of every family; labels of the random runs are -1..4 (ERR: <= 4)
EVERY_FAMILY = parse_measures(
    "nDCG@10 nDCG nDCG(dcg='exp-log2')@5 nDCG(gains={0:0,1:5,2:1})@10 P@5 R@10 Rprec AP AP@10 "
    "RR RR@5 Success@5 Judged@10 NumRet NumRet@5 NumRel NumRelRet NumRelRet@10 RBP(p=0.8) "
    "RBP(p=0.5,rel=2)@10 RBPres(p=0.6) ERR@10 ERR(max_grade=5)@20 Bpref Bpref(rel=2) P(rel=2)@5"
)
#: the reproducer: two runs with the same per-query nDCG@10 (DCG 2/1 and 1/1 + 2/2)
RUN_B = "q1 Q0 dB 1 3.0 b\nq1 Q0 dC 2 2.0 b\nq2 Q0 dB 1 3.0 b\nq2 Q0 dC 2 2.0 b\n"
RUN_Z = (
    "q1 Q0 dA 1 3.0 a\nq1 Q0 dC 2 2.0 a\nq1 Q0 dB 3 1.0 a\n"
    "q2 Q0 dA 1 3.0 a\nq2 Q0 dC 2 2.0 a\nq2 Q0 dB 3 1.0 a\n"
)
ULP_QRELS = "q1 0 dA 1\nq1 0 dB 2\nq1 0 dC 0\nq2 0 dA 1\nq2 0 dB 2\nq2 0 dC 0\n"


@pytest.fixture
def ulp(tmp_path):
    paths = {}
    for name, text in (("runB", RUN_B), ("runZ", RUN_Z), ("ulp.qrels", ULP_QRELS)):
        paths[name] = tmp_path / name
        paths[name].write_text(text)
    return paths


def _same_bits(audit: RunAudit) -> None:
    """Every rule's per-query values and aggregates are the trec_eval rule's, bit for bit."""
    ref = audit.values["trec_eval"]
    for rule, values in audit.values.items():
        for j, m in enumerate(audit.measures):
            bad = np.flatnonzero(values[:, j] != ref[:, j])
            assert not len(bad), (rule, str(m), values[bad[0], j], ref[bad[0], j])
        assert np.array_equal(audit.aggregated(rule), audit.aggregated("trec_eval")), rule


def test_every_family_is_covered():
    assert {m.family for m in EVERY_FAMILY} == set(FAMILIES)


def test_the_reproducer_expected_is_the_ordered_value(ulp):
    audit = audit_run(
        read_trec_run(ulp["runZ"]),
        read_trec_qrels(ulp["ulp.qrels"]),
        ["nDCG@10"],
        ties=list(RUN_TIE_RULES),
    )
    _same_bits(audit)
    assert audit.aggregated("expected")[0] == 0.7601875334318685


@pytest.mark.parametrize("seed", range(8))
def test_tie_free_runs_every_rule_is_the_same_bits_for_every_family(seed):
    run, qrels = tie_free_run_and_qrels(seed, low=-1, high=4)
    r, q = tables(run, qrels)
    for level in (1, 2):
        audit = audit_run(r, q, EVERY_FAMILY, ties=list(RUN_TIE_RULES), relevance_level=level)
        _same_bits(audit)


def test_ties_that_move_nothing_give_the_same_bits():
    """Tie blocks whose order changes no measure: equal labels tied, unjudged documents tied,
    ties below every cutoff."""
    rng = np.random.default_rng(11)
    run, qrels = {}, {}
    for q in range(40):
        n = int(rng.integers(2, 30))
        docs = [f"d{i}" for i in range(n)]
        labels = {d: int(rng.integers(-1, 5)) for d in docs if rng.random() < 0.7}
        # a tie block of documents that share a label (or are all unjudged): no order moves it
        scores = list(rng.permutation(n).astype(float))
        block = [d for d in docs if labels.get(d) == labels.get(docs[0])][:5]
        for d in block:
            scores[docs.index(d)] = 100.0
        run[str(q)] = dict(zip(docs, scores, strict=True))
        qrels[str(q)] = labels or {"x": 1}
    r, q = tables(run, qrels)
    audit = audit_run(r, q, EVERY_FAMILY, ties=list(RUN_TIE_RULES))
    assert audit.any_tie.mean() > 0.5
    _same_bits(audit)


@pytest.mark.parametrize("seed", range(4))
def test_expected_lies_in_its_envelope_exactly(seed):
    run, qrels = tie_free_run_and_qrels(seed, low=-1, high=4)
    rng = np.random.default_rng(seed)
    heavy = {q: {d: float(rng.integers(0, 3)) for d in docs} for q, docs in run.items()}
    r, q = tables(heavy, qrels)
    audit = audit_run(r, q, EVERY_FAMILY, ties=list(RUN_TIE_RULES))
    lo, mid, hi = (audit.values[k] for k in ("pessimistic", "expected", "optimistic"))
    assert np.all(lo <= mid) and np.all(mid <= hi)
    for rule in ("trec_eval", "input_order", "hash"):
        assert np.all(lo <= audit.values[rule]) and np.all(audit.values[rule] <= hi), rule
    still = ~audit.moves
    assert still.any()
    assert np.array_equal(lo[still], mid[still]) and np.array_equal(hi[still], mid[still])
    assert np.array_equal(lo[still], audit.values["trec_eval"][still])


def test_the_reproducer_leaderboard_treats_equal_runs_as_equal(capsys, ulp):
    code = main(
        [
            "leaderboard",
            str(ulp["ulp.qrels"]),
            str(ulp["runB"]),
            str(ulp["runZ"]),
            "-m",
            "nDCG@10",
            "--n-perm",
            "200",
            "--format",
            "json",
        ]
    )
    captured = capsys.readouterr()
    assert code == 0, captured.err
    doc = json.loads(captured.out)
    orders = {r["ties"]: r["order"] for r in doc["rankings"]}
    assert all(order == ["runB", "runZ"] for order in orders.values()), orders
    assert all(t["tau"] == 1.0 and t["tau_ap"] == 1.0 for t in doc["kendall_tau"])
    assert doc["tie_decided_pairs"] == []
    (pair,) = doc["pairs"]
    assert pair["diff"] == 0.0
    assert pair["p_ttest"] == pair["p_ttest_holm"] == pair["p_value"] == pair["p_holm"] == 1.0
    code = main(
        ["audit", str(ulp["ulp.qrels"]), str(ulp["runZ"]), "-m", "nDCG@10", "--format", "json"]
    )
    captured = capsys.readouterr()
    assert code == 0, captured.err
    values = {r["ties"]: r["value"] for r in json.loads(captured.out)["aggregate"]}
    assert len(set(values.values())) == 1, values


def _audit(values: dict[str, np.ndarray]) -> RunAudit:
    queries = np.array([f"q{i}" for i in range(len(values["trec_eval"]))], dtype=object)
    vals = {rule: np.asarray(v, dtype=np.float64)[:, None] for rule, v in values.items()}
    moves = np.zeros((len(queries), 1), bool)
    return RunAudit(queries, parse_measures(["AP"]), vals, moves, moves[:, 0])


def test_values_apart_by_rounding_alone_are_equal_on_a_leaderboard():
    """Run ``b``'s values are run ``a``'s one unit in the last place up under every rule
    (the same per-query values summed in another order): no order, no tie-decided pair and
    no test may tell them apart."""
    x = np.array([0.5, 0.75, 0.625, 0.875])
    up = np.nextafter(x, 1.0)
    a = _audit({r: x for r in ("trec_eval", "expected", "pessimistic", "optimistic")})
    b = _audit({"trec_eval": x, "expected": up, "pessimistic": up, "optimistic": up})
    board = build_leaderboard(["a", "b"], [a, b], n_perm=100)
    assert all(r["order"] == ["a", "b"] for r in board.rankings), board.rankings
    assert all(t["tau"] == 1.0 and t["tau_ap"] == 1.0 for t in board.kendall_tau)
    assert board.tie_decided_pairs == []
    assert [(r["best"], r["worst"]) for r in board.rank_intervals] == [(1, 2), (1, 2)]
    (pair,) = board.pairs
    assert pair["p_ttest"] == pair["p_value"] == 1.0


def test_tests_on_rounding_differences_report_p_one():
    x = np.array([0.5, 0.75, 0.625, 0.875, 0.5625])
    up = np.nextafter(x, 1.0)  # the same difference (one ulp, 2**-53) on every query
    assert paired_t_pvalue(x, x) == 1.0
    assert paired_t_pvalue(x, up) == 1.0
    assert paired_randomisation_test(x, up, n_perm=100) == 1.0
    assert exact_sign_flip_pvalue(x, up) == 1.0
    # a real constant difference is still a certain one
    assert paired_t_pvalue(x, x + 0.125) == 0.0


def test_orders_and_intervals_do_not_order_by_rounding():
    x = 0.7601875334318685
    assert leaderboard_order(["a", "b"], np.array([x, np.nextafter(x, 1.0)])) == ["a", "b"]
    assert leaderboard_order(["b", "a"], np.array([np.nextafter(x, 1.0), x])) == ["a", "b"]
    assert leaderboard_order(["a", "b"], np.array([x, x + 1e-9])) == ["b", "a"]
    lo = np.array([x, np.nextafter(x, 1.0)])
    best, worst = rank_intervals(lo, lo)
    assert best.tolist() == [1, 1] and worst.tolist() == [2, 2]
    assert rounding_tolerance(np.array([x]), 3.0) == 3e-12
