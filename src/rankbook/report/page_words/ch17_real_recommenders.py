"""Chapter 17's computed words: the best model by NDCG@10 (expected rule, float64) on each
protocol, whether the full catalog's best is "also" or "not" the best on sampled rows, how many
models change place between the protocols, how many places on the full catalog are settled
by the scores at float64 and how many stop being so somewhere in the precision sweep, and the
names chosen by a maximum (the largest move from the expectation to input order; in float16,
the largest rise of tie prevalence over float64, with that rise in words, and the largest move),
how many of the pairs the two protocols order
oppositely a paired test resolves in both (each side's verdict from
:func:`rankaudit.runs.decision.direction_verdict`, Holm within each protocol's pairs; the pair's
from :func:`rankaudit.runs.decision.swap_verdict`), and how many trained models are resolved
above the random floor on the full catalog (:func:`~rankaudit.runs.decision.direction_verdict`).

Public API: :func:`words` and :data:`DEPENDS` (see :mod:`rankbook.report.page_words`), and
:func:`largest_move` and :func:`float16_maxima`, the names chosen by a maximum with their
numbers (the page glues those numbers from them, so each name is chosen once).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from rankaudit.runs.decision import (
    RESOLVED_ABOVE,
    RESOLVED_SWAP,
    SAME_ORDER,
    UNRESOLVED_SWAP,
    direction_verdict,
    swap_verdict,
)
from rankbook.report.prose import count_phrase, list_phrase, same_word, signed_phrase

__all__ = ["DEPENDS", "float16_maxima", "largest_move", "words"]


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
    n_models = len(results["models"])
    return {
        "best_full": full,
        "best_sampled": sampled,
        "best_same": same_word(full, sampled),
        "models_moved": count_phrase(
            _n_moved(results), n_models, "models", verb=("changes", "change")
        ),
        "settled_places": count_phrase(
            sum(bool(results["place_settled"][i]["settled"]) for i in _settled_f64(results)),
            n_models,
            "places on the full catalog",
            verb=("is", "are"),
        ),
        "unsettled_places": count_phrase(
            len(_unsettled_models(results)), n_models, "places", verb=("stops", "stop")
        ),
        **_largest(results),
        **_swap_words(results),
        **_floor_words(results),
    }


def _statuses(results: Mapping[str, Any]) -> list[str]:
    """Each ``protocol_swaps`` record's status, recomputed from its numbers and the level by the
    decision standard: each protocol's verdict, then the pair's."""
    alpha = float(results["params"]["alpha"])
    out = []
    for r in results["protocol_swaps"]:
        v_full = direction_verdict(r["diff_full"], r["p_holm_full"], alpha=alpha)
        v_sampled = direction_verdict(r["diff_sampled"], r["p_holm_sampled"], alpha=alpha)
        out.append(swap_verdict(r["diff_full"], v_full, r["diff_sampled"], v_sampled))
    return out


def _swap_words(results: Mapping[str, Any]) -> dict[str, str]:
    """How many swaps (pairs ordered oppositely by the protocols) are resolved, and the names
    of the unresolved ones ("a and b" per pair)."""
    status = _statuses(results)
    swaps = [s for s in status if s != SAME_ORDER]
    unresolved = [
        f"{r['run_a']}–{r['run_b']}"
        for r, s in zip(results["protocol_swaps"], status, strict=True)
        if s == UNRESOLVED_SWAP
    ]
    return {
        "swaps_resolved": (
            count_phrase(
                swaps.count(RESOLVED_SWAP),
                len(swaps),
                "swapped pairs" if len(swaps) > 1 else "swapped pair",
                verb=("is a resolved swap", "are resolved swaps"),
            )
            if swaps
            else "no pair is a resolved swap (the protocols order every pair alike)"
        ),
        "unresolved_swaps": list_phrase(unresolved, empty="none"),
    }


def _floor_words(results: Mapping[str, Any]) -> dict[str, str]:
    """How many trained models are resolved above the floor model on the full catalog (a
    positive difference with Holm-adjusted p at most the level), and which are not."""
    alpha = float(results["params"]["alpha"])
    rows = results["above_floor"]
    above = [
        direction_verdict(float(r["diff"]), float(r["p_holm"]), alpha=alpha) == RESOLVED_ABOVE
        for r in rows
    ]
    return {
        "above_floor": count_phrase(sum(above), len(rows), "trained models"),
        "not_above_floor": list_phrase(
            [r["model"] for r, a in zip(rows, above, strict=True) if not a], empty="none"
        ),
    }


def _input_order_float64(results: Mapping[str, Any]) -> list[int]:
    """Indices of chapter 17's metric lines under input order at full precision."""
    return [
        i
        for i, m in enumerate(results["metrics"])
        if m["ties"] == "input_order" and m.get("precision", "float64") in ("float64", None)
    ]


