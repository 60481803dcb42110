"""The Part II tie audits: data -> candidate rows -> scores -> Table 2 / Table 3, row-level files.

The audit design follows Guo et al. (2026, "Tie Handling Is Part of the Evaluation Protocol",
arXiv:2609.26977, §4-5): each row holds the held-out relevant item first and ``n_negatives``
sampled negatives; candidates and scores stay fixed and only the tie rule changes.

Everything a chapter reports is computed by :func:`audit_results` / :func:`table3_results` from
the row-level arrays alone (ids, labels, scores). Those arrays are saved as parquet next to the
results JSON (:func:`save_rows`), and :func:`recompute_results` rebuilds every aggregate of a
results file from its parquet, so a reader can check each number exactly (the paper could do
this for Amazon but not for MovieLens, §4.3).
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from rankaudit.data.candidates import CandidateRows, build_candidate_rows
from rankaudit.data.source import DataSource
from rankaudit.scalars import plain

__all__ = [
    "AuditRun",
    "TABLE2_RULES",
    "audit_results",
    "hash_collisions",
    "hash_seed_study",
    "load_rows",
    "prepare_audit",
    "prevalence_table",
    "recompute_results",
    "rows_path",
    "save_rows",
    "table2",
    "table3_results",
]

#: Tie rules of Table 2, in display order. ``hash_mean`` and ``random`` are averages over
#: ``n_hash_seeds`` hash seeds / random tie orders (reported as mean and sd).
#: Differences below this are floating-point rounding between two ways of computing a mean.
ROUNDING = 1e-12

TABLE2_RULES = ("input_order", "hash", "hash_mean", "random", "expected", "pessimistic", "optimistic")


@dataclass(frozen=True)
class AuditRun:
    """Candidate rows and every score family's scores for one dataset."""

    dataset: str
    source: DataSource
    rows: CandidateRows
    scores: dict[str, np.ndarray]
    train: pd.DataFrame


def prepare_audit(
    dataset: str,
    *,
    data_dir: str | Path | None = None,
    n_rows: int | str | None = None,
    n_negatives: int = 30,
    seed: int = 42,
    families: Sequence[str] | None = None,
    simulate: dict | None = None,
) -> AuditRun:
    """Load ``dataset`` ("movielens" or "amazon"), build candidate rows, compute the scores.

    ``n_rows``: rows (test users) to sample, ``None``/``"all"`` for every eligible user.
    ``simulate``: overrides of the Amazon simulator's arguments when ``data_dir`` is None.
    """
    from rankaudit.scores import FAMILIES, compute_scores

    if dataset == "movielens":
        from rankaudit.data.movielens import load_movielens

        ratings, attributes, source = load_movielens(data_dir)
    elif dataset == "amazon":
        from rankaudit.data.amazon import load_amazon_beauty

        ratings, attributes, source = load_amazon_beauty(data_dir, simulate=simulate)
    else:
        raise ValueError(f"dataset must be 'movielens' or 'amazon', got {dataset!r}")
    n = None if n_rows in (None, "all") else int(n_rows)
    # Work on order-preserving integer codes (sorted unique ids -> 0..n-1): string ids are slow in
    # pandas, and since code order equals id order every step gives the same rows as on raw ids.
    users = np.sort(pd.unique(ratings["user_id"]))
    items = np.asarray(attributes.index)
    order = np.argsort(items, kind="stable")
    items = items[order]
    coded_attrs = attributes.iloc[order].set_axis(pd.RangeIndex(len(items), name="item_id"))
    item_codes = pd.Index(items).get_indexer(ratings["item_id"].to_numpy())
    if (item_codes < 0).any():
        bad = plain(ratings["item_id"].to_numpy()[item_codes < 0][0])
        raise ValueError(f"ratings item {bad!r} has no row in the item attributes")
    coded = pd.DataFrame(
        {
            "user_id": pd.Index(users).get_indexer(ratings["user_id"].to_numpy()),
            "item_id": item_codes,
            "rating": ratings["rating"].to_numpy(np.float64),
            "timestamp": ratings["timestamp"].to_numpy(),
        }
    )
    rows_c, train_c = build_candidate_rows(
        coded, n_negatives=n_negatives, seed=seed, n_rows=n, item_pool=np.arange(len(items))
    )
    scores = compute_scores(rows_c.user_ids, rows_c.item_ids, train_c, coded_attrs, families or tuple(FAMILIES))
    rows = CandidateRows(
        user_ids=users[rows_c.user_ids],
        item_ids=items[rows_c.item_ids],
        labels=rows_c.labels,
        seed=rows_c.seed,
        policy=rows_c.policy,
    )
    train = train_c.assign(user_id=users[train_c["user_id"].to_numpy()], item_id=items[train_c["item_id"].to_numpy()])
    return AuditRun(dataset=dataset, source=source, rows=rows, scores=scores, train=train)


