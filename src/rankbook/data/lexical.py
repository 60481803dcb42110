"""Tokenizer and Okapi BM25 index: the simulated search engine's retrieval and the MLR lexical
feature.

BM25 (Robertson & Zaragoza, 2009, *Foundations and Trends in IR* 3(4)) scores document ``d`` for
query ``q``:

    BM25(q, d) = sum_{t in q} idf(t) * tf(t, d) * (k1 + 1) / (tf(t, d) + k1 * (1 - b + b * |d| /
    avgdl)) idf(t)     = ln(1 + (N - df(t) + 0.5) / (df(t) + 0.5))

Query terms count once (binary query vector). Tokens are maximal runs of ``[a-z0-9]`` after
lower-casing, so hashed-token data such as Diginetica's ``"16655,244087"`` tokenises to its ids.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

import numpy as np
import scipy.sparse as sp

from rankaudit._optional import require

__all__ = ["BM25Index", "TOKEN_PATTERN", "tokenize"]

TOKEN_PATTERN = r"[a-z0-9]+"


def tokenize(text: str) -> list[str]:
    """Lower-case and split into ``[a-z0-9]+`` tokens."""
    return re.findall(TOKEN_PATTERN, text.lower())


class BM25Index:
    """A BM25-weighted document-term matrix over ``docs`` (e.g. product titles)."""

    def __init__(self, docs: Sequence[str], *, k1: float = 1.2, b: float = 0.75) -> None:
        if len(docs) == 0:
            raise ValueError("BM25Index: docs is empty")
        self.k1, self.b = float(k1), float(b)
        text = require("sklearn.feature_extraction.text", purpose="rankbook.data.lexical")
        self._vec = text.CountVectorizer(
            token_pattern=TOKEN_PATTERN, lowercase=True, dtype=np.float64
        )
        tf = self._vec.fit_transform(list(docs)).tocsr()
        n_docs = tf.shape[0]
        dl = np.asarray(tf.sum(axis=1)).ravel()
        avgdl = max(dl.mean(), 1e-12)
        df = np.bincount(tf.indices, minlength=tf.shape[1])
        self.idf = np.log1p((n_docs - df + 0.5) / (df + 0.5))
        rows = np.repeat(np.arange(n_docs), np.diff(tf.indptr))
        t = tf.data
        w = self.idf[tf.indices] * t * (k1 + 1.0) / (t + k1 * (1.0 - b + b * dl[rows] / avgdl))
        self.weights = sp.csr_matrix((w, tf.indices, tf.indptr), shape=tf.shape)
        self.n_docs = n_docs

    def query_matrix(self, queries: Sequence[str]) -> sp.csr_matrix:
        """Binary query-term matrix (unknown tokens are ignored)."""
        q = self._vec.transform(list(queries)).tocsr()
        q.data[:] = 1.0
        return q

    def scores(self, queries: Sequence[str]) -> np.ndarray:
        """Dense ``(len(queries), n_docs)`` BM25 scores."""
        return np.asarray((self.query_matrix(queries) @ self.weights.T).todense())

    def pair_scores(
        self, queries: Sequence[str], query_index: np.ndarray, doc_index: np.ndarray
    ) -> np.ndarray:
        """BM25 of ``queries[query_index[i]]`` against document ``doc_index[i]`` for every pair
        ``i``."""
        q = self.query_matrix(queries)
        query_index = np.asarray(query_index)
        doc_index = np.asarray(doc_index)
        out = np.empty(len(query_index))
        step = 200_000
        for lo in range(0, len(query_index), step):
            a = q[query_index[lo : lo + step]]
            d = self.weights[doc_index[lo : lo + step]]
            out[lo : lo + step] = np.asarray(a.multiply(d).sum(axis=1)).ravel()
        return out

    def pair_coverage(
        self, queries: Sequence[str], query_index: np.ndarray, doc_index: np.ndarray
    ) -> np.ndarray:
        """Fraction of a query's known tokens that occur in the document (NaN when the query has
        none)."""
        q = self.query_matrix(queries)
        present = self.weights.copy()
        present.data[:] = 1.0
        n_tok = np.asarray(q.sum(axis=1)).ravel()
        out = np.empty(len(query_index))
        step = 200_000
        for lo in range(0, len(query_index), step):
            a = q[np.asarray(query_index[lo : lo + step])]
            d = present[np.asarray(doc_index[lo : lo + step])]
            out[lo : lo + step] = np.asarray(a.multiply(d).sum(axis=1)).ravel()
        with np.errstate(invalid="ignore", divide="ignore"):
            return np.where(n_tok[query_index] > 0, out / n_tok[query_index], np.nan)
