"""rankaudit.checklist: six parts filled from an evaluation; verdicts follow the data."""

from __future__ import annotations

import numpy as np
import pytest

import rankaudit
from rankaudit.checklists.from_rows import SECTIONS, Checklist, checklist_template
from rankaudit.options import PermutationOptions as Perm

POLICY = {
    "evaluation": "sampled",
    "n_negatives": 30,
    "negative_sampling": "uniform",
    "exclusion": "rated items",
    "dedup": "latest",
    "seed": 42,
    "rows_shuffled": False,
}


def _rows(tied: bool, n: int = 60, m: int = 31, seed: int = 0):
    rng = np.random.default_rng(seed)
    scores = rng.integers(0, 2, (n, m)).astype(float) if tied else rng.random((n, m))
    labels = np.zeros((n, m))
    labels[:, 0] = 1
    items = np.tile(np.arange(m), (n, 1)) + 1000 * np.arange(n)[:, None]
    return scores, labels, items, np.arange(n)


def test_six_parts_in_order_with_dict_and_markdown() -> None:
    s, lab, items, users = _rows(tied=True)
    cl = rankaudit.checklist(
        s, lab, item_ids=items, user_ids=users, candidates=POLICY, permutation=Perm(5)
    )
    assert isinstance(cl, Checklist)
    assert [i.key for i in cl.items] == [k for k, _ in SECTIONS]
    d = cl.to_dict()
    assert set(d) == {"label", *[k for k, _ in SECTIONS]}
    md = cl.to_markdown()
    for _, title in SECTIONS:
        assert title in md
    assert cl._repr_markdown_() == md


def test_input_order_on_tied_relevant_first_rows_is_flagged() -> None:
    s, lab, items, users = _rows(tied=True)
    cl = rankaudit.checklist(
        s,
        lab,
        item_ids=items,
        user_ids=users,
        ties="input_order",
        candidates=POLICY,
        permutation=Perm(5),
    )
    assert (
        cl["permutation_test"].status == "warn" and not cl["permutation_test"].facts["is_invariant"]
    )
    assert cl["presort_order"].status == "warn"
    assert cl["presort_order"].facts["relevant_position_modal"] == 0
    assert cl["tie_breaking"].status == "warn"
    assert cl["sensitivity"].status == "warn" and cl["sensitivity"].facts["ndcg_range"] > 0.1
    # prevalence facts equal tie_prevalence's
    summary = rankaudit.tie_prevalence(s, lab, k=10).summary
    assert cl["tie_prevalence"].facts["relevant_tie"] == pytest.approx(
        float(summary["frac_relevant_tied"])
    )
    # every row of 0/1 scores over 31 items has a tie: "all", never a rounded "100.0%"
    assert cl["tie_prevalence"].answer.startswith("Rows with an exact tie: all;")


def test_expected_rule_passes_permutation_and_hash_discloses_key() -> None:
    s, lab, items, users = _rows(tied=True)
    exp = rankaudit.checklist(
        s,
        lab,
        item_ids=items,
        user_ids=users,
        ties="expected",
        candidates=POLICY,
        permutation=Perm(5),
    )
    assert exp["permutation_test"].status == "ok" and exp["tie_breaking"].status == "ok"
    h = rankaudit.checklist(
        s,
        lab,
        item_ids=items,
        user_ids=users,
        ties="hash",
        seed=7,
        candidates=POLICY,
        permutation=Perm(5),
    )
    assert h["permutation_test"].facts["is_invariant"]
    assert (
        "splitmix64" in h["tie_breaking"].facts["hash_key"]
        and h["tie_breaking"].facts["collisions"] == 0
    )


def _shuffled(s, lab, seed: int = 1):
    """The same rows with each row's candidates stored in a random order."""
    perm = np.random.default_rng(seed).permuted(np.tile(np.arange(s.shape[1]), (len(s), 1)), axis=1)
    return np.take_along_axis(s, perm, axis=1), np.take_along_axis(lab, perm, axis=1)


def test_no_ties_everything_ok_on_a_random_layout() -> None:
    s, lab, items, users = _rows(tied=False)
    s, lab = _shuffled(s, lab)
    cl = rankaudit.checklist(
        s,
        lab,
        item_ids=items,
        user_ids=users,
        ties="expected",
        candidates=POLICY,
        permutation=Perm(3),
    )
    assert cl.n_attention == 0, cl.to_markdown()
    assert cl["tie_prevalence"].answer.startswith("Rows with an exact tie: none;")


