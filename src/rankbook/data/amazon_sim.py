"""A documented generator of Amazon-Reviews-2023-schema data (Beauty and Personal Care).

This is the *embedded default* for the Amazon chapters: the real files are 24 million reviews
and cannot ship with the book. Everything built on it is labelled ``kind="simulated"`` and names
this generator and its arguments (:func:`simulation_source`).

Generative model (all draws from one ``numpy.random.default_rng(seed)``):

1. **Catalog.** ``n_items`` products. Each gets a category ``c`` from
   :data:`CATEGORIES` with probability proportional to ``1 / rank(c)``; a store drawn from
   ``n_stores`` pseudo-brands with Zipf(``store_exponent``) weights; a title made of the store,
   two words of its category's vocabulary and one shared adjective (each word chosen with
   Zipf weights within its list); 0-2 feature bullets; and the category path
   ``["Beauty & Personal Care", <category>]``.
2. **Item popularity.** A latent weight ``p_i = 1 / r_i ** item_exponent`` with ``r_i`` a random
   permutation of ``1..n_items`` (Zipfian popularity, independent of category).
3. **Users.** History lengths ``L_u ~ Zipf(user_exponent)`` truncated at ``max_history``: most
   users write one review, a few write hundreds (long-tailed). Each user has a favourite
   category (drawn like item categories); each review comes from the favourite category with
   probability ``affinity``, else from the whole catalog, and within that pool the item is drawn
   with probability proportional to ``p_i``. Repeated (user, item) pairs are removed.
4. **Ratings.** 1-5 stars; in-favourite-category reviews use ``RATING_P_IN`` and others
   ``RATING_P_OUT`` (both skewed to 5 stars as in the real data).
5. **Lexical density** (two switches; their defaults keep the draws above, byte for byte).
   ``title_vocabulary = V > 0`` replaces each category's 12 real title words by ``V``
   pseudo-words (four syllables, so never equal to a store name), still drawn with Zipf weights;
   a large ``V`` spreads titles over many rare tokens. ``extra_tokens=False`` drops the shared
   adjective, the feature bullets and the category name from the metadata (the category path is
   then ``["Beauty & Personal Care"]``), leaving store and title words as the only tokens. These
   extra draws come from a second generator, ``default_rng([seed, 1])``.
6. **Timestamps.** Unix milliseconds: a user start time uniform in 2015-2023 plus exponential
   gaps (mean 30 days), so each user's reviews are in generation order.

The outputs have the published columns of ``Beauty_and_Personal_Care.jsonl.gz`` and
``meta_Beauty_and_Personal_Care.jsonl.gz`` (free-text fields are empty); :func:`write_amazon_jsonl`
writes them as the two gzipped JSON-lines files, which :mod:`rankbook.data.amazon` reads back.
"""

from __future__ import annotations

import gzip
import json
from pathlib import Path

import numpy as np
import pandas as pd

from rankaudit._checks import check_int, check_positive_int
from rankaudit._version import __version__
from rankaudit.scalars import plain
from rankbook.data.amazon_schema import META_FILE, REVIEWS_FILE
from rankbook.data.source import DataSource

__all__ = [
    "ADJECTIVES",
    "CATEGORIES",
    "DEFAULTS",
    "FEATURES",
    "GENERATOR",
    "RATING_P_IN",
    "RATING_P_OUT",
    "simulate_amazon_beauty",
    "simulation_source",
    "write_amazon_jsonl",
]

GENERATOR = "rankbook.data.amazon_sim.simulate_amazon_beauty"

