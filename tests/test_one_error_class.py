"""One error class for bad files, read off the source and checked on every loader.

Both packages report a file they cannot read with :class:`rankaudit.errors.InputFileError`
(``path:line: reason``).  The source is read with ``ast``: no module may define another
exception class for bad files (a ``...FormatError``, ``...FileError``, ``...ParseError``, or a
subclass of the one class).  Then each reader and loader is fed a file with one bad line, from
the test fixtures, and must raise exactly that class, naming the file and the line.
"""

from __future__ import annotations

import ast
import pickle
import re
import shutil
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

import rankaudit
import rankaudit.runs
from rankaudit.errors import InputFileError
from rankaudit.runs.errors import RunFileError
from rankaudit.runs.tabular import read_long_qrels
from rankaudit.runs.trec import read_trec_qrels, read_trec_run
from rankbook.data.amazon import read_meta, read_reviews
from rankbook.data.diginetica import load_diginetica
from rankbook.data.movielens import load_ml100k, load_ml100k_grouplens, load_tag_genome
from rankbook.data.textfile import read_delimited

SRC = Path(__file__).resolve().parents[1] / "src"
FIX = Path(__file__).resolve().parent / "fixtures"
THE_CLASS = ("rankaudit.errors", "InputFileError")

#: A class with such a name is an error class for bad files.
BAD_FILE_NAME = re.compile(r"(Format|File|Parse|Input|Data)Error$")


def bad_file_classes(source: str, module: str) -> Iterator[str]:
    """``"module.Class (line)"`` for every exception class for bad files but the one class."""
    for node in ast.walk(ast.parse(source)):
        if not isinstance(node, ast.ClassDef) or (module, node.name) == THE_CLASS:
            continue
        bases = {ast.unparse(b).rsplit(".", 1)[-1] for b in node.bases}
        if BAD_FILE_NAME.search(node.name) or bases & {"InputFileError", "RunFileError"}:
            yield f"{module}.{node.name} (line {node.lineno})"


def _modules() -> Iterator[tuple[str, Path]]:
    for package in ("rankaudit", "rankbook"):
        for path in sorted((SRC / package).rglob("*.py")):
            parts = list(path.relative_to(SRC).with_suffix("").parts)
            yield ".".join(parts[:-1] if parts[-1] == "__init__" else parts), path


def test_no_module_defines_another_error_class_for_bad_files():
    found = [
        hit
        for module, path in _modules()
        for hit in bad_file_classes(path.read_text(encoding="utf-8"), module)
    ]
    assert not found, f"raise rankaudit.errors.InputFileError instead of: {found}"


@pytest.mark.parametrize(
    "source",
    [
        "class DataFormatError(ValueError):\n    pass\n",
        "class AmazonFormatError(Exception):\n    pass\n",
        "class TrecFileError(OSError):\n    pass\n",
        "from rankaudit.errors import InputFileError\nclass Bad(InputFileError):\n    pass\n",
        "import rankaudit.runs.errors\nclass Bad(rankaudit.runs.errors.RunFileError):\n    pass\n",
    ],
)
def test_the_checker_catches_a_second_class(source):
    """The rule can fail: each of these sources defines a second class for bad files."""
    assert list(bad_file_classes(source, "rankbook.data.example"))


def test_the_checker_lets_the_one_class_and_other_errors_be():
    source = "class InputFileError(ValueError):\n    pass\n"
    assert not list(bad_file_classes(source, "rankaudit.errors"))
    assert list(bad_file_classes(source, "rankbook.data.example"))  # a copy elsewhere is not
    assert not list(bad_file_classes("class ChapterFailed(RuntimeError):\n    pass\n", "m"))


def test_run_file_error_is_the_same_class():
    assert RunFileError is InputFileError
    assert rankaudit.runs.RunFileError is InputFileError
    assert rankaudit.InputFileError is InputFileError
    assert issubclass(InputFileError, ValueError)


def test_the_message_is_path_line_reason_and_survives_pickling(tmp_path):
    err = InputFileError(tmp_path / "a.csv", 3, "bad value")
    assert str(err) == f"{tmp_path / 'a.csv'}:3: bad value"
    assert (err.path, err.line, err.reason) == (str(tmp_path / "a.csv"), 3, "bad value")
    whole = InputFileError("b.gz", None, "cannot decompress")
    assert str(whole) == "b.gz: cannot decompress" and whole.line is None
    back = pickle.loads(pickle.dumps(err))  # errors travel pickled from Dask workers
    assert type(back) is InputFileError and str(back) == str(err) and back.line == 3


