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
- Fields are separated by any run of spaces or tabs (blanks at the start or end of a line do
  not count); empty lines are skipped.  One reader contract for every path
  (:mod:`rankaudit.runs.inputs`): the input is read once (pipes and ``-`` work), gzip is
  recognised by content, a byte-order mark is dropped and CRLF line ends are accepted.

Stricter than trec_eval, by design: a line with the wrong number of fields, a score that is
not a finite number (trec_eval's ``atof`` reads ``"1.5x"`` as 1.5 and ``"x"`` as 0), or a
label that is not an integer is an error, a :class:`~rankaudit.runs.errors.RunFileError`
naming the file and the line.  Duplicate documents within a query, which trec_eval rejects
at evaluation, are reported by :func:`rankaudit.runs.layout.join_run_qrels` with their line.

Speed and memory: the file is read once, in line-aligned blocks of about 32 MB
(:mod:`rankaudit.runs.blocks`), so its text is never held whole.  Each block is laid out with
single spaces (a no-op for a file that already is, a few vectorised passes otherwise, keeping
every line's number) and parsed by ``pyarrow.csv`` (multi-threaded C++); its ids are
dictionary-encoded at once, so a run holds int32 codes and its distinct ids, not a string
per line.  When pyarrow cannot read a block (a bad field), an exact line-by-line parser with
the same splitting rule reads it or stops at the first bad line and names it.  Numbers are
read strictly, alike on both paths: ``1_0`` is not 10, ``+1`` is a label, ``0x10`` is not,
``inf`` is not a score.
"""

from __future__ import annotations

import math
import os
import re
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.csv as pacsv

from rankaudit._checks import LABEL_LIMIT, LABEL_RANGE, first_label_out_of_range
from rankaudit.runs.blocks import BlockStream, TextBlock, text_blocks
from rankaudit.runs.encoding import release_arrow_memory
from rankaudit.runs.errors import RunFileError
from rankaudit.runs.tables import Qrels, Run

__all__ = ["read_trec_qrels", "read_trec_run", "write_trec_qrels", "write_trec_run"]

_RUN_FIELDS = ("query", "q0", "docno", "rank", "score", "tag")
_QRELS_FIELDS = ("query", "iter", "docno", "relevance")


_SCORE = re.compile(rb"[+-]?(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?")
_NONFINITE = re.compile(rb"[+-]?(?:inf|infinity|nan)", re.IGNORECASE)
_INTEGER = re.compile(rb"[+-]?[0-9]+")
_BLANKS = re.compile(rb"[ \t]+")
_LABEL_PATTERN = "^[+-]?[0-9]+$"  # _INTEGER for pyarrow's regular expressions
_LABEL_DIGITS = len(str(LABEL_LIMIT))  # digits of the largest label magnitude


#: Single-space separated text: nothing quoted or escaped, every line a row.
_PARSE = pacsv.ParseOptions(
    delimiter=" ", quote_char=False, double_quote=False, escape_char=False, ignore_empty_lines=False
)


def _fast_read(
    text: pa.Buffer, names: tuple[str, ...], types: dict[str, pa.DataType]
) -> pa.Table | None:
    """pyarrow.csv parse of single-space separated text; None when it cannot parse it."""
    read = pacsv.ReadOptions(column_names=list(names), block_size=1 << 24)
    convert = pacsv.ConvertOptions(
        column_types=types, include_columns=list(types), strings_can_be_null=False,
        quoted_strings_can_be_null=False, null_values=[],
    )  # fmt: skip
    try:
        return pacsv.read_csv(pa.BufferReader(text), read, _PARSE, convert)
    except (pa.ArrowInvalid, pa.ArrowTypeError, UnicodeDecodeError):
        return None


def _score(field: bytes) -> float:
    if _NONFINITE.fullmatch(field):
        raise ValueError(f"{field.decode()!r} is not a finite number")
    if not _SCORE.fullmatch(field):
        raise ValueError(f"{field.decode()!r} is not a number")
    value = float(field)
    if not math.isfinite(value):
        raise ValueError(f"{field.decode()!r} is not a finite number (too large for a double)")
    return value


def _label(field: bytes) -> int:
    if not _INTEGER.fullmatch(field):
        raise ValueError(f"{field.decode()!r} is not an integer")
    digits = field.lstrip(b"+-").lstrip(b"0") or b"0"
    if len(digits) > _LABEL_DIGITS:  # int() of thousands of digits is refused by Python itself
        raise ValueError(f"{field.decode()[:40]!r} is out of range ({LABEL_RANGE})")
    value = int(digits) * (-1 if field.startswith(b"-") else 1)
    if not -LABEL_LIMIT < value < LABEL_LIMIT:
        raise ValueError(f"{field.decode()!r} is out of range ({LABEL_RANGE})")
    return value


def _fast_labels(column: pa.ChunkedArray) -> np.ndarray | None:
    """A label column read as text, converted as :func:`_label` reads one (a sign, decimal
    digits); ``None`` when a token is anything else or does not fit int64, and the exact parser
    names the line.  (pyarrow's integer parser takes ``0x10`` as 16: the fast path avoids it.)"""
    if not pc.all(pc.match_substring_regex(column, _LABEL_PATTERN)).as_py():
        return None
    if pc.any(pc.starts_with(column, "+")).as_py():
        column = pc.utf8_ltrim(column, "+")  # pyarrow's cast refuses a plus sign
    try:
        return pc.cast(column, pa.int64()).to_numpy()
    except (pa.ArrowInvalid, pa.ArrowTypeError):
        return None


def _ident(field: bytes) -> str:
    return field.decode("utf-8")


def _exact_parse(
    block: TextBlock,
    name: str,
    names: tuple[str, ...],
    converters: dict[int, Callable[[bytes], object]],
    what: str,
) -> tuple[list[list[object]], np.ndarray]:
    """Line-by-line parse of one block (fields split on runs of blanks); raises RunFileError
    at the first malformed line.  The fast path's fallback: it names the line the fast path
    could not read."""
    n_fields = len(names)
    columns: list[list[object]] = [[] for _ in converters]
    lines: list[int] = []
    for line_no, line in enumerate(block.raw.split(b"\n"), start=block.first_line):
        try:
            line.decode("utf-8")
        except UnicodeDecodeError:
            raise RunFileError(name, line_no, "not valid UTF-8 text") from None
        stripped = line.strip(b" \t")
        if not stripped:
            continue
        fields = _BLANKS.split(stripped)
        if len(fields) != n_fields:
            shown = stripped.decode()[:80]
            expected = f"expected {n_fields} fields ({' '.join(names)}) in a {what} line"
            raise RunFileError(name, line_no, f"{expected}, got {len(fields)}: {shown!r}")
        for out, (i, convert) in zip(columns, converters.items(), strict=True):
            try:
                out.append(convert(fields[i]))
            except ValueError as exc:
                raise RunFileError(name, line_no, f"{names[i]} {exc}") from None
        lines.append(line_no)
    return columns, np.asarray(lines, dtype=np.int64)


def _encoded_ids(column: pa.ChunkedArray | pa.Array) -> pa.Array:
    """A string column dictionary-encoded (int32 codes, values in order of first appearance)."""
    encoded = pc.dictionary_encode(column)
    if isinstance(encoded, pa.ChunkedArray):
        encoded = encoded.unify_dictionaries().combine_chunks()
    return encoded


@dataclass
class _Parsed:
    """The columns of a text file read block by block (ids dictionary-encoded)."""

    ids: list[list[pa.Array]]
    numbers: list[list[np.ndarray]]
    lines: list[np.ndarray | None]
    starts: list[int]
    rows: list[int]

    def id_column(self, j: int) -> pa.Array:
        """Column ``j``'s blocks as one dictionary array; the blocks are let go as it is built
        (so a large file never holds two copies of every column at once)."""
        chunks, self.ids[j] = self.ids[j], []
        if len(chunks) == 1:
            return chunks[0]
        return pa.chunked_array(chunks).unify_dictionaries().combine_chunks()

    def number_column(self, j: int, dtype: type) -> np.ndarray:
        """Column ``j``'s blocks as one array; the blocks are let go as it is built."""
        parts, self.numbers[j] = self.numbers[j], []
        return np.ascontiguousarray(parts[0] if len(parts) == 1 else np.concatenate(parts), dtype)

    def line_column(self) -> np.ndarray | None:
        """Physical line of every row, ``None`` when row ``i`` is line ``i + 1``."""
        if all(x is None for x in self.lines) and all(
            a == sum(self.rows[:i]) + 1 for i, a in enumerate(self.starts)
        ):
            return None
        return np.concatenate(
            [
                x if x is not None else np.arange(a, a + n, dtype=np.int64)
                for x, a, n in zip(self.lines, self.starts, self.rows, strict=True)
            ]
        )


#: pyarrow's types of the fast path: labels as text, converted by :func:`_fast_labels`.
_ARROW_TYPES = {"id": pa.string(), "score": pa.float64(), "label": pa.string()}
_NUMPY_TYPES = {"score": np.float64, "label": np.int64}
_EXACT = {"id": _ident, "score": _score, "label": _label}


def _parse_block(
    block: TextBlock, name: str, names: tuple[str, ...], fields: dict[int, str], what: str
) -> tuple[list[object], np.ndarray | None]:
    """One block's columns (ids as string arrays, numbers as numpy) and its line numbers:
    pyarrow's parser first, the exact parser when it cannot (a bad field, a non-finite score,
    a label that is not a signed decimal), which names the first bad line.  Both paths accept
    the same tokens as the same values (tested token by token): one verdict per file."""
    if block.text.size:
        types = {names[i]: _ARROW_TYPES[k] for i, k in fields.items()}
        table = _fast_read(block.text, names, types)
        if table is not None and table.num_rows:
            cols: list[object] = []
            for i, k in fields.items():
                column = table.column(names[i])
                if k == "id":
                    cols.append(column)
                elif k == "label":
                    cols.append(_fast_labels(column))
                else:
                    values = column.to_numpy()
                    cols.append(values if np.isfinite(values).all() else None)
            if all(c is not None for c in cols):
                return cols, block.lines
    converters = {i: _EXACT[k] for i, k in fields.items()}
    parsed, lines = _exact_parse(block, name, names, converters, what)
    cols = [
        pa.array(c, pa.string()) if k == "id" else np.asarray(c)
        for c, k in zip(parsed, fields.values(), strict=True)
    ]
    return cols, lines


def _read_text(
    path: str | os.PathLike, names: tuple[str, ...], fields: dict[int, str], what: str
) -> tuple[_Parsed, BlockStream]:
    """Parse a TREC text file block by block.  ``fields`` maps a field index to its kind:
    ``"id"`` (a string, dictionary-encoded), ``"score"`` (a finite double) or ``"label"`` (an
    integer within :data:`~rankaudit._checks.LABEL_LIMIT`)."""
    kinds = list(fields.values())
    stream = text_blocks(path)
    out = _Parsed([[] for _ in kinds], [[] for _ in kinds], [], [], [])
    for block in stream:
        cols, lines = _parse_block(block, stream.name, names, fields, what)
        n = len(cols[0])
        if not n:
            continue
        for j, (c, k) in enumerate(zip(cols, kinds, strict=True)):
            if k == "id":
                out.ids[j].append(_encoded_ids(c))
                continue
            if k == "label":
                row = first_label_out_of_range(c)
                if row >= 0:
                    line = lines[row] if lines is not None else block.first_line + row
                    raise RunFileError(
                        stream.name,
                        int(line),
                        f"relevance {c[row]} is out of range ({LABEL_RANGE})",
                    )
            out.numbers[j].append(c)
        out.lines.append(lines)
        out.starts.append(block.first_line)
        out.rows.append(n)
    if not out.rows:
        raise RunFileError(stream.name, None, f"no {what} lines (empty file)")
    return out, stream


def _read_table(
    path: str | os.PathLike,
    cls: type[Run] | type[Qrels],
    names: tuple[str, ...],
    fields: dict[int, str],
    what: str,
) -> Run | Qrels:
    """A :class:`Run` or :class:`Qrels` from a TREC text file (``fields``: two ids, then the
    score or the label); the parser's block buffers are let go before it returns."""
    parsed, stream = _read_text(path, names, fields, what)
    dtype = _NUMPY_TYPES[fields[max(fields)]]  # the last field: the score or the label
    table = cls(
        parsed.id_column(0),
        parsed.id_column(1),
        parsed.number_column(2, dtype),
        stream.name,
        parsed.line_column(),
        True,
        stream.sha256,
    )
    del parsed
    release_arrow_memory()
    return table


def read_trec_run(path: str | os.PathLike) -> Run:
    """Read a TREC run file (``qid Q0 docno rank score tag``) into a :class:`Run`.

    ``path`` may be a pipe or ``-`` (standard input); gzip is recognised by content
    (:mod:`rankaudit.runs.blocks`).  The file is read in blocks, so the text is never held
    whole; ``query`` and ``docno`` come back dictionary-encoded.  Raises
    :class:`~rankaudit.runs.errors.RunFileError` (a ValueError) naming the file and line of
    the first malformed line, a non-finite score, or a missing / empty file.
    """
    return _read_table(path, Run, _RUN_FIELDS, {0: "id", 2: "id", 4: "score"}, "run")


def read_trec_qrels(path: str | os.PathLike) -> Qrels:
    """Read a TREC qrels file (``qid iter docno rel``) into a :class:`Qrels`.

    ``path`` may be a pipe or ``-``; gzip is recognised by content.  Raises
    :class:`~rankaudit.runs.errors.RunFileError` naming the file and line of the first
    malformed line, non-integer label or label out of range (:data:`rankaudit._checks.
    LABEL_LIMIT`), or a missing / empty file.
    """
    return _read_table(path, Qrels, _QRELS_FIELDS, {0: "id", 2: "id", 3: "label"}, "qrels")


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
