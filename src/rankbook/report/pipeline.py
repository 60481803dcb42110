"""The book pipeline: execute chapters with papermill, then build the site strictly.

Chapters are jupytext MyST notebooks ``notebooks/NN_name.md``. Each run converts the
source to ``.ipynb``, executes it with papermill (cwd ``notebooks/``, parameters injected
after the cell tagged ``parameters``) into ``book/_build/executed/NN_name.ipynb``, and the
chapter writes ``book/_build/results/NN_name.json``. The site is then built from the
executed notebooks by Jupyter Book 1 with ``execute_notebooks: "off"`` and
``-W -n --keep-going``, so a warning or a broken reference fails the build, and MathJax 3
is copied next to the HTML so that math typesets offline; the course's three reveal.js decks
(:mod:`rankbook.report.slides`) are written into ``html/slides`` from the same executed
notebooks and results; then the student edition, without solutions, is built from the same
executed notebooks (:mod:`rankbook.course.editions`).

``run NN_name --out DIR`` is a student's rerun (:func:`run_chapter_into`): the executed
notebook, the results JSON, the figures and one readable HTML page all go into ``DIR``, and
nothing under ``book/_build`` (the site, the executed chapters, the results) is touched.

Command line (what the Makefile calls)::

    python -m rankbook.report.pipeline run NN_name [--smoke | --preset class] [-p key value ...]
        [--out DIR]
    python -m rankbook.report.pipeline run-all [--smoke] [--force]
    python -m rankbook.report.pipeline build
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from rankaudit._optional import require
from rankbook.paths import find_project_root
from rankbook.report.chapter_source import (
    chapter_names,
    check_parameter_names,
    declared_parameters,
    parse_cli_value,
    preset_parameters,
    read_source,
    smoke_parameters,
)
from rankbook.report.environment import cpu_model
from rankbook.report.kernel import kernel_manager_class
from rankbook.report.prose import plural_phrase
from rankbook.report.running_time import add_running_time, running_time_markdown
from rankbook.report.site_build import build_book, install_mathjax
from rankbook.report.standalone import export_figures, render_page

__all__ = [
    "ChapterFailed",
    "Paths",
    "add_results_links",
    "add_running_time",
    "build_book",
    "chapter_names",
    "check_parameter_names",
    "declared_parameters",
    "install_mathjax",
    "parse_cli_value",
    "preset_parameters",
    "results_files",
    "results_links_markdown",
    "run_chapter",
    "running_time_markdown",
    "run_chapter_into",
    "smoke_parameters",
]


class ChapterFailed(RuntimeError):
    """A chapter raised while executing; the message names the chapter and the cell."""


@dataclass(frozen=True)
class Paths:
    """Where sources, executed notebooks, results and the site live."""

    root: Path
    notebooks: Path
    book: Path
    executed: Path
    results: Path

    @classmethod
    def default(cls, root: Path | None = None) -> Paths:
        root = root or find_project_root()
        build = root / "book" / "_build"
        return cls(root, root / "notebooks", root / "book", build / "executed", build / "results")


def _src_mtime(root: Path) -> float:
    return max(p.stat().st_mtime for p in (root / "src" / "rankaudit").rglob("*.py"))


def _is_fresh(paths: Paths, name: str) -> bool:
    """An executed notebook is fresh when it ran at defaults after its source and src/ last
    changed."""
    out = paths.executed / f"{name}.ipynb"
    result = paths.results / f"{name}.json"
    if not out.is_file() or not result.is_file():
        return False
    meta = json.loads(out.read_text(encoding="utf-8")).get("metadata", {})
    run = meta.get("rankaudit_run", {})
    if run.get("parameters", None) != {} or run.get("smoke") or run.get("preset"):
        return False
    newest = max((paths.notebooks / f"{name}.md").stat().st_mtime, _src_mtime(paths.root))
    return out.stat().st_mtime > newest


def run_chapter(
    name: str,
    parameters: Mapping[str, Any] | None = None,
    *,
    paths: Paths | None = None,
    smoke: bool = False,
    preset: str | None = None,
    plain_links: bool = False,
    log=print,
) -> Path:
    """Execute one chapter with papermill and return the executed notebook's path.

    ``preset`` (``"class"``) starts from the chapter's named parameter set
    (:func:`preset_parameters`); explicit ``parameters`` override it.
    ``plain_links`` writes the results links as plain Markdown links relative to the executed
    notebook (a standalone folder) instead of the site's ``{download}`` roles.
    Raises :class:`ChapterFailed` naming the chapter and the failing cell, and a
    ValueError (before running anything) for a parameter the chapter does not declare.
    """
    nbformat = require("nbformat", purpose="the book pipeline")
    pm = require("papermill", purpose="the book pipeline")

    paths = paths or Paths.default()
    nb = read_source(paths.notebooks, name)
    params = dict(smoke_parameters(paths.notebooks, name) if smoke else {})
    if preset is not None:
        params.update(preset_parameters(paths.notebooks, name, preset))
    params.update(parameters or {})
    check_parameter_names(paths.notebooks, name, params)
    paths.executed.mkdir(parents=True, exist_ok=True)
    paths.results.mkdir(parents=True, exist_ok=True)
    out = paths.executed / f"{name}.ipynb"
    env_before = os.environ.get("RANKAUDIT_RESULTS_DIR")
    os.environ["RANKAUDIT_RESULTS_DIR"] = str(paths.results)
    start = time.perf_counter()
    try:
        with tempfile.TemporaryDirectory() as tmp:
            src = Path(tmp) / f"{name}.ipynb"
            nbformat.write(nb, src)
            pm.execute_notebook(
                str(src),
                str(out),
                parameters=params,
                cwd=str(paths.notebooks),
                kernel_name="python3",
                progress_bar=False,
                request_save_on_cell_execute=False,
                kernel_manager_class=kernel_manager_class(),
            )
    except pm.PapermillExecutionError as err:
        raise ChapterFailed(
            f"Chapter {name} failed in cell {err.cell_index} (execution count {err.exec_count}): "
            f"{err.ename}: {err.evalue}\n  executed notebook with the traceback: {out}"
        ) from None
    finally:
        if env_before is None:
            os.environ.pop("RANKAUDIT_RESULTS_DIR", None)
        else:
            os.environ["RANKAUDIT_RESULTS_DIR"] = env_before
    seconds = time.perf_counter() - start
    executed = nbformat.read(out, as_version=4)
    machine = {"cpu_model": cpu_model(), "cores": os.cpu_count()}
    run = {
        "parameters": dict(parameters or {}),
        "smoke": smoke,
        "preset": preset,
        "seconds": round(seconds, 1),
        "machine": machine,
    }
    executed.metadata["rankaudit_run"] = run
    add_results_links(executed, name, paths, plain=plain_links)
    add_running_time(executed, run["seconds"], machine)  # the recorded value, so the two agree
    nbformat.write(executed, out)
    log(
        f"  {name}: executed in {seconds:.1f} s -> "
        f"{out.relative_to(paths.root) if out.is_relative_to(paths.root) else out}"
    )
    return out


def _inside(path: Path, folder: Path) -> bool:
    path, folder = path.resolve(), folder.resolve()
    return path == folder or path.is_relative_to(folder)


def run_chapter_into(
    name: str,
    out: Path,
    parameters: Mapping[str, Any] | None = None,
    *,
    paths: Paths | None = None,
    smoke: bool = False,
    preset: str | None = None,
    log=print,
) -> dict[str, Any]:
    """A student's rerun of one chapter into the folder ``out``, leaving the built site alone.

    Writes ``out/<name>.ipynb`` (executed), ``out/<name>.json`` (results, plus any row-level
    Parquet), ``out/figures/<name>_figNN*.png`` and ``out/<name>.html`` (one readable page,
    :func:`rankbook.report.standalone.render_page`). Returns those paths under the keys
    ``notebook``, ``results``, ``figures`` and ``page``. ``out`` must not lie inside the book's
    build folder (``book/_build``): a ``ValueError`` says so.
    """
    base = paths or Paths.default()
    out = Path(out).expanduser().resolve()
    build = base.book / "_build"
    for guarded in (build, base.executed, base.results):
        if _inside(out, guarded):
            raise ValueError(
                f"out={str(out)!r} lies inside {guarded}, which the site is built from; "
                "choose a folder of your own (e.g. OUT=~/rerun/{name})."
            )
    if out.exists() and not out.is_dir():
        raise ValueError(f"out={str(out)!r} is a file, not a folder; choose a folder of your own")
    try:
        out.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise ValueError(f"out={str(out)!r}: cannot create the folder ({exc.strerror})") from None
    mine = Paths(base.root, base.notebooks, base.book, out, out)
    size = {"smoke": smoke, "preset": preset}
    notebook = run_chapter(name, parameters, paths=mine, plain_links=True, log=log, **size)
    figures = export_figures(notebook, out / "figures")
    page = render_page(notebook, out / f"{name}.html", base.notebooks)
    log(f"  {name}: {plural_phrase(len(figures), 'figure', 'figures')}, page {page}")
    return {
        "notebook": notebook,
        "results": results_files(name, out),
        "figures": figures,
        "page": page,
    }


def results_files(name: str, results: Path) -> list[Path]:
    """The files chapter ``name`` wrote: ``<name>.json`` and any ``<name>_*.parquet``."""
    found = [results / f"{name}.json"] if (results / f"{name}.json").is_file() else []
    return found + sorted(results.glob(f"{name}_*.parquet"))


def results_links_markdown(name: str, paths: Paths, *, plain: bool = False) -> str | None:
    """A MyST paragraph with a ``{download}`` link to each results file of the chapter.

    Links are relative to the folder the book reads chapters from (``book/chapters``), so the
    site build copies each file next to the page (and fails strictly if one is missing). With
    ``plain``, they are Markdown links relative to ``paths.executed`` (a standalone rerun folder).
    """
    files = results_files(name, paths.results)
    if not files:
        return None
    folder = paths.executed if plain else paths.book / "chapters"
    links = []
    for path in files:
        rel = Path(os.path.relpath(path, folder)).as_posix()
        kind = "results JSON" if path.suffix == ".json" else "row-level Parquet"
        if plain:
            links.append(f"[{path.name}]({rel}) ({kind})")
        else:
            links.append(f"{{download}}`{path.name} <{rel}>` ({kind})")
    return (
        "```{admonition} Take the results away\n:class: seealso\n"
        "This page's numbers, machine-readable (schema: `rankbook/report/results.schema.json`): "
        + "; ".join(links)
        + ".\n```"
    )


def add_results_links(notebook, name: str, paths: Paths, *, plain: bool = False) -> None:
    """Insert the :func:`results_links_markdown` cell after the provenance box (else at the end)."""
    import nbformat

    text = results_links_markdown(name, paths, plain=plain)
    if text is None:
        return
    cell = nbformat.v4.new_markdown_cell(text, metadata={"tags": ["rankaudit-results-links"]})
    cells = [
        c for c in notebook.cells if "rankaudit-results-links" not in c.metadata.get("tags", [])
    ]
    where = len(cells)
    for i, c in enumerate(cells):
        outputs = c.get("outputs", []) if c.cell_type == "code" else []
        if any("How this page was built" in str(o.get("data", {})) for o in outputs):
            where = i + 1
            break
    cells.insert(where, cell)
    notebook.cells = cells


def _parse_params(pairs: Sequence[Sequence[str]]) -> dict[str, Any]:
    keys = [key for key, _ in pairs]
    repeated = sorted({key for key in keys if keys.count(key) > 1})
    if repeated:
        raise ValueError(
            f"{'parameter' if len(repeated) == 1 else 'parameters'} "
            f"{', '.join(map(repr, repeated))} given more than once"
        )
    return {key: parse_cli_value(value) for key, value in pairs}


def _one_line(err: BaseException) -> str:
    """An error as one line (its blanks and line ends folded), as ``rankaudit`` prints it."""
    return " ".join(str(err).split()) or type(err).__name__


def main(argv: Sequence[str] | None = None) -> int:
    """Run the pipeline's command line; an error is one line on stderr,
    ``python -m rankbook.report.pipeline COMMAND: error: message``, in ``rankaudit``'s style,
    and exit status 2 (1 when chapters of ``run-all`` failed)."""
    parser = argparse.ArgumentParser(prog="python -m rankbook.report.pipeline")
    sub = parser.add_subparsers(dest="command", required=True)
    one = sub.add_parser("run", help="execute one chapter")
    one.add_argument("name")
    one.add_argument("--smoke", action="store_true", help="use the chapter's smoke parameters")
    one.add_argument("--preset", choices=["class"], help="'class': laptop-sized (chapters 08-12)")
    one.add_argument(
        "-p", "--parameter", nargs=2, action="append", default=[], metavar=("KEY", "VALUE")
    )
    one.add_argument(
        "--out",
        metavar="DIR",
        default=None,
        help="write the executed notebook, results, figures and a readable page into "
        "DIR instead of the site's build folder (the site is left unchanged)",
    )
    every = sub.add_parser("run-all", help="execute every chapter at its default parameters")
    every.add_argument("--force", action="store_true", help="rerun fresh chapters too")
    sub.add_parser("build", help="build the site from the executed chapters")
    args = parser.parse_args(argv)
    paths = Paths.default()
    prefix = f"{parser.prog} {args.command}: error:"  # the one style of rankaudit's errors
    try:
        if args.command == "run":
            params = _parse_params(args.parameter)
            if args.out:
                size = {"smoke": args.smoke, "preset": args.preset}
                run_chapter_into(args.name, Path(args.out), params, paths=paths, **size)
            else:
                run_chapter(args.name, params, paths=paths, smoke=args.smoke, preset=args.preset)
        elif args.command == "run-all":
            failures = []
            for name in chapter_names(paths.notebooks):
                if not args.force and _is_fresh(paths, name):
                    print(f"  {name}: up to date")
                    continue
                try:
                    run_chapter(name, paths=paths)
                except ChapterFailed as err:
                    print(f"{prefix} {_one_line(err)}", file=sys.stderr)
                    failures.append(name)
            if failures:
                print(
                    f"{prefix} {plural_phrase(len(failures), 'chapter', 'chapters')} failed: "
                    f"{', '.join(failures)}",
                    file=sys.stderr,
                )
                return 1
        else:
            build_book(paths.book, paths.executed, results=paths.results)
    except (ChapterFailed, OSError, RuntimeError, ValueError) as err:
        print(f"{prefix} {_one_line(err)}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
