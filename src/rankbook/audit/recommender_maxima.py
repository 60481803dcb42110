"""Chapter 17's models chosen by a maximum, each with the numbers that chose it.

Chapter 17 names a model chosen by a largest value and prints that value beside the name: the
(protocol, model) whose NDCG@10 moves most from the expectation over tie orders to input order
(:func:`largest_move`), and in float16 on the full catalog the model whose tie prevalence rises
most over float64 and the model whose input order departs most from the expectation
(:func:`float16_maxima`). The page glues the numbers from these functions; its words cell names
the models by the same rule from the results file (``tests/report/test_verdict_words.py`` checks
that both choose the same model, ties included: the first in the stated order).

Both read the records the chapter's results file keeps (``metrics``, ``precision_sweep``), so the
page calls them on those records before it writes the file.

Public API: :func:`largest_move`, :func:`float16_maxima`.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

__all__ = ["float16_maxima", "largest_move"]


def _float64(record: Mapping[str, Any]) -> bool:
    """True for a metric line at full precision (a line without a precision is float64)."""
    return record.get("precision", "float64") in ("float64", None)


def largest_move(results: Mapping[str, Any]) -> dict[str, Any]:
    """The (protocol, model) whose NDCG@10 moves most from the expectation to input order at
    float64 (first in (protocol, model) order on a tie): ``worst_protocol``, ``worst_model``
    and that move, ``worst_gap`` (input order minus expected). Reads ``results["metrics"]``
    only."""
    ndcg = {
        (m["protocol"], m["model"], m["ties"]): float(m["ndcg10"])
        for m in results["metrics"]
        if m["ties"] in ("input_order", "expected") and _float64(m)
    }
    keys = sorted({(p, m) for p, m, _ in ndcg})
    gaps = {k: ndcg[(*k, "input_order")] - ndcg[(*k, "expected")] for k in keys}
    worst = max(keys, key=lambda k: abs(gaps[k]))
    return {"worst_protocol": worst[0], "worst_model": worst[1], "worst_gap": gaps[worst]}


def float16_maxima(results: Mapping[str, Any]) -> dict[str, Any]:
    """In float16 on the full catalog: the model whose tie prevalence rises most over float64
    (first in sweep order on a tie), ``f16_model``, that rise ``f16_rise`` (a share) and its two
    prevalences ``f16_prev``/``f16_prev_f64``; and the model with the largest |input order -
    expected| (first in sweep order on a tie), ``f16_gap_model``, with that gap ``f16_gap``.
    Reads ``results["precision_sweep"]`` only."""
    full = [r for r in results["precision_sweep"] if r["protocol"] == "full"]
    at64 = {r["model"]: float(r["prevalence"]) for r in full if r["precision"] == "float64"}
    at16 = [r for r in full if r["precision"] == "float16"]
    rise = max(at16, key=lambda r: float(r["prevalence"]) - at64[r["model"]])
    gap = max(at16, key=lambda r: abs(float(r["gap_input_order_vs_expected"])))
    return {
        "f16_model": rise["model"],
        "f16_rise": float(rise["prevalence"]) - at64[rise["model"]],
        "f16_prev": float(rise["prevalence"]),
        "f16_prev_f64": at64[rise["model"]],
        "f16_gap_model": gap["model"],
        "f16_gap": float(gap["gap_input_order_vs_expected"]),
    }
