"""Every command's ``--ties`` reads the rule registry (a rule registered from a user's code is
listed and accepted) and takes several rules: checklist discloses each, compare reports each
beside the expected values its tests use."""

from __future__ import annotations

import json

import pytest

from rankaudit.cli import build_parser, main

COMMANDS = ("audit", "compare", "checklist", "leaderboard", "rows")


@pytest.fixture
def files(tmp_path):
    a, b, q = tmp_path / "a.run", tmp_path / "b.run", tmp_path / "t.qrels"
    a.write_text("q1 Q0 d1 1 1.0 r\nq1 Q0 d2 2 1.0 r\nq2 Q0 d3 1 1.0 r\nq2 Q0 d4 2 0.5 r\n")
    b.write_text("q1 Q0 d1 1 2.0 r\nq1 Q0 d2 2 1.0 r\nq2 Q0 d4 1 1.0 r\nq2 Q0 d3 2 1.0 r\n")
    q.write_text("q1 0 d1 1\nq2 0 d3 1\n")
    return str(q), str(a), str(b)


def _help(command: str, capsys) -> str:
    with pytest.raises(SystemExit):
        build_parser().parse_args([command, "--help"])
    return capsys.readouterr().out


@pytest.mark.parametrize("command", COMMANDS)
def test_every_ties_option_lists_a_registered_rule(command, reversed_rule, capsys):
    text = _help(command, capsys)
    assert "--ties RULE [RULE ...]" in text and reversed_rule in text


@pytest.mark.parametrize("command", COMMANDS)
def test_every_ties_option_refuses_an_unknown_rule(command, files, capsys):
    q, a, b = files
    args = {"compare": [q, a, b], "leaderboard": [q, a, b], "rows": ["--synthetic-rows", "50"]}
    argv = [command, *args.get(command, [q, a]), "--ties", "no_such_rule"]
    assert main(argv) == 2
    assert "'no_such_rule' is not a tie rule" in capsys.readouterr().err


def test_audit_and_rows_accept_a_registered_rule(files, reversed_rule, capsys):
    q, a, _ = files
    assert (
        main(["audit", q, a, "-m", "AP", "--ties", reversed_rule, "expected", "--format", "json"])
        == 0
    )
    doc = json.loads(capsys.readouterr().out)
    assert {r["ties"] for r in doc["aggregate"]} >= {reversed_rule, "expected"}
    argv = [
        "rows",
        "--synthetic-rows",
        "60",
        "--k",
        "3",
        "--ties",
        reversed_rule,
        "--format",
        "json",
    ]
    assert main(argv) == 0
    assert reversed_rule in json.loads(capsys.readouterr().out)["rules"]


def test_checklist_discloses_every_rule_given(files, reversed_rule, capsys):
    q, a, _ = files
    argv = ["checklist", q, a, "-m", "AP", "--ties", "expected", reversed_rule, "--format", "json"]
    assert main(argv) == 0
    item = json.loads(capsys.readouterr().out)["checklist"]["tie_breaking"]
    assert item["facts"]["tie_rules"] == ["expected", reversed_rule]
    assert "'expected'" in item["answer"] and "reverse input order" in item["answer"]
    assert item["status"] == "warn"  # one of them depends on the input
    assert main(["checklist", q, a, "-m", "AP", "--ties", "expected", "--format", "json"]) == 0
    one = json.loads(capsys.readouterr().out)["checklist"]["tie_breaking"]
    assert one["status"] == "ok" and one["facts"]["tie_rule"] == "expected"


def test_compare_reports_every_rule_beside_the_tests(files, reversed_rule, capsys):
    q, a, b = files
    base = ["compare", q, a, b, "-m", "AP", "RR", "--n-perm", "50", "--n-boot", "50"]
    assert main([*base, "--format", "json"]) == 0
    alone = json.loads(capsys.readouterr().out)["comparisons"]
    assert main([*base, "--ties", "trec_eval", "expected", reversed_rule, "--format", "json"]) == 0
    several = json.loads(capsys.readouterr().out)["comparisons"]
    for one, many in zip(alone, several, strict=True):
        assert list(one["by_rule"]) == ["expected"]
        assert list(many["by_rule"]) == ["trec_eval", "expected", reversed_rule]
        # the tests and the worst case do not depend on the rules reported besides
        for key in ("p_value_sign_flip", "p_holm", "value_a", "value_b", "lift_pct"):
            assert one[key] == many[key]
        assert many["by_rule"]["expected"]["value_a"] == one["value_a"]
    trec = several[0]["by_rule"]["trec_eval"]
    assert trec["value_a"] == pytest.approx(0.75) and trec["difference"] == pytest.approx(0.0)
    assert main([*base, "--ties", "trec_eval", reversed_rule]) == 0
    out = capsys.readouterr().out
    assert "under trec_eval: A 0.7500" in out and f"under {reversed_rule}:" in out
