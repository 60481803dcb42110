"""A figure caption says what a parameter is in words (or in the notation of
``book/notation.md``), never by its raw name in the Parameters cell ("n_negatives", "p_switch"):
a caption is read beside the figure, by a reader who has not opened the parameters. A name
without an underscore counts only in inline code (``k`` is also the notation's symbol, and
"workers" a word)."""

from __future__ import annotations

import re

import pytest
import yaml

from rankbook.report.chapter_source import chapter_names, declared_parameters
from tests.conftest import ROOT

NOTEBOOKS = ROOT / "notebooks"
_META = re.compile(r"```\{code-cell\}[^\n]*\n---\n(.*?)\n---\n", re.S)


def captions(markdown: str) -> list[str]:
    """The figure captions of a MyST chapter (``mystnb.figure.caption`` of its code cells)."""
    found = []
    for block in _META.findall(markdown):
        meta = yaml.safe_load(block) or {}
        caption = meta.get("mystnb", {}).get("figure", {}).get("caption")
        if caption:
            found.append(caption)
    return found


def raw_names(caption: str, parameters: list[str]) -> list[str]:
    """The parameter names in ``caption``: a name with an underscore anywhere as a word, any
    name inside inline code (`workers`); a glue role's name is left out."""
    text = re.sub(r"\{glue:\w+\}`[^`]*`", " ", caption)
    code = " ".join(re.findall(r"`([^`]*)`", text))
    return [
        p
        for p in parameters
        if re.search(rf"(?<![\w.]){re.escape(p)}(?!\w)", text if "_" in p else code)
    ]


def test_the_scan_finds_a_raw_name():
    page = (
        "```{code-cell} ipython3\n---\nmystnb:\n  figure:\n    caption: |\n"
        "      Rows: 1 relevant item and n_negatives negatives, at `p_switch = 0`.\n"
        "    name: fig-x\n---\nx\n```\n"
    )
    (caption,) = captions(page)
    assert raw_names(caption, ["n_negatives", "p_switch", "k"]) == ["n_negatives", "p_switch"]
    assert raw_names("one bar per size in `workers`, k workers", ["workers", "k"]) == ["workers"]
    assert raw_names("{glue:text}`n_negatives:,` negatives", ["n_negatives"]) == []


@pytest.mark.parametrize("name", chapter_names(NOTEBOOKS))
def test_no_caption_names_a_parameter_raw(name):
    parameters = declared_parameters(NOTEBOOKS, name)
    text = (NOTEBOOKS / f"{name}.md").read_text(encoding="utf-8")
    found = {c.splitlines()[0]: raw_names(c, parameters) for c in captions(text)}
    found = {first: names for first, names in found.items() if names}
    assert not found, f"{name}: captions naming parameters raw: {found}"


_FORMAT = re.compile(r"\b(?:b?float\d+|round\d)\b")


def test_the_precision_caption_names_the_axis_in_the_order_the_figure_draws_it():
    """Chapter 17's precision figure: the caption's order of the storage formats is the order of
    the drawn tick labels (it once said "as the precision falls", which the axis is not:
    bfloat16 keeps fewer significant bits than float16 and comes before it)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from rankbook.audit.precision import PRECISIONS
    from rankbook.report.figures import plot_precision_sweep

    text = (NOTEBOOKS / "17_real_recommenders.md").read_text(encoding="utf-8")
    block = next(b for b in _META.findall(text) if "fig-17-precision" in b)
    caption = yaml.safe_load(block)["mystnb"]["figure"]["caption"]
    sweep = [
        {"model": "m", "precision": p, "prevalence": 0.1 * i, "gap_input_order_vs_expected": 0.0}
        for i, p in enumerate(PRECISIONS)
    ]
    fig = plot_precision_sweep(sweep, PRECISIONS)
    drawn = [t.get_text() for t in fig.axes[0].get_xticklabels()]
    plt.close(fig)
    assert _FORMAT.findall(caption)[: len(drawn)] == drawn  # its listing, then its remark
    assert "precision falls" not in " ".join(caption.split())
