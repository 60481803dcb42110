"""The Amazon Reviews 2023 loader on hand-written fixtures in the published schema."""

from __future__ import annotations

import gzip
import shutil
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from rankaudit.errors import InputFileError
from rankbook.data.amazon import (
    META_FILE,
    REVIEWS_FILE,
    attribute_tokens,
    lexical_attributes,
    load_amazon_beauty,
    read_meta,
    read_reviews,
)

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "amazon-2023"


def _gz(src: Path, dst: Path) -> Path:
    with open(src, "rb") as fin, gzip.open(dst, "wb") as fout:
        shutil.copyfileobj(fin, fout)
    return dst


@pytest.fixture
def real_dir(tmp_path: Path) -> Path:
    _gz(FIXTURES / "Beauty_and_Personal_Care.jsonl", tmp_path / REVIEWS_FILE)
    _gz(FIXTURES / "meta_Beauty_and_Personal_Care.jsonl", tmp_path / META_FILE)
    return tmp_path


def test_read_reviews_keeps_every_line_with_published_fields(real_dir: Path) -> None:
    reviews = read_reviews(real_dir / REVIEWS_FILE)
    assert list(reviews.columns) == ["user_id", "parent_asin", "rating", "timestamp"]
    assert len(reviews) == 8
    assert reviews["parent_asin"].iloc[2] == "B097R46CSY"  # parent_asin, not the variant asin
    assert reviews["timestamp"].dtype == np.int64 and reviews["timestamp"].iloc[0] == 1588687728923
    assert reviews["rating"].tolist() == [5.0, 4.0, 1.0, 5.0, 3.0, 5.0, 4.0, 2.0]


def test_plain_and_gzipped_files_read_identically(real_dir: Path) -> None:
    plain = read_reviews(FIXTURES / "Beauty_and_Personal_Care.jsonl")
    gz = read_reviews(real_dir / REVIEWS_FILE)
    pd.testing.assert_frame_equal(plain, gz)


def test_max_rows_stops_early(real_dir: Path) -> None:
    assert len(read_reviews(real_dir / REVIEWS_FILE, max_rows=3)) == 3


@pytest.mark.parametrize(
    ("name", "line", "reason"),
    [
        ("reviews_missing_rating.jsonl", 3, "missing field 'rating'"),
        ("reviews_truncated_json.jsonl", 4, "not valid JSON"),
        ("reviews_bad_rating.jsonl", 2, "field 'rating' must be a number"),
        ("reviews_bad_timestamp.jsonl", 2, "field 'timestamp' must be a non-negative integer"),
        ("reviews_blank_line.jsonl", 3, "empty line"),
        ("reviews_not_object.jsonl", 2, "expected a JSON object"),
    ],
)
def test_malformed_review_lines_name_file_line_and_reason(
    name: str, line: int, reason: str
) -> None:
    path = FIXTURES / name
    with pytest.raises(InputFileError) as info:
        read_reviews(path)
    err = info.value
    assert err.line == line and err.path == str(path) and reason in err.reason
    assert str(err).startswith(f"{path}:{line}: ")


def test_malformed_line_in_gzip_fails_too(tmp_path: Path) -> None:
    gz = _gz(FIXTURES / "reviews_truncated_json.jsonl", tmp_path / REVIEWS_FILE)
    with pytest.raises(ValueError, match=r"\.jsonl\.gz:4: not valid JSON"):
        read_reviews(gz)


@pytest.mark.parametrize(
    ("name", "line", "reason"),
    [
        ("meta_features_not_list.jsonl", 2, "field 'features' must be a list of strings"),
        ("meta_duplicate_asin.jsonl", 3, "repeats line 2"),
        ("meta_missing_asin.jsonl", 2, "missing field 'parent_asin'"),
    ],
)
def test_malformed_meta_lines(name: str, line: int, reason: str) -> None:
    with pytest.raises(InputFileError) as info:
        read_meta(FIXTURES / name)
    assert info.value.line == line and reason in info.value.reason


def test_meta_filter_still_validates_every_line() -> None:
    with pytest.raises(InputFileError):
        read_meta(FIXTURES / "meta_features_not_list.jsonl", items={"B00YQ6X8EO"})
    meta = read_meta(FIXTURES / "meta_Beauty_and_Personal_Care.jsonl", items={"B00YQ6X8EO"})
    assert meta["parent_asin"].tolist() == ["B00YQ6X8EO"]
    assert meta["details"].iloc[0]["UPC"] == "617390882781"


def test_tokenize_drops_stopwords_and_short_tokens() -> None:
    assert attribute_tokens("The Argan Oil Conditioner, 8-Ounce for Curls") == {
        "argan",
        "oil",
        "conditioner",
        "ounce",
        "curls",
    }


def test_lexical_attributes_vocabulary_is_deterministic_and_binary() -> None:
    meta = read_meta(FIXTURES / "meta_Beauty_and_Personal_Care.jsonl")
    attrs = lexical_attributes(meta, n_attributes=5, min_items=2, max_fraction=0.5)
    assert attrs.index.name == "item_id" and attrs.shape == (7, 5)
    assert set(np.unique(attrs.to_numpy())) <= {0, 1}
    # 'argan' and 'curl(s)' appear in exactly the two CurlCo products
    assert attrs.loc[["B09JS339BZ", "B08BZ63GMJ"], "tok:argan"].tolist() == [1, 1]
    assert attrs["tok:argan"].sum() == 2
    again = lexical_attributes(
        meta.iloc[::-1].reset_index(drop=True), n_attributes=5, min_items=2, max_fraction=0.5
    )
    assert list(again.columns) == list(attrs.columns)


def test_load_real_layout(real_dir: Path) -> None:
    ratings, attrs, source = load_amazon_beauty(real_dir, n_attributes=8, min_items=2)
    assert list(ratings.columns) == ["user_id", "item_id", "rating", "timestamp"]
    assert source.kind == "real" and source.details["n_reviews"] == 8
    assert set(ratings["item_id"]) <= set(attrs.index)
    assert source.details["items_without_metadata"] == 0


def test_load_missing_files_fail_clearly(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="lacks Beauty_and_Personal_Care.jsonl.gz"):
        load_amazon_beauty(tmp_path)
