"""Real recommenders under two protocols, five tie rules and several score precisions.

One temporal leave-last-out split serves every model: the split and the sampled rows are those
of the MovieLens audit (:func:`rankbook.audit.prepare.prepare_audit`, the candidate policy of
:mod:`rankbook.data.candidates`: each eligible user's latest positive held out, ``N`` negatives
sampled uniformly from the films the user never rated, the relevant film stored first).  The
models of :mod:`rankbook.audit.recommenders` are trained on the remaining interactions and
score the whole catalogue once; the two protocols read the same score matrix:

``full``
    every catalogue item the user did not interact with in training is a candidate, stored in
    item-id order (the held-out film sits wherever its id puts it);
``sampled``
    the sampled rows: the held-out film first, then its ``N`` negatives in draw order
    (Krichene & Rendle, KDD 2020, show this protocol can reorder models).

Each (model, protocol, precision, rule) gets HR@10, NDCG@10 and RR under
:func:`rankaudit.evaluate`, the share of rows whose relevant item is tied (``prevalence``) and
the share where its tie block straddles the cutoff (``relevant_tied_at_cutoff``;
:func:`rankaudit.ties.prevalence.tie_prevalence`).  Precisions are those of
:mod:`rankbook.audit.precision`.

A model's leaderboard place is *settled by its scores* at a precision when its NDCG@10 interval
``[pessimistic, optimistic]`` (the worst and best any storage order can give) overlaps no other
model's interval; otherwise some row order can move it (:func:`place_settled`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd
import scipy.sparse as sp

from rankaudit.measures.rules import TIE_RULES
from rankaudit.options import LongColumns
from rankaudit.runs.rank_agreement import kendall_tau, leaderboard_order, rank_intervals
from rankaudit.ties.evaluate import evaluate
from rankaudit.ties.prevalence import tie_prevalence
from rankbook.audit.precision import at_precision
from rankbook.audit.prepare import AuditRun, prepare_audit
from rankbook.audit.recommenders import (
    DEFAULT_MODELS,
    ModelSpec,
    fit_and_score,
    interaction_matrix,
    library_version,
)
from rankbook.data.candidates import CandidateRows
from rankbook.data.movielens import load_movielens

__all__ = [
    "PROTOCOLS",
    "PROTOCOL_RULES",
    "RecommenderRun",
    "evaluate_models",
    "chapter_results",
    "kendall_taus",
    "kendall_taus_between_rules",
    "model_records",
    "place_settled",
    "precision_sweep",
    "prepare_recommenders",
    "protocol_frame",
]

PROTOCOLS: tuple[str, ...] = ("full", "sampled")
#: the chapter's rules: the core's rules for rows, less the seeded ``random`` one
PROTOCOL_RULES: tuple[str, ...] = tuple(r for r in TIE_RULES if r != "random")
K = 10


@dataclass(frozen=True)
class RecommenderRun:
    """The split, the catalogue, the sampled rows and each model's score matrix.

    ``scores[name]`` has shape ``(rows.n_rows, len(catalog))``; row ``r`` scores every
    catalogue item for user ``rows.user_ids[r]``.  ``train_matrix`` is the binary training
    matrix of those users (row ``r``), which the full protocol excludes.
    """

    audit: AuditRun
    catalog: np.ndarray
    train_matrix: sp.csr_matrix
    models: tuple[ModelSpec, ...]
    scores: dict[str, np.ndarray]
    model_seed: int

    @property
    def rows(self) -> CandidateRows:
        return self.audit.rows


def prepare_recommenders(
    *,
    data_dir: str | Path | None = None,
    n_rows: int | str | None = None,
    n_negatives: int = 30,
    seed: int = 42,
    models: Sequence[ModelSpec] = DEFAULT_MODELS,
    model_seed: int = 0,
) -> RecommenderRun:
    """Split MovieLens as the MovieLens audit does, train ``models``, score the catalogue.

    ``seed`` is the candidate-sampling seed (the MovieLens audit's), ``model_seed`` the seed of
    every model's initialisation and sampling.
    """
    audit = prepare_audit(
        "movielens",
        data_dir=data_dir,
        n_rows=n_rows,
        n_negatives=n_negatives,
        seed=seed,
        families=("popularity",),
    )
    _, attributes, _ = load_movielens(data_dir)
    catalog = np.sort(np.asarray(attributes.index))
    train = audit.train
    users = np.union1d(train["user_id"].to_numpy(), audit.rows.user_ids)
    matrix = interaction_matrix(train, users, catalog)
    matrices = {
        "binary": matrix,
        "ratings": interaction_matrix(train, users, catalog, feedback="ratings"),
    }
    row_users = pd.Index(users).get_indexer(audit.rows.user_ids)
    scores = {
        m.name: fit_and_score(m, matrices[m.feedback], row_users, seed=model_seed) for m in models
    }
    return RecommenderRun(
        audit=audit,
        catalog=catalog,
        train_matrix=matrix[row_users],
        models=tuple(models),
        scores=scores,
        model_seed=int(model_seed),
    )


def protocol_frame(run: RecommenderRun, protocol: str, scores: np.ndarray) -> pd.DataFrame:
    """Long-format rows (``row_id, user_id, item_id, score, label``) of ``protocol`` for one
    score matrix; candidates in the protocol's storage order (module docstring)."""
    rows = run.rows
    held = np.searchsorted(run.catalog, rows.item_ids[:, 0])
    if protocol == "full":
        seen = run.train_matrix.toarray() > 0
        r, j = np.nonzero(~seen)
        label = (j == held[r]).astype(np.int8)
    elif protocol == "sampled":
        j = np.searchsorted(run.catalog, rows.item_ids).ravel()
        r = np.repeat(np.arange(rows.n_rows), rows.n_candidates)
        label = rows.labels.ravel().astype(np.int8)
    else:
        raise ValueError(f"protocol must be one of {list(PROTOCOLS)}, got {protocol!r}")
    return pd.DataFrame(
        {
            "row_id": r,
            "user_id": rows.user_ids[r],
            "item_id": run.catalog[j],
            "score": scores[r, j],
            "label": label,
        }
    )


def _evaluate_frame(frame: pd.DataFrame, rules: Sequence[str], seed: int) -> list[dict]:
    prevalence = tie_prevalence(frame, k=K).summary
    out = []
    for rule in rules:
        values = evaluate(frame, k=K, ties=rule, seed=seed, columns=LongColumns(user="user_id"))
        out.append(
            {
                "ties": rule,
                "hr10": float(values[f"Success@{K}"].mean()),
                "ndcg10": float(values[f"nDCG@{K}"].mean()),
                "rr": float(values["RR"].mean()),
                "prevalence": float(prevalence["frac_relevant_tied"]),
                "relevant_tied_at_cutoff": float(prevalence["frac_relevant_boundary_tie"]),
            }
        )
    return out


def evaluate_models(
    run: RecommenderRun,
    *,
    precisions: Sequence[str] = ("float64",),
    rules: Sequence[str] = PROTOCOL_RULES,
    protocols: Sequence[str] = PROTOCOLS,
    seed: int = 42,
) -> pd.DataFrame:
    """One line per (model, protocol, precision, rule): ``hr10, ndcg10, rr, prevalence,
    relevant_tied_at_cutoff``.  ``seed`` is the hash rule's seed."""
    records = []
    for model in run.models:
        for precision in precisions:
            scores = at_precision(run.scores[model.name], precision)
            for protocol in protocols:
                frame = protocol_frame(run, protocol, scores)
                for line in _evaluate_frame(frame, rules, seed):
                    records.append(
                        {"model": model.name, "protocol": protocol, "precision": precision, **line}
                    )
    return pd.DataFrame(records)


def model_records(run: RecommenderRun) -> list[dict]:
    """The ``models`` results entries: name, library, installed version, hyperparameters and
    the dtype of the scores the library returned.  Keyword names are recorded lower-cased, as
    results keys are snake_case (implicit's ``K`` appears as ``k``)."""
    return [
        {
            "name": m.name,
            "library": m.library,
            "version": library_version(m.library),
            "params": {
                "class": m.cls,
                **{key.lower(): value for key, value in m.params.items()},
                "seed": run.model_seed,
                "feedback": m.feedback,
            },
            "score_dtype": str(run.scores[m.name].dtype),
        }
        for m in run.models
    ]


def _order_tau(values_a: pd.Series, values_b: pd.Series) -> float:
    """Kendall's tau between the two leaderboards the values give (exactly equal values
    ordered by model name, :func:`rankaudit.runs.rank_agreement.leaderboard_order`)."""
    names = [str(n) for n in values_a.index]
    return kendall_tau(
        leaderboard_order(names, values_a.to_numpy()),
        leaderboard_order(names, values_b.loc[values_a.index].to_numpy()),
    )


def kendall_taus(metrics: pd.DataFrame, *, precision: str = "float64") -> list[dict]:
    """Kendall's tau between the model orders by NDCG@10 of the two protocols, per rule."""
    table = metrics[metrics["precision"] == precision]
    out = []
    for rule in pd.unique(table["ties"]):
        by = table[table["ties"] == rule].pivot(index="model", columns="protocol", values="ndcg10")
        tau = _order_tau(by["full"], by["sampled"])
        out.append({"protocol_a": "full", "protocol_b": "sampled", "ties": rule, "tau": tau})
    return out


def kendall_taus_between_rules(
    metrics: pd.DataFrame, *, reference: str = "expected", precision: str = "float64"
) -> list[dict]:
    """Kendall's tau between the model order by NDCG@10 under ``reference`` and under every
    other rule, per protocol."""
    table = metrics[metrics["precision"] == precision]
    out = []
    for protocol in pd.unique(table["protocol"]):
        by = table[table["protocol"] == protocol].pivot(
            index="model", columns="ties", values="ndcg10"
        )
        for rule in by.columns:
            if rule != reference:
                tau = _order_tau(by[reference], by[rule])
                out.append({"protocol": protocol, "ties_a": reference, "ties_b": rule, "tau": tau})
    return out


def place_settled(metrics: pd.DataFrame) -> pd.DataFrame:
    """Per (protocol, precision, model): the NDCG@10 interval ``[pessimistic, optimistic]``
    and ``settled``: True when the model's rank interval
    (:func:`rankaudit.runs.rank_agreement.rank_intervals`) is one place wide, i.e. no tie
    order of any model can move it on the leaderboard at that precision."""
    wide = metrics.pivot_table(
        index=["protocol", "precision", "model"], columns="ties", values="ndcg10"
    ).reset_index()
    settled = np.zeros(len(wide), dtype=bool)
    for _, idx in wide.groupby(["protocol", "precision"]).indices.items():
        best, worst = rank_intervals(
            wide["pessimistic"].to_numpy()[idx], wide["optimistic"].to_numpy()[idx]
        )
        settled[idx] = best == worst
    return wide.assign(settled=settled)[
        ["protocol", "precision", "model", "pessimistic", "optimistic", "settled"]
    ]


def precision_sweep(metrics: pd.DataFrame, protocol: str = "full") -> list[dict]:
    """The ``precision_sweep`` results entries of ``protocol``: per model and precision, the
    tie prevalence and the NDCG@10 gap input order minus expectation."""
    table = metrics[metrics["protocol"] == protocol]
    wide = table.pivot_table(
        index=["model", "precision"], columns="ties", values="ndcg10", sort=False
    )
    prev = table.groupby(["model", "precision"], sort=False)["prevalence"].first()
    return [
        {
            "model": model,
            "precision": precision,
            "protocol": protocol,
            "prevalence": float(prev[(model, precision)]),
            "gap_input_order_vs_expected": float(
                wide.loc[(model, precision), "input_order"]
                - wide.loc[(model, precision), "expected"]
            ),
        }
        for model, precision in wide.index
    ]


def chapter_results(run: RecommenderRun, metrics: pd.DataFrame, sweep: pd.DataFrame) -> dict:
    """The chapter's results: ``models``, ``metrics`` (every rule at float64 and the sweep's
    lines), ``kendall_tau`` (between protocols), ``kendall_tau_rules`` (between rules),
    ``precision_sweep`` (both protocols), ``place_settled`` and the candidate policy."""
    lines = pd.concat([metrics, sweep[sweep["precision"] != "float64"]], ignore_index=True)
    settled = place_settled(sweep)
    return {
        "models": model_records(run),
        "metrics": lines.to_dict(orient="records"),
        "kendall_tau": kendall_taus(metrics),
        "kendall_tau_rules": kendall_taus_between_rules(metrics),
        "precision_sweep": [r for p in PROTOCOLS for r in precision_sweep(sweep, p)],
        "place_settled": settled.to_dict(orient="records"),
        "candidate_policy": dict(run.rows.policy),
    }
