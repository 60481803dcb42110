"""One reader contract: the same runs and qrels written with random blanks, byte-order marks,
line ends, blank lines and compression, and read from a file or a pipe, give identical tables
and identical audit results (TREC text and CSV/TSV alike)."""

from __future__ import annotations

import contextlib
import gzip
import os
import threading

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from rankaudit.runs import Qrels, Run, audit_run, blocks
from rankaudit.runs.tabular import read_long_qrels, read_long_run
from rankaudit.runs.trec import read_trec_qrels, read_trec_run

SETTINGS = settings(
    max_examples=60,
    deadline=None,
    derandomize=True,
    database=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture],
)
BLANKS = st.sampled_from([" ", "\t", "  ", " \t", "\t ", "\t\t", "   "])
EDGE = st.sampled_from(["", " ", "\t", " \t "])


@st.composite
def collections(draw):
    """A run and qrels of up to 3 queries, with ties (scores from a small set)."""
    run, qrels = [], []
    for q in range(1, draw(st.integers(1, 3)) + 1):
        docs = draw(st.lists(st.integers(1, 9), min_size=1, max_size=6, unique=True))
        for d in docs:
            run.append((str(q), f"d{d}", draw(st.sampled_from([0.1, 0.25, 0.5, 1.0, 2.0]))))
        for d in draw(st.lists(st.integers(1, 9), min_size=1, max_size=4, unique=True)):
            qrels.append((str(q), f"d{d}", draw(st.integers(0, 2))))
    return run, qrels


@st.composite
def layouts(draw):
    """How a file is written: blanks between fields and at the line edges, blank lines,
    line ends, a BOM, gzip, and whether it is read through a pipe."""
    return {
        "gaps": draw(st.lists(BLANKS, min_size=6, max_size=6)),
        "edges": (draw(EDGE), draw(EDGE)),
        "blank_every": draw(st.sampled_from([0, 1, 2, 3])),
        "crlf": draw(st.booleans()),
        "bom": draw(st.booleans()),
        "gzip": draw(st.booleans()),
        "pipe": draw(st.booleans()),
        "trailing_blank_lines": draw(st.integers(0, 2)),
        # the TREC readers' block and read sizes (None: the defaults): tiny blocks put block
        # edges inside lines, CRLF pairs, the byte-order mark and gzip members
        "block": draw(st.sampled_from([None, (1, 1), (5, 3), (17, 2), (64, 7)])),
    }


@contextlib.contextmanager
def _block_sizes(how: dict):
    """Read with ``how['block']`` = (block bytes, raw read bytes) instead of the defaults."""
    saved = blocks.BLOCK_BYTES, blocks.RAW_CHUNK
    if how.get("block"):
        blocks.BLOCK_BYTES, blocks.RAW_CHUNK = how["block"]
    try:
        yield
    finally:
        blocks.BLOCK_BYTES, blocks.RAW_CHUNK = saved


def _text(rows: list[list[str]], how: dict, sep: str | None = None) -> bytes:
    lines = []
    for i, fields in enumerate(rows):
        if sep is None:
            body = fields[0] + "".join(g + f for g, f in zip(how["gaps"], fields[1:], strict=False))
            body = how["edges"][0] + body + how["edges"][1]
        else:
            body = sep.join(fields)
        lines.append(body)
        if how["blank_every"] and i % how["blank_every"] == 0:
            lines.append("" if sep is not None else how["edges"][0])
    end = "\r\n" if how["crlf"] else "\n"
    text = end.join(lines) + end + end * how["trailing_blank_lines"]
    data = ("\ufeff" if how["bom"] else "") + text
    raw = data.encode("utf-8")
    return gzip.compress(raw, mtime=0) if how["gzip"] else raw


def _read(reader, data: bytes, path, how: dict, **kw):
    with _block_sizes(how):
        return _read_once(reader, data, path, how, **kw)


def _read_once(reader, data: bytes, path, how: dict, **kw):
    if not how["pipe"]:
        path.write_bytes(data)
        return reader(path, **kw)
    r, w = os.pipe()

    def feed():
        with os.fdopen(w, "wb") as fh:
            fh.write(data)

    thread = threading.Thread(target=feed)
    thread.start()
    try:
        return reader(f"/dev/fd/{r}", **kw)
    finally:
        thread.join()
        os.close(r)


def _same(a, b) -> None:
    assert a.query.to_pylist() == b.query.to_pylist()
    assert a.docno.to_pylist() == b.docno.to_pylist()
    values = "score" if isinstance(a, Run) else "relevance"
    assert np.array_equal(getattr(a, values), getattr(b, values))


def _audit(run: Run, qrels: Qrels) -> np.ndarray:
    audit = audit_run(run, qrels, ["nDCG@10", "AP", "RR"], ties=["trec_eval", "expected"])
    return np.concatenate([v.ravel() for v in audit.values.values()])


@SETTINGS
@given(collection=collections(), run_how=layouts(), qrels_how=layouts())
def test_trec_text_reads_the_same_however_it_is_written(tmp_path, collection, run_how, qrels_how):
    run_rows, qrels_rows = collection
    ref_run = Run.from_arrays(*zip(*run_rows, strict=True))
    ref_qrels = Qrels.from_arrays(*zip(*qrels_rows, strict=True))
    run_text = _text(
        [[q, "Q0", d, str(i + 1), repr(s), "t"] for i, (q, d, s) in enumerate(run_rows)], run_how
    )
    qrels_text = _text([[q, "0", d, str(r)] for q, d, r in qrels_rows], qrels_how)
    run = _read(read_trec_run, run_text, tmp_path / "r.run", run_how)
    qrels = _read(read_trec_qrels, qrels_text, tmp_path / "q.qrels", qrels_how)
    _same(run, ref_run)
    _same(qrels, ref_qrels)
    assert np.array_equal(_audit(run, qrels), _audit(ref_run, ref_qrels))


@SETTINGS
@given(collection=collections(), how=layouts(), tsv=st.booleans())
def test_csv_and_tsv_read_the_same_however_they_are_written(tmp_path, collection, how, tsv):
    run_rows, qrels_rows = collection
    sep, fmt = ("\t", "tsv") if tsv else (",", "csv")
    run_text = _text(
        [["query", "docno", "score"]] + [[q, d, repr(s)] for q, d, s in run_rows], how, sep
    )
    qrels_text = _text(
        [["query", "docno", "relevance"]] + [[q, d, str(r)] for q, d, r in qrels_rows], how, sep
    )
    run = _read(read_long_run, run_text, tmp_path / f"r.{fmt}", how, file_format=fmt)
    qrels = _read(read_long_qrels, qrels_text, tmp_path / f"q.{fmt}", how, file_format=fmt)
    _same(run, Run.from_arrays(*zip(*run_rows, strict=True)))
    _same(qrels, Qrels.from_arrays(*zip(*qrels_rows, strict=True)))


@pytest.mark.parametrize("block", [None, (1, 1), (4, 2), (13, 5)])
def test_error_lines_are_physical_lines_after_blank_lines_and_a_bom(tmp_path, block):
    path = tmp_path / "q.qrels"
    path.write_bytes("\ufeff1 0 d1 1\r\n\r\n  \r\n1 0 d2 x\r\n".encode())
    try:
        with _block_sizes({"block": block}):
            read_trec_qrels(path)
    except ValueError as err:
        assert str(err).startswith(f"{path}:4: relevance 'x' is not an integer")
    else:  # pragma: no cover - the test fails here
        raise AssertionError("a bad label was read")
