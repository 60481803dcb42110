"""--ties trec_eval reproduces trec_eval (via pytrec_eval) per query, to the bit, and in
aggregate (the mean over queries; the sum for trec_eval's counts); on tie-free files every
other rule gives the same bits."""

from __future__ import annotations

import numpy as np
import pytest

from rankaudit.measures.aggregation import aggregate_value
from rankaudit.measures.list_reference import measure_of_ranking, ranked_order
from rankaudit.measures.list_support import INSERTION_SORT_MAX
from rankaudit.measures.registry import parse_measures
from rankaudit.measures.rules import RUN_TIE_RULES
from rankaudit.runs import (
    audit_run,
    evaluate_run,
    read_trec_qrels,
    read_trec_run,
    run_from_ranx,
)
from tests.runs.conftest import FIXTURES, random_run_and_qrels, write_trec

pytrec_eval = pytest.importorskip("pytrec_eval")

MEASURES = (
    "nDCG@10",
    "nDCG@5",
    "nDCG",
    "P@10",
    "P@5",
    "R@10",
    "AP",
    "RR",
    "Success@10",
    "Success@1",
    "NumRet",
    "NumRel",
    "NumRelRet",
)
#: what trec_eval aggregates by summing over queries (its other measures: the mean)
TREC_EVAL_SUMMED = {"num_ret", "num_rel", "num_rel_ret"}


def _pytrec(run: dict, qrels: dict, level: int) -> dict:
    # pytrec_eval takes "ndcg_cut.10" and reports "ndcg_cut_10"
    names = {
        m.trec_eval_name[: m.trec_eval_name.rfind("_")] + f".{m.cutoff}"
        if m.cutoff
        else m.trec_eval_name
        for m in parse_measures(MEASURES)
    }
    return pytrec_eval.RelevanceEvaluator(qrels, names, relevance_level=level).evaluate(run)


def _nested(path) -> dict:
    out: dict = {}
    for line in open(path):
        f = line.split()
        if f:
            out.setdefault(f[0], {})[f[2]] = float(f[4]) if len(f) == 6 else int(f[3])
    return out


def _check(frame, expected: dict) -> None:
    assert sorted(frame["query"]) == sorted(expected)
    for _, row in frame.iterrows():
        for m in parse_measures(MEASURES):
            want = expected[row["query"]][m.trec_eval_name]
            assert row[str(m)] == want, (row["query"], str(m), row[str(m)], want)
    for m in parse_measures(MEASURES):
        per_query = [v[m.trec_eval_name] for v in expected.values()]
        if m.trec_eval_name in TREC_EVAL_SUMMED:
            assert aggregate_value(m, frame[str(m)]) == sum(per_query), str(m)
        else:
            want = np.mean(per_query)
            assert aggregate_value(m, frame[str(m)]) == pytest.approx(want, abs=1e-12)


@pytest.mark.parametrize("seed", [0, 1, 2])
@pytest.mark.parametrize("level", [1, 2])
def test_random_files_match_pytrec_eval(tmp_path, seed, level):
    run, qrels = random_run_and_qrels(seed)
    run_path, qrels_path = write_trec(run, qrels, tmp_path, sep=" " if seed % 2 else "\t")
    frame = evaluate_run(
        read_trec_run(run_path),
        read_trec_qrels(qrels_path),
        MEASURES,
        ties="trec_eval",
        relevance_level=level,
    )
    _check(frame, _pytrec(run, qrels, level))


@pytest.mark.parametrize("seed", [4, 5])
def test_tie_free_files_every_rule_is_trec_eval_to_the_bit(tmp_path, seed):
    run, qrels = random_run_and_qrels(seed)
    rng = np.random.default_rng(seed)
    run = {
        q: {d: float(s) for d, s in zip(docs, rng.permutation(len(docs)), strict=True)}
        for q, docs in run.items()
    }
    run_path, qrels_path = write_trec(run, qrels, tmp_path)
    audit = audit_run(
        read_trec_run(run_path), read_trec_qrels(qrels_path), MEASURES, ties=list(RUN_TIE_RULES)
    )
    assert not audit.any_tie.any()
    for rule, values in audit.values.items():
        assert np.array_equal(values, audit.values["trec_eval"]), rule
    frame = evaluate_run(read_trec_run(run_path), read_trec_qrels(qrels_path), MEASURES)
    _check(frame, _pytrec(run, qrels, 1))


