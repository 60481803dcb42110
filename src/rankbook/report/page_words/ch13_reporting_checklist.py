"""Chapter 13's computed words: whether its Amazon rows and scores are chapter 06's (their
fingerprints equal), how those rows were chosen from the eligible users
(:func:`rankbook.report.page_words.ch07_hash_seeds_vs_expectation.rows_choice`), the
input-order checklist's permutation-test status, and how many audits are sensitive to the tie
rule (NDCG@10 range across rules above the stated ``tolerance``), as clauses whose verb agrees
with the count (``count_phrase(..., verb=...)``).

Public API: :func:`words` and :data:`DEPENDS` (see :mod:`rankbook.report.page_words`).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from rankbook.report.page_words.ch07_hash_seeds_vs_expectation import rows_choice
from rankbook.report.prose import count_phrase, flag_word, same_word

__all__ = ["DEPENDS", "words"]

#: the status words of the checklist's table (``rankaudit.checklists.from_rows``): OK / ATTENTION.
_STATUS = ("OK", "ATTENTION")
_STABLE = "checklist_input_order_movielens_overlap"


def _same_rows_note(ours: str, theirs: str | None) -> str:
    if theirs is None:
        return "Chapter 6's row file is not there yet (run Chapter 6 first to compare)"
    same = same_word(ours, theirs, words=("the same", "not the same"))
    return f"they are {same} rows and scores as in Chapter 6's results folder"


def words(results: Mapping[str, Any]) -> dict[str, str]:
    """The words chapter 13 glues, from its results dict alone."""
    invariant = results[_STABLE]["permutation_test"]["facts"]["is_invariant"]
    n_sensitive = sum(
        float(cl["sensitivity"]["facts"]["ndcg_range"]) > float(results["tolerance"])
        for cl in results["checklist"].values()
    )
    n = len(results["checklist"])
    return {
        "same_rows_note": _same_rows_note(
            results["amazon_rows_fingerprint"], results["chapter06_rows_fingerprint"]
        ),
        "amazon_rows_choice": rows_choice(results["amazon_candidate_policy"], "n_rows_amazon"),
        "stable_perm_status": flag_word(invariant, _STATUS),
        # each clause with the verb the page puts after it, agreeing with the count
        "sensitive_audits": count_phrase(n_sensitive, n, "audits", verb=("is", "are")),
        "sensitive_audits_exceed": count_phrase(
            n_sensitive, n, "audits", verb=("exceeds", "exceed")
        ),
        "sensitive_audits_move": count_phrase(n_sensitive, n, "audits", verb=("moves", "move")),
    }


def DEPENDS(results: Mapping[str, Any]) -> list[tuple[Any, Any, str]]:  # noqa: N802
    """The two fingerprints (ours only matters once chapter 06's exists), the invariance flag
    of the input-order checklist's permutation test, every audit's NDCG@10 range and the
    tolerance."""
    paths: list[tuple[Any, Any, str]] = [
        (None, None, "chapter06_rows_fingerprint"),
        (_STABLE, ("permutation_test", "facts"), "is_invariant"),
        ("amazon_candidate_policy", None, "n_rows_requested"),
    ]
    paths += [
        ("checklist", (key, "sensitivity", "facts"), "ndcg_range") for key in results["checklist"]
    ]
    paths.append((None, None, "tolerance"))
    if results["chapter06_rows_fingerprint"] is not None:
        paths.append((None, None, "amazon_rows_fingerprint"))
    return paths
