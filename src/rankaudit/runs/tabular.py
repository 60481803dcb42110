"""Readers of long-format runs and qrels in CSV, TSV or Parquet files.

One row per (query, document): a run has query, document and score columns, qrels have
query, document and relevance columns; the column names are options.  The format follows
the file name (``.csv``, ``.tsv`` / ``.txt``, ``.parquet`` / ``.pq``, each optionally
``.gz`` for the text formats) unless ``file_format`` says otherwise.  Ids are read as
strings, scores as doubles (the tie rule of :mod:`rankaudit.runs.tables`), labels as
integers.  A missing or repeated column, a missing value (an empty field, ids included), a
non-finite score, a column of the wrong type, or a label that is not an integer within
:data:`rankaudit._checks.LABEL_LIMIT` is a :class:`~rankaudit.runs.errors.RunFileError`
naming the file and the physical line (blank lines counted; Parquet rows are named by their
0-based row).  Inputs are read once, gzip by content (:mod:`rankaudit.runs.inputs`), so pipes
and ``-`` work when ``file_format`` is given.
"""

from __future__ import annotations

import os
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.csv as pacsv

from rankaudit._checks import LABEL_RANGE, first_label_out_of_range
from rankaudit.runs.errors import RunFileError
from rankaudit.runs.inputs import read_input
from rankaudit.runs.tables import Qrels, Run

__all__ = ["read_long_qrels", "read_long_run"]

_FORMATS = {".csv": "csv", ".tsv": "tsv", ".txt": "tsv", ".parquet": "parquet", ".pq": "parquet"}


def _format_of(path: Path, file_format: str | None) -> str:
    if file_format is not None:
        if file_format not in ("csv", "tsv", "parquet"):
            raise ValueError(f"file_format must be 'csv', 'tsv' or 'parquet'; got {file_format!r}")
        return file_format
    suffixes = [s.lower() for s in path.suffixes]
    if suffixes and suffixes[-1] == ".gz":
        suffixes = suffixes[:-1]
    if not suffixes or suffixes[-1] not in _FORMATS:
        raise RunFileError(
            str(path),
            None,
            "cannot tell the format from the file name; pass file_format='csv', 'tsv' or 'parquet'",
        )
    return _FORMATS[suffixes[-1]]


def _line_numbers(data: pa.Buffer) -> np.ndarray:
    """1-based numbers of the non-empty lines of ``data`` (pyarrow skips empty lines)."""
    if not data.size:
        return np.zeros(0, dtype=np.int64)
    buf = np.frombuffer(data, dtype=np.uint8)
    ends = np.flatnonzero(buf == 0x0A)
    if buf[-1] != 0x0A:
        ends = np.r_[ends, len(buf)]
    starts = np.r_[0, ends[:-1] + 1]
    return np.flatnonzero(ends > starts).astype(np.int64) + 1


_ID_TYPES = (pa.types.is_string, pa.types.is_large_string, pa.types.is_integer)
_NUMBER_TYPES = (pa.types.is_integer, pa.types.is_floating)


def _check_parquet_types(schema: pa.Schema, columns: dict[str, pa.DataType], name: str) -> None:
    for col, want in columns.items():
        kind = schema.field(col).type
        if pa.types.is_dictionary(kind):
            kind = kind.value_type
        ok = _ID_TYPES if want == pa.string() else _NUMBER_TYPES
        if not any(test(kind) for test in ok):
            expected = "strings or integers" if want == pa.string() else "numbers"
            raise RunFileError(name, None, f"column {col!r} has type {kind}; expected {expected}")


def _read_table(
    path: str | os.PathLike, columns: dict[str, pa.DataType], file_format: str | None
) -> tuple[pa.Table, str, str, np.ndarray | None, str]:
    """``(table, format, name, lines, sha256)``: the columns read from ``path`` (read once;
    gzip by content), the 1-based line of every row of a text file (None for Parquet)."""
    fmt = _format_of(Path(str(path)), file_format)
    inp = read_input(path, text=fmt != "parquet")
    name = inp.name
    lines: np.ndarray | None = None
    try:
        if fmt == "parquet":
            import pyarrow.parquet as pq

            source = pa.BufferReader(inp.data)
            schema = pq.read_schema(source)
            missing = [c for c in columns if c not in schema.names]
            if missing:
                raise RunFileError(
                    name, None, f"no column {missing[0]!r}; columns are " + ", ".join(schema.names)
                )
            _check_parquet_types(schema, columns, name)
            table = pq.read_table(pa.BufferReader(inp.data), columns=list(columns))
        else:
            parse = pacsv.ParseOptions(delimiter="," if fmt == "csv" else "\t")
            with pacsv.open_csv(pa.BufferReader(inp.data), parse_options=parse) as reader:
                names = reader.schema.names
            twice = [c for c in dict.fromkeys(names) if names.count(c) > 1]
            numbers = _line_numbers(inp.data)
            header = int(numbers[0]) if len(numbers) else 1
            if twice:
                raise RunFileError(name, header, f"column {twice[0]!r} appears twice in the header")
            missing = [c for c in columns if c not in names]
            if missing:
                raise RunFileError(
                    name,
                    header,
                    f"no column {missing[0]!r} in the header; columns are " + ", ".join(names),
                )
            try:
                table = _csv_columns(inp.data, parse, columns)
            except pa.ArrowInvalid as exc:
                if "conversion error" not in str(exc):
                    raise
                text = _csv_columns(inp.data, parse, columns, number=pa.string())
                _raise_bad_number(text, columns, name, numbers)
                raise
            if len(numbers) == table.num_rows + 1:
                lines = numbers[1:]
    except RunFileError:
        raise
    except (pa.ArrowException, OSError) as exc:
        raise RunFileError(name, None, _first_line(str(exc))) from None
    if table.num_rows == 0:
        raise RunFileError(name, None, "no rows (empty file)")
    return table, fmt, name, lines, inp.sha256


