"""Adapters to recommender libraries' own evaluators, for the permutation audit of chapter 04.

Each adapter has the signature of :mod:`rankbook.ties.peers` (``(scores, labels, *, k=10,
item_ids=None, user_ids=None) -> per-row values``) and calls the library the way its users
evaluate a model, one row (user) at a time, with the row's stored scores standing in for a
trained model:

- ``cornac_ndcg``: Cornac's ``cornac.eval_methods.ranking_eval`` loop body for one user:
  ``Recommender.rank(user_idx, item_indices, k=k)`` (``np.argpartition`` then ``np.argsort`` of
  the top ``k``, reversed) and ``cornac.metrics.NDCG(k).compute(gt_pos=..., pd_rank=...)``.
  Cornac numbers items in order of first appearance when it builds a ``Dataset`` and
  ``ranking_eval`` passes the candidates sorted by that number, so a row loaded in stored order
  has item index = stored position; the model is a ``Recommender`` whose ``score`` returns the
  row's scores.
- ``implicit_ndcg``: implicit's ``implicit.evaluation.ranking_metrics_at_k(model, train, test,
  K=k)`` with a one-user ``AlternatingLeastSquares`` model whose factors reproduce the row's
  scores (``user_factors = [[1]]``, ``item_factors = scores[:, None]``), items numbered in id
  order (pandas category codes of the ids, the usual way to build its CSR input), an empty
  training matrix and the relevant items as test items.  Its ``ndcg`` for one user is the
  row's NDCG@k (binary gain).
- ``recbole_ndcg``: RecBole's ``recbole.evaluator.metrics.NDCG.metric_info(pos_index, pos_len)``
  on the ``torch.topk`` hit matrix that RecBole's ``Collector`` builds from full-sort scores.
  RecBole 1.2.1 cannot run it next to NumPy 2 (:data:`RECBOLE_FAILS`), so it is not installed;
  the adapter then raises ImportError saying so (the reason is in :data:`NOT_INSTALLED`, once),
  and the audit lists it as not audited.

:data:`NOT_INSTALLED` lists the recommender libraries left out of this project's environment,
each with its reason: the call that fails (RecBole) or the conflict that ``pip install
--dry-run`` finds against the pinned environment (the others).
"""

from __future__ import annotations

import numpy as np

from rankbook.ties.peers import Peer, doc_ids, require_peer, score_label_rows

__all__ = ["NOT_INSTALLED", "RECBOLE_FAILS", "RECSYS_PEERS"]

#: What fails when RecBole 1.2.1's NDCG runs next to this project's NumPy.
RECBOLE_FAILS = (
    "its NDCG.metric_info calls np.float, which NumPy 1.24 removed, so under this project's "
    "numpy 2.4.6 the call raises AttributeError"
)

#: Recommender libraries with an evaluator that this project does not install, and why.
NOT_INSTALLED: dict[str, str] = {
    "recbole 1.2.1": (
        f"{RECBOLE_FAILS}; it would also bring colorama==0.4.4, ray<=2.6.3, thop and tensorboard "
        "(imported by its evaluator)"
    ),
    "lenskit 2025.8.1": "requires pandas < 3 (this project pins pandas 3.1.1); "
    "lenskit 2026.x requires Python >= 3.12.5",
    "rectools 0.19.0": "requires numpy < 2 and pandas < 3 (pins: numpy 2.4.6, pandas 3.1.1)",
    "recpack 0.3.6": "requires numpy < 2 and pandas < 3 (pins: numpy 2.4.6, pandas 3.1.1)",
}


def _relevant(y: np.ndarray, row: int) -> np.ndarray:
    pos = np.flatnonzero(y > 0)
    if pos.size == 0:
        raise ValueError(f"labels: row {row} has no relevant item")
    return pos


