"""The house rule, read off the source: imports run one way.

Two packages live under ``src/``: the library a user installs, ``rankaudit``, and the
compendium's code the chapters import, ``rankbook``.  The library never imports the
compendium.  Within each, layers run bottom to top (a module may import its own layer and the
layers below it, never a higher one); every compendium layer sits above every library layer.

The library, ``rankaudit``:

    0  scalars, errors, _version, _checks, _json, _optional   (the base)
    1  measures      the evaluation core: measures, tie rules, kernels, exact expectations
       options       the typed option groups of the public API (checked by _checks)
    2  ties          rectangular rows: evaluate, checks, invariance audit, prevalence
    3  runs          TREC / CSV runs and qrels, evaluate, audit, compare, leaderboard
    4  checklists    the reporting checklist, from rows and from runs
    5  distributed   the same evaluation on Dask
    6  cli, __main__ the command line
    7  rankaudit/__init__.py, the public face: nothing inside the package imports it

The compendium, ``rankbook`` (each may import the whole library's public rooms):

    10 paths         checkout, data, cache and results folders
    11 data          loaders, simulators, synthetic rows, provenance
    12 ties          other libraries' evaluators, Monte Carlo, row re-storings
    13 scores        Part II score families
    14 audit         Part II audits: prepare, tables, row files, chapter runner
    15 context       Part III features and sequence encoders
    16 ranking       LambdaMART, ablation, significance of lifts, the paper's constants
    17 throughput    chapter 14's throughput measurement
    18 report        params, provenance, results, glue, figures, prose, pipeline, slides
    18 course        sheets, the solutions page, the student edition, the grader, student setup

Also: no import cycle between modules, no function-local import of a package module
(function-local imports are kept for heavy optional libraries only), and no private name (one
starting with ``_``) imported from another module: a helper two modules share is public in the
module that defines it (in its ``__all__``).
"""

from __future__ import annotations

import ast
import re
import sys
from pathlib import Path

import pytest

SRC = Path(__file__).resolve().parents[1] / "src"
PACKAGES = ("rankaudit", "rankbook")

LAYERS: dict[str, dict[str, int]] = {
    "rankaudit": {
        "scalars": 0,
        "errors": 0,
        "_version": 0,
        "_checks": 0,
        "_json": 0,
        "_optional": 0,
        "measures": 1,
        "options": 1,
        "ties": 2,
        "runs": 3,
        "checklists": 4,
        "distributed": 5,
        "cli": 6,
        "__main__": 6,
    },
    "rankbook": {
        "_version": 10,
        "paths": 10,
        "data": 11,
        "ties": 12,
        "scores": 13,
        "audit": 14,
        "context": 15,
        "ranking": 16,
        "throughput": 17,
        "report": 18,
        "course": 18,
    },
}
ROOT_LAYER = {"rankaudit": 7, "rankbook": 19}


