"""Verdict words of chapters 05, 07, 10, 11, 12, 16 and 17 on small hand-made results: each
follows the one decision standard (its family, its power, its p-value floor) and names what it
chose once.

The results here are built for the rule under test, not copied from a run: each test states
the numbers that put a verdict on one side of its threshold and moves one of them across.
"""

from __future__ import annotations

import ast
import copy

import pytest

from rankaudit.runs.decision import (
    AGREES,
    CONTRADICTS,
    MATCHES_EXPECTATION,
    NOT_RESOLVED,
    RESOLVED_ABOVE,
    RESOLVED_BELOW,
    RESOLVED_SWAP,
    SAME_ORDER,
    SWAP_VERDICTS,
    UNRESOLVED_SWAP,
    VERDICTS,
)
from rankbook.audit.recommender_maxima import float16_maxima, largest_move
from rankbook.ranking.claims import pair_half_width
from rankbook.report.decision import decision_constants
from rankbook.report.tables import table1_views
from tests.notebook_cells import NOTEBOOKS, code_cells
from tests.report.test_projector_figures import _ablation_table
from tests.words_cells import words_function

# --- chapter 05: the direction claim carries the power of its test at the paper's gap ---

_CH05_SCORES = ("overlap", "weighted", "centered", "residualized", "popularity")


def _ch05(
    verdict: str,
    power: float | None,
    *,
    gap: float = 0.05,
    gap_p: float = 0.3,
    gap_p_holm: float | None = None,
) -> dict:
    """Chapter 05's results as its words cells read them: overlap's move (Δ = hash - input
    order) with the verdict its row bootstrap reached and that test's ``power`` at the paper's
    gap 0.6, and the sparsest line of the synthetic sweep with its ``gap``, ``gap_p`` and its
    p-value after Holm over the sweep's densities (``gap_p_holm``, by default five times
    ``gap_p``)."""
    holm = min(1.0, 5 * gap_p) if gap_p_holm is None else gap_p_holm
    return {
        "item_attributes": "19 genres",
        "candidate_policy": {"n_rows_requested": 10_000, "n_eligible": 942, "n_rows": 942},
        "row_bootstrap": [
            dict(score=s, tie_rule="hash", metric="ndcg10", delta=-0.1, delta_p=0.002, n_boot=1000)
            for s in _CH05_SCORES
        ],
        "prevalence": [dict(score=s, relevant_tie=0.5) for s in _CH05_SCORES],
        "hash_vs_expected": [dict(score=s, z=0.5, z_agree=2.0) for s in _CH05_SCORES],
        "paper_overlap": {"gap": 0.6},
        "overlap_direction": {"verdict": verdict, "power": power},
        "concept_sparsity": [{"gap": gap, "gap_p": gap_p, "gap_p_holm": holm, "n_boot": 1000}],
        "word_tolerance": {"exact": 1e-9, "four_decimals": 5e-5},
        "table2": [
            dict(score=s, tie_rule=r, ndcg10=0.3)
            for s in _CH05_SCORES
            for r in ("input_order", "optimistic")
        ],
        "family_spread": {"ndcg10_range": 0.2},
    }


def test_ch05_an_unresolved_direction_reads_with_its_power():
    words = words_function("05_movielens_audit")(_ch05(NOT_RESOLVED, 0.3))
    assert words["direction_agrees"] == f"{NOT_RESOLVED} (power 0.30)"
    assert words["direction_reproduces"] == words["direction_agrees"]


def test_ch05_the_opposite_side_contradicts_only_with_power():
    words = words_function("05_movielens_audit")
    assert words(_ch05(RESOLVED_ABOVE, 0.9))["direction_agrees"] == CONTRADICTS
    assert words(_ch05(RESOLVED_ABOVE, 0.5))["direction_agrees"] == (
        f"{NOT_RESOLVED} (power 0.50)"
    )
    assert words(_ch05(RESOLVED_ABOVE, None))["direction_agrees"] == NOT_RESOLVED  # no power
    assert words(_ch05(RESOLVED_BELOW, 0.5))["direction_agrees"] == AGREES


