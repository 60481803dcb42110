"""No table cell a reader sees is cut with "...".

pandas cuts a cell longer than ``display.max_colwidth`` (50 characters by default) to its first
characters and "...". A chapter shows long text (titles, reasons, hyperparameters) inside
``pd.option_context("display.max_colwidth", None)``, and a mapping of hyperparameters as a
``key=value`` list (:func:`rankbook.report.tables.key_value_text`), never as a dict's repr.
The last test reads every smoke-executed chapter's tables (the session's ``smoke_book``).
"""

from __future__ import annotations

import json
import re

import pandas as pd
import pytest

from rankbook.report.pipeline import chapter_names
from rankbook.report.tables import key_value_text
from tests.conftest import ROOT

_CELL = re.compile(r"<t[dh][^>]*>(.*?)</t[dh]>", re.S)


def cut_cells(notebook: dict) -> list[str]:
    """The HTML table cells of an executed notebook's outputs that end in "..." or "…"."""
    found = []
    for cell in notebook.get("cells", []):
        for output in cell.get("outputs", []):
            html = output.get("data", {}).get("text/html", "")
            html = "".join(html) if isinstance(html, list) else html
            for text in _CELL.findall(html):
                if re.sub(r"<[^>]+>", "", text).strip().endswith(("...", "…")):
                    found.append(text.strip())
    return found


def _notebook(html: str) -> dict:
    return {"cells": [{"outputs": [{"data": {"text/html": html}}]}]}


def test_key_value_text_keeps_every_value():
    params = {"class": "BPR", "k": 32, "max_iter": 5, "learning_rate": 0.01, "seed": 0}
    assert key_value_text(params) == "class=BPR, k=32, max_iter=5, learning_rate=0.01, seed=0"
    assert key_value_text({}) == ""


def test_a_long_cell_is_whole_inside_the_option_context():
    frame = pd.DataFrame({"params": [key_value_text({f"key_{i}": i for i in range(12)})]})
    assert cut_cells(_notebook(frame._repr_html_()))  # pandas' default cuts it
    with pd.option_context("display.max_colwidth", None):
        assert cut_cells(_notebook(frame._repr_html_())) == []


def test_cut_cells_reads_html_tables():
    assert cut_cells(_notebook("<table><tr><td>whole</td><td>cut he...</td></tr></table>")) == [
        "cut he..."
    ]
    assert cut_cells(_notebook("<table><tr><th>p ≤ 0.001</th><td>1.0</td></tr></table>")) == []


@pytest.mark.parametrize("name", chapter_names(ROOT / "notebooks"))
def test_no_smoke_chapter_table_cuts_a_cell(smoke_book, name):
    assert name not in smoke_book.failures, smoke_book.failures.get(name)
    notebook = json.loads((smoke_book.paths.executed / f"{name}.ipynb").read_text())
    found = cut_cells(notebook)
    assert not found, f"{name}: table cells cut with '...': {found[:5]}"
