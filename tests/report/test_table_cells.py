"""No table cell a reader sees is cut with "...", and no count in one is bare.

A count of five or more digits in a displayed table carries thousands separators ("22,146",
never "22146" or "100000.00"): a chapter shows a DataFrame through
:func:`rankbook.report.tables.display_frame`, which prints integers with separators and floats at
a stated precision.

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
from rankbook.report.tables import (
    display_frame,
    format_frame,
    format_values,
    key_value_text,
    p_column,
)
from tests.conftest import ROOT
from tests.notebook_cells import html_outputs

_CELL = re.compile(r"<t[dh][^>]*>(.*?)</t[dh]>", re.S)


def cut_cells(notebook: dict) -> list[str]:
    """The HTML table cells of an executed notebook's outputs that end in "..." or "…"."""
    found = []
    for html in html_outputs(notebook):
        for text in _CELL.findall(html):
            if re.sub(r"<[^>]+>", "", text).strip().endswith(("...", "…")):
                found.append(text.strip())
    return found


#: A number of five or more integer digits without separators ("22146", "100000.00", "-16654.0").
_BARE_COUNT = re.compile(r"-?\d{5,}(?:\.\d+)?")


#: A column of identifiers ("row_id", "item_id", "query id"): a label, not a count.
_ID_HEADER = re.compile(r"(?:^|[_ ])id$", re.I)
_TABLE = re.compile(r"<table\b.*?</table>", re.S)
_ROW = re.compile(r"<tr\b.*?</tr>", re.S)


def _text(cell: str) -> str:
    return re.sub(r"<[^>]+>", "", cell).strip()


def bare_counts(notebook: dict) -> list[str]:
    """The HTML table cells of an executed notebook's outputs that show a number >= 10,000
    without thousands separators (a column headed as an identifier, ``*_id``, left out)."""
    found = []
    for cell in notebook.get("cells", []):
        for output in cell.get("outputs", []):
            html = output.get("data", {}).get("text/html", "")
            html = "".join(html) if isinstance(html, list) else html
            for table in _TABLE.findall(html):
                rows = [[_text(c) for c in _CELL.findall(row)] for row in _ROW.findall(table)]
                header = rows[0] if rows else []
                for row in rows:
                    for j, text in enumerate(row):
                        is_id = j < len(header) and _ID_HEADER.search(header[j])
                        if _BARE_COUNT.fullmatch(text) and not is_id:
                            found.append(text)
    return found


#: Python's exponent format: "5e-05", "2.2e-16", "6.975000e+05".
_EXPONENT = re.compile(r"(?<![\w.])\d+(?:\.\d+)?[eE][+-]?\d+\b")


def exponent_cells(notebook: dict) -> list[str]:
    """The HTML table cells of an executed notebook's outputs that show a number in Python's
    exponent format (a table writes "3.8 × 10⁻¹⁴": :func:`rankbook.report.tables.display_frame`)."""
    found = []
    for cell in notebook.get("cells", []):
        for output in cell.get("outputs", []):
            html = output.get("data", {}).get("text/html", "")
            html = "".join(html) if isinstance(html, list) else html
            found += [_text(c) for c in _CELL.findall(html) if _EXPONENT.search(_text(c))]
    return found


def _notebook(html: str) -> dict:
    return {"cells": [{"outputs": [{"data": {"text/html": html}}]}]}


def test_p_column_prints_the_floor_as_its_bound_never_zero():
    """A p at the floor ``sides / (B + 1)`` of ``B`` draws is printed as that bound with the
    draws named; any other p in three decimals; no value as "—"."""
    cells = p_column([2 / 1001, 0.0132, None], n_perm=1000, unit="bootstrap resamples", sides=2)
    assert cells == ["p ≤ 0.002 (1,000 bootstrap resamples)", "0.013", "—"]
    assert p_column([1 / 201], n_perm=200) == ["p ≤ 0.005 (200 permutations)"]
    assert p_column([0.0, 1e-9], n_perm=5000) == ["p ≤ 0.0002 (5,000 permutations)"] * 2
    assert p_column([3e-5, 0.0, 0.25], n_perm=None) == ["3.0 × 10⁻⁵", "< 2.2 × 10⁻³⁰⁸", "0.250"]


def test_p_column_prints_an_adjusted_p_of_a_floored_row_as_a_bound():
    """An adjusted p whose row's raw p sat at the floor is only an upper bound: "≤", rounded up;
    rows whose raw p is above the floor print their adjusted value as before."""
    floor = 2 / 2001
    cells = p_column([9 * floor, 0.0451, 1.0], n_perm=2000, sides=2, raw=[floor, 0.005, 0.3])
    assert cells == ["≤ 0.009", "0.045", "1.000"]
    assert p_column([0.01201], n_perm=999, raw=[1 / 1000]) == ["≤ 0.013"]  # up, never down
    assert p_column([0.02], n_perm=999, raw=[0.002]) == ["0.020"]
    # Holm's step-down maximum: the fourth row's own term (1 x 0.004) is below the floored
    # rows' 4 x floor, so its adjusted value is theirs, a bound as well
    assert (
        p_column([4 * floor] * 4, n_perm=2000, sides=2, raw=[floor] * 3 + [0.004])
        == ["≤ 0.004"] * 4
    )
    with pytest.raises(ValueError, match="raw has 1 p-values for 2 rows"):
        p_column([0.1, 0.2], n_perm=999, raw=[0.1])


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