def cornac_ndcg(scores, labels, *, k=10, item_ids=None, user_ids=None) -> np.ndarray:
    """Cornac ``Recommender.rank(k=k)`` + ``metrics.NDCG(k).compute`` per row."""
    cornac = require_peer("cornac", "cornac")
    s, y = score_label_rows(scores, labels)

    class Stored(cornac.models.Recommender):
        def __init__(self, values: np.ndarray) -> None:
            super().__init__(name="stored scores", trainable=False)
            self.values = values
            self.num_items = len(values)

        def score(self, user_idx, item_idx=None):
            return self.values if item_idx is None else self.values[item_idx]

    metric = cornac.metrics.NDCG(k=k)
    out = np.empty(len(s))
    for i in range(len(s)):
        model = Stored(s[i])
        indices = np.arange(s.shape[1])
        ranked, _ = model.rank(user_idx=0, item_indices=indices, k=min(k, s.shape[1]))
        out[i] = metric.compute(gt_pos=_relevant(y[i], i), pd_rank=ranked)
    return out


def implicit_ndcg(scores, labels, *, k=10, item_ids=None, user_ids=None) -> np.ndarray:
    """implicit ``evaluation.ranking_metrics_at_k(...)["ndcg"]`` per row (one-user model)."""
    require_peer("implicit", "implicit")
    import scipy.sparse as sp
    from implicit.cpu.als import AlternatingLeastSquares
    from implicit.evaluation import ranking_metrics_at_k

    s, y = score_label_rows(scores, labels)
    docs = doc_ids(item_ids, s.shape)
    m = s.shape[1]
    out = np.empty(len(s))
    for i in range(len(s)):
        codes = np.unique(docs[i], return_inverse=True)[1]  # column = rank of the id
        model = AlternatingLeastSquares(factors=1, random_state=0)
        model.user_factors = np.ones((1, 1), dtype=np.float32)
        item_factors = np.zeros((m, 1), dtype=np.float32)
        item_factors[codes, 0] = s[i]
        model.item_factors = item_factors
        rel = codes[_relevant(y[i], i)]
        test = sp.csr_matrix((np.ones(len(rel)), (np.zeros(len(rel), int), rel)), shape=(1, m))
        train = sp.csr_matrix((1, m))
        result = ranking_metrics_at_k(model, train, test, K=k, show_progress=False)
        out[i] = result["ndcg"]
    return out


def recbole_ndcg(scores, labels, *, k=10, item_ids=None, user_ids=None) -> np.ndarray:
    """RecBole ``NDCG.metric_info(pos_index, pos_len)[:, k - 1]`` on ``torch.topk`` hits."""
    try:
        metrics = require_peer("recbole.evaluator.metrics", "recbole")
    except ImportError as err:  # the reason is NOT_INSTALLED's, said once where it is listed
        raise ImportError(
            "recbole is not installed (its reason is listed with the libraries not installed)"
        ) from err
    torch = require_peer("torch", "torch")
    s, y = score_label_rows(scores, labels)
    kk = min(k, s.shape[1])
    _, top = torch.topk(torch.as_tensor(s), kk, dim=-1)
    rel = torch.as_tensor(y > 0)
    pos_index = rel.gather(1, top).numpy()
    pos_len = rel.sum(dim=1).numpy()
    config = {"topk": [kk], "metric_decimal_place": 12}
    try:
        values = metrics.NDCG(config).metric_info(pos_index, pos_len)
    except AttributeError as err:  # recbole 1.2.1 under NumPy >= 1.24: np.float is gone
        first = str(err).splitlines()[0]
        raise ImportError(f"recbole cannot run here ({first}): {RECBOLE_FAILS}") from err
    return np.asarray(values[:, kk - 1], dtype=np.float64)


RECSYS_PEERS: dict[str, Peer] = {
    p.name: p
    for p in (
        Peer(
            "cornac",
            "cornac",
            "cornac",
            "nDCG@k",
            "argpartition + argsort reversed (ranking_eval)",
            cornac_ndcg,
            api="Recommender.rank + metrics.NDCG",
        ),
        Peer(
            "implicit",
            "implicit",
            "implicit",
            "nDCG@k",
            "topk over item columns",
            implicit_ndcg,
            api="evaluation.ranking_metrics_at_k",
        ),
        Peer(
            "recbole",
            "recbole",
            "recbole",
            "nDCG@k",
            "torch.topk + NDCG.metric_info",
            recbole_ndcg,
            api="evaluator.metrics.NDCG",
        ),
    )
}
