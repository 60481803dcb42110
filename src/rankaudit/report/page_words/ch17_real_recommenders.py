"""Chapter 17's computed words: the best model by NDCG@10 (expected rule, float64) on each
protocol, and whether the full catalog's best is "also" or "not" the best on sampled rows.

Public API: :func:`words` and :data:`DEPENDS` (see :mod:`rankaudit.report.page_words`).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from rankaudit.report.prose import same_word

__all__ = ["DEPENDS", "words"]


def _expected_float64(results: Mapping[str, Any]) -> list[int]:
    """Indices of chapter 17's metric lines under the expected rule at full precision."""
    return [
        i
        for i, m in enumerate(results["metrics"])
        if m["ties"] == "expected" and m.get("precision", "float64") in ("float64", None)
    ]


def words(results: Mapping[str, Any]) -> dict[str, str]:
    """The words chapter 17 glues, from its results dict alone."""
    best: dict[str, tuple[float, str]] = {}
    for i in _expected_float64(results):
        m = results["metrics"][i]
        if m["protocol"] not in best or m["ndcg10"] > best[m["protocol"]][0]:
            best[m["protocol"]] = (float(m["ndcg10"]), str(m["model"]))
    full, sampled = best["full"][1], best["sampled"][1]
    return {"best_full": full, "best_sampled": sampled, "best_same": same_word(full, sampled)}


def DEPENDS(results: Mapping[str, Any]) -> list[tuple[str, int, str]]:  # noqa: N802
    """The NDCG@10 of every expected-rule float64 line: the values the best model depends on."""
    return [("metrics", i, "ndcg10") for i in _expected_float64(results)]
