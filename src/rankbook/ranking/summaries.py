"""Tables built from an ablation's output: the comparison with the paper, the progression,
and the rectangular arrays the reporting checklist reads."""

from __future__ import annotations

import numpy as np
import pandas as pd

from rankbook.ranking.paper import PAPER_TABLE1_LIFT_PCT, PROGRESSION

__all__ = [
    "compare_with_paper",
    "progression_frame",
    "sale_score_matrix",
    "within_query_correlation",
    "within_query_r2",
]


def compare_with_paper(table: pd.DataFrame) -> pd.DataFrame:
    """The ablation table's rows next to the paper's Table 1 lift (NaN for rows the paper does not
    list).

    Adds ``paper_lift_pct``, ``paper_in_ci`` (the paper's lift lies inside our 95% CI) and
    ``same_sign`` (our point estimate has the paper's sign, i.e. is positive); both are None
    (not False) for a row the paper does not list, since there is nothing to compare.
    """
    for col in ("variant", "lift_pct", "ci_low", "ci_high", "p_value"):
        if col not in table:
            raise ValueError(
                f"table needs a {col!r} column (rankbook.ranking.ablation.AblationResult.table)"
            )
    out = table[["variant", "baseline", "lift_pct", "ci_low", "ci_high", "p_value"]].copy()
    out["paper_lift_pct"] = out["variant"].map(PAPER_TABLE1_LIFT_PCT)
    listed = out["paper_lift_pct"].notna()
    in_ci = (out["ci_low"] <= out["paper_lift_pct"]) & (out["paper_lift_pct"] <= out["ci_high"])
    same_sign = np.sign(out["lift_pct"]) == np.sign(out["paper_lift_pct"])
    out["paper_in_ci"] = pd.Series(
        [bool(v) if k else None for v, k in zip(in_ci, listed, strict=True)],
        index=out.index, dtype=object)
    out["same_sign"] = pd.Series(
        [bool(v) if k else None for v, k in zip(same_sign, listed, strict=True)],
        index=out.index, dtype=object)
    return out


def progression_frame(per_query: pd.DataFrame, feature_sets=PROGRESSION) -> pd.DataFrame:
    """MRR of the sold item (tie-aware expected RR) per feature set and seed, for the progression
    figure.

    ``per_query`` is :attr:`rankbook.ranking.ablation.AblationResult.per_query`.
    """
    missing = [f for f in feature_sets if f not in set(per_query["feature_set"])]
    if missing:
        raise ValueError(f"per_query has no rows for feature set(s) {missing}")
    sub = per_query[per_query["feature_set"].isin(feature_sets)]
    out = (
        sub.groupby(["feature_set", "seed"], sort=False)["rr_expected"]
        .mean()
        .rename("mrr_sale")
        .reset_index()
    )
    out["feature_set"] = pd.Categorical(
        out["feature_set"], categories=list(feature_sets), ordered=True
    )
    return out.sort_values(["feature_set", "seed"]).reset_index(drop=True)


def sale_score_matrix(frame: pd.DataFrame, scores: np.ndarray) -> dict[str, np.ndarray]:
    """Rectangular ``(n_queries, width)`` arrays for :func:`rankaudit.checklist`.

    Keeps test queries with a sale whose SERP has the full (modal) width, since the checklist needs
    one width; labels are 1 for the sold item (the MRR-of-sale target), 0 otherwise; rows keep the
    logged SERP order. Returns ``scores``, ``labels``, ``item_ids``, ``query_ids`` and ``n_dropped``
    (sale queries left out for a shorter SERP).
    """
    if len(scores) != len(frame):
        raise ValueError(f"scores has {len(scores)} values for {len(frame)} frame rows")
    f = frame[["query_id", "item_id", "label"]].assign(score=np.asarray(scores, dtype=np.float64))
    size = f.groupby("query_id", sort=False)["label"].transform("size").to_numpy()
    has_sale = f.groupby("query_id", sort=False)["label"].transform("max").to_numpy() == 2
    width = int(pd.Series(size[has_sale]).mode().iloc[0]) if has_sale.any() else 0
    if width == 0:
        raise ValueError("frame has no query with a sale (label 2)")
    keep = has_sale & (size == width)
    k = f[keep]
    n = len(k) // width
    n_sale_queries = int(f.loc[has_sale, "query_id"].nunique())
    return {
        "scores": k["score"].to_numpy().reshape(n, width),
        "labels": (k["label"].to_numpy() == 2).astype(np.int64).reshape(n, width),
        "item_ids": k["item_id"].to_numpy().reshape(n, width),
        "query_ids": k["query_id"].to_numpy()[::width],
        "n_dropped": n_sale_queries - n,
    }


