"""Per-query values aggregate as trec_eval aggregates them: the counts (trec_eval's
``num_ret``, ``num_rel``, ``num_rel_ret``; ir_measures' ``SumAgg``) are summed, every other
measure averaged, on every path: the library, ``audit``, ``leaderboard``, ``compare`` (table,
CSV, JSON), the rows API's ``summarize`` and Dask."""

from __future__ import annotations

import io
import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from rankaudit.cli import main
from rankaudit.measures.aggregation import aggregate_value
from rankaudit.measures.registry import FAMILIES, parse_measure
from rankaudit.runs import audit_run, compare_runs, evaluate_run, read_trec_qrels, read_trec_run
from rankaudit.ties import evaluate, summarize
from tests.measures.conftest import ask_peers, tables, tie_free_run_and_qrels

#: the reproducer: two queries, 5 documents retrieved, 3 relevant judged, 3 of them retrieved
BASE_RUN = (
    "q1 Q0 d1 1 3.0 r\nq1 Q0 d2 2 2.0 r\nq1 Q0 d3 3 1.0 r\nq2 Q0 d1 1 1.0 r\nq2 Q0 d4 2 0.5 r\n"
)
BASE_QRELS = "q1 0 d2 1\nq1 0 d3 2\nq2 0 d4 1\n"
#: what trec_eval 10.0 prints for the reproducer (``-m num_ret -m num_rel -m num_rel_ret``)
TREC_EVAL_ALL = {"NumRet": 5.0, "NumRel": 3.0, "NumRelRet": 3.0}
COUNTS = list(TREC_EVAL_ALL)
#: the measures trec_eval aggregates by summing (its ``te_calc_avg_meas_empty`` measures)
TREC_EVAL_SUMMED = {"num_ret", "num_rel", "num_rel_ret"}


@pytest.fixture
def base(tmp_path) -> tuple[Path, Path]:
    run, qrels = tmp_path / "base.run", tmp_path / "base.qrels"
    run.write_text(BASE_RUN)
    qrels.write_text(BASE_QRELS)
    return run, qrels


def _cli(capsys, *argv: object) -> str:
    code = main([str(a) for a in argv])
    captured = capsys.readouterr()
    assert code == 0, captured.err
    return captured.out


def test_the_counts_and_only_they_are_declared_summed():
    summed = {name for name, fam in FAMILIES.items() if fam.aggregation == "sum"}
    assert summed == {"NumRet", "NumRel", "NumRelRet"}
    # trec_eval's and ir_measures' spellings of the counts are the same declaration
    for text in ("num_ret", "NumRet@5", "NumRet(rel=2)", "num_rel", "hits@10"):
        assert parse_measure(text).aggregation == "sum", text
    for text in ("nDCG@10", "AP", "P@5", "Judged@10", "RBPres", "Bpref"):
        assert parse_measure(text).aggregation == "mean", text
    assert aggregate_value(parse_measure("NumRet"), [3, 2]) == 5.0
    assert aggregate_value(parse_measure("AP"), [0.5, 0.25]) == 0.375
    with pytest.raises(ValueError, match="no query"):
        aggregate_value(parse_measure("NumRet"), [])


def test_library_audit_sums_the_counts(base):
    run, qrels = read_trec_run(base[0]), read_trec_qrels(base[1])
    audit = audit_run(run, qrels, [*COUNTS, "nDCG@10"], ties=["trec_eval", "expected"])
    agg = audit.aggregate().set_index(["measure", "ties"])
    for name, want in TREC_EVAL_ALL.items():
        for rule in ("trec_eval", "expected"):
            assert agg.loc[(name, rule), "value"] == want
            assert agg.loc[(name, rule), "aggregation"] == "sum"
    per_query = evaluate_run(run, qrels, ["nDCG@10"])
    assert agg.loc[("nDCG@10", "trec_eval"), "value"] == pytest.approx(
        per_query["nDCG@10"].mean(), abs=1e-15
    )
    assert agg.loc[("nDCG@10", "trec_eval"), "aggregation"] == "mean"
    env = audit.envelope().set_index("measure")
    assert env.loc["NumRet", "trec_eval"] == 5.0 and env.loc["NumRet", "aggregation"] == "sum"


def test_audit_table_csv_and_json_sum_the_counts(capsys, base):
    args = ["audit", base[1], base[0], "-m", *COUNTS, "--ties", "trec_eval"]
    doc = json.loads(_cli(capsys, *args, "--format", "json"))
    assert {r["measure"]: r["value"] for r in doc["aggregate"]} == TREC_EVAL_ALL
    assert {r["measure"]: r["trec_eval"] for r in doc["envelope"]} == TREC_EVAL_ALL
    csv = _cli(capsys, *args, "--format", "csv").splitlines()
    assert csv[0] == "measure,ties,value,aggregation"
    assert csv[1:] == [
        "NumRet,trec_eval,5,sum",
        "NumRel,trec_eval,3,sum",
        "NumRelRet,trec_eval,3,sum",
    ]
    table = _cli(capsys, *args)
    for name, want in TREC_EVAL_ALL.items():
        line = next(ln for ln in table.splitlines() if ln.split()[:1] == [name])
        assert line.split()[1] == f"{want:.4f}" and line.split()[-1] == "sum", line


