"""Issue 16: every loader names the file and the line for bad bytes, empty files, extra
fields, non-integer ids, impossible ratings and broken gzip -- never a foreign exception."""

from __future__ import annotations

import gzip
import shutil
from pathlib import Path

import pytest

from rankaudit.errors import InputFileError
from rankbook.data.amazon import read_meta, read_reviews
from rankbook.data.diginetica import load_diginetica
from rankbook.data.movielens import load_ml100k, load_ml100k_grouplens, load_tag_genome

FIX = Path(__file__).resolve().parents[1] / "fixtures"

INTER = "user_id:token\titem_id:token\trating:float\ttimestamp:float\n"
ITEM = "item_id:token\tmovie_title:token_seq\trelease_year:token\tclass:token_seq\n"


def _recbole(tmp_path: Path, inter_lines: list[str]) -> Path:
    d = tmp_path / "ml-100k"
    d.mkdir()
    (d / "ml-100k.inter").write_text(INTER + "".join(inter_lines))
    (d / "ml-100k.item").write_text(ITEM + "1\tToy Story\t1995\tAnimation Comedy\n")
    return d


def test_recbole_fixture_loads(tmp_path):
    ratings, items, _ = load_ml100k(_recbole(tmp_path, ["1\t1\t5\t881250949\n"]))
    assert ratings.to_numpy().tolist() == [[1, 1, 5, 881250949]]


@pytest.mark.parametrize(
    "line, message",
    [
        ("1.7\t1\t5\t881250949\n", r"ml-100k.inter:3: column 'user_id' must be an integer"),
        ("1\t1e3\t5\t881250949\n", r"ml-100k.inter:3: column 'item_id' must be an integer"),
        (
            "1\t1\tinf\t881250949\n",
            r"ml-100k.inter:3: column 'rating' must be a finite number in \[0.5, 5.0\]",
        ),
        ("1\t1\t99\t881250949\n", r"ml-100k.inter:3: column 'rating' must be .*got '99'"),
        ("1\t1\t-5\t881250949\n", r"ml-100k.inter:3: column 'rating' must be .*got '-5'"),
        (
            "1\t1\t5\t881250949\textra\n",
            r"ml-100k.inter:3: expected 4 fields separated by '\\t', found 5",
        ),
        ("1\t1\t5\n", r"ml-100k.inter:3: column 'timestamp' must be an integer"),
        ("1\t1\t5\t8812.5\n", r"ml-100k.inter:3: column 'timestamp' must be an integer"),
    ],
)
def test_recbole_bad_lines_name_file_and_line(tmp_path, line, message):
    d = _recbole(tmp_path, ["1\t1\t5\t881250949\n", line])
    with pytest.raises(InputFileError, match=message):
        load_ml100k(d)


def test_recbole_bad_bytes_and_empty_file(tmp_path):
    d = _recbole(tmp_path, ["1\t1\t5\t881250949\n"])
    (d / "ml-100k.inter").write_bytes(INTER.encode() + b"1\t1\t5\t1\n2\t\xff\t5\t1\n")
    with pytest.raises(InputFileError, match=r"ml-100k.inter:3: not valid utf-8 text"):
        load_ml100k(d)
    (d / "ml-100k.inter").write_bytes(b"")
    with pytest.raises(InputFileError, match=r"ml-100k.inter:1: empty file"):
        load_ml100k(d)


def _grouplens(tmp_path: Path) -> Path:
    d = tmp_path / "gl"
    shutil.copytree(FIX / "ml-100k-grouplens", d)
    return d


@pytest.mark.parametrize(
    "line, message",
    [
        ("1.7\t4\t1\t874975275\n", r"u.data:2: column 'user_id' must be an integer"),
        ("1\t4\t99\t874975275\n", r"u.data:2: column 'rating' must be"),
        ("1\t4\t1\t874975275\t7\n", r"u.data:2: expected 4 fields"),
    ],
)
def test_grouplens_bad_lines(tmp_path, line, message):
    d = _grouplens(tmp_path)
    lines = (d / "u.data").read_text().splitlines(keepends=True)
    (d / "u.data").write_text(lines[0] + line + "".join(lines[1:]))
    with pytest.raises(InputFileError, match=message):
        load_ml100k_grouplens(d)


def test_grouplens_bad_bytes_and_empty(tmp_path):
    d = _grouplens(tmp_path)
    (d / "u.data").write_bytes(b"1\t4\t1\t874975275\n\xfe\xff\t4\t1\t1\n")
    with pytest.raises(InputFileError, match=r"u.data:2: not valid utf-8"):
        load_ml100k_grouplens(d)
    (d / "u.data").write_bytes(b"")
    with pytest.raises(InputFileError, match=r"u.data:1: empty file"):
        load_ml100k_grouplens(d)


def _genome(tmp_path: Path) -> Path:
    d = tmp_path / "ml-25m"
    shutil.copytree(FIX / "movielens-25m", d)
    return d