def test_relevant_first_with_no_ties_is_a_layout_to_attend_to() -> None:
    """The relevant item stored first is a systematic layout: ATTENTION although no tie moves
    the result on these rows (its effect grows with the ties); everything else stays OK."""
    s, lab, items, users = _rows(tied=False)
    cl = rankaudit.checklist(
        s,
        lab,
        item_ids=items,
        user_ids=users,
        ties="expected",
        candidates=POLICY,
        permutation=Perm(3),
    )
    item = cl["presort_order"]
    assert item.status == "warn", item.answer
    assert item.facts["layout"]["share_relevant_first"] == 1.0
    assert "does not change the result" in item.answer
    assert [i.key for i in cl.items if i.status == "warn"] == ["presort_order"]


def test_undisclosed_candidate_policy_is_marked() -> None:
    s, lab, items, users = _rows(tied=True)
    cl = rankaudit.checklist(
        s, lab, item_ids=items, user_ids=users, permutation=Perm(2), candidates={"n_negatives": 30}
    )
    assert cl["candidate_set"].status == "missing"
    assert "seed" in cl["candidate_set"].facts["missing"]


def test_the_candidate_item_names_the_relevant_candidate_a_policy_gives() -> None:
    """A sampled protocol holds out one relevant item; a logged SERP's relevant candidate is the
    sold item, and the item says so rather than "held-out"."""
    s, lab, items, users = _rows(tied=False, n=10)
    sampled = rankaudit.checklist(
        s, lab, item_ids=items, user_ids=users, candidates=POLICY, permutation=Perm(1)
    )["candidate_set"]
    assert "(1 held-out relevant item + 30 negatives: uniform)" in sampled.answer
    assert "sampling seed: 42." in sampled.answer
    serp = {**POLICY, "evaluation": "logged SERP", "relevant": "the sold item"}
    logged = rankaudit.checklist(
        s, lab, item_ids=items, user_ids=users, candidates=serp, permutation=Perm(1)
    )["candidate_set"]
    assert "(the sold item + 30 negatives" in logged.answer and "held-out" not in logged.answer
    assert logged.status == "ok" and logged.facts["relevant"] == "the sold item"


def test_custom_evaluator_is_audited() -> None:
    s, lab, items, users = _rows(tied=True)

    def argsort_eval(scores, labels, item_ids=None, user_ids=None):
        order = np.argsort(-scores, axis=1, kind="stable")
        ranked = np.take_along_axis(labels, order, axis=1)
        return (ranked[:, :10].sum(axis=1) > 0).astype(float)

    cl = rankaudit.checklist(
        s,
        lab,
        item_ids=items,
        user_ids=users,
        evaluator=argsort_eval,
        candidates=POLICY,
        permutation=Perm(5),
    )
    assert not cl["permutation_test"].facts["is_invariant"]
    # one unnamed measure: the sentence names it ("value") and lists no others
    perm = cl["permutation_test"]
    assert "a row's value moved by up to" in perm.answer and "the mean value by" in perm.answer
    assert "largest changes among" not in perm.answer


@pytest.mark.parametrize("ties", ["input_order", "expected"])
def test_permutation_sentence_names_the_metrics_that_moved(ties) -> None:
    """The permutation test names the metric of its largest row change and of its largest mean
    change (the evaluator returns several), as its facts record them."""
    s, lab, items, users = _rows(tied=True)
    perm = rankaudit.checklist(
        s, lab, item_ids=items, user_ids=users, ties=ties, candidates=POLICY, permutation=Perm(5)
    )["permutation_test"]
    facts = perm.facts
    by_metric = {r["metric"]: r for r in facts["by_metric"]}
    assert list(by_metric) == ["Success@10", "nDCG@10", "RR"]
    row_metric, mean_metric = facts["max_row_change_metric"], facts["max_mean_change_metric"]
    assert by_metric[row_metric]["max_row_change"] == facts["max_row_change"]
    assert by_metric[mean_metric]["max_mean_change"] == facts["max_mean_change"]
    if facts["is_invariant"]:
        assert "changed no value of Success@10, nDCG@10 or RR" in perm.answer
    else:
        assert f"a row's {row_metric} moved by up to {facts['max_row_change']:.4f}" in perm.answer
        assert f"the mean {mean_metric} by up to {facts['max_mean_change']:.4f}" in perm.answer
        assert "(the largest changes among Success@10, nDCG@10 and RR)." in perm.answer
        assert "metric moved" not in perm.answer


def test_bad_input() -> None:
    s, lab, items, _ = _rows(tied=True)
    with pytest.raises(ValueError, match="one shape"):
        rankaudit.checklist(s, lab[:, :5])
    with pytest.raises(ValueError, match="needs item_ids"):
        rankaudit.checklist(s, lab, ties="hash")


def test_template_lists_six_parts() -> None:
    text = checklist_template()
    assert all(title in text for _, title in SECTIONS)
