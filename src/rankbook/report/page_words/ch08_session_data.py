"""Chapter 08's computed words: whether this page's ``click_base`` is the calibrated one, how
the simulated log's shape compares with DIGINETICA's published figures, whether intent shifts
exceed ``p_switch`` (the shifted share of later queries is the fresh plus the returning share)
and whether clicks fall with position (position 1 against position 10).

Public API: :func:`words` and :data:`DEPENDS` (see :mod:`rankbook.report.page_words`).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from rankbook.report.prose import comparison_word
from rankbook.report.prose_limits import order_word, within_word

__all__ = ["CLICK_BASE_TOL", "DEPENDS", "words"]

#: ``click_base`` closer than this to the calibrated value counts as the calibrated value.
CLICK_BASE_TOL = 1e-9

_SEARCHES, _BUYS = "searches per session", "share of searches with a purchase"


def _shape_index(results: Mapping[str, Any], statistic: str) -> int:
    for i, row in enumerate(results["diginetica_shape"]):
        if row["statistic"] == statistic:
            return i
    raise KeyError(f"results['diginetica_shape'] has no statistic {statistic!r}")


def _shape_cmp(results: Mapping[str, Any], statistic: str) -> str:
    row = results["diginetica_shape"][_shape_index(results, statistic)]
    return comparison_word(row["this_log"], row["diginetica_published"])


def words(results: Mapping[str, Any]) -> dict[str, str]:
    """The words chapter 08 glues, from its results dict alone."""
    calibrated = results["click_base_calibrated"]
    offset = results["params"]["click_base"] - calibrated
    dyn, ctr = results["intent_dynamics"], results["position_ctr"]
    return {
        "click_base_note": within_word(
            offset,
            CLICK_BASE_TOL,
            words=("the calibrated value", f"not the calibrated {calibrated}"),
        ),
        "cps_status": within_word(
            offset,
            CLICK_BASE_TOL,
            words=("only clicks per search is calibrated", "none is calibrated on this page"),
        ),
        "sps_cmp": _shape_cmp(results, _SEARCHES),
        "buy_cmp": _shape_cmp(results, _BUYS),
        "switch_vs_p": comparison_word(dyn["fresh"] + dyn["return"], results["params"]["p_switch"]),
        "ctr_direction": order_word(
            ctr["ctr_at_1"],
            ctr["ctr_at_10"],
            words=("concentrate at the top", "concentrate at the bottom", "spread evenly"),
        ),
    }


def DEPENDS(results: Mapping[str, Any]) -> list[tuple[str, int | None, str]]:  # noqa: N802
    """click_base, the two uncalibrated shape rows, the shift shares, p_switch and the two CTRs."""
    return [
        ("params", None, "click_base"),
        ("diginetica_shape", _shape_index(results, _SEARCHES), "this_log"),
        ("diginetica_shape", _shape_index(results, _BUYS), "this_log"),
        ("intent_dynamics", None, "fresh"),
        ("intent_dynamics", None, "return"),
        ("params", None, "p_switch"),
        ("position_ctr", None, "ctr_at_1"),
        ("position_ctr", None, "ctr_at_10"),
    ]
