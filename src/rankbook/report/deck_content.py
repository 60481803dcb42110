"""What a curated slide takes from an executed chapter: a figure, an equation, a results value.

* :func:`find_figure`: the PNG and the caption of the code cell whose MyST figure ``name`` is
  given (the caption's ``{glue:text}`` roles resolved from the chapter's own glued values).
* :func:`find_equation`: the TeX of a labelled display equation of a Markdown cell
  (``$$ … $$ (label)`` or a ``{math}`` directive with ``:label:``).
* :func:`results_value` and :func:`fill_numbers`: a value of the chapter's results JSON by a
  dotted path, and ``{r:path:spec}`` placeholders in a plan's text replaced by such values.
* :func:`results_table`: a short table (list of records or mapping) of the results JSON.

Every lookup that fails raises a ``KeyError`` naming the chapter and what was asked for, so a
deck never shows a placeholder or an empty slide.
"""

from __future__ import annotations

import ast
import base64
import html
import re
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

__all__ = [
    "MAX_TABLE_ROWS",
    "fill_numbers",
    "find_equation",
    "find_figure",
    "glue_values",
    "resolve_glue",
    "results_table",
    "results_value",
]

#: A table on a slide has at most this many body rows (the back row must read it).
MAX_TABLE_ROWS = 8

_GLUE = re.compile(r"\{glue:text\}`([^`:]+)(?::([^`]*))?`")
_ROLE = re.compile(r"\{[a-z:]+\}`([^`]*)`")
_ROLE_TARGET = re.compile(r"^(.*?)\s*<[^>]*>$", re.S)
# a display block, ``$$`` on lines of their own, with its ``(label)`` after the closing ``$$``
_DOLLARS = re.compile(r"^\$\$[ \t]*\n(.*?)\n\$\$[ \t]*(?:\(([^)\n]+)\))?[ \t]*$", re.S | re.M)
_NUMBER = re.compile(r"\{r:(?:(\d\d_[a-z0-9_]+)/)?([A-Za-z0-9_.]+)(?::([^}]*))?\}")


def _text(value) -> str:
    return "".join(value) if isinstance(value, list) else str(value)


def glue_values(cells: Iterable[Mapping]) -> dict[str, str]:
    """Name -> ``text/plain`` of every ``glue`` output (MyST-NB's scrapbook records)."""
    values: dict[str, str] = {}
    for cell in cells:
        for output in cell.get("outputs", []) if cell.get("cell_type") == "code" else []:
            book = output.get("metadata", {}).get("scrapbook")
            if not book:
                continue
            plain = output.get("data", {}).get(book.get("mime_prefix", "") + "text/plain")
            if plain is not None:
                values[book["name"]] = _text(plain)
    return values


def resolve_glue(text: str, values: Mapping[str, str]) -> str:
    """Replace each ``{glue:text}`name:spec``` by the glued value formatted with ``spec``, and
    every other role by its text (``{term}`MRR``` -> ``MRR``; ``{ref}`x <label>``` -> ``x``).

    A glued number is formatted as MyST-NB does (``format(value, spec)``); an unknown name raises
    a ``KeyError`` naming it, so a deck never shows a raw role.
    """

    def glue(match: re.Match) -> str:
        name, spec = match.group(1), match.group(2) or ""
        if name not in values:
            raise KeyError(f"glue name {name!r} is used in a caption but was never glued")
        raw = values[name]
        try:
            value = ast.literal_eval(raw)
        except (ValueError, SyntaxError):
            value = raw
        if isinstance(value, str):
            return value
        return format(value, spec)

    def role(match: re.Match) -> str:
        inner = match.group(1)
        target = _ROLE_TARGET.match(inner)
        return target.group(1) if target else inner

    return _ROLE.sub(role, _GLUE.sub(glue, text))


def find_figure(notebook: Mapping, name: str, chapter: str) -> tuple[str, str]:
    """``(base64 PNG, caption text)`` of the figure named ``name`` in an executed chapter."""
    cells = notebook.get("cells", [])
    for cell in cells:
        figure = cell.get("metadata", {}).get("mystnb", {}).get("figure", {})
        if cell.get("cell_type") != "code" or figure.get("name") != name:
            continue
        for output in cell.get("outputs", []):
            png = output.get("data", {}).get("image/png")
            if png is not None:
                png = _text(png).replace("\n", "")
                base64.b64decode(png, validate=True)  # a corrupt payload fails the build here
                caption = resolve_glue(str(figure.get("caption", "")), glue_values(cells))
                return png, caption.strip()
        raise KeyError(f"chapter {chapter}: figure {name!r} has no PNG output (not executed?)")
    raise KeyError(f"chapter {chapter}: no figure named {name!r}")


