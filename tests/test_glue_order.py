"""Words are computed before they are used: in every chapter, the first markdown cell that uses a
glued name (``{glue:text}`name```, ``{glue}`name```, a ``{glue:figure} name`` directive, ...)
comes after the code cell that glues it.

The check is static: no chapter is executed. The names a code cell glues are read from its
``glue``/``glue_many`` calls with :mod:`ast`:

- ``glue("name", ...)``, ``glue_many(name=...)`` and ``glue_words(name=...)`` glue that name;
- an f-string name (``glue(f"env_{key}", ...)``, a dict comprehension keyed ``f"{score}_io"``)
  glues every name that fits its pattern (each ``{...}`` stands for one or more characters);
- a name bound by ``for key in ("a", "b")`` is each of those strings;
- ``**mapping`` glues the keys of the mapping, followed to what builds it: a dict display, a
  comprehension (its key, or ``for key, v in other.items()``: the keys of ``other``), a variable
  (its assignments in the notebook), or a call of a function defined in the notebook or in
  ``src/`` (every key its body writes: dict displays, comprehensions, ``out[key] = ...``).

A call whose names cannot be followed fails the test: the chapter must glue so a reader (and
this test) can tell which names a cell computes. A name is matched to the cells that glue it
exactly first, and only when none does, to the cells whose most specific pattern (the most
fixed text) fits it.
"""

from __future__ import annotations

import ast
import re
from functools import cache
from pathlib import Path

import pytest

from tests.notebook_cells import MYST_HEADER, NOTEBOOKS, ROOT, chapter_stems, glue_calls

#: A glue role in running text, ``{glue}`name``` or ``{glue:text}`name:.4f```: the name.
_ROLE = re.compile(r"\{glue(?::[a-z]+)?\}`([^`:]+)")
#: A glue directive, ``{glue:figure} name`` or ``{glue:math} name`` after its fence.
_DIRECTIVE = re.compile(r"^\s*(?:`{3,}|:{3,})\{glue(?::[a-z]+)?\}\s+(\S+)", re.MULTILINE)

SRC = ROOT / "src"


def used_names(markdown: str) -> list[str]:
    """The glue names a markdown cell uses, in order of first appearance."""
    found = [(m.start(), m.group(1)) for m in _ROLE.finditer(markdown)]
    found += [(m.start(), m.group(1)) for m in _DIRECTIVE.finditer(markdown)]
    return list(dict.fromkeys(name.strip() for _, name in sorted(found)))


def _pattern(node: ast.JoinedStr) -> str:
    """An f-string as a regular expression: each ``{...}`` one or more characters."""
    return "".join(re.escape(v.value) if isinstance(v, ast.Constant) else ".+" for v in node.values)


class Unresolved(Exception):
    """The names a glue call glues cannot be read from the source."""


class Keys:
    """The names glued by one code cell: exact names and f-string patterns."""

    def __init__(self) -> None:
        self.exact: set[str] = set()
        self.patterns: set[str] = set()

    def add_key(self, node: ast.AST, scope: _Scope) -> None:
        """One name expression: a string, an f-string, or a name bound to strings."""
        if isinstance(node, ast.Constant) and isinstance(node.value, str):
            self.exact.add(node.value)
        elif isinstance(node, ast.JoinedStr):
            self._f_string(node, scope)
        elif isinstance(node, ast.Name):
            scope.bound(node.id, self)
        else:
            raise Unresolved(f"name expression {ast.unparse(node)!r}")

    def _f_string(self, node: ast.JoinedStr, scope: _Scope) -> None:
        """An f-string with one ``{name}`` bound to known strings is those names
        (``f"paper_{key}" for key in PAPER_AMAZON``); any other is a pattern."""
        slots = [v for v in node.values if isinstance(v, ast.FormattedValue)]
        if len(slots) == 1 and isinstance(slots[0].value, ast.Name) and not slots[0].format_spec:
            found = Keys()
            try:
                scope.bound(slots[0].value.id, found)
            except Unresolved:
                found.patterns.add("unresolved")
            if found.exact and not found.patterns:
                for value in found.exact:
                    self.exact.add(
                        "".join(
                            v.value if isinstance(v, ast.Constant) else value for v in node.values
                        )
                    )
                return
        self.patterns.add(_pattern(node))

    def add_mapping(self, node: ast.AST, scope: _Scope) -> None:
        """The keys of a mapping expression, followed to what builds it."""
        if isinstance(node, ast.Dict):
            for k, v in zip(node.keys, node.values, strict=True):
                self.add_key(k, scope) if k is not None else self.add_mapping(v, scope)
        elif isinstance(node, ast.DictComp):
            self.add_key(node.key, _Scope(scope.trees, node, scope))
        elif isinstance(node, ast.Name):
            scope.assigned(node.id, self)
        elif isinstance(node, ast.Call):
            _called(node, scope, self)
        else:
            raise Unresolved(f"mapping {ast.unparse(node)!r}")


