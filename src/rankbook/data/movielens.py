"""MovieLens loaders (Harper & Konstan, ACM TiiS 2015).

``load_ml100k`` reads real MovieLens-100K in RecBole's atomic-file layout
(``ml-100k.inter``/``.item``, tab-separated with ``name:type`` headers), the embedded
default data fetched by :mod:`rankbook.data.fetch`.

``load_ml100k_grouplens`` reads the original GroupLens ML-100K files (``u.data``, ``u.item``),
``load_tag_genome`` the MovieLens 25M/20M CSVs with the Tag Genome (Vig, Sen & Riedl, ACM TiiS
2012), and ``load_movielens`` detects which of the three layouts a directory holds and returns
``(ratings, item_attributes, source)`` uniformly.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd

from rankaudit.errors import InputFileError
from rankaudit.runs.inputs import file_sha256
from rankbook.data.fetch import ML100K_FILES, default_data_root
from rankbook.data.movielens_genome import (
    GENOME_CONCEPTS,
    GENOME_FILES,
    GENOME_THRESHOLD,
    load_tag_genome,
)
from rankbook.data.source import DataSource
from rankbook.data.textfile import integer_column, number_column, read_delimited

__all__ = [
    "GENOME_CONCEPTS",
    "GENOME_THRESHOLD",
    "ML100K_GENRES",
    "RATING_RANGE",
    "detect_movielens_format",
    "load_ml100k",
    "load_ml100k_grouplens",
    "load_movielens",
    "load_tag_genome",
]

#: The 19 ML-100K genres, in GroupLens's order.
ML100K_GENRES = (
    "unknown",
    "Action",
    "Adventure",
    "Animation",
    "Children's",
    "Comedy",
    "Crime",
    "Documentary",
    "Drama",
    "Fantasy",
    "Film-Noir",
    "Horror",
    "Musical",
    "Mystery",
    "Romance",
    "Sci-Fi",
    "Thriller",
    "War",
    "Western",
)


def _read_atomic(path: Path, expected: list[str]) -> pd.DataFrame:
    if not path.is_file():
        raise FileNotFoundError(
            f"{path} not found. Run `make data` to fetch MovieLens-100K, or point data_dir "
            "at a directory holding the RecBole ml-100k files."
        )
    frame = read_delimited(path, sep="\t", dtype=str, keep_default_na=False, quoting=3)
    frame.columns = [c.split(":", 1)[0] for c in frame.columns]
    missing = [c for c in expected if c not in frame.columns]
    if missing:
        raise InputFileError(path, 1, f"missing column(s) {missing}; found {list(frame.columns)}")
    return frame


#: MovieLens ratings lie on a 0.5..5 scale (ML-100K: whole stars 1..5; ML-10M and later: half
#: stars).
RATING_RANGE = (0.5, 5.0)


def _numeric(
    frame: pd.DataFrame, column: str, path: Path, kind: type, header_lines: int = 1
) -> np.ndarray:
    """A column as ``kind``: ids and timestamps must be whole integers (``1.7`` is refused),
    ratings finite numbers in :data:`RATING_RANGE`; the error names the file and line."""
    if kind is np.int64:
        return integer_column(frame, column, path, header_lines)
    lo, hi = RATING_RANGE if column == "rating" else (None, None)
    return number_column(frame, column, path, header_lines, lo=lo, hi=hi)


def load_ml100k(
    data_dir: str | Path | None = None,
) -> tuple[pd.DataFrame, pd.DataFrame, DataSource]:
    """Load real MovieLens-100K.

    Returns ``(ratings, items, source)``: ``ratings`` has ``user_id, item_id, rating,
    timestamp`` (100,000 rows); ``items`` has ``item_id, title, release_year`` and one 0/1
    column per genre in :data:`ML100K_GENRES` (1,682 rows).
    """
    directory = Path(data_dir) if data_dir is not None else default_data_root() / "ml-100k"
    inter_path, item_path = directory / "ml-100k.inter", directory / "ml-100k.item"
    inter = _read_atomic(inter_path, ["user_id", "item_id", "rating", "timestamp"])
    ratings = pd.DataFrame(
        {
            "user_id": _numeric(inter, "user_id", inter_path, np.int64),
            "item_id": _numeric(inter, "item_id", inter_path, np.int64),
            "rating": _numeric(inter, "rating", inter_path, np.float64),
            "timestamp": _numeric(inter, "timestamp", inter_path, np.int64),
        }
    )
    raw = _read_atomic(item_path, ["item_id", "movie_title", "release_year", "class"])
    items = pd.DataFrame(
        {
            "item_id": _numeric(raw, "item_id", item_path, np.int64),
            "title": raw["movie_title"].to_numpy(),
            "release_year": pd.to_numeric(raw["release_year"], errors="coerce").astype("Int64"),
        }
    )
    tokens = raw["class"].str.split()
    for genre in ML100K_GENRES:
        items[genre] = tokens.map(lambda toks, g=genre: int(g in toks)).astype(np.int8)
    known = set(ML100K_GENRES)
    unknown = tokens.map(lambda toks: sorted(set(toks) - known)).to_numpy()
    bad = np.flatnonzero([len(u) > 0 for u in unknown])
    if bad.size:
        line = int(bad[0]) + 2  # the header is line 1
        raise InputFileError(item_path, line, f"unknown genre token(s) {unknown[bad[0]]}")
    verified = all(
        (directory / n).is_file() and file_sha256(directory / n) == d
        for n, d in ML100K_FILES.items()
        if n != "ml-100k.user"
    )
    source = _ml100k_source(
        directory,
        ratings,
        items,
        "ml-100k (GroupLens 1998; RecBole 1.2.1 atomic files)",
        sha256_verified=bool(verified),
    )
    return ratings, items, source


def _ml100k_source(
    directory: Path, ratings: pd.DataFrame, items: pd.DataFrame, version: str, **extra: object
) -> DataSource:
    """The :class:`DataSource` of real ML-100K read from ``directory`` in either layout."""
    return DataSource(
        name="MovieLens 100K",
        kind="real",
        version=version,
        path=str(directory),
        details={
            "n_ratings": int(len(ratings)),
            "n_users": int(ratings["user_id"].nunique()),
            "n_items": int(len(items)),
            **extra,
            "licence": "GroupLens research licence: no redistribution",
        },
    )


# ---------------------------------------------------------------------------------------------
# Original GroupLens ML-100K layout: u.data (tab-separated, no header) and u.item ('|', latin-1)
# ---------------------------------------------------------------------------------------------


def load_ml100k_grouplens(data_dir: str | Path) -> tuple[pd.DataFrame, pd.DataFrame, DataSource]:
    """Load ML-100K from the original GroupLens files ``u.data`` and ``u.item``.

    ``u.data``: ``user id \\t item id \\t rating \\t timestamp`` (no header); ``u.item``:
    ``movie id | title | release date | video release date | IMDb URL | 19 genre flags``
    (latin-1). Returns the same ``(ratings, items, source)`` as :func:`load_ml100k`.
    """
    directory = Path(data_dir)
    data_path, item_path = directory / "u.data", directory / "u.item"
    for path in (data_path, item_path):
        if not path.is_file():
            raise FileNotFoundError(
                f"{path} not found (GroupLens ML-100K layout needs u.data and u.item)"
            )
    raw = read_delimited(
        data_path,
        sep="\t",
        header=None,
        dtype=str,
        keep_default_na=False,
        quoting=3,
        header_lines=0,
    )
    if raw.shape[1] != 4:
        # pandas takes the number of columns from the first line
        raise InputFileError(
            data_path, 1, f"expected 4 tab-separated columns, found {raw.shape[1]}"
        )
    raw.columns = ["user_id", "item_id", "rating", "timestamp"]
    ratings = pd.DataFrame(
        {
            "user_id": _numeric(raw, "user_id", data_path, np.int64, header_lines=0),
            "item_id": _numeric(raw, "item_id", data_path, np.int64, header_lines=0),
            "rating": _numeric(raw, "rating", data_path, np.float64, header_lines=0),
            "timestamp": _numeric(raw, "timestamp", data_path, np.int64, header_lines=0),
        }
    )
    item_raw = read_delimited(
        item_path,
        sep="|",
        header=None,
        dtype=str,
        keep_default_na=False,
        encoding="latin-1",
        quoting=3,
        header_lines=0,
    )
    if item_raw.shape[1] != 5 + len(ML100K_GENRES):
        raise InputFileError(
            item_path,
            1,
            f"expected {5 + len(ML100K_GENRES)} '|'-separated columns, found {item_raw.shape[1]}",
        )
    item_raw.columns = [
        "item_id",
        "title",
        "release_date",
        "video_release_date",
        "imdb_url",
        *ML100K_GENRES,
    ]
    dates = pd.to_datetime(item_raw["release_date"], format="%d-%b-%Y", errors="coerce")
    items = pd.DataFrame(
        {
            "item_id": _numeric(item_raw, "item_id", item_path, np.int64, header_lines=0),
            "title": item_raw["title"].to_numpy(),
            "release_year": dates.dt.year.astype("Int64"),
        }
    )
    for genre in ML100K_GENRES:
        flags = item_raw[genre]
        bad = np.flatnonzero(~flags.isin(["0", "1"]).to_numpy())
        if bad.size:
            raise InputFileError(
                item_path,
                int(bad[0]) + 1,
                f"genre flag {genre!r} is {flags.iloc[bad[0]]!r}, not 0/1",
            )
        items[genre] = flags.astype(np.int8).to_numpy()
    source = _ml100k_source(
        directory, ratings, items, "ml-100k (GroupLens 1998, original u.data/u.item)"
    )
    return ratings, items, source


# ---------------------------------------------------------------------------------------------
# MovieLens 25M / 20M with the Tag Genome
# ---------------------------------------------------------------------------------------------


# ---------------------------------------------------------------------------------------------
# One entry point for every layout
# ---------------------------------------------------------------------------------------------


def detect_movielens_format(data_dir: str | Path) -> str:
    """``"recbole-ml100k"``, ``"grouplens-ml100k"`` or ``"tag-genome"``; ValueError otherwise."""
    directory = Path(data_dir)
    if not directory.is_dir():
        raise ValueError(f"data_dir {str(directory)!r} is not a directory")
    present = {p.name for p in directory.iterdir()}
    if {"ml-100k.inter", "ml-100k.item"} <= present:
        return "recbole-ml100k"
    if {"u.data", "u.item"} <= present:
        return "grouplens-ml100k"
    if set(GENOME_FILES) <= present:
        return "tag-genome"
    raise ValueError(
        f"data_dir {str(directory)!r} holds no MovieLens layout I know: expected RecBole "
        "ml-100k.inter + ml-100k.item, GroupLens u.data + u.item, or the ML-25M/20M CSVs "
        f"{', '.join(GENOME_FILES)}; found {sorted(present)[:12]}"
    )


def genre_attributes(items: pd.DataFrame) -> pd.DataFrame:
    """The 19 ML-100K genre flags as a uint8 attribute table indexed by ``item_id``."""
    table = items.set_index("item_id")[list(ML100K_GENRES)].astype(np.uint8)
    table.index.name = "item_id"
    return table


def load_movielens(
    data_dir: str | Path | None = None,
) -> tuple[pd.DataFrame, pd.DataFrame, DataSource]:
    """MovieLens in any supported layout: ``(ratings, item_attributes, source)``.

    - ``data_dir=None``: the embedded real ML-100K (RecBole files in ``data/external/ml-100k``).
    - A directory with ``ml-100k.inter``/``.item`` (RecBole) or ``u.data``/``u.item``
      (GroupLens): ML-100K, attributes = the 19 genre flags (ML-100K has no tag genome).
    - A directory with ``ratings.csv``, ``movies.csv``, ``genome-scores.csv``,
      ``genome-tags.csv`` (ML-25M/ML-20M): attributes = :data:`GENOME_CONCEPTS` thresholded at
      :data:`GENOME_THRESHOLD`.

    ``ratings`` always has ``user_id, item_id, rating, timestamp``; ``item_attributes`` is a
    0/1 table indexed by ``item_id``. ``source.details["attributes"]`` says which attributes.
    """
    if data_dir is None:
        ratings, items, source = load_ml100k()
        kind = "recbole-ml100k"
    else:
        kind = detect_movielens_format(data_dir)
        if kind == "tag-genome":
            ratings, attributes, source = load_tag_genome(data_dir)
            details = {**source.details, "layout": kind, "attributes": "tag genome concepts >= 0.7"}
            return ratings, attributes, _with_details(source, details)
        loader = load_ml100k if kind == "recbole-ml100k" else load_ml100k_grouplens
        ratings, items, source = loader(data_dir)
    details = {**source.details, "layout": kind, "attributes": "19 ML-100K genres (no tag genome)"}
    return ratings, genre_attributes(items), _with_details(source, details)


def _with_details(source: DataSource, details: dict) -> DataSource:
    from dataclasses import replace

    return replace(source, details=details)
