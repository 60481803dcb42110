"""A student's rerun into a folder of their own (``make chapter ... OUT=dir``) leaves the site
alone."""

from __future__ import annotations

import hashlib
import json
import re
import shutil
from pathlib import Path

import pytest

from rankbook.report.pipeline import Paths, chapter_names, run_chapter, run_chapter_into
from rankbook.report.standalone import export_figures, plain_roles
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
from rankbook.data import DataSource
from rankbook.report import Int, check_params, glue, show_run, write_results

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


EXERCISE_CHAPTER = """---
jupytext:
  text_representation: {extension: .md, format_name: myst}
kernelspec: {display_name: Python 3, language: python, name: python3}
rankaudit:
  smoke_parameters: {n: 3}
---
(wide)=
# 98. A wide chapter

```{code-cell} ipython3
:tags: [parameters]
n = 5  # number of points; integer, at least 1
```

$$
m = n + 1
$$ (eq-wide-m)

```{code-cell} ipython3
---
mystnb:
  figure:
    caption: A figure twenty inches wide.
    name: fig-wide
---
import matplotlib.pyplot as plt

fig, ax = plt.subplots(figsize=(20, 3))
ax.plot(range(n))
plt.show()
```

As {numref}`fig-wide` shows, {eq}`eq-wide-m` holds; see {ref}`ex-98-1` and {ref}`wide`.

## Exercises

````{exercise} By hand · ★☆☆
:label: ex-98-1

Compute $m$ for $n = 2$.
````

````{solution} ex-98-1
:class: dropdown

It is 3, by {eq}`eq-wide-m`.
````
"""


def _overflowing_images(page: Path, width: int = 800) -> int:
    """How many images of ``page`` reach past the right edge of a ``width``-px window, measured
    in headless Chromium (a script writes the count into the dumped DOM)."""
    import subprocess

    chromium = next(
        (
            shutil.which(n)
            for n in ("chromium", "chromium-browser", "google-chrome")
            if shutil.which(n)
        ),
        None,
    )
    if chromium is None:
        pytest.fail("headless Chromium is not installed; `make test` installs it")
    probe = page.with_name("probe_" + page.name)
    script = (
        "<script>window.addEventListener('load', () => { const w = "
        "document.documentElement.clientWidth; document.body.setAttribute('data-overflow', "
        "[...document.images].filter(i => i.getBoundingClientRect().right > w + 1).length); "
        "document.body.setAttribute('data-images', document.images.length); });</script>"
    )
    probe.write_text(page.read_text(encoding="utf-8").replace("</body>", script + "</body>"))
    proc = subprocess.run(
        [
            chromium,
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            f"--window-size={width},800",
            "--allow-file-access-from-files",
            "--virtual-time-budget=5000",
            "--dump-dom",
            probe.as_uri(),
        ],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert proc.returncode == 0, proc.stderr[-2000:]
    images = re.search(r'data-images="(\d+)"', proc.stdout)
    overflow = re.search(r'data-overflow="(\d+)"', proc.stdout)
    assert images and overflow, "the probe script did not run"
    assert int(images.group(1)) > 0, "no image on the page"
    return int(overflow.group(1))


def _page_problems(page: str, labels: list[str], chapter: int) -> list[str]:
    """What a rerun page lacks: each exercise box and folded solution, resolved references."""
    from tests.test_rendered_text import scan_html

    problems = []
    for i, _ in enumerate(labels, start=1):
        if not re.search(rf"Exercise {chapter}\.{i}\b", page):
            problems.append(f"no box 'Exercise {chapter}.{i}'")
        if f"Solution to Exercise {chapter}.{i}<" not in page:
            problems.append(f"no folded solution to Exercise {chapter}.{i}")
    if re.search(r"<details[^>]*\bopen\b", page):
        problems.append("a solution is open by default")
    problems += [f"raw label: {f.excerpt}" for f in scan_html(page) if f.rule == "raw-label"]
    if "img { max-width: 100%" not in page:
        problems.append("no max-width rule for figures")
    return problems


def test_the_rerun_page_numbers_exercises_resolves_references_and_fits_figures(tmp_path):
    notebooks = tmp_path / "notebooks"
    notebooks.mkdir()
    (notebooks / "98_wide.md").write_text(EXERCISE_CHAPTER)
    paths = _book(tmp_path, notebooks)
    made = run_chapter_into("98_wide", tmp_path / "out", paths=paths, log=lambda *_: None)
    page = made["page"].read_text(encoding="utf-8")
    assert _page_problems(page, ["ex-98-1"], 98) == []
    assert "Exercise 98.1 · By hand" in page
    assert "As Fig. 98.1 shows, (98.1) holds; see Exercise 98.1 and" in " ".join(page.split())
    assert "<em>98. A wide chapter</em>" in page, "a chapter reference reads as its title"
    assert '<span class="eqno">(98.1)</span>' in page, "the equation shows its number"
    assert "It is 3, by (98.1)." in page
    assert _overflowing_images(made["page"]) == 0


def test_the_page_check_catches_what_it_checks(tmp_path):
    page = "<main><p>See fig-wide.</p><details open><summary>x</summary></details></main>"
    problems = _page_problems(page, ["ex-98-1"], 98)
    assert "no box 'Exercise 98.1'" in problems
    assert "no folded solution to Exercise 98.1" in problems
    assert "a solution is open by default" in problems
    assert any(p.startswith("raw label") for p in problems)
    assert "no max-width rule for figures" in problems


@pytest.mark.slow
@pytest.mark.real_data
@pytest.mark.parametrize("name", chapter_names(ROOT / "notebooks"))
def test_every_chapter_rerun_page_is_complete(smoke_book, tmp_path, name):
    """Each chapter, executed at smoke parameters, rendered as a student's rerun page."""
    import jupytext

    from rankbook.report.standalone import render_page

    assert name not in smoke_book.failures, smoke_book.failures.get(name)
    source = jupytext.read(ROOT / "notebooks" / f"{name}.md")
    labels = [
        m.group(1)
        for cell in source.cells
        if cell.cell_type == "markdown"
        for m in re.finditer(r"^:label:\s*(ex-\S+)", cell.source, flags=re.M)
    ]
    assert labels, f"{name} has no labelled exercise"
    page = render_page(
        smoke_book.paths.executed / f"{name}.ipynb", tmp_path / f"{name}.html", ROOT / "notebooks"
    )
    assert _page_problems(page.read_text(encoding="utf-8"), labels, int(name[:2])) == []
    if any("mystnb" in cell.metadata for cell in source.cells):
        assert _overflowing_images(page, width=1280) == 0
