"""The command line writes a small number in a sentence as "9.999 x 10^-5", never as Python's
"9.999e-05": ``rankaudit compare``'s p-value at the floor of its sign-flip test and the
``rankaudit leaderboard`` definitions' rounding tolerance both go through
:func:`rankaudit.cli.common.number_text`."""

from __future__ import annotations

import re

import pytest

from rankaudit.cli.common import number_text
from rankaudit.measures.list_evaluate import ROUNDING_TOLERANCE
from tests.cli_process import run_cli

#: Python's exponent format: "9.999e-05", "1e-12", "2.2E+16".
E_NOTATION = re.compile(r"(?<![\w.])\d+(?:\.\d+)?[eE][+-]?\d+\b")


def test_number_text_writes_no_exponent():
    assert number_text(1 / 10001) == "9.999 x 10^-5"
    assert number_text(1e-12) == "10^-12"
    assert number_text(-2.5e-7) == "-2.5 x 10^-7"
    assert [number_text(v) for v in (0.04321, 0.0001, 1.0, 0.0, 123456.0)] == [
        "0.04321",
        "0.0001",
        "1",
        "0",
        "123,456",
    ]
    with pytest.raises(ValueError, match="digits"):
        number_text(0.5, digits=0)


def test_the_pattern_can_fail():
    assert E_NOTATION.findall("p = 9.999e-05, at most 1e-12") == ["9.999e-05", "1e-12"]


def test_compare_prints_the_p_value_floor_without_an_exponent(tmp_path):
    """B puts the relevant document first on each of 30 queries, A last: every one of the
    10,000 sign flips is below the observed mean, so p is its floor, 1/10,001: a bound, "<="."""
    qrels, run_a, run_b = (tmp_path / n for n in ("qrels.txt", "a.run", "b.run"))
    qrels.write_text("".join(f"q{q} 0 d{q}_0 1\n" for q in range(30)))
    run_a.write_text(
        "".join(f"q{q} Q0 d{q}_{d} {d + 1} {d + 1}.0 a\n" for q in range(30) for d in range(3))
    )
    run_b.write_text(
        "".join(f"q{q} Q0 d{q}_{d} {d + 1} {3 - d}.0 b\n" for q in range(30) for d in range(3))
    )
    proc = run_cli("compare", qrels, run_a, run_b, "-m", "RR", "--n-perm", "10000")
    assert proc.returncode == 0, proc.stderr
    assert f"p <= {number_text(1 / 10001)} (10000 flips)" in proc.stdout, proc.stdout
    assert E_NOTATION.findall(proc.stdout) == []


def test_the_leaderboard_definitions_write_the_tolerance_without_an_exponent():
    proc = run_cli("leaderboard", "--help")
    assert proc.returncode == 0, proc.stderr
    assert f"at most {number_text(ROUNDING_TOLERANCE)} of" in proc.stdout
    assert E_NOTATION.findall(proc.stdout) == []


def test_the_compare_help_writes_the_p_value_resolution_without_an_exponent():
    proc = run_cli("compare", "--help")
    assert proc.returncode == 0, proc.stderr
    assert E_NOTATION.findall(proc.stdout) == []


def test_the_leaderboard_table_prints_floored_p_values_as_bounds_never_zero(tmp_path):
    """Run ``best`` puts the relevant document first on each of 30 queries, ``mid`` second and
    ``worst`` third (or fourth, on every third query): each of the 200 sign flips of each pair is
    below the observed mean, so each sign-flip p sits at its floor 1/201 and is printed as a
    bound, and so is each Holm value computed from them; the t-test p of best vs worst, far
    below 0.0001, as "<0.0001", never "0.0000"."""
    (tmp_path / "runs").mkdir()
    qrels = tmp_path / "qrels.txt"
    qrels.write_text("".join(f"q{q} 0 d{q}_0 1\n" for q in range(30)))
    places = {"best": lambda q: 0, "mid": lambda q: 1, "worst": lambda q: 2 + (q % 3 == 0)}
    for name, place in places.items():
        lines = []
        for q in range(30):
            order = [1, 2, 3, 4]
            order.insert(place(q), 0)
            lines += [f"q{q} Q0 d{q}_{d} {r + 1} {10 - r}.0 {name}\n" for r, d in enumerate(order)]
        (tmp_path / "runs" / f"{name}.run").write_text("".join(lines))
    proc = run_cli("leaderboard", qrels, tmp_path / "runs", "-m", "RR", "--n-perm", "200")
    assert proc.returncode == 0, proc.stderr
    table = proc.stdout.split("p_ttest_holm")[1].split("\n\n")[0]
    rows = [line.split() for line in table.strip().splitlines()]
    assert len(rows) == 3, table
    for row in rows:
        p_value, p_ttest, p_holm = row[-4], row[-3], row[-2]
        assert p_value == "<=0.0050" and p_holm.startswith("<="), row
        assert p_ttest != "0.0000", row
    assert any(row[-3] == "<0.0001" for row in rows), table
