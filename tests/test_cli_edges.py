"""The edges where real files live: whitespace, byte-order marks, pipes, huge values, outputs
onto inputs.  Each case gives trec_eval's numbers or one line naming the file (and line) with
exit status 2, never a traceback and never a changed input.

The one-query case throughout: trec_eval gives nDCG@10 0.6199 and AP 0.5833.
"""

from __future__ import annotations

import gzip
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from rankaudit.cli import main

ROOT = Path(__file__).resolve().parents[1]
RUN = "1 Q0 d1 1 0.5 t\n1 Q0 d2 2 0.5 t\n1 Q0 d3 3 0.3 t\n"
QRELS = "1 0 d1 1\n1 0 d3 2\n"
NDCG, AP = 0.6199, 0.5833


def _write(path: Path, text: str | bytes) -> Path:
    path.write_bytes(text.encode() if isinstance(text, str) else text)
    return path


def _values(capsys, run: str, qrels: str) -> dict[str, float]:
    """trec_eval-rule values of nDCG@10 and AP from ``rankaudit audit QRELS RUN --format json``."""
    code = main(
        ["audit", qrels, run, "-m", "nDCG@10", "AP", "--ties", "trec_eval", "--format", "json"]
    )
    captured = capsys.readouterr()
    assert code == 0, captured.err
    doc = json.loads(captured.out)
    return {row["measure"]: row["value"] for row in doc["aggregate"]}


def _error(capsys, *argv: str) -> str:
    code = main(list(argv))
    err = capsys.readouterr().err.strip().splitlines()
    assert code == 2 and len(err) == 1 and "Traceback" not in err[0], err
    return err[0]


@pytest.fixture
def files(tmp_path):
    return _write(tmp_path / "r.run", RUN), _write(tmp_path / "q.qrels", QRELS)


def _assert_reference(values: dict[str, float]) -> None:
    assert values["nDCG@10"] == pytest.approx(NDCG, abs=5e-5)
    assert values["AP"] == pytest.approx(AP, abs=5e-5)


def test_the_reference_case(capsys, files):
    _assert_reference(_values(capsys, *map(str, files)))


# ------------------------------------------------------------------ 1. whitespace
def test_missing_docno_is_an_error_not_an_empty_document(capsys, files, tmp_path):
    run, _ = files
    qrels = _write(tmp_path / "q.qrels", "1 0 d1 1\n1 0  1\n1 0 d3 2\n")
    line = _error(capsys, "audit", str(qrels), str(run))
    assert "q.qrels:2:" in line and "expected 4 fields" in line


def test_tab_file_with_trailing_blank_inside_a_field_gap(capsys, files, tmp_path):
    _, qrels = files
    run = _write(tmp_path / "r.run", RUN.replace(" ", "\t").replace("d3\t", "d3 \t"))
    _assert_reference(_values(capsys, str(run), str(qrels)))


def test_tab_then_space_in_the_query_field(capsys, files, tmp_path):
    _, qrels = files
    run = _write(tmp_path / "r.run", "1\t Q0 d1 1 0.5 t\n1 Q0 d2 2 0.5 t\n1  Q0\td3 3 0.3 t\n")
    _assert_reference(_values(capsys, str(run), str(qrels)))


def test_a_double_space_on_line_one_does_not_change_the_reading(capsys, files, tmp_path):
    _, qrels = files
    run = _write(tmp_path / "r.run", RUN.replace("1 Q0 d1", "1  Q0 d1", 1))
    _assert_reference(_values(capsys, str(run), str(qrels)))
    bad = _write(tmp_path / "q2.qrels", "1  0 d1 1\n1 0  1\n")
    assert "q2.qrels:2:" in _error(capsys, "audit", str(bad), str(run))


# ------------------------------------------------------------------ 2. byte-order mark
@pytest.mark.parametrize("tail", ["", "\r\n", "\r\n\r\n"])
def test_bom_and_crlf_with_or_without_trailing_blank_lines(capsys, files, tmp_path, tail):
    run, _ = files
    text = "\ufeff" + QRELS.replace("\n", "\r\n") + tail
    qrels = _write(tmp_path / "bom.qrels", text.encode("utf-8"))
    _assert_reference(_values(capsys, str(run), str(qrels)))
    bom_run = _write(tmp_path / "bom.run", ("\ufeff" + RUN.replace("\n", "\r\n") + tail).encode())
    _assert_reference(_values(capsys, str(bom_run), str(qrels)))


# ------------------------------------------------------------------ 3., 4. checklist
def test_checklist_with_no_query_in_common_is_refused(capsys, files, tmp_path):
    run, _ = files
    qrels = _write(tmp_path / "q.qrels", "001 0 d1 1\n")
    for fmt in ("markdown", "json"):
        line = _error(capsys, "checklist", str(qrels), str(run), "--format", fmt)
        assert "no query is in both" in line


