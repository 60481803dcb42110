"""Reading a text input once, in line-aligned blocks, under the reader contract of
:mod:`rankaudit.runs.inputs`.

:func:`read_input` holds the whole input in memory, which a reader of a 10-million-line run
then holds beside everything it parses.  :func:`text_blocks` keeps the same contract (read
once, start to end, so pipes work; gzip recognised by content, multi-member, zero padding
and truncation included; a leading byte-order mark dropped; CRLF read as LF and a lone
carriage return an error naming its line; the SHA-256 of the bytes as read) but yields the
text a block of about ``block_bytes`` at a time, cut after a newline, each already laid out by
:func:`~rankaudit.runs.inputs.blank_separated` and carrying the physical line numbers of its
lines, so a parser holds one block of text at a time.

Public API: :class:`TextBlock`, :class:`BlockStream`, :func:`text_blocks`.
"""

from __future__ import annotations

import hashlib
import os
import sys
from collections.abc import Iterator
from concurrent.futures import Future
from dataclasses import dataclass

import numpy as np
import pyarrow as pa

from rankaudit.runs.errors import RunFileError
from rankaudit.runs.inputs import (
    BOM,
    GZIP_MAGIC,
    HASHER,
    blank_separated,
    crlf_to_lf,
    gunzip,
    input_name,
    open_input,
)

__all__ = ["BLOCK_BYTES", "RAW_CHUNK", "BlockStream", "TextBlock", "text_blocks"]

#: Bytes of text per block (the reader's working set is a few times this).
BLOCK_BYTES = 32 << 20
#: Bytes asked of the input per read.
RAW_CHUNK = 4 << 20


@dataclass(frozen=True)
class TextBlock:
    """Whole lines of the input: ``raw`` as read (LF line ends, no BOM), ``text`` laid out
    with single spaces and no empty line, ``lines`` the 1-based physical line of each line of
    ``text`` (``None``: line ``i`` of ``text`` is physical line ``first_line + i``)."""

    raw: bytes
    text: pa.Buffer
    lines: np.ndarray | None
    first_line: int

    def line_numbers(self, n: int) -> np.ndarray:
        """The physical line of each of the ``n`` lines of ``text`` (int64)."""
        if self.lines is not None:
            return self.lines
        return np.arange(self.first_line, self.first_line + n, dtype=np.int64)


class BlockStream:
    """The blocks of one input (iterate once) and, after the last, its ``sha256`` and
    whether it was ``compressed``."""

    def __init__(self, path: str | os.PathLike, block_bytes: int | None = None) -> None:
        self.name = input_name(path)
        self._path = path
        self._block_bytes = max(int(BLOCK_BYTES if block_bytes is None else block_bytes), 1)
        self._hasher = hashlib.sha256()
        self._digest: Future | None = None
        self.compressed = False

    @property
    def sha256(self) -> str:
        """Hex SHA-256 of the bytes read (compressed bytes for gzip); after the last block."""
        if self._digest is None:
            raise RuntimeError(f"{self.name}: the digest is known after the last block")
        return str(self._digest.result())

    def _raw_chunks(self) -> Iterator[bytes]:
        """The input's bytes as read, each submitted to the hashing thread in order."""
        fh = open_input(self._path)
        try:
            while True:
                try:
                    chunk = fh.read(RAW_CHUNK)
                except OSError as exc:
                    raise RunFileError(
                        self.name, None, f"cannot be read ({exc.strerror or exc})"
                    ) from None
                if not chunk:
                    break
                HASHER.submit(self._hasher.update, chunk)
                yield chunk
        finally:
            if fh is not sys.stdin.buffer:
                fh.close()
            self._digest = HASHER.submit(self._hasher.hexdigest)

    def _decoded(self) -> Iterator[bytes]:
        chunks = self._raw_chunks()
        first = next(chunks, b"")
        while len(first) < 2:  # a pipe may deliver fewer bytes than asked
            more = next(chunks, None)
            if more is None:
                break
            first += more

        def replay() -> Iterator[bytes]:
            if first:
                yield first
            yield from chunks

        self.compressed = first[:2] == GZIP_MAGIC
        if self.compressed:
            return gunzip(replay(), self.name, self._block_bytes)
        return replay()

    def __iter__(self) -> Iterator[TextBlock]:
        pieces: list[bytes] = []
        size = 0
        line = 1
        head: bytes | None = b""  # the first bytes, until the byte-order mark question is settled
        for piece in self._decoded():
            if head is not None:
                head += piece
                if len(head) < len(BOM) and BOM.startswith(head):
                    continue
                piece, head = head.removeprefix(BOM), None
            pieces.append(piece)
            size += len(piece)
            if size < self._block_bytes:
                continue
            data = b"".join(pieces)
            cut = data.rfind(b"\n") + 1
            if cut == 0:
                pieces, size = [data], len(data)
                continue
            block, rest = data[:cut], data[cut:]
            del data
            pieces, size = ([rest], len(rest)) if rest else ([], 0)
            yield self._block(block, line)
            line += block.count(b"\n")
        if head:
            pieces.append(head.removeprefix(BOM))
        tail = b"".join(pieces)
        if tail:
            yield self._block(tail, line)

    def _block(self, raw: bytes, first_line: int) -> TextBlock:
        if b"\r" in raw:
            raw = crlf_to_lf(raw, self.name, first_line)
        text, lines = blank_separated(pa.py_buffer(raw))
        if lines is not None:
            lines = lines + (first_line - 1)
        return TextBlock(raw, text, lines, first_line)


def text_blocks(path: str | os.PathLike, block_bytes: int | None = None) -> BlockStream:
    """The line-aligned blocks of ``path`` (a file, a pipe or ``-``), read once; blocks of
    about ``block_bytes`` (default :data:`BLOCK_BYTES`)."""
    return BlockStream(path, block_bytes)
