"""The Amazon-schema simulator: schema, skew, determinism, and the loader round trip."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd

from rankbook.data.amazon import load_amazon_beauty, read_meta, read_reviews
from rankbook.data.amazon_sim import simulate_amazon_beauty, simulation_source, write_amazon_jsonl

REVIEW_COLUMNS = [
    "rating",
    "title",
    "text",
    "images",
    "asin",
    "parent_asin",
    "user_id",
    "timestamp",
    "helpful_vote",
    "verified_purchase",
]
META_COLUMNS = [
    "main_category",
    "title",
    "average_rating",
    "rating_number",
    "features",
    "description",
    "price",
    "images",
    "videos",
    "store",
    "categories",
    "details",
    "parent_asin",
    "bought_together",
]
SMALL = dict(n_users=3000, n_items=800, n_stores=120, seed=3)


def test_published_columns_and_types() -> None:
    reviews, meta = simulate_amazon_beauty(**SMALL)
    assert list(reviews.columns) == REVIEW_COLUMNS
    assert list(meta.columns) == META_COLUMNS
    assert reviews["rating"].isin([1.0, 2.0, 3.0, 4.0, 5.0]).all()
    assert reviews["user_id"].str.len().eq(28).all() and meta["parent_asin"].str.len().eq(10).all()
    assert not reviews.duplicated(["user_id", "parent_asin"]).any()
    assert meta["parent_asin"].is_unique


def test_deterministic_per_seed() -> None:
    a = simulate_amazon_beauty(**SMALL)
    b = simulate_amazon_beauty(**SMALL)
    pd.testing.assert_frame_equal(a[0], b[0])
    c = simulate_amazon_beauty(**{**SMALL, "seed": 4})
    assert not a[0]["parent_asin"].equals(c[0]["parent_asin"])


def test_skew_zipfian_items_long_tailed_users() -> None:
    reviews, _ = simulate_amazon_beauty(**SMALL)
    per_item = reviews["parent_asin"].value_counts().to_numpy()
    per_user = reviews["user_id"].value_counts().to_numpy()
    top = per_item[: len(per_item) // 100 + 1].sum() / per_item.sum()
    assert top > 0.05  # the top 1% of items draw far more than 1% of reviews
    assert np.median(per_user) <= 2 and per_user.max() >= 20
    assert (reviews["rating"] == 5.0).mean() > 0.5


def test_timestamps_increase_within_user() -> None:
    reviews, _ = simulate_amazon_beauty(**SMALL)
    assert (
        reviews.groupby("user_id", sort=False)["timestamp"]
        .apply(lambda s: s.is_monotonic_increasing)
        .all()
    )


def test_jsonl_round_trip_through_the_real_loader(tmp_path: Path) -> None:
    reviews, meta = simulate_amazon_beauty(**SMALL)
    rpath, mpath = write_amazon_jsonl(reviews, meta, tmp_path)
    back = read_reviews(rpath)
    assert back["user_id"].astype(str).tolist() == reviews["user_id"].tolist()
    assert back["parent_asin"].astype(str).tolist() == reviews["parent_asin"].tolist()
    np.testing.assert_array_equal(back["rating"].to_numpy(), reviews["rating"].to_numpy())
    np.testing.assert_array_equal(back["timestamp"].to_numpy(), reviews["timestamp"].to_numpy())
    back_meta = read_meta(mpath)
    assert back_meta["title"].tolist() == meta["title"].tolist()
    # byte-identical rewrite
    first = rpath.read_bytes()
    write_amazon_jsonl(reviews, meta, tmp_path)
    assert rpath.read_bytes() == first
    ratings_real, attrs_real, src_real = load_amazon_beauty(tmp_path)
    ratings_sim, attrs_sim, src_sim = load_amazon_beauty(simulate=SMALL)
    pd.testing.assert_frame_equal(ratings_real, ratings_sim)
    pd.testing.assert_frame_equal(attrs_real, attrs_sim)
    assert src_real.kind == "real" and src_sim.kind == "simulated"


def test_source_says_simulated_and_names_generator() -> None:
    source = simulation_source({"seed": 7})
    assert source.kind == "simulated"
    assert source.generator.startswith("rankbook.data.amazon_sim.simulate_amazon_beauty(")
    assert "seed=7" in source.generator and "SIMULATED" in source.label()


def test_default_switches_leave_the_default_catalog_untouched() -> None:
    """title_vocabulary=0 and extra_tokens=True are the original generator, draw for draw."""
    a = simulate_amazon_beauty(**SMALL)
    b = simulate_amazon_beauty(**SMALL, title_vocabulary=0, extra_tokens=True)
    pd.testing.assert_frame_equal(a[1], b[1])
    assert a[1]["title"].str.split().str.len().eq(4).all()  # store, adjective, two words
