"""Chapter 01's computed words: whether the constant scorer's stable-sort score is perfect,
whether the expectation depends on the layout, the invariance verdict of the expected rule, the
first tie block size whose expected HR@k is below 1, whether exercise 2's identity holds, and
the tolerances in powers of ten ("10⁻⁹", :func:`rankbook.report.prose.power_of_ten`).

Public API: :func:`words` and :data:`DEPENDS` (see :mod:`rankbook.report.page_words`).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from rankbook.report.prose import difference_phrase, gap_phrase, power_of_ten, same_word
from rankbook.report.prose_rules import threshold_word

__all__ = ["DEPENDS", "words"]


def _audit(results: Mapping[str, Any], rule: str) -> tuple[int, Mapping[str, Any]]:
    for i, a in enumerate(results["invariance_audit"]):
        if a["rule"] == rule:
            return i, a
    raise KeyError(f"results['invariance_audit'] has no rule {rule!r}")


def words(results: Mapping[str, Any]) -> dict[str, str]:
    """The words chapter 01 glues, from its results dict alone."""
    lay = results["all_tied_layouts"]
    _, ex = _audit(results, "expected")
    misses = [p["tie_block_size"] for p in results["sweep_expected"] if p["hr"] < 1]
    formula = results["hr_formula"]
    return {
        "io_perfect": same_word(
            min(lay["input_order_hr"], lay["input_order_ndcg"]),
            1.0,
            words=("a perfect score", "not a perfect score"),
        ),
        "ex_layout": threshold_word(
            lay["expected_layout_gap"],
            lay["tolerance"],
            inclusive=True,
            words=("do not depend", "depend"),
        ),
        "ex_verdict": threshold_word(
            ex["max_row_change"],
            ex["atol"],
            inclusive=True,
            words=("did not move at all", "moved too, which is a bug in the implementation"),
        ),
        "first_hr_below_one": (
            f"from t = {min(misses)} on" if misses else "at no block size of this sweep"
        ),
        "ex_layout_gap_words": difference_phrase(lay["expected_layout_gap"]),
        "hr_formula_gap_words": gap_phrase(formula["max_gap"], name="largest gap"),
        "ex_change_words": gap_phrase(
            ex["max_row_change"], name="largest change of a row", zero="every row exactly equal"
        ),
        "ex_move_words": gap_phrase(ex["max_row_change"], name="by", zero="not at all"),
        "hr_formula_verdict": threshold_word(
            formula["max_gap"],
            formula["tolerance"],
            inclusive=True,
            words=("holds", "does not hold"),
        ),
        "layout_tol_text": power_of_ten(lay["tolerance"], 0),
        "audit_atol_text": power_of_ten(ex["atol"], 0),
        "formula_tol_text": power_of_ten(formula["tolerance"], 0),
    }


def _first_miss_index(results: Mapping[str, Any]) -> int:
    """Index of the first sweep point with expected HR below 1 (the last one when none is):
    the points the first-miss word reads; later points cannot change it."""
    sweep = results["sweep_expected"]
    return next((j for j, p in enumerate(sweep) if p["hr"] < 1), len(sweep) - 1)


def DEPENDS(results: Mapping[str, Any]) -> list[tuple[str, int | None, str]]:  # noqa: N802
    """The values the words read: the all-tied scores, the layout gap, the expected rule's
    largest change and tolerance, the expected HR of the sweep points up to the first miss,
    and exercise 2's gap."""
    i, _ = _audit(results, "expected")
    return [
        ("all_tied_layouts", None, "input_order_hr"),
        ("all_tied_layouts", None, "input_order_ndcg"),
        ("all_tied_layouts", None, "expected_layout_gap"),
        ("all_tied_layouts", None, "tolerance"),
        ("invariance_audit", i, "max_row_change"),
        ("invariance_audit", i, "atol"),
        *[("sweep_expected", j, "hr") for j in range(_first_miss_index(results) + 1)],
        ("hr_formula", None, "max_gap"),
        ("hr_formula", None, "tolerance"),
    ]