@pytest.mark.parametrize(
    ("gap", "p", "p_holm", "verdict"),
    [
        (0.05, 2 / 1001, 10 / 1001, RESOLVED_ABOVE),
        (-0.05, 0.005, 0.025, RESOLVED_BELOW),
        (0.05, 0.03, 0.15, NOT_RESOLVED),  # resolved alone, not after Holm over the densities
        (0.05, 0.30, 1.0, NOT_RESOLVED),
    ],
)
def test_ch05_sparse_gap_reads_the_decision_verdict(gap, p, p_holm, verdict):
    """The synthetic sparse gap is judged by the decision module on its bootstrap p-value after
    Holm over the sweep's densities, not by its sign alone ("beats"/"trails") nor by its
    unadjusted p, and its p at the floor reads as the bound (and so does its Holm value, which
    is then only an upper bound too)."""
    results = _ch05(RESOLVED_BELOW, 0.9, gap=gap, gap_p=p, gap_p_holm=p_holm)
    w = words_function("05_movielens_audit")(results)
    assert w["syn_sparse_verdict"] == verdict
    floor = "p ≤ 0.002 (1,000 bootstrap resamples)"
    assert (w["syn_sparse_p_phrase"] == floor) == (p <= 2 / 1001)
    holm = "p ≤ 0.01" if p <= 2 / 1001 else f"p = {p_holm:.3f}"  # 10/1001 rounded up
    assert w["syn_sparse_holm_phrase"] == holm


# --- chapter 07: the rows an audit has, against the eligible users and the request ---


def _ch07(requested: int | None) -> dict:
    """Chapter 07's results with ``requested`` rows asked of 22,146 eligible users (the rows
    the audit has: as many as asked, at most every eligible user)."""
    perm = [{"tie_rule": r, "max_row_change": 0.0, "max_mean_change": 0.0}
            for r in ("input_order", "hash", "expected")]
    n_rows = 22_146 if requested is None else min(requested, 22_146)
    return {
        "candidate_policy": {"n_rows_requested": requested, "n_eligible": 22_146,
                             "n_rows": n_rows},
        "params": {"dataset": "amazon", "score": "weighted"},
        "data_kind": "simulated",
        "table3": {"verdict": MATCHES_EXPECTATION},
        "collisions": {"collisions": 0, "expected_collisions": 3.8e-14},
        "permutation": perm,
    }


@pytest.mark.parametrize(
    ("requested", "clause"),
    [
        (30_000, "every one of them: 22,146 rows, fewer than the 30,000 that parameter n_rows"),
        (22_146, "every one of them: 22,146 rows, exactly as many as parameter n_rows asks for"),
        (150, "the audit draws 150 of them at random, as many as parameter n_rows asks for"),
        (None, 'every one of them: 22,146 rows (parameter n_rows is "all")'),
    ],
)
def test_ch07_rows_choice_says_when_there_are_fewer_rows_than_asked(requested, clause):
    words = words_function("07_hash_seeds_vs_expectation")  # the chapter's own words cells
    assert clause in words(_ch07(requested))["rows_choice"]


@pytest.mark.parametrize(
    ("moved", "clause"),
    [
        ((), "the hash (invariant: yes) and the expectation (invariant: yes) did not move"),
        (("hash",), "but the hash (invariant: no) moved"),
        (("expected",), "but the expectation (invariant: no) moved"),
        (("hash", "expected"), "the hash (invariant: no) and the expectation (invariant: no)"),
    ],
)
def test_ch07_invariance_clause_names_the_rule_that_moved(moved, clause):
    """The hash's and the expectation's flags and the verb are one clause: a rule that moves
    reads "invariant: no" and the clause says it moved."""
    results = _ch07(30_000)
    for row in results["permutation"]:
        if row["tie_rule"] in moved:
            row["max_row_change"] = 1e-6
    inv = words_function("07_hash_seeds_vs_expectation")(results)["inv_clause"]
    assert clause in inv
    assert ("did not move at all" in inv) == (not moved)


