"""Reading an input file once, whatever it is: a file, a pipe, ``/dev/stdin`` or ``-``.

Every reader of :mod:`rankaudit.runs` starts here, so they share one contract:

- The input is read **once**, start to end, so pipes and process substitution
  (``rankaudit audit <(zcat run.gz) q.qrels``) work; nothing seeks or reads it again.  ``-``
  means standard input.
- **gzip by content**: data that start with the gzip magic bytes ``1f 8b`` are decompressed,
  whatever the name (``run.GZ``, ``run.txt``); a file named ``.gz`` that holds plain text is
  read as plain text.  Truncated or corrupt gzip data is an error, not a short file.
- A leading UTF-8 **byte-order mark** is dropped, and **CRLF** line ends read as LF (a lone
  carriage return inside a line is an error naming the line: it is neither a field nor a
  line end in trec_eval's reading).
- The **SHA-256** of the bytes as read (before decompression) is computed on a thread while
  the caller parses, so a report can name exactly what it read even when it was a pipe.

:func:`blank_separated` then lays TREC text out the way trec_eval splits it: fields separated
by *runs* of blanks (spaces and tabs), leading and trailing blanks ignored, empty lines
skipped.  A file that already has that shape (one kind of separator, single, no blank line)
is passed through untouched; anything else is rewritten with single spaces by a few
vectorised passes over the bytes, keeping the physical line number of every kept line, so
errors still name the line a user sees in an editor.
"""

from __future__ import annotations

import gzip
import hashlib
import os
import sys
import zlib
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from rankaudit.runs.errors import RunFileError

__all__ = ["InputBytes", "blank_separated", "input_name", "read_input"]

_BOM = b"\xef\xbb\xbf"
_GZIP_MAGIC = b"\x1f\x8b"
_HASHER = ThreadPoolExecutor(max_workers=1, thread_name_prefix="rankaudit-sha256")


def input_name(path: str | os.PathLike) -> str:
    """How messages name an input: its path as given, ``<stdin>`` for ``-``."""
    return "<stdin>" if str(path) == "-" else str(path)


@dataclass(frozen=True)
class InputBytes:
    """An input read once: ``data`` (decompressed, BOM dropped, CRLF as LF) and the SHA-256
    of the raw bytes as they were read (a :class:`~concurrent.futures.Future` of the hex
    digest, computed on a thread)."""

    name: str
    data: bytes
    digest: Future
    compressed: bool

    @property
    def sha256(self) -> str:
        """Hex SHA-256 of the bytes read (compressed bytes for a gzip input)."""
        return str(self.digest.result())


def _hex_digest(raw: bytes) -> str:
    return hashlib.sha256(raw).hexdigest()  # hashlib releases the GIL on large buffers


def _read_raw(path: str | os.PathLike) -> bytes:
    name = input_name(path)
    if str(path) == "-":
        return sys.stdin.buffer.read()
    p = Path(path)
    if not p.exists():
        raise RunFileError(name, None, "no such file")
    if p.is_dir():
        raise RunFileError(name, None, "is a directory, not a file")
    try:
        with open(p, "rb") as fh:
            return fh.read()
    except OSError as exc:
        raise RunFileError(name, None, f"cannot be read ({exc.strerror or exc})") from None


def read_input(path: str | os.PathLike, *, text: bool = True) -> InputBytes:
    """Read ``path`` once (module docstring).  ``text=False`` keeps the bytes as they are after
    decompression (for Parquet): no BOM or line-end handling."""
    name = input_name(path)
    raw = _read_raw(path)
    digest = _HASHER.submit(_hex_digest, raw)
    compressed = raw[:2] == _GZIP_MAGIC
    data = raw
    if compressed:
        try:
            data = gzip.decompress(raw)
        except (EOFError, OSError, zlib.error) as exc:
            raise RunFileError(
                name, None, f"starts as gzip data but cannot be decompressed ({exc})"
            ) from None
    if text:
        if data.startswith(_BOM):
            data = data[len(_BOM) :]
        if b"\r" in data:
            data = data.replace(b"\r\n", b"\n")
            lone = data.find(b"\r")
            if lone >= 0:
                raise RunFileError(
                    name,
                    data.count(b"\n", 0, lone) + 1,
                    "a carriage return (\\r) inside a line; save the file with \\n or \\r\\n "
                    "line ends",
                )
    return InputBytes(name, data, digest, compressed)


def _is_plain(data: bytes, sep: bytes) -> bool:
    """True when ``data`` already has single ``sep`` separators and nothing to skip."""
    other = b"\t" if sep == b" " else b" "
    return (
        other not in data
        and sep + sep not in data
        and b"\n\n" not in data
        and sep + b"\n" not in data
        and b"\n" + sep not in data
        and not data.startswith((sep, b"\n"))
        and not data.endswith(sep)
    )


def blank_separated(data: bytes) -> tuple[bytes, np.ndarray | None]:
    """``data`` with fields separated by single spaces, empty lines dropped, and the 1-based
    physical line of every kept line (``None`` when no line was dropped: line = row + 1).

    Runs of spaces and tabs become one space; blanks at the start or end of a line go.
    """
    if not data:
        return data, None
    for sep in (b" ", b"\t"):
        if _is_plain(data, sep):
            return (data if sep == b" " else data.replace(b"\t", b" ")), None
    if not data.endswith(b"\n"):
        data += b"\n"
    buf = np.frombuffer(data, dtype=np.uint8)
    blank = (buf == 0x20) | (buf == 0x09)
    newline = buf == 0x0A
    keep = ~blank
    # each run of blanks that sits between two field characters of one line becomes one space
    prev_blank = np.r_[False, blank[:-1]]
    next_blank = np.r_[blank[1:], False]
    starts = np.flatnonzero(blank & ~prev_blank)
    ends = np.flatnonzero(blank & ~next_blank)
    inside = (starts > 0) & (ends + 1 < len(buf))
    inside[inside] &= ~blank[starts[inside] - 1] & ~newline[starts[inside] - 1]
    inside[inside] &= ~newline[ends[inside] + 1]
    out = buf.copy()
    out[starts[inside]] = 0x20
    keep[starts[inside]] = True
    # drop the newline of every line without a field character
    nl_at = np.flatnonzero(newline)
    field_chars = np.cumsum(~blank & ~newline)[nl_at]
    per_line = np.diff(np.r_[0, field_chars])
    empty = per_line == 0
    keep[nl_at[empty]] = False
    lines = np.flatnonzero(~empty).astype(np.int64) + 1
    return out[keep].tobytes(), lines
