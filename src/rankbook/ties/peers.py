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

How each treats exact ties, as observed by the audit of
:mod:`rankbook.ties.peer_audit` (chapter 04) with the versions pinned in
``requirements/``; re-run that audit rather than trusting this list after an upgrade:

- ``sklearn_ndcg``: ``ndcg_score(..., ignore_ties=False)`` averages DCG over tie
  orders (McSherry & Najork 2008): the exact expectation, row-order invariant;
- ``sklearn_ndcg_ignore_ties``: ``ndcg_score(..., ignore_ties=True)``, the fast path,
  ranks by ``np.argsort(y_score)[:, ::-1]`` (default, unstable sort, reversed): the
  order among ties follows no simple rule and is not row-order invariant;
- ``sklearn_top_k_accuracy``: HR@k; ``np.argsort(kind="mergesort")[:, ::-1]``, a
  stable ascending sort reversed, so the *later* input position comes first among ties;
- ``ranx``: sorts each run by score with Numba's ``np.argsort`` (a quicksort, not
  stable) and matches document ids to the qrels through their Python ``hash()``
  (salted per process for strings unless ``PYTHONHASHSEED`` is set): the order
  among ties depends on where candidates are stored, in no simple rule, and is not
  row-order invariant;
- ``pytrec_eval``: trec_eval sorts by score, then by document id in *descending*
  string order: row-order invariant (ids travel with candidates), but renaming ids
  changes the result;
