"""Every chapter executes through papermill at its smoke parameters and writes its results."""

from __future__ import annotations

import json

import pytest

from rankbook.report.pipeline import chapter_names, smoke_parameters
from tests.conftest import ROOT

CHAPTERS = chapter_names(ROOT / "notebooks")
pytestmark = [pytest.mark.slow, pytest.mark.real_data]


def test_there_are_chapters():
    assert "00_quickstart" in CHAPTERS


@pytest.mark.parametrize("name", CHAPTERS)
def test_chapter_declares_smoke_parameters_and_a_parameters_cell(name):
    import jupytext

    nb = jupytext.read(ROOT / "notebooks" / f"{name}.md")
    tagged = [c for c in nb.cells if "parameters" in c.metadata.get("tags", [])]
    assert len(tagged) == 1, f"{name} needs exactly one cell tagged 'parameters'"
    assert isinstance(smoke_parameters(ROOT / "notebooks", name), dict)


@pytest.mark.parametrize("name", CHAPTERS)
def test_papermill_can_read_every_parameter(name):
    """papermill's parser skips lines with a second '=' (e.g. '>=' in a comment) silently."""
    import jupytext
    from papermill.translators import PythonTranslator

    nb = jupytext.read(ROOT / "notebooks" / f"{name}.md")
    cell = next(c for c in nb.cells if "parameters" in c.metadata.get("tags", []))
    assigned = {
        line.split("=", 1)[0].strip()
        for line in cell.source.splitlines()
        if "=" in line and not line.lstrip().startswith("#")
    }
    parsed = {p.name for p in PythonTranslator.inspect(cell)}
    assert assigned == parsed, f"papermill cannot parse {sorted(assigned - parsed)} in {name}"


@pytest.mark.parametrize("name", CHAPTERS)
def test_chapter_runs_at_smoke_parameters(smoke_book, name):
    assert name not in smoke_book.failures, smoke_book.failures.get(name)
    import jsonschema

    from rankbook.report.results import results_schema

    record = json.loads((smoke_book.paths.results / f"{name}.json").read_text())
    assert {"params", "data_source", "rankaudit_version", "software", "checks"} <= set(record)
    jsonschema.validate(record, results_schema(), cls=jsonschema.Draft202012Validator)
    sources = record["data_source"]
    sources = sources.values() if "kind" not in sources else [sources]
    for source in sources:
        assert source["kind"] in {"real", "simulated", "fixture"}
        assert source["name"]
    page = (smoke_book.paths.executed / f"{name}.ipynb").read_text()
    assert "How this page was built" in page, f"{name} does not show its data source on the page"
    assert f"{name}.json <" in page, f"{name} does not link its results JSON"
    for key, value in smoke_parameters(ROOT / "notebooks", name).items():
        assert record["params"][key] == value
    for check in record["checks"]:
        if check["kind"] == "identity":  # the page names it so, in words
            assert "by construction" in page, f"{name}: identity {check['name']!r} not named"
        else:  # the unit test that makes it fail exists
            path, test = check["unit_test"].split("::")
            assert f"def {test}(" in (ROOT / path).read_text(), check["unit_test"]


@pytest.mark.parametrize("name", ["11_ablation", "12_sequence_models"])
def test_table1_chapters_run_on_diginetica_files(tmp_path, name):
    """The real-data path of chapters 11 and 12, end to end: a simulated log written as
    DIGINETICA files (labelled SIMULATED by its export marker)."""
    from rankbook.data.diginetica_export import write_diginetica
    from rankbook.data.sessions import SessionConfig, simulate_sessions
    from rankbook.report.pipeline import Paths, run_chapter

    log = simulate_sessions(SessionConfig(n_sessions=800, n_products=600), progress=False)
    folder = write_diginetica(log, tmp_path / "diginetica")
    paths = Paths(
        ROOT, ROOT / "notebooks", tmp_path / "book", tmp_path / "executed", tmp_path / "results"
    )
    out = run_chapter(
        name,
        {"data_dir": str(folder), "max_sessions": 600},
        paths=paths,
        smoke=True,
        log=lambda *_: None,
    )
    record = json.loads((paths.results / f"{name}.json").read_text())
    assert record["params"]["data_dir"] == str(folder.resolve())
    assert record["data_source"]["name"] == "Simulated sessions in the DIGINETICA format"
    assert record["data_source"]["details"]["max_sessions"] == 600
    page = out.read_text()
    assert "ppmi-svd" in page and "Simulated sessions in the DIGINETICA format" in page
