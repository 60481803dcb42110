"""Chapter 18's computed words: on how many measures places move between the trec_eval and
the expected leaderboard, how many pairs ties decide, which systems have the widest rank
interval on nDCG@10, which trained models are the same system as a score family, the naive
test on the simulated track (trec_eval's per-query values, every pair, Holm-adjusted over the
same pairs as the tie-aware test; and the extreme pair's unadjusted and adjusted p-values and
verdict, with the power the test had at its lead when not resolved), how many pairs each test
resolves (every verdict from
:func:`rankaudit.runs.decision.direction_verdict` at the chapter's level), how many of its rank
intervals cover every place, its first and last system under trec_eval, and how the fewer-ties
exercise's spread compares.

The counts of moved places and of tie-decided pairs per measure are written by the chapter
under ``summary``, keyed ``ndcg10``/``ap``/``rr`` (counted from the leaderboard's ``rankings``
and ``tie_decided_pairs``); rank intervals are read from the leaderboard itself.

Public API: :func:`words` and :data:`DEPENDS` (see :mod:`rankbook.report.page_words`), and
:func:`n_resolved`, the number of pairs a leaderboard's test resolves (the page prints it).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from rankaudit.runs.decision import NOT_RESOLVED, direction_verdict
from rankbook.ranking.power import power_paired
from rankbook.report.decision import verdict_with_power
from rankbook.report.prose import (
    comparison_word,
    count_phrase,
    list_phrase,
    p_value_phrase,
    plural_phrase,
)

__all__ = ["DEPENDS", "n_resolved", "words"]

_MEASURE = "nDCG@10"
_KEY = "ndcg10"  # the measure's snake_case key in ``summary``


def _intervals(board: Mapping[str, Any]) -> list[int]:
    """Indices of the leaderboard's nDCG@10 rank intervals."""
    return [i for i, r in enumerate(board["rank_intervals"]) if r["measure"] == _MEASURE]


def _widest(board: Mapping[str, Any]) -> list[str]:
    """The systems whose nDCG@10 rank interval is widest, in their expected-rule order."""
    rows = [board["rank_intervals"][i] for i in _intervals(board)]
    width = {r["run"]: float(r["worst"]) - float(r["best"]) for r in rows}
    top = max(width.values())
    order = next(
        r["order"]
        for r in board["rankings"]
        if r["measure"] == _MEASURE and r["ties"] == "expected"
    )
    return [run for run in order if width.get(run) == top]


def _n_full(board: Mapping[str, Any], n_systems: int) -> int:
    """How many nDCG@10 rank intervals cover every place (``worst - best + 1 >= n``)."""
    rows = [board["rank_intervals"][i] for i in _intervals(board)]
    return sum(float(r["worst"]) - float(r["best"]) + 1 >= n_systems for r in rows)


def _trec_eval_ndcg(sim: Mapping[str, Any]) -> list[int]:
    """Indices of the simulated track's trec_eval nDCG@10 values."""
    return [
        i
        for i, v in enumerate(sim["leaderboard"]["values"])
        if v["measure"] == _MEASURE and v["ties"] == "trec_eval"
    ]


def _first_last(sim: Mapping[str, Any]) -> tuple[str, str]:
    """trec_eval's first and last system on nDCG@10 (the first listed on a tie)."""
    rows = [sim["leaderboard"]["values"][i] for i in _trec_eval_ndcg(sim)]
    top = max(rows, key=lambda v: float(v["value"]))["run"]
    return top, min(rows, key=lambda v: float(v["value"]))["run"]


def _aware_ndcg(sim: Mapping[str, Any]) -> list[int]:
    """Indices of the simulated leaderboard's nDCG@10 pairs (the tie-aware tests)."""
    return [i for i, r in enumerate(sim["leaderboard"]["pairs"]) if r["measure"] == _MEASURE]


