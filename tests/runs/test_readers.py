"""Readers: fast and exact paths agree; every format gives the same run; errors name lines."""

from __future__ import annotations

import gzip

import numpy as np
import pandas as pd
import pytest

from rankaudit.runs import (
    RunFileError,
    evaluate_run,
    qrels_from_ir_measures,
    qrels_from_ranx,
    read_long_qrels,
    read_long_run,
    read_trec_qrels,
    read_trec_run,
    run_from_ir_measures,
    run_from_ranx,
)
from tests.runs.conftest import FIXTURES


def _same(a, b):
    assert a.query.to_pylist() == b.query.to_pylist()
    assert a.docno.to_pylist() == b.docno.to_pylist()
    np.testing.assert_array_equal(
        getattr(a, "score", None) if hasattr(a, "score") else a.relevance,
        getattr(b, "score", None) if hasattr(b, "score") else b.relevance,
    )


def test_irregular_whitespace_and_gzip_read_the_same(tmp_path):
    fast = read_trec_run(FIXTURES / "run_a.txt")
    assert fast.lines is None  # the pyarrow path
    messy = tmp_path / "messy.txt"
    text = (FIXTURES / "run_a.txt").read_text().replace(" Q0 ", " \t Q0   ")
    messy.write_text("\n" + text + "\n\n")
    slow = read_trec_run(messy)
    assert slow.lines is not None and slow.lines[0] == 2  # exact path, real line numbers
    _same(fast, slow)
    gz = tmp_path / "run.txt.gz"
    gz.write_bytes(gzip.compress((FIXTURES / "run_a.txt").read_bytes()))
    _same(fast, read_trec_run(gz))


def test_scores_are_doubles_and_ties_exact(tmp_path):
    path = tmp_path / "r.txt"
    path.write_text(
        "q Q0 a 1 0.1 t\nq Q0 b 2 0.10 t\nq Q0 c 3 1e-1 t\nq Q0 d 4 0.30000000000000004 t\n"
        "q Q0 e 5 0.3 t\n"
    )
    s = read_trec_run(path).score
    assert s[0] == s[1] == s[2] and s[3] != s[4]


def test_long_formats_match_trec(tmp_path):
    run = read_trec_run(FIXTURES / "run_a.txt")
    qrels = read_trec_qrels(FIXTURES / "qrels.txt")
    frame = run.to_pandas().rename(columns={"query": "qid", "docno": "doc", "score": "s"})
    frame.to_csv(tmp_path / "run.csv", index=False)
    frame.to_csv(tmp_path / "run.tsv", index=False, sep="\t")
    frame.to_parquet(tmp_path / "run.parquet")
    qrels.to_pandas().to_csv(tmp_path / "qrels.csv", index=False)
    want = evaluate_run(run, qrels, ["nDCG@10", "AP"])
    for name in ("run.csv", "run.tsv", "run.parquet"):
        other = read_long_run(tmp_path / name, query_col="qid", docno_col="doc", score_col="s")
        _same(run, other)
        got = evaluate_run(other, read_long_qrels(tmp_path / "qrels.csv"), ["nDCG@10", "AP"])
        pd.testing.assert_frame_equal(got, want)


def test_long_format_errors(tmp_path):
    (tmp_path / "r.csv").write_text("query,docno,score\nq,a,1\nq,b,\n")
    with pytest.raises(RunFileError, match=r"r.csv:3: .*missing value in column 'score'"):
        read_long_run(tmp_path / "r.csv")
    with pytest.raises(RunFileError, match="no column 'qid'"):
        read_long_run(tmp_path / "r.csv", query_col="qid")
    (tmp_path / "q.csv").write_text("query,docno,relevance\nq,a,1.5\n")
    with pytest.raises(RunFileError, match=r"q.csv:2: relevance is not an integer"):
        read_long_qrels(tmp_path / "q.csv")


def test_duplicate_judgment_names_line(tmp_path):
    (tmp_path / "q.txt").write_text("101 0 doc-07 1\n101 0 doc-03 0\n101 0 doc-07 2\n")
    with pytest.raises(RunFileError, match=r"q.txt:3: document 'doc-07' is judged twice"):
        evaluate_run(read_trec_run(FIXTURES / "run_a.txt"), read_trec_qrels(tmp_path / "q.txt"))


def test_adapters_ranx_and_ir_measures():
    run = read_trec_run(FIXTURES / "run_b.txt")
    qrels = read_trec_qrels(FIXTURES / "qrels.txt")
    nested_run: dict = {}
    for q, d, s in zip(run.query.to_pylist(), run.docno.to_pylist(), run.score, strict=True):
        nested_run.setdefault(q, {})[d] = float(s)
    nested_qrels: dict = {}
    for q, d, r in zip(
        qrels.query.to_pylist(), qrels.docno.to_pylist(), qrels.relevance, strict=True
    ):
        nested_qrels.setdefault(q, {})[d] = int(r)
    want = evaluate_run(run, qrels, ["nDCG@10", "RR"])
    got = evaluate_run(run_from_ranx(nested_run), qrels_from_ranx(nested_qrels), ["nDCG@10", "RR"])
    pd.testing.assert_frame_equal(got, want)
    ranx = pytest.importorskip("ranx")
    got = evaluate_run(
        run_from_ranx(ranx.Run(nested_run)),
        qrels_from_ranx(
            ranx.Qrels({q: {d: r for d, r in v.items() if r >= 0} for q, v in nested_qrels.items()})
        ),
        ["RR"],
    )
    assert len(got) == len(want)
    irm = pytest.importorskip("ir_measures")
    scored = [irm.ScoredDoc(q, d, s) for q, v in nested_run.items() for d, s in v.items()]
    judged = [irm.Qrel(q, d, r) for q, v in nested_qrels.items() for d, r in v.items()]
    got = evaluate_run(
        run_from_ir_measures(scored), qrels_from_ir_measures(judged), ["nDCG@10", "RR"]
    )
    pd.testing.assert_frame_equal(got, want)
    with pytest.raises(ValueError, match="ir_measures"):
        run_from_ir_measures([("q", "d", 1.0)])


def test_writers_round_trip(tmp_path):
    from rankaudit.runs import write_trec_qrels, write_trec_run

    rng = np.random.default_rng(0)
    scores = np.r_[rng.random(50), [0.1, 0.1, 1 / 3, 1e-300, -2.5e17]]
    q = np.repeat(["a", "b", "c", "d", "e"], 11)
    docs = [f"doc{i}" for i in range(len(scores))]
    write_trec_run(tmp_path / "r.txt", q, docs, scores)
    back = read_trec_run(tmp_path / "r.txt")
    got = dict(zip(back.docno.to_pylist(), back.score, strict=True))
    assert all(got[d] == s for d, s in zip(docs, scores, strict=True))  # exact doubles
    write_trec_qrels(tmp_path / "q.txt", q, docs, np.arange(len(docs)) % 3 - 1)
    assert read_trec_qrels(tmp_path / "q.txt").relevance.tolist() == list(
        np.arange(len(docs)) % 3 - 1
    )
    with pytest.raises(ValueError, match="white space"):
        write_trec_run(tmp_path / "x.txt", ["a b"], ["d"], [1.0])