CATEGORIES: dict[str, list[str]] = {
    "Skin Care": "serum moisturizer cleanser retinol hyaluronic vitamin sunscreen toner "
    "cream peptide niacinamide exfoliating".split(),
    "Hair Care": "shampoo conditioner keratin argan curl volumizing repair scalp mask "
    "leave detangler biotin".split(),
    "Makeup": "lipstick mascara foundation eyeliner concealer palette blush primer "
    "bronzer gloss brow highlighter".split(),
    "Tools & Accessories": "brush sponge mirror tweezers curler comb applicator "
    "sharpener organizer dryer straightener roller".split(),
    "Foot, Hand & Nail Care": "polish nail cuticle manicure pedicure lotion gel "
    "remover file callus acrylic topcoat".split(),
    "Fragrance": "perfume cologne eau parfum mist floral musk vanilla citrus woody "
    "amber spray".split(),
    "Shave & Hair Removal": "razor shaving blade trimmer wax epilator aftershave "
    "beard balm foam clipper stubble".split(),
    "Oral Care": "toothpaste toothbrush whitening floss mouthwash fluoride enamel "
    "gum sonic strips tongue mint".split(),
}
ADJECTIVES = (
    "natural organic professional sensitive vegan gentle hydrating travel luxury "
    "lightweight waterproof unscented cruelty long lasting daily intensive"
).split()
FEATURES = (
    "dermatologist tested",
    "paraben free",
    "sulfate free",
    "made in usa",
    "fragrance free",
    "suitable for all skin types",
    "recyclable packaging",
)
RATING_P_IN = np.array([0.06, 0.04, 0.07, 0.15, 0.68])
RATING_P_OUT = np.array([0.14, 0.07, 0.10, 0.16, 0.53])
_ALPHABET = np.frombuffer(b"ABCDEFGHIJKLMNOPQRSTUVWXYZ234567", dtype=np.uint8)
_SYLLABLES = "ka lo mi ra ve su na to be li co du ne sa ri po ma fe zu ly".split()
#: Distinct store names of two or three syllables: the most stores the generator can name.
MAX_STORES = len(_SYLLABLES) ** 2 + len(_SYLLABLES) ** 3
_START_MS = 1_420_070_400_000  # 2015-01-01
_SPAN_MS = 8 * 365 * 86_400_000
_DAY_MS = 86_400_000

DEFAULTS = dict(
    n_users=90_000,
    n_items=20_000,
    n_stores=1_500,
    item_exponent=0.9,
    user_exponent=1.9,
    store_exponent=1.1,
    max_history=300,
    affinity=0.7,
    title_vocabulary=0,
    extra_tokens=True,
    seed=0,
)


def _zipf_weights(n: int, exponent: float) -> np.ndarray:
    w = 1.0 / np.arange(1, n + 1, dtype=np.float64) ** exponent
    return w / w.sum()


def _random_ids(rng: np.random.Generator, n: int, prefix: bytes, length: int) -> np.ndarray:
    """``n`` distinct ids: ``prefix`` + ``length`` base-32 characters (numpy strings)."""
    out: np.ndarray = np.empty(0, dtype=f"S{len(prefix) + length}")
    while len(out) < n:
        chars = _ALPHABET[rng.integers(0, 32, size=(n, length))]
        body = chars.view(f"S{length}").ravel()
        out = pd.unique(np.concatenate([out, np.char.add(prefix, body)]))[:n]
    return out.astype(str)


def _store_names(rng: np.random.Generator, n: int) -> list[str]:
    names: list[str] = []
    seen: set[str] = set()
    while len(names) < n:
        k = int(rng.integers(2, 4))
        name = "".join(_SYLLABLES[j] for j in rng.integers(0, len(_SYLLABLES), size=k)).capitalize()
        if name not in seen:
            seen.add(name)
            names.append(name)
    return names


def _pseudo_words(rng: np.random.Generator, n: int) -> list[str]:
    """``n`` distinct lower-case pseudo-words of four syllables (8 letters)."""
    words: list[str] = []
    seen: set[str] = set()
    while len(words) < n:
        word = "".join(_SYLLABLES[j] for j in rng.integers(0, len(_SYLLABLES), size=4))
        if word not in seen:
            seen.add(word)
            words.append(word)
    return words


def _sparse_titles(
    seed: int, category: np.ndarray, store_names: list[str], title_vocabulary: int
) -> list[str]:
    """Titles ``"<Store> <Word> <Word>"`` with words from a per-category pseudo-word list."""
    rng = np.random.default_rng([seed, 1])
    vocab = [_pseudo_words(rng, title_vocabulary) for _ in CATEGORIES]
    words = rng.choice(
        title_vocabulary, size=(len(category), 2), p=_zipf_weights(title_vocabulary, 0.8)
    )
    return [
        f"{store_names[i]} {vocab[c][a].capitalize()} {vocab[c][b].capitalize()}"
        for i, (c, (a, b)) in enumerate(zip(category, words, strict=True))
    ]


