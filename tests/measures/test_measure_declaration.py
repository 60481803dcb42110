"""A measure is one declaration: a family declared in this file (a toy that reuses the
NumRelRet kernel branch, averaged over queries, lower-is-better, with its plain reference) is
held to its reference by enumeration of every tie order, and parsed and computed by
``rankaudit.evaluate``, ``audit_run``, the command line, Dask and the leaderboard, which
orders it by its declared direction."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest

import rankaudit
from rankaudit.cli import main
from rankaudit.measures import list_kernels as K
from rankaudit.measures.families import Family, Param
from rankaudit.measures.list_reference import expected_by_enumeration
from rankaudit.measures.registry import (
    measure_spec,
    parse_measure,
    register_family,
    unregister_family,
)
from rankaudit.runs import Qrels, Run
from rankaudit.runs.evaluate import audit_run
from rankaudit.runs.leaderboard import build_leaderboard, leaderboard_rules
from rankaudit.runs.trec import write_trec_qrels, write_trec_run

FOUND = Family(
    "Found",
    K.NUMRELRET,
    "required",
    (Param("rel", "int", None, lambda v, name: int(v), "relevance level"),),
    None,
    None,
    "relevant documents in the top k, averaged (a test's toy)",
    aliases=("found",),
    direction=-1,
    reference=lambda x: float(sum(x.top)),
)


@pytest.fixture
def found():
    register_family(FOUND)
    yield "Found@3"
    unregister_family("Found")


def _run_qrels(strength: float, seed: int = 0):
    rng = np.random.default_rng(seed)
    q = np.repeat([f"q{i}" for i in range(15)], 6)
    d = np.array([f"d{j % 6}" for j in range(len(q))])
    rel = (rng.random(len(q)) < 0.5).astype(np.int64)
    s = np.round(rng.random(len(q)) + strength * rel, 1)
    return Run.from_arrays(q, d, s), Qrels.from_arrays(q, d, rel)


def test_the_declared_measure_is_parsed_and_specified(found):
    m = parse_measure("found@3")
    assert str(m) == found and m.aggregation == "mean" and not m.higher_is_better
    assert measure_spec([m], 1).codes.tolist() == [K.NUMRELRET]


def test_a_family_without_its_reference_is_refused():
    with pytest.raises(ValueError, match="Found: declare its reference"):
        Family("Found", K.NUMRELRET, "required", (), None, None, "no reference")


def test_the_declared_measure_equals_its_reference_over_every_tie_order(found):
    """The kernel's bounds and expectation against the declared reference, enumerated."""
    rng = np.random.default_rng(5)
    scores = rng.integers(0, 3, size=(25, 6)).astype(float)
    labels = rng.integers(0, 2, size=(25, 6))
    m = parse_measure(found)
    got = {
        rule: rankaudit.evaluate(scores, labels, ties=rule, measures=[found])[found].to_numpy()
        for rule in ("expected", "optimistic", "pessimistic")
    }
    for i in range(len(scores)):
        mean, low, high = expected_by_enumeration(
            m, scores[i].tolist(), labels[i].tolist(), labels[i].tolist()
        )
        assert got["expected"][i] == pytest.approx(mean, abs=1e-12)
        assert (got["pessimistic"][i], got["optimistic"][i]) == pytest.approx((low, high))


def test_the_declared_measure_in_evaluate_and_audit_run(found):
    rng = np.random.default_rng(1)
    scores = rng.integers(0, 3, size=(30, 7)).astype(float)
    labels = rng.integers(0, 2, size=(30, 7))
    labels[:, 0] = 1
    got = rankaudit.evaluate(scores, labels, ties="expected", measures=[found, "NumRelRet@3"])
    np.testing.assert_array_equal(got[found], got["NumRelRet@3"])
    summary = rankaudit.ties.summarize(got)
    assert summary[found] == pytest.approx(got[found].mean())  # its declared aggregation
    assert summary["NumRelRet@3"] == pytest.approx(got["NumRelRet@3"].sum())
    run, qrels = _run_qrels(0.3)
    audit = audit_run(run, qrels, [found, "NumRelRet@3"], ties=["trec_eval", "expected"])
    for rule, values in audit.values.items():
        np.testing.assert_array_equal(values[:, 0], values[:, 1], err_msg=rule)


def test_the_declared_measure_on_the_command_line(found, tmp_path, capsys):
    run, qrels = _run_qrels(0.3)
    write_trec_run(tmp_path / "run", run.query, run.docno, run.score)
    write_trec_qrels(tmp_path / "qrels", qrels.query, qrels.docno, qrels.relevance)
    argv = ["audit", str(tmp_path / "qrels"), str(tmp_path / "run"), "-m", found, "NumRelRet@3"]
    assert main([*argv, "--format", "json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert found in json.dumps(out)


def test_the_declared_measure_on_dask(found):
    dask = pytest.importorskip("dask")
    dd = pytest.importorskip("dask.dataframe")
    from rankaudit.distributed.evaluate import evaluate as evaluate_dask

    rng = np.random.default_rng(3)
    n, m = 40, 6
    frame = pd.DataFrame(
        {
            "row_id": np.repeat(np.arange(n), m),
            "item_id": np.tile(np.arange(m), n),
            "score": rng.integers(0, 3, n * m).astype(float),
            "label": rng.integers(0, 2, n * m),
        }
    )
    frame.loc[frame.index % m == 0, "label"] = 1
    local = rankaudit.evaluate(frame, ties="expected", measures=[found])
    with dask.config.set(scheduler="synchronous"):
        result = evaluate_dask(
            dd.from_pandas(frame, npartitions=3), ties="expected", measures=[found], progress=False
        )
        rows = result.rows.compute().sort_values("row_id")
    np.testing.assert_allclose(rows[found].to_numpy(), local[found].to_numpy(), atol=1e-12)


def test_the_leaderboard_orders_the_declared_measure_by_its_direction(found):
    names = ["strong", "weak"]
    audits = []
    for strength in (5.0, -5.0):  # strong puts relevant documents first, weak last
        run, qrels = _run_qrels(strength)
        rules = leaderboard_rules(["trec_eval"])
        audits.append(audit_run(run, qrels, [found, "NumRelRet@3"], ties=rules))
    board = build_leaderboard(names, audits, n_perm=50)
    orders = {(r["measure"], r["ties"]): r["order"] for r in board.rankings}
    assert orders[("NumRelRet@3", "expected")] == ["strong", "weak"]  # higher is better
    assert orders[(found, "expected")] == ["weak", "strong"]  # declared lower is better
    intervals = {(r["run"], r["measure"]): (r["best"], r["worst"]) for r in board.rank_intervals}
    assert intervals[("weak", found)] == (1, 1) and intervals[("strong", found)] == (2, 2)
