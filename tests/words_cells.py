"""A chapter's words, read from its own cells: the hidden cells tagged ``words``.

A chapter computes the words of a paragraph in a hidden cell right before it::

    ```{code-cell} ipython3
    :tags: [remove-cell, words]

    from rankbook.report.prose import direction_word

    b = results["boundary_ties"]
    glue_words(k1_direction=direction_word(b["share_at_1"] - b["share_at_k"],
                                           words=("goes up", "goes down", "stays the same")))
    ```

The cell reads only ``results`` (the dict the page records in its results file, filled as the
page goes), the prose and decision functions it imports, names it binds itself and a few
builtins, and glues with ``glue_words``; it has no ``if`` (a word is chosen by a prose or decision
function, the alternatives visible in the call) and no string that is not an argument of a call
or a key. :func:`words_cell_rules` checks that statically.

Because of those rules the cells can be run again on the results file alone:
:func:`words_function` runs a chapter's words cells in order on a results dict and returns every
word they glue (the chapter's page words), and :func:`read_paths` finds, by running them on a
dict that records each read, the results values the words depend on (so no list of
dependencies is written by hand). ``tests/report/test_page_words.py`` checks that the executed
page glued exactly these words and that each value read flips some word when moved.
"""

from __future__ import annotations

import ast
import builtins
from collections.abc import Callable, Iterator, Mapping, Sequence
from functools import cache
from pathlib import Path
from typing import Any

from tests.notebook_cells import NOTEBOOKS, CodeCell, Finding, code_cells

__all__ = [
    "ALLOWED_MODULES",
    "WORDS_TAG",
    "read_paths",
    "words_cell_rules",
    "words_cells",
    "words_chapters",
    "words_function",
]

#: The tag of a words cell (besides ``remove-cell``, which hides it).
WORDS_TAG = "words"

#: The modules a words cell may import from: the prose and decision functions.
ALLOWED_MODULES = frozenset(
    {
        "rankbook.report.prose",
        "rankbook.report.prose_limits",
        "rankbook.report.prose_rules",
        "rankbook.report.decision",
        "rankaudit.runs.decision",
    }
)

#: Builtins a words cell may call (arithmetic over the results' numbers).
_BUILTINS = frozenset(
    {"abs", "min", "max", "sum", "len", "round", "float", "int", "sorted", "range", "zip", "all",
     "any", "enumerate", "dict", "list", "tuple", "bool", "ValueError"}
)
#: The names a words cell finds bound: the results dict and the glue function.
_GIVEN = frozenset({"results", "glue_words"})


def words_cells(stem: str, notebooks: Path = NOTEBOOKS) -> list[CodeCell]:
    """The words cells of chapter ``stem``, in page order."""
    return [c for c in code_cells(notebooks / f"{stem}.md") if WORDS_TAG in c.tags]


def words_chapters(notebooks: Path = NOTEBOOKS) -> list[str]:
    """The chapters that compute their words in words cells."""
    return sorted(p.stem for p in notebooks.glob("*.md") if words_cells(p.stem, notebooks))


def _bound_names(tree: ast.AST) -> set[str]:
    """Names a cell binds: assignments, loop and comprehension targets, imports, functions."""
    out: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
            out.add(node.id)
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            out |= {(a.asname or a.name).split(".")[0] for a in node.names}
        elif isinstance(node, (ast.FunctionDef, ast.Lambda)):
            args = node.args
            out |= {a.arg for a in args.posonlyargs + args.args + args.kwonlyargs}
            if isinstance(node, ast.FunctionDef):
                out.add(node.name)
    return out


def _string_parents(tree: ast.AST) -> Iterator[tuple[ast.Constant, ast.AST]]:
    """Every string literal with its parent node."""
    for parent in ast.walk(tree):
        for child in ast.iter_child_nodes(parent):
            if isinstance(child, ast.Constant) and isinstance(child.value, str):
                yield child, parent


def _in_call_arguments(node: ast.AST, tree: ast.AST) -> bool:
    """True when ``node`` sits inside the arguments of a call (a word's alternatives, a tuple of
    them, or a keyword of a prose function)."""
    for call in ast.walk(tree):
        if isinstance(call, ast.Call) and call is not node:
            for arg in [*call.args, *(k.value for k in call.keywords)]:
                if any(sub is node for sub in ast.walk(arg)):
                    return True
    return False


def words_cell_rules(cell: CodeCell) -> list[Finding]:
    """What a words cell does that the words rules forbid: an ``if`` (statement or expression),
    an import from outside :data:`ALLOWED_MODULES`, a name that is neither ``results``,
    ``glue_words``, a name the cell binds nor an allowed builtin (a chapter variable: the words
    would then depend on more than the results file), a string that is not a call's argument, a
    subscript or a docstring, and an f-string or string template."""
    tree = ast.parse(cell.source)
    found: list[Finding] = []
    bound = _bound_names(tree)
    for node in ast.walk(tree):
        if isinstance(node, (ast.If, ast.IfExp)):
            found.append(Finding(cell.number, node.lineno, "an if chooses in a words cell"))
        elif isinstance(node, ast.ImportFrom) and node.module not in ALLOWED_MODULES:
            found.append(Finding(cell.number, node.lineno, f"imports from {node.module}"))
        elif isinstance(node, ast.Import):
            found.append(Finding(cell.number, node.lineno, "imports a module whole"))
        elif isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load):
            if node.id not in bound | _GIVEN | _BUILTINS:
                found.append(
                    Finding(cell.number, node.lineno, f"reads {node.id!r}, not from results")
                )
        elif isinstance(node, ast.JoinedStr):
            found.append(Finding(cell.number, node.lineno, "an f-string builds text"))
    for const, parent in _string_parents(tree):
        is_key = isinstance(parent, ast.Dict) and any(k is const for k in parent.keys)
        if isinstance(parent, ast.Subscript) or is_key:
            continue
        if _in_call_arguments(const, tree):
            continue
        found.append(Finding(cell.number, const.lineno, f"a string {const.value!r} outside a call"))
    return sorted(set(found), key=lambda f: (f.cell, f.line, f.what))


