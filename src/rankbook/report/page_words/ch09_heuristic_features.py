"""Chapter 09's computed words: how many heuristic features beat a random order on their own
(MRR of the sold item), how the logged order compares with the best of them, which way sold
items' NCD_lc and CosSim_lc lie against results not clicked, and how large a share of queries
have their last click in the current intent (``share_word``: few below 10%, most above 50%).

Public API: :func:`words` and :data:`DEPENDS` (see :mod:`rankbook.report.page_words`).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from rankbook.report.prose import count_phrase, share_word
from rankbook.report.prose_limits import order_word

__all__ = ["DEPENDS", "HEURISTIC", "words"]

#: the heuristic features' keys in ``single_feature_mrr_sale``.
HEURISTIC = ("ncd_lc", "cossim_lc", "ncd_l5c", "cossim_l5c")


def words(results: Mapping[str, Any]) -> dict[str, str]:
    """The words chapter 09 glues, from its results dict alone."""
    mrr = results["single_feature_mrr_sale"]
    n_beat = sum(mrr[f] > mrr["random_all_tied"] for f in HEURISTIC)
    means = results["feature_means_by_label"]
    return {
        "beat_random": count_phrase(n_beat, len(HEURISTIC), "heuristic features") + " beat",
        "logged_vs_best": order_word(
            mrr["logged_serp_order"],
            max(mrr[f] for f in HEURISTIC),
            words=("stronger than", "weaker than", "as strong as"),
        ),
        "ncd_sale_vs_none": order_word(
            means["ncd_lc"]["label_2"],
            means["ncd_lc"]["label_0"],
            words=("higher", "lower", "equal"),
        ),
        "cos_sale_vs_none": order_word(
            means["cossim_lc"]["label_2"],
            means["cossim_lc"]["label_0"],
            words=("higher", "lower", "equal"),
        ),
        "same_lc_word": share_word(results["intent_of_clicks"]["last_click_same_intent"]),
    }


DEPENDS = [
    *[("single_feature_mrr_sale", None, f) for f in (*HEURISTIC, "random_all_tied")],
    ("single_feature_mrr_sale", None, "logged_serp_order"),
    ("feature_means_by_label", "ncd_lc", "label_0"),
    ("feature_means_by_label", "ncd_lc", "label_2"),
    ("feature_means_by_label", "cossim_lc", "label_0"),
    ("feature_means_by_label", "cossim_lc", "label_2"),
    ("intent_of_clicks", None, "last_click_same_intent"),
]