@pytest.mark.parametrize("n", ["0", "-3"])
def test_checklist_permutations_must_be_positive(capsys, files, n):
    line = _error(capsys, "checklist", *map(str, files[::-1]), "--n-permutations", n)
    assert "--n-permutations must be an integer >= 1" in line


# ------------------------------------------------------------------ 5. -o onto an input
@pytest.mark.parametrize("command", ["audit", "checklist", "compare"])
def test_output_onto_an_input_is_refused_and_the_input_kept(capsys, files, command):
    run, qrels = files
    argv = [command, str(qrels), str(run)]
    if command == "compare":
        argv = [command, str(qrels), str(run), str(run)]
    line = _error(capsys, *argv, "-o", str(run))
    assert "refusing to overwrite an input" in line
    assert run.read_text() == RUN


def test_output_through_another_spelling_of_the_input_is_refused(capsys, files, monkeypatch):
    run, qrels = files
    monkeypatch.chdir(run.parent)
    line = _error(capsys, "audit", str(qrels), "./r.run", "-o", f"../{run.parent.name}/r.run")
    assert "refusing" in line and run.read_text() == RUN


def test_no_partial_output_on_error(capsys, files, tmp_path):
    run, _ = files
    bad = _write(tmp_path / "bad.qrels", "1 0 d1 x\n")
    out = tmp_path / "report.json"
    _error(capsys, "audit", str(bad), str(run), "-o", str(out), "--format", "json")
    assert not out.exists() and not list(tmp_path.glob(".report.json*"))


# ------------------------------------------------------------------ 6. compare
def test_compare_reports_queries_only_one_run_answered(capsys, tmp_path):
    a = _write(tmp_path / "a.run", "".join(f"{q} Q0 d1 1 0.5 t\n" for q in (1, 2, 3)))
    b = _write(tmp_path / "b.run", "1 Q0 d1 1 0.5 t\n")
    qrels = _write(tmp_path / "q.qrels", "".join(f"{q} 0 d1 1\n" for q in (1, 2, 3)))
    assert main(["compare", str(qrels), str(a), str(b), "--format", "json"]) == 0
    (doc,) = json.loads(capsys.readouterr().out)["comparisons"]
    assert doc["n_queries"] == 1
    assert doc["queries_only_in_a"] == ["2", "3"] and doc["queries_only_in_b"] == []
    assert doc["n_queries_only_in_a"] == 2 and doc["unanswered_scored_as_zero"] is False
    assert main(["compare", str(qrels), str(a), str(b), "-c", "--format", "json"]) == 0
    (doc,) = json.loads(capsys.readouterr().out)["comparisons"]
    assert doc["n_queries"] == 3 and doc["mean_difference"] == pytest.approx(-2 / 3)
    assert doc["unanswered_scored_as_zero"] is True
    assert main(["compare", str(qrels), str(a), str(b)]) == 0
    assert "2 only in A, 0 only in B" in capsys.readouterr().out


# ------------------------------------------------------------------ 7. empty CSV fields
@pytest.mark.parametrize(
    ("name", "text", "where"),
    [
        (
            "q.csv",
            "query,docno,relevance\n1,d1,1\n1,,1\n",
            "q.csv:3: missing value in column 'docno'",
        ),
        (
            "r.csv",
            "query,docno,score\n1,d1,0.5\n,d2,0.5\n",
            "r.csv:3: missing value in column 'query'",
        ),
    ],
)
def test_empty_csv_ids_are_missing_values(capsys, files, tmp_path, name, text, where):
    run, qrels = files
    path = _write(tmp_path / name, text)
    argv = [str(path), str(run)] if name.startswith("q") else [str(qrels), str(path)]
    assert where in _error(capsys, "audit", *argv)


def test_csv_line_numbers_count_blank_lines_and_duplicates_are_refused(capsys, files, tmp_path):
    run, _ = files
    q = _write(tmp_path / "q.csv", "query,docno,relevance\n\n1,d1,1\n\n1,d3,x\n")
    assert "q.csv:5: relevance 'x' is not a number" in _error(capsys, "audit", str(q), str(run))
    q = _write(tmp_path / "d.csv", "query,docno,relevance,docno\n1,d1,1,d2\n")
    assert "appears twice" in _error(capsys, "audit", str(q), str(run))


