"""Chapter 06's computed words: where each uncalibrated outcome's CI lies against its reference,
and the residual diagnosis (the zero-overlap rows' NDCG against chance, the popularity share).

Public API: :func:`words` and :data:`DEPENDS` (see :mod:`rankaudit.report.page_words`).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from rankaudit.report.prose import comparison_word, interval_phrase, share_word

__all__ = ["DEPENDS", "words"]


def _outcome(results: Mapping[str, Any], name: str) -> Mapping[str, Any]:
    for o in results["uncalibrated"]:
        if o["outcome"] == name:
            return o
    raise KeyError(f"results['uncalibrated'] has no outcome {name!r}")


def words(results: Mapping[str, Any]) -> dict[str, str]:
    """The words chapter 06 glues, from its results dict alone."""
    out = {}
    for o in results["uncalibrated"]:
        out[f"{o['outcome']}_words"] = interval_phrase(
            o["ci_low"], o["ci_high"], o["reference"], name=o["reference_name"]
        )
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
    out["rho_direction"] = "negative" if d["spearman_residual_popularity"] < 0 else "not negative"
    return out


DEPENDS = [
    *[("uncalibrated", i, f) for i in range(4) for f in (("ci_low", "ci_high"), "reference")],
    ("residual_diagnosis", None, "ndcg_zero_rows"),
    ("residual_diagnosis", None, "ndcg_other_rows"),
    ("residual_diagnosis", None, "ndcg_reversed_popularity"),
    ("residual_diagnosis", None, "share_relevant_more_popular"),
    ("residual_diagnosis", None, "share_overlap_zero"),
    ("residual_diagnosis", None, "spearman_residual_popularity"),
]