@pytest.mark.parametrize(
    "line, message",
    [
        ("1.7,50,4.5,1147904014\n", r"ratings.csv:2: column 'userId' must be an integer"),
        ("1,50,inf,1147904014\n", r"ratings.csv:2: rating must lie in \[0.5, 5\]"),
        ("1,50,99,1147904014\n", r"ratings.csv:2: rating must lie"),
        ("1,50,-5,1147904014\n", r"ratings.csv:2: rating must lie"),
        ("1,50,4.5,1147904014,extra\n", r"ratings.csv:2: expected 4 fields separated by ','"),
        ("1,50,4.5\n", r"ratings.csv:2: column 'timestamp' must be an integer"),
    ],
)
def test_tag_genome_bad_rating_lines(tmp_path, line, message):
    d = _genome(tmp_path)
    lines = (d / "ratings.csv").read_text().splitlines(keepends=True)
    (d / "ratings.csv").write_text(lines[0] + line + "".join(lines[1:]))
    with pytest.raises(InputFileError, match=message):
        load_tag_genome(d)


@pytest.mark.parametrize(
    "name", ["ratings.csv", "movies.csv", "genome-scores.csv", "genome-tags.csv"]
)
def test_tag_genome_bad_bytes_and_empty_files(tmp_path, name):
    d = _genome(tmp_path)
    lines = (d / name).read_bytes().splitlines(keepends=True)
    (d / name).write_bytes(lines[0] + lines[1][:2] + b"\xff" + lines[1][2:] + b"".join(lines[2:]))
    with pytest.raises(InputFileError, match=rf"{name}:2: not valid utf-8"):
        load_tag_genome(d)
    (d / name).write_bytes(b"")
    with pytest.raises(InputFileError, match=rf"{name}:1: empty file"):
        load_tag_genome(d)


def test_genome_scores_extra_field(tmp_path):
    d = _genome(tmp_path)
    lines = (d / "genome-scores.csv").read_text().splitlines(keepends=True)
    lines[3] = lines[3].rstrip("\n") + ",9\n"
    (d / "genome-scores.csv").write_text("".join(lines))
    with pytest.raises(InputFileError, match=r"genome-scores.csv:4: expected 3 fields"):
        load_tag_genome(d)


# --------------------------------------------------------------------------- Amazon
AMAZON = FIX / "amazon-2023"


def _gz(tmp_path: Path, source: Path, name: str, truncate: int | None = None) -> Path:
    data = gzip.compress(source.read_bytes())
    out = tmp_path / name
    out.write_bytes(data if truncate is None else data[:truncate])
    return out


@pytest.mark.parametrize(
    "reader, fixture",
    [
        (read_reviews, "Beauty_and_Personal_Care.jsonl"),
        (read_meta, "meta_Beauty_and_Personal_Care.jsonl"),
    ],
)
def test_amazon_broken_files_name_file_and_line(tmp_path, reader, fixture):
    good = _gz(tmp_path, AMAZON / fixture, "good.jsonl.gz")
    assert len(reader(good)) > 0
    size = len(good.read_bytes())
    cut = _gz(tmp_path, AMAZON / fixture, "cut.jsonl.gz", truncate=size // 2)
    with pytest.raises(InputFileError, match=r"cut.jsonl.gz:\d+: .*(truncated|not valid)"):
        reader(cut)
    plain = tmp_path / "plain.jsonl.gz"
    plain.write_bytes((AMAZON / fixture).read_bytes())
    with pytest.raises(InputFileError, match=r"plain.jsonl.gz:1: cannot decompress"):
        reader(plain)
    empty = tmp_path / "empty.jsonl"
    empty.write_bytes(b"")
    with pytest.raises(InputFileError, match=r"empty.jsonl:1: empty file"):
        reader(empty)
    bad = tmp_path / "bad.jsonl"
    lines = (AMAZON / fixture).read_bytes().splitlines(keepends=True)
    bad.write_bytes(lines[0] + b'{"x": "\xff"}\n' + b"".join(lines[1:]))
    with pytest.raises(InputFileError, match=r"bad.jsonl:2: not valid UTF-8"):
        reader(bad)


# --------------------------------------------------------------------------- DIGINETICA
def _digi(tmp_path: Path) -> Path:
    d = tmp_path / "digi"
    shutil.copytree(FIX / "diginetica" / "camel", d)
    return d


@pytest.mark.parametrize("name", ["products.csv", "train-queries.csv", "train-clicks.csv"])
def test_diginetica_bad_bytes_empty_and_extra_field(tmp_path, name):
    d = _digi(tmp_path)
    original = (d / name).read_bytes()
    lines = original.splitlines(keepends=True)
    (d / name).write_bytes(lines[0] + b"\xff" + b"".join(lines[1:]))
    with pytest.raises(InputFileError, match=rf"{name}:2: not valid UTF-8"):
        load_diginetica(d)
    (d / name).write_bytes(b"")
    with pytest.raises(InputFileError, match=rf"{name}:1: empty file"):
        load_diginetica(d)
    (d / name).write_bytes(lines[0] + lines[1].rstrip(b"\n") + b";extra\n" + b"".join(lines[2:]))
    with pytest.raises(InputFileError, match=rf"{name}:2: "):
        load_diginetica(d)


def test_diginetica_fractional_id_is_refused(tmp_path):
    d = _digi(tmp_path)
    text = (d / "products.csv").read_text().replace("1;7;", "1.7;7;", 1)
    (d / "products.csv").write_text(text)
    with pytest.raises(
        InputFileError, match=r"products.csv:2: column 'itemid' is not a number \(a whole"
    ):
        load_diginetica(d)