# ------------------------------------------------------------------ 8. huge labels
@pytest.mark.parametrize(
    "label", ["4611686018427387904", "9223372036854775808", "-9007199254740992"]
)
def test_huge_trec_labels_are_refused(capsys, files, tmp_path, label):
    run, _ = files
    q = _write(tmp_path / "q.qrels", f"1 0 d1 {label}\n1 0 d3 2\n")
    assert "q.qrels:1: relevance" in _error(capsys, "audit", str(q), str(run))


def test_huge_csv_and_parquet_labels_are_refused(capsys, files, tmp_path):
    run, _ = files
    q = _write(tmp_path / "q.csv", "query,docno,relevance\n1,d1,1e20\n")
    assert "q.csv:2: relevance" in _error(capsys, "audit", str(q), str(run))
    table = pa.table(
        {"query": ["1"], "docno": ["d1"], "relevance": pa.array([2**64 - 1], pa.uint64())}
    )
    pq.write_table(table, tmp_path / "q.parquet")
    line = _error(capsys, "audit", str(tmp_path / "q.parquet"), str(run))
    assert "q.parquet: row 0: relevance" in line and "out of range" in line


def test_largest_label_in_range_keeps_the_bounds_in_order(capsys, files, tmp_path):
    run, _ = files
    big = 2**53 - 1
    q = _write(tmp_path / "q.qrels", f"1 0 d2 {big}\n")
    code = main(["audit", str(q), str(run), "-m", "nDCG@1", "--format", "json"])
    doc = json.loads(capsys.readouterr().out)
    assert code == 0
    env = doc["envelope"][0]
    assert env["pessimistic"] == 0.0 and env["optimistic"] == 1.0


# ------------------------------------------------------------------ 9. tracebacks
@pytest.mark.parametrize(
    ("argv", "needle"),
    [
        (["-m", "nDCG@99999999999999999999"], "cutoff of nDCG must be an integer in [1, "),
        (["-l", "99999999999999999999999"], "relevance_level (trec_eval -l) must be an integer"),
    ],
)
def test_out_of_range_arguments(capsys, files, argv, needle):
    assert needle in _error(capsys, "audit", *map(str, files[::-1]), *argv)


def test_list_typed_parquet_column(capsys, files, tmp_path):
    run, _ = files
    pq.write_table(
        pa.table({"query": ["1"], "docno": [["d1"]], "relevance": [1]}), tmp_path / "l.pq"
    )
    line = _error(capsys, "audit", str(tmp_path / "l.pq"), str(run))
    assert "column 'docno' has type list" in line