def _extreme_index(sim: Mapping[str, Any], top: str, bottom: str) -> int:
    """Index of the naive pair of trec_eval's first and last system."""
    pair = {top, bottom}
    for i, r in enumerate(sim["naive_trec_eval_pairs"]):
        if {r["run_a"], r["run_b"]} == pair:
            return i
    raise ValueError(f"no naive test of the pair {sorted(pair)}")


def _extreme_holm(sim: Mapping[str, Any], top: str, bottom: str) -> float:
    """The Holm-adjusted naive p-value of trec_eval's first against its last system."""
    return float(sim["naive_trec_eval_pairs"][_extreme_index(sim, top, bottom)]["p_holm"])


def _extreme_verdict(sim: Mapping[str, Any], top: str, bottom: str, alpha: float) -> str:
    """The decision standard's verdict on trec_eval's first minus its last system (naive test,
    Holm-adjusted over every pair)."""
    r = sim["naive_trec_eval_pairs"][_extreme_index(sim, top, bottom)]
    diff = float(r["diff"]) if r["run_b"] == top else -float(r["diff"])
    return direction_verdict(diff, float(r["p_holm"]), alpha=alpha)


def _extreme_power(sim: Mapping[str, Any], alpha: float) -> float | None:
    """The power of the paired test of trec_eval's first against its last system at the lead
    observed (:func:`rankbook.ranking.power.power_paired`, its per-query sd and query count), at
    Holm's first-step level ``alpha / m`` over the ``m`` naive pairs; None when the two systems
    never differ (sd 0: no test to power)."""
    t = sim["naive_trec_eval_test"]
    sd = float(t["sd_diff"])
    if sd <= 0:
        return None
    m = len(sim["naive_trec_eval_pairs"])
    return power_paired(float(t["diff"]), sd, int(t["n_queries"]), alpha=alpha / m)


def _resolved(pair: Mapping[str, Any], alpha: float) -> bool:
    """Whether a pair's Holm-adjusted test resolves its difference (decision standard)."""
    if pair["p_holm"] is None:
        return False
    verdict = direction_verdict(float(pair["diff"]), float(pair["p_holm"]), alpha=alpha)
    return verdict != NOT_RESOLVED


def n_resolved(pairs: list[Mapping[str, Any]], alpha: float, measure: str = _MEASURE) -> int:
    """How many of a leaderboard's ``pairs`` on ``measure`` have their Holm-adjusted difference
    resolved at ``alpha`` (:func:`rankaudit.runs.decision.direction_verdict`): the count a page
    prints beside its pairs table, by the rule of the page words."""
    return sum(_resolved(r, alpha) for r in pairs if r["measure"] == measure)


def _extreme_unresolved(results: Mapping[str, Any]) -> bool:
    """Whether the extreme pair's verdict is not resolved (its power is then on the page)."""
    sim = results["simulated_track"]
    top, bottom = _first_last(sim)
    alpha = float(results["params"]["alpha"])
    unresolved = _extreme_verdict(sim, top, bottom, alpha) == NOT_RESOLVED
    return unresolved and float(sim["naive_trec_eval_test"]["sd_diff"]) > 0