def find_equation(notebook: Mapping, label: str, chapter: str) -> str:
    """The TeX of the display equation labelled ``label`` in a chapter's Markdown cells."""
    directive = re.compile(
        r"^```\{math\}[^\n]*\n:label:\s*" + re.escape(label) + r"\s*\n(.*?)^```", re.S | re.M
    )
    for cell in notebook.get("cells", []):
        if cell.get("cell_type") != "markdown":
            continue
        source = _text(cell.get("source", ""))
        blocks = [m.group(1) for m in _DOLLARS.finditer(source) if m.group(2) == label]
        found = directive.search(source)
        blocks += [found.group(1)] if found else []
        if blocks:
            tex = "\n".join(
                line for line in blocks[0].splitlines() if not line.lstrip().startswith(":")
            ).strip()
            if "\\\\" in tex and "\\begin" not in tex:  # several lines: align them
                tex = f"\\begin{{aligned}}\n{tex}\n\\end{{aligned}}"
            return tex
    raise KeyError(f"chapter {chapter}: no display equation labelled {label!r}")


def results_value(results: Mapping[str, Any], path: str, chapter: str) -> Any:
    """The value at a dotted ``path`` (``table3.expected`` or ``rows.0.lift``) of a results
    mapping."""
    value: Any = results
    for part in path.split("."):
        if isinstance(value, Mapping) and part in value:
            value = value[part]
        elif isinstance(value, list) and part.isdigit() and int(part) < len(value):
            value = value[int(part)]
        else:
            raise KeyError(f"chapter {chapter}: the results have no {path!r} (stopped at {part!r})")
    return value


def fill_numbers(text: str, results: Mapping[str, Mapping[str, Any]], chapter: str) -> str:
    """Replace each ``{r:path:spec}`` (``chapter``'s results) or ``{r:NN_name/path:spec}`` by
    the results value formatted with ``spec``; ``results`` maps chapter stems to results."""

    def number(match: re.Match) -> str:
        stem = match.group(1) or chapter
        if stem not in results:
            raise KeyError(f"chapter {stem}: no results JSON to quote {match.group(0)!r} from")
        value = results_value(results[stem], match.group(2), stem)
        return format(value, match.group(3) or "")

    return _NUMBER.sub(number, text)


def _cell(value: Any, spec: str) -> str:
    if isinstance(value, bool) or value is None:
        return {True: "yes", False: "no", None: "–"}[value]
    if isinstance(value, int | float) and spec:
        return format(value, spec)
    if isinstance(value, list):
        return ", ".join(str(v) for v in value)
    return str(value)


def results_table(
    value: Any,
    columns: Sequence[tuple[str, str]],
    formats: Mapping[str, str],
    where: str,
    labels: Mapping[str, str] | None = None,
) -> str:
    """An HTML table of a results value: a list of records (``columns`` picks and names the
    fields, in order) or a mapping (one row per key: ``columns`` names the two columns;
    ``labels`` shows a key by the words its chapter uses, e.g. ``ref_emb`` as "chosen by
    embedding")."""
    labels = dict(labels or {})
    if isinstance(value, Mapping):
        names = list(columns) or [("key", ""), ("value", "")]
        if len(names) != 2:
            raise KeyError(f"{where}: a mapping is shown in two columns, got {names}")
        unknown = sorted(set(labels) - {str(k) for k in value})
        if unknown:
            raise KeyError(f"{where}: labels for keys the mapping does not have: {unknown}")
        rows = [
            [labels.get(str(k), str(k)), _cell(v, formats.get("value", ""))]
            for k, v in value.items()
        ]
        header = [label for _, label in names]
    elif isinstance(value, list) and all(isinstance(r, Mapping) for r in value):
        if labels:
            raise KeyError(f"{where}: 'labels' names the keys of a mapping, not of records")
        if not columns:
            raise KeyError(f"{where}: a table of records needs its columns listed")
        missing = [c for c, _ in columns if value and c not in value[0]]
        if missing:
            raise KeyError(f"{where}: the records have no field(s) {missing}")
        rows = [[_cell(r.get(c), formats.get(c, "")) for c, _ in columns] for r in value]
        header = [label for _, label in columns]
    else:
        raise KeyError(f"{where}: {type(value).__name__} is not a table (records or a mapping)")
    if not 0 < len(rows) <= MAX_TABLE_ROWS:
        raise KeyError(f"{where}: {len(rows)} rows; a slide shows 1 to {MAX_TABLE_ROWS}")
    head = "".join(f"<th>{html.escape(h)}</th>" for h in header)
    body = "".join(
        "<tr>" + "".join(f"<td>{html.escape(c)}</td>" for c in row) + "</tr>" for row in rows
    )
    return f"<table><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>"
