"""Packaging (issue 16): one version, declared dependencies, install hints naming the extra."""

from __future__ import annotations

import ast
import importlib
import pkgutil
import re
import sys

import pytest
import tomllib

import rankaudit
import rankbook
import rankbook._version
from rankaudit._optional import EXTRAS, require
from tests.conftest import ROOT

PYPROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text())
PROJECT = PYPROJECT["project"]
OPTIONAL_TOP = set(EXTRAS)


def _modules() -> list[str]:
    return sorted(
        m.name
        for package in (rankaudit, rankbook)
        for m in pkgutil.walk_packages(package.__path__, f"{package.__name__}.")
    )


def test_version_has_one_source():
    assert "version" not in PROJECT and "version" in PROJECT["dynamic"]
    assert (
        PYPROJECT["tool"]["setuptools"]["dynamic"]["version"]["attr"]
        == "rankaudit._version.__version__"
    )
    cff = (ROOT / "CITATION.cff").read_text()
    assert re.search(r"^version: (.+)$", cff, re.M).group(1) == rankaudit.__version__
    assert rankbook._version.__version__ == rankaudit.__version__


def test_the_library_distribution_is_the_library_alone():
    """``pip install .`` packages ``rankaudit`` only; the compendium is ``src/pyproject.toml``."""
    found = PYPROJECT["tool"]["setuptools"]["packages"]["find"]
    assert found["where"] == ["src"] and found["include"] == ["rankaudit*"]
    assert set(PYPROJECT["tool"]["setuptools"]["package-data"]) == {"rankaudit"}
    book = tomllib.loads((ROOT / "src" / "pyproject.toml").read_text())
    assert book["tool"]["setuptools"]["packages"]["find"]["include"] == ["rankbook*"]
    shipped = [
        p
        for p in (ROOT / "src" / "rankaudit").rglob("*")
        if p.suffix != ".py" and "__pycache__" not in p.parts
    ]
    assert {p.name for p in shipped if p.is_file()} == {"py.typed"}


def test_distribution_name_is_not_the_unrelated_project():
    assert PROJECT["name"] == "rankaudit-book"
    for path in [ROOT / "README.md", *(ROOT / "src").rglob("*.py")]:
        text = path.read_text(encoding="utf-8")
        assert not re.search(r"pip install ['\"]?rankaudit\[", text), path
        assert not re.search(r"pip install rankaudit\s*$", text, re.M), path


def test_licence_file_matches_the_declared_licence():
    assert PROJECT["license"] == "MIT"
    assert (ROOT / "LICENSE").read_text().startswith("MIT License")
    assert (ROOT / "src" / "rankaudit" / "py.typed").is_file()
    assert "py.typed" in PYPROJECT["tool"]["setuptools"]["package-data"]["rankaudit"]


def test_book_extra_pins_jupyter_book_1():
    book = PROJECT["optional-dependencies"]["book"]
    assert "jupyter-book>=1,<2" in book and "django-static-mathjax" in book


def test_ranking_extra_does_not_pull_torch():
    ranking = PROJECT["optional-dependencies"]["ranking"]
    assert not any(r.startswith(("torch", "transformers", "gt-all")) for r in ranking)


def _third_party_imports() -> set[str]:
    found = set()
    for path in (ROOT / "src" / "rankaudit").rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import):
                found.update(alias.name.split(".")[0] for alias in node.names)
            elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                found.add(node.module.split(".")[0])
            elif (
                isinstance(node, ast.Call)
                and getattr(node.func, "id", None) == "require"
                and node.args
                and isinstance(node.args[0], ast.Constant)
            ):
                found.add(str(node.args[0].value).split(".")[0])
    return found


def test_every_imported_package_is_declared():
    stdlib = set(sys.stdlib_module_names) | {"__future__", "rankaudit"}
    core = {re.match(r"[A-Za-z0-9_.-]+", dep).group(0) for dep in PROJECT["dependencies"]}
    undeclared = _third_party_imports() - stdlib - core - OPTIONAL_TOP
    assert undeclared == set()
    declared = " ".join(PROJECT["dependencies"])
    assert all(name in declared for name in core)


@pytest.mark.parametrize("blocked", sorted(OPTIONAL_TOP))
def test_a_missing_optional_package_names_its_extra(monkeypatch, blocked):
    """With ``blocked`` made unimportable, every module either imports or raises an ImportError
    naming the extra; none raises a bare ModuleNotFoundError."""
    for name in [m for m in sys.modules if m == blocked or m.startswith(blocked + ".")]:
        monkeypatch.delitem(sys.modules, name)
    monkeypatch.setitem(sys.modules, blocked, None)
    saved = {
        m: sys.modules[m] for m in list(sys.modules) if m.startswith(("rankaudit", "rankbook"))
    }
    try:
        for name in saved:
            del sys.modules[name]
        for module in _modules():
            try:
                importlib.import_module(module)
            except ImportError as err:
                assert f"'{EXTRAS[blocked]}' extra" in str(err), (module, str(err))
                assert 'pip install ".[' in str(err)
    finally:
        for name in [m for m in sys.modules if m.startswith(("rankaudit", "rankbook"))]:
            del sys.modules[name]
        sys.modules.update(saved)


def test_require_names_the_extra():
    with pytest.raises(ImportError, match=r"'encoders' extra: pip install \"\.\[encoders\]\""):
        require("torch_that_does_not_exist_xyz", extra="encoders", purpose="x")
