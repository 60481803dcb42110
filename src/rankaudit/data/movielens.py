"""MovieLens loaders (Harper & Konstan, ACM TiiS 2015).

``load_ml100k`` reads real MovieLens-100K in RecBole's atomic-file layout
(``ml-100k.inter``/``.item``, tab-separated with ``name:type`` headers), the embedded
default data fetched by :mod:`rankaudit.data.fetch`.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd

from rankaudit.data.source import DataSource

__all__ = ["ML100K_GENRES", "load_ml100k"]

#: The 19 ML-100K genres, in GroupLens's order.
ML100K_GENRES = (
    "unknown", "Action", "Adventure", "Animation", "Children's", "Comedy", "Crime",
    "Documentary", "Drama", "Fantasy", "Film-Noir", "Horror", "Musical", "Mystery",
    "Romance", "Sci-Fi", "Thriller", "War", "Western",
)


def _read_atomic(path: Path, expected: list[str]) -> pd.DataFrame:
    if not path.is_file():
        raise FileNotFoundError(
            f"{path} not found. Run `make data` to fetch MovieLens-100K, or point data_dir "
            "at a directory holding the RecBole ml-100k files."
        )
    frame = pd.read_csv(path, sep="\t", dtype=str, keep_default_na=False, quoting=3)
    frame.columns = [c.split(":", 1)[0] for c in frame.columns]
    missing = [c for c in expected if c not in frame.columns]
    if missing:
        raise ValueError(f"{path}: missing column(s) {missing}; found {list(frame.columns)}.")
    return frame


def _numeric(frame: pd.DataFrame, column: str, path: Path, kind: type) -> np.ndarray:
    values = pd.to_numeric(frame[column], errors="coerce")
    bad = np.flatnonzero(values.isna().to_numpy())
    if bad.size:
        line = int(bad[0]) + 2  # header is line 1
        raise ValueError(
            f"{path}, line {line}: column {column!r} is not numeric ({frame[column].iloc[bad[0]]!r})."
        )
    return values.to_numpy().astype(kind)


def load_ml100k(data_dir: str | Path | None = None) -> tuple[pd.DataFrame, pd.DataFrame, DataSource]:
    """Load real MovieLens-100K.

    Returns ``(ratings, items, source)``: ``ratings`` has ``user_id, item_id, rating,
    timestamp`` (100,000 rows); ``items`` has ``item_id, title, release_year`` and one 0/1
    column per genre in :data:`ML100K_GENRES` (1,682 rows).
    """
    from rankaudit.data.fetch import ML100K_FILES, default_data_root, sha256

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
    unknown = set(t for toks in tokens for t in toks) - set(ML100K_GENRES)
    if unknown:
        raise ValueError(f"{item_path}: unknown genre token(s) {sorted(unknown)}.")
    verified = all(
        (directory / n).is_file() and sha256(directory / n) == d
        for n, d in ML100K_FILES.items()
        if n != "ml-100k.user"
    )
    source = DataSource(
        name="MovieLens 100K",
        kind="real",
        version="ml-100k (GroupLens 1998; RecBole 1.2.1 atomic files)",
        path=str(directory),
        details={
            "n_ratings": int(len(ratings)),
            "n_users": int(ratings["user_id"].nunique()),
            "n_items": int(len(items)),
            "sha256_verified": bool(verified),
            "licence": "GroupLens research licence: no redistribution",
        },
    )
    return ratings, items, source