def test_leaderboard_json_and_csv_sum_the_counts(capsys, base, tmp_path):
    other = tmp_path / "other.run"
    other.write_text("q1 Q0 d2 1 3.0 o\nq2 Q0 d4 1 1.0 o\nq2 Q0 d9 2 0.5 o\n")
    args = ["leaderboard", base[1], base[0], other, "-m", *COUNTS, "--n-perm", "20"]
    doc = json.loads(_cli(capsys, *args, "--format", "json"))
    values = {
        (r["run"], r["measure"]): r["value"] for r in doc["values"] if r["ties"] == "trec_eval"
    }
    for name, want in TREC_EVAL_ALL.items():
        assert values[("base.run", name)] == want
    assert values[("other.run", "NumRet")] == 3.0 and values[("other.run", "NumRelRet")] == 2.0
    envelopes = {(r["run"], r["measure"]): r for r in doc["envelopes"]}
    assert envelopes[("base.run", "NumRet")]["expected"] == 5.0
    diffs = {r["measure"]: r["diff"] for r in doc["pairs"]}
    assert diffs["NumRet"] == 3.0 - 5.0 and diffs["NumRelRet"] == 2.0 - 3.0
    csv = pd.read_csv(io.StringIO(_cli(capsys, *args, "--format", "csv")))
    row = csv[(csv["measure"] == "NumRet") & (csv["run"] == "base.run")].iloc[0]
    assert row["trec_eval"] == 5.0 and row["expected"] == 5.0


def test_compare_json_and_table_sum_the_counts(capsys, base, tmp_path):
    other = tmp_path / "other.run"
    other.write_text("q1 Q0 d2 1 3.0 o\nq2 Q0 d4 1 1.0 o\nq2 Q0 d9 2 0.5 o\n")
    args = ["compare", base[1], base[0], other, "-m", "NumRet", "--n-perm", "20", "--n-boot", "20"]
    (doc,) = json.loads(_cli(capsys, *args, "--format", "json"))["comparisons"]
    assert doc["aggregation"] == "sum"
    assert (doc["value_a"], doc["value_b"], doc["difference"]) == (5.0, 3.0, -2.0)
    assert (doc["mean_a"], doc["mean_b"], doc["mean_difference"]) == (2.5, 1.5, -1.0)
    table = _cli(capsys, *args)
    assert "summed over queries" in table and ": 5.0000" in table and "-2.0000" in table
    library = compare_runs(
        read_trec_run(base[0]), read_trec_run(other), read_trec_qrels(base[1]), "NumRel"
    )
    assert library.summary()["value_a"] == 3.0 == library.summary()["value_b"]


def test_sums_equal_pytrec_eval_and_ir_measures(tmp_path):
    """trec_eval's aggregate of a count is the sum of its per-query values (pytrec_eval gives
    those); ir_measures' own aggregator (SumAgg) gives the same; both equal ours, to the bit."""
    run, qrels = tie_free_run_and_qrels(5)
    peers = {"NumRet": "num_ret", "NumRel": "num_rel", "NumRelRet": "num_rel_ret", "AP": "map"}
    asks = [["pytrec_eval", name, ours] for ours, name in peers.items()]
    asks += [["ir_measures_aggregate", ours, f"agg {ours}"] for ours in peers]
    got = ask_peers(run, qrels, 1, asks)
    r, q = tables(run, qrels)
    audit = audit_run(r, q, list(peers), ties=["trec_eval"])
    ours = dict(zip(audit.aggregate()["measure"], audit.aggregate()["value"], strict=True))
    for name, te in peers.items():
        per_query = list(got[name].values())
        trec_eval = (
            float(np.sum(per_query)) if te in TREC_EVAL_SUMMED else float(np.mean(per_query))
        )
        assert ours[name] == pytest.approx(trec_eval, abs=1e-12), name
        assert ours[name] == pytest.approx(got[f"agg {name}"]["all"], abs=1e-12), name
        if te in TREC_EVAL_SUMMED:
            assert ours[name] == trec_eval == got[f"agg {name}"]["all"], name


def test_rows_summarize_sums_the_counts():
    scores = np.array([[3.0, 2.0, 1.0], [1.0, 0.5, 0.2]])
    labels = np.array([[0, 1, 2], [0, 1, 0]])
    out = evaluate(scores, labels, ties="expected", measures=[*COUNTS, "nDCG@3"])
    agg = summarize(out)
    assert (agg["NumRet"], agg["NumRel"], agg["NumRelRet"]) == (6.0, 3.0, 3.0)
    assert agg["nDCG@3"] == pytest.approx(out["nDCG@3"].mean(), abs=1e-15)


def test_dask_aggregates_sum_the_counts():
    dd = pytest.importorskip("dask.dataframe")
    import dask

    from rankaudit.distributed.evaluate import evaluate as evaluate_dask

    rng = np.random.default_rng(4)
    n, m = 40, 6
    frame = pd.DataFrame(
        {
            "row_id": np.repeat(np.arange(n), m),
            "item_id": np.tile(np.arange(m), n),
            "score": rng.integers(0, 3, n * m).astype(float),
            "label": rng.integers(0, 3, n * m),
        }
    )
    names = [*COUNTS, "AP"]
    local = summarize(evaluate(frame, ties="expected", measures=names))
    with dask.config.set(scheduler="synchronous"):
        result = evaluate_dask(
            dd.from_pandas(frame, npartitions=3), ties="expected", measures=names, progress=False
        )
    for name in COUNTS:
        assert result.aggregates[name] == local[name] == frame_sum(result, name)
    assert result.aggregates["AP"] == result.means["AP"]
    assert result.aggregates["AP"] == pytest.approx(local["AP"], abs=1e-15)


def frame_sum(result, name: str) -> float:
    """The plain sum of a Dask result's per-row column (small counts: exact)."""
    return float(result.rows.compute()[name].sum())
