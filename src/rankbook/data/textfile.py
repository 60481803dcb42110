"""Reading delimited text files so that every format error names the file and the line.

:func:`read_delimited` wraps :func:`pandas.read_csv` and turns what pandas and the
decompressors raise on bad input into a :class:`rankaudit.errors.InputFileError` (a
``ValueError``, the one error class for bad files) whose message is
``"<file>:<line>: <what is wrong>"`` (``"<file>: <what is wrong>"`` when no line applies):

- bytes that are not valid text in the file's encoding (the first such line);
- an empty file; a line with more fields than the header (or than ``names``);
- a truncated gzip file, or a plain file named ``*.gz`` (no line: the stream is unreadable);
- a typed column (``dtype={"user_id": "int64"}``) holding something else: the file is
  read again as text, on this error path only, to find the first bad line.

:func:`integer_column` and :func:`number_column` check string columns strictly (``1.7``
is not an id, ``inf`` is not a rating) and name the line of the first bad value.
Line numbers are 1-based physical lines, the header being line 1.
"""

from __future__ import annotations

import csv
import gzip
import re
import warnings
import zlib
from collections.abc import Mapping
from pathlib import Path

import numpy as np
import pandas as pd

from rankaudit.errors import InputFileError

__all__ = [
    "first_undecodable_line",
    "integer_column",
    "number_column",
    "read_delimited",
]

_INTEGER = re.compile(r"[+-]?\d+")
_FIELDS = re.compile(r"Expected (\d+) fields in line (\d+), saw (\d+)")


def _open_binary(path: Path):
    return gzip.open(path, "rb") if path.suffix == ".gz" else open(path, "rb")


def first_undecodable_line(path: Path, encoding: str) -> tuple[int, bytes]:
    """``(line, bytes)`` of the first line of ``path`` (gunzipped if ``*.gz``) that is not valid
    ``encoding``; ``(0, b"")`` when every line decodes."""
    with _open_binary(path) as handle:
        for number, raw in enumerate(handle, start=1):
            try:
                raw.decode(encoding)
            except UnicodeDecodeError as err:
                return number, raw[err.start : err.end]
    return 0, b""  # pragma: no cover - pandas saw a bad byte, so there is one


def _first_wrong_width(
    path: Path, sep: str, encoding: str, quoting: int, width: int | None
) -> tuple[int, int, int]:
    """``(line, expected, found)`` of the first line whose field count differs from the first
    line's (or ``width``); ``(0, 0, 0)`` when all agree."""
    opener = gzip.open if path.suffix == ".gz" else open
    with opener(path, "rt", encoding=encoding, newline="") as handle:  # type: ignore[operator]
        reader = csv.reader(handle, delimiter=sep, quoting=quoting)
        for number, row in enumerate(reader, start=1):
            if not row:
                continue
            if width is None:
                width = len(row)
            elif len(row) != width:
                return number, width, len(row)
    return 0, 0, 0


