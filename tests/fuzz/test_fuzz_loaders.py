"""Fuzz the data loaders by mutating the test fixtures (issue 16).

Mutations: truncation at any byte, another delimiter, an extra or a missing field on some
line, bytes that are not UTF-8, an empty file, and for the gzip-read Amazon files a
truncated gzip stream or a plain file named ``.gz``.  Each load must either succeed with
finite numbers or raise :class:`rankaudit.errors.InputFileError` (the one error class for bad
files, a ValueError) whose message names the mutated file -- never another exception type, never
a hang.
Deterministic (``derandomize=True``).
"""

from __future__ import annotations

import gzip
import shutil
import tempfile
from pathlib import Path

import numpy as np
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from rankaudit.errors import InputFileError
from rankbook.data.amazon import read_meta, read_reviews
from rankbook.data.diginetica import load_diginetica
from rankbook.data.movielens import load_ml100k_grouplens, load_tag_genome

FIX = Path(__file__).resolve().parents[1] / "fixtures"
FUZZ = settings(
    max_examples=60,
    deadline=None,
    derandomize=True,
    database=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)
MUTATIONS = ["truncate", "delimiter", "extra_field", "missing_field", "bad_bytes", "empty"]


def _mutate(data: bytes, how: str, sep: bytes, draw) -> bytes:
    lines = data.splitlines(keepends=True)
    j = draw(st.integers(0, max(len(lines) - 1, 0)))
    if how == "truncate":
        return data[: draw(st.integers(0, max(len(data) - 1, 0)))]
    if how == "delimiter":
        return data.replace(sep, draw(st.sampled_from([b",", b";", b"\t", b"|", b" "])))
    if how == "extra_field":
        lines[j] = lines[j].rstrip(b"\r\n") + sep + b"7\n"
    elif how == "missing_field":
        lines[j] = sep.join(lines[j].rstrip(b"\r\n").split(sep)[:-1]) + b"\n"
    elif how == "bad_bytes":
        i = draw(st.integers(0, len(lines[j])))
        lines[j] = (
            lines[j][:i]
            + draw(st.sampled_from([b"\xff", b"\xc3", b"\xfe\xfe", b"\x00"]))
            + lines[j][i:]
        )
    elif how == "empty":
        return b""
    return b"".join(lines)


def _check_frame(frame) -> None:
    """Plain numeric columns are finite (nullable Int64 columns may hold <NA>: documented
    missing values such as an unknown release year)."""
    numeric = frame.select_dtypes("number")
    plain = [c for c in numeric.columns if isinstance(numeric[c].dtype, np.dtype)]
    assert np.isfinite(numeric[plain].to_numpy(dtype=float)).all()


def _run(loader, target: Path, mutated_name: str) -> None:
    try:
        result = loader(target)
    except ValueError as err:
        assert isinstance(err, InputFileError), repr(err)
        assert mutated_name in str(err), str(err)
        return
    for part in result if isinstance(result, tuple) else [result]:
        if hasattr(part, "select_dtypes"):
            _check_frame(part)


@FUZZ
@given(name=st.sampled_from(["u.data", "u.item"]), how=st.sampled_from(MUTATIONS), data=st.data())
def test_grouplens_ml100k(name, how, data):
    with tempfile.TemporaryDirectory() as tmp:
        d = Path(tmp) / "gl"
        shutil.copytree(FIX / "ml-100k-grouplens", d)
        sep = b"\t" if name == "u.data" else b"|"
        (d / name).write_bytes(_mutate((d / name).read_bytes(), how, sep, data.draw))
        _run(load_ml100k_grouplens, d, name)


@FUZZ
@given(
    name=st.sampled_from(["ratings.csv", "movies.csv", "genome-scores.csv", "genome-tags.csv"]),
    how=st.sampled_from(MUTATIONS),
    data=st.data(),
)
def test_tag_genome(name, how, data):
    with tempfile.TemporaryDirectory() as tmp:
        d = Path(tmp) / "ml-25m"
        shutil.copytree(FIX / "movielens-25m", d)
        (d / name).write_bytes(_mutate((d / name).read_bytes(), how, b",", data.draw))
        _run(load_tag_genome, d, name)


@FUZZ
@given(
    name=st.sampled_from(
        [
            "products.csv",
            "train-queries.csv",
            "train-clicks.csv",
            "train-item-views.csv",
            "train-purchases.csv",
            "product-categories.csv",
        ]
    ),
    how=st.sampled_from(MUTATIONS),
    data=st.data(),
)
def test_diginetica(name, how, data):
    with tempfile.TemporaryDirectory() as tmp:
        d = Path(tmp) / "digi"
        shutil.copytree(FIX / "diginetica" / "camel", d)
        (d / name).write_bytes(_mutate((d / name).read_bytes(), how, b";", data.draw))
        try:
            log = load_diginetica(d)
        except ValueError as err:
            assert isinstance(err, InputFileError), repr(err)
            assert name in str(err), str(err)
            return
        for frame in (log.items, log.queries, log.serp, log.clicks):
            numeric = frame.select_dtypes("number").to_numpy(dtype=float)
            assert not np.isinf(numeric).any()


@FUZZ
@given(
    which=st.sampled_from(
        [
            ("Beauty_and_Personal_Care.jsonl", read_reviews),
            ("meta_Beauty_and_Personal_Care.jsonl", read_meta),
        ]
    ),
    how=st.sampled_from([*MUTATIONS, "gzip_truncated", "plain_named_gz", "gzip_ok"]),
    data=st.data(),
)
def test_amazon(which, how, data):
    fixture, reader = which
    raw = (FIX / "amazon-2023" / fixture).read_bytes()
    with tempfile.TemporaryDirectory() as tmp:
        if how.startswith(("gzip", "plain")):
            path = Path(tmp) / (fixture + ".gz")
            packed = gzip.compress(raw)
            if how == "gzip_truncated":
                packed = packed[: data.draw(st.integers(0, len(packed) - 1))]
            path.write_bytes(raw if how == "plain_named_gz" else packed)
        else:
            path = Path(tmp) / fixture
            path.write_bytes(_mutate(raw, how, b",", data.draw))
        _run(reader, path, path.name)