class _Scope:
    """Where a name is looked up: the comprehension or cell around it, then the notebook."""

    def __init__(self, trees: list[ast.AST], node: ast.AST, parent: _Scope | None = None):
        self.trees, self.node, self.parent = trees, node, parent

    def _loops(self):
        """``(target, iterable)`` of every ``for`` in this scope (loops and comprehensions)."""
        for n in ast.walk(self.node):
            if isinstance(n, (ast.For, ast.comprehension)):
                yield n.target, n.iter

    def bound(self, name: str, keys: Keys) -> None:
        """The strings ``name`` takes: a loop over literal strings, or the keys of an
        ``.items()`` it unpacks."""
        for target, it in self._loops():
            if isinstance(target, ast.Name) and target.id == name:
                if isinstance(it, (ast.Tuple, ast.List)) and all(
                    isinstance(e, ast.Constant) and isinstance(e.value, str) for e in it.elts
                ):
                    keys.exact |= {e.value for e in it.elts}
                    return
            if (
                isinstance(target, ast.Tuple)
                and target.elts
                and isinstance(target.elts[0], ast.Name)
                and target.elts[0].id == name
                and isinstance(it, ast.Call)
                and isinstance(it.func, ast.Attribute)
                and it.func.attr == "items"
            ):
                keys.add_mapping(it.func.value, self)
                return
        if self.parent is not None:
            return self.parent.bound(name, keys)
        raise Unresolved(f"the strings bound to {name!r}")

    def assigned(self, name: str, keys: Keys) -> None:
        """The keys of every mapping assigned to ``name`` in the notebook."""
        values = [
            n.value
            for tree in self.trees
            for n in ast.walk(tree)
            if isinstance(n, ast.Assign)
            and any(isinstance(t, ast.Name) and t.id == name for t in n.targets)
        ]
        if not values:
            values = _imported(name, self.trees)
        if not values:
            raise Unresolved(f"the mapping {name!r}")
        for value in values:
            keys.add_mapping(value, self)


def _imported(name: str, trees: list[ast.AST]) -> list[ast.AST]:
    """The module-level value of ``name`` where the notebook imports it from under ``src/``."""
    for tree in trees:
        for n in ast.walk(tree):
            if isinstance(n, ast.ImportFrom) and any(a.name == name for a in n.names):
                path = SRC / f"{(n.module or '').replace('.', '/')}.py"
                if not path.is_file():
                    continue
                return [
                    a.value
                    for a in ast.parse(path.read_text(encoding="utf-8")).body
                    if isinstance(a, ast.Assign)
                    and any(isinstance(t, ast.Name) and t.id == name for t in a.targets)
                ]
    return []


@cache
def _src_functions(package: str) -> dict[str, list[ast.FunctionDef]]:
    """Every function and method defined in ``src/<package>``, by name."""
    out: dict[str, list[ast.FunctionDef]] = {}
    for path in sorted((SRC / package).rglob("*.py")):
        for n in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(n, ast.FunctionDef):
                out.setdefault(n.name, []).append(n)
    return out


def _body_keys(body: ast.AST, keys: Keys) -> None:
    """Keys written in a body: dict displays, comprehension keys and ``out[key] = ...``
    (string and f-string keys only; an over-approximation of what it returns)."""
    for n in ast.walk(body):
        written = []
        if isinstance(n, ast.Dict):
            written = [k for k in n.keys if k is not None]
        elif isinstance(n, ast.DictComp):
            written = [n.key]
        elif isinstance(n, ast.Subscript) and isinstance(n.ctx, ast.Store):
            written = [n.slice]
        for k in written:
            if isinstance(k, ast.Constant) and isinstance(k.value, str):
                keys.exact.add(k.value)
            elif isinstance(k, ast.JoinedStr):
                keys.patterns.add(_pattern(k))


def _called(call: ast.Call, scope: _Scope, keys: Keys) -> None:
    """The keys of the mapping a call returns (see the module docstring); a function is looked
    up in the notebook, then in ``rankbook``, then in ``rankaudit``."""
    f = call.func
    name = f.id if isinstance(f, ast.Name) else f.attr if isinstance(f, ast.Attribute) else ""
    defs = (
        [
            n
            for tree in scope.trees
            for n in ast.walk(tree)
            if isinstance(n, ast.FunctionDef) and n.name == name
        ]
        or _src_functions("rankbook").get(name, [])
        or _src_functions("rankaudit").get(name, [])
    )
    if len(defs) != 1:
        raise Unresolved(f"the mapping {ast.unparse(call)!r} returns")
    _body_keys(defs[0], keys)