def _catalog(rng: np.random.Generator, n_items: int, n_stores: int, store_exponent: float):
    names = list(CATEGORIES)
    category = rng.choice(len(names), size=n_items, p=_zipf_weights(len(names), 1.0))
    stores = _store_names(rng, n_stores)
    store = rng.choice(n_stores, size=n_items, p=_zipf_weights(n_stores, store_exponent))
    word_p = _zipf_weights(12, 0.8)
    words = rng.choice(12, size=(n_items, 2), p=word_p)
    adjective = rng.choice(len(ADJECTIVES), size=n_items, p=_zipf_weights(len(ADJECTIVES), 0.7))
    n_features = rng.integers(0, 3, size=n_items)
    feature = rng.integers(0, len(FEATURES), size=(n_items, 2))
    asins = _random_ids(rng, n_items, b"B0", 8)
    titles, features, categories = [], [], []
    for i in range(n_items):
        vocab = CATEGORIES[names[category[i]]]
        titles.append(
            f"{stores[store[i]]} {ADJECTIVES[adjective[i]].capitalize()} "
            f"{vocab[words[i, 0]].capitalize()} {vocab[words[i, 1]].capitalize()}"
        )
        features.append(sorted({FEATURES[j] for j in feature[i, : n_features[i]]}))
        categories.append(["Beauty & Personal Care", names[category[i]]])
    return asins, category, [stores[s] for s in store], titles, features, categories


def _sample_within(
    rng, pools: list[np.ndarray], cdfs: list[np.ndarray], which: np.ndarray
) -> np.ndarray:
    """For each entry of ``which`` (a pool index), draw one item of that pool by its cdf."""
    out = np.empty(len(which), dtype=np.int64)
    u = rng.random(len(which))
    for j, (pool, cdf) in enumerate(zip(pools, cdfs, strict=True)):
        mask = which == j
        out[mask] = pool[np.minimum(np.searchsorted(cdf, u[mask], side="right"), len(pool) - 1)]
    return out


