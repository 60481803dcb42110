"""Amazon Reviews 2023, Beauty and Personal Care: a streaming, validating loader.

The published files (Hou et al., 2024, "Bridging Language and Items for Retrieval and
Recommendation", arXiv:2403.03952; https://amazon-reviews-2023.github.io/) are one JSON
object per line, gzip-compressed:

- ``Beauty_and_Personal_Care.jsonl.gz`` (reviews): ``rating`` (float, 1-5), ``title``,
  ``text``, ``images``, ``asin``, ``parent_asin``, ``user_id``, ``timestamp`` (Unix ms),
  ``helpful_vote``, ``verified_purchase``.
- ``meta_Beauty_and_Personal_Care.jsonl.gz`` (item metadata): ``main_category``, ``title``,
  ``average_rating``, ``rating_number``, ``features`` (list of str), ``description``,
  ``price``, ``images``, ``videos``, ``store``, ``categories`` (list of str), ``details``
  (dict), ``parent_asin``, ``bought_together``.

Reading is line by line (never the whole file in memory); ids are interned to integer codes
as they stream in and returned as pandas categoricals. Every line is validated: a malformed
line raises :class:`rankaudit.errors.InputFileError` (a ``ValueError``) naming the file, the
1-based line number and the reason (``path:line: reason``). No line is ever skipped silently.

Items are identified by ``parent_asin`` (the product, not its colour/size variant), as in
the dataset authors' own benchmarks.

Lexical item attributes (:func:`lexical_attributes`) are binary indicators of metadata
tokens (title, features, categories, store), the "lexical metadata proxies" of the tie audit
paper (Guo et al., 2026, "Tie Handling Is Part of the Evaluation Protocol", arXiv:2609.26977).
"""

from __future__ import annotations

import gzip
import io
import json
import math
import zlib
from array import array
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from rankaudit.errors import InputFileError
from rankbook.data.amazon_attributes import (
    STOPWORDS,
    attribute_tokens,
    attributes_for,
    item_tokens,
    lexical_attributes,
)
from rankbook.data.amazon_schema import DATASET_NAME, DATASET_VERSION, META_FILE, REVIEWS_FILE
from rankbook.data.amazon_sim import simulate_amazon_beauty, simulation_source
from rankbook.data.source import DataSource
from rankbook.data.textfile import first_undecodable_line

__all__ = [
    "META_TEXT_FIELDS",
    "REVIEW_REQUIRED",
    "STOPWORDS",
    "attributes_for",
    "item_tokens",
    "iter_jsonl",
    "lexical_attributes",
    "load_amazon_beauty",
    "read_meta",
    "read_reviews",
    "reviews_to_ratings",
    "attribute_tokens",
]


REVIEW_REQUIRED = ("user_id", "parent_asin", "rating", "timestamp")
META_TEXT_FIELDS = ("title", "features", "categories", "store")


def _open_text(path: Path) -> io.TextIOBase:
    if path.suffix == ".gz":
        return gzip.open(path, "rt", encoding="utf-8", newline="\n")  # type: ignore[return-value]
    return open(path, encoding="utf-8", newline="\n")


def iter_jsonl(path: str | Path) -> Iterator[tuple[int, dict[str, Any]]]:
    """Yield ``(line_number, record)`` for each line of a (gzipped) JSON-lines file.

    Raises :class:`~rankaudit.errors.InputFileError` for an empty line, invalid JSON, a value
    that is not a JSON object, bytes that are not UTF-8, an empty file, and a truncated or fake
    (plain text named ``.gz``) gzip file -- at the line where reading stopped. Line numbers are
    1-based.
    """
    path = Path(path)
    if not path.is_file():
        raise FileNotFoundError(f"{path}: no such file")
    number = 0
    with _open_text(path) as handle:
        lines = enumerate(handle, start=1)
        while True:
            try:
                number, line = next(lines)
            except StopIteration:
                break
            except UnicodeDecodeError:  # text is decoded in blocks: find the line itself
                try:
                    line_no, bad = first_undecodable_line(path, "utf-8")
                except (EOFError, zlib.error, gzip.BadGzipFile, OSError):
                    line_no, bad = number + 1, b""
                raise InputFileError(
                    path, line_no or number + 1, f"not valid UTF-8 text (byte(s) {bad!r})"
                ) from None
            except (EOFError, zlib.error, gzip.BadGzipFile) as err:
                raise InputFileError(
                    path,
                    number + 1,
                    f"cannot decompress ({err}); the file is truncated or not gzip data",
                ) from None
            text = line.rstrip("\r\n")
            if not text.strip():
                raise InputFileError(path, number, "empty line")
            try:
                record = json.loads(text)
            except json.JSONDecodeError as err:
                raise InputFileError(
                    path, number, f"not valid JSON ({err.msg} at column {err.colno})"
                ) from None
            if not isinstance(record, dict):
                raise InputFileError(
                    path, number, f"expected a JSON object, got {type(record).__name__}"
                )
            yield number, record
    if number == 0:
        raise InputFileError(path, 1, "empty file (expected one JSON object per line)")