def test_display_frame_prints_counts_with_separators_and_floats_at_their_precision():
    frame = pd.DataFrame(
        {
            "count": [100000.0, 512.0],
            "rows": [22146, 7],
            "mean": [0.123456, float("nan")],
            "tiny": [5e-5, 0.0],
            "name": ["a", None],
            "flag": [True, False],
        },
        index=pd.Index([10000, 20000], name="n_sessions"),
    )
    shown = display_frame(frame, {"mean": 2}, counts=["count"])
    assert shown.to_dict("list") == {
        "count": ["100,000", "512"],
        "rows": ["22,146", "7"],
        "mean": ["0.12", "—"],
        "tiny": ["5.0 × 10⁻⁵", "0.000"],
        "name": ["a", "—"],
        "flag": ["yes", "no"],
    }
    assert shown.index.tolist() == ["10,000", "20,000"] and shown.index.name == "n_sessions"
    assert display_frame(frame[["mean"]], 1)["mean"].tolist() == ["0.1", "—"]


def test_display_frame_names_what_it_refuses():
    frame = pd.DataFrame({"count": [1.5], "x": [1.0]})
    with pytest.raises(ValueError, match="counts column 'count'"):
        display_frame(frame, counts=["count"])
    with pytest.raises(ValueError, match="counts names \\['rows'\\]"):
        display_frame(frame, counts=["rows"])
    with pytest.raises(ValueError, match="digits names"):
        display_frame(frame, {"y": 2})
    with pytest.raises(ValueError, match="digits"):
        display_frame(frame, -1)
    with pytest.raises(ValueError, match="frame must be a pandas DataFrame"):
        display_frame(frame.x)


def test_format_values_writes_no_exponent():
    assert format_values([2.2e-16, 1e-16, 1.2, None, 0.0], ".2g") == [
        "2.2 × 10⁻¹⁶",
        "10⁻¹⁶",
        "1.2",
        "—",
        "0",
    ]
    assert format_values([3.781155e-14], ".3e") == ["3.781 × 10⁻¹⁴"]
    # a value the spec would round to a signed zero: its sign and size, never "-0.0000"
    assert format_values([-1e-5, -0.0, -0.00004], ".4f") == [
        "-1.0 × 10⁻⁵",
        "0.0000",
        "-4.0 × 10⁻⁵",
    ]
    assert format_values([-0.2], ".0%") == ["-20%"]
    frame = pd.DataFrame({"nDCG@k": [2.2e-16, 2.4]}, index=["max gap", "max |z|"])
    assert format_frame(frame, ".2g")["nDCG@k"].tolist() == ["2.2 × 10⁻¹⁶", "2.4"]


def test_bare_counts_reads_html_tables():
    frame = pd.DataFrame({"rows": [22146, 512], "share": [0.25, 100000.0]}, index=["a", "b"])
    assert sorted(bare_counts(_notebook(frame._repr_html_()))) == ["100000.00", "22146"]
    assert bare_counts(_notebook(display_frame(frame)._repr_html_())) == []
    ids = pd.DataFrame({"row_id": [0, 0], "item_id": [85064, 92983], "score": [1.0, 2.0]})
    assert bare_counts(_notebook(ids._repr_html_())) == []  # identifiers, not counts
    assert bare_counts(_notebook(ids.rename(columns={"item_id": "items"})._repr_html_())) == [
        "85064",
        "92983",
    ]


def test_exponent_cells_reads_html_tables():
    frame = pd.DataFrame({"value": [0.0, 697500.0, 3.781155e-14]})
    assert exponent_cells(_notebook(frame._repr_html_())) == [
        "0.000000e+00",
        "6.975000e+05",
        "3.781155e-14",
    ]
    shown = display_frame(pd.Series([0, 697500, 3.781155e-14], dtype=object).to_frame("value"))
    assert exponent_cells(_notebook(shown._repr_html_())) == []


def _executed(smoke_book, name: str) -> dict:
    """Chapter ``name``'s smoke-executed notebook (the chapter must have run)."""
    assert name not in smoke_book.failures, smoke_book.failures.get(name)
    return json.loads((smoke_book.paths.executed / f"{name}.ipynb").read_text())


@pytest.mark.parametrize("name", chapter_names(ROOT / "notebooks"))
def test_no_smoke_chapter_table_writes_an_exponent(smoke_book, name):
    notebook = _executed(smoke_book, name)
    found = exponent_cells(notebook)
    assert not found, f"{name}: numbers in exponent format (display_frame): {found[:5]}"


@pytest.mark.parametrize("name", chapter_names(ROOT / "notebooks"))
def test_no_smoke_chapter_table_shows_a_bare_count(smoke_book, name):
    notebook = _executed(smoke_book, name)
    found = bare_counts(notebook)
    assert not found, f"{name}: counts without thousands separators (display_frame): {found[:5]}"


@pytest.mark.parametrize("name", chapter_names(ROOT / "notebooks"))
def test_no_smoke_chapter_table_cuts_a_cell(smoke_book, name):
    notebook = _executed(smoke_book, name)
    found = cut_cells(notebook)
    assert not found, f"{name}: table cells cut with '...': {found[:5]}"
