"""Progressive ablation (the paper's Table 1): each variant against its own baseline, over seeds,
with CIs.

Protocol (Sheng et al., 2025, section 3.1): add each heuristic feature to MLR and compare with MLR;
P1 = MLR + all four heuristic features; add each intent-aware feature to P1 and compare with P1; P2
= P1 + both intent-aware features (chapter 12 then adds sequence features to P2 and compares
with P2).

For every feature set and seed a LambdaMART model is trained on the training window (early-stopped
on the validation window) and scored on the test window. The metric is MRR of the sold item over
test queries with a sale (:func:`rankbook.ranking.sale_metrics.sale_rr`), under ``ties="expected"``
and ``"input_order"``. A row's lift, bootstrap CI and bootstrap p-value (both from the same
resamples, :func:`rankaudit.runs.significance.paired_bootstrap_test`, so the CI excludes zero
exactly when ``p <= alpha``, by default :data:`rankaudit.runs.decision.ALPHA`) use per-query RR
**averaged over seeds**
(so the test is about the feature, not one seed's luck); the per-seed lifts are reported as the
seed spread. Each row also reports how often its variant's models split on the features the
variant adds to its baseline (``added_splits``, summed over seeds, with their total gain
``added_gain``; :func:`rankbook.ranking.lambdamart.feature_splits`): a row whose models never
split on an added feature compares two draws of the ranker's random feature subsets and stopping
point, not the feature.

Interfaces (the sequence-model chapter reuses these)
---------------------------------
``AblationRow(variant, baseline)``  names of two feature sets.
``progressive_feature_sets(mlr, heuristic, intent) -> (feature_sets: dict[str, list[str]], rows)``
    the paper's sets and rows in order (names: ``"MLR"``, ``"MLR + NCD_lc"``, ..., ``"P1"``,
    ``"P1 + NCD_Ref_txt"``, ``"P1 + CosSim_Ref_emb"``, ``"P2"``).
``extend_feature_sets(feature_sets, rows, base, extra) -> (feature_sets, rows)``  adds ``base + f vs
    base`` for each extra column ``f`` (e.g. ``"CosSim_seq:trans"`` on ``"P2"``).
``run_ablation(train, valid, test, feature_sets, rows, *, seeds, config, ...) -> AblationResult``;
    the tables need ``query_id, item_id, label`` plus every feature column named in ``feature_sets``
    (extra columns computed elsewhere just need to be present, same row order), rows grouped by
    query in SERP order.
``AblationResult.table`` (DataFrame; ``added_splits`` and ``added_gain`` per row), ``.per_query``
    (long: feature_set, seed, query_id, rr_expected, rr_input_order), ``.ties`` (per feature
    set), ``.splits`` (long: feature_set, seed, feature, splits, gain; one row per feature of
    each trained model), ``.table1(data_source_label, oracle_variant)`` (results-JSON records,
    with ``share_of_oracle`` = lift / the oracle row's lift), ``.rr_by_feature_set()``
    (seed-averaged per-query RR, one column per feature set).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from rankaudit._optional import tqdm
from rankaudit.runs.decision import effect_verdict
from rankaudit.runs.significance import holm_adjust, paired_bootstrap_test
from rankbook.ranking.lambdamart import (
    LambdaMARTConfig,
    feature_splits,
    predict_scores,
    train_lambdamart,
)
from rankbook.ranking.power import share_of_oracle
from rankbook.ranking.sale_metrics import sale_rr, sale_tie_prevalence

__all__ = [
    "AblationResult",
    "AblationRow",
    "extend_feature_sets",
    "progressive_feature_sets",
    "run_ablation",
]


@dataclass(frozen=True)
class AblationRow:
    """``variant`` vs ``baseline``: names of feature sets."""

    variant: str
    baseline: str


def progressive_feature_sets(
    mlr: Sequence[str], heuristic: Sequence[str], intent: Sequence[str]
) -> tuple[dict[str, list[str]], list[AblationRow]]:
    """The paper's progressive feature sets and comparison rows (module docstring)."""
    sets: dict[str, list[str]] = {"MLR": list(mlr)}
    rows: list[AblationRow] = []
    for f in heuristic:
        sets[f"MLR + {f}"] = [*mlr, f]
        rows.append(AblationRow(f"MLR + {f}", "MLR"))
    sets["P1"] = [*mlr, *heuristic]
    rows.append(AblationRow("P1", "MLR"))
    for f in intent:
        sets[f"P1 + {f}"] = [*sets["P1"], f]
        rows.append(AblationRow(f"P1 + {f}", "P1"))
    sets["P2"] = [*sets["P1"], *intent]
    rows.append(AblationRow("P2", "P1"))
    return sets, rows


