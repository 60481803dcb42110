"""Readers of the two TREC text formats, with trec_eval's parsing rules.

Run (results) file, one retrieved document a line, fields separated by white space::

    qid  Q0  docno  rank  score  tag

Qrels file, one judgment a line::

    qid  iter  docno  rel

Rules (as trec_eval 9.x reads them, ``get_trec_results.c`` / ``get_qrels.c``):

- ``score`` is parsed as an IEEE double; ``rank`` and ``tag`` are read but ignored (trec_eval
  ranks by score, not by the rank column).  Two documents tie when their parsed scores are
  equal (see :mod:`rankaudit.runs.tables`).
- ``rel`` is an integer; negative values are allowed (trec_eval treats them as pooled but
  unjudged: never relevant, gain 0).
- Fields are separated by any run of spaces or tabs; empty lines are skipped.  Files ending in
  ``.gz`` are decompressed.

Stricter than trec_eval, by design: a line with the wrong number of fields, a score that is
not a finite number (trec_eval's ``atof`` reads ``"1.5x"`` as 1.5 and ``"x"`` as 0), or a
label that is not an integer is an error, a :class:`~rankaudit.runs.errors.RunFileError`
naming the file and the line.  Duplicate documents within a query, which trec_eval rejects
at evaluation, are reported by :func:`rankaudit.runs.layout.join_run_qrels` with their line.

Speed: the file is parsed by ``pyarrow.csv`` (multi-threaded C++) when its fields are
separated by single spaces or single tabs.  Anything else (several spaces, a blank line, a bad
field) falls back to an exact line-by-line parser, which either reads the file (slowly) or
stops at the first bad line and names it.
"""

from __future__ import annotations

import gzip
import io
import math
import os
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.csv as pacsv

from rankaudit.runs.errors import RunFileError
from rankaudit.runs.tables import Qrels, Run

__all__ = ["read_trec_qrels", "read_trec_run", "write_trec_qrels", "write_trec_run"]

_RUN_FIELDS = ("query", "q0", "docno", "rank", "score", "tag")
_QRELS_FIELDS = ("query", "iter", "docno", "relevance")


def _check_path(path: str | os.PathLike) -> Path:
    p = Path(path)
    if not p.exists():
        raise RunFileError(str(path), None, "no such file")
    if p.is_dir():
        raise RunFileError(str(path), None, "is a directory, not a file")
    return p


def _sniff_delimiter(path: Path) -> str | None:
    """``" "`` or ``"\\t"`` if the first line uses that single character; None otherwise."""
    opener = gzip.open if path.suffix == ".gz" else open
    with opener(path, "rb") as fh:
        first = fh.readline(1 << 16)
    if not first.strip():
        return None
    has_tab, has_space = b"\t" in first.rstrip(b"\r\n"), b" " in first.rstrip(b"\r\n")
    if has_tab and not has_space:
        return "\t"
    if has_space and not has_tab:
        return " "
    return None


def _fast_read(
    path: Path, names: tuple[str, ...], types: dict[str, pa.DataType]
) -> pa.Table | None:
    """pyarrow.csv parse with a single-character delimiter; None when it cannot parse the file."""
    delimiter = _sniff_delimiter(path)
    if delimiter is None:
        return None
    try:
        return pacsv.read_csv(
            path,
            read_options=pacsv.ReadOptions(column_names=list(names), block_size=1 << 24),
            parse_options=pacsv.ParseOptions(
                delimiter=delimiter,
                quote_char=False,
                double_quote=False,
                escape_char=False,
                ignore_empty_lines=False,
            ),
            convert_options=pacsv.ConvertOptions(
                column_types=types,
                include_columns=list(types),
                strings_can_be_null=False,
                quoted_strings_can_be_null=False,
                null_values=[],
            ),
        )
    except (pa.ArrowInvalid, pa.ArrowTypeError, UnicodeDecodeError):
        return None


def _exact_parse(
    path: Path, names: tuple[str, ...], converters: dict[int, Callable[[str], object]], what: str
) -> tuple[list[list[object]], np.ndarray]:
    """Line-by-line parse; raises RunFileError at the first malformed line."""
    n_fields = len(names)
    columns: list[list[object]] = [[] for _ in converters]
    lines: list[int] = []
    opener = gzip.open if path.suffix == ".gz" else open
    with opener(path, "rb") as raw:
        text = io.TextIOWrapper(raw, encoding="utf-8", errors="strict", newline=None)
        line_no = 0
        try:
            for line_no, line in enumerate(text, start=1):  # noqa: B007 - line_no used below
                fields = line.split()
                if not fields:
                    continue
                if len(fields) != n_fields:
                    raise RunFileError(
                        str(path),
                        line_no,
                        f"expected {n_fields} fields ({' '.join(names)}) in a {what} line, "
                        f"got {len(fields)}: {line.strip()[:80]!r}",
                    )
                for out, (i, convert) in zip(columns, converters.items(), strict=True):
                    try:
                        out.append(convert(fields[i]))
                    except ValueError as exc:
                        raise RunFileError(str(path), line_no, f"{names[i]} {exc}") from None
                lines.append(line_no)
        except UnicodeDecodeError:
            raise RunFileError(str(path), line_no + 1, "not valid UTF-8 text") from None
    if not lines:
        raise RunFileError(str(path), None, f"no {what} lines (empty file)")
    return columns, np.asarray(lines, dtype=np.int64)


