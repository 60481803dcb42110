"""What the measures *are*: HR@k, NDCG@k and RR of one fully ordered row.

These are the plain reference definitions.  They take the labels of a row
already arranged in rank order (position 0 = rank 1) and work on the last axis,
so a stack of orderings (shape ``(..., n)``) is scored at once; that is how
:mod:`rankaudit.ties.bruteforce` scores every tie order of a small row.  The
fast kernels (:mod:`rankaudit.measures.row_expected`, :mod:`~rankaudit.measures.row_ordered`,
:mod:`~rankaudit.measures.row_sampled`) are tested equal to these.

A candidate is *relevant* when its label is > 0.  Labels are graded relevance
(``gain = label``, linear gain, as in scikit-learn's ``ndcg_score`` and
trec_eval's ``ndcg_cut``).

Hit rate at k (HR@k)
    ``HR@k = 1[min_{i relevant} rank(i) <= k]``: 1 if any relevant item is in
    the top k.  With one relevant item per row it equals recall@k.

Normalised discounted cumulative gain at k (NDCG@k; Järvelin & Kekäläinen 2002)
    ``DCG@k = sum_{r=1}^{k} gain(r) / log2(r + 1)`` and
    ``NDCG@k = DCG@k / IDCG@k``, where IDCG@k is the DCG@k of the row's own
    labels sorted in decreasing order.

Reciprocal rank (RR; Voorhees 1999, TREC-8 QA track; its row mean is MRR)
    ``RR = 1 / min_{i relevant} rank(i)``, with no cutoff.

References
----------
.. code-block:: bibtex

    @article{jarvelin2002cumulated,
      author  = {J{\\"a}rvelin, Kalervo and Kek{\\"a}l{\\"a}inen, Jaana},
      title   = {Cumulated Gain-Based Evaluation of {IR} Techniques},
      journal = {ACM Transactions on Information Systems},
      volume  = {20}, number = {4}, pages = {422--446}, year = {2002}
    }
    @inproceedings{voorhees1999trec8qa,
      author    = {Voorhees, Ellen M.},
      title     = {The {TREC}-8 Question Answering Track Report},
      booktitle = {Proceedings of the Eighth Text REtrieval Conference (TREC-8)},
      pages     = {77--82}, year = {1999}
    }
"""

from __future__ import annotations

import numpy as np

__all__ = [
    "dcg_at_k",
    "discount",
    "hit_rate_at_k",
    "metrics_of_ranking",
    "ndcg_at_k",
    "reciprocal_rank",
]


def discount(ranks: np.ndarray) -> np.ndarray:
    """Logarithmic discount ``1 / log2(rank + 1)`` of 1-based ranks."""
    return 1.0 / np.log2(np.asarray(ranks, dtype=np.float64) + 1.0)


def dcg_at_k(ranked_labels: np.ndarray, k: int) -> np.ndarray:
    """``DCG@k = sum_{r=1}^{min(k, n)} label(r) / log2(r + 1)`` over the last axis."""
    ranked = np.asarray(ranked_labels, dtype=np.float64)
    top = ranked[..., :k]
    return (top * discount(np.arange(1, top.shape[-1] + 1))).sum(axis=-1)


def ndcg_at_k(ranked_labels: np.ndarray, k: int) -> np.ndarray:
    """``NDCG@k = DCG@k / IDCG@k``; IDCG@k is the DCG@k of the labels sorted descending.

    Rows without a relevant item have IDCG = 0; they get 0 (the caller decides
    whether such rows are allowed).
    """
    ranked = np.asarray(ranked_labels, dtype=np.float64)
    ideal = -np.sort(-ranked, axis=-1)
    idcg = dcg_at_k(ideal, k)
    dcg = dcg_at_k(ranked, k)
    return np.divide(dcg, idcg, out=np.zeros_like(dcg), where=idcg > 0)


def hit_rate_at_k(ranked_labels: np.ndarray, k: int) -> np.ndarray:
    """``HR@k = 1`` if any of the first k labels is > 0, else 0."""
    ranked = np.asarray(ranked_labels, dtype=np.float64)
    return (ranked[..., :k] > 0).any(axis=-1).astype(np.float64)


def reciprocal_rank(ranked_labels: np.ndarray) -> np.ndarray:
    """``RR = 1 / (rank of the first label > 0)``, 0 when there is none (no cutoff)."""
    ranked = np.asarray(ranked_labels, dtype=np.float64)
    relevant = ranked > 0
    first = np.argmax(relevant, axis=-1) + 1.0
    return np.where(relevant.any(axis=-1), 1.0 / first, 0.0)


def metrics_of_ranking(labels: np.ndarray, order: np.ndarray, k: int) -> dict[str, np.ndarray]:
    """HR@k, NDCG@k and RR of the rows of ``labels`` ranked by ``order``.

    ``order[..., r]`` is the index of the candidate at rank ``r + 1``.
    """
    ranked = np.take_along_axis(np.asarray(labels, dtype=np.float64), np.asarray(order), axis=-1)
    return {
        f"Success@{k}": hit_rate_at_k(ranked, k),
        f"nDCG@{k}": ndcg_at_k(ranked, k),
        "RR": reciprocal_rank(ranked),
    }
