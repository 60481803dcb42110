"""MovieLens Tag Genome (ML-25M/ML-20M): ratings, movies and the genome's relevance scores of six
concepts as binary item attributes (Vig, Sen & Riedl, 2012; Harper & Konstan, 2015).
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd

from rankaudit.errors import InputFileError
from rankbook.data.source import DataSource
from rankbook.data.textfile import read_delimited

__all__ = ["GENOME_CONCEPTS", "GENOME_FILES", "GENOME_THRESHOLD", "load_tag_genome"]


#: The six Tag Genome concepts used as binary item attributes. They are chosen to span distinct,
#: widely applicable axes of a film (tone: ``dark``/``funny``; affect: ``romantic``/``violent``;
#: style: ``atmospheric``; substance: ``thought-provoking``), each one of the 1,128 genome tags
#: present in both ML-20M and ML-25M. The audit paper thresholds six concepts at 0.7 but does not
#: name them (Guo et al., 2026, arXiv:2609.26977, §4.1), so these six are our choice.
GENOME_CONCEPTS = ("atmospheric", "dark", "funny", "romantic", "thought-provoking", "violent")


#: A concept applies to a movie when its genome relevance is at least this value (as in the paper).
GENOME_THRESHOLD = 0.7


#: The four CSVs of the ML-25M/20M layout (what :func:`load_tag_genome` reads).
GENOME_FILES = ("ratings.csv", "movies.csv", "genome-scores.csv", "genome-tags.csv")


def _read_csv_checked(path: Path, columns: dict[str, str], **kwargs) -> pd.DataFrame:
    """A GroupLens CSV with at least ``columns`` (typed); errors name the file and line."""
    if not path.is_file():
        raise FileNotFoundError(f"{path} not found")
    header = read_delimited(path, sep=",", nrows=0).columns.tolist()
    missing = [c for c in columns if c not in header]
    if missing:
        raise InputFileError(path, 1, f"missing column(s) {missing}; header is {header}")
    dtype = {c: columns.get(c, "str") for c in header}
    frame = read_delimited(path, sep=",", dtype=dtype, **kwargs)
    if kwargs.get("nrows") == 0:
        return frame[list(columns)]
    for column, kind in columns.items():
        values = frame[column]
        if kind == "str" and values.isna().any():
            line = int(np.flatnonzero(values.isna().to_numpy())[0]) + 2
            raise InputFileError(path, line, f"column {column!r} is missing")
    return frame[list(columns)]


def _genome_chunks(path: Path, header: dict[str, str], chunksize: int):
    """``genome-scores.csv`` in chunks; a malformed line is located by a full (error-path) read."""
    try:
        yield from pd.read_csv(path, dtype=header, chunksize=chunksize)
    except (ValueError, EOFError, OSError):
        read_delimited(path, sep=",", dtype=header)  # raises an InputFileError with the line
        raise


def _genome_version(directory: Path, n_ratings: int) -> str:
    name = directory.name.lower()
    for tag in ("ml-25m", "ml-20m"):
        if tag in name:
            return f"{tag} (Tag Genome)"
    return f"MovieLens with Tag Genome ({n_ratings} ratings)"


def load_tag_genome(
    data_dir: str | Path,
    *,
    concepts: tuple[str, ...] = GENOME_CONCEPTS,
    threshold: float = GENOME_THRESHOLD,
    restrict_to_genome: bool = True,
) -> tuple[pd.DataFrame, pd.DataFrame, DataSource]:
    """Load MovieLens 25M (or 20M) ratings with thresholded Tag Genome concepts.

    Files (GroupLens CSVs with headers): ``ratings.csv`` (``userId,movieId,rating,timestamp``),
    ``movies.csv`` (``movieId,title,genres``), ``genome-scores.csv``
    (``movieId,tagId,relevance``) and ``genome-tags.csv`` (``tagId,tag``).

    Attributes: ``A[i, c] = 1[relevance(i, c) >= threshold]`` for each concept ``c`` in
    ``concepts`` (default :data:`GENOME_CONCEPTS` at 0.7). ``genome-scores.csv`` is streamed in
    chunks keeping only those tags. With ``restrict_to_genome`` (default) only movies that have
    genome scores are kept, in the ratings and the catalog, since the attribute score cannot
    describe the others; the number of ratings removed is recorded in ``source.details``.

    Returns ``(ratings[user_id, item_id, rating, timestamp], attributes, source)``; the attribute
    table is indexed by ``item_id`` with one 0/1 column per concept.
    """
    directory = Path(data_dir)
    if not 0.0 <= threshold <= 1.0:
        raise ValueError(f"threshold must lie in [0, 1], got {threshold}")
    tags = _read_csv_checked(directory / "genome-tags.csv", {"tagId": "int64", "tag": "str"})
    by_name = dict(zip(tags["tag"].str.strip(), tags["tagId"], strict=True))
    missing = [c for c in concepts if c not in by_name]
    if missing:
        raise InputFileError(
            directory / "genome-tags.csv", None, f"concept(s) {missing} not among the genome tags"
        )
    wanted = {int(by_name[c]): c for c in concepts}

    parts = []
    score_path = directory / "genome-scores.csv"
    header = {"movieId": "int64", "tagId": "int64", "relevance": "float64"}
    _read_csv_checked(score_path, header, nrows=0)
    for chunk in _genome_chunks(score_path, header, chunksize=2_000_000):
        bad = chunk["relevance"].isna() | ~chunk["relevance"].between(0.0, 1.0)
        if bad.any():
            line = int(chunk.index[np.flatnonzero(bad.to_numpy())[0]]) + 2
            raise InputFileError(score_path, line, "relevance must lie in [0, 1]")
        parts.append(chunk.loc[chunk["tagId"].isin(list(wanted))])
    scores = pd.concat(parts, ignore_index=True)
    genome_movies = np.sort(pd.unique(scores["movieId"]))
    table = scores.pivot_table(
        index="movieId", columns="tagId", values="relevance", aggfunc="first"
    )
    table = table.reindex(index=genome_movies, columns=list(wanted))
    if table.isna().any().any():
        movie = table.index[np.flatnonzero(table.isna().any(axis=1).to_numpy())[0]]
        raise InputFileError(
            score_path, None, f"movie {movie} lacks a relevance for one of {list(concepts)}"
        )
    attributes = pd.DataFrame(
        (table.to_numpy() >= threshold).astype(np.uint8),
        index=pd.Index(table.index.to_numpy(), name="item_id"),
        columns=[wanted[t] for t in table.columns],
    )

    movies = _read_csv_checked(
        directory / "movies.csv", {"movieId": "int64", "title": "str", "genres": "str"}
    )
    raw = _read_csv_checked(
        directory / "ratings.csv",
        {"userId": "int64", "movieId": "int64", "rating": "float64", "timestamp": "int64"},
    )
    if raw["rating"].isna().any() or not raw["rating"].between(0.5, 5.0).all():
        line = (
            int(
                np.flatnonzero(
                    (raw["rating"].isna() | ~raw["rating"].between(0.5, 5.0)).to_numpy()
                )[0]
            )
            + 2
        )
        raise InputFileError(directory / "ratings.csv", line, "rating must lie in [0.5, 5]")
    unknown = ~raw["movieId"].isin(movies["movieId"])
    if unknown.any():
        line = int(np.flatnonzero(unknown.to_numpy())[0]) + 2
        raise InputFileError(directory / "ratings.csv", line, "movieId not in movies.csv")
    n_all = len(raw)
    if restrict_to_genome:
        raw = raw.loc[raw["movieId"].isin(genome_movies)]
    else:
        attributes = attributes.reindex(
            pd.Index(np.sort(movies["movieId"].to_numpy()), name="item_id"), fill_value=0
        )
    ratings = pd.DataFrame(
        {
            "user_id": raw["userId"].to_numpy(),
            "item_id": raw["movieId"].to_numpy(),
            "rating": raw["rating"].to_numpy(),
            "timestamp": raw["timestamp"].to_numpy(),
        }
    )
    source = DataSource(
        name="MovieLens Tag Genome",
        kind="real",
        version=_genome_version(directory, n_all),
        path=str(directory),
        details={
            "n_ratings_file": int(n_all),
            "n_ratings": int(len(ratings)),
            "n_ratings_outside_genome_removed": int(n_all - len(ratings)),
            "n_users": int(ratings["user_id"].nunique()),
            "n_items": int(len(attributes)),
            "concepts": list(concepts),
            "threshold": float(threshold),
            "restrict_to_genome": bool(restrict_to_genome),
            "licence": "GroupLens research licence: no redistribution",
        },
    )
    return ratings, attributes, source
