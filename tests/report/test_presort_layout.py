"""The pre-sort item rates the layout: relevant documents stored systematically first (or last)
where a stable sort reads the file order is ATTENTION whatever the present effect; a random
layout is not; one statistic and one sentence for the library and the command line."""

from __future__ import annotations

import json

import numpy as np
import pytest

from rankaudit.checklists.presort import (
    LAYOUT_Z,
    layout_facts,
    pairs_phrase,
    presort_item,
    share_text,
)
from rankaudit.cli import main


def _brute(offsets, scores, relevant):
    """U and the pair count by enumeration (the definition in the module docstring)."""
    u = pairs = 0
    for q in range(len(offsets) - 1):
        s, r = scores[offsets[q] : offsets[q + 1]], relevant[offsets[q] : offsets[q + 1]]
        by_score = all(s[i] >= s[i + 1] for i in range(len(s) - 1))
        for i in range(len(s)):
            for j in range(len(s)):
                if r[i] and not r[j] and (not by_score or s[i] == s[j]):
                    pairs += 1
                    u += i < j
    return u, pairs


@pytest.mark.parametrize("seed", range(6))
def test_layout_counts_equal_enumeration(seed):
    rng = np.random.default_rng(seed)
    sizes = rng.integers(0, 9, 12)
    offsets = np.concatenate([[0], np.cumsum(sizes)])
    scores = rng.integers(0, 3, offsets[-1]).astype(float)
    for q in range(0, 12, 2):  # half the queries stored by score
        lo, hi = offsets[q], offsets[q + 1]
        scores[lo:hi] = np.sort(scores[lo:hi])[::-1]
    relevant = rng.random(offsets[-1]) < 0.3
    facts = layout_facts(offsets, scores, relevant)
    assert (facts["relevant_first"], facts["pairs"]) == _brute(offsets, scores, relevant)


def _run_files(tmp_path, relevant_first: bool, n_q: int = 60, n_d: int = 20, seed: int = 0):
    """A run of distinct scores except one tie per query between docs 0 and 1 in 10% of the
    queries (few ties), lines not stored by score; doc 0 relevant.  The relevant document is
    stored first in every query, or every query's lines are stored in a random order."""
    rng = np.random.default_rng(seed)
    lines, qrels = [], []
    for q in range(n_q):
        scores = rng.permutation(n_d).astype(float)
        if q % 10 == 0:
            scores[1] = scores[0]
        order = np.arange(n_d) if relevant_first else rng.permutation(n_d)
        lines += [f"q{q} Q0 d{q}_{i} {r + 1} {scores[i]:.1f} t\n" for r, i in enumerate(order)]
        qrels.append(f"q{q} 0 d{q}_0 1\n")
    run, qrel = tmp_path / "x.run", tmp_path / "x.qrels"
    run.write_text("".join(lines))
    qrel.write_text("".join(qrels))
    return run, qrel


@pytest.mark.parametrize("relevant_first", [True, False])
def test_cli_rates_a_relevant_first_run_with_few_ties_attention(tmp_path, capsys, relevant_first):
    run, qrels = _run_files(tmp_path, relevant_first)
    assert main(["checklist", str(qrels), str(run), "--format", "json"]) == 0
    item = json.loads(capsys.readouterr().out)["checklist"]["presort_order"]
    layout = item["layout"] if "layout" in item else item["facts"]["layout"]
    if relevant_first:
        assert item["status"] == "warn", item["answer"]
        assert layout["share_relevant_first"] == 1.0 and layout["z"] > LAYOUT_Z
        assert "systematic layout" in item["answer"]
    else:
        assert item["status"] == "ok", item["answer"]
        assert abs(layout["z"]) <= LAYOUT_Z
        assert "not resolved as a systematic layout" in item["answer"]


def test_a_ranked_run_is_judged_inside_its_tie_blocks_only():
    """Lines stored by score: the order between blocks is the score's, not a layout."""
    offsets = np.array([0, 4, 8])
    scores = np.array([4.0, 3.0, 2.0, 1.0, 4.0, 3.0, 2.0, 1.0])
    relevant = np.array([True, False, False, False, True, False, False, False])
    facts = layout_facts(offsets, scores, relevant)
    assert facts["pairs"] == 0 and not facts["systematic"]
    status, answer, _ = presort_item(facts)
    assert status == "ok" and "decides no pair" in answer


def test_a_present_effect_beyond_tolerance_still_asks_for_attention():
    facts = layout_facts(np.array([0, 2]), np.array([1.0, 1.0]), np.array([False, True]))
    assert not facts["systematic"]
    assert presort_item(facts, ("warn", "moves it."))[0] == "warn"
    assert presort_item(facts, ("ok", "does not."))[0] == "ok"


