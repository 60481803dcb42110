"""The pipeline fails loudly: a broken chapter or a bad parameter names the chapter and cell."""

from __future__ import annotations

import os
import re
import shutil

import pytest

from rankbook.report.pipeline import (
    ChapterFailed,
    Paths,
    parse_cli_value,
    run_chapter,
    running_time_markdown,
)
from tests.conftest import ROOT

BROKEN = """---
jupytext:
  text_representation: {extension: .md, format_name: myst}
kernelspec: {display_name: Python 3, language: python, name: python3}
---
# Broken

```{code-cell} ipython3
:tags: [parameters]
x = 1
```

```{code-cell} ipython3
y = x + 1
```

```{code-cell} ipython3
raise RuntimeError("deliberately broken")
```
"""


def _paths(tmp_path, notebooks):
    return Paths(ROOT, notebooks, tmp_path / "book", tmp_path / "executed", tmp_path / "results")


def test_a_broken_chapter_names_the_chapter_and_the_cell(tmp_path):
    notebooks = tmp_path / "notebooks"
    notebooks.mkdir()
    (notebooks / "99_broken.md").write_text(BROKEN)
    with pytest.raises(ChapterFailed) as err:
        run_chapter("99_broken", paths=_paths(tmp_path, notebooks), log=lambda *_: None)
    message = str(err.value)
    assert "Chapter 99_broken failed in cell" in message
    assert "RuntimeError: deliberately broken" in message


@pytest.mark.real_data
def test_a_bad_parameter_fails_in_the_validation_cell(tmp_path):
    notebooks = tmp_path / "notebooks"
    shutil.copytree(ROOT / "notebooks", notebooks)
    with pytest.raises(ChapterFailed) as err:
        run_chapter(
            "00_quickstart", {"k": -1}, paths=_paths(tmp_path, notebooks), log=lambda *_: None
        )
    message = str(err.value)
    assert "Chapter 00_quickstart failed" in message
    assert "Parameter 'k' must be an integer >= 1; got -1" in message
    # Execution counts: 1 = parameters, 2 = papermill's injected parameters, 3 = validation.
    assert "execution count 3" in message


def test_cli_values_are_typed_like_papermill():
    assert parse_cli_value("5") == 5
    assert parse_cli_value("0.5") == 0.5
    assert parse_cli_value("True") is True
    assert parse_cli_value("None") is None
    assert parse_cli_value("/data/ml-25m") == "/data/ml-25m"


@pytest.mark.parametrize("value", [None, False, True, 5, 0.05, 1e-3, "zlib", "/data/ml-25m"])
def test_the_parameter_table_prints_each_value_as_it_is_typed_after_p(value):
    """The box "How this page was built" shows ``zlib``, not Python's ``'zlib'``, and every
    value reads back as itself through ``-p name value``."""
    from rankbook.report.provenance import cli_text

    assert parse_cli_value(cli_text(value)) == value
    assert type(parse_cli_value(cli_text(value))) is type(value)
    assert "'" not in cli_text(value)


def test_results_links_point_at_the_chapter_files(tmp_path):
    import nbformat

    from rankbook.report.pipeline import Paths, add_results_links

    paths = Paths(tmp_path, tmp_path / "nb", tmp_path / "book", tmp_path / "exec", tmp_path / "res")
    paths.results.mkdir()
    (paths.results / "05_x.json").write_text("{}")
    (paths.results / "05_x_rows.parquet").write_bytes(b"")
    (paths.results / "06_y.json").write_text("{}")
    nb = nbformat.v4.new_notebook()
    box = nbformat.v4.new_code_cell("show_run()")
    box.outputs = [
        nbformat.v4.new_output(
            "display_data", data={"text/markdown": "```{admonition} How this page was built\n```"}
        )
    ]
    nb.cells = [nbformat.v4.new_markdown_cell("# T"), box, nbformat.v4.new_markdown_cell("x")]
    add_results_links(nb, "05_x", paths)
    add_results_links(nb, "05_x", paths)  # idempotent: one links cell
    links = [c for c in nb.cells if "rankaudit-results-links" in c.metadata.get("tags", [])]
    assert len(links) == 1 and nb.cells.index(links[0]) == 2
    text = links[0].source
    assert "<../../res/05_x.json>" in text and "<../../res/05_x_rows.parquet>" in text
    assert "06_y" not in text


def test_a_misspelt_parameter_is_refused_before_running(tmp_path):
    """Issue 16: ``-p sede 5`` ran 00_quickstart at defaults and rewrote its results."""
    from rankbook.report.pipeline import declared_parameters

    paths = _paths(tmp_path, ROOT / "notebooks")
    assert declared_parameters(paths.notebooks, "00_quickstart") == [
        "data_dir",
        "k",
        "n_users",
        "seed",
    ]
    with pytest.raises(
        ValueError,
        match=r"Chapter 00_quickstart has no parameter 'sede'; its "
        r"parameters are: data_dir, k, n_users, seed",
    ):
        run_chapter("00_quickstart", {"sede": 5}, paths=paths, log=lambda *_: None)
    assert not (tmp_path / "executed").exists()  # nothing ran, nothing was written


def test_the_cli_prints_one_line_for_a_misspelt_parameter(tmp_path):
    import subprocess
    import sys

    out = subprocess.run(
        [
            sys.executable,
            "-m",
            "rankbook.report.pipeline",
            "run",
            "00_quickstart",
            "-p",
            "sede",
            "5",
        ],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=120,
    )
    assert out.returncode == 2
    assert out.stderr.strip().splitlines() == [
        "python -m rankbook.report.pipeline run: error: Chapter 00_quickstart has no parameter "
        "'sede'; its parameters are: data_dir, k, n_users, seed"
    ]


def test_a_repeated_cli_parameter_is_refused():
    from rankbook.report.pipeline import main

    assert main(["run", "00_quickstart", "-p", "k", "1", "-p", "k", "2"]) == 2


WORKING = BROKEN.replace('raise RuntimeError("deliberately broken")', "z = y + 1")


def test_the_executed_page_carries_its_measured_running_time(tmp_path):
    """A chapter's running time is measured by the run and shown on the page, not typed."""
    import nbformat

    notebooks = tmp_path / "notebooks"
    notebooks.mkdir()
    (notebooks / "99_working.md").write_text(WORKING)
    out = run_chapter("99_working", paths=_paths(tmp_path, notebooks), log=lambda *_: None)
    executed = nbformat.read(out, as_version=4)
    run = executed.metadata["rankaudit_run"]
    assert run["seconds"] > 0
    assert run["machine"]["cores"] == os.cpu_count()
    last = executed.cells[-1]
    assert last.cell_type == "markdown" and "rankaudit-running-time" in last.metadata["tags"]
    assert last.source == running_time_markdown(run["seconds"], run["machine"])
    assert re.fullmatch(
        r"This page executed in [\d,]+ s at these parameters on .+, \d+ cores?\.", last.source
    )


def test_the_running_time_line_names_the_machine():
    assert running_time_markdown(59.4, {"cpu_model": "AMD EPYC", "cores": 2}) == (
        "This page executed in 59 s at these parameters on AMD EPYC, 2 cores."
    )
    assert running_time_markdown(1234.6, {"cpu_model": None, "cores": None}) == (
        "This page executed in 1,235 s at these parameters on an unnamed processor."
    )
    with pytest.raises(ValueError, match="seconds must be a measured time"):
        running_time_markdown(-1.0, {"cpu_model": "x", "cores": 1})
