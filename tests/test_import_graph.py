"""The house rule, read off the source: imports run one way.

Layers, bottom to top (a module may import its own layer and the layers below it, never a
higher one):

    0  scalars, _version, _paths, _checks, _json   (the base)
    1  measures      the evaluation core: measures, tie rules, kernels, exact expectations
    2  data          loaders, simulators, synthetic rows
    3  ties          rectangular rows: evaluate, checks, audits of evaluators
    4  runs          TREC / CSV runs and qrels, trec_eval semantics
    5  scores        Part II score families
    6  audit         Part II audits: prepare, tables, row files, chapter runner
    7  context       Part III features and sequence encoders
    8  ranking       LambdaMART, ablation, significance, the paper's constants
    9  distributed   the same evaluation on Dask
    10 report        params, provenance, results, glue, figures, checklist, pipeline
    11 cli, __main__ the command line
    12 rankaudit/__init__.py, the public face: nothing inside the package imports it

Also: no import cycle between modules, and no function-local import of a rankaudit module
(function-local imports are kept for heavy optional libraries only).
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

SRC = Path(__file__).resolve().parents[1] / "src" / "rankaudit"

LAYERS: dict[str, int] = {
    "scalars": 0,
    "_version": 0,
    "_paths": 0,
    "_checks": 0,
    "_json": 0,
    "_optional": 0,
    "measures": 1,
    "data": 2,
    "ties": 3,
    "runs": 4,
    "scores": 5,
    "audit": 6,
    "context": 7,
    "ranking": 8,
    "distributed": 9,
    "report": 10,
    "cli": 11,
    "__main__": 11,
}


def module_name(path: Path) -> str:
    parts = list(path.relative_to(SRC.parent).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def layer_of(module: str) -> int:
    parts = module.split(".")
    if len(parts) == 1:  # the package root
        return 12
    top = parts[1]
    if top not in LAYERS:
        raise AssertionError(f"{module}: room {top!r} has no layer; add it to LAYERS")
    return LAYERS[top]


def package_imports(tree: ast.Module, module: str, is_package: bool):
    """Yield ``(imported module, line, is_top_level)`` for every rankaudit import."""
    top_level = {id(node) for node in tree.body}
    for node in ast.walk(tree):
        targets: list[str] = []
        if isinstance(node, ast.Import):
            targets = [a.name for a in node.names if a.name.split(".")[0] == "rankaudit"]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = module.split(".") if is_package else module.split(".")[:-1]
                base = base[: len(base) - (node.level - 1)]
                name = ".".join(base + ([node.module] if node.module else []))
            else:
                name = node.module or ""
            if name.split(".")[0] != "rankaudit":
                continue
            targets = [name]
            if name == "rankaudit" or (is_package and name == module):
                # `from rankaudit import x` / `from . import x`: x may be a submodule
                targets = [
                    f"{name}.{a.name}"
                    if (SRC.parent / name.replace(".", "/") / a.name).exists()
                    or (SRC.parent / name.replace(".", "/") / f"{a.name}.py").exists()
                    else name
                    for a in node.names
                ]
        for target in targets:
            yield target, node.lineno, id(node) in top_level


def collect():
    graph: dict[str, set[str]] = {}
    problems: list[str] = []
    for path in sorted(SRC.rglob("*.py")):
        module = module_name(path)
        tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
        graph.setdefault(module, set())
        for target, line, top in package_imports(tree, module, path.name == "__init__.py"):
            where = f"{path.relative_to(SRC.parent)}:{line}"
            if not top:
                # `if TYPE_CHECKING:` blocks at module level are fine, nothing else
                problems.append(f"{where}: function-local import of {target}")
            if target == "rankaudit" and module != "rankaudit":
                problems.append(f"{where}: imports the package root")
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
        m: {t for t in targets if not (m.startswith(t + ".") and t != "rankaudit")}
        for m, targets in graph.items()
    }
    assert find_cycle(pruned) is None, " -> ".join(find_cycle(pruned) or [])


def test_the_checker_catches_an_upward_import(tmp_path):
    """The rule can fail: an upward, a root and a function-local import are all reported."""
    source = (
        "from rankaudit.report.results import write_results\n"
        "import rankaudit\n"
        "def f():\n    from rankaudit.measures.row_metrics import ndcg_at_k\n"
    )
    tree = ast.parse(source)
    found = list(package_imports(tree, "rankaudit.data.example", False))
    assert [(t, top) for t, _, top in found] == [
        ("rankaudit.report.results", True),
        ("rankaudit", True),
        ("rankaudit.measures.row_metrics", False),
    ]
    assert layer_of("rankaudit.report.results") > layer_of("rankaudit.data.example")


def test_every_module_declares_all():
    missing = []
    for path in sorted(SRC.rglob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        names = {
            t.id
            for node in tree.body
            if isinstance(node, (ast.Assign, ast.AnnAssign))
            for t in (node.targets if isinstance(node, ast.Assign) else [node.target])
            if isinstance(t, ast.Name)
        }
        if "__all__" not in names:
            missing.append(str(path.relative_to(SRC.parent)))
    assert not missing, f"modules without __all__: {missing}"


ISSUE_REFERENCE = re.compile(r"\bissues? *#?\d+", re.IGNORECASE)


@pytest.mark.parametrize("text", ["see issue 7", "Issue #12 asks", "issues 6"])
def test_issue_pattern_matches(text):
    assert ISSUE_REFERENCE.search(text)


def test_no_issue_numbers_in_code():
    """Code explains itself; it does not point at a tracker the reader may not have."""
    hits = [
        f"{p.relative_to(SRC.parent)}:{i}"
        for p in sorted(SRC.rglob("*.py"))
        for i, line in enumerate(p.read_text(encoding="utf-8").splitlines(), 1)
        if ISSUE_REFERENCE.search(line)
    ]
    assert not hits, hits
