"""No stray output under "Parameters" (issue #35 item 5: a lone "10" sat there on chapter pages).

The cause was a bare expression ending a cell of the Parameters section (the quickstart's
``Int(...).check("k", ...)``, whose value IPython displayed). Two checks: on the source, no code
cell of a chapter's Parameters section ends in a bare expression other than ``None``; on an
executed notebook, no code cell of that section has an output a reader sees (stderr is removed
from the site by ``nb_output_stderr: remove``).
"""

from __future__ import annotations

import ast
import re

import pytest

from tests.notebook_cells import NOTEBOOKS, chapter_stems

__all__ = ["parameters_section", "shown_outputs", "trailing_expression"]


def parameters_section(cells: list) -> list:
    """The code cells from the ``## Parameters`` heading to the next heading."""
    out, inside = [], False
    for cell in cells:
        if cell["cell_type"] == "markdown":
            heads = re.findall(r"^#{1,6}\s+(.*)$", cell["source"], flags=re.M)
            if heads:
                inside = heads[-1].strip() == "Parameters"
            continue
        if inside:
            out.append(cell)
    return out


def trailing_expression(source: str) -> bool:
    """Whether the cell's last statement is an expression IPython would display."""
    body = ast.parse(source).body
    if not body or not isinstance(body[-1], ast.Expr) or source.rstrip().endswith(";"):
        return False
    value = body[-1].value
    return not (isinstance(value, ast.Constant) and value.value is None)


def shown_outputs(cell) -> list:
    return [
        o
        for o in cell.get("outputs", [])
        if not (o.get("output_type") == "stream" and o.get("name") == "stderr")
    ]


def test_the_checks_can_fail():
    assert trailing_expression('x = 1\nInt(lo=1).check("k", x)\n')
    assert not trailing_expression('x = Int(lo=1).check("k", 1)\n')
    cells = [
        {"cell_type": "markdown", "source": "## Parameters"},
        {"cell_type": "code", "source": "k = 10", "outputs": []},
        {"cell_type": "code", "source": "k", "outputs": [{"output_type": "execute_result"}]},
        {"cell_type": "markdown", "source": "## The data"},
        {"cell_type": "code", "source": "k", "outputs": [{"output_type": "execute_result"}]},
    ]
    assert [len(shown_outputs(c)) for c in parameters_section(cells)] == [0, 1]


@pytest.mark.parametrize("stem", chapter_stems())
def test_no_bare_expression_under_parameters(stem):
    import jupytext

    nb = jupytext.read(NOTEBOOKS / f"{stem}.md")
    bad = [c.source for c in parameters_section(nb.cells) if trailing_expression(c.source)]
    assert not bad, f"{stem}: a Parameters cell ends in a displayed expression:\n{bad[0][-200:]}"


@pytest.mark.slow
@pytest.mark.parametrize("stem", chapter_stems())
def test_no_output_under_parameters_in_the_executed_chapter(smoke_book, stem):
    import nbformat

    nb = nbformat.read(smoke_book.paths.executed / f"{stem}.ipynb", as_version=4)
    bad = [c for c in parameters_section(nb.cells) if shown_outputs(c)]
    assert not bad, f"{stem}: output under Parameters: {shown_outputs(bad[0])}"
