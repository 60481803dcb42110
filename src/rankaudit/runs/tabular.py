"""Readers of long-format runs and qrels in CSV, TSV or Parquet files.

One row per (query, document): a run has query, document and score columns, qrels have
query, document and relevance columns; the column names are options.  The format follows
the file name (``.csv``, ``.tsv`` / ``.txt``, ``.parquet`` / ``.pq``, each optionally
``.gz`` for the text formats) unless ``file_format`` says otherwise.  Ids are read as
strings, scores as doubles (the tie rule of :mod:`rankaudit.runs.tables`), labels as
integers.  A missing column, a missing value, a non-finite score or a non-integer label is a
:class:`~rankaudit.runs.errors.RunFileError` naming the file and the line (the header is
line 1 of a text file; Parquet rows are named by their 0-based row).
"""

from __future__ import annotations

import os
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.csv as pacsv

from rankaudit.runs.errors import RunFileError
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


def _read_table(
    path: str | os.PathLike, columns: dict[str, pa.DataType], file_format: str | None
) -> tuple[pa.Table, str]:
    p = Path(path)
    if not p.exists():
        raise RunFileError(str(path), None, "no such file")
    fmt = _format_of(p, file_format)
    try:
        if fmt == "parquet":
            import pyarrow.parquet as pq

            schema_names = pq.read_schema(p).names
            missing = [c for c in columns if c not in schema_names]
            if missing:
                raise RunFileError(
                    str(path),
                    None,
                    f"no column {missing[0]!r}; columns are " + ", ".join(schema_names),
                )
            table = pq.read_table(p, columns=list(columns))
        else:
            with pacsv.open_csv(
                p, parse_options=pacsv.ParseOptions(delimiter="," if fmt == "csv" else "\t")
            ) as reader:
                names = reader.schema.names
            missing = [c for c in columns if c not in names]
            if missing:
                raise RunFileError(
                    str(path),
                    1,
                    f"no column {missing[0]!r} in the header; columns are " + ", ".join(names),
                )
            table = pacsv.read_csv(
                p,
                parse_options=pacsv.ParseOptions(delimiter="," if fmt == "csv" else "\t"),
                convert_options=pacsv.ConvertOptions(
                    column_types={
                        c: (pa.string() if t == pa.string() else pa.float64())
                        for c, t in columns.items()
                    },
                    include_columns=list(columns),
                ),
            )
    except RunFileError:
        raise
    except (pa.ArrowInvalid, pa.ArrowTypeError, OSError) as exc:
        raise RunFileError(str(path), None, _first_line(str(exc))) from None
    if table.num_rows == 0:
        raise RunFileError(str(path), None, "no rows (empty file)")
    return table, fmt


def _first_line(text: str) -> str:
    return text.strip().splitlines()[0] if text.strip() else "cannot be parsed"


def _row_where(path: object, fmt: str, row: int) -> tuple[str, int]:
    # text files: header is line 1, so data row r is line r + 2 (no quoted newlines assumed)
    return str(path), (row + 2 if fmt != "parquet" else row)


def _check_no_nulls(table: pa.Table, path: object, fmt: str) -> None:
    for name in table.column_names:
        col = table.column(name)
        if col.null_count:
            row = int(np.flatnonzero(np.asarray(pc.is_null(col)))[0])
            where, line = _row_where(path, fmt, row)
            what = f"line {line}" if fmt != "parquet" else f"row {line}"
            raise RunFileError(
                where,
                line if fmt != "parquet" else None,
                f"{what}: missing value in column {name!r}",
            )


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
    table, fmt = _read_table(path, cols, file_format)
    _check_no_nulls(table, path, fmt)
    score = np.ascontiguousarray(table.column(score_col).to_numpy().astype(np.float64))
    bad = np.flatnonzero(~np.isfinite(score))
    if len(bad):
        where, line = _row_where(path, fmt, int(bad[0]))
        raise RunFileError(
            where,
            line if fmt != "parquet" else None,
            f"{score_col} is not a finite number ({score[bad[0]]})",
        )
    lines = None if fmt == "parquet" else np.arange(2, table.num_rows + 2, dtype=np.int64)
    return Run(
        _strings(table.column(query_col)),
        _strings(table.column(docno_col)),
        score,
        str(path),
        lines,
        fmt != "parquet",
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
    table, fmt = _read_table(path, cols, file_format)
    _check_no_nulls(table, path, fmt)
    rel = table.column(relevance_col).to_numpy().astype(np.float64)
    bad = np.flatnonzero(~np.isfinite(rel) | (rel != np.round(rel)))
    if len(bad):
        where, line = _row_where(path, fmt, int(bad[0]))
        raise RunFileError(
            where,
            line if fmt != "parquet" else None,
            f"{relevance_col} is not an integer ({rel[bad[0]]})",
        )
    lines = None if fmt == "parquet" else np.arange(2, table.num_rows + 2, dtype=np.int64)
    return Qrels(
        _strings(table.column(query_col)),
        _strings(table.column(docno_col)),
        rel.astype(np.int64),
        str(path),
        lines,
        fmt != "parquet",
    )
