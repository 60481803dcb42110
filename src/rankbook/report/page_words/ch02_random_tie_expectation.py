"""Chapter 02's computed words: the worked row's standard deviation against its expectation,
whether the closed form's gaps to enumeration and scikit-learn
are within rounding (against :data:`rankbook.report.checks.EXACT_TOL`, stated on the page),
whether the Monte Carlo agrees with its expectation (the decision standard's verdict,
:func:`rankaudit.runs.decision.expectation_verdict`, its largest ``|z|`` against the family's
bound :func:`rankaudit.runs.decision.family_z`), and whether the
small rows cover several relevant items and a hit rate below 1; the tolerance in powers of ten
("10⁻⁹", :func:`rankbook.report.prose.power_of_ten`).

Public API: :func:`words` and :data:`DEPENDS` (see :mod:`rankbook.report.page_words`).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from rankaudit.runs.decision import expectation_verdict
from rankbook.report.prose import comparison_word, difference_phrase, power_of_ten
from rankbook.report.prose_rules import threshold_word

__all__ = ["DEPENDS", "words"]


def words(results: Mapping[str, Any]) -> dict[str, str]:
    """The words chapter 02 glues, from its results dict alone."""
    cf, mc, rows = results["closed_form_check"], results["monte_carlo_check"], results["small_rows"]
    worked = results["worked_row"]
    return {
        "worked_sd_vs_mean": comparison_word(worked["ndcg_sd"], worked["ndcg_expected"]),
        "worked_gap_words": difference_phrase(worked["formula_gap"]),
        "err_enum_words": difference_phrase(cf["err_enumeration"]),
        "err_sklearn_words": difference_phrase(
            cf["err_sklearn"], "scikit-learn's value", plural=False
        ),
        "rounding_words": threshold_word(
            max(cf["err_enumeration"], cf["err_sklearn"]),
            cf["tolerance"],
            inclusive=True,
            words=("floating-point rounding", "more than floating-point rounding"),
        ),
        "exact_tol_text": power_of_ten(cf["tolerance"], 0),
        "mc_verdict": expectation_verdict(mc["max_abs_z"], z_max=mc["z_chance"]),
        "multi_words": threshold_word(
            rows["share_multi_relevant"],
            0.0,
            inclusive=True,
            words=("so the general case is not tested", "so this covers the general case"),
        ),
        "tested_words": threshold_word(
            rows["n_hr_below_one"],
            0,
            inclusive=True,
            words=(
                "so the hit-rate formula is not tested by these rows",
                "so the hit-rate formula and the discount cutoff are tested, not just the "
                "full-row sum",
            ),
        ),
    }


DEPENDS = [
    ("worked_row", None, "ndcg_sd"),
    ("worked_row", None, "ndcg_expected"),
    ("closed_form_check", None, "err_enumeration"),
    ("closed_form_check", None, "err_sklearn"),
    ("closed_form_check", None, "tolerance"),
    ("monte_carlo_check", None, "max_abs_z"),
    ("monte_carlo_check", None, "z_chance"),
    ("small_rows", None, "share_multi_relevant"),
    ("small_rows", None, "n_hr_below_one"),
]
