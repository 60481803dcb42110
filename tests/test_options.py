"""The typed option groups of the public API: built and checked once, and a keyword that moved
into a group is refused by name (a TypeError naming its new place), never accepted silently."""

from __future__ import annotations

import inspect
import re

import numpy as np
import pandas as pd
import pytest

import rankaudit
import rankaudit.distributed as rd
from rankaudit import LongColumns
from rankaudit.options import CHECKLIST_KEYWORDS, DEFAULT_COLUMNS, LONG_COLUMN_KEYWORDS


def _frame():
    return pd.DataFrame(
        {
            "q": [1, 1, 2, 2],
            "doc": ["a", "b", "c", "d"],
            "s": [1.0, 1.0, 0.5, 0.2],
            "rel": [1, 0, 0, 1],
        }
    )


def test_long_columns_name_the_table():
    cols = LongColumns(row="q", item="doc", score="s", label="rel")
    got = rankaudit.evaluate(_frame(), k=2, ties="hash", columns=cols)
    assert got["q"].tolist() == [1, 2] and got.attrs["ties"] == "hash"
    with pytest.raises(ValueError, match="LongColumns.score='points' is not a column"):
        rankaudit.evaluate(_frame(), columns=LongColumns(row="q", score="points"))
    assert DEFAULT_COLUMNS == LongColumns("row_id", "item_id", "score", "label", None)


@pytest.mark.parametrize("field", ["row", "score", "label"])
def test_a_required_column_name_is_a_non_empty_string(field):
    with pytest.raises(ValueError, match=f"LongColumns.{field} must be a non-empty string"):
        LongColumns(**{field: None})
    with pytest.raises(ValueError, match=f"LongColumns.{field}"):
        LongColumns(**{field: ""})


def test_columns_must_be_the_option_class():
    with pytest.raises(ValueError, match="columns must be a LongColumns; got dict"):
        rankaudit.evaluate(_frame(), columns={"row": "q"})


@pytest.mark.parametrize(
    "function", [rankaudit.evaluate, rd.evaluate, rankaudit.tie_prevalence, rd.tie_prevalence]
)
@pytest.mark.parametrize("old", sorted(LONG_COLUMN_KEYWORDS))
def test_a_moved_keyword_names_its_new_place(function, old):
    field = old.removesuffix("_col")
    with pytest.raises(TypeError, match=rf"{old}= is now columns=LongColumns\({field}=\.\.\.\)"):
        function(_frame(), **{old: "q"})


def test_the_signatures_stay_small_and_show_the_groups():
    params = inspect.signature(rankaudit.evaluate).parameters
    assert "columns" in params and not any(name.endswith("_col") for name in params)
    assert len(params) <= 13  # scores, labels and eleven keywords
    assert not any(name.endswith("_col") for name in inspect.signature(rd.evaluate).parameters)


def test_the_common_call_is_unchanged():
    scores = np.array([[1.0, 1.0, 0.0]])
    labels = np.array([[0, 1, 0]])
    got = rankaudit.evaluate(scores, labels, k=2)
    assert got["RR"].item() == pytest.approx(0.75)


def test_tie_prevalence_reads_the_same_columns():
    cols = LongColumns(row="q", item="doc", score="s", label="rel")
    got = rankaudit.tie_prevalence(_frame(), k=1, columns=cols)
    assert got.summary["n_rows"] == 2 and got.summary["frac_any_tie"] == 0.5


def _rows():
    rng = np.random.default_rng(0)
    scores = rng.integers(0, 2, (12, 6)).astype(float)
    labels = np.zeros((12, 6))
    labels[:, 0] = 1
    return scores, labels


@pytest.mark.parametrize("old", sorted(CHECKLIST_KEYWORDS))
def test_a_moved_checklist_keyword_names_its_option(old):
    scores, labels = _rows()
    place = re.escape(CHECKLIST_KEYWORDS[old])
    with pytest.raises(TypeError, match=rf"{old}= is now {place}"):
        rankaudit.checklist(scores, labels, **{old: 2})


def test_the_checklist_reads_its_options():
    scores, labels = _rows()
    report = rankaudit.checklist(
        scores,
        labels,
        permutation=rankaudit.PermutationOptions(n_permutations=3, seed=7),
        sensitivity=rankaudit.SensitivityOptions(rules="expected, optimistic", tolerance=0.5),
    )
    perm = report["permutation_test"].facts
    assert (perm["n_permutations"], perm["permutation_seed"]) == (3, 7)
    sens = report["sensitivity"].facts
    assert list(sens["by_rule"]) == ["expected", "optimistic"] and sens["tolerance"] == 0.5
    with pytest.raises(ValueError, match="permutation must be a PermutationOptions; got dict"):
        rankaudit.checklist(scores, labels, permutation={"n_permutations": 3})
    with pytest.raises(ValueError, match="sensitivity must be a SensitivityOptions; got tuple"):
        rankaudit.checklist(scores, labels, sensitivity=("hash",))


def test_checklist_options_check_their_fields():
    with pytest.raises(ValueError, match="PermutationOptions.n_permutations"):
        rankaudit.PermutationOptions(0)
    with pytest.raises(ValueError, match="PermutationOptions.seed"):
        rankaudit.PermutationOptions(seed=1.5)
    with pytest.raises(ValueError, match="SensitivityOptions.rules: ties='trec_eval'"):
        rankaudit.SensitivityOptions(rules=("expected", "trec_eval"))
    with pytest.raises(ValueError, match="SensitivityOptions.rules: a tie rule is given twice"):
        rankaudit.SensitivityOptions(rules=("hash", "hash"))
    with pytest.raises(ValueError, match="SensitivityOptions.tolerance"):
        rankaudit.SensitivityOptions(tolerance=-1)
    assert rankaudit.SensitivityOptions(rules=["hash"]).rules == ("hash",)


def _run_and_qrels():
    from rankaudit.runs.tables import Qrels, Run

    scores, labels = _rows()
    n, m = scores.shape
    q = np.repeat([f"q{i:02d}" for i in range(n)], m)
    d = np.tile([f"d{j}" for j in range(m)], n)
    run = Run.from_arrays(q, d, scores.reshape(-1))
    return run, Qrels.from_arrays(q, d, labels.reshape(-1).astype(int))


@pytest.mark.parametrize("old", sorted(CHECKLIST_KEYWORDS))
def test_a_moved_run_checklist_keyword_names_its_option(old):
    run, qrels = _run_and_qrels()
    place = re.escape(CHECKLIST_KEYWORDS[old])
    message = rf"run_checklist\(\) no longer takes {old}= is now {place}"
    with pytest.raises(TypeError, match=message):
        rankaudit.run_checklist(run, qrels, **{old: 2})


def test_the_run_checklist_reads_the_same_options():
    run, qrels = _run_and_qrels()
    report = rankaudit.run_checklist(
        run,
        qrels,
        permutation=rankaudit.PermutationOptions(n_permutations=2, seed=7),
        sensitivity=rankaudit.SensitivityOptions(tolerance=0.5),
    )
    perm = report["permutation_test"].facts
    assert (perm["n_permutations"], perm["permutation_seed"]) == (2, 7)
    assert report["sensitivity"].facts["tolerance"] == 0.5
    with pytest.raises(ValueError, match="permutation must be a PermutationOptions; got int"):
        rankaudit.run_checklist(run, qrels, permutation=5)
    with pytest.raises(ValueError, match="sensitivity.rules does not apply to run_checklist"):
        rankaudit.run_checklist(run, qrels, sensitivity=rankaudit.SensitivityOptions(rules="hash"))