- ``torchmetrics``: ``retrieval_normalized_dcg`` computes a tie-averaged DCG
  (a port of scikit-learn's), the exact expectation up to float32 rounding (~1e-7);
- ``recbole_topk``: a RecBole-style ``torch.topk`` evaluator with binary gain;
  PyTorch leaves the order of equal values implementation-defined (it may differ
  between CPU and GPU kernels and between versions);
- ``python_sorted``: ``sorted(range(n), key=score, reverse=True)``, stable:
  input order among ties;
- ``numpy_argsort``: ``np.argsort(-scores)`` (default, unstable introsort or a SIMD
  sort, depending on the CPU and NumPy build): no simple rule, machine-dependent;
- ``numpy_argsort_stable``: ``np.argsort(-scores, kind="stable")``: input order
  among ties (the stable-sort idiom).
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from dataclasses import dataclass
from importlib import metadata

import numpy as np
import pandas as pd

from rankaudit._optional import install_hint
from rankaudit.measures.row_metrics import ndcg_at_k

__all__ = ["PEERS", "Peer", "doc_ids", "peer_table", "require_peer", "score_label_rows"]


def require_peer(module: str, distribution: str) -> object:
    """Import a peer library's ``module`` or raise an ImportError saying what to install."""
    try:
        return importlib.import_module(module)
    except ImportError as err:  # pragma: no cover - depends on the environment
        raise ImportError(
            f"this adapter needs {distribution!r}: pip install {distribution} "
            f"(or the 'peers' extra: {install_hint('peers')})"
        ) from err


def score_label_rows(scores: object, labels: object) -> tuple[np.ndarray, np.ndarray]:
    """``scores`` and ``labels`` as float64 arrays of one shape ``(rows, candidates)``."""
    s = np.asarray(scores, dtype=np.float64)
    y = np.asarray(labels, dtype=np.float64)
    if s.ndim != 2 or s.shape != y.shape:
        raise ValueError(f"scores and labels must be 2-D of equal shape; got {s.shape}, {y.shape}")
    return s, y


def doc_ids(item_ids: object, shape: tuple[int, ...]) -> np.ndarray:
    """Document ids as strings of ``shape``: ``item_ids``, or ``"c<position>"`` without them."""
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
def _sklearn_ndcg_rows(scores, labels, k: int, ignore_ties: bool) -> np.ndarray:
    skm = require_peer("sklearn.metrics", "scikit-learn")
    s, y = score_label_rows(scores, labels)
    return np.array(
        [
            skm.ndcg_score(y[i : i + 1], s[i : i + 1], k=k, ignore_ties=ignore_ties)
            for i in range(len(s))
        ]
    )


def sklearn_ndcg(scores, labels, *, k=10, item_ids=None, user_ids=None) -> np.ndarray:
    """scikit-learn ``ndcg_score(y_true, y_score, k=k, ignore_ties=False)``, one call per row."""
    return _sklearn_ndcg_rows(scores, labels, k, ignore_ties=False)


def sklearn_ndcg_ignore_ties(scores, labels, *, k=10, item_ids=None, user_ids=None) -> np.ndarray:
    """scikit-learn ``ndcg_score(..., ignore_ties=True)`` per row: the fast path, which ranks
    by ``np.argsort(y_score)[:, ::-1]`` (default, unstable sort) instead of averaging ties."""
    return _sklearn_ndcg_rows(scores, labels, k, ignore_ties=True)


def sklearn_top_k_accuracy(scores, labels, *, k=10, item_ids=None, user_ids=None) -> np.ndarray:
    """scikit-learn ``top_k_accuracy_score`` per row: HR@k with exactly one relevant item."""
    skm = require_peer("sklearn.metrics", "scikit-learn")
    s, y = score_label_rows(scores, labels)
    n_rel = (y > 0).sum(axis=1)
    if not np.all(n_rel == 1):
        row = int(np.argmax(n_rel != 1))
        raise ValueError(
            f"labels: row {row} has {n_rel[row]} relevant items; top_k_accuracy needs 1"
        )
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
    ranx = require_peer("ranx", "ranx")
    s, y = score_label_rows(scores, labels)
    docs = doc_ids(item_ids, s.shape)
    queries = _query_ids(len(s))
    qrels = {
        q: {d: int(v) for d, v in zip(docs[i], y[i], strict=True) if v > 0}
        for i, q in enumerate(queries)
    }
    run = {
        q: dict(zip(docs[i].tolist(), s[i].tolist(), strict=True)) for i, q in enumerate(queries)
    }
    out = ranx.evaluate(
        ranx.Qrels.from_dict(qrels), ranx.Run.from_dict(run), f"ndcg@{k}", return_mean=False
    )
    return np.asarray(out, dtype=np.float64)


def pytrec_eval_ndcg(scores, labels, *, k=10, item_ids=None, user_ids=None) -> np.ndarray:
    """pytrec_eval (trec_eval) ``ndcg_cut.k``."""
    pytrec_eval = require_peer("pytrec_eval", "pytrec-eval-terrier")
    s, y = score_label_rows(scores, labels)
    docs = doc_ids(item_ids, s.shape)
    queries = _query_ids(len(s))
    qrels = {
        q: {d: int(v) for d, v in zip(docs[i], y[i], strict=True)} for i, q in enumerate(queries)
    }
    run = {
        q: dict(zip(docs[i].tolist(), s[i].tolist(), strict=True)) for i, q in enumerate(queries)
    }
    evaluator = pytrec_eval.RelevanceEvaluator(qrels, {f"ndcg_cut.{k}"})
    result = evaluator.evaluate(run)
    return np.array([result[q][f"ndcg_cut_{k}"] for q in queries])


def torchmetrics_ndcg(scores, labels, *, k=10, item_ids=None, user_ids=None) -> np.ndarray:
    """torchmetrics ``retrieval_normalized_dcg(preds, target, top_k=k)``, one call per row
    (the functional form of ``RetrievalNormalizedDCG``)."""
    torch = require_peer("torch", "torch")
    retrieval = require_peer("torchmetrics.functional.retrieval", "torchmetrics")
    s, y = score_label_rows(scores, labels)
    preds = torch.as_tensor(s)
    target = torch.as_tensor(y).long()
    return np.array(
        [
            float(retrieval.retrieval_normalized_dcg(preds[i], target[i], top_k=k))
            for i in range(len(s))
        ]
    )


def recbole_topk_ndcg(scores, labels, *, k=10, item_ids=None, user_ids=None) -> np.ndarray:
    """A RecBole-style evaluator: ``torch.topk`` then binary-gain NDCG@k.

    ``dcg = sum_{r<=k} 1[rel(r)] / log2(r+1)``, ``idcg = sum_{r<=min(#rel, k)} 1/log2(r+1)``.
    """
    torch = require_peer("torch", "torch")
    s, y = score_label_rows(scores, labels)
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
    s, y = score_label_rows(scores, labels)
    out = np.empty(len(s))
    for i in range(len(s)):
        row = s[i].tolist()
        order = sorted(range(len(row)), key=lambda j, row=row: row[j], reverse=True)
        out[i] = ndcg_at_k(y[i, order], k)
    return out


def _argsort_ndcg(scores, labels, k: int, kind: str | None) -> np.ndarray:
    s, y = score_label_rows(scores, labels)
    order = np.argsort(-s, axis=1, kind=kind)
    return ndcg_at_k(np.take_along_axis(y, order, axis=1), k)


def numpy_argsort_ndcg(scores, labels, *, k=10, item_ids=None, user_ids=None) -> np.ndarray:
    """``np.argsort(-scores)`` (default, unstable sort) then NDCG@k."""
    return _argsort_ndcg(scores, labels, k, kind=None)


def numpy_argsort_stable_ndcg(scores, labels, *, k=10, item_ids=None, user_ids=None) -> np.ndarray:
    """``np.argsort(-scores, kind="stable")`` then NDCG@k: the stable-sort idiom."""
    return _argsort_ndcg(scores, labels, k, kind="stable")


# --------------------------------------------------------------------------- registry
@dataclass(frozen=True)
class Peer:
    """One adapter: its name, the library (import and distribution names), metric, the
    documented tie handling, the adapter, and the call it makes (``api``, for tables)."""

    name: str
    library: str
    distribution: str | None
    metric: str
    ties: str
    func: Callable[..., np.ndarray]
    api: str | None = None

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
        Peer(
            "sklearn_ndcg",
            "scikit-learn",
            "scikit-learn",
            "nDCG@k",
            "tie-averaged (exact)",
            sklearn_ndcg,
            api="ndcg_score(ignore_ties=False)",
        ),
        Peer(
            "sklearn_ndcg_ignore_ties",
            "scikit-learn",
            "scikit-learn",
            "nDCG@k",
            "argsort reversed (unstable): no simple rule",
            sklearn_ndcg_ignore_ties,
            api="ndcg_score(ignore_ties=True)",
        ),
        Peer(
            "sklearn_top_k_accuracy",
            "scikit-learn",
            "scikit-learn",
            "Success@k",
            "mergesort reversed: later position first",
            sklearn_top_k_accuracy,
            api="top_k_accuracy_score",
        ),
        Peer(
            "ranx",
            "ranx",
            "ranx",
            "nDCG@k",
            "numba quicksort (unstable): no simple rule",
            ranx_ndcg,
            api="ranx.evaluate",
        ),
        Peer(
            "pytrec_eval",
            "pytrec_eval",
            "pytrec-eval-terrier",
            "nDCG@k",
            "document id descending",
            pytrec_eval_ndcg,
            api="RelevanceEvaluator ndcg_cut",
        ),
        Peer(
            "torchmetrics",
            "torchmetrics",
            "torchmetrics",
            "nDCG@k",
            "tie-averaged (exact)",
            torchmetrics_ndcg,
            api="retrieval_normalized_dcg",
        ),
        Peer(
            "recbole_topk",
            "torch (RecBole-style)",
            "torch",
            "nDCG@k",
            "torch.topk: implementation-defined",
            recbole_topk_ndcg,
            api="torch.topk + NDCG",
        ),
        Peer(
            "python_sorted",
            "python",
            None,
            "nDCG@k",
            "stable: input order",
            python_sorted_ndcg,
            api="sorted(..., reverse=True)",
        ),
        Peer(
            "numpy_argsort",
            "numpy",
            "numpy",
            "nDCG@k",
            "unstable: unspecified",
            numpy_argsort_ndcg,
            api="np.argsort(-s)",
        ),
        Peer(
            "numpy_argsort_stable",
            "numpy",
            "numpy",
            "nDCG@k",
            "stable: input order",
            numpy_argsort_stable_ndcg,
            api="np.argsort(-s, kind='stable')",
        ),
    )
}


def peer_table() -> pd.DataFrame:
    """The registry as a table: name, library, installed version, call, metric, documented tie
    handling."""
    return pd.DataFrame(
        [
            {
                "name": p.name,
                "library": p.library,
                "version": p.version(),
                "api": p.api,
                "metric": p.metric,
                "ties": p.ties,
            }
            for p in PEERS.values()
        ]
    )
