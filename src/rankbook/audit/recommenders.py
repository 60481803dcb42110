"""Real recommenders from recommender libraries, trained on a training split: glue only.

Every model is the library's own implementation; this module only turns a training table into
the library's input, fits with a fixed seed, and returns a dense score matrix (one row per
evaluated user, one column per catalogue item) as the library computes it.

Models (:data:`DEFAULT_MODELS`; hyperparameters small enough to train on ML-100K in seconds):

- ``most_popular``: Cornac ``MostPop``, the number of training interactions of each item;
- ``item_knn``: implicit ``CosineRecommender``, item-based kNN for implicit feedback (Sarwar
  et al., WWW 2001): the score of item ``j`` is the sum of its cosine similarities (``K``
  nearest neighbours kept) to the user's items, ``user_items @ similarity``; implicit's
  ``recommend`` fills items it does not score with ``-FLT_MAX``, which are exactly the items
  of score 0, and are given that 0 back;
- ``user_knn``: user-based kNN for implicit feedback, the top-N form (Herlocker et al., SIGIR
  1999; Sarwar et al., EC 2000; Aiolli, RecSys 2013): the score of item ``i`` for user ``u``
  is the similarity-weighted vote of the ``K`` users most similar to ``u`` who interacted
  with ``i``, ``score(u, i) = sum_{v in N_K(u)} cos(u, v) * r_vi``.  The similarities are
  implicit's ``CosineRecommender`` fitted on the transposed matrix (users as its items), so
  ``N_K(u)`` is implicit's top-``K`` list; implicit keeps a user's similarity to itself in
  that list, so it is fitted with ``K + 1`` and the diagonal dropped (``K`` other users).
  Cornac's ``UserKNN`` predicts a similarity-weighted *average* (a rating predictor): on
  binary feedback every item some neighbour has seen scores 1, so it is not used;
- ``bpr``: Cornac ``BPR``, matrix factorisation by Bayesian personalised ranking (Rendle et
  al., UAI 2009), one thread so that the stochastic updates are reproducible;
- ``ease``: Cornac ``EASE``, the closed-form linear autoencoder (Steck, WWW 2019);
- ``als``: implicit ``AlternatingLeastSquares``, weighted matrix factorisation for implicit
  feedback (Hu, Koren & Volinsky, ICDM 2008), scored as ``user_factors @ item_factors.T``;
- ``random``: uniform scores from ``numpy.random.default_rng(seed)``, the floor.

Feedback is implicit (``feedback="binary"``): every training interaction counts as one
positive (value 1), whatever its rating, except for models declared ``feedback="ratings"``.
Items are indexed by the sorted catalogue, users by the order they are given, so column ``j``
of every matrix is ``catalog[j]``; an item without training interactions is still a column
(the libraries score it as they score any item they have not seen).

References: Salah, Truong & Lauw, "Cornac: A Comparative Framework for Multimodal Recommender
Systems", JMLR 21 (2020); Frederickson, implicit (https://github.com/benfred/implicit).
"""

from __future__ import annotations

import warnings
from collections import OrderedDict
from dataclasses import dataclass, field, replace
from importlib import metadata
from typing import Any

import numpy as np
import pandas as pd
import scipy.sparse as sp

from rankaudit._checks import check_seed
from rankaudit._optional import require

__all__ = [
    "DEFAULT_MODELS",
    "ModelSpec",
    "fit_and_score",
    "interaction_matrix",
    "library_version",
    "with_params",
]


@dataclass(frozen=True)
class ModelSpec:
    """One model: its name, library, the library's class and the hyperparameters passed."""

    name: str
    library: str
    cls: str
    params: dict[str, Any] = field(default_factory=dict)
    feedback: str = "binary"