def _nonempty_str(record: dict, field: str, path: Path, number: int) -> str:
    value = record[field]
    if not isinstance(value, str) or not value:
        raise InputFileError(
            path, number, f"field {field!r} must be a non-empty string, got {value!r}"
        )
    return value


def _review_fields(record: dict, path: Path, number: int) -> tuple[str, str, float, int]:
    for field in REVIEW_REQUIRED:
        if field not in record:
            raise InputFileError(path, number, f"missing field {field!r}")
    user = _nonempty_str(record, "user_id", path, number)
    item = _nonempty_str(record, "parent_asin", path, number)
    rating = record["rating"]
    if (
        isinstance(rating, bool)
        or not isinstance(rating, (int, float))
        or not math.isfinite(rating)
    ):
        raise InputFileError(path, number, f"field 'rating' must be a number, got {rating!r}")
    if not 1.0 <= rating <= 5.0:
        raise InputFileError(path, number, f"field 'rating' must lie in [1, 5], got {rating!r}")
    stamp = record["timestamp"]
    if isinstance(stamp, bool) or not isinstance(stamp, int) or stamp < 0:
        raise InputFileError(
            path,
            number,
            f"field 'timestamp' must be a non-negative integer (Unix ms), got {stamp!r}",
        )
    return user, item, float(rating), stamp


def read_reviews(path: str | Path, *, max_rows: int | None = None) -> pd.DataFrame:
    """Stream a reviews file into ``DataFrame[user_id, parent_asin, rating, timestamp]``.

    ``user_id`` and ``parent_asin`` are categoricals (ids interned while streaming, so memory
    grows with the number of distinct ids, not with the text of the reviews); ``rating`` is
    float64 and ``timestamp`` int64 Unix milliseconds. Only the four fields the audit needs are
    kept; the others (review text, images, ...) are read and discarded line by line.

    ``max_rows`` stops after that many lines (for a quick look at a 24M-line file).
    Raises :class:`~rankaudit.errors.InputFileError` (file, line, reason) on the first malformed
    line, and without a line when the file holds no review.
    """
    if max_rows is not None and max_rows < 1:
        raise ValueError(f"max_rows must be >= 1 or None, got {max_rows}")
    path = Path(path)
    users: dict[str, int] = {}
    items: dict[str, int] = {}
    user_codes, item_codes = array("q"), array("q")
    ratings, stamps = array("d"), array("q")
    for number, record in iter_jsonl(path):
        user, item, rating, stamp = _review_fields(record, path, number)
        user_codes.append(users.setdefault(user, len(users)))
        item_codes.append(items.setdefault(item, len(items)))
        ratings.append(rating)
        stamps.append(stamp)
        if max_rows is not None and number >= max_rows:
            break
    if not ratings:
        raise InputFileError(path, None, "the file holds no reviews")
    return pd.DataFrame(
        {
            "user_id": pd.Categorical.from_codes(np.frombuffer(user_codes, np.int64), list(users)),
            "parent_asin": pd.Categorical.from_codes(
                np.frombuffer(item_codes, np.int64), list(items)
            ),
            "rating": np.frombuffer(ratings, np.float64).copy(),
            "timestamp": np.frombuffer(stamps, np.int64).copy(),
        }
    )


def _str_list(record: dict, field: str, path: Path, number: int) -> list[str]:
    value = record.get(field)
    if value is None:
        return []
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise InputFileError(
            path, number, f"field {field!r} must be a list of strings, got {value!r}"
        )
    return value


def _opt_str(record: dict, field: str, path: Path, number: int) -> str:
    value = record.get(field)
    if value is None:
        return ""
    if not isinstance(value, str):
        raise InputFileError(
            path, number, f"field {field!r} must be a string or null, got {value!r}"
        )
    return value