# --------------------------------------------------------------------------- every loader
def _with_line(tmp_path: Path, fixture: Path, name: str, line: str, at: int = 1) -> Path:
    """A copy of ``fixture`` (a file or a folder) with ``line`` inserted in ``name``."""
    target = tmp_path / fixture.name
    if fixture.is_dir():
        shutil.copytree(fixture, target)
        path = target / name
    else:
        shutil.copy(fixture, target)
        path = target
    lines = path.read_text(encoding="utf-8").splitlines(keepends=True)
    path.write_text("".join(lines[:at] + [line] + lines[at:]), encoding="utf-8")
    return target


def _recbole(tmp_path: Path) -> Path:
    d = tmp_path / "ml-100k"
    d.mkdir()
    (d / "ml-100k.inter").write_text(
        "user_id:token\titem_id:token\trating:float\ttimestamp:float\n1\t1\t5\t881250949\n"
        "1\t1.5\t5\t881250949\n"
    )
    (d / "ml-100k.item").write_text(
        "item_id:token\tmovie_title:token_seq\trelease_year:token\tclass:token_seq\n"
        "1\tToy Story\t1995\tAnimation Comedy\n"
    )
    return d


def _csv(tmp_path: Path) -> Path:
    path = tmp_path / "t.csv"
    path.write_text("a,b\n1,2\n3,4,5\n")
    return path


def _long_qrels(tmp_path: Path) -> Path:
    path = tmp_path / "q.csv"
    path.write_text("query,docno,relevance\nq,a,1.5\n")
    return path


def _plain_named_gz(tmp_path: Path) -> Path:
    path = tmp_path / "t.csv.gz"
    path.write_text("a,b\n1,2\n")
    return path


# (what reads, how the bad file is made, the file named, its line or None)
CASES: dict[str, tuple[Callable, Callable[[Path], Path], str, int | None]] = {
    "amazon reviews": (
        read_reviews,
        lambda tmp: FIX / "amazon-2023" / "reviews_missing_rating.jsonl",
        "reviews_missing_rating.jsonl",
        3,
    ),
    "amazon meta": (
        read_meta,
        lambda tmp: FIX / "amazon-2023" / "meta_duplicate_asin.jsonl",
        "meta_duplicate_asin.jsonl",
        3,
    ),
    "diginetica": (
        load_diginetica,
        lambda tmp: _with_line(tmp, FIX / "diginetica" / "camel", "train-clicks.csv", "1;2\n"),
        "train-clicks.csv",
        2,
    ),
    "grouplens ml-100k": (
        load_ml100k_grouplens,
        lambda tmp: _with_line(tmp, FIX / "ml-100k-grouplens", "u.data", "1.7\t4\t1\t8\n", 0),
        "u.data",
        1,
    ),
    "recbole ml-100k": (load_ml100k, _recbole, "ml-100k.inter", 3),
    "tag genome": (
        load_tag_genome,
        lambda tmp: _with_line(tmp, FIX / "movielens-25m", "ratings.csv", "1,50,9,1147904014\n"),
        "ratings.csv",
        2,
    ),
    "delimited text": (lambda p: read_delimited(p, sep=","), _csv, "t.csv", 3),
    "delimited text, no line": (
        lambda p: read_delimited(p, sep=","),
        _plain_named_gz,
        "t.csv.gz",
        None,
    ),
    "trec run": (
        read_trec_run,
        lambda tmp: _with_line(tmp, FIX / "trec" / "run_a.txt", "", "101 Q0 doc-01 1\n"),
        "run_a.txt",
        2,
    ),
    "trec qrels": (
        read_trec_qrels,
        lambda tmp: _with_line(tmp, FIX / "trec" / "qrels.txt", "", "101 0 doc-01 x\n"),
        "qrels.txt",
        2,
    ),
    "long qrels": (read_long_qrels, _long_qrels, "q.csv", 2),
}


@pytest.mark.parametrize("case", list(CASES))
def test_every_reader_raises_the_one_class_naming_file_and_line(tmp_path, case):
    read, make, name, line = CASES[case]
    with pytest.raises(ValueError) as info:
        read(make(tmp_path))
    err = info.value
    assert type(err) is InputFileError, repr(err)
    assert Path(err.path).name == name and err.line == line
    where = err.path if line is None else f"{err.path}:{line}"
    assert str(err) == f"{where}: {err.reason}"
