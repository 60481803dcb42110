"""Fuzz the command lines (issue 16): bad arguments give one clear line and a non-zero exit,
never a hang or a traceback.  Chapters are not executed here (a misspelt or unknown
parameter is refused before anything runs); the Dask CLI's arguments are checked by its
parser, so no cluster starts."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from rankaudit.cli import build_parser
from rankbook.report.pipeline import Paths, chapter_names, declared_parameters, main

FUZZ = settings(
    max_examples=40,
    deadline=None,
    derandomize=True,
    database=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture],
)
CHAPTERS = chapter_names(Paths.default().notebooks)
NAME = st.from_regex(r"[a-z_][a-z0-9_]{0,12}", fullmatch=True)


@FUZZ
@given(chapter=st.sampled_from(CHAPTERS), key=NAME, value=st.text(max_size=6))
def test_pipeline_refuses_undeclared_parameters(capsys, chapter, key, value):
    declared = declared_parameters(Paths.default().notebooks, chapter)
    if key in declared:
        return  # would run the chapter: not a fuzz target
    assert main(["run", chapter, "-p", key, value]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith(
        f"python -m rankbook.report.pipeline run: error: Chapter {chapter} has no parameter {key!r}"
    )


@FUZZ
@given(chapter=NAME)
def test_pipeline_unknown_chapter(capsys, chapter):
    if chapter in CHAPTERS:
        return
    assert main(["run", chapter]) == 2
    assert "No chapter" in capsys.readouterr().err


@FUZZ
@given(
    flag=st.sampled_from(["--workers", "--k", "--n-repeats", "--synthetic-rows"]),
    value=st.one_of(st.integers(-(10**6), 10**6).map(str), st.text(max_size=5)),
)
def test_distributed_cli_counts(capsys, flag, value):
    try:
        args = build_parser().parse_args(["rows", flag, value])
    except SystemExit as stop:
        assert stop.code == 2
        assert f"argument {flag}" in capsys.readouterr().err
        return
    assert getattr(args, flag[2:].replace("-", "_")) >= 1


@pytest.mark.parametrize("argv", [["--empty", "x"], ["--row-partitioning", "y"]])
def test_distributed_cli_choices(capsys, argv):
    with pytest.raises(SystemExit) as stop:
        build_parser().parse_args(["rows", *argv])
    assert stop.value.code == 2 and "invalid choice" in capsys.readouterr().err


def test_rows_refuses_an_unknown_tie_rule_in_one_line(capsys):
    from rankaudit.cli import main

    assert main(["rows", "--synthetic-rows", "5", "--ties", "nope"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "is not a tie rule" in err[0], err
