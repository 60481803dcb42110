"""The cross-run drift table: every number compared, timings and software skipped."""

import json

import pytest

from rankbook.report.results_diff import chapter_drift, drift_table, main, numeric_leaves


def _write(folder, name, record):
    folder.mkdir(parents=True, exist_ok=True)
    (folder / f"{name}.json").write_text(json.dumps(record), encoding="utf-8")


def test_leaves_skip_timings_software_and_params():
    record = {
        "software": {"python": 3},
        "params": {"seed": 1},
        "table": [{"value": 0.5, "wall_seconds": 9.0, "flag": True}],
        "timing": {"runs": [1.0]},
        "fit_seconds": 3.0,
    }
    assert dict(numeric_leaves(record)) == {"table/0/value": 0.5, "table/0/flag": 1.0}


def test_moved_numbers_counted_with_their_largest_relative_move(tmp_path):
    _write(tmp_path / "a", "07_x", {"v": [1.0, 2.0, 0.0], "s": "text", "only_a": 1})
    _write(tmp_path / "b", "07_x", {"v": [1.0, 2.2, 0.0], "s": "text"})
    drift = chapter_drift("07_x", tmp_path / "a" / "07_x.json", tmp_path / "b" / "07_x.json")
    assert (drift.numbers, drift.moved, drift.only_in_one) == (3, 1, 1)
    assert drift.max_abs_diff == pytest.approx(0.2)
    assert drift.max_rel_diff == pytest.approx(0.2 / 2.2)
    assert drift.worst_path == "v/1"


def test_identical_runs_move_nothing(tmp_path):
    record = {"v": [0.1, 0.2], "n": 3}
    _write(tmp_path / "a", "01_y", record)
    _write(tmp_path / "b", "01_y", record)
    (row,) = drift_table(tmp_path / "a", tmp_path / "b")
    assert (row.moved, row.max_abs_diff, row.worst_path) == (0, 0.0, "")


def test_cli_prints_a_row_per_chapter_and_refuses_empty_folders(tmp_path, capsys):
    _write(tmp_path / "a", "01_y", {"v": 1.0})
    _write(tmp_path / "b", "01_y", {"v": 1.5})
    assert main([str(tmp_path / "a"), str(tmp_path / "b")]) == 0
    assert "| 01_y | 1 | 1 |" in capsys.readouterr().out
    (tmp_path / "c").mkdir()
    assert main([str(tmp_path / "a"), str(tmp_path / "c")]) == 2
    assert "no results file" in capsys.readouterr().err
