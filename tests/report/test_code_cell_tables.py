"""A table a code cell shows prints its numbers through the book's one formatter.

pandas' own printing shows a float column unrounded ("0.956667": six decimals, its default
precision), and a column of mixed types (``astype(object)``, a transposed dict of flags and
numbers) with one precision per cell ("1.0" beside "0.2333"); a significant-digit spec (".2g")
prints 1.98 as "2". :func:`rankbook.report.tables.display_frame` prints every float of a column
at one stated precision (tiny values in powers of ten), counts with separators, and "—" where
there is no value. The scans below find each artefact in an executed notebook's HTML tables;
the last tests run them over the smoke-executed chapters whose code-cell tables were fixed.
"""

from __future__ import annotations

import json
import re

import pandas as pd
import pytest

from rankbook.report.tables import display_frame
from tests.conftest import ROOT
from tests.notebook_cells import code_cells, html_outputs

_TABLE = re.compile(r"<table\b.*?</table>", re.S)
_ROW = re.compile(r"<tr\b.*?</tr>", re.S)
_DATA = re.compile(r"<td\b[^>]*>(.*?)</td>", re.S)
#: A plain decimal number as pandas prints it ("-0.956667", "1.0", "22146"): no separators.
_DECIMAL = re.compile(r"-?\d+\.(\d+)")
#: pandas' default display precision: a float printed with six decimals was never rounded.
_UNROUNDED = 6

#: Chapters whose code-cell tables go through display_frame (checked on their smoke run).
FIXED = (
    "02_random_tie_expectation",
    "03_tie_breaking_rules",
    "06_amazon_audit",
    "07_hash_seeds_vs_expectation",
    "15_audit_your_run",
)


def _text(cell: str) -> str:
    return re.sub(r"<[^>]+>", "", cell).strip()


def raw_table_cells(notebook: dict) -> list[str]:
    """Table cells in pandas' raw print: a float with six or more decimals, or a column whose
    decimal numbers are printed at different precisions (its cells joined with " | ")."""
    found = []
    for html in html_outputs(notebook):
        for table in _TABLE.findall(html):
            columns: dict[int, list[str]] = {}
            for row in _ROW.findall(table):
                for j, text in enumerate(_text(c) for c in _DATA.findall(row)):
                    columns.setdefault(j, []).append(text)
            for texts in columns.values():
                decimals = [m for m in map(_DECIMAL.fullmatch, texts) if m is not None]
                found += [m.group(0) for m in decimals if len(m.group(1)) >= _UNROUNDED]
                if len({len(m.group(1)) for m in decimals}) > 1:
                    found.append(" | ".join(m.group(0) for m in decimals))
    return found


def _notebook(frame: pd.DataFrame) -> dict:
    return {"cells": [{"outputs": [{"data": {"text/html": frame._repr_html_()}}]}]}


def test_the_scan_finds_pandas_raw_print_and_passes_display_frame():
    unrounded = pd.DataFrame({"value": [0.956667123, 0.32]})
    assert raw_table_cells(_notebook(unrounded)) == ["0.956667", "0.320000"]
    mixed = pd.DataFrame({"flag": [True, False], "change": [1.0, 0.2333]}).astype(object)
    assert raw_table_cells(_notebook(mixed)) == ["1.0 | 0.2333"]
    for frame in (unrounded, mixed):
        assert raw_table_cells(_notebook(display_frame(frame, 4))) == []
    counts = pd.DataFrame({"n": [300, 22146], "share": [0.89, 1e-17]})
    assert raw_table_cells(_notebook(display_frame(counts, 2))) == []


#: A significant-digit format spec passed to a table formatter: ".2g" prints 1.98 as "2".
_G_SPEC = re.compile(r"""\b(?:format_frame|format_values)\([^)]*["']\.\d*g["']""", re.S)


def test_the_g_spec_scan_can_fail():
    assert _G_SPEC.search('format_frame(summary, ".2g")')
    assert not _G_SPEC.search("display_frame(summary, 2)")


CHAPTERS = sorted((ROOT / "notebooks").glob("[0-9][0-9]_*.md"))


@pytest.mark.parametrize("path", CHAPTERS, ids=[p.stem for p in CHAPTERS])
def test_no_code_cell_table_is_formatted_to_significant_digits(path):
    found = [c.number for c in code_cells(path) if _G_SPEC.search(c.source)]
    assert not found, f"{path.stem}: code cells {found} format a table with a 'g' spec"


@pytest.mark.parametrize("name", FIXED)
def test_the_fixed_chapters_show_no_raw_pandas_table(smoke_book, name):
    assert name not in smoke_book.failures, smoke_book.failures.get(name)
    notebook = json.loads((smoke_book.paths.executed / f"{name}.ipynb").read_text())
    found = raw_table_cells(notebook)
    assert not found, f"{name}: tables in pandas' raw print (display_frame): {found[:5]}"
