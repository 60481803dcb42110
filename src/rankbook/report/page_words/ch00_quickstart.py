"""Chapter 00's computed words: how many sampled users have a popularity tie at the top-k
boundary, and whether that share goes up or down at cutoff 1.

Public API: :func:`words` and :data:`DEPENDS` (see :mod:`rankbook.report.page_words`).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from rankbook.report.prose import count_phrase, direction_word

__all__ = ["DEPENDS", "words"]


def words(results: Mapping[str, Any]) -> dict[str, str]:
    """The words chapter 00 glues, from its results dict alone."""
    b = results["boundary_ties"]
    change = b["share_at_1"] - b["share_at_k"]
    return {
        "tied_users_phrase": count_phrase(b["n_users_tied"], b["n_users"], "sampled users"),
        "k1_direction": direction_word(change, words=("goes up", "goes down", "stays the same")),
        "k1_comparison": direction_word(change, words=("more common", "rarer", "as common")),
    }


DEPENDS = [
    ("boundary_ties", None, "n_users_tied"),
    ("boundary_ties", None, "n_users"),
    ("boundary_ties", None, "share_at_k"),
    ("boundary_ties", None, "share_at_1"),
]
