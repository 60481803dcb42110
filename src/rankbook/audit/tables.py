"""Part II aggregates from row-level arrays: Table 2, tie prevalence, Table 3.

Guo et al. (2026, "Tie Handling Is Part of the Evaluation Protocol", arXiv:2609.26977):
Table 2 evaluates every score family under each tie rule on fixed candidate rows (§5);
Table 3 compares the mean over hash seeds with the exact expectation over uniform random tie
orders (McSherry & Najork, ECIR 2008). Every function here reads only the arrays (ids, labels,
scores), so a results file can be recomputed from its row-level parquet
(:mod:`rankbook.audit.rowfiles`, :func:`rankbook.audit.chapter.recompute_results`).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np
import pandas as pd

from rankaudit.measures.hashing import hash_collisions, ids_to_keys
from rankaudit.runs.decision import Z_AGREE, expectation_verdict
from rankaudit.ties.evaluate import evaluate
from rankaudit.ties.invariance import audit_row_order
from rankaudit.ties.prevalence import tie_prevalence
from rankbook.audit.bootstrap import rule_intervals
from rankbook.audit.display import lookup, paper_table2_frame, table2_frame
from rankbook.audit.rows_evaluate import evaluate_rows
from rankbook.data.candidates import CandidateRows

__all__ = [
    "ROUNDING",
    "TABLE2_RULES",
    "audit_results",
    "hash_agreement",
    "hash_ready",
    "hash_seed_study",
    "lookup",
    "paper_table2_frame",
    "prevalence_table",
    "table2",
    "table2_frame",
    "table3_results",
]

#: Differences below this are floating-point rounding between two ways of computing a mean.
ROUNDING = 1e-12

#: Tie rules of Table 2, in display order. ``hash_mean`` and ``random`` are averages over
#: ``n_hash_seeds`` hash seeds / random tie orders (reported as mean and sd).
TABLE2_RULES = (
    "input_order",
    "hash",
    "hash_mean",
    "random",
    "expected",
    "pessimistic",
    "optimistic",
)


def hash_ready(rows: CandidateRows) -> CandidateRows:
    """The same rows with string ids replaced by their 64-bit hash-key integers ``id64(id)``.

    ``tie_hash`` maps an integer id to itself modulo 2**64 and a string to its BLAKE2b key, so
    the replaced ids give *identical* hash keys; converting once avoids re-hashing every string
    on every one of the hundreds of evaluations of an audit. Integer ids are returned unchanged.
    (Only the astronomically rare collision fallback, ascending id, could order differently.)
    """
    if rows.user_ids.dtype.kind in "iu" and rows.item_ids.dtype.kind in "iu":
        return rows
    user = (
        ids_to_keys(rows.user_ids).view(np.int64)
        if rows.user_ids.dtype.kind not in "iu"
        else rows.user_ids
    )
    item = (
        ids_to_keys(rows.item_ids).view(np.int64)
        if rows.item_ids.dtype.kind not in "iu"
        else rows.item_ids
    )
    return CandidateRows(
        user_ids=user, item_ids=item, labels=rows.labels, seed=rows.seed, policy=rows.policy
    )


def _mean_metrics(frame: pd.DataFrame, k: int) -> tuple[float, float]:
    return float(frame[f"nDCG@{k}"].mean()), float(frame[f"Success@{k}"].mean())


def hash_seed_study(
    rows: CandidateRows, scores: np.ndarray, *, k: int, n_seeds: int, rule: str = "hash"
) -> np.ndarray:
    """``(n_seeds, 2)``: mean NDCG@k and HR@k over rows under ``rule`` ("hash" or "random")
    with seeds ``0 .. n_seeds-1``."""
    out = np.empty((n_seeds, 2))
    for s in range(n_seeds):
        frame = evaluate_rows(rows, scores, k=k, ties=rule, seed=s)
        out[s] = _mean_metrics(frame, k)
    return out


def table2(
    rows: CandidateRows,
    scores: Mapping[str, np.ndarray],
    *,
    k: int = 10,
    seed: int = 42,
    n_hash_seeds: int = 100,
    dataset: str = "",
    data_source: str = "",
    hash_runs: Mapping[str, np.ndarray] | None = None,
) -> pd.DataFrame:
    """Table 2 of the paper, one line per (score, tie rule).

    Columns: ``dataset, data_source, score, tie_rule, ndcg10, hr10`` (named for k = 10 whatever
    ``k``; the cutoff is in the results' params), ``ndcg10_sd, hr10_sd`` (seed-to-seed standard
    deviation for ``hash_mean`` and ``random``, else 0) and ``delta_ndcg10, delta_hr10`` (change
    from input order). ``hash`` uses ``seed``; ``hash_mean``/``random`` average seeds
    ``0..n_hash_seeds-1`` (``hash_runs`` may pass precomputed :func:`hash_seed_study` results).
    """
    lines = []
    for name, s in scores.items():
        base = None
        for rule in TABLE2_RULES:
            sd = (0.0, 0.0)
            if rule in ("hash_mean", "random"):
                if rule == "hash_mean" and hash_runs is not None and name in hash_runs:
                    per_seed = hash_runs[name]
                else:
                    kind = "hash" if rule == "hash_mean" else "random"
                    per_seed = hash_seed_study(rows, s, k=k, n_seeds=n_hash_seeds, rule=kind)
                value = tuple(per_seed.mean(axis=0))
                sd = tuple(per_seed.std(axis=0, ddof=1)) if n_hash_seeds > 1 else (0.0, 0.0)
            else:
                frame = evaluate_rows(rows, s, k=k, ties=rule, seed=seed)
                value = _mean_metrics(frame, k)
            if rule == "input_order":
                base = value
            lines.append(
                {
                    "dataset": dataset,
                    "data_source": data_source,
                    "score": name,
                    "tie_rule": rule,
                    "ndcg10": float(value[0]),
                    "hr10": float(value[1]),
                    "ndcg10_sd": float(sd[0]),
                    "hr10_sd": float(sd[1]),
                    "delta_ndcg10": float(value[0] - base[0]),
                    "delta_hr10": float(value[1] - base[1]),
                }
            )
    return pd.DataFrame(lines)


def prevalence_table(
    rows: CandidateRows, scores: Mapping[str, np.ndarray], *, k: int = 10
) -> pd.DataFrame:
    """Tie prevalence per score: fractions of rows with any exact tie, a tie block crossing the
    top-k boundary, the relevant item tied, the relevant item's block crossing the boundary,
    and the mean size of the relevant item's tie block (see :func:`rankaudit.tie_prevalence`)."""
    lines = []
    for name, s in scores.items():
        summary = tie_prevalence(s, rows.labels, k=k).summary
        lines.append(
            {
                "score": name,
                "any_tie": float(summary["frac_any_tie"]),
                "boundary_tie": float(summary["frac_boundary_tie"]),
                "relevant_tie": float(summary["frac_relevant_tied"]),
                "relevant_boundary_tie": float(summary["frac_relevant_boundary_tie"]),
                "mean_relevant_block_size": float(summary["mean_relevant_block_size"]),
            }
        )
    return pd.DataFrame(lines)