def test_fixture_files_match_pytrec_eval():
    for name in ("run_a.txt", "run_b.txt"):
        run = _nested(FIXTURES / name)
        qrels = _nested(FIXTURES / "qrels.txt")
        frame = evaluate_run(
            read_trec_run(FIXTURES / name), read_trec_qrels(FIXTURES / "qrels.txt"), MEASURES
        )
        _check(frame, _pytrec(run, qrels, 1))


def test_docno_order_is_byte_order_descending():
    # 'B' < 'a' in byte order; trec_eval puts the larger docno first among ties
    run = run_from_ranx({"q": {"a": 1.0, "B": 1.0, "aa": 1.0}})
    from rankaudit.runs import qrels_from_ranx

    for relevant, rr in (("aa", 1.0), ("a", 0.5), ("B", 1 / 3)):
        frame = evaluate_run(run, qrels_from_ranx({"q": {relevant: 1}}), ["RR"])
        assert frame["RR"].item() == rr
        got = pytrec_eval.RelevanceEvaluator({"q": {relevant: 1}}, {"recip_rank"}).evaluate(
            {"q": {"a": 1.0, "B": 1.0, "aa": 1.0}}
        )
        assert got["q"]["recip_rank"] == rr


def test_complete_scores_missing_queries_zero(tmp_path):
    run, qrels = random_run_and_qrels(3)
    run_path, qrels_path = write_trec(run, qrels, tmp_path)
    r, q = read_trec_run(run_path), read_trec_qrels(qrels_path)
    plain = evaluate_run(r, q, MEASURES)
    full = evaluate_run(r, q, MEASURES, complete=True)
    assert set(full["query"]) == set(qrels)
    missing = full[~full["query"].isin(plain["query"])]
    scored = [str(m) for m in parse_measures(MEASURES) if m.family != "NumRel"]
    assert len(missing) >= 1 and (missing[scored] == 0).all().all()
    # NumRel counts the qrels, whether the run answered the query or not (trec_eval -c)
    assert missing["NumRel"].tolist() == [1.0]
    merged = full.set_index("query").loc[plain["query"]]
    assert np.array_equal(merged.to_numpy(), plain.set_index("query").to_numpy())


def _long_blocks(seed: int) -> tuple[dict, dict]:
    """Queries whose tie blocks span both sort paths of the kernel: short blocks (insertion
    sort, at most ``INSERTION_SORT_MAX`` documents) and long ones (merge sort)."""
    rng = np.random.default_rng(seed)
    run, qrels = {}, {}
    for q, (n_docs, n_scores) in enumerate([(300, 3), (200, 8), (90, 2), (40, 1), (33, 1)]):
        qid = f"long{q}"
        docs = [f"d{d}" for d in rng.permutation(1000)[:n_docs]]
        run[qid] = {d: float(rng.integers(0, n_scores)) for d in docs}
        judged = rng.choice(docs, size=n_docs // 3, replace=False)
        qrels[qid] = {str(d): int(rng.integers(-1, 4)) for d in judged}
    return run, qrels


@pytest.mark.parametrize("seed", [0, 1])
def test_long_tie_blocks_match_pytrec_eval_and_the_reference(tmp_path, seed):
    run, qrels = _long_blocks(seed)
    sizes = [
        list(scores.values()).count(s) for scores in run.values() for s in set(scores.values())
    ]
    assert min(sizes) <= INSERTION_SORT_MAX < max(sizes)
    run_path, qrels_path = write_trec(run, qrels, tmp_path)
    r, j = read_trec_run(run_path), read_trec_qrels(qrels_path)
    _check(evaluate_run(r, j, MEASURES, ties="trec_eval"), _pytrec(run, qrels, 1))
    for rule in ("input_order", "pessimistic", "optimistic"):
        frame = evaluate_run(r, j, MEASURES, ties=rule).set_index("query")
        for qid, docs in run.items():
            names, scores = list(docs), list(docs.values())
            labels = [qrels[qid].get(d) for d in names]
            gain_rel = [(0, False) if lab is None else (max(lab, 0), lab >= 1) for lab in labels]
            keys = {
                "input_order": list(range(len(names))),
                "pessimistic": [2 * g + int(x) for g, x in gain_rel],
                "optimistic": [-(2 * g + int(x)) for g, x in gain_rel],
            }[rule]
            ranked = [labels[i] for i in ranked_order(scores, keys)]
            for m in parse_measures(MEASURES):
                want = measure_of_ranking(m, ranked, list(qrels[qid].values()))
                assert frame.loc[qid, str(m)] == pytest.approx(want, abs=1e-12), (rule, qid, m)