# --- chapter 10: the sweep's verdicts count each distinct configuration once ---

_ORACLE = "Oracle_intent"


def _ch10(verdicts: list[str], *, repeat: bool = True, unused: int = 0) -> dict:
    """A sweep of two features and the oracle on distinct configurations (one per verdict, at
    ``p_return = 0``); with ``repeat``, the first configuration again at ``p_return = 0.9`` (a
    repeated grid point, not distinct); the first ``unused`` feature rows' models never split on
    the feature they add, every other row's model does."""
    rows = []
    for c, v in enumerate(verdicts):
        for feature in ("CosSim_Ref_emb", "CosSim_l5c", _ORACLE):
            verdict = RESOLVED_ABOVE if feature == _ORACLE else v
            rows.append(dict(feature=feature, p_switch=0.1 * c, p_return=0.0, lift_pct=1.0 + c,
                             ci_low=-1.0, ci_high=3.0, share_returned=0.0, verdict=verdict,
                             distinct=True, added_splits=4))
    for r in [r for r in rows if r["feature"] != _ORACLE][:unused]:
        r["added_splits"] = 0
    if repeat:  # the first configuration again at the largest p_return
        rows += [dict(r, p_return=0.9, distinct=False) for r in rows[:3]]
    brand = {"ref_emb": 0.6, "ref_txt": 0.5, "last_click": 0.4}
    return {
        "reference_check": {"reference_has_the_intents_brand": brand},
        "context_sweep": rows,
        "cosine_gap_at_largest_p_return": {"at_smallest_p_switch": 0.1, "at_largest_p_switch": 0.2},
        "cosine_gap_min_splits": {"at_smallest_p_switch": 4, "at_largest_p_switch": 4},
        "sweep_median_ci_half_width": 2.0,
    }


def _ch10_words(results: dict) -> dict:
    return words_function("10_intent_aware_features")(results)


def test_ch10_counts_distinct_points_by_their_family_verdicts():
    w = _ch10_words(_ch10([RESOLVED_ABOVE, NOT_RESOLVED]))  # 2 distinct configurations
    assert w["sweep_above"] == "2 of 4 distinct (feature, grid point) pairs are"
    assert w["oracle_above"] == "both distinct oracle points are"
    assert w["sweep_below"] == "none of the 4 are"
    assert w["sweep_summary"] == (
        "2 of 4 distinct (feature, grid point) pairs are resolved above zero, none of the 4 are "
        "resolved below zero and 2 of 4 are not resolved at this power")


def test_ch10_takeaway_names_no_empty_count_when_every_pair_is_resolved():
    every = _ch10_words(_ch10([RESOLVED_ABOVE, RESOLVED_ABOVE]))
    assert every["sweep_summary"] == (
        "all 4 distinct (feature, grid point) pairs are resolved above zero")
    mixed = _ch10_words(_ch10([RESOLVED_ABOVE, RESOLVED_BELOW]))
    assert mixed["sweep_summary"] == (
        "2 of 4 distinct (feature, grid point) pairs are resolved above zero and 2 of 4 are "
        "resolved below zero")


def test_ch10_a_count_of_one_takes_a_singular_verb():
    one = _ch10([NOT_RESOLVED, NOT_RESOLVED])
    one["context_sweep"][0]["verdict"] = RESOLVED_ABOVE
    assert _ch10_words(one)["sweep_above"] == "1 of 4 distinct (feature, grid point) pairs is"


def test_ch10_a_repeated_grid_point_moves_no_count():
    base = _ch10([RESOLVED_ABOVE, NOT_RESOLVED])
    moved = copy.deepcopy(base)
    for r in moved["context_sweep"]:
        if not r["distinct"]:
            r["verdict"] = NOT_RESOLVED
    assert _ch10_words(moved) == _ch10_words(base)


