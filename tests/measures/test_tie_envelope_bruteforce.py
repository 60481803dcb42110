"""Under ties, every measure's ``expected`` equals the mean over every tie order (enumerated),
and ``pessimistic`` / ``optimistic`` equal the smallest / largest enumerated value, so every
order lies between them.  Small lists with heavy ties, graded, negative and missing labels.

The envelope holds exactly (``pessimistic <= expected <= optimistic``, and every ordered rule
between the bounds, with no tolerance); where no tie order moves the query (tie-free lists, or
ties whose order changes nothing) every rule gives the same bits, for every family."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from rankaudit.measures.list_reference import expected_by_enumeration, measure_of_ranking
from rankaudit.measures.registry import FAMILIES, parse_measures
from rankaudit.measures.rules import RUN_TIE_RULES
from rankaudit.runs.evaluate import audit_run
from tests.measures.conftest import tables

MEASURES = parse_measures(
    "nDCG@3 nDCG nDCG(dcg='exp-log2')@4 nDCG(gains={0:0,1:5,2:1})@3 P@3 R@2 Rprec AP AP@3 RR "
    "RR@2 Success@2 Judged@3 NumRet NumRet@2 NumRel NumRelRet NumRelRet@3 RBP(p=0.7) "
    "RBP(p=0.5,rel=2)@3 RBPres(p=0.6) ERR@3 ERR(max_grade=3)@5 Bpref Bpref(rel=2) P(rel=2)@2"
)


def test_every_family_is_enumerated():
    assert {m.family for m in MEASURES} == set(FAMILIES)


@st.composite
def queries(draw):
    n = draw(st.integers(1, 7))
    scores = draw(st.lists(st.integers(0, 2), min_size=n, max_size=n))
    labels = draw(st.lists(st.one_of(st.none(), st.integers(-1, 3)), min_size=n, max_size=n))
    extra = draw(st.lists(st.integers(-1, 3), max_size=3))
    if all(lab is None for lab in labels) and not extra:
        extra = [1]
    return [float(s) for s in scores], labels, extra


@settings(max_examples=60, deadline=None, suppress_health_check=list(HealthCheck))
@given(query=queries())
def test_expected_and_bounds_equal_enumeration(query):
    scores, labels, extra = query
    docs = [f"d{i}" for i in range(len(scores))]
    judged = {d: lab for d, lab in zip(docs, labels, strict=True) if lab is not None}
    judged |= {f"x{i}": lab for i, lab in enumerate(extra)}
    run = {"q": dict(zip(docs, scores, strict=True))}
    r, q = tables(run, {"q": judged})
    audit = audit_run(r, q, MEASURES, ties=list(RUN_TIE_RULES))
    all_labels = list(judged.values())
    low, high = audit.values["pessimistic"][0], audit.values["optimistic"][0]
    for j, m in enumerate(MEASURES):
        mean, lo, hi = expected_by_enumeration(m, scores, labels, all_labels)
        assert audit.values["expected"][0, j] == pytest.approx(mean, abs=1e-12), str(m)
        assert low[j] == pytest.approx(lo, abs=1e-12), str(m)
        assert high[j] == pytest.approx(hi, abs=1e-12), str(m)
        for rule, values in audit.values.items():  # exactly, no tolerance
            assert low[j] <= values[0, j] <= high[j], (rule, str(m))
        if hi - lo <= 1e-12:  # no tie order moves this measure: one value, to the bit
            for rule, values in audit.values.items():
                assert values[0, j] == audit.values["trec_eval"][0, j], (rule, str(m))


@st.composite
def tie_free_queries(draw):
    n = draw(st.integers(1, 9))
    scores = draw(st.permutations(range(n)))
    labels = draw(st.lists(st.one_of(st.none(), st.integers(-1, 3)), min_size=n, max_size=n))
    extra = draw(st.lists(st.integers(-1, 3), max_size=3))
    if all(lab is None for lab in labels) and not extra:
        extra = [1]
    return [float(s) for s in scores], labels, extra


@settings(max_examples=60, deadline=None, suppress_health_check=list(HealthCheck))
@given(query=tie_free_queries(), level=st.integers(0, 2))
def test_tie_free_lists_every_rule_is_the_same_bits(query, level):
    """No tie: the one order's value, under every rule and for every family, to the bit, and
    the enumeration's (single) value."""
    scores, labels, extra = query
    docs = [f"d{i}" for i in range(len(scores))]
    judged = {d: lab for d, lab in zip(docs, labels, strict=True) if lab is not None}
    judged |= {f"x{i}": lab for i, lab in enumerate(extra)}
    r, q = tables({"q": dict(zip(docs, scores, strict=True))}, {"q": judged})
    audit = audit_run(r, q, MEASURES, ties=list(RUN_TIE_RULES), relevance_level=level)
    for rule, values in audit.values.items():
        assert np.array_equal(values, audit.values["trec_eval"]), rule
    for j, m in enumerate(MEASURES):
        mean, lo, hi = expected_by_enumeration(m, scores, labels, list(judged.values()), level)
        assert lo == hi == mean
        assert audit.values["trec_eval"][0, j] == pytest.approx(mean, abs=1e-12), str(m)


def test_ordered_kernel_equals_the_plain_definition():
    """Tie-free lists: the kernel under any rule is the definition applied to the ranking."""
    rng = np.random.default_rng(7)
    for _ in range(40):
        n = int(rng.integers(1, 12))
        scores = list(rng.permutation(n).astype(float))
        labels = [None if rng.random() < 0.3 else int(rng.integers(-2, 5)) for _ in range(n)]
        docs = [f"d{i}" for i in range(n)]
        judged = {d: lab for d, lab in zip(docs, labels, strict=True) if lab is not None}
        judged["extra"] = 2
        r, q = tables({"q": dict(zip(docs, scores, strict=True))}, {"q": judged})
        measures = [m for m in MEASURES if m.family != "ERR"]  # labels above max_grade=3 here
        values = audit_run(r, q, measures, ties=["input_order"]).values["input_order"][0]
        ranked = [labels[i] for i in np.argsort(-np.asarray(scores), kind="stable")]
        for j, m in enumerate(measures):
            want = measure_of_ranking(m, ranked, list(judged.values()))
            assert values[j] == pytest.approx(want, abs=1e-12), str(m)
