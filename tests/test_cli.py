"""The rankaudit command line, end to end in a subprocess: exit codes, JSON shape, bad files."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from tests.cli_process import run_cli

ROOT = Path(__file__).resolve().parents[1]
FIX = ROOT / "tests" / "fixtures" / "trec"


def _one_line_error(proc: subprocess.CompletedProcess, code: int = 2) -> str:
    assert proc.returncode == code, proc.stderr
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in proc.stderr, proc.stderr
    return lines[0]


def test_audit_json_shape_and_values(tmp_path):
    out = tmp_path / "audit.json"
    proc = run_cli(
        "audit",
        FIX / "qrels.txt",
        FIX / "run_a.txt",
        "-m",
        "nDCG@10",
        "RR",
        "P@10",
        "AP",
        "--per-query",
        "--format",
        "json",
        "-o",
        out,
    )
    assert proc.returncode == 0, proc.stderr
    doc = json.loads(out.read_text())
    assert {"aggregate", "per_query", "moved_share", "n_queries", "inputs"} <= set(doc)
    assert doc["n_queries"] == 3
    rules = {"trec_eval", "expected", "pessimistic", "optimistic"}
    assert {(r["measure"], r["ties"]) for r in doc["aggregate"]} == {
        (m, t) for m in ("nDCG@10", "RR", "P@10", "AP") for t in rules
    }
    assert len(doc["per_query"]) == 3 * 4 * 4
    assert set(doc["per_query"][0]) == {"query", "measure", "ties", "value"}
    by = {(r["measure"], r["ties"]): r["value"] for r in doc["aggregate"]}
    for m in ("nDCG@10", "RR", "AP"):
        assert by[(m, "pessimistic")] <= by[(m, "expected")] <= by[(m, "optimistic")]
    assert [i["name"] for i in doc["inputs"]] == ["qrels.txt", "run_a.txt"]
    assert all(len(i["sha256"]) == 64 for i in doc["inputs"])
    assert set(doc["moved_share"]) == {"nDCG@10", "RR", "P@10", "AP"}
    assert 0 <= doc["any_tie_share"] <= 1


def test_audit_table_and_csv():
    proc = run_cli("audit", FIX / "qrels.txt", FIX / "run_b.txt")
    assert proc.returncode == 0 and "envelope" in proc.stdout
    proc = run_cli("audit", FIX / "qrels.txt", FIX / "run_b.txt", "--format", "csv", "-c")
    assert proc.returncode == 0
    assert proc.stdout.splitlines()[0] == "measure,ties,value,aggregation"


def test_compare_and_checklist():
    proc = run_cli(
        "compare",
        FIX / "qrels.txt",
        FIX / "run_a.txt",
        FIX / "run_b.txt",
        "-m",
        "AP",
        "--format",
        "json",
        "--n-perm",
        "200",
        "--n-boot",
        "200",
    )
    assert proc.returncode == 0, proc.stderr
    (doc,) = json.loads(proc.stdout)["comparisons"]
    assert {
        "mean_difference",
        "p_value_sign_flip",
        "sign_survives_worst_case",
        "b_pessimistic_minus_a_optimistic",
    } <= set(doc)
    assert 0 < doc["p_value_sign_flip"] <= 1
    proc = run_cli("checklist", FIX / "qrels.txt", FIX / "run_a.txt")
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.count("**") >= 12 and "Sensitivity analysis" in proc.stdout


@pytest.mark.parametrize("command", ["", "audit", "compare", "checklist"])
def test_help(command):
    proc = run_cli(*([command] if command else []), "--help")
    assert proc.returncode == 0 and "usage" in proc.stdout


def test_console_script_declared():
    text = (ROOT / "pyproject.toml").read_text()
    assert 'rankaudit = "rankaudit.cli:main"' in text


@pytest.mark.parametrize(
    "content, needle",
    [
        ("q1 Q0 d1 1 0.5 t\nq1 Q0 d2 2 0.4\n", ":2: expected 6 fields"),
        ("q1 Q0 d1 1 0.5 t\nq1 Q0 d2 2 abc t\n", ":2: score 'abc' is not a number"),
        ("q1 Q0 d1 1 0.5 t\nq1 Q0 d2 2 nan t\n", ":2: score 'nan' is not a finite number"),
        ("101 Q0 d1 1 0.5 t\n\n101  Q0 d1 2 0.4 t\n", ":3: document 'd1' is retrieved twice"),
        ("", "no run lines"),
    ],
)
def test_malformed_run(tmp_path, content, needle):
    run = tmp_path / "bad.run"
    run.write_text(content)
    line = _one_line_error(run_cli("audit", FIX / "qrels.txt", run))
    assert needle in line and "bad.run" in line


def test_malformed_qrels_and_arguments(tmp_path):
    qrels = tmp_path / "bad.qrels"
    qrels.write_text("101 0 doc-07 1\n101 0 doc-03 x\n")
    assert ":2: relevance 'x' is not an integer" in _one_line_error(
        run_cli("audit", qrels, FIX / "run_a.txt")
    )
    assert "no such file" in _one_line_error(
        run_cli("audit", FIX / "qrels.txt", tmp_path / "missing")
    )
    assert "the cutoff 'x' is not an integer" in _one_line_error(
        run_cli("audit", FIX / "qrels.txt", FIX / "run_a.txt", "-m", "nDCG@x")
    )
    assert "did you mean 'nDCG'" in _one_line_error(
        run_cli("audit", FIX / "qrels.txt", FIX / "run_a.txt", "-m", "nDGC@10")
    )
    assert "applies to rectangular rows only" in _one_line_error(
        run_cli("audit", FIX / "qrels.txt", FIX / "run_a.txt", "--ties", "random")
    )
    assert "did you mean 'expected'" in _one_line_error(
        run_cli("audit", FIX / "qrels.txt", FIX / "run_a.txt", "--ties", "expectd")
    )
    _one_line_error(run_cli("audit", FIX / "run_a.txt"), code=2)
    _one_line_error(run_cli("frobnicate"), code=2)


def test_ties_take_several_values_like_measures():
    args = [FIX / "qrels.txt", FIX / "run_a.txt", "-m", "nDCG@10", "Bpref", "--format", "json"]
    spaced = run_cli("audit", *args, "--ties", "trec_eval", "expected", "pessimistic")
    commas = run_cli("audit", *args, "--ties", "trec_eval,expected,pessimistic")
    mixed = run_cli("audit", *args, "--ties", "trec_eval,expected", "pessimistic")
    assert spaced.returncode == commas.returncode == mixed.returncode == 0, spaced.stderr
    strip = [json.loads(c.stdout) for c in (spaced, commas, mixed)]
    for doc in strip:
        doc.pop("inputs")
    assert strip[0] == strip[1] == strip[2]
    assert {r["ties"] for r in strip[0]["aggregate"]} == {"trec_eval", "expected", "pessimistic"}
    assert all(r["exact"] for r in strip[0]["envelope"])


def test_help_lists_every_measure_with_its_parameters():
    from rankaudit.measures.registry import FAMILIES

    text = run_cli("audit", "--help").stdout
    for name, fam in FAMILIES.items():
        assert name in text
        for p in fam.params:
            assert f"{p.name}=" in text