def _float16(results: Mapping[str, Any], precision: str = "float16") -> list[int]:
    """Indices of the full catalog's float16 (or ``precision``) records of the precision sweep."""
    return [
        i
        for i, r in enumerate(results["precision_sweep"])
        if r["protocol"] == "full" and r["precision"] == precision
    ]


def _f16_rises(results: Mapping[str, Any]) -> list[tuple[str, float]]:
    """``(model, float16 prevalence - float64 prevalence)`` on the full catalog, in sweep order:
    the ties the number format adds to each model's."""
    sweep = results["precision_sweep"]
    at64 = {sweep[i]["model"]: float(sweep[i]["prevalence"]) for i in _float16(results, "float64")}
    return [
        (sweep[i]["model"], float(sweep[i]["prevalence"]) - at64[sweep[i]["model"]])
        for i in _float16(results)
    ]


def largest_move(results: Mapping[str, Any]) -> dict[str, Any]:
    """The (protocol, model) whose NDCG@10 moves most from the expectation to input order at
    float64 (first in (protocol, model) order on a tie): ``worst_protocol``, ``worst_model``
    and that move, ``worst_gap`` (input order minus expected). Reads ``results["metrics"]``
    only, so the page can call it on its metric lines before it writes its results file: the
    name in the words and the number beside it come from this one choice."""
    ndcg = {
        (m["protocol"], m["model"], m["ties"]): float(m["ndcg10"])
        for m in (
            results["metrics"][i]
            for i in _input_order_float64(results) + _expected_float64(results)
        )
    }
    keys = sorted({(p, m) for p, m, _ in ndcg})
    gaps = {k: ndcg[(*k, "input_order")] - ndcg[(*k, "expected")] for k in keys}
    worst = max(keys, key=lambda k: abs(gaps[k]))
    return {"worst_protocol": worst[0], "worst_model": worst[1], "worst_gap": gaps[worst]}


def float16_maxima(results: Mapping[str, Any]) -> dict[str, Any]:
    """In float16 on the full catalog: the model whose tie prevalence rises most over float64
    (first in sweep order on a tie), ``f16_model``, that rise ``f16_rise`` (a share) and its two
    prevalences ``f16_prev``/``f16_prev_f64``; and the model with the largest |input order -
    expected|, ``f16_gap_model``, with that gap ``f16_gap``. Reads ``results["precision_sweep"]``
    only (the page calls it on the same records before writing them): each name and the
    numbers beside it come from this one choice."""
    sweep = results["precision_sweep"]
    at64 = {sweep[i]["model"]: float(sweep[i]["prevalence"]) for i in _float16(results, "float64")}
    at16 = [sweep[i] for i in _float16(results)]
    rise_model, rise = max(_f16_rises(results), key=lambda mr: mr[1])
    f16 = next(r for r in at16 if r["model"] == rise_model)
    gap16 = max(at16, key=lambda r: abs(float(r["gap_input_order_vs_expected"])))
    return {
        "f16_model": rise_model,
        "f16_rise": rise,
        "f16_prev": float(f16["prevalence"]),
        "f16_prev_f64": at64[rise_model],
        "f16_gap_model": gap16["model"],
        "f16_gap": float(gap16["gap_input_order_vs_expected"]),
    }


