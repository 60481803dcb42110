"""Adapters from other evaluation libraries' run and qrels objects (optional imports).

- ranx (Bassani, ECIR 2022): ``ranx.Run`` / ``ranx.Qrels`` (or their ``to_dict()``
  nested dicts ``{query: {docno: value}}``);
- ir_measures (MacAvaney et al., ECIR 2022): iterables of ``ScoredDoc(query_id, doc_id,
  score)`` and ``Qrel(query_id, doc_id, relevance[, iteration])`` namedtuples.

Neither library is needed to import this module; a nested dict works without ranx.  Scores
become doubles (ranx stores them as float64 already, so ties are preserved exactly).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

import numpy as np

from rankaudit.runs.tables import Qrels, Run

__all__ = ["qrels_from_ir_measures", "qrels_from_ranx", "run_from_ir_measures", "run_from_ranx"]

_RANX_HINT = "install ranx (pip install ranx) or pass a nested dict {query: {docno: value}}"


def _nested(obj: object, what: str) -> Mapping:
    if isinstance(obj, Mapping):
        return obj
    to_dict = getattr(obj, "to_dict", None)
    if to_dict is None:
        raise ValueError(
            f"{what} must be a ranx.{what.capitalize()} or a nested dict; got "
            f"{type(obj).__name__} ({_RANX_HINT})"
        )
    return to_dict()


def _flatten(nested: Mapping, what: str) -> tuple[list[str], list[str], list[object]]:
    queries: list[str] = []
    docs: list[str] = []
    values: list[object] = []
    for q, docs_of_q in nested.items():
        if not isinstance(docs_of_q, Mapping):
            raise ValueError(
                f"{what}[{q!r}] must be a dict {{docno: value}}; got {type(docs_of_q).__name__}"
            )
        queries.extend([str(q)] * len(docs_of_q))
        docs.extend(str(d) for d in docs_of_q)
        values.extend(docs_of_q.values())
    if not queries:
        raise ValueError(f"{what} is empty")
    return queries, docs, values


def run_from_ranx(run: object) -> Run:
    """A :class:`Run` from a ``ranx.Run`` or a nested dict ``{query: {docno: score}}``."""
    q, d, s = _flatten(_nested(run, "run"), "run")
    return Run.from_arrays(q, d, np.asarray(s, dtype=np.float64), source="<ranx run>")


def qrels_from_ranx(qrels: object) -> Qrels:
    """A :class:`Qrels` from a ``ranx.Qrels`` or a nested dict ``{query: {docno: label}}``."""
    q, d, r = _flatten(_nested(qrels, "qrels"), "qrels")
    return Qrels.from_arrays(q, d, np.asarray(r), source="<ranx qrels>")


def _fields(items: Iterable, names: tuple[str, str, str], what: str) -> tuple[list, list, list]:
    a: list = []
    b: list = []
    c: list = []
    for i, item in enumerate(items):
        try:
            a.append(str(getattr(item, names[0])))
            b.append(str(getattr(item, names[1])))
            c.append(getattr(item, names[2]))
        except AttributeError:
            raise ValueError(
                f"{what} item {i} has no field {names!r}: expected ir_measures namedtuples "
                "(pip install ir-measures)"
            ) from None
    if not a:
        raise ValueError(f"{what} is empty")
    return a, b, c


def run_from_ir_measures(scored_docs: Iterable) -> Run:
    """A :class:`Run` from ir_measures ``ScoredDoc(query_id, doc_id, score)`` tuples."""
    q, d, s = _fields(scored_docs, ("query_id", "doc_id", "score"), "run")
    return Run.from_arrays(q, d, np.asarray(s, dtype=np.float64), source="<ir_measures run>")


def qrels_from_ir_measures(qrels: Iterable) -> Qrels:
    """A :class:`Qrels` from ir_measures ``Qrel(query_id, doc_id, relevance, ...)`` tuples."""
    q, d, r = _fields(qrels, ("query_id", "doc_id", "relevance"), "qrels")
    return Qrels.from_arrays(q, d, np.asarray(r), source="<ir_measures qrels>")