def within_query_correlation(
    table: pd.DataFrame, features: list[str], against: list[str], *, query: str = "query_id"
) -> pd.DataFrame:
    """Pearson correlation of each of ``features`` with each of ``against`` *within* queries.

    A ranker only compares the items of one query, so what a feature adds beyond another is what
    varies with it inside a SERP: every column is centred on its query's mean,
    ``x'_qi = x_qi - mean_i x_qi``, and ``r = sum x' y' / sqrt(sum x'^2 sum y'^2)`` over the rows
    where both are finite. ``r`` near 1 means the two rank a SERP almost alike (redundant
    features); NaN-free: a pair with no varying finite rows is an error.
    Returns a DataFrame, rows ``features``, columns ``against``.
    """
    _check_columns(table, [query, *features, *against])
    out = pd.DataFrame(index=list(features), columns=list(against), dtype=float)
    for f in features:
        for g in against:
            centred = _centred_within_query(table, query, [f, g])
            x, y = centred[f].to_numpy(), centred[g].to_numpy()
            denom = np.sqrt((x * x).sum() * (y * y).sum())
            if not denom > 0:
                raise ValueError(f"{f!r} and {g!r} have no within-query variation in common")
            out.loc[f, g] = float((x * y).sum() / denom)
    return out


def within_query_r2(
    table: pd.DataFrame, features: list[str], against: list[str], *, query: str = "query_id"
) -> pd.Series:
    """Share of each feature's within-query variance that ``against`` explain together.

    With every column centred on its query's mean (as in :func:`within_query_correlation`), the
    least-squares fit ``x' ~ A' b`` over the rows where all are finite gives
    ``R^2 = 1 - |x' - A' b|^2 / |x'|^2``: 1 when the feature ranks every SERP as some mix of the
    others does (nothing new for a ranker that has them), 0 when it is unrelated to them.
    """
    _check_columns(table, [query, *features, *against])
    out = {}
    for f in features:
        cols = [f, *[g for g in against if g != f]]
        centred = _centred_within_query(table, query, cols)
        x, a = centred[f].to_numpy(), centred[cols[1:]].to_numpy()
        total = float((x * x).sum())
        if not total > 0:
            raise ValueError(f"{f!r} has no within-query variation on rows where all are finite")
        coef, *_ = np.linalg.lstsq(a, x, rcond=None)
        resid = x - a @ coef
        out[f] = 1.0 - float((resid * resid).sum()) / total
    return pd.Series(out, name="within_query_r2")


def _centred_within_query(table: pd.DataFrame, query: str, cols: list[str]) -> pd.DataFrame:
    """``cols`` on the rows where all are finite, each centred on its query's mean."""
    rows = table[[query, *cols]].replace([np.inf, -np.inf], np.nan).dropna()
    return rows[cols] - rows.groupby(query)[cols].transform("mean")


def _check_columns(table: pd.DataFrame, columns: list[str]) -> None:
    missing = [c for c in columns if c not in table]
    if missing:
        raise ValueError(f"table lacks the column(s) {missing}")