def hash_agreement(
    rows: CandidateRows,
    scores: np.ndarray,
    *,
    k: int,
    n_seeds: int,
    per_seed: np.ndarray | None = None,
) -> dict[str, float]:
    """The hash-mean vs exact-expectation test for one score (NDCG@k).

    ``se = sd / sqrt(n_seeds)`` (sd: seed-to-seed sd of the row-mean NDCG@k),
    ``z = (hash_mean - expected) / se``; ``verdict`` is the book's one expectation rule,
    :func:`rankaudit.runs.decision.expectation_verdict` (agrees when ``|z| <=``
    :data:`~rankaudit.runs.decision.Z_AGREE`, recorded as ``z_agree``); the closed-form sd of
    one run's row mean under uniform random ties is ``sqrt(sum_r Var_r) / n_rows`` (exact
    per-row variances).

    ``n_relevant_tied`` counts the rows whose relevant item shares its score with another
    candidate (:func:`rankaudit.tie_prevalence`); ``no_relevant_ties`` is true exactly when that
    count is 0, the case in which every tie order gives the same metric.

    ``sd_ratio`` is the seed-to-seed sd over the closed-form sd.  When no tie moves any row the
    closed-form sd is exactly 0 and every seed gives the expected value, so the seed-to-seed sd
    is rounding alone: the two spreads are then equal and the ratio is 1.
    """
    n_relevant_tied = int(tie_prevalence(scores, rows.labels, k=k).rows["relevant_tied"].sum())
    exp = evaluate(scores, rows.labels, k=k, ties="expected", return_variance=True)
    expected = float(exp[f"nDCG@{k}"].mean())
    closed_sd = float(np.sqrt(exp[f"nDCG@{k}_var"].sum()) / len(exp))
    if per_seed is None:
        per_seed = hash_seed_study(rows, scores, k=k, n_seeds=n_seeds)
    per_seed = per_seed[:, 0]
    mean = float(per_seed.mean())
    sd = float(per_seed.std(ddof=1)) if n_seeds > 1 else 0.0
    se = sd / np.sqrt(n_seeds)
    # With (almost) no relevant-item ties every run equals the expectation up to rounding
    # (~1e-16); z would then divide rounding noise by rounding noise, so it is reported as 0.
    degenerate = bool(max(se, abs(mean - expected)) < ROUNDING)
    z = 0.0 if degenerate else (mean - expected) / se
    return {
        "expected_ndcg10": expected,
        "hash_mean_ndcg10": mean,
        "hash_sd_ndcg10": sd,
        "hash_se_ndcg10": float(se),
        "closed_form_sd_ndcg10": closed_sd,
        "sd_ratio": _sd_ratio(sd, closed_sd),
        "z": float(z),
        "z_agree": Z_AGREE,
        "verdict": expectation_verdict(z),
        "no_relevant_ties": n_relevant_tied == 0,
        "n_relevant_tied": n_relevant_tied,
        "n_seeds": int(n_seeds),
    }