def extend_feature_sets(
    feature_sets: dict[str, list[str]], rows: list[AblationRow], base: str, extra: Sequence[str]
) -> tuple[dict[str, list[str]], list[AblationRow]]:
    """Add ``base + f`` vs ``base`` for each column ``f`` in ``extra`` (returns new objects)."""
    if base not in feature_sets:
        raise ValueError(f"base feature set {base!r} not in {list(feature_sets)}")
    sets = dict(feature_sets)
    out_rows = list(rows)
    for f in extra:
        sets[f"{base} + {f}"] = [*feature_sets[base], f]
        out_rows.append(AblationRow(f"{base} + {f}", base))
    return sets, out_rows


@dataclass
class AblationResult:
    table: pd.DataFrame
    per_query: pd.DataFrame
    ties: pd.DataFrame
    splits: pd.DataFrame = field(default_factory=pd.DataFrame)

    def rr_by_feature_set(self, column: str = "rr_expected") -> pd.DataFrame:
        """Per-query RR averaged over seeds: rows = test queries with a sale, one column per set."""
        wide = self.per_query.groupby(["query_id", "feature_set"], sort=False)[column].mean()
        return wide.unstack("feature_set")

    def table1(self, data_source: str, oracle_variant: str | None = None) -> list[dict]:
        """Records in the chapters' results-JSON schema (plus seed spread and tie-aware columns).

        With ``oracle_variant`` (a row of the table) every record gets ``share_of_oracle`` =
        its lift / the oracle row's lift (None when the oracle's lift is not positive).
        ``p_holm``: the rows' ``p_value`` adjusted together by Holm's step-down procedure
        (:func:`rankaudit.runs.significance.holm_adjust`), the oracle row left out of the
        family: a page reads the feature rows at once. The oracle row is a family of one, whose
        Holm-adjusted p-value is its own ``p_value`` (as in chapter 10's sweep,
        :func:`rankbook.ranking.experiment.sweep_verdicts`). ``verdict``:
        :func:`rankaudit.runs.decision.effect_verdict` at the row's ``p_holm``.
        """
        cols = [
            "variant",
            "baseline",
            "mrr_sale_base",
            "mrr_sale_variant",
            "lift_pct",
            "ci_low",
            "ci_high",
            "p_value",
            "lift_seed_mean",
            "lift_seed_std",
            "lift_seed_min",
            "lift_seed_max",
            "mrr_sale_base_input_order",
            "mrr_sale_variant_input_order",
            "lift_pct_input_order",
            "n_queries",
            "n_seeds",
        ]
        recs = self.table[cols].to_dict(orient="records")
        oracle = None
        if oracle_variant is not None:
            hit = self.table[self.table.variant == oracle_variant]
            if hit.empty:
                raise ValueError(f"oracle_variant {oracle_variant!r} is not a row of the table")
            oracle = float(hit.lift_pct.iloc[0])
        family = [i for i, r in enumerate(recs) if r["variant"] != oracle_variant]
        holm = holm_adjust(np.array([recs[i]["p_value"] for i in family])) if family else []
        for r in recs:
            r["p_holm"] = float(r["p_value"])  # the oracle row: Holm over a family of one
        for i, p in zip(family, holm, strict=True):
            recs[i]["p_holm"] = float(p)
        for r in recs:
            r["verdict"] = effect_verdict(
                r["lift_pct"], r["ci_low"], r["ci_high"], r["p_value"], r["p_holm"]
            )
        for r in recs:
            r["data_source"] = data_source
            r["share_of_oracle"] = (
                None if oracle is None else share_of_oracle(r["lift_pct"], oracle)
            )
        return recs


