"""Show on the page which data and parameters a chapter was built with."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from rankaudit._optional import require
from rankaudit._version import __version__
from rankbook.report.deviations import deviations_line, simulator_sentence

__all__ = ["cli_text", "provenance_markdown", "show_run"]


def cli_text(value: Any) -> str:
    """``value`` as it is typed after ``-p name`` (read back by
    :func:`rankbook.report.chapter_source.parse_cli_value`): a string bare, anything else as
    Python prints it (``None``, ``False``, ``0.05``)."""
    return value if isinstance(value, str) else repr(value)


def _source_lines(source: Any) -> list[str]:
    lines = [f"**Data:** {source.label()}", ""]
    if source.kind == "simulated":
        lines += ["This page's numbers come from **simulated** data, not from a real dataset.", ""]
        lines += [simulator_sentence(source.generator, source.details.get("generator_args")), ""]
    if source.path:
        lines += [f"Path: `{source.portable_path()}`", ""]
    return lines


def provenance_markdown(params: Mapping[str, Any], data_source: Any) -> str:
    """A MyST admonition listing the data source(s) and the parameters of this run."""
    lines = ["```{admonition} How this page was built", ":class: note", ""]
    sources = data_source.values() if isinstance(data_source, Mapping) else [data_source]
    for src in sources:
        lines += _source_lines(src)
    lines += [deviations_line(), ""]
    lines.append(f"**rankaudit** {__version__}. **Parameters:**")
    lines.append("")
    lines.append("| parameter | value (as typed after `-p name`) |")
    lines.append("| --- | --- |")
    for name, value in params.items():
        lines.append(f"| `{name}` | `{cli_text(value)}` |")
    lines.append("```")
    return "\n".join(lines)


def show_run(params: Mapping[str, Any], data_source: Any) -> None:
    """Display :func:`provenance_markdown` in the notebook (rendered by MyST-NB)."""
    ipython_display = require("IPython.display", purpose="rankbook.report.show_run")
    Markdown, display = ipython_display.Markdown, ipython_display.display

    display(Markdown(provenance_markdown(params, data_source)))