# ------------------------------------------------------------------------------------------
# Aggregates from row-level arrays
# ------------------------------------------------------------------------------------------


def hash_ready(rows: CandidateRows) -> CandidateRows:
    """The same rows with string ids replaced by their 64-bit hash-key integers ``id64(id)``.

    ``tie_hash`` maps an integer id to itself modulo 2**64 and a string to its BLAKE2b key, so
    the replaced ids give *identical* hash keys; converting once avoids re-hashing every string
    on every one of the hundreds of evaluations of an audit. Integer ids are returned unchanged.
    (Only the astronomically rare collision fallback, ascending id, could order differently.)
    """
    from rankaudit.ties.hashing import ids_to_keys

    if rows.user_ids.dtype.kind in "iu" and rows.item_ids.dtype.kind in "iu":
        return rows
    user = ids_to_keys(rows.user_ids).view(np.int64) if rows.user_ids.dtype.kind not in "iu" else rows.user_ids
    item = ids_to_keys(rows.item_ids).view(np.int64) if rows.item_ids.dtype.kind not in "iu" else rows.item_ids
    return CandidateRows(user_ids=user, item_ids=item, labels=rows.labels, seed=rows.seed, policy=rows.policy)


def _mean_metrics(frame: pd.DataFrame, k: int) -> tuple[float, float]:
    return float(frame[f"ndcg@{k}"].mean()), float(frame[f"hr@{k}"].mean())


def _eval(scores, labels, *, k, ties, seed=0, user_ids=None, item_ids=None, **kw) -> pd.DataFrame:
    from rankaudit import evaluate

    return evaluate(scores, labels, k=k, ties=ties, seed=seed, user_ids=user_ids, item_ids=item_ids, **kw)


def hash_seed_study(
    rows: CandidateRows, scores: np.ndarray, *, k: int, n_seeds: int, rule: str = "hash"
) -> np.ndarray:
    """``(n_seeds, 2)``: mean NDCG@k and HR@k over rows under ``rule`` ("hash" or "random")
    with seeds ``0 .. n_seeds-1``."""
    out = np.empty((n_seeds, 2))
    for s in range(n_seeds):
        frame = _eval(scores, rows.labels, k=k, ties=rule, seed=s, user_ids=rows.user_ids, item_ids=rows.item_ids)
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
                frame = _eval(s, rows.labels, k=k, ties=rule, seed=seed, user_ids=rows.user_ids, item_ids=rows.item_ids)
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


def prevalence_table(rows: CandidateRows, scores: Mapping[str, np.ndarray], *, k: int = 10) -> pd.DataFrame:
    """Tie prevalence per score: fractions of rows with any exact tie, a tie block crossing the
    top-k boundary, the relevant item tied, the relevant item's block crossing the boundary,
    and the mean size of the relevant item's tie block (see :func:`rankaudit.tie_prevalence`)."""
    from rankaudit import tie_prevalence

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
    rows: CandidateRows, scores: np.ndarray, *, k: int, n_seeds: int, per_seed: np.ndarray | None = None
) -> dict[str, float]:
    """The hash-mean vs exact-expectation test for one score (NDCG@k).

    ``se = sd / sqrt(n_seeds)`` (sd: seed-to-seed sd of the row-mean NDCG@k),
    ``z = (hash_mean - expected) / se``; the closed-form sd of one run's row mean under uniform
    random ties is ``sqrt(sum_r Var_r) / n_rows`` (exact per-row variances).

    ``n_relevant_tied`` counts the rows whose relevant item shares its score with another
    candidate (:func:`rankaudit.tie_prevalence`); ``no_relevant_ties`` is true exactly when that
    count is 0, the case in which every tie order gives the same metric.
    """
    from rankaudit import tie_prevalence

    n_relevant_tied = int(tie_prevalence(scores, rows.labels, k=k).rows["relevant_tied"].sum())
    exp = _eval(scores, rows.labels, k=k, ties="expected", return_variance=True)
    expected = float(exp[f"ndcg@{k}"].mean())
    closed_sd = float(np.sqrt(exp[f"ndcg@{k}_var"].sum()) / len(exp))
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
        "z": float(z),
        "within_1se": degenerate or bool(abs(mean - expected) <= se),
        "within_2se": degenerate or bool(abs(mean - expected) <= 2 * se),
        "no_relevant_ties": n_relevant_tied == 0,
        "n_relevant_tied": n_relevant_tied,
        "n_seeds": int(n_seeds),
    }