def _sd_ratio(sd: float, closed_sd: float) -> float:
    """Seed-to-seed sd over the closed-form sd; 1 when both are rounding (below
    :data:`ROUNDING`: no tie moves any row, so every seed gives the expected value and the
    sample sd is the rounding of ``numpy.std`` alone).  A spread without any moving tie is a
    bug, and refused."""
    if closed_sd >= ROUNDING:
        return sd / closed_sd
    if sd < ROUNDING:
        return 1.0
    raise ValueError(f"seed-to-seed sd {sd!r} where no tie moves any row (closed-form sd 0)")


def audit_results(
    rows: CandidateRows,
    scores: Mapping[str, np.ndarray],
    *,
    k: int,
    seed: int,
    n_hash_seeds: int,
    dataset: str,
    data_source: str,
    n_boot: int = 1000,
) -> dict[str, Any]:
    """Every aggregate of a Table 2 audit chapter (05/06), from the row-level arrays alone:
    ``table2``, ``prevalence``, ``hash_vs_expected`` (per score), ``row_bootstrap`` (95% CIs of
    each input-order, hash and expected cell and of each Δ from input order,
    :func:`rankbook.audit.bootstrap.rule_intervals`, ``n_boot`` resamples of rows) and row
    counts."""
    rows = hash_ready(rows)
    runs = {name: hash_seed_study(rows, s, k=k, n_seeds=n_hash_seeds) for name, s in scores.items()}
    t2 = table2(
        rows,
        scores,
        k=k,
        seed=seed,
        n_hash_seeds=n_hash_seeds,
        dataset=dataset,
        data_source=data_source,
        hash_runs=runs,
    )
    agreement = [
        {"score": name, **hash_agreement(rows, s, k=k, n_seeds=n_hash_seeds, per_seed=runs[name])}
        for name, s in scores.items()
    ]
    return {
        "table2": t2.to_dict(orient="records"),
        "prevalence": prevalence_table(rows, scores, k=k).to_dict(orient="records"),
        "hash_vs_expected": agreement,
        "row_bootstrap": rule_intervals(rows, scores, k=k, seed=seed, n_boot=n_boot),
        "n_rows": rows.n_rows,
        "n_candidates": rows.n_candidates,
    }


def table3_results(
    rows: CandidateRows,
    scores: np.ndarray,
    *,
    k: int,
    seed: int,
    n_hash_seeds: int,
    n_permutations: int,
    score_name: str,
    dataset: str = "",
    n_boot: int = 1000,
) -> dict[str, Any]:
    """Table 3 (hash seeds vs the exact expectation) for one score, from the row-level arrays.

    Returns ``table3`` (``dataset``, ``score``, Guo et al.'s Table 3 quantities plus se, z and
    the closed-form sd),
    ``table3_rules`` (input order, one hash seed, hash mean, random mean, expected, bounds),
    ``per_seed_ndcg10`` (the hash-seed means), ``collisions``, ``permutation`` (row-order
    audits of input-order, hash and expected on this score) and ``row_bootstrap`` (row-bootstrap
    95% CIs of the cells and of each Δ from input order, ``n_boot`` resamples).
    """
    rows = hash_ready(rows)
    per_seed = hash_seed_study(rows, scores, k=k, n_seeds=n_hash_seeds)
    agreement = hash_agreement(rows, scores, k=k, n_seeds=n_hash_seeds, per_seed=per_seed)
    rules = table2(
        rows,
        {score_name: scores},
        k=k,
        seed=seed,
        n_hash_seeds=n_hash_seeds,
        hash_runs={score_name: per_seed},
    )
    permutation = []
    for rule in ("input_order", "hash", "expected"):

        def evaluator(s, lab, item_ids=None, user_ids=None, _rule=rule):
            return evaluate(
                s, lab, k=k, ties=_rule, seed=seed, item_ids=item_ids, user_ids=user_ids
            )

        audit = audit_row_order(
            evaluator,
            scores,
            rows.labels,
            n_permutations=n_permutations,
            seed=seed,
            item_ids=rows.item_ids,
            user_ids=rows.user_ids,
            progress=False,
        )
        permutation.append(
            {
                "tie_rule": rule,
                "is_invariant": bool(audit.is_invariant),
                "max_row_change": float(audit.max_row_change),
                "max_mean_change": float(audit.max_mean_change),
                "n_permutations": int(n_permutations),
            }
        )
    return {
        "table3": {"dataset": dataset, "score": score_name, **agreement},
        "table3_rules": rules[
            ["tie_rule", "ndcg10", "hr10", "ndcg10_sd", "hr10_sd", "delta_ndcg10", "delta_hr10"]
        ].to_dict(orient="records"),
        "per_seed_ndcg10": [float(v) for v in per_seed[:, 0]],
        "collisions": hash_collisions(rows.user_ids, rows.item_ids, n_seeds=n_hash_seeds),
        "permutation": permutation,
        "row_bootstrap": rule_intervals(rows, {score_name: scores}, k=k, seed=seed, n_boot=n_boot),
        "n_rows": rows.n_rows,
        "n_candidates": rows.n_candidates,
    }
