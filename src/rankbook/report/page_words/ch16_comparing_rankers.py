"""Chapter 16's computed words: whether v1 is really better in the simulation (its simulated
effect above 0), where v1's paired bootstrap interval lies against 0, v1's sign-flip p-value as
printed (at its floor ``1 / (P + 1)`` of ``P`` random flips, the bound: never "0.0002" as if
measured) and what this sample shows about false rejections under the raw rule and Holm.

Public API: :func:`words` and :data:`DEPENDS` (see :mod:`rankbook.report.page_words`).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from rankbook.report.prose import (
    direction_word,
    flag_word,
    interval_phrase,
    p_value_phrase,
    plural_phrase,
)

__all__ = ["DEPENDS", "words"]


def _rejections(n: int) -> str:
    return plural_phrase(n, "false rejection", "false rejections")


def _mt_sample(raw_false: int, holm_false: int) -> str:
    """What one sample shows: Holm removing some of the raw rule's false rejections, or not."""
    raw, holm = _rejections(raw_false), _rejections(holm_false)
    return flag_word(
        raw_false > holm_false,
        (
            f"on this sample the raw rule makes {raw} and Holm {holm}",
            f"this sample happens to show no false rejection that Holm removes (raw rule: "
            f"{raw}, Holm: {holm}); the difference is in the rate over many samples, which the "
            "last exercise estimates",
        ),
    )


def words(results: Mapping[str, Any]) -> dict[str, str]:
    """The words chapter 16 glues, from its results dict alone."""
    effect_v1 = results["data_source"]["details"]["effects"]["v1"]
    decisions = results["decisions"]
    return {
        "v1_truth": direction_word(
            effect_v1,
            words=("really better", "not better (a null variant)", "not better (a null variant)"),
        ),
        "ci_verdict": interval_phrase(results["v1_ci_low"], results["v1_ci_high"], 0.0, digits=0),
        "v1_p_text": p_value_phrase(
            results["v1_p_value"], results["params"]["n_perm"], unit="sign flips"
        ),
        "mt_sample": _mt_sample(decisions["unadjusted"]["false"], decisions["holm"]["false"]),
    }


DEPENDS = [
    ("data_source", ("details", "effects"), "v1"),
    (None, None, ("v1_ci_low", "v1_ci_high")),
    (None, None, "v1_p_value"),
    ("decisions", "unadjusted", "false"),
    ("decisions", "holm", "false"),
]