def module_name(path: Path) -> str:
    parts = list(path.relative_to(SRC).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def layer_of(module: str) -> int:
    parts = module.split(".")
    if len(parts) == 1:  # a package root
        return ROOT_LAYER[parts[0]]
    package, top = parts[0], parts[1]
    if top not in LAYERS[package]:
        raise AssertionError(f"{module}: room {top!r} has no layer; add it to LAYERS")
    return LAYERS[package][top]


def from_module(node: ast.ImportFrom, module: str, is_package: bool) -> str:
    """The absolute name of the module a ``from ... import`` reads (relative ones resolved)."""
    if not node.level:
        return node.module or ""
    base = module.split(".") if is_package else module.split(".")[:-1]
    base = base[: len(base) - (node.level - 1)]
    return ".".join(base + ([node.module] if node.module else []))


def is_submodule(package: str, name: str) -> bool:
    folder = SRC / package.replace(".", "/")
    return (folder / name).is_dir() or (folder / f"{name}.py").exists()


def package_imports(tree: ast.Module, module: str, is_package: bool):
    """Yield ``(imported module, line, is_top_level)`` for every import of either package."""
    top_level = {id(node) for node in tree.body}
    for node in ast.walk(tree):
        targets: list[str] = []
        if isinstance(node, ast.Import):
            targets = [a.name for a in node.names if a.name.split(".")[0] in PACKAGES]
        elif isinstance(node, ast.ImportFrom):
            name = from_module(node, module, is_package)
            if name.split(".")[0] not in PACKAGES:
                continue
            targets = [name]
            if name in PACKAGES or (is_package and name == module):
                # `from rankaudit import x` / `from . import x`: x may be a submodule
                targets = [
                    f"{name}.{a.name}"
                    if (SRC / name.replace(".", "/") / a.name).exists()
                    or (SRC / name.replace(".", "/") / f"{a.name}.py").exists()
                    else name
                    for a in node.names
                ]
        for target in targets:
            yield target, node.lineno, id(node) in top_level


def collect():
    graph: dict[str, set[str]] = {}
    problems: list[str] = []
    for path in sorted(p for package in PACKAGES for p in (SRC / package).rglob("*.py")):
        module = module_name(path)
        tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
        graph.setdefault(module, set())
        for target, line, top in package_imports(tree, module, path.name == "__init__.py"):
            where = f"{path.relative_to(SRC)}:{line}"
            if not top:
                # `if TYPE_CHECKING:` blocks at module level are fine, nothing else
                problems.append(f"{where}: function-local import of {target}")
            if target in PACKAGES and module != target:
                problems.append(f"{where}: imports the package root")
                continue
            if module.startswith("rankaudit") and target.startswith("rankbook"):
                problems.append(f"{where}: the library imports the compendium ({target})")
                continue
            if layer_of(target) > layer_of(module):
                problems.append(
                    f"{where}: upward import {module} (layer {layer_of(module)}) -> "
                    f"{target} (layer {layer_of(target)})"
                )
            graph[module].add(target)
    return graph, problems


def find_cycle(graph: dict[str, set[str]]) -> list[str] | None:
    state: dict[str, int] = {}
    stack: list[str] = []

    def visit(node: str) -> list[str] | None:
        state[node] = 1
        stack.append(node)
        for nxt in sorted(graph.get(node, ())):
            nxt = nxt if nxt in graph else nxt.rsplit(".", 1)[0]
            if nxt == node or nxt not in graph:
                continue
            if state.get(nxt) == 1:
                return stack[stack.index(nxt) :] + [nxt]
            if nxt not in state and (cycle := visit(nxt)):
                return cycle
        stack.pop()
        state[node] = 2
        return None

    for node in sorted(graph):
        if node not in state and (cycle := visit(node)):
            return cycle
    return None


def test_imports_run_one_way():
    _, problems = collect()
    assert not problems, "\n".join(problems)


def test_no_import_cycle():
    graph, _ = collect()
    # a package's __init__ re-exporting its own modules is not a cycle of the house
    pruned = {
        m: {t for t in targets if not (m.startswith(t + ".") and t not in PACKAGES)}
        for m, targets in graph.items()
    }
    assert find_cycle(pruned) is None, " -> ".join(find_cycle(pruned) or [])


def test_the_checker_catches_an_upward_import(tmp_path):
    """The rule can fail: an upward, a root and a function-local import are all reported."""
    source = (
        "from rankbook.report.results import write_results\n"
        "import rankaudit\n"
        "def f():\n    from rankaudit.measures.row_metrics import ndcg_at_k\n"
    )
    tree = ast.parse(source)
    found = list(package_imports(tree, "rankbook.data.example", False))
    assert [(t, top) for t, _, top in found] == [
        ("rankbook.report.results", True),
        ("rankaudit", True),
        ("rankaudit.measures.row_metrics", False),
    ]
    assert layer_of("rankbook.report.results") > layer_of("rankbook.data.example")


def test_the_checker_catches_the_library_importing_the_compendium(monkeypatch, tmp_path):
    """A library module that imports the compendium is reported, whatever the layers."""
    package = tmp_path / "rankaudit" / "measures"
    package.mkdir(parents=True)
    (tmp_path / "rankbook").mkdir()
    (package / "bad.py").write_text("from rankbook.data.source import DataSource\n__all__ = []\n")
    monkeypatch.setattr(sys.modules[__name__], "SRC", tmp_path)
    _, problems = collect()
    assert any("the library imports the compendium" in p for p in problems), problems


def private_imports(tree: ast.Module, module: str, is_package: bool):
    """Yield ``(module.name, line)`` for every private name (``_x``, not ``__x__``) that a
    ``from ... import`` takes from another module of either package, absolute or relative.
    A private-named *module* (``from rankaudit import _checks``) is a room, not a private name."""
    for node in ast.walk(tree):
        if not isinstance(node, ast.ImportFrom):
            continue
        source = from_module(node, module, is_package)
        if source.split(".")[0] not in PACKAGES or source == module:
            continue
        for alias in node.names:
            name = alias.name
            private = name.startswith("_") and not (name.startswith("__") and name.endswith("__"))
            if private and not is_submodule(source, name):
                yield f"{source}.{name}", node.lineno


def test_no_private_name_is_imported_across_modules():
    """A helper that two modules share is public where it is defined: in its ``__all__``."""
    found = []
    for path in sorted(p for package in PACKAGES for p in (SRC / package).rglob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
        module = module_name(path)
        for name, line in private_imports(tree, module, path.name == "__init__.py"):
            found.append(f"{path.relative_to(SRC)}:{line}: imports the private {name}")
    assert not found, "\n".join(found)


def test_the_checker_catches_a_private_import():
    """The rule can fail: absolute and relative imports of private names are reported; public
    names, private-named rooms and other libraries' names are not."""
    source = (
        "from rankaudit.ties.ideal import _rescale_to_ideal\n"
        "from .peers import Peer, _doc_ids\n"
        "from ..data.textfile import _open_binary\n"
        "from rankaudit._checks import check_int\n"
        "from rankaudit import _checks\n"
        "from rankaudit._version import __version__\n"
        "from os import _exit\n"
    )
    found = list(private_imports(ast.parse(source), "rankbook.ties.recsys_peers", False))
    assert [name for name, _ in found] == [
        "rankaudit.ties.ideal._rescale_to_ideal",
        "rankbook.ties.peers._doc_ids",
        "rankbook.data.textfile._open_binary",
    ]
    assert [line for _, line in found] == [1, 2, 3]


def test_every_module_declares_all():
    missing = []
    for path in sorted(p for package in PACKAGES for p in (SRC / package).rglob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        names = {
            t.id
            for node in tree.body
            if isinstance(node, (ast.Assign, ast.AnnAssign))
            for t in (node.targets if isinstance(node, ast.Assign) else [node.target])
            if isinstance(t, ast.Name)
        }
        if "__all__" not in names:
            missing.append(str(path.relative_to(SRC)))
    assert not missing, f"modules without __all__: {missing}"


ISSUE_REFERENCE = re.compile(r"\bissues? *#?\d+", re.IGNORECASE)


@pytest.mark.parametrize("text", ["see issue 7", "Issue #12 asks", "issues 6"])
def test_issue_pattern_matches(text):
    assert ISSUE_REFERENCE.search(text)


def lines_matching(pattern: re.Pattern, root: Path) -> list[str]:
    """``path:line: text`` of every source line below ``root`` that ``pattern`` matches."""
    return [
        f"{p.relative_to(SRC)}:{i}: {line.strip()}"
        for p in sorted(root.rglob("*.py"))
        for i, line in enumerate(p.read_text(encoding="utf-8").splitlines(), 1)
        if pattern.search(line)
    ]


def test_no_issue_numbers_in_code():
    """Code explains itself; it does not point at a tracker the reader may not have."""
    hits = lines_matching(ISSUE_REFERENCE, SRC)
    assert not hits, hits


CHAPTER_WORD = re.compile(r"\bchapters?\b|\bnotebooks?\b|\bsession [0-9]\b", re.IGNORECASE)


@pytest.mark.parametrize("text", ["used by chapter 11", "the Chapters", "a notebook cell"])
def test_chapter_pattern_matches(text):
    assert CHAPTER_WORD.search(text)


def test_the_library_names_no_chapter():
    """The library a user installs knows nothing of the book: no chapter, notebook or session."""
    hits = lines_matching(CHAPTER_WORD, SRC / "rankaudit")
    assert not hits, "\n".join(hits)
