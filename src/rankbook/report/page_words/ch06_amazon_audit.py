"""Chapter 06's computed words: where each uncalibrated outcome's CI lies against its reference,
how many of those that exclude it stay resolved after Holm within the outcomes
(:func:`rankaudit.runs.decision.direction_verdict` on the Holm-adjusted p-value),
the residual diagnosis (the zero-overlap rows' NDCG against chance, the popularity share), the
data kind and preset, the direction of the residualized score's change from input order to the
hash rule, whether the input-order gap grows with tie prevalence across the two presets, and
the calibrated share ``q`` of rows whose relevant item scores 0 (``share_word``).

Public API: :func:`words` and :data:`DEPENDS` (see :mod:`rankbook.report.page_words`).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from rankaudit.runs.decision import ALPHA, NOT_RESOLVED, direction_verdict
from rankbook.report.prose import (
    comparison_word,
    count_phrase,
    direction_word,
    interval_phrase,
    list_phrase,
    plural_phrase,
    share_word,
)
from rankbook.report.prose_limits import order_word

__all__ = ["DEPENDS", "words"]


def _outcome(results: Mapping[str, Any], name: str) -> Mapping[str, Any]:
    for o in results["uncalibrated"]:
        if o["outcome"] == name:
            return o
    raise KeyError(f"results['uncalibrated'] has no outcome {name!r}")


def _table2(results: Mapping[str, Any], score: str, rule: str) -> int:
    for i, line in enumerate(results["table2"]):
        if line["score"] == score and line["tie_rule"] == rule:
            return i
    raise KeyError(f"results['table2'] has no line for {score!r} under {rule!r}")


def _regime(results: Mapping[str, Any], preset: str) -> int:
    for i, line in enumerate(results["tie_regimes"]):
        if line["preset"] == preset and line["score"] == "weighted":
            return i
    raise KeyError(f"results['tie_regimes'] has no weighted line for preset {preset!r}")


def _extra(results: Mapping[str, Any]) -> dict[str, str]:
    t2 = results["table2"]
    change = (
        t2[_table2(results, "residualized", "hash")]["ndcg10"]
        - t2[_table2(results, "residualized", "input_order")]["ndcg10"]
    )
    dense, paper = (results["tie_regimes"][_regime(results, p)] for p in ("dense", "paper_regime"))
    tied = order_word(dense["relevant_tie"], paper["relevant_tie"])
    gap = order_word(
        dense["ndcg_input_order"] - dense["ndcg_expected"],
        paper["ndcg_input_order"] - paper["ndcg_expected"],
    )
    simulated = results["data_source"]["kind"] != "real"
    return {
        "kind": "SIMULATED" if simulated else "real",
        "preset_name": results["params"]["preset"] if simulated else "none (real data)",
        "res_direction": direction_word(change),
        "gap_follows": "grows with" if tied == gap != "level with" else "does not grow with",
        "q_share": share_word(results["paper_calibration"]["q"]),
    }


def _excludes(o: Mapping[str, Any]) -> bool:
    """Whether an outcome's CI excludes its reference."""
    return float(o["ci_low"]) > float(o["reference"]) or float(o["ci_high"]) < float(o["reference"])


def _holm_words(results: Mapping[str, Any]) -> str:
    """How many of the outcomes whose CI excludes its reference stay resolved after Holm within
    all the outcomes (:func:`rankaudit.runs.decision.direction_verdict` on ``p_holm``), naming
    those that do not."""
    outcomes = results["uncalibrated"]
    family = plural_phrase(len(outcomes), "comparison", "comparisons")
    excluding = [o for o in outcomes if _excludes(o)]
    if not excluding:
        return (
            f"no interval excludes its reference, so Holm's adjustment within the {family} "
            "has nothing to resolve"
        )
    lost = [
        o["outcome"]
        for o in excluding
        if direction_verdict(
            float(o["value"]) - float(o["reference"]), float(o["p_holm"]), alpha=ALPHA
        )
        == NOT_RESOLVED
    ]
    noun = "intervals that exclude their reference"
    if len(excluding) == 1:
        noun = "interval that excludes its reference"
    head = count_phrase(
        len(excluding) - len(lost),
        len(excluding),
        noun,
        verb=("stays resolved", "stay resolved"),
    )
    tail = f" (not resolved after it: {list_phrase(lost)})" if lost else ""
    return f"{head} after Holm's adjustment within the {family}{tail}"


def words(results: Mapping[str, Any]) -> dict[str, str]:
    """The words chapter 06 glues, from its results dict alone."""
    out = {}
    for o in results["uncalibrated"]:
        out[f"{o['outcome']}_words"] = interval_phrase(
            o["ci_low"], o["ci_high"], o["reference"], name=o["reference_name"]
        )
    out["holm_words"] = _holm_words(results)
    model = _outcome(results, "hash_ndcg_vs_model")["reference"]
    out["model_vs_paper"] = comparison_word(
        round(model, 4), _outcome(results, "hash_ndcg")["reference"]
    )
    d = results["residual_diagnosis"]
    chance = _outcome(results, "residualized_vs_chance")["reference"]
    out["zero_rows_vs_chance"] = comparison_word(d["ndcg_zero_rows"], chance)
    out["other_rows_vs_chance"] = comparison_word(d["ndcg_other_rows"], chance)
    out["reversed_pop_vs_chance"] = comparison_word(d["ndcg_reversed_popularity"], chance)
    out["more_popular_share"] = share_word(d["share_relevant_more_popular"])
    out["zero_share"] = share_word(d["share_overlap_zero"])
    out["rho_direction"] = direction_word(
        d["spearman_residual_popularity"], words=("not negative", "negative", "not negative")
    )
    return {**out, **_extra(results)}


def DEPENDS(results: Mapping[str, Any]) -> list[tuple[str, Any, Any]]:  # noqa: N802
    """The uncalibrated outcomes, the residual diagnosis, the residualized Table 2 cells, the
    weighted lines of both presets and the calibrated ``q``."""
    out: list[tuple[str, Any, Any]] = [
        *[
            ("uncalibrated", i, f)
            for i in range(len(results["uncalibrated"]))
            for f in (("ci_low", "ci_high"), "reference")
        ],
        *[
            ("uncalibrated", i, "p_holm")
            for i, o in enumerate(results["uncalibrated"])
            if _excludes(o)
        ],
        *[
            ("residual_diagnosis", None, f)
            for f in (
                "ndcg_zero_rows",
                "ndcg_other_rows",
                "ndcg_reversed_popularity",
                "share_relevant_more_popular",
                "share_overlap_zero",
                "spearman_residual_popularity",
            )
        ],
        ("table2", _table2(results, "residualized", "hash"), "ndcg10"),
        ("table2", _table2(results, "residualized", "input_order"), "ndcg10"),
        ("paper_calibration", None, "q"),
    ]
    for preset in ("dense", "paper_regime"):
        i = _regime(results, preset)
        out += [("tie_regimes", i, "relevant_tie"), ("tie_regimes", i, "ndcg_input_order")]
    return out
