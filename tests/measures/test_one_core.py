"""One evaluation core: the measure kernels, the tie-rule registry and the expectation formulas
are defined in ``rankaudit.measures`` only; ``ties`` and ``runs`` are adapters onto it."""

from __future__ import annotations

import ast
from pathlib import Path

SRC = Path(__file__).resolve().parents[2] / "src"
KERNEL_NAMES = {
    "list_expected_kernel",
    "list_ordered_kernel",
    "row_expected_kernel",
    "row_ordered_kernel",
    "row_random_kernel",
    "score_order_kernel",
}
RULE_REGISTRIES = {"TIE_RULES", "RUN_TIE_RULES", "RULES", "DETERMINISTIC_RULES"}
#: names of the expectation tables and closed forms; outside the core only as imports
FORMULA_NAMES = {"discount_tables", "harmonic_tables", "list_tables", "single_relevant_means"}


def _modules():
    """Every module of the library and of the compendium (paths relative to ``src``)."""
    for path in sorted(SRC.rglob("*.py")):
        yield path, ast.parse(path.read_text())


def test_each_measure_kernel_is_defined_once_in_the_core():
    where: dict[str, list[str]] = {}
    for path, tree in _modules():
        for node in ast.walk(tree):
            if isinstance(node, ast.FunctionDef) and node.name.endswith("_kernel"):
                where.setdefault(node.name, []).append(str(path.relative_to(SRC)))
    for name in KERNEL_NAMES:
        assert len(where.get(name, [])) == 1, (name, where.get(name))
        assert where[name][0].startswith("rankaudit/measures/"), (name, where[name])
    assert all(len(files) == 1 for files in where.values()), where


def test_tie_rules_are_registered_once():
    defined = []
    for path, tree in _modules():
        for node in tree.body:
            targets = []
            if isinstance(node, ast.Assign):
                targets = [t.id for t in node.targets if isinstance(t, ast.Name)]
            elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
                targets = [node.target.id]
            defined += [(t, str(path.relative_to(SRC))) for t in targets if t in RULE_REGISTRIES]
    assert defined and all(f == "rankaudit/measures/rules.py" for _, f in defined), defined


def test_expectation_formulas_live_in_the_core():
    for path, tree in _modules():
        rel = str(path.relative_to(SRC))
        if rel.startswith("rankaudit/measures/"):
            continue
        for node in ast.walk(tree):
            if isinstance(node, ast.FunctionDef):
                assert node.name not in FORMULA_NAMES, (rel, node.name)