def _largest(results: Mapping[str, Any]) -> dict[str, str]:
    """The names :func:`largest_move` and :func:`float16_maxima` chose, and the float16 rise in
    percentage points in words (:func:`rankbook.report.prose.signed_phrase`)."""
    move, f16 = largest_move(results), float16_maxima(results)
    return {
        "worst_protocol": move["worst_protocol"],
        "worst_model": move["worst_model"],
        "f16_model": f16["f16_model"],
        "f16_rise": signed_phrase(100 * f16["f16_rise"], " percentage points", digits=1),
        "f16_gap_model": f16["f16_gap_model"],
    }


def _n_moved(results: Mapping[str, Any]) -> int:
    """How many models take another place (rank by NDCG@10, ties at the smallest rank) on
    sampled rows than on the full catalog."""
    ndcg: dict[str, dict[str, float]] = {}
    for i in _expected_float64(results):
        m = results["metrics"][i]
        ndcg.setdefault(m["protocol"], {})[m["model"]] = float(m["ndcg10"])

    def rank(protocol: str, model: str) -> int:
        values = ndcg[protocol]
        return 1 + sum(v > values[model] for v in values.values())

    return sum(rank("full", model) != rank("sampled", model) for model in ndcg["full"])


def _full(results: Mapping[str, Any]) -> list[int]:
    return [i for i, r in enumerate(results["place_settled"]) if r["protocol"] == "full"]


def _settled_f64(results: Mapping[str, Any]) -> list[int]:
    """Indices of the full catalog's float64 ``place_settled`` records."""
    return [i for i in _full(results) if results["place_settled"][i]["precision"] == "float64"]


def _unsettled_models(results: Mapping[str, Any]) -> set[str]:
    """Models whose full-catalog place is not settled at some precision of the sweep."""
    return {
        results["place_settled"][i]["model"]
        for i in _full(results)
        if not results["place_settled"][i]["settled"]
    }


def DEPENDS(results: Mapping[str, Any]) -> list[tuple[str, int, str]]:  # noqa: N802
    """The NDCG@10 of every expected-rule float64 line (the best model and the moves), the
    float64 settled flags, and each sweep flag that alone decides whether its model is
    unsettled somewhere (a model unsettled at two precisions stays so when one flag moves)."""
    records = results["place_settled"]
    unsettled_count: dict[str, int] = {}
    for i in _full(results):
        if not records[i]["settled"]:
            unsettled_count[records[i]["model"]] = unsettled_count.get(records[i]["model"], 0) + 1
    deciding = [
        i
        for i in _full(results)
        if records[i]["precision"] != "float64"
        and unsettled_count.get(records[i]["model"], 0) <= (0 if records[i]["settled"] else 1)
    ]
    alpha = float(results["params"]["alpha"])
    swaps = [
        (i, r)
        for i, r in enumerate(results["protocol_swaps"])
        if (r["diff_full"] > 0) != (r["diff_sampled"] > 0)
        and r["diff_full"] != 0
        and r["diff_sampled"] != 0
    ]
    floor = list(enumerate(results["above_floor"]))
    return [
        *[
            ("protocol_swaps", i, "diff_full")
            for i, r in enumerate(results["protocol_swaps"])
            if r["diff_sampled"] != 0
        ],
        *[("protocol_swaps", i, "p_holm_full") for i, r in swaps if r["p_holm_sampled"] <= alpha],
        *[("protocol_swaps", i, "p_holm_sampled") for i, r in swaps if r["p_holm_full"] <= alpha],
        *[("above_floor", i, "p_holm") for i, r in floor if r["diff"] > 0],
        *[("above_floor", i, "diff") for i, r in floor if r["p_holm"] <= alpha],
        *[("metrics", i, "ndcg10") for i in _expected_float64(results)],
        *[("metrics", i, "ndcg10") for i in _input_order_float64(results)],
        *[("precision_sweep", i, "prevalence") for i in _float16(results)],
        *[("precision_sweep", i, "prevalence") for i in _float16(results, "float64")],
        *[("precision_sweep", i, "gap_input_order_vs_expected") for i in _float16(results)],
        *[("place_settled", i, "settled") for i in _settled_f64(results)],
        *[("place_settled", i, "settled") for i in deciding],
    ]