def test_ch10_says_in_how_many_rows_the_model_never_splits_on_its_feature():
    every = _ch10_words(_ch10([RESOLVED_ABOVE, NOT_RESOLVED]))
    assert every["no_split_clause"].startswith("it is positive in all 6 distinct rows")
    assert every["unused_clause"] == "each pair's model splits on the feature it adds"
    some = _ch10_words(_ch10([RESOLVED_ABOVE, NOT_RESOLVED], unused=2))
    assert some["no_split_clause"].startswith("it is 0 in 2 of 6 distinct rows")
    # what such a row measures: the ranker's draw alone, an offset its grid point shares
    assert "ranker's random draw" in some["seed_clause"] and "same offset" in some["seed_clause"]
    assert "no row on this page measures" in every["seed_clause"]
    assert some["unused_clause"].startswith("in 2 of 4 such pairs the model never splits")
    # a repeated grid point is not counted again
    base = _ch10([RESOLVED_ABOVE, NOT_RESOLVED], unused=1)
    moved = copy.deepcopy(base)
    for r in moved["context_sweep"]:
        if not r["distinct"]:
            r["added_splits"] = 0
    assert _ch10_words(moved) == _ch10_words(base)


# --- chapter 11: the words of Table 1, read by the chapter's own words cells ---

_ORACLE_ROW = "MLR + Oracle_intent"


def _t1_row(variant, baseline, lift, shift, verdict=NOT_RESOLVED, p=0.3, share=0.1):
    """A Table 1 record: ``lift`` with a CI around it, ``shift`` its move in input order."""
    return dict(variant=variant, baseline=baseline, lift_pct=lift, ci_low=lift - 2.0,
                ci_high=lift + 2.0, p_value=p, p_holm=min(1.0, 3 * p), verdict=verdict,
                share_of_oracle=share, data_source="Simulated shopping sessions",
                lift_pct_input_order=lift + shift)


def _ch11(*, oracle: bool = True) -> dict:
    """Chapter 11's results on a hand-made Table 1: three feature rows over MLR or P1, P2 and
    (``oracle``) the oracle row, whose lift moves most in input order; without it, a real log:
    no oracle row, no share of it, no oracle power."""
    rows = [
        _t1_row("P1", "MLR", 2.0, 0.1),
        _t1_row("P1 + NCD_Ref_txt", "P1", 0.5, -0.4, share=0.2),
        _t1_row("P1 + CosSim_Ref_emb", "P1", 1.0, 0.2),
        _t1_row("P2", "P1", 1.2, 0.05),
    ]
    paper = [("P1 + NCD_Ref_txt", 0.93), ("P1 + CosSim_Ref_emb", 1.08)]
    power = [dict(target=t, lift_pct=lift, power=0.3, n_needed=4000, n_queries=500)
             for t, lift in paper]
    if oracle:
        rows.append(_t1_row(_ORACLE_ROW, "MLR", 20.0, 3.0, verdict=RESOLVED_ABOVE, p=0.002))
        power.append(dict(target=_ORACLE_ROW, lift_pct=20.0, power=0.99, n_needed=30,
                          n_queries=500))
    else:
        for r in rows:
            r["share_of_oracle"] = None
    claims = [dict(claim="intent-aware text and embedding similar over P1", source="paper",
                   test="equivalence", diff_pct=0.5, p_holm=0.4, verdict=NOT_RESOLVED)]
    ties = [dict(frac_relevant_tied=0.2, best_iteration=40.0, input_order_inflation_pct=0.3)]
    design = {"smallest": dict(target="P1 + NCD_Ref_txt", n_sessions=32000),
              "largest": dict(target="P1 + CosSim_Ref_emb", n_sessions=24000)}
    return {
        "params": {"n_boot": 1000}, "embedder": "MiniLM", "table1": rows,
        "oracle_variant": _ORACLE_ROW if oracle else None, "power": power,
        "power_design": design, "power_design_record": None, "power_design_measured": [],
        "paired_claims": claims, "ties": ties,
        "ranker_tuning": {"chosen": {"num_boost_round_cap": 400}},
        "decision_standard": {
            **decision_constants(), "verdicts": list(VERDICTS),
            "swap_verdicts": list(SWAP_VERDICTS),
            "share_words": ["none", "few", "a minority", "most", "all"],
            "size_words": ["small", "not small"],
        },
    }


