"""The pre-sort item of the run checklist: exact comparison, tolerance disclosed, and the
rating and its words from one decision."""

import json

from rankaudit.checklists.presort import present_effect
from rankaudit.cli import main


def test_equal_values_do_not_change_the_result():
    status, text = present_effect("AP", 0.4322, 0.4322, 1e-3)
    assert status == "ok" and "does not change" in text


def test_a_difference_below_the_tolerance_is_a_change_and_says_the_tolerance():
    status, text = present_effect("AP", 0.4322, 0.4315, 1e-3)
    assert "changes the result by 0.0007" in text
    assert "within this checklist's warning tolerance of 0.001" in text
    assert "does not change" not in text
    assert status == "ok"


def test_a_difference_at_the_tolerance_is_within_and_just_above_is_beyond():
    assert present_effect("AP", 0.25, 0.125, 0.125)[0] == "ok"
    status, text = present_effect("AP", 0.25, 0.125, 0.124)
    assert "beyond this checklist's warning tolerance" in text
    assert status == "warn"


def test_the_run_and_rows_checklists_measure_the_present_effect_against_the_expectation(
    tmp_path, capsys
):
    """One reference wherever the item is filled: the expectation under random tie orders,
    not trec_eval's docno order (which is one more arbitrary order)."""
    run = tmp_path / "t.run"
    run.write_text("q1 Q0 d1 1 1.0 r\nq1 Q0 d2 2 1.0 r\nq2 Q0 d3 1 1.0 r\n")
    qrels = tmp_path / "t.qrels"
    qrels.write_text("q1 0 d1 1\nq2 0 d3 1\n")
    assert main(["checklist", str(qrels), str(run), "-m", "AP", "--format", "json"]) == 0
    facts = json.loads(capsys.readouterr().out)["checklist"]["presort_order"]["facts"]
    # file order: AP 1 and 1; expectation: q1 0.75 (relevant first or second), q2 1
    assert facts["input_order"] == 1.0 and facts["expected"] == 0.875
    assert facts["difference"] == 0.125 and "trec_eval" not in facts


def test_the_candidate_item_gives_the_depth_range_only_when_depths_differ(tmp_path, capsys):
    qrels = tmp_path / "t.qrels"
    qrels.write_text("q1 0 d1 1\nq2 0 d3 1\n")
    for lines, expected in (
        ("q1 Q0 d1 1 1.0 r\nq1 Q0 d2 2 0.5 r\nq2 Q0 d3 1 1.0 r\nq2 Q0 d4 2 0.5 r\n",
         "2 documents per query (every query)"),
        ("q1 Q0 d1 1 1.0 r\nq1 Q0 d2 2 0.5 r\nq1 Q0 d5 3 0.2 r\nq2 Q0 d3 1 1.0 r\n",
         "2 documents per query (median; from 1 to 3)"),
    ):
        run = tmp_path / "t.run"
        run.write_text(lines)
        assert main(["checklist", str(qrels), str(run), "-m", "AP", "--format", "json"]) == 0
        answer = json.loads(capsys.readouterr().out)["checklist"]["candidate_set"]["answer"]
        assert expected in answer and ".." not in answer


def test_checklist_never_prints_ok_beside_beyond(tmp_path, capsys):
    """Two tied documents, the relevant one first in the file and last in trec_eval's docno
    order: AP moves from 1 to 0.75 with the order of the lines, so the pre-sort item asks for
    attention, in the markdown and in the JSON."""
    run = tmp_path / "t.run"
    run.write_text("q1 Q0 d1 1 1.0 r\nq1 Q0 d2 2 1.0 r\nq2 Q0 d3 1 1.0 r\n")
    qrels = tmp_path / "t.qrels"
    qrels.write_text("q1 0 d1 1\nq2 0 d3 1\n")
    assert main(["checklist", str(qrels), str(run), "-m", "AP"]) == 0
    line = next(x for x in capsys.readouterr().out.splitlines() if "Pre-sort" in x)
    assert "beyond this checklist's warning tolerance" in line
    assert "(ATTENTION)" in line and "(OK)" not in line
    assert main(["checklist", str(qrels), str(run), "-m", "AP", "--format", "json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    item = doc["checklist"]["presort_order"]
    assert item["status"] == "warn" and "beyond" in item["answer"]
