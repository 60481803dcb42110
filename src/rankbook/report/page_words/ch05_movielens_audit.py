"""Chapter 05's computed words: the sign of attribute overlap's move from input order to hash
and its verdict against the paper's direction (the row bootstrap's interval and p-value of the
move, :func:`rankaudit.runs.decision.effect_verdict` as a family of one, then
:func:`~rankaudit.runs.decision.claim_verdict` at the test's power at the paper's own gap,
:func:`direction_power`: "agrees with the paper" only when resolved on the paper's side,
"contradicts" only when the other side is resolved at power of at least ``MIN_POWER``, and a
verdict not resolved carries its power), the hash-vs-expectation verdicts (overlap's
recorded ``verdict``, the book's one expectation rule ``|z| <= z_agree``; every family read
at once against :func:`~rankaudit.runs.decision.family_z` of their number), the prevalence and move
comparisons between score families, the concept-sparsity sweep (its sparsest gap's verdict,
:func:`~rankaudit.runs.decision.direction_verdict` on the paired bootstrap p-value of the
input-order-minus-expectation gap over the synthetic rows, a family of one: :func:`sparse_words`)
and that gap against the paper's,
popularity at four decimals, and input order against the optimistic bound (to a stated
tolerance).

Public API: :func:`words` and :data:`DEPENDS` (see :mod:`rankbook.report.page_words`),
:func:`direction_power` and :func:`sparse_words`.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from rankaudit.runs.decision import (
    MATCHES_EXPECTATION,
    RESOLVED_ABOVE,
    RESOLVED_BELOW,
    claim_verdict,
    direction_verdict,
    effect_verdict,
    expectation_verdict,
    family_z,
)
from rankbook.ranking.power import power_paired
from rankbook.report.decision import verdict_with_power
from rankbook.report.prose import (
    comparison_word,
    count_phrase,
    direction_word,
    flag_word,
    list_phrase,
    p_value_phrase,
    power_of_ten,
)
from rankbook.report.prose_rules import threshold_word

__all__ = ["DEPENDS", "direction_power", "sparse_words", "words"]


def sparse_words(sparse: Mapping[str, Any]) -> dict[str, str]:
    """The verdict on one concept-sparsity line's gap (input order minus the expectation, in
    NDCG@10) from its two-sided paired bootstrap p-value ``gap_p`` over ``n_boot`` resamples of
    the synthetic rows (:func:`rankaudit.runs.decision.direction_verdict`, one test, no
    adjustment), and that p-value as printed (:func:`rankbook.report.prose.p_value_phrase`)."""
    p = float(sparse["gap_p"])
    return {
        "syn_sparse_verdict": direction_verdict(float(sparse["gap"]), p),
        "syn_sparse_p_phrase": p_value_phrase(
            p, int(sparse["n_boot"]), unit="bootstrap resamples", sides=2
        ),
    }


def _t2(results: Mapping[str, Any], score: str, rule: str) -> int:
    for i, line in enumerate(results["table2"]):
        if line["score"] == score and line["tie_rule"] == rule:
            return i
    raise KeyError(f"results['table2'] has no line score={score!r}, tie_rule={rule!r}")


def _ndcg(results: Mapping[str, Any], score: str, rule: str) -> float:
    return float(results["table2"][_t2(results, score, rule)]["ndcg10"])


def _index(results: Mapping[str, Any], key: str, score: str) -> int:
    for i, line in enumerate(results[key]):
        if line["score"] == score:
            return i
    raise KeyError(f"results[{key!r}] has no score {score!r}")


def _boot(results: Mapping[str, Any], score: str) -> int:
    """Index of the row-bootstrap line of ``score``'s hash NDCG@10 (its ``delta`` is the paper's
    Δ = hash − input order)."""
    for i, line in enumerate(results["row_bootstrap"]):
        if (line["score"], line["tie_rule"], line["metric"]) == (score, "hash", "ndcg10"):
            return i
    raise KeyError(f"results['row_bootstrap'] has no hash ndcg10 line for score {score!r}")


def _gap(results: Mapping[str, Any], score: str) -> float:
    """Input order minus hash, NDCG@10 (minus the paper's Δ)."""
    return -float(results["row_bootstrap"][_boot(results, score)]["delta"])


def _scores(results: Mapping[str, Any]) -> list[str]:
    return list(dict.fromkeys(line["score"] for line in results["table2"]))


def _tie(results: Mapping[str, Any], score: str) -> float:
    return float(results["prevalence"][_index(results, "prevalence", score)]["relevant_tie"])


def _direction(results: Mapping[str, Any]) -> tuple[str, str]:
    """``(claimed, reached)`` for overlap's move (Δ = hash − input order): the row bootstrap's
    CI and p-value of Δ (one comparison, so ``p_holm = p``) give the effect verdict reached; the
    paper claims the side of minus its gap (input order minus hash)."""
    boot = results["row_bootstrap"][_boot(results, "overlap")]
    p = float(boot["delta_p"])
    reached = effect_verdict(
        float(boot["delta"]), float(boot["delta_ci_low"]), float(boot["delta_ci_high"]), p, p
    )
    claimed = RESOLVED_BELOW if float(results["paper_overlap"]["gap"]) > 0 else RESOLVED_ABOVE
    return claimed, reached


def direction_power(results: Mapping[str, Any]) -> float | None:
    """The power of the test of overlap's move at the paper's own gap (Cohen, 1988):
    :func:`rankbook.ranking.power.power_paired` with ``delta`` the paper's input order minus
    hash, ``sd`` the per-row change's ``delta_sd`` and ``n`` its ``n_rows``, at the book's
    level (one comparison). None when no row moves (``delta_sd`` 0: no test to power)."""
    boot = results["row_bootstrap"][_boot(results, "overlap")]
    sd = float(boot["delta_sd"])
    if sd <= 0:
        return None
    return power_paired(float(results["paper_overlap"]["gap"]), sd, int(boot["n_rows"]))


def _direction_verdict(results: Mapping[str, Any]) -> str:
    """Overlap's move against the paper's direction (:func:`~rankaudit.runs.decision.
    claim_verdict` at :func:`direction_power`), with that power when it is not resolved
    (:func:`rankbook.report.decision.verdict_with_power`)."""
    claimed, reached = _direction(results)
    power = direction_power(results)
    return verdict_with_power(claim_verdict(claimed, reached, power), power)


def _family_within(results: Mapping[str, Any]) -> list[bool]:
    """Each family's hash mean within the family threshold (every family read at once)."""
    agree = results["hash_vs_expected"]
    z_max = family_z(len(agree))
    return [expectation_verdict(float(a["z"]), z_max=z_max) == MATCHES_EXPECTATION for a in agree]


def _deciding_z(results: Mapping[str, Any]) -> list[int]:
    """The families whose z alone decides the family words: the largest |z| (first on a tie)
    and every family outside the family threshold (each is named)."""
    agree = results["hash_vs_expected"]
    largest = max(range(len(agree)), key=lambda i: abs(float(agree[i]["z"])))
    within = _family_within(results)
    return sorted({largest, *(i for i, w in enumerate(within) if not w)})


def words(results: Mapping[str, Any]) -> dict[str, str]:
    """The words chapter 05 glues, from its results dict alone."""
    scores = _scores(results)
    gap, cen_gap = _gap(results, "overlap"), _gap(results, "centered")
    agree = results["hash_vs_expected"]
    ov = agree[_index(results, "hash_vs_expected", "overlap")]
    within = _family_within(results)
    boot = results["row_bootstrap"][_boot(results, "overlap")]
    verdict = _direction_verdict(results)
    outside = [a["score"] for a, w in zip(agree, within, strict=True) if not w]
    sparse = results["concept_sparsity"][0]
    paper_gap = results["paper_overlap"]["gap"]
    tol = results["word_tolerance"]["exact"]
    io_opt_gap = max(
        abs(_ndcg(results, s, "input_order") - _ndcg(results, s, "optimistic")) for s in scores
    )
    return {
        # the item attributes the data source recorded (a text value of the results, as read)
        "attributes": str(results["data_source"]["details"]["attributes"]),
        "overlap_change": direction_word(gap, words=("a drop", "a rise", "no change")),
        "overlap_loses": direction_word(gap, words=("loses", "gains", "changes by")),
        "direction_agrees": verdict,
        "direction_reproduces": verdict,
        "overlap_p_phrase": p_value_phrase(
            float(boot["delta_p"]), int(boot["n_boot"]), unit="bootstrap resamples", sides=2
        ),
        "ov_verdict": str(ov["verdict"]),
        # the clause with the verb the page puts after it, agreeing with the count
        "within_2se_phrase": count_phrase(
            sum(within), len(agree), "families", verb=("agrees", "agree")
        ),
        "within_2se_families": count_phrase(sum(within), len(agree), "families"),
        "outside_2se": flag_word(
            not outside,
            words=("every family agrees", f"outside: {list_phrase(outside, empty='none')}"),
        ),
        "res_tie_words": direction_word(
            _tie(results, "residualized") - _tie(results, "overlap"),
            words=(
                "leaves more exact ties, not fewer",
                "makes exact ties rarer",
                "leaves as many exact ties",
            ),
        ),
        "cen_tie_words": direction_word(
            _tie(results, "centered") - _tie(results, "overlap"),
            words=("more", "fewer", "as many"),
        ),
        "cen_move_words": direction_word(
            abs(cen_gap) - abs(gap), words=("a larger move", "a smaller move", "an equal move")
        ),
        **sparse_words(sparse),
        "syn_vs_paper": comparison_word(sparse["gap"], paper_gap),
        "syn_reach": threshold_word(
            paper_gap - sparse["gap"],
            0.0,
            inclusive=True,
            words=(
                "sparsity alone can produce a gap of the paper's size",
                "sparsity alone does not reach the paper's size in this sweep",
            ),
        ),
        "pop_four_decimals": threshold_word(
            abs(_gap(results, "popularity")),
            results["word_tolerance"]["four_decimals"],
            words=("is", "is not"),
        ),
        "io_is_opt": threshold_word(
            io_opt_gap, tol, inclusive=True, words=("is identical to", "differs from")
        ),
        "rules_vs_families": comparison_word(abs(gap), results["family_spread"]["ndcg10_range"]),
        # the tolerances in powers of ten ("5 × 10⁻⁵", "10⁻⁹"), never Python's "5e-05"
        "four_decimals_tol_text": power_of_ten(results["word_tolerance"]["four_decimals"], 0),
        "exact_tol_text": power_of_ten(tol, 0),
    }


def DEPENDS(results: Mapping[str, Any]) -> list[tuple[str, int | None, str]]:  # noqa: N802
    """The values the words read: the row-bootstrap Δs (overlap's with its p-value), the z of
    the families that decide the family words alone, Table 2's optimistic lines, the spread
    of expected NDCG@10 between families, the flags, prevalence, the sweep's sparsest gap, the
    paper's gap and the tolerances."""
    scores = _scores(results)
    return [
        *[("row_bootstrap", _boot(results, s), "delta") for s in ("overlap", "centered")],
        ("row_bootstrap", _boot(results, "popularity"), "delta"),
        *[("table2", _t2(results, s, "optimistic"), "ndcg10") for s in scores],
        ("family_spread", None, "ndcg10_range"),
        ("row_bootstrap", _boot(results, "overlap"), "delta_p"),
        *[  # the power decides the words only when the paper's side is not what was reached
            ("row_bootstrap", _boot(results, "overlap"), field)
            for field in ("delta_sd", "n_rows")
            if _direction(results)[0] != _direction(results)[1]
            and float(results["row_bootstrap"][_boot(results, "overlap")]["delta_sd"]) > 0
        ],
        *[("hash_vs_expected", i, "z") for i in _deciding_z(results)],
        ("hash_vs_expected", _index(results, "hash_vs_expected", "overlap"), "verdict"),
        ("prevalence", _index(results, "prevalence", "overlap"), "relevant_tie"),
        ("prevalence", _index(results, "prevalence", "residualized"), "relevant_tie"),
        ("prevalence", _index(results, "prevalence", "centered"), "relevant_tie"),
        ("concept_sparsity", 0, "gap"),
        ("concept_sparsity", 0, "gap_p"),
        ("paper_overlap", None, "gap"),
        ("word_tolerance", None, "exact"),
        ("word_tolerance", None, "four_decimals"),
    ]