def _csv_columns(
    data: bytes,
    parse: pacsv.ParseOptions,
    columns: dict[str, pa.DataType],
    number: pa.DataType | None = None,
) -> pa.Table:
    """The named columns of a CSV/TSV text: ids as strings, the others as ``number`` (strings
    when locating a bad value); an empty field is a missing value."""
    return pacsv.read_csv(
        pa.BufferReader(data),
        parse_options=parse,
        convert_options=pacsv.ConvertOptions(
            column_types={
                c: (t if t == pa.string() or number is None else number) for c, t in columns.items()
            },
            include_columns=list(columns),
            strings_can_be_null=True,
            null_values=[""],
        ),
    )


def _raise_bad_number(
    text: pa.Table, columns: dict[str, pa.DataType], name: str, numbers: np.ndarray
) -> None:
    """Name the line of the first value of a number column that is not a number."""
    import pandas as pd

    for col, kind in columns.items():
        if kind == pa.string():
            continue
        raw = text.column(col).to_pandas()
        parsed = pd.to_numeric(raw, errors="coerce")
        bad = np.flatnonzero(raw.notna().to_numpy() & parsed.isna().to_numpy())
        if len(bad):
            row = int(bad[0])
            line = int(numbers[row + 1]) if len(numbers) == text.num_rows + 1 else None
            raise RunFileError(name, line, f"{col} {raw.iloc[row]!r} is not a number")


def _first_line(text: str) -> str:
    return text.strip().splitlines()[0] if text.strip() else "cannot be parsed"


def _row_where(name: str, fmt: str, lines: np.ndarray | None, row: int) -> tuple[int | None, str]:
    """``(line, prefix)`` of data row ``row``: its file line for text (the message already
    starts ``file:line:``), no line and ``"row r: "`` for Parquet."""
    if fmt == "parquet":
        return None, f"row {row}: "
    return (int(lines[row]) if lines is not None else row + 2), ""


def _check_no_nulls(table: pa.Table, name: str, fmt: str, lines: np.ndarray | None) -> None:
    for col_name in table.column_names:
        col = table.column(col_name)
        if col.null_count:
            row = int(np.flatnonzero(np.asarray(pc.is_null(col)))[0])
            line, what = _row_where(name, fmt, lines, row)
            raise RunFileError(name, line, f"{what}missing value in column {col_name!r}")


def _strings(col: pa.ChunkedArray) -> pa.Array:
    arr = col.combine_chunks()
    if pa.types.is_dictionary(arr.type):
        arr = arr.cast(arr.type.value_type)
    return arr if pa.types.is_string(arr.type) else arr.cast(pa.string())


def read_long_run(
    path: str | os.PathLike,
    *,
    query_col: str = "query",
    docno_col: str = "docno",
    score_col: str = "score",
    file_format: str | None = None,
) -> Run:
    """Read a long-format run (one row per query and document) from CSV, TSV or Parquet."""
    cols = {query_col: pa.string(), docno_col: pa.string(), score_col: pa.float64()}
    table, fmt, name, lines, sha256 = _read_table(path, cols, file_format)
    _check_no_nulls(table, name, fmt, lines)
    score = np.ascontiguousarray(table.column(score_col).to_numpy().astype(np.float64))
    bad = np.flatnonzero(~np.isfinite(score))
    if len(bad):
        line, what = _row_where(name, fmt, lines, int(bad[0]))
        raise RunFileError(name, line, f"{what}{score_col} is not a finite number")
    if fmt != "parquet" and lines is None:
        lines = np.arange(2, table.num_rows + 2, dtype=np.int64)
    return Run(
        _strings(table.column(query_col)),
        _strings(table.column(docno_col)),
        score,
        name,
        lines,
        fmt != "parquet",
        sha256,
    )


def read_long_qrels(
    path: str | os.PathLike,
    *,
    query_col: str = "query",
    docno_col: str = "docno",
    relevance_col: str = "relevance",
    file_format: str | None = None,
) -> Qrels:
    """Read long-format qrels (one row per judgment) from CSV, TSV or Parquet."""
    cols = {query_col: pa.string(), docno_col: pa.string(), relevance_col: pa.float64()}
    table, fmt, name, lines, sha256 = _read_table(path, cols, file_format)
    _check_no_nulls(table, name, fmt, lines)
    raw = table.column(relevance_col).to_numpy()
    rel = raw.astype(np.float64)
    bad = np.flatnonzero(~np.isfinite(rel) | (rel != np.round(rel)))
    if len(bad):
        line, what = _row_where(name, fmt, lines, int(bad[0]))
        raise RunFileError(name, line, f"{what}{relevance_col} is not an integer ({rel[bad[0]]})")
    out_of_range = first_label_out_of_range(raw)
    if out_of_range >= 0:
        line, what = _row_where(name, fmt, lines, out_of_range)
        raise RunFileError(
            name,
            line,
            f"{what}{relevance_col} {raw[out_of_range]} is out of range ({LABEL_RANGE})",
        )
    if fmt != "parquet" and lines is None:
        lines = np.arange(2, table.num_rows + 2, dtype=np.int64)
    return Qrels(
        _strings(table.column(query_col)),
        _strings(table.column(docno_col)),
        rel.astype(np.int64),
        name,
        lines,
        fmt != "parquet",
        sha256,
    )