@cache
def _compiled(stem: str, notebooks: Path) -> tuple[Any, ...]:
    return tuple(
        compile(c.source, f"{stem}.md: words cell {c.number}", "exec")
        for c in words_cells(stem, notebooks)
    )


def _literals(stem: str, notebooks: Path) -> dict[str, float]:
    """The numbers written in the chapter's words cells (a tolerance, a budget): thresholds the
    flip test's moves must cross, like the decision module's."""
    out: dict[str, float] = {}
    for cell in words_cells(stem, notebooks):
        for node in ast.walk(ast.parse(cell.source)):
            if (
                isinstance(node, ast.Constant)
                and isinstance(node.value, (int, float))
                and not isinstance(node.value, bool)
                and node.value not in (0, 1)
            ):
                out[f"cell {cell.number}: {node.value!r}"] = float(node.value)
    return out


def words_function(
    stem: str, notebooks: Path = NOTEBOOKS
) -> Callable[[Mapping[str, Any]], dict[str, str]]:
    """``words(results) -> {name: word}``: chapter ``stem``'s words cells run in order on
    ``results`` (a fresh namespace each call, ``glue_words`` recording what they glue). The
    function's ``thresholds`` attribute holds the numbers the cells state
    (:func:`tests.report.test_page_words.module_thresholds` reads it)."""
    code = _compiled(stem, notebooks)
    if not code:
        raise ValueError(f"stem: chapter {stem!r} has no cell tagged {WORDS_TAG!r}")

    def words(results: Mapping[str, Any]) -> dict[str, str]:
        glued: dict[str, str] = {}

        def glue_words(**kw: str) -> None:
            for name, word in kw.items():
                if not isinstance(word, str):
                    raise TypeError(f"{stem}: {name}= glued a {type(word).__name__}, not a word")
                glued[name] = word

        namespace = {"results": results, "glue_words": glue_words, "__builtins__": builtins}
        for block in code:
            exec(block, namespace)  # noqa: S102 - the chapter's own cells, run on its results
        return glued

    words.__qualname__ = words.__name__ = f"words_of_{stem}"
    words.thresholds = _literals(stem, notebooks)  # type: ignore[attr-defined]
    return words


# --- the values the words read, found by reading them -----------------------------------------


class _Reads:
    """The leaf paths read through a :func:`_track`-ed value, in first-read order."""

    def __init__(self) -> None:
        self.paths: dict[tuple, None] = {}


def _track(value: Any, path: tuple, reads: _Reads) -> Any:
    if isinstance(value, Mapping):
        return _TrackedMapping(value, path, reads)
    if isinstance(value, list):
        return _TrackedList(value, path, reads)
    reads.paths[path] = None
    return value


class _TrackedMapping(Mapping):
    def __init__(self, data: Mapping, path: tuple, reads: _Reads) -> None:
        self._data, self._path, self._reads = data, path, reads

    def __getitem__(self, key: Any) -> Any:
        return _track(self._data[key], (*self._path, key), self._reads)

    def __iter__(self) -> Iterator:
        return iter(self._data)

    def __len__(self) -> int:
        return len(self._data)


class _TrackedList(Sequence):
    def __init__(self, data: list, path: tuple, reads: _Reads) -> None:
        self._data, self._path, self._reads = data, path, reads

    def __getitem__(self, i: Any) -> Any:
        if isinstance(i, slice):
            return [self[j] for j in range(*i.indices(len(self._data)))]
        j = i + len(self._data) if i < 0 else i
        return _track(self._data[i], (*self._path, j), self._reads)

    def __len__(self) -> int:
        return len(self._data)


def _as_depends(path: tuple) -> tuple:
    """A read path as the flip test's ``(key, index, field)``: a top-level value is
    ``(None, None, field)``, one level down ``(key, None, field)``, deeper ``(key, index,
    field)`` with ``index`` one step or a tuple of steps."""
    if len(path) == 1:
        return (None, None, path[0])
    if len(path) == 2:
        return (path[0], None, path[1])
    middle = path[1:-1]
    return (path[0], middle[0] if len(middle) == 1 else tuple(middle), path[-1])


def _intervals(paths: list[tuple]) -> list[tuple]:
    """Paths with each interval's two ends (fields ``<p>low`` and ``<p>high`` of one record, both
    read) merged into one ``(key, index, (low, high))`` entry, which the flip test moves as a
    whole."""
    out: list[tuple] = []
    seen = set(paths)
    for key, index, field in paths:
        if isinstance(field, str) and field.endswith("low"):
            high = field[: -len("low")] + "high"
            if (key, index, high) in seen:
                out.append((key, index, (field, high)))
                continue
        if isinstance(field, str) and field.endswith("high"):
            low = field[: -len("high")] + "low"
            if (key, index, low) in seen:
                continue
        out.append((key, index, field))
    return out


def read_paths(
    words: Callable[[Mapping[str, Any]], dict[str, str]], results: Mapping[str, Any]
) -> list[tuple]:
    """The results values ``words`` reads, as the flip test's dependency paths (intervals
    merged): found by running ``words`` on ``results`` wrapped to record each read."""
    reads = _Reads()
    words(_track(results, (), reads))
    return _intervals([_as_depends(p) for p in reads.paths])