def words(results: Mapping[str, Any]) -> dict[str, str]:
    """The words chapter 18 glues, from its results dict alone."""
    params, summary = results["params"], results["summary"]
    board = results["movielens_leaderboard"]
    sim = results["simulated_track"]
    n_systems, n_sim = len(board["runs"]), len(sim["leaderboard"]["runs"])
    moved = summary["places_moved"]
    p_naive = sim["naive_trec_eval_test"]["p_value"]
    top, bottom = _first_last(sim)
    alpha = float(params["alpha"])
    naive = sim["naive_trec_eval_pairs"]
    aware = [sim["leaderboard"]["pairs"][i] for i in _aware_ndcg(sim)]
    p_extreme = _extreme_holm(sim, top, bottom)
    return {
        "duplicate_systems": list_phrase(
            [f"{d['model']} is the same system as {d['same_as']}" for d in results["duplicates"]],
            empty="no trained model is a score family",
        ),
        "naive_resolved": count_phrase(
            sum(_resolved(r, alpha) for r in naive), len(naive), "pairs"
        ),
        "aware_resolved": count_phrase(
            sum(_resolved(r, alpha) for r in aware), len(aware), "pairs"
        ),
        "naive_holm_text": "Holm-adjusted " + p_value_phrase(p_extreme),
        "sim_top": top,
        "sim_bottom": bottom,
        "moved_ndcg10_places": count_phrase(
            int(moved[_KEY]), n_systems, "places", verb=("moves", "move")
        ),
        "moved_measures": count_phrase(
            sum(float(v) > 0 for v in moved.values()), len(moved), "measures"
        ),
        "decided_ndcg10_pairs": count_phrase(
            summary["tie_decided_pairs"][_KEY],
            n_systems * (n_systems - 1) // 2,
            "pairs",
            verb=("is", "are"),
        ),
        "widest_systems": list_phrase(_widest(board)),
        "widest_count": plural_phrase(len(_widest(board)), "system", "systems"),
        "naive_verdict": verdict_with_power(
            _extreme_verdict(sim, top, bottom, alpha), _extreme_power(sim, alpha)
        ),
        "p_naive_text": p_value_phrase(p_naive, params["n_perm"]),
        "decided_pairs": count_phrase(
            summary["sim_tie_decided_pairs"][_KEY],
            n_sim * (n_sim - 1) // 2,
            "pairs",
            verb=("is", "are"),
        ),
        "sim_full_intervals": count_phrase(
            _n_full(sim["leaderboard"], n_sim), n_sim, "rank intervals", verb=("covers", "cover")
        ),
        "ex1_spread_word": comparison_word(
            results["fewer_ties_exercise"]["trec_eval_spread_ndcg10"],
            sim["trec_eval_spread_ndcg10"],
        ),
    }


def DEPENDS(results: Mapping[str, Any]) -> list[tuple[Any, Any, str]]:  # noqa: N802
    """The counts, every nDCG@10 rank interval's worst place (MovieLens and simulated), the
    naive p-value and level, and the two spreads."""
    summary = results["summary"]
    board, sim = results["movielens_leaderboard"], results["simulated_track"]["leaderboard"]
    paths: list[tuple[Any, Any, str]] = [
        *[("summary", "places_moved", m) for m in summary["places_moved"]],
        ("summary", "tie_decided_pairs", _KEY),
        ("summary", "sim_tie_decided_pairs", _KEY),
        *[("movielens_leaderboard", ("rank_intervals", i), "worst") for i in _intervals(board)],
        *[
            ("simulated_track", ("leaderboard", "rank_intervals", i), "worst")
            for i in _intervals(sim)
        ],
        *[
            ("simulated_track", ("leaderboard", "values", i), "value")
            for i in _trec_eval_ndcg(results["simulated_track"])
        ],
        ("simulated_track", "naive_trec_eval_test", "p_value"),
        *[  # the power is printed only beside a verdict that is not resolved
            ("simulated_track", "naive_trec_eval_test", field)
            for field in ("diff", "sd_diff")
            if _extreme_unresolved(results)
        ],
        *[
            ("simulated_track", ("naive_trec_eval_pairs", i), "p_holm")
            for i in range(len(results["simulated_track"]["naive_trec_eval_pairs"]))
        ],
        *[  # a difference of exactly 0 is never resolved, whatever its p-value
            ("simulated_track", ("leaderboard", "pairs", i), "p_holm")
            for i in _aware_ndcg(results["simulated_track"])
            if sim["pairs"][i]["diff"]
        ],
        *[("duplicates", i, "model") for i in range(len(results["duplicates"]))],
        ("params", None, "alpha"),
        ("fewer_ties_exercise", None, "trec_eval_spread_ndcg10"),
        ("simulated_track", None, "trec_eval_spread_ndcg10"),
    ]
    return paths
