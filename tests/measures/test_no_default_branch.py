"""No default branch: a measure code, kernel mode or rule order that a dispatch does not know is
an error there (before numba where it can be, inside it where it cannot), never computed as
another measure's or rule's value."""

from __future__ import annotations

from types import SimpleNamespace

import numpy as np
import pytest

from rankaudit.measures.list_kernels import N_CODES, list_expected_kernel, list_ordered_kernel
from rankaudit.measures.list_reference import measure_of_ranking
from rankaudit.measures.list_support import (
    ListDocs,
    QueryJudgments,
    list_tables,
    score_order_kernel,
)
from rankaudit.measures.registry import measure_spec, parse_measure


def _one_query():
    offsets = np.array([0, 4], np.int64)
    scores = np.array([1.0, 1.0, 0.5, 0.2])
    order, _ = score_order_kernel(offsets, scores)
    labels = np.array([1, 0, 2, 0], np.int64)
    docs = ListDocs(offsets, order, scores, labels, np.ones(4, np.bool_))
    judg = QueryJudgments(np.array([0, 4], np.int64), np.array([2, 1, 0, 0], np.int64))
    return docs, judg


@pytest.mark.parametrize("code", [N_CODES, -1])
def test_the_list_kernels_refuse_a_code_they_do_not_know(code):
    docs, judg = _one_query()
    spec = measure_spec([parse_measure("AP")], 1)
    spec = spec._replace(codes=np.array([code], np.int64))
    out = np.zeros((1, 1))
    tables = list_tables(4)
    with pytest.raises(ValueError, match="do not know this measure code"):
        list_ordered_kernel(docs, judg, spec, tables, np.zeros(4, np.int32), out)
    with pytest.raises(ValueError, match="do not know this measure code"):
        list_expected_kernel(docs, judg, spec, tables, out)


def test_every_known_code_is_computed_by_both_list_kernels():
    """Each code the kernels accept has a branch in both (a code with none would leave its
    output as it was): every registered family fills a NaN-initialised output."""
    from rankaudit.measures.registry import FAMILIES

    docs, judg = _one_query()
    names = []
    for name, fam in FAMILIES.items():
        cut = "@3" if fam.cutoff != "none" else ""
        names.append(parse_measure(f"{name}{cut}"))
    assert {m.code for m in names} == set(range(N_CODES))
    spec = measure_spec(names, 1)
    for kernel in (list_ordered_kernel, list_expected_kernel):
        out = np.full((1, len(names)), np.nan)
        args = (np.zeros(4, np.int32),) if kernel is list_ordered_kernel else ()
        kernel(docs, judg, spec, list_tables(4), *args, out)
        assert np.all(np.isfinite(out)), (kernel.__name__, names)


def test_measure_spec_refuses_a_code_before_the_kernels():
    with pytest.raises(ValueError, match="the kernels know no code 99"):
        measure_spec([SimpleNamespace(code=99)], 1)


def test_the_plain_reference_refuses_a_family_it_does_not_define():
    odd = SimpleNamespace(family="Found", cutoff=3, level=lambda level: level, param=None)
    with pytest.raises(ValueError, match="no declared family 'Found'"):
        measure_of_ranking(odd, [1, 0], [1])
