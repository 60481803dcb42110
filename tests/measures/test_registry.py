"""The measure registry: one spelling (ir_measures'), its aliases, parameters, and errors that
name the closest known name."""

from __future__ import annotations

from dataclasses import replace

import pytest

from rankaudit.measures.registry import (
    FAMILIES,
    Measure,
    describe_measures,
    parse_measure,
    parse_measures,
    register_family,
    unregister_family,
)


@pytest.mark.parametrize(
    ("text", "canonical"),
    [
        ("nDCG@10", "nDCG@10"),
        ("ndcg@10", "nDCG@10"),  # ranx
        ("ndcg_cut.10", "nDCG@10"),  # trec_eval
        ("ndcg_cut_10", "nDCG@10"),  # pytrec_eval's key
        ("ndcg_burges@5", "nDCG(dcg='exp-log2')@5"),  # ranx
        ("nDCG(dcg='exp-log2')@10", "nDCG(dcg='exp-log2')@10"),
        ("nDCG(dcg='log2')@10", "nDCG@10"),  # a default is not spelled out
        ("nDCG(gains={0:0,1:1,2:3})@10", "nDCG(gains={2:3})@10"),  # identity entries dropped
        ("nDCG(gains={0:0,1:1,2:3}, dcg='log2', judged_only=False)@10", "nDCG(gains={2:3})@10"),
        ("HR@10", "Success@10"),
        ("hit_rate@10", "Success@10"),  # ranx
        ("hits@10", "NumRelRet@10"),  # ranx: a count
        ("P_10", "P@10"),
        ("precision@5", "P@5"),
        ("map", "AP"),
        ("map_cut.100", "AP@100"),
        ("map@100", "AP@100"),
        ("mrr", "RR"),
        ("recip_rank", "RR"),
        ("RR@10", "RR@10"),
        ("r-precision", "Rprec"),
        ("Rprec(rel=2)", "Rprec(rel=2)"),
        ("bpref", "Bpref"),
        ("RBP", "RBP"),
        ("RBP(p=0.8)", "RBP"),
        ("rbp.95", "RBP(p=0.95)"),  # ranx
        ("RBP(p=0.5, rel=2)@10", "RBP(p=0.5, rel=2)@10"),
        ("ERR@20", "ERR@20"),
        ("Judged@10", "Judged@10"),
        ("num_rel_ret", "NumRelRet"),
        ("NumRet(rel=2)", "NumRelRet(rel=2)"),  # ir_measures
    ],
)
def test_spellings(text, canonical):
    measure = parse_measure(text)
    assert str(measure) == canonical
    assert parse_measure(str(measure)) == measure  # the canonical spelling reads back


def test_ir_measures_objects_are_accepted():
    ir_measures = pytest.importorskip("ir_measures")
    cases = [
        (ir_measures.nDCG @ 10, "nDCG@10"),
        (ir_measures.nDCG(dcg="exp-log2") @ 10, "nDCG(dcg='exp-log2')@10"),
        (ir_measures.nDCG(gains={0: 0, 1: 1, 2: 3}) @ 10, "nDCG(gains={2:3})@10"),
        (ir_measures.Bpref(rel=2), "Bpref(rel=2)"),
        (ir_measures.RBP(p=0.5), "RBP(p=0.5)"),
        (ir_measures.Judged @ 5, "Judged@5"),
        (ir_measures.AP @ 100, "AP@100"),
        (ir_measures.ERR @ 20, "ERR@20"),
    ]
    for obj, canonical in cases:
        assert str(parse_measure(obj)) == canonical


@pytest.mark.parametrize(
    ("text", "words"),
    [
        ("nDGC@10", "did you mean 'nDCG'"),
        ("Succes@10", "did you mean 'Success'"),
        ("nDCG(dcgg='x')@10", "did you mean 'dcg'"),
        ("RBP(pp=0.5)", "did you mean 'p'"),
        ("nDCG(dcg='exp')@10", "'exp-log2'"),
        ("P", "needs a cutoff"),
        ("Rprec@5", "takes no cutoff"),
        ("RBP(p=1.5)", "(0, 1)"),
        ("nDCG@0", "the cutoff of nDCG"),
        ("nDCG@ten", "is not an integer"),
        ("nDCG(gains=[1,2])@10", "dict"),
        ("nDCG(gains={1:'a'})@10", "finite number"),
        ("P(rel=-1)@10", "rel"),
        ("nDCG(judged_only=True)@10", "judged_only=True is not supported"),
        ("nDCG(dcg=log2)@10", "literal"),
        ("nDCG(1)@10", "named"),
        # a repeated keyword or map key was accepted, one of the two silently winning
        ("nDCG(gains={1:2}, gains={1:3})@3", "parameter 'gains' is given twice"),
        ("RBP(p=0.5, p=0.9)", "parameter 'p' is given twice"),
        ("RBP(p=0.5, rel=1, p=0.5)", "parameter 'p' is given twice"),
        ("nDCG(gains={1:2, 1:3})@3", "gains= holds a key twice"),
        ("RBP(**{'p': 0.5})", "named"),
    ],
)
def test_errors_name_the_problem(text, words):
    with pytest.raises(ValueError, match=None) as info:
        parse_measure(text)
    assert words in str(info.value), str(info.value)


def test_lists_split_on_commas_and_blanks_outside_parentheses():
    ms = parse_measures("nDCG@10, P@5 nDCG(gains={0:0, 1:2})@10  RBP(p=0.5, rel=2)")
    assert [str(m) for m in ms] == ["nDCG@10", "P@5", "nDCG(gains={1:2})@10", "RBP(p=0.5, rel=2)"]


def test_two_spellings_of_one_measure_are_a_duplicate():
    with pytest.raises(ValueError, match="given twice"):
        parse_measures(["HR@10", "Success@10"])


def test_help_lists_every_family_with_its_parameters():
    text = describe_measures()
    for name, fam in FAMILIES.items():
        assert name in text
        for p in fam.params:
            assert f"{p.name}=" in text


def test_measures_are_hashable_values():
    assert Measure("nDCG", 10) == parse_measure("ndcg_cut.10")
    assert len({parse_measure("RBP"), parse_measure("RBP(p=0.8)")}) == 1


def test_every_spelling_is_read_in_any_case():
    """One spelling out (ir_measures'), every spelling in: a family's name and each alias in
    lower, upper or mixed case, HR@k for Success@k, and an alias declared capitalised."""
    for family in FAMILIES.values():
        for spelled in (family.name, *family.aliases):
            cut = "@5" if family.cutoff == "required" else ""
            want = str(parse_measure(family.name + cut))
            for text in (spelled.lower(), spelled.upper(), spelled.swapcase()):
                assert str(parse_measure(text + cut)) == want, text
    for text in ("HR@10", "hr@10", "Hr@10", "HIT_RATE@10"):
        assert str(parse_measure(text)) == "Success@10"
    success = FAMILIES["Success"]
    register_family(replace(success, name="Toy", aliases=("ToyRate",)))
    try:
        assert str(parse_measure("TOYRATE@3")) == str(parse_measure("toyrate@3")) == "Toy@3"
    finally:
        unregister_family("Toy")
