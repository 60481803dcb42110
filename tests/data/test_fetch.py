"""The ML-100K fetch: verified, idempotent, and loud when it cannot work."""

from __future__ import annotations

import shutil

import pytest

from rankaudit.errors import InputFileError
from rankbook.data import fetch
from rankbook.data.movielens import ML100K_GENRES, load_ml100k


@pytest.mark.real_data
def test_fetched_files_have_the_pinned_checksums():
    directory = fetch.default_data_root() / "ml-100k"
    assert fetch.ml100k_is_valid(directory), "run `make data` first"


@pytest.mark.real_data
def test_refetch_is_a_no_op(capsys):
    directory = fetch.default_data_root() / "ml-100k"
    before = {p.name: p.stat().st_mtime_ns for p in directory.iterdir()}
    fetch.fetch_ml100k()
    after = {p.name: p.stat().st_mtime_ns for p in directory.iterdir()}
    assert before == after
    assert "already present and verified" in capsys.readouterr().out


def test_a_corrupted_file_is_detected(tmp_path):
    source = fetch.default_data_root() / "ml-100k"
    if not fetch.ml100k_is_valid(source):
        pytest.skip("ML-100K not fetched")
    copy = tmp_path / "ml-100k"
    shutil.copytree(source, copy)
    with open(copy / "ml-100k.item", "ab") as handle:
        handle.write(b"tampered\n")
    assert not fetch.ml100k_is_valid(copy)


def test_a_failed_download_says_what_to_do(tmp_path, monkeypatch):
    monkeypatch.setattr(fetch, "RECBOLE_SPEC", "recbole==0.0.0-no-such-version")
    with pytest.raises(
        RuntimeError, match="(?s)Could not download .* place the RecBole ml-100k files"
    ):
        fetch.fetch_ml100k(tmp_path)


@pytest.mark.real_data
def test_load_ml100k_shapes_and_genres():
    ratings, items, source = load_ml100k()
    assert len(ratings) == 100_000 and ratings["user_id"].nunique() == 943
    assert len(items) == 1682 and set(ML100K_GENRES) <= set(items.columns)
    assert ratings["rating"].between(1, 5).all()
    assert items[list(ML100K_GENRES)].sum(axis=1).min() >= 1
    assert source.kind == "real" and source.details["sha256_verified"]


def test_load_ml100k_names_the_bad_line(tmp_path):
    (tmp_path / "ml-100k.inter").write_text(
        "user_id:token\titem_id:token\trating:float\ttimestamp:float\n1\t2\t3\t4\n1\tx\t3\t4\n"
    )
    (tmp_path / "ml-100k.item").write_text(
        "item_id:token\tmovie_title:token_seq\trelease_year:token\tclass:token_seq\n2\tA\t1995\tDrama\n"
    )
    with pytest.raises(
        InputFileError, match=r"ml-100k.inter:3: column 'item_id' must be an integer"
    ):
        load_ml100k(tmp_path)


def test_missing_directory_points_to_make_data(tmp_path):
    with pytest.raises(FileNotFoundError, match="make data"):
        load_ml100k(tmp_path)