def test_pipeline_out_onto_a_file(tmp_path, capsys):
    from rankbook.report.pipeline import main as pipeline

    target = _write(tmp_path / "afile", "keep")
    assert pipeline(["run", "00_quickstart", "--out", str(target)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "is a file, not a folder" in err[0]
    assert target.read_text() == "keep"


@pytest.mark.skipif(shutil.which("make") is None, reason="no make on this machine")
@pytest.mark.parametrize("goal", [["NB=00_quickstart", "OUT={target}"], []])
def test_make_chapter_error_is_the_one_line_without_makes_own(tmp_path, goal):
    """``make chapter ... OUT=<file>`` (and without NB): the one line, then nothing of make's
    ("*** [chapter] Error 2"), and a non-zero status.  ``-o data`` keeps make from setting up
    the environment; the pipeline runs from this checkout."""
    target = _write(tmp_path / "afile", "keep")
    proc = subprocess.run(
        [
            "make",
            "--no-print-directory",
            "-o",
            "data",
            "chapter",
            f"PY={sys.executable}",
            *(g.format(target=target) for g in goal),
        ],
        capture_output=True,
        text=True,
        cwd=ROOT,
        env=dict(os.environ, PYTHONPATH=str(ROOT / "src")),
        timeout=300,
    )
    assert proc.returncode != 0
    said = [line for line in (proc.stdout + proc.stderr).splitlines() if line.strip()]
    assert len(said) == 1, said
    assert ("is a file, not a folder" if goal else "usage: make chapter") in said[0]
    assert target.read_text() == "keep"


# ------------------------------------------------------------------ 10. pipes
def _shell(command: str, cwd: Path) -> subprocess.CompletedProcess:
    env = dict(os.environ, PYTHONPATH=str(ROOT / "src"))
    return subprocess.run(
        ["bash", "-c", command], capture_output=True, text=True, env=env, cwd=cwd, timeout=300
    )


def test_process_substitution_and_stdin_are_read_once(files, tmp_path):
    mixed = _write(tmp_path / "m.run", RUN.replace("1 Q0 d1", "1\t Q0 d1", 1))  # tab + space
    _write(tmp_path / "r.run.gz", gzip.compress(mixed.read_bytes()))
    audit = f"{sys.executable} -m rankaudit audit"
    tail = "-m nDCG@10 AP --ties trec_eval --format json"
    for command in (
        f"{audit} q.qrels <(zcat r.run.gz) {tail}",
        f"cat m.run | {audit} q.qrels /dev/stdin {tail}",
        f"cat m.run | {audit} q.qrels - {tail}",
    ):
        proc = _shell(command, tmp_path)
        assert proc.returncode == 0, (command, proc.stderr)
        doc = json.loads(proc.stdout)
        _assert_reference({row["measure"]: row["value"] for row in doc["aggregate"]})
        assert len(doc["inputs"][1]["sha256"]) == 64


def test_inputs_read_through_pipes_are_named_by_role_and_argument_not_by_number(files, tmp_path):
    """One naming rule in every report: a regular file by its name, a pipe or standard input
    by its role and the argument as given ("run (/dev/fd/63)"), never by the pipe's "63"."""
    rankaudit = f"{sys.executable} -m rankaudit"
    cases = {
        f"{rankaudit} audit q.qrels <(cat r.run) --format json": ["q.qrels", "run (/dev/fd/"],
        f"cat r.run | {rankaudit} audit q.qrels - --format json": ["q.qrels", "run (<stdin>)"],
        f"{rankaudit} compare <(cat q.qrels) r.run <(cat r.run) --n-perm 9 --n-boot 9 "
        "--format json": ["qrels (/dev/fd/", "r.run", "run b (/dev/fd/"],
        f"{rankaudit} checklist q.qrels <(cat r.run) --format json": ["q.qrels", "run (/dev/fd/"],
    }
    for command, expected in cases.items():
        proc = _shell(command, tmp_path)
        assert proc.returncode == 0, (command, proc.stderr)
        doc = json.loads(proc.stdout)
        names = [r["name"] for r in doc["inputs"]]
        assert all(n.startswith(e) for n, e in zip(names, expected, strict=True)), names
        if "checklist" in command:
            assert doc["checklist"]["label"].startswith("run (/dev/fd/")


# ------------------------------------------------------------------ 12. lossy casts
def test_scores_beyond_2_53_and_timestamps_are_never_rounded_into_ties():
    import rankaudit
    from rankaudit.runs import Run

    big = np.array([[2**53 + 1, 2**53]], dtype=np.int64)
    labels = np.array([[0, 1]])
    pess = rankaudit.evaluate(big, labels, ties="pessimistic")["RR"].iloc[0]
    assert pess == 0.5  # no tie: the relevant item is second
    filled = rankaudit.checklist(big, labels, k=1)
    assert filled.to_dict()["tie_prevalence"]["facts"]["any_tie"] == 0  # was 1.0 when cast
    stamps = np.array([["2020-01-01T00:00:00.000000100", "2020-01-01"]], dtype="datetime64[ns]")
    assert rankaudit.evaluate(stamps, labels, ties="pessimistic")["RR"].iloc[0] == 0.5
    with pytest.raises(ValueError, match="cannot be held exactly as a double"):
        Run.from_arrays(["1", "1"], ["a", "b"], big[0])
    with pytest.raises(ValueError, match="datetime64"):
        Run.from_arrays(["1", "1"], ["a", "b"], stamps[0])


# ------------------------------------------------------------------ 13. smaller
def test_gzip_by_content_not_by_name(capsys, files, tmp_path):
    _, qrels = files
    upper = _write(tmp_path / "r.run.GZ", gzip.compress(RUN.encode()))
    _assert_reference(_values(capsys, str(upper), str(qrels)))
    plain = _write(tmp_path / "plain.gz", RUN)
    _assert_reference(_values(capsys, str(plain), str(qrels)))
    broken = _write(tmp_path / "broken.gz", gzip.compress(RUN.encode())[:20])
    assert "cannot be decompressed" in _error(capsys, "audit", str(qrels), str(broken))


def test_underscores_are_not_digits(capsys, files, tmp_path):
    run, _ = files
    q = _write(tmp_path / "q.qrels", "1 0 d1 1_0\n")
    assert "q.qrels:1: relevance '1_0' is not an integer" in _error(
        capsys, "audit", str(q), str(run)
    )
    r = _write(tmp_path / "u.run", "1 Q0 d1 1 0_5 t\n")
    good = _write(tmp_path / "good.qrels", "1 0 d1 1\n")
    assert "u.run:1: score '0_5' is not a number" in _error(capsys, "audit", str(good), str(r))


def test_usage_errors_exit_2(capsys, files):
    assert "is not a tie rule" in _error(capsys, "audit", *map(str, files[::-1]), "--ties", "bogus")
    assert "unknown measure" in _error(capsys, "audit", *map(str, files[::-1]), "-m", "bogus")
