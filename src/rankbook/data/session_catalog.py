"""The catalog as the session simulator reads it: per-item codes, prices, quality and the engine's
BM25 index (steps 1 and 5 of :mod:`rankbook.data.sessions`).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from rankbook.data.catalog import generate_catalog
from rankbook.data.lexical import BM25Index
from rankbook.data.session_config import SessionConfig

__all__ = ["Catalog"]


@dataclass(frozen=True)
class Catalog:
    """The catalog as the simulator reads it: per-item codes and the engine's BM25 index."""

    items: pd.DataFrame
    index: BM25Index
    category_onehot: np.ndarray  # (items, categories)
    category_by_code: pd.Series
    product_type: np.ndarray
    brand: np.ndarray
    line: np.ndarray
    attribute: np.ndarray
    log_price: np.ndarray
    quality: np.ndarray
    text_parts: list[tuple]  # (brand, line, product type, attribute) per item

    @classmethod
    def build(cls, cfg: SessionConfig) -> Catalog:
        items = generate_catalog(cfg.n_products, seed=cfg.seed)
        onehot = np.zeros((len(items), items.category_code.max() + 1))
        onehot[np.arange(len(items)), items.category_code.to_numpy()] = 1.0
        return cls(
            items=items,
            index=BM25Index(items.title.to_numpy()),
            category_onehot=onehot,
            category_by_code=items.drop_duplicates("category_code")
            .set_index("category_code")
            .category,
            product_type=items.type_code.to_numpy(),
            brand=items.brand_code.to_numpy(),
            line=items.line_code.to_numpy(),
            attribute=items.attribute_code.to_numpy(),
            log_price=np.log(items.price.to_numpy()),
            quality=items.quality.to_numpy(),
            text_parts=list(
                zip(items.brand, items.line, items.product_type, items.attribute, strict=True)
            ),
        )
