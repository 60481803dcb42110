"""gzip inputs as GNU gzip reads them, on both reader paths (TREC text in blocks, CSV whole):
zero bytes after the last member (tape padding) are ignored; anything else after a member
that is not another member, or after the padding, is an error naming the file."""

from __future__ import annotations

import gzip

import numpy as np
import pytest

from rankaudit.runs import blocks
from rankaudit.runs.errors import RunFileError
from rankaudit.runs.tabular import read_long_run
from rankaudit.runs.trec import read_trec_run

RUN = "q1 Q0 d1 1 2.5 t\nq1 Q0 d2 2 1.5 t\nq2 Q0 d1 1 0.5 t\n"
CSV = "query,docno,score\nq1,d1,2.5\nq1,d2,1.5\nq2,d1,0.5\n"
SIZES = [None, (1, 1), (5, 3), (64, 7)]


def _trec(path, size):
    saved = blocks.BLOCK_BYTES, blocks.RAW_CHUNK
    if size:
        blocks.BLOCK_BYTES, blocks.RAW_CHUNK = size
    try:
        return read_trec_run(path)
    finally:
        blocks.BLOCK_BYTES, blocks.RAW_CHUNK = saved


def _members(text: str) -> bytes:
    half = len(text) // 2
    return gzip.compress(text[:half].encode(), mtime=0) + gzip.compress(
        text[half:].encode(), mtime=0
    )


@pytest.mark.parametrize("size", SIZES)
@pytest.mark.parametrize("pad", [1, 7, 512, 10240])
def test_zero_padding_after_the_last_member_is_ignored(tmp_path, size, pad):
    plain_run = tmp_path / "r.run"
    plain_run.write_text(RUN)
    plain_csv = tmp_path / "r.csv"
    plain_csv.write_text(CSV)
    for body in (gzip.compress(RUN.encode(), mtime=0), _members(RUN)):
        padded = tmp_path / "padded.run"
        padded.write_bytes(body + b"\0" * pad)
        got, want = _trec(padded, size), read_trec_run(plain_run)
        assert got.docno.to_pylist() == want.docno.to_pylist()
        assert np.array_equal(got.score, want.score)
    padded_csv = tmp_path / "padded.csv"
    padded_csv.write_bytes(_members(CSV) + b"\0" * pad)
    assert np.array_equal(read_long_run(padded_csv).score, read_long_run(plain_csv).score)


@pytest.mark.parametrize("size", SIZES)
@pytest.mark.parametrize(
    "tail",
    [
        b"\0\0garbage",  # something after the padding
        b"\0" * 3 + gzip.compress(b"q3 Q0 d9 1 9 t\n", mtime=0),  # a member after the padding
        b"garbage",  # no padding: not a member
        b"\0\0\0\x01",
    ],
    ids=["garbage-after-padding", "member-after-padding", "garbage", "non-zero-after-padding"],
)
def test_anything_else_after_a_member_is_an_error(tmp_path, size, tail):
    path = tmp_path / "bad.run"
    path.write_bytes(gzip.compress(RUN.encode(), mtime=0) + tail)
    with pytest.raises(RunFileError, match=r"bad\.run: starts as gzip data but cannot be"):
        _trec(path, size)
    csv = tmp_path / "bad.csv"
    csv.write_bytes(gzip.compress(CSV.encode(), mtime=0) + tail)
    with pytest.raises(RunFileError, match=r"bad\.csv: starts as gzip data but cannot be"):
        read_long_run(csv)


@pytest.mark.parametrize("size", SIZES)
def test_a_truncated_member_is_still_an_error(tmp_path, size):
    path = tmp_path / "cut.run"
    path.write_bytes(gzip.compress(RUN.encode(), mtime=0)[:-5] + b"\0" * 8)
    with pytest.raises(RunFileError, match="cannot be decompressed"):
        _trec(path, size)
