"""Each chapter's computed words, as one function of its results dict.

A chapter glues what these functions return instead of building a qualitative sentence in its
own cells, so the words of a page are a function of its results file alone, and
``tests/report/test_page_words.py`` perturbs every value a word depends on (each function lists
them in :data:`DEPENDS`) and checks the word flips. Every word comes from
:mod:`rankaudit.report.prose`.

Public API: :data:`PAGE_WORDS`, :data:`DEPENDS`, and one ``<chapter>_words(results)`` per chapter.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from rankaudit.report.prose import comparison_word, interval_phrase, same_word, share_word

__all__ = ["DEPENDS", "PAGE_WORDS", "amazon_audit_words", "real_recommenders_words"]


def _outcome(results: Mapping[str, Any], name: str) -> Mapping[str, Any]:
    for o in results["uncalibrated"]:
        if o["outcome"] == name:
            return o
    raise KeyError(f"results['uncalibrated'] has no outcome {name!r}")


def amazon_audit_words(results: Mapping[str, Any]) -> dict[str, str]:
    """Chapter 06: where each uncalibrated outcome's CI lies against its reference, and the
    residual diagnosis (the zero-overlap rows' NDCG against chance, the popularity share)."""
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


def _expected_float64(results: Mapping[str, Any]) -> list[int]:
    """Indices of chapter 17's metric lines under the expected rule at full precision."""
    return [
        i
        for i, m in enumerate(results["metrics"])
        if m["ties"] == "expected" and m.get("precision", "float64") in ("float64", None)
    ]


def real_recommenders_words(results: Mapping[str, Any]) -> dict[str, str]:
    """Chapter 17: the best model by NDCG@10 (expected rule, float64) on each protocol, and
    whether the full catalog's best is "also" or "not" the best on sampled rows."""
    best: dict[str, tuple[float, str]] = {}
    for i in _expected_float64(results):
        m = results["metrics"][i]
        if m["protocol"] not in best or m["ndcg10"] > best[m["protocol"]][0]:
            best[m["protocol"]] = (float(m["ndcg10"]), str(m["model"]))
    full, sampled = best["full"][1], best["sampled"][1]
    return {"best_full": full, "best_sampled": sampled, "best_same": same_word(full, sampled)}


#: chapter stem -> its words function.
PAGE_WORDS: dict[str, Callable[[Mapping[str, Any]], dict[str, str]]] = {
    "06_amazon_audit": amazon_audit_words,
    "17_real_recommenders": real_recommenders_words,
}

#: chapter stem -> the results paths ``(key, index or None, field)`` each word depends on (or a
#: function of the results giving them): the values the flip test perturbs. A field pair
#: ``(low, high)`` is an interval, moved as a whole.
DEPENDS: dict[str, Any] = {
    "06_amazon_audit": [
        *[("uncalibrated", i, f) for i in range(4) for f in (("ci_low", "ci_high"), "reference")],
        ("residual_diagnosis", None, "ndcg_zero_rows"),
        ("residual_diagnosis", None, "ndcg_other_rows"),
        ("residual_diagnosis", None, "ndcg_reversed_popularity"),
        ("residual_diagnosis", None, "share_relevant_more_popular"),
        ("residual_diagnosis", None, "share_overlap_zero"),
        ("residual_diagnosis", None, "spearman_residual_popularity"),
    ],
    "17_real_recommenders": lambda r: [("metrics", i, "ndcg10") for i in _expected_float64(r)],
}