def _ch11_words(results: dict) -> dict:
    return words_function("11_ablation")(results)


@pytest.mark.parametrize(
    ("p", "text"),
    [(2 / 1001, "p ≤ 0.002 (1,000 bootstrap resamples)"), (0.05, "p = 0.050")],
)
def test_ch11_a_row_p_value_at_the_two_sided_floor_reads_as_a_bound(p, text):
    results = _ch11()
    results["table1"][0]["p_value"] = p  # P1 over MLR
    assert _ch11_words(results)["p_phrase_p1"] == text


def test_ch11_the_input_order_move_is_the_largest_feature_rows_not_the_oracles():
    """The oracle's lift moves by 3 points, a feature row's by at most 0.4: the sentence names
    that feature row, and its size is read against the median feature row's lift (1.1)."""
    w = _ch11_words(_ch11())
    assert w["shift_row"] == "P1 + NCD_Ref_txt"
    assert w["shift_size_word"] == "small"  # 0.4 < 0.5 * 1.1


def test_ch11_what_the_intent_rows_add_follows_p2_s_own_verdict():
    results = _ch11()
    results["table1"][3]["verdict"] = RESOLVED_ABOVE  # P2 over P1, the intent rows not resolved
    w = _ch11_words(results)
    assert w["verdict_p2"] == RESOLVED_ABOVE
    assert w["intent_verdict"] == (
        f"P1 + NCD_Ref_txt over P1: {NOT_RESOLVED} and P1 + CosSim_Ref_emb over P1: {NOT_RESOLVED}"
    )


def test_ch11_a_real_log_without_an_oracle_reads_its_own_clauses():
    w = _ch11_words(_ch11(oracle=False))
    assert w["oracle_sentence"] == "cannot be computed: this log has no latent intent"
    assert w["best_share"] == "not computed"
    assert w["power_oracle"] == "not computed (no oracle row)"
    assert w["sized_sentence"].endswith("(and there is no oracle row)")
    with_oracle = _ch11_words(_ch11())
    assert with_oracle["best_share_row"] == "P1 + NCD_Ref_txt"
    assert with_oracle["best_share"] == "0.20"
    assert with_oracle["sized_sentence"].startswith("This run is sized for the oracle")


def test_table1_views_reads_the_two_sided_floor_when_told():
    table = _ablation_table().assign(p_value=[0.2, 2 / 5000])
    records = [{"p_holm": 0.4, "share_of_oracle": 0.09}, {"p_holm": None, "share_of_oracle": None}]
    one, _ = table1_views(table, records, n_perm=4999, paper={}, paper_online={})
    two, _ = table1_views(table, records, n_perm=4999, sides=2, paper={}, paper_online={})
    assert one.loc["MLR + Oracle_intent vs MLR", "p"] == "0.0004"
    assert "≤ 0.0004 (4,999 permutations)" in two.loc["MLR + Oracle_intent vs MLR", "p"]


# --- chapter 12: a difference between two rows is judged by its own paired interval ---


def _claim(half: float, test: str = "superiority") -> dict:
    return {"claim": f"{test} {half}", "test": test, "ci_low": 0.1 - half, "ci_high": 0.1 + half}


def test_ch12_pair_half_width_reads_the_paired_differences_only():
    claims = [_claim(0.3), _claim(0.4), _claim(0.5), _claim(9.0, "equivalence")]
    assert pair_half_width(claims) == pytest.approx(0.4)
    with pytest.raises(ValueError, match="superiority"):
        pair_half_width([_claim(0.3, "equivalence")])