def test_bad_input_is_named():
    with pytest.raises(ValueError, match="offsets must end"):
        layout_facts(np.array([0, 3]), np.zeros(2), np.zeros(2, bool))
    with pytest.raises(ValueError, match="NaN"):
        layout_facts(np.array([0, 2]), np.array([np.nan, 1.0]), np.zeros(2, bool))


def test_a_ranked_run_with_relevant_first_ties_is_systematic(tmp_path, capsys):
    """A ranked run (lines by score) whose relevant document is tied with one negative in 10%
    of the queries and stored first in each such block: the layout is systematic; the same run
    with each block stored in a random order is not."""
    for relevant_first, seed in ((True, 0), (False, 3)):
        rng = np.random.default_rng(seed)
        lines, qrels = [], []
        for q in range(120):
            scores = np.arange(10, 0, -1).astype(float)
            pos = int(rng.integers(0, 8))
            docs = [f"d{q}_n{i}" for i in range(10)]
            docs[pos] = f"d{q}_rel"
            if q % 10 == 0:  # tie the relevant document with the next line
                scores[pos + 1] = scores[pos]
                if not relevant_first and rng.random() < 0.5:
                    docs[pos], docs[pos + 1] = docs[pos + 1], docs[pos]
            lines += [
                f"q{q} Q0 {d} {r + 1} {s:.1f} t\n"
                for r, (d, s) in enumerate(zip(docs, scores, strict=True))
            ]
            qrels.append(f"q{q} 0 d{q}_rel 1\n")
        run, qrel = tmp_path / f"r{seed}.run", tmp_path / f"r{seed}.qrels"
        run.write_text("".join(lines))
        qrel.write_text("".join(qrels))
        assert main(["checklist", str(qrel), str(run), "--format", "json"]) == 0
        item = json.loads(capsys.readouterr().out)["checklist"]["presort_order"]
        layout = item["layout"] if "layout" in item else item["facts"]["layout"]
        assert layout["n_queries_stored_by_score"] == 120 and layout["pairs"] == 12
        assert layout["systematic"] is relevant_first, item["answer"]
        if relevant_first:
            assert item["status"] == "warn"


@pytest.mark.parametrize(
    ("k", "n", "phrase"),
    [
        (110, 110, "all 110 pairs"),
        (0, 110, "none of the 110 pairs"),
        (68, 110, "61.8% of 110 pairs"),
        (1, 3000, "less than 0.1% of 3,000 pairs"),
        (1999, 2000, "more than 99.9% of 2,000 pairs"),
        (2, 2, "both pairs"),
        (0, 2, "neither of the 2 pairs"),
        (1, 1, "the one pair"),
        (0, 1, "none of the 1 pair"),
    ],
)
def test_pairs_phrase_says_all_and_none_never_a_rounded_share(k, n, phrase):
    """The phrase says all N only when every pair has the relevant document first, none of the N
    only when no pair has; a share in between never prints as 100.0% or 0.0%."""
    assert pairs_phrase(k, n) == phrase


@pytest.mark.parametrize(("k", "n"), [(3, 2), (-1, 4), (0, 0), (1.5, 4), (True, 2)])
def test_pairs_phrase_refuses_what_is_no_count(k, n):
    with pytest.raises(ValueError, match="pairs_phrase"):
        pairs_phrase(k, n)


@pytest.mark.parametrize(("relevant_first", "words"), [(True, "in all "), (False, "in none of")])
def test_the_layout_sentence_says_all_or_none_of_the_pairs(relevant_first, words):
    """Every query stores its relevant document first (or last) of an unsorted list: the
    sentence counts all (or none) of the pairs, never "100.0% of"."""
    offsets = np.arange(0, 41, 4)
    scores = np.tile([1.0, 3.0, 2.0, 4.0], 10)  # not stored by score
    relevant = np.tile([relevant_first, False, False, not relevant_first], 10)
    status, answer, _ = presort_item(layout_facts(offsets, scores, relevant))
    assert f"{words}" in answer and "%" not in answer.split("(a random layout")[0], answer
    assert status == "warn"


@pytest.mark.parametrize(
    ("frac", "text"),
    [
        (1.0, "all"),
        (0.0, "none"),
        (0.623, "62.3%"),
        (0.9996, "more than 99.9%"),
        (0.0004, "less than 0.1%"),
    ],
)
def test_share_text_says_all_and_none_only_at_the_ends(frac, text):
    assert share_text(frac) == text


@pytest.mark.parametrize("frac", [-0.1, 1.5, float("nan"), True, "0.5"])
def test_share_text_refuses_what_is_no_share(frac):
    with pytest.raises(ValueError, match="share_text"):
        share_text(frac)