def _score(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise ValueError(f"{text!r} is not a number") from None
    if not math.isfinite(value):
        raise ValueError(f"{text!r} is not a finite number")
    return value


def _label(text: str) -> int:
    try:
        return int(text)
    except ValueError:
        raise ValueError(f"{text!r} is not an integer") from None


def _ident(text: str) -> str:
    return text


def read_trec_run(path: str | os.PathLike) -> Run:
    """Read a TREC run file (``qid Q0 docno rank score tag``) into a :class:`Run`.

    Raises :class:`~rankaudit.runs.errors.RunFileError` (a ValueError) naming the file and
    line of the first malformed line, a non-finite score, or a missing / empty file.
    """
    p = _check_path(path)
    types = {"query": pa.string(), "docno": pa.string(), "score": pa.float64()}
    table = _fast_read(p, _RUN_FIELDS, types)
    if table is not None and table.num_rows:
        score = table.column("score").to_numpy()
        if np.all(np.isfinite(score)):
            return Run(
                table.column("query").combine_chunks(),
                table.column("docno").combine_chunks(),
                np.ascontiguousarray(score),
                str(path),
                None,
                True,
            )
    (query, docno, score), lines = _exact_parse(
        p, _RUN_FIELDS, {0: _ident, 2: _ident, 4: _score}, "run"
    )
    return Run(
        pa.array(query, pa.string()),
        pa.array(docno, pa.string()),
        np.asarray(score, dtype=np.float64),
        str(path),
        lines,
        True,
    )


def read_trec_qrels(path: str | os.PathLike) -> Qrels:
    """Read a TREC qrels file (``qid iter docno rel``) into a :class:`Qrels`.

    Raises :class:`~rankaudit.runs.errors.RunFileError` naming the file and line of the first
    malformed line or non-integer label, or a missing / empty file.
    """
    p = _check_path(path)
    types = {"query": pa.string(), "docno": pa.string(), "relevance": pa.int64()}
    table = _fast_read(p, _QRELS_FIELDS, types)
    if table is not None and table.num_rows:
        return Qrels(
            table.column("query").combine_chunks(),
            table.column("docno").combine_chunks(),
            np.ascontiguousarray(table.column("relevance").to_numpy()),
            str(path),
            None,
            True,
        )
    (query, docno, rel), lines = _exact_parse(
        p, _QRELS_FIELDS, {0: _ident, 2: _ident, 3: _label}, "qrels"
    )
    return Qrels(
        pa.array(query, pa.string()),
        pa.array(docno, pa.string()),
        np.asarray(rel, dtype=np.int64),
        str(path),
        lines,
        True,
    )


def _write(table: pa.Table, path: str | os.PathLike) -> Path:
    p = Path(path)
    pacsv.write_csv(
        table, p, pacsv.WriteOptions(include_header=False, delimiter=" ", quoting_style="none")
    )
    return p


def _ids(values: object, name: str) -> pa.Array:
    arr = pa.array(np.asarray(values).reshape(-1).astype(str))
    bad = pc.match_substring_regex(arr, r"(^$)|\s")
    if pc.any(bad).as_py():
        row = int(np.flatnonzero(np.asarray(bad))[0])
        raise ValueError(f"{name} {arr[row].as_py()!r} (row {row}) is empty or holds white space")
    return arr


def write_trec_run(
    path: str | os.PathLike, query: object, docno: object, score: object, tag: str = "rankaudit"
) -> Path:
    """Write a TREC run file; lines are sorted per query by score descending (ranks 1, 2, ...
    in that order, ties in the given order), scores written so that they read back exactly."""
    q, d = _ids(query, "query"), _ids(docno, "docno")
    s = np.asarray(score, dtype=np.float64).reshape(-1)
    if not (len(q) == len(d) == len(s)):
        raise ValueError(f"query, docno and score differ in length: {len(q)}, {len(d)}, {len(s)}")
    if not np.all(np.isfinite(s)):
        raise ValueError(f"score of row {int(np.flatnonzero(~np.isfinite(s))[0])} is not finite")
    codes = pc.dictionary_encode(q).indices.to_numpy()
    order = np.lexsort((-s, codes))
    starts = np.r_[True, codes[order][1:] != codes[order][:-1]]
    group_start = np.maximum.accumulate(np.where(starts, np.arange(len(order)), 0))
    rank = np.arange(len(order)) - group_start + 1
    text = pc.cast(pa.array(s[order]), pa.string())
    table = pa.table(
        {
            "q": q.take(order),
            "z": pa.array(["Q0"] * len(order)),
            "d": d.take(order),
            "r": rank,
            "s": text,
            "t": pa.array([tag] * len(order)),
        }
    )
    return _write(table, path)


def write_trec_qrels(
    path: str | os.PathLike, query: object, docno: object, relevance: object
) -> Path:
    """Write a TREC qrels file (``qid 0 docno rel``), in the given order."""
    q, d = _ids(query, "query"), _ids(docno, "docno")
    r = np.asarray(relevance).reshape(-1)
    if r.dtype.kind not in "iub":
        raise ValueError(f"relevance must be integers; got dtype {r.dtype}")
    table = pa.table(
        {"q": q, "i": pa.array(np.zeros(len(q), dtype=np.int64)), "d": d, "r": r.astype(np.int64)}
    )
    return _write(table, path)
