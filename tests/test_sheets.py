"""The two sessions' exercise sheets (``book/sheet_session1.md``, ``book/sheet_session2.md``)
run as written.

Each sheet exercise names what to run (a ``make chapter NB=... ARGS="..." OUT=...`` line, or a
Python block) and, on its ``**Read:**`` line, the results keys (or printed fields) to read; a
key may be followed by the fields to read inside it, in parentheses: ``table1`` (``lift_pct``).
The slow test runs every exercise in page order, the chapters at their smoke sizes with the
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
import shlex
import subprocess
import sys
from dataclasses import dataclass, field

import pytest

from tests.conftest import ROOT

SHEETS = [ROOT / "book" / "sheet_session1.md", ROOT / "book" / "sheet_session2.md"]

_BLOCK = re.compile(
    r"^(?P<fence>`{3,})\{(?P<kind>exercise|solution)\}(?P<arg>[^\n]*)\n(?P<body>.*?)^(?P=fence)\s*$",
    flags=re.S | re.M,
)
_MAKE = re.compile(r'make chapter NB=(\S+)(?: ARGS="([^"]*)")? OUT=(\S+)')
_READ = re.compile(r"`([A-Za-z_][A-Za-z0-9_]*)`(?:\s*\(([^()]*)\))?")
_CODE = re.compile(r"^```(bash|python)\n(.*?)^```\s*$", flags=re.S | re.M)


@dataclass
class SheetItem:
    """One exercise of a sheet: its label, runs, Python blocks and the keys it names."""

    label: str
    runs: list[tuple[str, dict[str, str], str]] = field(default_factory=list)
    python: list[str] = field(default_factory=list)
    keys: list[str] = field(default_factory=list)
    fields: dict[str, list[str]] = field(default_factory=dict)
    solved: bool = False


def parse_sheet(text: str) -> list[SheetItem]:
    """The exercises of a sheet page, in page order."""
    items: dict[str, SheetItem] = {}
    for block in _BLOCK.finditer(text):
        body = block.group("body")
        if block.group("kind") == "solution":
            label = block.group("arg").strip()
            if label in items:
                items[label].solved = ":class: dropdown" in body
            continue
        label = re.search(r"^:label:\s*(\S+)", body, flags=re.M)
        item = SheetItem(label.group(1) if label else "")
        for lang, code in _CODE.findall(body):
            if lang == "python":
                item.python.append(code)
            for nb, args, out in _MAKE.findall(code):
                pairs = shlex.split(args)
                if len(pairs) % 3 or any(p != "-p" for p in pairs[::3]):
                    raise ValueError(f"{item.label}: ARGS must be '-p key value' pairs: {args!r}")
                params = {pairs[i + 1]: pairs[i + 2] for i in range(0, len(pairs), 3)}
                item.runs.append((nb, params, out))
        read = re.search(r"\*\*Read:\*\*(.*?)(?:\n\n|\Z)", body, flags=re.S)
        if read:
            for key, inside in _READ.findall(read.group(1)):
                item.keys.append(key)
                item.fields[key] = re.findall(r"`([A-Za-z_][A-Za-z0-9_]*)`", inside)
        items[item.label] = item
    return list(items.values())


@pytest.mark.parametrize("sheet", SHEETS, ids=lambda p: p.stem)
def test_every_sheet_exercise_is_complete(sheet):
    items = parse_sheet(sheet.read_text(encoding="utf-8"))
    assert len(items) >= 5, f"{sheet.name}: {len(items)} exercises"
    for item in items:
        assert re.fullmatch(r"s[12]-\d+", item.label), f"{sheet.name}: label {item.label!r}"
        assert item.runs or item.python, f"{item.label}: nothing to run"
        assert item.keys, f"{item.label}: no **Read:** keys"
        assert item.solved, f"{item.label}: no solution folded by default (:class: dropdown)"


def test_parse_sheet_reads_an_exercise():
    text = (
        "````{exercise} T\n:label: s1-9\n\n```bash\n"
        'make chapter NB=01_x ARGS="-p k 5 -p seed 2" OUT=~/rerun/s1-9\n```\n\n'
        "**Read:** `a_key`, `b_key`.\n````\n\n````{solution} s1-9\n:class: dropdown\n\nX\n````\n"
    )
    (item,) = parse_sheet(text)
    assert item.runs == [("01_x", {"k": "5", "seed": "2"}, "~/rerun/s1-9")]
    assert item.keys == ["a_key", "b_key"] and item.solved
    (table,) = parse_sheet(text.replace("`a_key`, `b_key`", "`t1` (`lift`, `ci`) and `n`"))
    assert table.keys == ["t1", "n"] and table.fields == {"t1": ["lift", "ci"], "n": []}
    assert _field_names([{"lift": 1, "ci": 2}]) == {"lift", "ci"}


@pytest.mark.slow
@pytest.mark.real_data
@pytest.mark.parametrize("sheet", SHEETS, ids=lambda p: p.stem)
def test_every_sheet_exercise_runs_and_finds_its_keys(sheet, tmp_path):
    from rankbook.report.pipeline import Paths, parse_cli_value, run_chapter_into

    home = tmp_path / "home"
    base = Paths(ROOT, ROOT / "notebooks", tmp_path / "book", tmp_path / "ex", tmp_path / "res")
    for item in parse_sheet(sheet.read_text(encoding="utf-8")):
        found: set[str] = set()
        record: dict = {}
        for nb, params, out in item.runs:
            folder = home / out.removeprefix("~/")
            typed = {key: parse_cli_value(value) for key, value in params.items()}
            run_chapter_into(nb, folder, typed, paths=base, smoke=True, log=lambda *_: None)
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