def _unsided_bootstrap_p(source: str) -> list[int]:
    """Lines of calls that print a bootstrap p-value (``unit="bootstrap resamples"``) without
    saying how many sides its floor has (``sides=``)."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Call):
            keys = {k.arg: k.value for k in node.keywords}
            unit = keys.get("unit")
            if isinstance(unit, ast.Constant) and unit.value == "bootstrap resamples":
                if "sides" not in keys:
                    found.append(node.lineno)
    return found


def test_unsided_bootstrap_p_is_found():
    assert _unsided_bootstrap_p('p_value_phrase(p, b, unit="bootstrap resamples")') == [1]
    assert not _unsided_bootstrap_p('p_value_phrase(p, b, unit="bootstrap resamples", sides=2)')


@pytest.mark.parametrize(
    "stem",
    [
        "06_amazon_audit",
        "10_intent_aware_features",
        "11_ablation",
        "12_sequence_models",
        "16_comparing_rankers",
    ],
)
def test_bootstrap_p_values_name_their_sides(stem):
    """A paired bootstrap p-value is two-sided (floor 2 / (B + 1)); every cell that prints one
    passes ``sides`` so its floor phrase is the right bound."""
    cells = code_cells(NOTEBOOKS / f"{stem}.md")
    assert not [(c.number, line) for c in cells for line in _unsided_bootstrap_p(c.source)]


# --- chapter 16: a sign-flip p-value at its floor is printed as the bound ---


def _ch16(p: float, n_perm: int) -> dict:
    return {
        "simulated_effects": {"v1": 0.02},
        "v1_ci_low": 1.0,
        "v1_ci_high": 3.0,
        "v1_p_value": p,
        "params": {"n_perm": n_perm},
        "decisions": {"unadjusted": {"false": 1}, "holm": {"false": 0}},
    }


def test_ch16_v1_p_value_at_its_floor_reads_as_the_bound():
    words = words_function("16_comparing_rankers")  # the chapter's own words cells
    assert words(_ch16(1 / 5001, 5000))["v1_p_text"] == "p ≤ 0.0002 (5,000 sign flips)"
    assert words(_ch16(1 / 501, 500))["v1_p_text"] == "p ≤ 0.002 (500 sign flips)"
    assert words(_ch16(0.0132, 5000))["v1_p_text"] == "p = 0.013"


def _rounded_p_columns(source: str) -> list[str]:
    """p-value columns a cell rounds for display (``.round({"p_value": 3})``): rounding prints a
    Monte Carlo p at its floor as a measured value ("0.002", "0.0000") with no count of draws."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Attribute)
            and node.func.attr == "round"
            and node.args
            and isinstance(node.args[0], ast.Dict)
        ):
            found += [
                k.value
                for k in node.args[0].keys
                if isinstance(k, ast.Constant) and str(k.value).startswith("p_")
            ]
    return found


def test_rounded_p_columns_are_found():
    assert _rounded_p_columns('t.round({"lift": 2, "p_value": 3})') == ["p_value"]
    assert not _rounded_p_columns('t.round({"lift": 2})')


@pytest.mark.parametrize(
    "stem", ["06_amazon_audit", "10_intent_aware_features", "12_sequence_models"]
)
def test_no_p_value_column_is_rounded_for_display(stem):
    cells = code_cells(NOTEBOOKS / f"{stem}.md")
    assert not [(c.number, k) for c in cells for k in _rounded_p_columns(c.source)]