def audit_results(
    rows: CandidateRows,
    scores: Mapping[str, np.ndarray],
    *,
    k: int,
    seed: int,
    n_hash_seeds: int,
    dataset: str,
    data_source: str,
) -> dict[str, Any]:
    """Every aggregate of a Table 2 audit chapter (05/06), from the row-level arrays alone:
    ``table2``, ``prevalence``, ``hash_vs_expected`` (per score) and row counts."""
    rows = hash_ready(rows)
    runs = {name: hash_seed_study(rows, s, k=k, n_seeds=n_hash_seeds) for name, s in scores.items()}
    t2 = table2(
        rows, scores, k=k, seed=seed, n_hash_seeds=n_hash_seeds, dataset=dataset, data_source=data_source, hash_runs=runs
    )
    agreement = [
        {"score": name, **hash_agreement(rows, s, k=k, n_seeds=n_hash_seeds, per_seed=runs[name])}
        for name, s in scores.items()
    ]
    return {
        "table2": t2.to_dict(orient="records"),
        "prevalence": prevalence_table(rows, scores, k=k).to_dict(orient="records"),
        "hash_vs_expected": agreement,
        "n_rows": rows.n_rows,
        "n_candidates": rows.n_candidates,
    }


def hash_collisions(rows: CandidateRows, *, n_seeds: int) -> dict[str, float]:
    """Pairs of candidates in one row with the same 64-bit tie key, summed over seeds
    ``0..n_seeds-1``, and the expected count ``n_seeds * n_rows * C(m, 2) / 2**64`` for an
    ideal 64-bit hash. (A collision only matters inside a tie block; the item id breaks it.)"""
    from rankaudit.ties.hashing import tie_hash_array

    rows = hash_ready(rows)
    n, m = rows.item_ids.shape
    total = 0
    for s in range(n_seeds):
        keys = np.sort(tie_hash_array(s, rows.user_ids[:, None], rows.item_ids), axis=1)
        total += int((keys[:, 1:] == keys[:, :-1]).sum())
    return {
        "collisions": total,
        "pairs_checked": int(n_seeds * n * m * (m - 1) // 2),
        "expected_collisions": float(n_seeds * n * m * (m - 1) / 2 / 2.0**64),
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
) -> dict[str, Any]:
    """Table 3 (hash seeds vs the exact expectation) for one score, from the row-level arrays.

    Returns ``table3`` (``dataset``, ``score``, the issue's keys plus se, z and the closed-form sd),
    ``table3_rules`` (input order, one hash seed, hash mean, random mean, expected, bounds),
    ``per_seed_ndcg10`` (the hash-seed means), ``collisions`` and ``permutation`` (row-order
    audits of input-order, hash and expected on this score).
    """
    from rankaudit import audit_row_order, evaluate

    rows = hash_ready(rows)
    per_seed = hash_seed_study(rows, scores, k=k, n_seeds=n_hash_seeds)
    agreement = hash_agreement(rows, scores, k=k, n_seeds=n_hash_seeds, per_seed=per_seed)
    rules = table2(rows, {score_name: scores}, k=k, seed=seed, n_hash_seeds=n_hash_seeds, hash_runs={score_name: per_seed})
    permutation = []
    for rule in ("input_order", "hash", "expected"):

        def evaluator(s, lab, item_ids=None, user_ids=None, _rule=rule):
            return evaluate(s, lab, k=k, ties=_rule, seed=seed, item_ids=item_ids, user_ids=user_ids)

        audit = audit_row_order(
            evaluator, scores, rows.labels, n_permutations=n_permutations, seed=seed,
            item_ids=rows.item_ids, user_ids=rows.user_ids, progress=False,
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
        "table3_rules": rules[["tie_rule", "ndcg10", "hr10", "ndcg10_sd", "hr10_sd", "delta_ndcg10", "delta_hr10"]].to_dict(orient="records"),
        "per_seed_ndcg10": [float(v) for v in per_seed[:, 0]],
        "collisions": hash_collisions(rows, n_seeds=n_hash_seeds),
        "permutation": permutation,
        "n_rows": rows.n_rows,
        "n_candidates": rows.n_candidates,
    }


# ------------------------------------------------------------------------------------------
# Row-level files and recomputation
# ------------------------------------------------------------------------------------------


def rows_path(stem: str, directory: Path | None = None) -> Path:
    """``<results_dir>/<stem>_rows.parquet``."""
    from rankaudit.report.results import results_dir

    return (directory or results_dir()) / f"{stem}_rows.parquet"


def save_rows(stem: str, rows: CandidateRows, scores: Mapping[str, np.ndarray], directory: Path | None = None) -> Path:
    """Save candidate ids, labels and every score array (long format, float64) as parquet, with
    the candidate policy in the file's key-value metadata."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    frame = rows.to_frame(dict(scores))
    table = pa.Table.from_pandas(frame, preserve_index=False)
    meta = dict(table.schema.metadata or {})
    meta[b"rankaudit_candidates"] = json.dumps({"seed": rows.seed, "policy": rows.policy}, sort_keys=True).encode()
    path = rows_path(stem, directory)
    pq.write_table(table.replace_schema_metadata(meta), path)
    return path


def load_rows(path: str | Path) -> tuple[CandidateRows, dict[str, np.ndarray]]:
    """Read :func:`save_rows` output back: ``(rows, scores)``, bit-identical arrays."""
    import pyarrow.parquet as pq

    table = pq.read_table(path)
    info = json.loads((table.schema.metadata or {}).get(b"rankaudit_candidates", b"{}") or b"{}")
    frame = table.to_pandas()
    for column in ("user_id", "item_id"):
        if frame[column].dtype.kind not in "iu":
            frame[column] = frame[column].astype(object)
    return CandidateRows.from_frame(frame, seed=int(info.get("seed", 0)), policy=info.get("policy"))


def recompute_results(stem: str, directory: Path | None = None) -> dict[str, Any]:
    """Recompute every aggregate of ``<stem>.json`` from ``<stem>_rows.parquet``.

    The results file records how it was computed under ``audit_spec`` (which function and its
    arguments); the same function is rerun on the arrays read back from parquet. Returns the
    recomputed entries (JSON-ready), to compare with the stored ones.
    """
    from rankaudit.report.results import read_results, results_dir, to_jsonable

    directory = directory or results_dir()
    stored = read_results(stem, directory)
    spec = stored.get("audit_spec")
    if not spec:
        raise ValueError(f"{stem}.json has no 'audit_spec': it was not written by an audit chapter")
    rows, scores = load_rows(directory / stored["rows_file"])
    args = dict(spec["args"])
    if spec["function"] == "audit_results":
        out = audit_results(rows, {n: scores[n] for n in args.pop("scores")}, **args)
    elif spec["function"] == "table3_results":
        out = table3_results(rows, scores[args["score_name"]], **args)
    else:
        raise ValueError(f"unknown audit_spec function {spec['function']!r}")
    return to_jsonable(out)


# ------------------------------------------------------------------------------------------
# Chapter helpers (so that notebook cells stay short)
# ------------------------------------------------------------------------------------------


def run_audit_chapter(
    stem: str,
    dataset: str,
    *,
    data_dir: str | Path | None,
    n_rows: int | str | None,
    n_negatives: int,
    seed: int,
    k: int,
    n_hash_seeds: int,
    simulate: dict | None = None,
) -> tuple[AuditRun, dict[str, Any]]:
    """Prepare the audit, save its row-level parquet and compute every aggregate from the arrays.

    The returned results dict is ready for :func:`rankaudit.report.write_results`: it holds
    ``table2``, ``prevalence``, ``hash_vs_expected``, ``rows_file``, ``candidate_policy`` and the
    ``audit_spec`` that :func:`recompute_results` replays on the parquet file.
    """
    run = prepare_audit(
        dataset, data_dir=data_dir, n_rows=n_rows, n_negatives=n_negatives, seed=seed, simulate=simulate
    )
    path = save_rows(stem, run.rows, run.scores)
    args = {"k": k, "seed": seed, "n_hash_seeds": n_hash_seeds, "dataset": dataset, "data_source": run.source.label()}
    results = audit_results(run.rows, run.scores, **args)
    results.update(
        rows_file=path.name,
        candidate_policy=run.rows.policy,
        audit_spec={"function": "audit_results", "args": {**args, "scores": list(run.scores)}},
    )
    return run, results


def run_table3_chapter(
    stem: str,
    dataset: str,
    score: str,
    *,
    data_dir: str | Path | None,
    n_rows: int | str | None,
    n_negatives: int,
    seed: int,
    k: int,
    n_hash_seeds: int,
    n_permutations: int,
    simulate: dict | None = None,
) -> tuple[AuditRun, dict[str, Any]]:
    """Like :func:`run_audit_chapter` for Table 3 (one score; see :func:`table3_results`).
    ``simulate``: the Amazon simulator's overrides when ``data_dir`` is None."""
    from rankaudit.scores import FAMILIES

    if score not in FAMILIES:
        raise ValueError(f"score must be one of {list(FAMILIES)}, got {score!r}")
    run = prepare_audit(
        dataset, data_dir=data_dir, n_rows=n_rows, n_negatives=n_negatives, seed=seed, families=[score],
        simulate=simulate,
    )
    path = save_rows(stem, run.rows, run.scores)
    args = {
        "k": k, "seed": seed, "n_hash_seeds": n_hash_seeds, "n_permutations": n_permutations,
        "score_name": score, "dataset": dataset,
    }
    results = table3_results(run.rows, run.scores[score], **args)
    results.update(
        rows_file=path.name,
        candidate_policy=run.rows.policy,
        audit_spec={"function": "table3_results", "args": args},
    )
    return run, results


def table2_frame(results: Mapping[str, Any], metric: str = "ndcg10") -> pd.DataFrame:
    """Table 2 for display: one column per score family, one line per tie rule.

    Values are rounded to 4 decimals (display only; the results JSON keeps full precision).
    The rules with a seed-to-seed standard deviation (``hash_mean``, ``random``) are followed
    by a ``... sd`` line; the last line, ``Δ expected``, is the change from input order to the
    exact expectation. ``metric`` is ``"ndcg10"`` or ``"hr10"``.
    """
    if metric not in ("ndcg10", "hr10"):
        raise ValueError(f"metric must be 'ndcg10' or 'hr10'; got {metric!r}.")
    frame = pd.DataFrame(results["table2"])
    scores = list(dict.fromkeys(frame["score"]))
    lines = {}
    for rule in dict.fromkeys(frame["tie_rule"]):
        part = frame[frame["tie_rule"] == rule].set_index("score").reindex(scores)
        lines[rule] = part[metric]
        if (part[f"{metric}_sd"].fillna(0) > 0).any():
            lines[f"{rule} sd"] = part[f"{metric}_sd"]
    exp = frame[frame["tie_rule"] == "expected"].set_index("score").reindex(scores)
    lines["Δ expected"] = exp[f"delta_{metric}"]
    wide = pd.DataFrame(lines).T.round(4)
    wide.index.name, wide.columns.name = "tie rule", "score"
    return wide


def plot_table2(results: Mapping[str, Any], title: str):
    """Seaborn bar chart of NDCG@10 by score and tie rule."""
    import matplotlib.pyplot as plt
    import seaborn as sns

    frame = pd.DataFrame(results["table2"])
    fig, ax = plt.subplots(figsize=(9, 4.4))
    sns.barplot(data=frame, x="score", y="ndcg10", hue="tie_rule", ax=ax, palette="colorblind")
    ax.set(title=title, xlabel="score family", ylabel="NDCG@10 (mean over rows)")
    ax.legend(title="tie rule", fontsize=9, ncols=4, loc="upper center",
              bbox_to_anchor=(0.5, -0.18), frameon=False)
    fig.tight_layout()
    return fig


def plot_prevalence(results: Mapping[str, Any], title: str):
    """Seaborn bar chart of the tie-prevalence fractions per score."""
    import matplotlib.pyplot as plt
    import seaborn as sns

    frame = pd.DataFrame(results["prevalence"]).melt(
        id_vars="score", value_vars=["any_tie", "boundary_tie", "relevant_tie", "relevant_boundary_tie"],
        var_name="measure", value_name="fraction",
    )
    fig, ax = plt.subplots(figsize=(9, 4.2))
    sns.barplot(data=frame, x="score", y="fraction", hue="measure", ax=ax, palette="colorblind")
    ax.set(title=title, xlabel="score family", ylabel="fraction of rows", ylim=(0, 1.05))
    ax.legend(title="rows with", fontsize=9, ncols=4, loc="upper center",
              bbox_to_anchor=(0.5, -0.18), frameon=False)
    fig.tight_layout()
    return fig


def lookup(results: Mapping[str, Any], score: str, tie_rule: str, metric: str = "ndcg10") -> float:
    """One cell of Table 2, for ``glue``."""
    for line in results["table2"]:
        if line["score"] == score and line["tie_rule"] == tie_rule:
            return float(line[metric])
    raise KeyError(f"no Table 2 line for score={score!r}, tie_rule={tie_rule!r}")