DEFAULT_MODELS: tuple[ModelSpec, ...] = (
    ModelSpec("most_popular", "cornac", "MostPop"),
    ModelSpec("item_knn", "implicit", "CosineRecommender", {"K": 50, "num_threads": 1}),
    ModelSpec("user_knn", "implicit", "CosineRecommender.users", {"K": 50, "num_threads": 1}),
    ModelSpec(
        "bpr",
        "cornac",
        "BPR",
        {"k": 32, "max_iter": 100, "learning_rate": 0.05, "lambda_reg": 0.001, "num_threads": 1},
    ),
    ModelSpec("ease", "cornac", "EASE", {"lamb": 250.0}),
    ModelSpec(
        "als",
        "implicit",
        "AlternatingLeastSquares",
        {"factors": 32, "regularization": 0.05, "iterations": 15, "num_threads": 1},
    ),
    ModelSpec("random", "numpy", "default_rng().random"),
)


def with_params(models: tuple[ModelSpec, ...], name: str, **params: Any) -> tuple[ModelSpec, ...]:
    """``models`` with ``params`` overriding the hyperparameters of model ``name``."""
    if name not in {m.name for m in models}:
        raise ValueError(f"model {name!r} is not one of {[m.name for m in models]}")
    return tuple(replace(m, params={**m.params, **params}) if m.name == name else m for m in models)


def library_version(library: str) -> str:
    """The installed version of ``library`` (its distribution name), or ``"not installed"``."""
    try:
        return metadata.version(library)
    except metadata.PackageNotFoundError:
        return "not installed"


def interaction_matrix(
    train: pd.DataFrame, users: np.ndarray, catalog: np.ndarray, *, feedback: str = "binary"
) -> sp.csr_matrix:
    """``(len(users), len(catalog))`` CSR matrix of the training interactions of ``users``
    (``train`` has ``user_id, item_id`` and, for ``feedback="ratings"``, ``rating``): 1 per
    interaction (``"binary"``) or its rating; an item outside ``catalog`` is an error."""
    if feedback not in ("binary", "ratings"):
        raise ValueError(f"feedback must be 'binary' or 'ratings', got {feedback!r}")
    for column in ("user_id", "item_id") + (("rating",) if feedback == "ratings" else ()):
        if column not in train.columns:
            raise ValueError(f"train lacks column {column!r}; has {list(train.columns)}")
    u = pd.Index(users).get_indexer(train["user_id"].to_numpy())
    i = pd.Index(catalog).get_indexer(train["item_id"].to_numpy())
    if (i < 0).any():
        bad = train["item_id"].to_numpy()[i < 0][0]
        raise ValueError(f"train item {bad!r} is not in the catalogue")
    keep = u >= 0
    frame = pd.DataFrame({"u": u[keep], "i": i[keep]})
    if feedback == "ratings":
        frame["v"] = train["rating"].to_numpy(np.float32)[keep]
    frame = frame.drop_duplicates(["u", "i"], keep="last")  # a repeated pair counts once
    data = frame["v"].to_numpy() if feedback == "ratings" else np.ones(len(frame), np.float32)
    shape = (len(users), len(catalog))
    return sp.csr_matrix((data, (frame["u"].to_numpy(), frame["i"].to_numpy())), shape=shape)


#: implicit's filler score for items ``recommend`` does not score (``-FLT_MAX``).
_UNSCORED = float(np.finfo(np.float32).min)


def _cornac_scores(spec: ModelSpec, matrix: sp.csr_matrix, rows: np.ndarray, seed: int):
    cornac = require("cornac", purpose=f"model {spec.name!r}")
    n_users, n_items = matrix.shape
    coo = matrix.tocoo()
    triplets = list(
        zip(
            coo.row.astype(str).tolist(),
            coo.col.astype(str).tolist(),
            coo.data.tolist(),
            strict=True,
        )
    )
    uid_map = OrderedDict((str(u), u) for u in range(n_users))
    iid_map = OrderedDict((str(i), i) for i in range(n_items))
    data = cornac.data.Dataset.build(
        triplets, fmt="UIR", global_uid_map=uid_map, global_iid_map=iid_map, seed=seed
    )
    params = dict(spec.params)
    if spec.cls != "MostPop":  # MostPop takes neither a seed nor a verbosity flag
        params.setdefault("seed", seed)
        params.setdefault("verbose", False)
    model = getattr(cornac.models, spec.cls)(**params)
    model.fit(data)
    return np.stack([np.asarray(model.score(int(u)), dtype=np.float64).ravel() for u in rows])


