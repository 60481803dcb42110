"""The three sessions' exercise sheets (``book/sheet_session*.md``) run as written.

Each sheet exercise names what to run (a
``python src/rankbook/course/student.py rerun NN_name -p key value --out ...`` line,
or a Python block; :func:`rankbook.course.sheets.parse_sheet` reads them)
and, on its ``**Read:**`` line, the results keys (or printed fields) to read; a
key may be followed by the fields to read inside it, in parentheses: ``table1`` (``lift_pct``).
The slow test runs every exercise (one test per exercise, or per chain of exercises when one
reads another's output: :func:`exercise_chains`), the chapters at their smoke sizes with the
exercise's own parameters on top and ``~/rerun`` moved to a temporary folder, and finds every
key it names in the results JSON of the exercise's last run and each field inside its value (a
record of a table, an entry of a mapping), or in the printed output of its Python block. The
fast tests check each exercise's structure: a label, a runnable item, at least one key, and a
folded solution.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys

import pytest

from rankbook.course.sheets import parse_sheet
from tests.conftest import ROOT

SHEETS = sorted((ROOT / "book").glob("sheet_session*.md"))


@pytest.mark.parametrize("sheet", SHEETS, ids=lambda p: p.stem)
def test_every_sheet_exercise_is_complete(sheet):
    items = parse_sheet(sheet.read_text(encoding="utf-8"))
    assert len(items) >= 5, f"{sheet.name}: {len(items)} exercises"
    for item in items:
        assert re.fullmatch(r"s[123]-\d+", item.label), f"{sheet.name}: label {item.label!r}"
        assert item.runs or item.python, f"{item.label}: nothing to run"
        assert item.keys, f"{item.label}: no **Read:** keys"
        assert item.solved, f"{item.label}: no solution folded by default (:class: dropdown)"


def test_parse_sheet_reads_an_exercise():
    text = (
        "````{exercise} T\n:label: s1-9\n\n```bash\n"
        "python src/rankbook/course/student.py rerun 01_x -p k 5 -p seed 2"
        " --out ~/rerun/s1-9\n```\n\n"
        "**Read:** `a_key`, `b_key`.\n````\n\n````{solution} s1-9\n:class: dropdown\n\nX\n````\n"
    )
    (item,) = parse_sheet(text)
    assert item.runs == [("01_x", {"k": "5", "seed": "2"}, "~/rerun/s1-9")]
    assert item.keys == ["a_key", "b_key"] and item.solved
    (table,) = parse_sheet(text.replace("`a_key`, `b_key`", "`t1` (`lift`, `ci`) and `n`"))
    assert table.keys == ["t1", "n"] and table.fields == {"t1": ["lift", "ci"], "n": []}
    assert _field_names([{"lift": 1, "ci": 2}]) == {"lift", "ci"}


def exercise_chains(items: list) -> list[list]:
    """The sheet's exercises in runs that must share one home folder, in page order: an
    exercise whose Python reads another's output (``~/rerun/s2-4/...``) joins that exercise's
    run; every other exercise is a run of its own (so pytest workers can share them out)."""
    chains: list[list] = []
    for item in items:
        wanted = set(re.findall(r"rerun/(s\d+-\d+)", "\n".join(item.python)))
        home = next((c for c in chains if wanted & {i.label for i in c}), None)
        if home is None:
            chains.append([item])
        else:
            home.append(item)
    return chains


EXERCISES = [
    pytest.param(sheet, chain, id=f"{sheet.stem}:{'+'.join(item.label for item in chain)}")
    for sheet in SHEETS
    for chain in exercise_chains(parse_sheet(sheet.read_text(encoding="utf-8")))
]


def test_exercise_chains_keep_a_reader_with_what_it_reads():
    """s2-5 reads s2-4's results: the two run in one test, in page order; the rest alone."""
    items = parse_sheet((ROOT / "book" / "sheet_session2.md").read_text(encoding="utf-8"))
    chains = [[item.label for item in chain] for chain in exercise_chains(items)]
    assert ["s2-4", "s2-5"] in chains
    assert sum(len(chain) for chain in chains) == len(items) >= 5


@pytest.mark.slow
@pytest.mark.real_data
@pytest.mark.parametrize(("sheet", "chain"), EXERCISES)
def test_every_sheet_exercise_runs_and_finds_its_keys(sheet, chain, tmp_path, shared_rerun):
    """Each rerun runs once per test run (``shared_rerun``: the grader's test reads session 1's
    first two as well) and is copied to the exercise's folder in a home folder of its own."""
    from rankbook.report.pipeline import parse_cli_value

    home = tmp_path / "home"
    for item in chain:
        found: set[str] = set()
        record: dict = {}
        for nb, params, out in item.runs:
            folder = home / out.removeprefix("~/")
            typed = {key: parse_cli_value(value) for key, value in params.items()}
            shutil.copytree(shared_rerun(nb, typed), folder)
            record = json.loads((folder / f"{nb}.json").read_text())
            found = set(record)
        for code in item.python:
            env = {**os.environ, "HOME": str(home)}
            proc = subprocess.run(
                [sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=600
            )
            assert proc.returncode == 0, f"{item.label}: {proc.stderr[-2000:]}"
            found = {key for key in item.keys if key in proc.stdout}
        missing = [key for key in item.keys if key not in found]
        assert not missing, f"{sheet.stem} {item.label}: keys not found: {missing}"
        for key, inner in item.fields.items():
            names = _field_names(record.get(key)) if record else set()
            absent = [name for name in inner if name not in names]
            assert not absent, f"{sheet.stem} {item.label}: {key} has no field {absent}"


def _field_names(value) -> set[str]:
    """The names one level inside a results value: a table's columns (its records' keys), a
    mapping's keys, and the keys of a mapping's mappings (``encoders.trans.best_epoch``)."""
    if isinstance(value, list):
        return {name for row in value if isinstance(row, dict) for name in row}
    if isinstance(value, dict):
        inner = {n for v in value.values() if isinstance(v, dict) for n in v}
        return set(value) | inner
    return set()
