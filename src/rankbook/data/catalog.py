"""Synthetic e-commerce catalog with listing-style titles.

A product is a combination of *category*, *brand*, *product line* (belongs to the brand), *product
type*, one *attribute* and one *size/variant*, with a price and a latent quality. Titles read like
marketplace
listings::

    Nioxin System 4 Shampoo for Colored Hair, 10.1 oz
    Redken Color Extend Sulfate Free Conditioner, 33.8 oz
    Sony WH-1000XM5 Noise Cancelling Wireless Headphones, Black

Attributes that start with "for"/"with" follow the product type, the others precede it. The
vocabularies below are written compactly, one line per field, ``|``-separated; brands carry their
lines after a colon. This module only builds the catalog; :mod:`rankbook.data.sessions` simulates
buyers over it.

Public API
----------
``CATEGORY_SPECS``            dict: category name -> :class:`CategorySpec`
``generate_catalog(n_products, *, seed=0, n_categories=None, price_sigma=0.35, quality_sigma=0.8)``
    -> ``pandas.DataFrame`` with columns ``item_id, title, category, brand, line, product_type,
    attribute, size, price, quality`` plus integer codes ``category_code, brand_code, line_code,
    type_code, attribute_code`` (codes are global across categories, so equal code <=> equal value).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd

__all__ = ["CATEGORY_SPECS", "CategorySpec", "generate_catalog"]


@dataclass(frozen=True)
class CategorySpec:
    """Vocabulary of one category.

    ``brands`` maps a brand to its product lines; ``median_price`` is the category's median price in
    USD.
    """

    name: str
    types: tuple[str, ...]
    brands: dict[str, tuple[str, ...]]
    attributes: tuple[str, ...]
    sizes: tuple[str, ...]
    median_price: float


#: One category per line (``catalog_vocabulary.txt`` beside this module; lines starting with ``#``
#: are comments): name ; types ; brands (Brand: line, line | ...) ; attributes ; sizes ; median
#: price
_RAW = "\n".join(
    line
    for line in (Path(__file__).with_name("catalog_vocabulary.txt"))
    .read_text(encoding="utf-8")
    .splitlines()
    if not line.startswith("#")
)


def _parse_specs(raw: str) -> dict[str, CategorySpec]:
    specs: dict[str, CategorySpec] = {}
    for line_no, line in enumerate(raw.strip().splitlines(), start=1):
        fields = line.split(";")
        if len(fields) != 6:
            raise ValueError(
                f"catalog vocabulary line {line_no}: expected 6 ';' fields, got {len(fields)}"
            )
        name, types, brands, attrs, sizes, price = fields
        brand_map = {}
        for entry in brands.split("|"):
            brand, lines = entry.split(":", 1)
            brand_map[brand.strip()] = tuple(x.strip() for x in lines.split(","))
        specs[name] = CategorySpec(
            name=name,
            types=tuple(types.split("|")),
            brands=brand_map,
            attributes=tuple(attrs.split("|")),
            sizes=tuple(sizes.split("|")),
            median_price=float(price),
        )
    return specs


CATEGORY_SPECS: dict[str, CategorySpec] = _parse_specs(_RAW)


def _title(brand: str, line: str, ptype: str, attribute: str, size: str) -> str:
    # never repeat words the line already says: "Toughened Nonstick" + "Nonstick" -> "Toughened
    # Nonstick Skillet"; "511 Slim" + "Slim Fit" -> "511 Slim Fit Jeans"
    if f" {attribute.lower()} " in f" {line.lower()} ":
        return f"{brand} {line} {ptype}, {size}"
    line_words, attr_words = line.lower().split(), attribute.split()
    for n in range(min(len(line_words), len(attr_words)), 0, -1):
        if line_words[-n:] == [w.lower() for w in attr_words[:n]]:
            return f"{brand} {line} {' '.join(attr_words[n:])} {ptype}, {size}"
    if attribute.startswith(("for ", "with ")):
        return f"{brand} {line} {ptype} {attribute}, {size}"
    return f"{brand} {line} {attribute} {ptype}, {size}"


def generate_catalog(
    n_products: int,
    *,
    seed: int = 0,
    n_categories: int | None = None,
    price_sigma: float = 0.35,
    quality_sigma: float = 0.8,
    category_zipf: float = 0.6,
) -> pd.DataFrame:
    """Draw ``n_products`` distinct products (no two share brand, line, type, attribute and size).

    Category shares follow a Zipf law with exponent ``category_zipf``; within a category, brand
    shares follow Zipf(1) so a few brands dominate, as on real marketplaces. Price is
    ``median_price * exp(0.25 * z_brand + 0.15 * size_rank + N(0, price_sigma))``; quality (a latent
    popularity the production engine knows) is ``N(0, quality_sigma)``.
    """
    if n_products < 1:
        raise ValueError(f"n_products must be >= 1, got {n_products}")
    names = list(CATEGORY_SPECS)
    if n_categories is None:
        n_categories = len(names)
    if not 1 <= n_categories <= len(names):
        raise ValueError(f"n_categories must be in [1, {len(names)}], got {n_categories}")
    rng = np.random.default_rng(seed)
    names = names[:n_categories]

    # enumerate all combinations per category once (small: a few thousand per category)
    rows: list[tuple] = []
    weights: list[float] = []
    cat_w = 1.0 / np.arange(1, n_categories + 1) ** category_zipf
    cat_w = cat_w / cat_w.sum()
    for ci, name in enumerate(names):
        spec = CATEGORY_SPECS[name]
        combos = []
        w = []
        for bi, (brand, lines) in enumerate(spec.brands.items()):
            for line in lines:
                for ptype in spec.types:
                    for si, size in enumerate(spec.sizes):
                        for attr in spec.attributes:
                            combos.append((name, brand, line, ptype, attr, size, si, bi))
                            w.append(1.0 / (bi + 1))
        w = np.asarray(w)
        rows.extend(combos)
        weights.extend(cat_w[ci] * w / w.sum())
    weights_arr = np.asarray(weights)
    if n_products > len(rows):
        raise ValueError(
            f"n_products={n_products} exceeds the {len(rows)} distinct products of the vocabulary"
        )
    pick = rng.choice(len(rows), size=n_products, replace=False, p=weights_arr / weights_arr.sum())
    pick.sort()
    chosen = [rows[i] for i in pick]
    df = pd.DataFrame(
        chosen,
        columns=[
            "category",
            "brand",
            "line",
            "product_type",
            "attribute",
            "size",
            "size_rank",
            "brand_rank",
        ],
    )
    brand_z = {
        b: z
        for b, z in zip(
            sorted(df.brand.unique()), rng.normal(0, 1, df.brand.nunique()), strict=True
        )
    }
    median = df.category.map(lambda c: CATEGORY_SPECS[c].median_price).to_numpy()
    size_rel = df.groupby("category").size_rank.transform(
        lambda s: (s - s.mean()) / max(s.std(ddof=0), 1.0)
    )
    price = median * np.exp(
        0.25 * df.brand.map(brand_z).to_numpy()
        + 0.15 * size_rel.to_numpy()
        + rng.normal(0, price_sigma, len(df))
    )
    df["price"] = np.round(price, 2).clip(0.99, None)
    df["quality"] = rng.normal(0.0, quality_sigma, len(df))
    df["title"] = [
        _title(b, li, t, a, s)
        for b, li, t, a, s in zip(
            df.brand, df.line, df.product_type, df.attribute, df["size"], strict=True
        )
    ]
    df.insert(0, "item_id", np.arange(len(df), dtype=np.int64))
    # global integer codes (brand code keyed on (category, brand): "Sony" headphones != "Sony"
    # cameras line-wise)
    df["category_code"] = pd.Categorical(df.category, categories=names).codes.astype(np.int32)
    df["brand_code"] = pd.factorize(df.category + "|" + df.brand, sort=True)[0].astype(np.int32)
    df["line_code"] = pd.factorize(df.category + "|" + df.brand + "|" + df.line, sort=True)[
        0
    ].astype(np.int32)
    df["type_code"] = pd.factorize(df.category + "|" + df.product_type, sort=True)[0].astype(
        np.int32
    )
    df["attribute_code"] = pd.factorize(df.category + "|" + df.attribute, sort=True)[0].astype(
        np.int32
    )
    cols = [
        "item_id",
        "title",
        "category",
        "brand",
        "line",
        "product_type",
        "attribute",
        "size",
        "price",
        "quality",
        "category_code",
        "brand_code",
        "line_code",
        "type_code",
        "attribute_code",
    ]
    return df[cols]