def simulate_amazon_beauty(
    n_users: int = DEFAULTS["n_users"],
    n_items: int = DEFAULTS["n_items"],
    *,
    n_stores: int = DEFAULTS["n_stores"],
    item_exponent: float = DEFAULTS["item_exponent"],
    user_exponent: float = DEFAULTS["user_exponent"],
    store_exponent: float = DEFAULTS["store_exponent"],
    max_history: int = DEFAULTS["max_history"],
    affinity: float = DEFAULTS["affinity"],
    title_vocabulary: int = DEFAULTS["title_vocabulary"],
    extra_tokens: bool = DEFAULTS["extra_tokens"],
    seed: int = DEFAULTS["seed"],
) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Simulated ``(reviews, meta)`` in the published Amazon Reviews 2023 schema.

    See the module docstring for the generative model. ``reviews`` has the columns of the
    review file (``rating, title, text, images, asin, parent_asin, user_id, timestamp,
    helpful_vote, verified_purchase``) and ``meta`` those of the metadata file. Deterministic
    for a given ``seed``.
    """
    for name, value in dict(
        n_users=n_users, n_items=n_items, n_stores=n_stores, max_history=max_history
    ).items():
        check_positive_int(value, name)
    if n_stores > MAX_STORES:
        raise ValueError(
            f"n_stores must be <= {MAX_STORES} (distinct 2-3 syllable names), got {n_stores}"
        )
    if not 0.0 <= affinity <= 1.0:
        raise ValueError(f"affinity must lie in [0, 1], got {affinity}")
    check_int(title_vocabulary, "title_vocabulary", lo=0)
    if not isinstance(extra_tokens, bool | np.bool_):
        raise ValueError(f"extra_tokens must be True or False, got {extra_tokens!r}")
    if user_exponent <= 1.0:
        raise ValueError(f"user_exponent must be > 1 (Zipf), got {user_exponent}")
    rng = np.random.default_rng(seed)
    asins, category, stores, titles, features, categories = _catalog(
        rng, n_items, n_stores, store_exponent
    )
    if title_vocabulary > 0:
        titles = _sparse_titles(seed, category, stores, int(title_vocabulary))
    if not extra_tokens:
        if title_vocabulary == 0:
            titles = [
                " ".join(t.split(" ")[:1] + t.split(" ")[2:]) for t in titles
            ]  # drop adjective
        features = [[] for _ in range(n_items)]
        categories = [["Beauty & Personal Care"] for _ in range(n_items)]

    popularity = (
        1.0 / rng.permutation(np.arange(1, n_items + 1)).astype(np.float64) ** item_exponent
    )
    n_cat = len(CATEGORIES)
    pools = [np.flatnonzero(category == c) for c in range(n_cat)] + [np.arange(n_items)]
    cdfs = [np.cumsum(popularity[p]) / popularity[p].sum() for p in pools]

    lengths = np.minimum(rng.zipf(user_exponent, size=n_users), max_history)
    user = np.repeat(np.arange(n_users), lengths)
    favourite = rng.choice(n_cat, size=n_users, p=_zipf_weights(n_cat, 1.0))
    in_favourite = rng.random(len(user)) < affinity
    which = np.where(in_favourite, favourite[user], n_cat)
    item = _sample_within(rng, pools, cdfs, which)
    in_favourite |= category[item] == favourite[user]
    keep = ~pd.DataFrame({"u": user, "i": item}).duplicated().to_numpy()
    user, item, in_favourite = user[keep], item[keep], in_favourite[keep]

    stars = (
        np.where(
            in_favourite,
            rng.choice(5, size=len(user), p=RATING_P_IN),
            rng.choice(5, size=len(user), p=RATING_P_OUT),
        )
        + 1.0
    )
    start = _START_MS + rng.integers(0, _SPAN_MS, size=n_users)
    gaps = rng.exponential(30 * _DAY_MS, size=len(user)).astype(np.int64) + 1
    order_in_user = pd.Series(gaps).groupby(user).cumsum().to_numpy()
    timestamp = start[user] + order_in_user

    user_ids = _random_ids(rng, n_users, b"A", 27)
    n = len(user)
    reviews = pd.DataFrame(
        {
            "rating": stars,
            "title": [""] * n,
            "text": [""] * n,
            "images": [[] for _ in range(n)],
            "asin": asins[item],
            "parent_asin": asins[item],
            "user_id": user_ids[user],
            "timestamp": timestamp.astype(np.int64),
            "helpful_vote": rng.poisson(0.5, size=n).astype(np.int64),
            "verified_purchase": rng.random(n) < 0.9,
        }
    )
    counts = np.bincount(item, minlength=n_items)
    sums = np.bincount(item, weights=stars, minlength=n_items)
    average = np.divide(sums, counts, out=np.zeros(n_items), where=counts > 0)
    meta = pd.DataFrame(
        {
            "main_category": ["All Beauty"] * n_items,
            "title": titles,
            "average_rating": [
                float(round(a, 1)) if c else None for a, c in zip(average, counts, strict=True)
            ],
            "rating_number": counts.astype(np.int64),
            "features": features,
            "description": [[] for _ in range(n_items)],
            "price": np.round(rng.lognormal(2.5, 0.6, size=n_items), 2),
            "images": [[] for _ in range(n_items)],
            "videos": [[] for _ in range(n_items)],
            "store": stores,
            "categories": categories,
            "details": [{"Brand": s} for s in stores],
            "parent_asin": asins,
            "bought_together": [None] * n_items,
        }
    )
    return reviews, meta


def simulation_source(overrides: dict | None = None):
    """The :class:`rankbook.data.DataSource` for data made by :func:`simulate_amazon_beauty`."""
    args = {**DEFAULTS, **(overrides or {})}
    call = ", ".join(f"{k}={v!r}" for k, v in args.items())
    return DataSource(
        name="Simulated Amazon Reviews 2023 Beauty_and_Personal_Care (Amazon schema)",
        kind="simulated",
        version=str(__version__),
        generator=f"{GENERATOR}({call})",
        details={"generator_args": args, "note": "simulated data, not the real Amazon reviews"},
    )


def write_amazon_jsonl(
    reviews: pd.DataFrame, meta: pd.DataFrame, out_dir: str | Path
) -> tuple[Path, Path]:
    """Write ``reviews`` and ``meta`` as ``Beauty_and_Personal_Care.jsonl.gz`` and
    ``meta_Beauty_and_Personal_Care.jsonl.gz`` in ``out_dir`` (byte-identical for equal input:
    the gzip header carries no timestamp)."""
    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    paths = (out_dir / REVIEWS_FILE, out_dir / META_FILE)
    for frame, path in zip((reviews, meta), paths, strict=True):
        columns = list(frame.columns)
        with open(path, "wb") as raw, gzip.GzipFile(fileobj=raw, mode="wb", mtime=0) as gz:
            for values in zip(*(frame[c].tolist() for c in columns), strict=True):
                record = {c: plain(v) for c, v in zip(columns, values, strict=True)}
                gz.write((json.dumps(record, ensure_ascii=False) + "\n").encode("utf-8"))
    return paths