def _negatives_said_as_none(source: str) -> list[str]:
    """``negative_sampling`` texts of a candidate policy that open with "none": the checklist
    prints them after "N negatives:", which then reads "29 negatives: none (...)"."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Dict):
            for key, value in zip(node.keys, node.values, strict=True):
                if (
                    isinstance(key, ast.Constant)
                    and key.value == "negative_sampling"
                    and isinstance(value, ast.Constant)
                    and str(value.value).lower().startswith("none")
                ):
                    found.append(value.value)
    return found


def test_negatives_said_as_none_are_found():
    assert _negatives_said_as_none('{"negative_sampling": "none (all shown)"}') == [
        "none (all shown)"
    ]
    assert not _negatives_said_as_none('{"negative_sampling": "all shown (no sampling)"}')


@pytest.mark.parametrize("stem", ["05_movielens_audit", "12_sequence_models"])
def test_a_candidate_policy_says_plainly_how_negatives_were_chosen(stem):
    cells = code_cells(NOTEBOOKS / f"{stem}.md")
    assert not [t for c in cells for t in _negatives_said_as_none(c.source)]


# --- chapter 17: a model chosen by a maximum is chosen once, with its numbers ---


def _ch17() -> dict:
    sweep = []
    for model, p64, p16, gap in (("a", 0.25, 0.5, 0.01), ("b", 0.5, 0.75, -0.05),
                                 ("c", 0.0625, 0.125, 0.02)):
        sweep.append(dict(model=model, protocol="full", precision="float64", prevalence=p64,
                          gap_input_order_vs_expected=0.0))
        sweep.append(dict(model=model, protocol="full", precision="float16", prevalence=p16,
                          gap_input_order_vs_expected=gap))
    metrics = []
    for protocol, model, io, ex in (("full", "a", 0.5, 0.4), ("sampled", "b", 0.7, 0.4),
                                    ("full", "b", 0.3, 0.3), ("sampled", "a", 0.3, 0.3)):
        metrics += [dict(protocol=protocol, model=model, ties="input_order", ndcg10=io,
                         precision="float64"),
                    dict(protocol=protocol, model=model, ties="expected", ndcg10=ex,
                         precision="float64")]
    return {"precision_sweep": sweep, "metrics": metrics}


def test_ch17_float16_maxima_name_a_model_with_its_own_numbers():
    f16 = float16_maxima(_ch17())
    # a and b both rise by exactly 0.25: the first in sweep order is chosen, with its own
    # prevalences
    assert (f16["f16_model"], f16["f16_prev_f64"], f16["f16_prev"]) == ("a", 0.25, 0.5)
    assert f16["f16_rise"] == pytest.approx(f16["f16_prev"] - f16["f16_prev_f64"])
    assert (f16["f16_gap_model"], f16["f16_gap"]) == ("b", -0.05)
    move = largest_move(_ch17())
    assert (move["worst_protocol"], move["worst_model"]) == ("sampled", "b")
    assert move["worst_gap"] == pytest.approx(0.3)


def _ch17_results() -> dict:
    """:func:`_ch17` with the rest its words cells read: two models, no swapped pair, both
    places settled at float64 and model b's not at float16."""
    settled = [dict(model=m, protocol="full", precision=p, settled=m == "a" or p == "float64")
               for m in ("a", "b") for p in ("float64", "float16")]
    return {
        **_ch17(),
        "params": {"alpha": 0.05},
        "ndcg_change_tol": 1e-4,
        "models": [{"name": "a"}, {"name": "b"}],
        "protocol_swaps": [dict(run_a="a", run_b="b", status=SAME_ORDER)],
        "above_floor": [dict(model="a", diff=0.1, p_holm=0.01)],
        "leads": {
            "full": dict(leader="a", runner_up="b", diff=0.02, p_holm=0.01, power=0.9),
            "sampled": dict(leader="b", runner_up="a", diff=0.01, p_holm=0.5, power=0.3),
        },
        "place_settled": settled,
    }


def test_ch17_lead_words_read_each_protocols_holm_p():
    """A lead resolved after Holm is said resolved; one that is not, not resolved, with the
    power its test had."""
    words = words_function("17_real_recommenders")(_ch17_results())
    assert words["lead_full"] == "resolved above zero"
    assert words["lead_sampled"] == "not resolved at this power (power 0.30)"


