"""Chapter 03's computed words: where input order lands against the optimistic bound and the
expectation, whether the hash collision fallback was needed, whether the mean over hash seeds
agrees with the expectation (the book's one rule, ``|z| <= z_agree``,
:func:`rankaudit.runs.decision.expectation_verdict`), which rules passed the
permutation test (largest row change against the audit's ``atol``), and whether moving the
relevant item last equals the pessimistic bound (to a stated tolerance); the tolerances and the
expected collisions in powers of ten ("10⁻⁹", :func:`rankbook.report.prose.power_of_ten`).

Public API: :func:`words` and :data:`DEPENDS` (see :mod:`rankbook.report.page_words`).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from rankbook.report.prose import direction_word, flag_word, list_phrase, power_of_ten
from rankbook.report.prose_rules import threshold_word

__all__ = ["DEPENDS", "words"]


def _by_rule_key(results: Mapping[str, Any]) -> str:
    return f"mean_ndcg{results['params']['k']}_by_rule"


def _invariant(audit: Mapping[str, Any]) -> bool:
    """Row-order invariant: no row moved by more than the audit's ``atol``."""
    return threshold_word(audit["max_row_change"], audit["atol"], inclusive=True) == "below"


def words(results: Mapping[str, Any]) -> dict[str, str]:
    """The words chapter 03 glues, from its results dict alone."""
    ndcg = results[_by_rule_key(results)]
    restored = results["restored_rows"]
    tol = restored["tolerance"]
    seeds = results["hash_seed_check"]
    audits = results["rule_audit"]
    passed = [a["rule"] for a in audits if _invariant(a)]
    failed = [a["rule"] for a in audits if not _invariant(a)]
    random = next(a for a in audits if a["rule"] == "random")
    expected = next(a for a in audits if a["rule"] == "expected")
    return {
        "io_on_optimistic": threshold_word(
            abs(ndcg["input_order"] - ndcg["optimistic"]),
            tol,
            inclusive=True,
            words=("lands on", "does not land on"),
        ),
        "io_direction": direction_word(
            ndcg["input_order"] - ndcg["expected"],
            words=("overstates", "understates", "equals"),
        ),
        "fallback_words": threshold_word(
            results["collisions"]["n_collisions"],
            0,
            inclusive=True,
            words=(
                "so the item-id fallback exists for completeness, not because it was needed here",
                "so the item-id fallback was needed here",
            ),
        ),
        "seed_mean_verdict": str(seeds["verdict"]),
        "invariant_rules": list_phrase(passed, empty="no rule"),
        "failing_rules": list_phrase(failed, empty="no rule"),
        "random_verdict": flag_word(
            _invariant(random), words=("is invariant here", "is not invariant here")
        ),
        "last_is_pess": threshold_word(
            abs(restored["relevant_last"] - restored["pessimistic"]),
            tol,
            inclusive=True,
            words=("equals", "differs from"),
        ),
        "exact_tol_text": power_of_ten(tol, 0),
        "audit_atol_text": power_of_ten(expected["atol"], 0),
        "collision_bound_text": power_of_ten(results["collisions"]["expected_bound"], 1),
    }


def DEPENDS(results: Mapping[str, Any]) -> list[tuple[str, int | None, str]]:  # noqa: N802
    """The values the words read: three rule means, the collision count, the seed z and its
    threshold, every rule's largest row change, the relevant-last and pessimistic values."""
    key = _by_rule_key(results)
    return [
        (key, None, "input_order"),
        (key, None, "optimistic"),
        (key, None, "expected"),
        ("collisions", None, "n_collisions"),
        ("collisions", None, "expected_bound"),
        ("hash_seed_check", None, "verdict"),
        *[("rule_audit", i, "max_row_change") for i in range(len(results["rule_audit"]))],
        ("restored_rows", None, "relevant_last"),
        ("restored_rows", None, "pessimistic"),
        ("restored_rows", None, "tolerance"),
    ]
