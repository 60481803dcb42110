"""Lexical item attributes of Amazon products: title/feature/category/store tokens, the most
frequent ones as binary attributes (the paper's Amazon attribute space, Guo et al. 2026, §4.2).
"""

from __future__ import annotations

import re
from collections import Counter

import numpy as np
import pandas as pd

__all__ = ["STOPWORDS", "attributes_for", "item_tokens", "lexical_attributes", "attribute_tokens"]


# A small English stop list plus words that carry no product information in this domain.
STOPWORDS = frozenset(
    """
    a an and are as at be by for from has have in is it its of on or that the this to was
    were will with your you our not all any can into more most other out per than too very
    so no up off use used using new set pack count size oz fl ml inch inches pcs piece pieces
    """.split()
)


_TOKEN = re.compile(r"[a-z][a-z0-9]+")


def attribute_tokens(text: str) -> set[str]:
    """Lower-case alphanumeric tokens of length >= 3 (starting with a letter), minus stop words."""
    return {t for t in _TOKEN.findall(text.lower()) if len(t) >= 3 and t not in STOPWORDS}


def item_tokens(meta: pd.DataFrame) -> list[set[str]]:
    """The token set of each metadata row: title, features, categories and store together."""
    out = []
    for title, store, features, categories in zip(
        meta["title"], meta["store"], meta["features"], meta["categories"], strict=True
    ):
        text = " ".join([title or "", store or "", *features, *categories])
        out.append(attribute_tokens(text))
    return out


def lexical_attributes(
    meta: pd.DataFrame,
    *,
    n_attributes: int = 64,
    min_items: int = 5,
    max_fraction: float = 0.5,
) -> pd.DataFrame:
    """Binary lexical attributes of each product from its metadata text.

    ``A[i, t] = 1`` if token ``t`` occurs in the title, features, categories or store of item
    ``i`` (see :func:`attribute_tokens`). The vocabulary is the ``n_attributes`` tokens with the
    highest
    document frequency among those found in at least ``min_items`` items and in at most
    ``max_fraction`` of all items (very common tokens such as the category name carry no
    signal); frequency ties are broken alphabetically, so the vocabulary is deterministic.

    Returns a ``uint8`` DataFrame indexed by ``parent_asin`` (named ``item_id``) with one
    column per token, named ``tok:<token>``.
    """
    if n_attributes < 1:
        raise ValueError(f"n_attributes must be >= 1, got {n_attributes}")
    if not 0 < max_fraction <= 1:
        raise ValueError(f"max_fraction must lie in (0, 1], got {max_fraction}")
    if len(meta) == 0:
        raise ValueError("meta has no rows")
    tokens = item_tokens(meta)
    df = Counter(t for toks in tokens for t in toks)
    limit = max_fraction * len(meta)
    eligible = [(-n, t) for t, n in df.items() if min_items <= n <= limit]
    vocab = [t for _, t in sorted(eligible)[:n_attributes]]
    if not vocab:
        raise ValueError(
            f"no token occurs in between min_items={min_items} and {max_fraction:.0%} of the "
            f"{len(meta)} items; lower min_items"
        )
    index = {t: j for j, t in enumerate(vocab)}
    matrix = np.zeros((len(meta), len(vocab)), dtype=np.uint8)
    for i, toks in enumerate(tokens):
        cols = [index[t] for t in toks if t in index]
        matrix[i, cols] = 1
    return pd.DataFrame(
        matrix,
        index=pd.Index(meta["parent_asin"].astype(str).to_numpy(), name="item_id"),
        columns=[f"tok:{t}" for t in vocab],
    )


def attributes_for(ratings: pd.DataFrame, attributes: pd.DataFrame) -> pd.DataFrame:
    """Attribute rows for every item in ``ratings``; items without metadata get all-zero rows.

    The number of such items is returned in ``attrs.attrs["items_without_metadata"]`` so that
    callers can report it (nothing is dropped).
    """
    items = pd.Index(pd.unique(ratings["item_id"]), name="item_id")
    out = attributes.reindex(items, fill_value=0).astype(attributes.dtypes.iloc[0])
    out.attrs["items_without_metadata"] = int((~items.isin(attributes.index)).sum())
    return out