def test_ch17_words_name_the_model_whose_numbers_the_page_prints():
    """The words cells name the models by the rule of the functions whose numbers the page
    prints beside them, ties included (a and b rise by the same 0.25 in float16)."""
    words = words_function("17_real_recommenders")(_ch17_results())
    f16, move = float16_maxima(_ch17()), largest_move(_ch17())
    assert (words["f16_model"], words["f16_gap_model"]) == (f16["f16_model"], f16["f16_gap_model"])
    assert words["f16_rise"] == "rises by 25.0 percentage points"
    assert (words["worst_protocol"], words["worst_model"]) == (
        move["worst_protocol"], move["worst_model"]
    )
    assert words["settled_places"] == "both places on the full catalog are"
    assert words["unsettled_places"] == "1 of 2 places stops"


_NOISE = " (at least one order within the noise of its rows)"
_HOLM = " (both orders resolved after Holm)"


@pytest.mark.parametrize(
    ("statuses", "pairs", "phrase"),
    [
        ([SAME_ORDER], "every pair alike", "no pair is a swap, resolved or not"),
        (
            [UNRESOLVED_SWAP, SAME_ORDER],
            "1 pair oppositely, a–m0",
            "it is not a resolved swap" + _NOISE,
        ),
        ([RESOLVED_SWAP, SAME_ORDER], "1 pair oppositely, a–m0", "it is a resolved swap" + _HOLM),
        (
            [UNRESOLVED_SWAP, UNRESOLVED_SWAP],
            "2 pairs oppositely, a–m0 and a–m1",
            "neither is a resolved swap" + _NOISE,
        ),
        (
            [RESOLVED_SWAP, RESOLVED_SWAP],
            "2 pairs oppositely, a–m0 and a–m1",
            "both are resolved swaps" + _HOLM,
        ),
        (
            [RESOLVED_SWAP, UNRESOLVED_SWAP],
            "2 pairs oppositely, a–m0 and a–m1",
            "a–m0 is a resolved swap" + _HOLM + ", a–m1 is not" + _NOISE,
        ),
        (
            [UNRESOLVED_SWAP, UNRESOLVED_SWAP, UNRESOLVED_SWAP],
            "3 pairs oppositely, a–m0, a–m1 and a–m2",
            "none is a resolved swap" + _NOISE,
        ),
        (
            [RESOLVED_SWAP, RESOLVED_SWAP, RESOLVED_SWAP],
            "3 pairs oppositely, a–m0, a–m1 and a–m2",
            "all are resolved swaps" + _HOLM,
        ),
        (
            [UNRESOLVED_SWAP, RESOLVED_SWAP, RESOLVED_SWAP],
            "3 pairs oppositely, a–m0, a–m1 and a–m2",
            "a–m1 and a–m2 are resolved swaps" + _HOLM + ", a–m0 is not" + _NOISE,
        ),
        (
            [RESOLVED_SWAP, UNRESOLVED_SWAP, UNRESOLVED_SWAP],
            "3 pairs oppositely, a–m0, a–m1 and a–m2",
            "a–m0 is a resolved swap" + _HOLM + ", a–m1 and a–m2 are not" + _NOISE,
        ),
    ],
)
def test_ch17_swaps_are_named_and_read_for_any_number_of_swapped_pairs(statuses, pairs, phrase):
    """The sentence names the pairs the protocols order oppositely ("every pair alike" when there
    is none), and says which are resolved swaps in a clause whose subject and verb agree with
    none, one, two or more swapped pairs, all, none or some of them resolved."""
    results = _ch17_results()
    results["protocol_swaps"] = [
        dict(run_a="a", run_b=f"m{i}", status=s) for i, s in enumerate(statuses)
    ]
    words = words_function("17_real_recommenders")(results)
    assert words["swapped_pairs"] == pairs
    assert words["swaps_resolved"] == phrase


def test_ch17_chooses_no_model_by_a_maximum_of_its_own():
    """The page glues the numbers of the models recommender_maxima chooses (largest_move,
    float16_maxima), never a second choice made in a cell that prints a number."""
    cells = code_cells(NOTEBOOKS / "17_real_recommenders.md")
    found = [c.number for c in cells if "idxmax" in c.source or "argmax" in c.source]
    assert not found, f"chapter 17 chooses by a maximum in cells {found}"