def read_meta(path: str | Path, *, items: set[str] | None = None) -> pd.DataFrame:
    """Stream a metadata file into ``DataFrame[parent_asin, title, store, main_category, features,
    categories, details]`` (one row per product; ``features``/``categories`` are lists of str,
    ``details`` a dict).

    ``items``: keep only these ``parent_asin`` values (every line is still validated).
    A missing ``parent_asin``, a field of the wrong type, or a repeated ``parent_asin`` raises
    :class:`~rankaudit.errors.InputFileError` naming the file and line.
    """
    path = Path(path)
    seen: dict[str, int] = {}
    rows: list[tuple] = []
    for number, record in iter_jsonl(path):
        if "parent_asin" not in record:
            raise InputFileError(path, number, "missing field 'parent_asin'")
        asin = _nonempty_str(record, "parent_asin", path, number)
        if asin in seen:
            raise InputFileError(path, number, f"parent_asin {asin!r} repeats line {seen[asin]}")
        seen[asin] = number
        title = _opt_str(record, "title", path, number)
        store = _opt_str(record, "store", path, number)
        main_category = _opt_str(record, "main_category", path, number)
        features = _str_list(record, "features", path, number)
        categories = _str_list(record, "categories", path, number)
        details = record.get("details") or {}
        if not isinstance(details, dict):
            raise InputFileError(
                path, number, f"field 'details' must be an object, got {details!r}"
            )
        if items is None or asin in items:
            rows.append((asin, title, store, main_category, features, categories, details))
    columns = [
        "parent_asin",
        "title",
        "store",
        "main_category",
        "features",
        "categories",
        "details",
    ]
    return pd.DataFrame(rows, columns=columns)


def reviews_to_ratings(reviews: pd.DataFrame) -> pd.DataFrame:
    """Rename to the library's interaction schema ``[user_id, item_id, rating, timestamp]``
    (string ids)."""
    return pd.DataFrame(
        {
            "user_id": reviews["user_id"].astype(str).to_numpy(),
            "item_id": reviews["parent_asin"].astype(str).to_numpy(),
            "rating": reviews["rating"].to_numpy(np.float64),
            "timestamp": reviews["timestamp"].to_numpy(np.int64),
        }
    )


def load_amazon_beauty(
    data_dir: str | Path | None = None,
    *,
    max_reviews: int | None = None,
    n_attributes: int = 64,
    min_items: int = 5,
    simulate: dict | None = None,
):
    """Amazon Beauty and Personal Care interactions, lexical item attributes and provenance.

    - ``data_dir`` holding ``Beauty_and_Personal_Care.jsonl.gz`` and
      ``meta_Beauty_and_Personal_Care.jsonl.gz``: the real data (``kind="real"``).
    - ``data_dir=None``: data from :func:`rankbook.data.amazon_sim.simulate_amazon_beauty`
      (``kind="simulated"``; the DataSource names the generator and its arguments, which
      ``simulate`` may override).

    Returns ``(ratings[user_id, item_id, rating, timestamp], attributes, DataSource)`` where
    ``attributes`` is a binary DataFrame indexed by item id (see :func:`lexical_attributes`;
    ``n_attributes`` and ``min_items`` are passed on), built from reviewed products only.
    """
    if data_dir is None:
        kwargs = dict(simulate or {})
        reviews, meta = simulate_amazon_beauty(**kwargs)
        source = simulation_source(kwargs)
    else:
        data_dir = Path(data_dir)
        if not data_dir.is_dir():
            raise ValueError(f"data_dir {str(data_dir)!r} is not a directory")
        missing = [f for f in (REVIEWS_FILE, META_FILE) if not (data_dir / f).is_file()]
        if missing:
            raise ValueError(f"data_dir {str(data_dir)!r} lacks {', '.join(missing)}")
        reviews = read_reviews(data_dir / REVIEWS_FILE, max_rows=max_reviews)
        wanted = set(reviews["parent_asin"].cat.categories)
        meta = read_meta(data_dir / META_FILE, items=wanted)
        source = None
    ratings = reviews_to_ratings(reviews)
    # The vocabulary is built from the metadata of reviewed products only, in both paths.
    meta = meta.loc[meta["parent_asin"].isin(pd.unique(ratings["item_id"]))].reset_index(drop=True)
    lexical = lexical_attributes(meta, n_attributes=n_attributes, min_items=min_items)
    attributes = attributes_for(ratings, lexical)
    if source is None:
        source = DataSource(
            name=DATASET_NAME,
            kind="real",
            version=DATASET_VERSION,
            path=str(data_dir),
            details={
                "n_reviews": len(ratings),
                "n_users": int(ratings["user_id"].nunique()),
                "n_items": int(ratings["item_id"].nunique()),
                "max_reviews": max_reviews,
                "n_attributes": attributes.shape[1],
                "items_without_metadata": attributes.attrs["items_without_metadata"],
            },
        )
    return ratings, attributes, source
