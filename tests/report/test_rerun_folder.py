"""A student's rerun into a folder of their own (``make chapter ... OUT=dir``) leaves the site
alone."""

from __future__ import annotations

import hashlib
import json
import shutil
from pathlib import Path

import pytest

from rankaudit.report.pipeline import Paths, run_chapter, run_chapter_into
from rankaudit.report.standalone import export_figures, plain_roles
from tests.conftest import ROOT

TINY = """---
jupytext:
  text_representation: {extension: .md, format_name: myst}
kernelspec: {display_name: Python 3, language: python, name: python3}
rankaudit:
  smoke_parameters: {n: 3}
---
(tiny)=
# A tiny chapter

```{code-cell} ipython3
:tags: [parameters]
n = 5  # number of points; integer, at least 1
```

```{code-cell} ipython3
from rankaudit.data import DataSource
from rankaudit.report import Int, check_params, glue, show_run, write_results

params = check_params(dict(n=n), n=Int(lo=1))
source = DataSource(name="Counting numbers", kind="simulated", version="1",
                    generator="range", details={"n": params["n"]})
show_run(params, source)
```

```{code-cell} ipython3
import matplotlib.pyplot as plt

fig, ax = plt.subplots()
ax.plot(range(params["n"]))
plt.show()
total = sum(range(params["n"]))
glue("total", total)
```

The sum of the first numbers is {glue:text}`total` {cite}`somebody2020`.

```{code-cell} ipython3
write_results("99_tiny", params=params, data_source=source, results={"total": total}, checks=[])
```
"""


def _digest(folder: Path) -> dict[str, str]:
    return {
        str(p.relative_to(folder)): hashlib.sha256(p.read_bytes()).hexdigest()
        for p in sorted(folder.rglob("*"))
        if p.is_file()
    }


def _book(tmp_path: Path, notebooks: Path) -> Paths:
    book = tmp_path / "book"
    build = book / "_build"
    return Paths(ROOT, notebooks, book, build / "executed", build / "results")


def _tiny_notebooks(tmp_path: Path) -> Path:
    notebooks = tmp_path / "notebooks"
    notebooks.mkdir()
    (notebooks / "99_tiny.md").write_text(TINY)
    return notebooks


def test_a_rerun_into_a_folder_leaves_the_built_book_unchanged(tmp_path):
    paths = _book(tmp_path, _tiny_notebooks(tmp_path))
    run_chapter("99_tiny", paths=paths, log=lambda *_: None)  # the site's own run, n = 5
    site = paths.book / "_build" / "html"
    site.mkdir(parents=True)
    (site / "index.html").write_text("<html>the built site</html>")
    before = _digest(paths.book)
    assert "_build/results/99_tiny.json" in before and "_build/executed/99_tiny.ipynb" in before

    out = tmp_path / "student"
    made = run_chapter_into("99_tiny", out, {"n": 7}, paths=paths, log=lambda *_: None)

    assert _digest(paths.book) == before, "the rerun changed a file under book/"
    record = json.loads((out / "99_tiny.json").read_text())
    assert record["params"]["n"] == 7 and record["total"] == 21
    assert made["notebook"] == out / "99_tiny.ipynb" and made["notebook"].is_file()
    assert made["results"] == [out / "99_tiny.json"]
    assert [p.name for p in made["figures"]] == ["99_tiny_fig01.png"]
    assert made["figures"][0].read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    page = made["page"].read_text(encoding="utf-8")
    assert "The sum of the first numbers is" in page and ">21<" in page.replace("<strong>", "<")
    assert "[somebody2020]" in page, "a Sphinx-only role should read as plain text"
    assert 'href="99_tiny.json"' in page, "the page should link its results file in the folder"
    assert 'class="system-message"' not in page


@pytest.mark.parametrize("inside", ["_build", "_build/results", "_build/executed/mine"])
def test_a_folder_inside_the_build_is_refused(tmp_path, inside):
    paths = _book(tmp_path, _tiny_notebooks(tmp_path))
    with pytest.raises(ValueError, match="lies inside"):
        run_chapter_into("99_tiny", paths.book / inside, paths=paths, log=lambda *_: None)


@pytest.mark.slow
@pytest.mark.real_data
def test_a_real_chapter_rerun_writes_every_artefact(tmp_path):
    notebooks = tmp_path / "notebooks"
    shutil.copytree(ROOT / "notebooks", notebooks)
    paths = _book(tmp_path, notebooks)
    made = run_chapter_into(
        "00_quickstart", tmp_path / "out", {"seed": 1}, paths=paths, smoke=True, log=lambda *_: None
    )
    assert json.loads(made["results"][0].read_text())["params"]["seed"] == 1
    assert made["figures"] and made["page"].is_file()
    assert not (paths.book / "_build").exists()


def test_plain_roles_rewrites_sphinx_only_roles():
    text = (
        "see {ref}`the rules <tie-rules>`, {cite}`a2020,b2021`, {eq}`eq-hr`, "
        "{term}`tie block`, {download}`x.json <../x.json>` and {glue:text}`n:.2f`"
    )
    assert plain_roles(text) == (
        "see *the rules*, [a2020, b2021], (eq-hr), *tie block*, *x.json* and {glue:text}`n:.2f`"
    )


def test_export_figures_numbers_images_in_page_order(tmp_path):
    import base64

    import nbformat

    png = base64.b64encode(b"\x89PNG\r\n\x1a\nfake").decode()
    nb = nbformat.v4.new_notebook()
    first = nbformat.v4.new_code_cell("a", metadata={"mystnb": {"figure": {"name": "fig-a b"}}})
    first.outputs = [nbformat.v4.new_output("display_data", data={"image/png": png})]
    text = nbformat.v4.new_code_cell("b")
    text.outputs = [nbformat.v4.new_output("stream", text="no image")]
    second = nbformat.v4.new_code_cell("c")
    second.outputs = [nbformat.v4.new_output("display_data", data={"image/svg+xml": "<svg/>"})]
    nb.cells = [nbformat.v4.new_markdown_cell("# T"), first, text, second]
    path = tmp_path / "07_x.ipynb"
    nbformat.write(nb, path)
    files = export_figures(path, tmp_path / "figures")
    assert [f.name for f in files] == ["07_x_fig01_fig-a-b.png", "07_x_fig02.svg"]
    assert files[0].read_bytes() == b"\x89PNG\r\n\x1a\nfake"
    empty = nbformat.v4.new_notebook()
    nbformat.write(empty, tmp_path / "08_y.ipynb")
    assert export_figures(tmp_path / "08_y.ipynb", tmp_path / "none") == []
    assert not (tmp_path / "none").exists()
