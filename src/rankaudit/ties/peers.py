"""Thin adapters to other libraries' evaluators (optional imports), for audits.

Each adapter is a callable ``(scores, labels, *, k=10, item_ids=None,
user_ids=None) -> numpy.ndarray`` of per-row values (NDCG@k, or HR@k where the
library only offers that), so it can be handed to
:func:`rankaudit.audit_row_order` unchanged.  Libraries are imported only when
an adapter is called; a missing one raises an ``ImportError`` saying what to
install.  :data:`PEERS` lists them; :func:`peer_table` shows library versions.

Where a library needs document ids (ranx, pytrec_eval), ``item_ids`` are used
when given (as strings), else the candidate's input position (``"c0"``,
``"c1"``, ...), which is what a user without ids would pass: ids then move
with position and so does any id-based tie-break.

How each treats exact ties (as of the versions in ``requirements/base.in``;
audit them rather than trusting this list):

- ``sklearn_ndcg``: ``ndcg_score(..., ignore_ties=False)`` averages over tie
  orders (McSherry & Najork 2008), exact, invariant;
- ``sklearn_top_k_accuracy``: HR@k; ``np.argsort(kind="mergesort")[:, ::-1]``,
  i.e. *later* input position first among ties;
- ``ranx``: its own sort of the run, input order among ties;
- ``pytrec_eval``: trec_eval order, ties by document id;
- ``torchmetrics``: ``retrieval_normalized_dcg`` uses a tie-averaged DCG
  (ported from scikit-learn);
- ``recbole_topk``: a RecBole-style ``torch.topk`` evaluator with binary gain;
  the order of equal values is implementation-defined;
- ``python_sorted``: ``sorted(range(n), key=score, reverse=True)``, stable:
  input order among ties;
- ``numpy_argsort``: ``np.argsort(-scores)`` (default introsort, not stable):
  order among ties depends on the input and the NumPy build.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from dataclasses import dataclass
from importlib import metadata

import numpy as np
import pandas as pd

from rankaudit.ties.metrics import ndcg_at_k

__all__ = ["PEERS", "Peer", "peer_table"]


def _require(module: str, distribution: str) -> object:
    try:
        return importlib.import_module(module)
    except ImportError as err:  # pragma: no cover - depends on the environment
        raise ImportError(
            f"this adapter needs {distribution!r}: pip install {distribution} "
            f"(or pip install 'rankaudit[peers]')"
        ) from err


def _rows(scores: object, labels: object) -> tuple[np.ndarray, np.ndarray]:
    s = np.asarray(scores, dtype=np.float64)
    y = np.asarray(labels, dtype=np.float64)
    if s.ndim != 2 or s.shape != y.shape:
        raise ValueError(f"scores and labels must be 2-D of equal shape; got {s.shape}, {y.shape}")
    return s, y


def _doc_ids(item_ids: object, shape: tuple[int, ...]) -> np.ndarray:
    if item_ids is None:
        return np.broadcast_to(np.array([f"c{j}" for j in range(shape[1])]), shape)
    ids = np.asarray(item_ids)
    if ids.shape != shape:
        raise ValueError(f"item_ids must have shape {shape}; got {ids.shape}")
    return ids.astype(str)


def _query_ids(n_rows: int) -> list[str]:
    # one query per row; row positions keep rows apart even when a user has several rows
    return [f"q{i}" for i in range(n_rows)]


# --------------------------------------------------------------------------- adapters
def sklearn_ndcg(scores, labels, *, k=10, item_ids=None, user_ids=None) -> np.ndarray:
    """scikit-learn ``ndcg_score(y_true, y_score, k=k, ignore_ties=False)``, one call per row."""
    skm = _require("sklearn.metrics", "scikit-learn")
    s, y = _rows(scores, labels)
    return np.array(
        [skm.ndcg_score(y[i : i + 1], s[i : i + 1], k=k, ignore_ties=False) for i in range(len(s))]
    )


def sklearn_top_k_accuracy(scores, labels, *, k=10, item_ids=None, user_ids=None) -> np.ndarray:
    """scikit-learn ``top_k_accuracy_score`` per row: HR@k with exactly one relevant item."""
    skm = _require("sklearn.metrics", "scikit-learn")
    s, y = _rows(scores, labels)
    n_rel = (y > 0).sum(axis=1)
    if not np.all(n_rel == 1):
        row = int(np.argmax(n_rel != 1))
        raise ValueError(f"labels: row {row} has {n_rel[row]} relevant items; top_k_accuracy needs 1")
    classes = np.arange(s.shape[1])
    target = np.argmax(y > 0, axis=1)
    return np.array(
        [
            skm.top_k_accuracy_score(target[i : i + 1], s[i : i + 1], k=k, labels=classes)
            for i in range(len(s))
        ]
    )


def ranx_ndcg(scores, labels, *, k=10, item_ids=None, user_ids=None) -> np.ndarray:
    """ranx ``evaluate(qrels, run, f"ndcg@{k}", return_mean=False)``."""
    ranx = _require("ranx", "ranx")
    s, y = _rows(scores, labels)
    docs = _doc_ids(item_ids, s.shape)
    queries = _query_ids(len(s))
    qrels = {
        q: {d: int(v) for d, v in zip(docs[i], y[i], strict=True) if v > 0} for i, q in enumerate(queries)
    }
    run = {q: dict(zip(docs[i].tolist(), s[i].tolist(), strict=True)) for i, q in enumerate(queries)}
    out = ranx.evaluate(ranx.Qrels.from_dict(qrels), ranx.Run.from_dict(run), f"ndcg@{k}", return_mean=False)
    return np.asarray(out, dtype=np.float64)


def pytrec_eval_ndcg(scores, labels, *, k=10, item_ids=None, user_ids=None) -> np.ndarray:
    """pytrec_eval (trec_eval) ``ndcg_cut.k``."""
    pytrec_eval = _require("pytrec_eval", "pytrec-eval-terrier")
    s, y = _rows(scores, labels)
    docs = _doc_ids(item_ids, s.shape)
    queries = _query_ids(len(s))
    qrels = {q: {d: int(v) for d, v in zip(docs[i], y[i], strict=True)} for i, q in enumerate(queries)}
    run = {q: dict(zip(docs[i].tolist(), s[i].tolist(), strict=True)) for i, q in enumerate(queries)}
    evaluator = pytrec_eval.RelevanceEvaluator(qrels, {f"ndcg_cut.{k}"})
    result = evaluator.evaluate(run)
    return np.array([result[q][f"ndcg_cut_{k}"] for q in queries])


def torchmetrics_ndcg(scores, labels, *, k=10, item_ids=None, user_ids=None) -> np.ndarray:
    """torchmetrics ``retrieval_normalized_dcg(preds, target, top_k=k)``, one call per row
    (the functional form of ``RetrievalNormalizedDCG``)."""
    torch = _require("torch", "torch")
    retrieval = _require("torchmetrics.functional.retrieval", "torchmetrics")
    s, y = _rows(scores, labels)
    preds = torch.as_tensor(s)
    target = torch.as_tensor(y).long()
    return np.array(
        [float(retrieval.retrieval_normalized_dcg(preds[i], target[i], top_k=k)) for i in range(len(s))]
    )


def recbole_topk_ndcg(scores, labels, *, k=10, item_ids=None, user_ids=None) -> np.ndarray:
    """A RecBole-style evaluator: ``torch.topk`` then binary-gain NDCG@k.

    ``dcg = sum_{r<=k} 1[rel(r)] / log2(r+1)``, ``idcg = sum_{r<=min(#rel, k)} 1/log2(r+1)``.
    """
    torch = _require("torch", "torch")
    s, y = _rows(scores, labels)
    preds = torch.as_tensor(s)
    rel = torch.as_tensor(y > 0)
    kk = min(k, s.shape[1])
    _, top = torch.topk(preds, kk, dim=-1)
    hits = rel.gather(1, top).double()
    disc = 1.0 / torch.log2(torch.arange(2, kk + 2, dtype=torch.float64))
    dcg = (hits * disc).sum(dim=1)
    n_pos = rel.sum(dim=1).clamp(max=kk)
    ideal = torch.cumsum(disc, 0)
    idcg = torch.where(n_pos > 0, ideal[(n_pos - 1).clamp(min=0)], torch.ones_like(dcg))
    return (dcg / idcg).numpy()


def python_sorted_ndcg(scores, labels, *, k=10, item_ids=None, user_ids=None) -> np.ndarray:
    """``sorted(range(n), key=lambda j: scores[j], reverse=True)`` then NDCG@k (stable sort)."""
    s, y = _rows(scores, labels)
    out = np.empty(len(s))
    for i in range(len(s)):
        row = s[i].tolist()
        order = sorted(range(len(row)), key=lambda j, row=row: row[j], reverse=True)
        out[i] = ndcg_at_k(y[i, order], k)
    return out


def numpy_argsort_ndcg(scores, labels, *, k=10, item_ids=None, user_ids=None) -> np.ndarray:
    """``np.argsort(-scores)`` (default, unstable sort) then NDCG@k."""
    s, y = _rows(scores, labels)
    order = np.argsort(-s, axis=1)
    return ndcg_at_k(np.take_along_axis(y, order, axis=1), k)


# --------------------------------------------------------------------------- registry
@dataclass(frozen=True)
class Peer:
    """One adapter: its name, the library (import and distribution names), metric, and notes."""

    name: str
    library: str
    distribution: str | None
    metric: str
    ties: str
    func: Callable[..., np.ndarray]

    def __call__(self, scores, labels, **kwargs) -> np.ndarray:
        return self.func(scores, labels, **kwargs)

    def version(self) -> str:
        if self.distribution is None:
            return "builtin"
        try:
            return metadata.version(self.distribution)
        except metadata.PackageNotFoundError:
            return "not installed"


PEERS: dict[str, Peer] = {
    p.name: p
    for p in (
        Peer("sklearn_ndcg", "scikit-learn", "scikit-learn", "ndcg@k", "tie-averaged (exact)", sklearn_ndcg),
        Peer(
            "sklearn_top_k_accuracy", "scikit-learn", "scikit-learn", "hr@k",
            "mergesort reversed: later position first", sklearn_top_k_accuracy,
        ),
        Peer("ranx", "ranx", "ranx", "ndcg@k", "input order", ranx_ndcg),
        Peer("pytrec_eval", "pytrec_eval", "pytrec-eval-terrier", "ndcg@k", "document id", pytrec_eval_ndcg),
        Peer("torchmetrics", "torchmetrics", "torchmetrics", "ndcg@k", "tie-averaged (exact)", torchmetrics_ndcg),
        Peer("recbole_topk", "torch (RecBole-style)", "torch", "ndcg@k", "torch.topk order", recbole_topk_ndcg),
        Peer("python_sorted", "python", None, "ndcg@k", "stable: input order", python_sorted_ndcg),
        Peer("numpy_argsort", "numpy", "numpy", "ndcg@k", "introsort: unspecified", numpy_argsort_ndcg),
    )
}


def peer_table() -> pd.DataFrame:
    """The registry as a table: name, library, installed version, metric, documented tie handling."""
    return pd.DataFrame(
        [
            {
                "name": p.name,
                "library": p.library,
                "version": p.version(),
                "metric": p.metric,
                "ties": p.ties,
            }
            for p in PEERS.values()
        ]
    )