def _implicit_scores(spec: ModelSpec, matrix: sp.csr_matrix, rows: np.ndarray, seed: int):
    require("implicit", purpose=f"model {spec.name!r}")
    from implicit.cpu.als import AlternatingLeastSquares
    from implicit.nearest_neighbours import CosineRecommender
    from threadpoolctl import threadpool_limits  # a dependency of implicit

    user_items = matrix.astype(np.float32).tocsr()
    if spec.cls == "AlternatingLeastSquares":
        with threadpool_limits(1, "blas"):  # implicit's advice: its own threads, one BLAS thread
            model = AlternatingLeastSquares(**spec.params, random_state=seed)
            model.fit(user_items, show_progress=False)
        return np.asarray(model.user_factors[rows] @ model.item_factors.T, dtype=np.float32)
    if spec.cls == "CosineRecommender":
        model = CosineRecommender(**spec.params)
        with warnings.catch_warnings():  # implicit converts its own COO product to CSR
            warnings.filterwarnings("ignore", message="Method expects CSR input")
            model.fit(user_items, show_progress=False)
        n_items = matrix.shape[1]
        ids, values = model.recommend(
            rows, user_items[rows], N=n_items, filter_already_liked_items=False
        )
        out = np.zeros((len(rows), n_items), dtype=np.float64)
        np.put_along_axis(out, ids, np.where(values <= _UNSCORED, 0.0, values), axis=1)
        return out
    if spec.cls == "CosineRecommender.users":
        return _user_knn_scores(spec, user_items, rows)
    raise ValueError(f"model {spec.name!r}: implicit class {spec.cls!r} is not supported")


def _user_knn_scores(spec: ModelSpec, user_items: sp.csr_matrix, rows: np.ndarray) -> np.ndarray:
    """User-kNN votes (module docstring): ``S[rows] @ user_items`` with ``S`` implicit's cosine
    top-``K + 1`` user-user similarities less the diagonal."""
    from implicit.nearest_neighbours import CosineRecommender

    params = dict(spec.params)
    k = int(params.pop("K", 50))
    if k < 1:
        raise ValueError(f"model {spec.name!r}: K must be at least 1, got {k}")
    model = CosineRecommender(K=k + 1, **params)
    with warnings.catch_warnings():  # implicit converts its own COO product to CSR
        warnings.filterwarnings("ignore", message="Method expects CSR input")
        model.fit(user_items.T.tocsr(), show_progress=False)
    similarity = sp.csr_matrix(model.similarity, dtype=np.float64)
    similarity.setdiag(0.0)
    similarity.eliminate_zeros()
    return np.asarray((similarity[rows] @ user_items.astype(np.float64)).toarray())


def fit_and_score(
    spec: ModelSpec, matrix: sp.csr_matrix, rows: np.ndarray, *, seed: int = 0
) -> np.ndarray:
    """Fit ``spec`` on the binary user-item ``matrix`` and score every item for users ``rows``.

    Returns ``(len(rows), n_items)`` scores in the dtype the library computes them (float32 for
    implicit's ALS, float64 for the others).
    """
    seed = check_seed(seed)
    rows = np.asarray(rows, dtype=np.int64)
    if rows.size and (rows.min() < 0 or rows.max() >= matrix.shape[0]):
        raise ValueError(f"rows must index the {matrix.shape[0]} users of matrix")
    if spec.library == "cornac":
        return _cornac_scores(spec, matrix, rows, seed)
    if spec.library == "implicit":
        return _implicit_scores(spec, matrix, rows, seed)
    if spec.library == "numpy":
        return np.random.default_rng(seed).random((len(rows), matrix.shape[1]))
    raise ValueError(f"model {spec.name!r}: unknown library {spec.library!r}")