def _parse(source: str) -> ast.Module:
    """A cell's AST, IPython magics (``%``, ``!`` lines) blanked."""
    lines = ["" if s.lstrip().startswith(("%", "!")) else s for s in source.splitlines()]
    return ast.parse("\n".join(lines))


def glued_keys(tree: ast.AST, trees: list[ast.AST]) -> Keys:
    """The names one code cell glues (``trees``: every code cell, to follow variables)."""
    keys = Keys()
    scope = _Scope(trees, tree)
    for call in glue_calls(tree):
        f = call.func
        fname = f.id if isinstance(f, ast.Name) else f.attr  # type: ignore[union-attr]
        if fname == "glue":
            name = (
                call.args[0]
                if call.args
                else next((k.value for k in call.keywords if k.arg == "name"), None)
            )
            if name is None:
                raise Unresolved(f"glue call without a name: {ast.unparse(call)!r}")
            keys.add_key(name, scope)
            continue
        for kw in call.keywords:
            if kw.arg is not None:
                keys.exact.add(kw.arg)
            else:
                keys.add_mapping(kw.value, scope)
    return keys


def _literal(pattern: str) -> int:
    """How much of a pattern is fixed text: the more, the more specific."""
    return len(pattern.replace(".+", ""))


def _fitting(name: str, glued: list[tuple[int, Keys]]) -> list[int]:
    """The cells whose most specific pattern fits ``name`` (``paper_.+`` over ``.+_hash`` for
    ``paper_ndcg_hash``)."""
    fits = [(_literal(p), i) for i, k in glued for p in k.patterns if re.fullmatch(p, name)]
    best = max((n for n, _ in fits), default=0)
    return sorted({i for n, i in fits if n == best})


def out_of_order(notebook: str | Path) -> list[str]:
    """Every glue name whose first use comes before (or without) the cell that glues it."""
    import jupytext

    nb = (
        jupytext.read(notebook)
        if isinstance(notebook, Path)
        else jupytext.reads(notebook, fmt="md:myst")
    )
    code = [(i, _parse(c.source)) for i, c in enumerate(nb.cells) if c.cell_type == "code"]
    trees = [t for _, t in code]
    glued = [(i, glued_keys(t, trees)) for i, t in code]
    first_use: dict[str, int] = {}
    for i, c in enumerate(nb.cells):
        if c.cell_type == "markdown":
            for name in used_names(c.source):
                first_use.setdefault(name, i)
    problems = []
    for name, used in first_use.items():
        at = [i for i, k in glued if name in k.exact] or _fitting(name, glued)
        if not at:
            problems.append(f"{name}: used in cell {used}, glued by no code cell")
        elif min(at) > used:
            problems.append(f"{name}: used in cell {used}, glued in cell {min(at)}")
    return problems


_SYNTHETIC = (
    MYST_HEADER
    + """
Early: {glue:text}`late:.2f`.

```{code-cell} ipython3
:tags: [remove-cell]

glue("fine", 1)
for key in ("a_1", "a_2"):
    glue(key, 2)
pairs = {f"{s}_io": 1 for s in "xy"}
glue_many(late=3, **pairs, **{k: v for k, v in {"from_items": 4}.items()})
```

Later: {glue:text}`a_2`, {glue:text}`z_io:.4f`, {glue:text}`from_items` and {glue:text}`never`.

```{glue:figure} fig_b
:name: fig-b
```

```{code-cell} ipython3
:tags: [remove-cell]

glue("fig_b", 5)
```
"""
)


def test_the_check_catches_words_used_before_they_are_computed():
    """The check can fail: a role before its cell, a name nothing glues and a glue directive
    are found; a loop over literal names, an f-string pattern and a followed mapping are not."""
    assert out_of_order(_SYNTHETIC) == [
        "late: used in cell 0, glued in cell 1",
        "never: used in cell 2, glued by no code cell",
        "fig_b: used in cell 2, glued in cell 3",
    ]


def test_a_mapping_that_cannot_be_followed_fails():
    text = MYST_HEADER + "\n```{code-cell} ipython3\nglue_many(**load())\n```\n"
    with pytest.raises(Unresolved):
        out_of_order(text)


@pytest.mark.parametrize("stem", chapter_stems())
def test_every_word_is_computed_before_its_first_use(stem):
    """No waiver: every chapter glues each word in a cell before the first text that uses it."""
    problems = out_of_order(NOTEBOOKS / f"{stem}.md")
    assert not problems, f"{stem}: glue names used before they are computed\n" + "\n".join(
        f"  {p}" for p in problems
    )
