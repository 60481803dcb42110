"""The grader (:mod:`rankbook.course.grader`) passes a correct rerun and fails a wrong one.

The reruns are real: session 1's first two exercises run through the student route's pipeline
(:func:`rankbook.report.pipeline.run_chapter_into`) at the chapters' smoke sizes with the sheet's
parameters on top. The chapters compute their values by evaluating hand-built rows; the grader
computes what it expects from the closed form (``single_relevant_moments``), so the two agree
only if both are right.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path, PureWindowsPath

import pytest

from rankbook.course.__main__ import main
from rankbook.course.grader import format_report, grade_sheet, out_folder
from tests.conftest import ROOT

SHEET1 = ROOT / "book" / "sheet_session1.md"


def test_out_folder_maps_the_sheets_home_folder():
    assert out_folder(Path("/s"), "~/rerun/s1-2") == Path("/s/s1-2")
    assert out_folder(Path("/s"), str(PureWindowsPath("~/rerun/s1-2"))) == Path("/s/s1-2")


def test_grading_a_missing_folder_is_a_clear_error(tmp_path, capsys):
    with pytest.raises(ValueError, match="is not a folder"):
        grade_sheet(SHEET1, tmp_path / "nowhere")
    assert main(["grade", "9", str(tmp_path)]) == 2
    assert "no sheet" in capsys.readouterr().err


@pytest.mark.slow
def test_grader_passes_a_correct_rerun_and_fails_a_wrong_one(tmp_path, capsys, shared_rerun):
    right, wrong = tmp_path / "right", tmp_path / "wrong"
    # the sheets' test runs the same two reruns: run once, copied here (the shared_rerun fixture)
    shutil.copytree(shared_rerun("01_stable_sort_bias", {"n_negatives": 99}), right / "s1-1")
    shutil.copytree(shared_rerun("02_random_tie_expectation", {"k": 5}), right / "s1-2")
    # The wrong student ran S1.1 with 49 negatives, and edited S1.2's HR@5.
    shutil.copytree(shared_rerun("01_stable_sort_bias", {"n_negatives": 49}), wrong / "s1-1")
    shutil.copytree(right / "s1-2", wrong / "s1-2")  # the same run, then edited by hand
    edited = wrong / "s1-2" / "02_random_tie_expectation.json"
    record = json.loads(edited.read_text())
    record["all_tied_expected_hr5"] = 0.2
    edited.write_text(json.dumps(record))

    def verdicts(folder):
        checks = [c for c in grade_sheet(SHEET1, folder) if c.label in ("s1-1", "s1-2")]
        return {(c.label, c.what): c for c in checks}

    good = verdicts(right)
    assert len(good) >= 6 and all(c.ok for c in good.values()), format_report(list(good.values()))
    bad = verdicts(wrong)
    assert not bad[("s1-1", "parameter n_negatives")].ok
    assert bad[("s1-1", "parameter n_negatives")].expected == "99"
    closed_form = [c for (label, what), c in bad.items() if label == "s1-1" and "t = 100" in what]
    assert closed_form and not closed_form[0].ok  # 1/50 of the sum, not the sheet's 1/100
    hr5 = [c for (label, what), c in bad.items() if "all_tied_expected_hr5" in what]
    assert not hr5[0].ok and hr5[0].found == "0.2" and hr5[0].expected.startswith("0.1612")
    assert bad[("s1-2", "parameter k")].ok  # the right parameter, a wrong number

    assert main(["grade", str(SHEET1), str(right)]) == 1  # later exercises were not run
    out = capsys.readouterr().out
    assert "s1-3   WRONG      results file" in out and "s1-6   NOT GRADED" in out
