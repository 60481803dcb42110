"""Chapter 15's computed words: the sign-flip p-value of overlap against popularity (never
0: at its floor ``1/(B+1)`` it prints "p ≤ ..." with the number of permutations), whether the
sign of the difference survives the worst-case tie orders, and whether the held-out item is
stored first in every candidate row.

Public API: :func:`words` and :data:`DEPENDS` (see :mod:`rankbook.report.page_words`).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from rankbook.report.prose import flag_word, p_value_phrase

__all__ = ["DEPENDS", "words"]

_CMP = "comparison_popularity_vs_overlap"


def words(results: Mapping[str, Any]) -> dict[str, str]:
    """The words chapter 15 glues, from its results dict alone."""
    cmp = results[_CMP]
    share = float(results["relevant_first_share"])
    return {
        "cmp_p_phrase": p_value_phrase(cmp["p_value_sign_flip"], results["params"]["n_perm"]),
        "cmp_survives": flag_word(
            cmp["sign_survives_worst_case"], ("survives", "does not survive")
        ),
        # every row: the share is exactly 1 (a count of rows, not a rounded number)
        "relevant_first_verdict": flag_word(
            share == 1.0,
            (
                "so the held-out item is stored first in every row and wins every tie",
                "so the held-out item is not always stored first",
            ),
        ),
    }


def DEPENDS(results: Mapping[str, Any]) -> list[tuple[Any, Any, str]]:  # noqa: N802
    """The p-value (and the number of permutations when p sits at its floor), the worst-case
    survival flag and the relevant-first share."""
    paths: list[tuple[Any, Any, str]] = [
        (_CMP, None, "p_value_sign_flip"),
        (_CMP, None, "sign_survives_worst_case"),
        (None, None, "relevant_first_share"),
    ]
    n_perm = results["params"]["n_perm"]
    if results[_CMP]["p_value_sign_flip"] <= 1.0 / (n_perm + 1) * (1 + 1e-9):
        paths.append(("params", None, "n_perm"))
    return paths