def run_ablation(
    train: pd.DataFrame,
    valid: pd.DataFrame | None,
    test: pd.DataFrame,
    feature_sets: dict[str, list[str]],
    rows: Sequence[AblationRow],
    *,
    seeds: Sequence[int] = (0, 1, 2),
    config: LambdaMARTConfig | None = None,
    n_boot: int = 2000,
    stat_seed: int = 0,
    progress: bool = True,
) -> AblationResult:
    """Train every needed feature set for every seed, evaluate on ``test``, compare each row
    (module docstring)."""
    if not seeds:
        raise ValueError("seeds must list at least one seed")
    needed = []
    for r in rows:
        for name in (r.baseline, r.variant):
            if name not in feature_sets:
                raise ValueError(f"ablation row {r} uses unknown feature set {name!r}")
            if name not in needed:
                needed.append(name)
    per_query, tie_rows, split_rows = [], [], []
    bar = tqdm(
        total=len(needed) * len(seeds), desc="ablation fits", disable=not progress, leave=False
    )
    for name in needed:
        for seed in seeds:
            model = train_lambdamart(
                train, feature_sets[name], valid=valid, seed=int(seed), config=config
            )
            s = predict_scores(model, test, feature_sets[name])
            rr_e = sale_rr(test, s, ties="expected")
            rr_i = sale_rr(test, s, ties="input_order")
            per_query.append(
                pd.DataFrame(
                    {
                        "feature_set": name,
                        "seed": int(seed),
                        "query_id": rr_e.index.to_numpy(),
                        "rr_expected": rr_e.to_numpy(),
                        "rr_input_order": rr_i.reindex(rr_e.index).to_numpy(),
                    }
                )
            )
            tie_rows.append(
                {
                    "feature_set": name,
                    "seed": int(seed),
                    "best_iteration": int(model.best_iteration or model.current_iteration()),
                    **sale_tie_prevalence(test, s),
                }
            )
            split_rows.append(
                feature_splits(model, feature_sets[name])
                .reset_index()
                .assign(feature_set=name, seed=int(seed))
            )
            bar.update()
    bar.close()
    pq = pd.concat(per_query, ignore_index=True)
    ties = (
        pd.DataFrame(tie_rows)
        .groupby("feature_set", sort=False)
        .mean(numeric_only=True)
        .drop(columns="seed")
    )
    ties["mrr_sale_expected"] = pq.groupby("feature_set", sort=False).rr_expected.mean()
    ties["mrr_sale_input_order"] = pq.groupby("feature_set", sort=False).rr_input_order.mean()
    ties = ties.reset_index()

    splits = pd.concat(split_rows, ignore_index=True)[
        ["feature_set", "seed", "feature", "splits", "gain"]
    ]

    wide_e = pq.pivot_table(index="query_id", columns=["feature_set", "seed"], values="rr_expected")
    wide_i = pq.pivot_table(
        index="query_id", columns=["feature_set", "seed"], values="rr_input_order"
    )
    out = []
    for k, r in enumerate(rows):
        b_e = wide_e[r.baseline].mean(axis=1).to_numpy()
        v_e = wide_e[r.variant].mean(axis=1).to_numpy()
        lift, lo, hi, p = paired_bootstrap_test(b_e, v_e, n_boot=n_boot, seed=stat_seed + k)
        seed_lifts = np.array(
            [100 * (wide_e[r.variant][s].mean() / wide_e[r.baseline][s].mean() - 1) for s in seeds]
        )
        b_i = wide_i[r.baseline].mean(axis=1).to_numpy()
        v_i = wide_i[r.variant].mean(axis=1).to_numpy()
        # the variant's models (every seed) on the features its baseline lacks
        added = [f for f in feature_sets[r.variant] if f not in feature_sets[r.baseline]]
        used = splits[(splits.feature_set == r.variant) & splits.feature.isin(added)]
        out.append(
            {
                "variant": r.variant,
                "baseline": r.baseline,
                "mrr_sale_base": float(b_e.mean()),
                "mrr_sale_variant": float(v_e.mean()),
                "lift_pct": lift,
                "ci_low": lo,
                "ci_high": hi,
                "p_value": p,
                "lift_seed_mean": float(seed_lifts.mean()),
                "lift_seed_std": float(seed_lifts.std(ddof=1)) if len(seeds) > 1 else 0.0,
                "lift_seed_min": float(seed_lifts.min()),
                "lift_seed_max": float(seed_lifts.max()),
                "mrr_sale_base_input_order": float(b_i.mean()),
                "mrr_sale_variant_input_order": float(v_i.mean()),
                "lift_pct_input_order": float(100 * (v_i.mean() / b_i.mean() - 1)),
                "n_queries": int(len(b_e)),
                "n_seeds": len(seeds),
                "added_splits": int(used.splits.sum()),
                "added_gain": float(used.gain.sum()),
            }
        )
    return AblationResult(table=pd.DataFrame(out), per_query=pq, ties=ties, splits=splits)
