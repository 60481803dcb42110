"""Reading an input file once, whatever it is: a file, a pipe, ``/dev/stdin`` or ``-``.

Every reader of :mod:`rankaudit.runs` keeps this one contract: the tabular readers through
:func:`read_input`, the TREC text readers through :mod:`rankaudit.runs.blocks`, which reads
the same way in line-aligned blocks and shares these helpers:

- The input is read **once**, start to end, so pipes and process substitution
  (``rankaudit audit q.qrels <(zcat run.gz)``) work; nothing seeks or reads it again.  ``-``
  means standard input.
- **gzip by content**: data that start with the gzip magic bytes ``1f 8b`` are decompressed,
  whatever the name (``run.GZ``, ``run.txt``); a file named ``.gz`` that holds plain text is
  read as plain text.  Members one after another are read as one text (:func:`gunzip`), and
  zero bytes after the last member (the padding tape tools write) are ignored, as GNU gzip
  ignores them; truncated or corrupt gzip data, or anything but zeros after a member's end
  that is not another member, is an error, not a short file.
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

import hashlib
import os
import sys
import zlib
from collections.abc import Iterable, Iterator
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import BinaryIO

import numba
import numpy as np
import pyarrow as pa

from rankaudit.runs.errors import RunFileError

__all__ = [
    "BOM",
    "GZIP_MAGIC",
    "HASHER",
    "InputBytes",
    "blank_separated",
    "crlf_to_lf",
    "file_sha256",
    "gunzip",
    "input_name",
    "is_reopenable_file",
    "open_input",
    "read_input",
]

#: A UTF-8 byte-order mark, dropped at the start of a text input.
BOM = b"\xef\xbb\xbf"
#: The first two bytes of gzip data (how an input is recognised as compressed).
GZIP_MAGIC = b"\x1f\x8b"
#: The one background thread that hashes input bytes (SHA-256) while the readers parse them.
HASHER = ThreadPoolExecutor(max_workers=1, thread_name_prefix="rankaudit-sha256")


def input_name(path: str | os.PathLike) -> str:
    """How messages name an input: its path as given, ``<stdin>`` for ``-``."""
    return "<stdin>" if str(path) == "-" else str(path)


def is_reopenable_file(path: str | os.PathLike) -> bool:
    """Whether ``path`` names a regular file that another process opening the same path reads
    too (a worker of a cluster; a second reading).  ``-``, a pipe (``/dev/fd/63`` of
    ``<(zcat run.gz)``), a FIFO, a device and the per-process names (``/dev/stdin``,
    ``/dev/fd/N``, ``/proc/self/fd/N``, even when they lead to a regular file) are not: they
    can be read once, by this process only."""
    where = os.path.abspath(path)
    if str(path) == "-" or where == "/dev/stdin" or where.startswith(("/dev/fd/", "/proc/")):
        return False
    return Path(path).is_file()


@dataclass(frozen=True)
class InputBytes:
    """An input read once: ``data`` (decompressed, BOM dropped, CRLF as LF), a
    :class:`pyarrow.Buffer` over bytes read into memory, and the SHA-256
    of the raw bytes as they were read (a :class:`~concurrent.futures.Future` of the hex
    digest, computed on a thread)."""

    name: str
    data: pa.Buffer
    digest: Future
    compressed: bool

    @property
    def sha256(self) -> str:
        """Hex SHA-256 of the bytes read (compressed bytes for a gzip input)."""
        return str(self.digest.result())

    def to_bytes(self) -> bytes:
        """``data`` as Python bytes (a copy: for the slow paths only)."""
        return self.data.to_pybytes()


def _hex_digest(raw: pa.Buffer) -> str:
    return hashlib.sha256(raw).hexdigest()  # hashlib releases the GIL on large buffers


def file_sha256(path: str | os.PathLike) -> str:
    """Hex SHA-256 of the file at ``path``, read in 1 MiB blocks."""
    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def open_input(path: str | os.PathLike) -> BinaryIO:
    """``path`` opened for reading bytes once (standard input for ``-``); a missing file, a
    directory or an unreadable file is a RunFileError naming it.  Never memory-mapped: a
    mapped file that another process truncates while it is parsed or hashed kills the process
    with SIGBUS."""
    name = input_name(path)
    if str(path) == "-":
        return sys.stdin.buffer
    p = Path(path)
    if not p.exists():
        raise RunFileError(name, None, "no such file")
    if p.is_dir():
        raise RunFileError(name, None, "is a directory, not a file")
    try:
        return open(p, "rb")  # noqa: SIM115 - a file, a pipe, a device: the caller closes it
    except OSError as exc:
        raise RunFileError(name, None, f"cannot be read ({exc.strerror or exc})") from None


def _bad_gzip(name: str, why: object) -> RunFileError:
    return RunFileError(name, None, f"starts as gzip data but cannot be decompressed ({why})")


def gunzip(chunks: Iterable[bytes], name: str, max_piece: int = 0) -> Iterator[bytes]:
    """The decompressed bytes of gzip data arriving as ``chunks`` (pieces of at most
    ``max_piece`` bytes; 0: no limit), as GNU gzip reads it: members one after another; after
    a member, zero bytes to the end are padding and ignored.  A truncated or corrupt member,
    or anything after the padding, is a RunFileError naming ``name``."""
    d: zlib._Decompress | None = zlib.decompressobj(wbits=31)
    padding = False
    for chunk in chunks:
        pending = bytes(chunk) if padding else chunk
        while pending:
            if padding:
                if bytes(pending).strip(b"\0"):
                    raise _bad_gzip(name, "bytes other than zeros after the padding")
                break
            if d is None:  # the previous member ended: padding or the next member
                if bytes(pending[:1]) == b"\0":
                    padding = True
                    continue
                d = zlib.decompressobj(wbits=31)
            try:
                out = d.decompress(pending, max_piece)
            except zlib.error as exc:
                raise _bad_gzip(name, exc) from None
            if out:
                yield out
            if d.eof:
                pending, d = d.unused_data, None
            else:
                pending = d.unconsumed_tail
    if d is not None and not d.eof:
        raise _bad_gzip(name, "Compressed file ended before the end-of-stream marker")


def _read_raw(path: str | os.PathLike) -> pa.Buffer:
    fh = open_input(path)
    try:
        return pa.py_buffer(fh.read())
    except OSError as exc:
        raise RunFileError(
            input_name(path), None, f"cannot be read ({exc.strerror or exc})"
        ) from None
    finally:
        if fh is not sys.stdin.buffer:
            fh.close()


@numba.njit(cache=True)
def _count_byte(buf, value):  # pragma: no cover - compiled
    """How many bytes of ``buf`` equal ``value`` (one branch-free pass)."""
    total = 0
    for i in range(buf.size):
        total += buf[i] == value
    return total


def crlf_to_lf(text: bytes, name: str, first_line: int = 1) -> bytes:
    """``text`` with CRLF line ends as LF; a lone carriage return is a RunFileError naming its
    line (``first_line`` is the line ``text`` starts on)."""
    plain = text.replace(b"\r\n", b"\n")
    lone = plain.find(b"\r")
    if lone >= 0:
        raise RunFileError(
            name,
            first_line + plain.count(b"\n", 0, lone),
            "a carriage return (\\r) inside a line; save the file with \\n or \\r\\n line ends",
        )
    return plain


def _bytes_of(data: pa.Buffer | bytes) -> np.ndarray:
    return np.frombuffer(data, dtype=np.uint8)


def read_input(path: str | os.PathLike, *, text: bool = True) -> InputBytes:
    """Read ``path`` once (module docstring).  ``text=False`` keeps the bytes as they are after
    decompression (for Parquet): no BOM or line-end handling."""
    name = input_name(path)
    raw = _read_raw(path)
    digest = HASHER.submit(_hex_digest, raw)
    compressed = raw.size >= 2 and raw.slice(0, 2).to_pybytes() == GZIP_MAGIC
    data = raw
    if compressed:
        data = pa.py_buffer(b"".join(gunzip([memoryview(raw)], name)))
    if text:
        if data.size >= len(BOM) and data.slice(0, len(BOM)).to_pybytes() == BOM:
            data = data.slice(len(BOM))
        if data.size and _count_byte(_bytes_of(data), 13):
            data = pa.py_buffer(crlf_to_lf(data.to_pybytes(), name))
    return InputBytes(name, data, digest, compressed)


@numba.njit(cache=True)
def _scan_layout(buf):  # pragma: no cover - compiled
    """One branch-free (SIMD) pass: ``(has_tab, has_space, irregular)``.  Irregular: a blank
    or a newline right after a blank, a newline or the start (two blanks, a blank at a line
    edge, an empty line), or a blank at the very end."""
    n = buf.size
    tab = np.uint8(0)
    space = np.uint8(0)
    pairs = np.uint8(0)
    for i in range(1, n):
        c = buf[i]
        p = buf[i - 1]
        is_sep = np.uint8((c == 32) | (c == 9) | (c == 10))
        was_sep = np.uint8((p == 32) | (p == 9) | (p == 10))
        pairs |= is_sep & was_sep
        tab |= np.uint8(c == 9)
        space |= np.uint8(c == 32)
    first, last = buf[0], buf[n - 1]
    tab |= np.uint8(first == 9)
    space |= np.uint8(first == 32)
    edge = (first == 32) | (first == 9) | (first == 10) | (last == 32) | (last == 9)
    return tab != 0, space != 0, (pairs != 0) or edge


@numba.njit(cache=True)
def _single_spaced(buf, out, lines):  # pragma: no cover - compiled
    """Write ``buf`` to ``out`` with each run of blanks between two fields as one space, blanks
    at line edges dropped and lines without a field dropped; ``lines`` gets the 1-based number
    of every kept line.  Returns ``(bytes written, lines kept, lines seen)``."""
    j = 0
    kept = 0
    line_no = 1
    pending = False
    has_field = False
    for i in range(buf.size):
        c = buf[i]
        if c == 32 or c == 9:
            pending = has_field
        elif c == 10:
            if has_field:
                out[j] = 10
                j += 1
                lines[kept] = line_no
                kept += 1
            line_no += 1
            pending = False
            has_field = False
        else:
            if pending:
                out[j] = 32
                j += 1
                pending = False
            out[j] = c
            j += 1
            has_field = True
    if has_field:
        out[j] = 10
        j += 1
        lines[kept] = line_no
        kept += 1
    else:
        line_no -= 1  # text ending in a newline: no line after it
    return j, kept, line_no


def blank_separated(data: pa.Buffer) -> tuple[pa.Buffer, np.ndarray | None]:
    """``data`` with fields separated by single spaces, empty lines dropped, and the 1-based
    physical line of every kept line (``None`` when no line was dropped: line = row + 1).

    Runs of spaces and tabs become one space; blanks at the start or end of a line go.  A text
    already in that shape costs one vectorised scan and no copy.
    """
    if not data.size:
        return data, None
    buf = _bytes_of(data)
    has_tab, has_space, irregular = _scan_layout(buf)
    if not irregular and not (has_tab and has_space):
        if has_tab:
            return pa.py_buffer(data.to_pybytes().replace(b"\t", b" ")), None
        return data, None
    out = np.empty(len(buf) + 1, dtype=np.uint8)
    lines = np.empty(_count_byte(buf, 10) + 1, dtype=np.int64)
    n_out, kept, seen = _single_spaced(buf, out, lines)
    text = pa.py_buffer(out[:n_out])
    return text, (None if kept == seen else lines[:kept].copy())