def read_delimited(
    path: str | Path,
    *,
    sep: str,
    dtype: object = str,
    encoding: str = "utf-8",
    header_lines: int = 1,
    **kwargs: object,
) -> pd.DataFrame:
    """:func:`pandas.read_csv` with format errors as
    :class:`~rankaudit.errors.InputFileError` (module docstring).

    ``header_lines`` is 1 when the file has a header line, 0 with ``header=None``.
    ``kwargs`` go to ``read_csv`` (not ``usecols``: every field must be read, or a line
    with an extra field would pass unnoticed).
    """
    path = Path(path)
    if not path.is_file():
        raise FileNotFoundError(f"{path}: no such file")
    kwargs.setdefault("index_col", False)  # never take a line's extra field as an index
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("error", pd.errors.ParserWarning)
            frame = pd.read_csv(path, sep=sep, dtype=dtype, encoding=encoding, **kwargs)
    except pd.errors.ParserWarning:
        names = kwargs.get("names")
        quoting = int(kwargs.get("quoting", csv.QUOTE_MINIMAL))  # type: ignore[call-overload]
        line, want, got = _first_wrong_width(
            path,
            sep,
            encoding,
            quoting,
            None if names is None else len(names),  # type: ignore[arg-type]
        )
        raise InputFileError(
            path, line or None, f"expected {want} fields separated by {sep!r}, found {got}"
        ) from None
    except UnicodeDecodeError as err:
        try:
            line, bad = first_undecodable_line(path, encoding)
        except (OSError, EOFError, zlib.error):  # undecodable *and* a broken gzip stream
            raise InputFileError(path, None, f"not valid {encoding} text ({err.reason})") from None
        raise InputFileError(
            path, line, f"not valid {encoding} text (byte(s) {bad!r}); save the file as {encoding}"
        ) from None
    except (EOFError, zlib.error, gzip.BadGzipFile) as err:
        raise InputFileError(
            path, None, f"cannot decompress ({err}); the file is truncated or not gzip data"
        ) from None
    except pd.errors.EmptyDataError:
        raise InputFileError(path, 1, "empty file (expected a header line)") from None
    except pd.errors.ParserError as err:
        m = _FIELDS.search(str(err))
        if m is None:
            raise InputFileError(path, None, f"malformed ({' '.join(str(err).split())})") from None
        want, line, got = (int(g) for g in m.groups())
        raise InputFileError(
            path, line, f"expected {want} fields separated by {sep!r}, found {got}"
        ) from None
    except ValueError as err:
        if not isinstance(dtype, Mapping):
            raise
        text = read_delimited(
            path,
            sep=sep,
            dtype=str,
            encoding=encoding,
            header_lines=header_lines,
            keep_default_na=False,
            **kwargs,
        )
        for column, kind in dtype.items():
            if column not in text.columns:
                continue
            if np.dtype(kind).kind in "iu":
                integer_column(text, column, path, header_lines)
            elif np.dtype(kind).kind == "f":
                number_column(text, column, path, header_lines, finite=False)
        raise InputFileError(path, None, " ".join(str(err).split())) from None  # pragma: no cover
    return frame


def _line_of(frame: pd.DataFrame, position: int, header_lines: int) -> int:
    return int(position) + 1 + header_lines


def integer_column(
    frame: pd.DataFrame, column: str, path: str | Path, header_lines: int = 1
) -> np.ndarray:
    """A string column as int64: every value must be a whole decimal integer (``1.7``, ``1e3``,
    ``""`` and ``inf`` are refused, naming the line)."""
    text = frame[column].astype(str).str.strip()
    bad = ~text.str.fullmatch(_INTEGER).to_numpy(dtype=bool)
    if not bad.any():
        values = pd.to_numeric(text)
        if values.dtype == np.int64:
            return values.to_numpy()
        bad = np.array([not -(2**63) <= int(x) < 2**63 for x in text], dtype=bool)
    i = int(np.flatnonzero(bad)[0])
    raise InputFileError(
        path,
        _line_of(frame, i, header_lines),
        f"column {column!r} must be an integer (int64), got {frame[column].iloc[i]!r}",
    )


def number_column(
    frame: pd.DataFrame,
    column: str,
    path: str | Path,
    header_lines: int = 1,
    *,
    lo: float | None = None,
    hi: float | None = None,
    finite: bool = True,
) -> np.ndarray:
    """A string column as float64: every value a number (finite unless ``finite=False``), within
    ``[lo, hi]`` when given; the first bad value names its line."""
    raw = frame[column]
    values = pd.to_numeric(raw.astype(str).str.strip(), errors="coerce").to_numpy(dtype=np.float64)
    bad = np.isnan(values)
    if finite:
        bad |= ~np.isfinite(values)
    if lo is not None:
        bad |= values < lo
    if hi is not None:
        bad |= values > hi
    if bad.any():
        i = int(np.flatnonzero(bad)[0])
        rule = "a finite number" if finite else "a number"
        if lo is not None or hi is not None:
            rule += f" in [{lo}, {hi}]"
        raise InputFileError(
            path,
            _line_of(frame, i, header_lines),
            f"column {column!r} must be {rule}, got {raw.iloc[i]!r}",
        )
    return values
