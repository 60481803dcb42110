"""MovieLens layouts: the dispatcher, GroupLens ML-100K and the ML-25M Tag Genome, on fixtures."""

from __future__ import annotations

import shutil
from pathlib import Path

import numpy as np
import pytest

from rankaudit.errors import InputFileError
from rankbook.data.movielens import (
    GENOME_CONCEPTS,
    ML100K_GENRES,
    detect_movielens_format,
    load_movielens,
    load_tag_genome,
)

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"
GENOME = FIXTURES / "movielens-25m"
GROUPLENS = FIXTURES / "ml-100k-grouplens"


def test_detects_each_layout(tmp_path: Path) -> None:
    assert detect_movielens_format(GENOME) == "tag-genome"
    assert detect_movielens_format(GROUPLENS) == "grouplens-ml100k"
    (tmp_path / "ml-100k.inter").write_text("x")
    (tmp_path / "ml-100k.item").write_text("x")
    assert detect_movielens_format(tmp_path) == "recbole-ml100k"


def test_unknown_layout_lists_what_it_expects(tmp_path: Path) -> None:
    (tmp_path / "ratings.dat").write_text("1::1::5::1\n")
    with pytest.raises(ValueError, match="genome-scores.csv"):
        load_movielens(tmp_path)
    with pytest.raises(ValueError, match="not a directory"):
        load_movielens(tmp_path / "nope")


def test_tag_genome_concepts_thresholded_at_07() -> None:
    ratings, attrs, source = load_movielens(GENOME)
    assert list(attrs.columns) == list(GENOME_CONCEPTS)
    assert attrs.index.name == "item_id" and len(attrs) == 12
    # movie 47 (Seven): atmospheric .91, dark .97, funny .08, romantic .06, thought-provoking .88,
    # violent .93
    assert attrs.loc[47].tolist() == [1, 1, 0, 0, 1, 1]
    # movie 110 (Braveheart): atmospheric exactly 0.70 -> applies (>= 0.7)
    assert attrs.loc[110, "atmospheric"] == 1 and attrs.loc[110, "dark"] == 0
    assert list(ratings.columns) == ["user_id", "item_id", "rating", "timestamp"]
    assert set(ratings["item_id"]) <= set(attrs.index)  # restricted to genome movies
    assert source.kind == "real" and source.details["layout"] == "tag-genome"
    removed = source.details["n_ratings_outside_genome_removed"]
    assert removed == source.details["n_ratings_file"] - len(ratings) and removed > 0
    assert ratings["rating"].isin(np.arange(0.5, 5.01, 0.5)).all()


def test_tag_genome_without_restriction_keeps_every_movie() -> None:
    ratings, attrs, source = load_tag_genome(GENOME, restrict_to_genome=False)
    assert len(attrs) == 15 and attrs.loc[209157].sum() == 0
    assert source.details["n_ratings_outside_genome_removed"] == 0


def test_missing_concept_and_bad_relevance_fail_with_file(tmp_path: Path) -> None:
    shutil.copytree(GENOME, tmp_path / "ml-25m")
    with pytest.raises(ValueError, match="genome-tags.csv.*'cyberpunk'"):
        load_tag_genome(tmp_path / "ml-25m", concepts=("dark", "cyberpunk"))
    scores = tmp_path / "ml-25m" / "genome-scores.csv"
    lines = scores.read_text().splitlines()
    lines[3] = "1,287,1.5"
    scores.write_text("\n".join(lines) + "\n")
    with pytest.raises(InputFileError, match=r"genome-scores.csv:4: relevance"):
        load_tag_genome(tmp_path / "ml-25m")


def test_genome_version_from_directory_name(tmp_path: Path) -> None:
    shutil.copytree(GENOME, tmp_path / "ml-20m")
    assert load_movielens(tmp_path / "ml-20m")[2].version.startswith("ml-20m")


def test_grouplens_ml100k_uses_19_genres() -> None:
    ratings, attrs, source = load_movielens(GROUPLENS)
    assert list(attrs.columns) == list(ML100K_GENRES) and len(attrs) == 10
    assert attrs.loc[1, ["Animation", "Children's", "Comedy"]].tolist() == [1, 1, 1]
    assert attrs.loc[10, "unknown"] == 1
    assert len(ratings) == 36 and source.details["layout"] == "grouplens-ml100k"


def test_grouplens_bad_number_names_line(tmp_path: Path) -> None:
    shutil.copytree(GROUPLENS, tmp_path / "ml")
    data = tmp_path / "ml" / "u.data"
    lines = data.read_text().splitlines()
    lines[4] = "1\t2\tfive\t874965758"
    data.write_text("\n".join(lines) + "\n")
    with pytest.raises(InputFileError, match=r"u.data:5: column 'rating'"):
        load_movielens(tmp_path / "ml")


@pytest.mark.real_data
def test_embedded_ml100k_default() -> None:
    ratings, attrs, source = load_movielens()
    assert len(ratings) == 100_000 and attrs.shape == (1682, 19)
    assert source.details["attributes"].startswith("19 ML-100K genres")
