"""Words from a number against a stated limit, and from a choice among names.

Companion of :mod:`rankbook.report.prose` (same contract: every word is a predicate of a
computed value and a threshold the page states, and flips when the value crosses it).

Limits    ``within_word(v, limit)``: ``words[0]`` when ``|v| <= limit`` ("yes" when a
          permutation moved no row by more than ``1e-12``), else ``words[1]``; a z against its
          expectation is :func:`rankaudit.runs.decision.expectation_verdict`'s, not this.
Order     ``order_word(a, b)``: ``words[0]`` when ``a > b`` ("above"), ``words[1]`` when
          ``a < b``, ``words[2]`` when equal (e.g. click rate at position 1 against position 10).
Covers    ``covers_word(lo, hi, v)``: ``words[0]`` when ``lo <= v <= hi`` ("includes zero"),
          else ``words[1]`` ("excludes zero").
Best      ``best_name(values)``: the name with the largest value (ties refused, so a page never
          names one of two equal rows "the best" by dictionary order).
Names     ``name_word(name, missing=...)``: a name the page recorded (the tie rule an
          evaluator was observed to follow), or the caller's ``missing`` clause when it was not
          computed (None), e.g. "not audited".
First     ``first_phrase(items, where, value, words=(template, none))``: the template with the
          value of the first item for which ``where`` holds ("from t = 12 on"), else ``none``
          ("at no block size of this sweep"); items after that first one are not read.
Templates ``template_phrase("{variant}: {verdict}", rows)``: each row's computed values in a
          fixed clause, the rows joined ("P1: resolved above zero; P2: ..."); a row that is None
          (not computed) is left out, and ``empty=`` is the whole clause for none.

Public API: the functions in ``__all__``.
"""

from __future__ import annotations

import math
import string
from collections.abc import Callable, Iterable, Mapping
from typing import Any

import numpy as np

from rankbook.report.prose import list_phrase

__all__ = [
    "best_name",
    "covers_word",
    "first_phrase",
    "name_word",
    "order_word",
    "ratio_list_phrase",
    "sample_rows_phrase",
    "template_phrase",
    "within_word",
]


def _finite(value: float | None, name: str) -> float:
    if value is None:
        raise ValueError(f"{name} must be a finite number, got None")
    v = float(value)
    if not math.isfinite(v):
        raise ValueError(f"{name} must be a finite number, got {value!r}")
    return v


def within_word(value: float, limit: float, *, words: tuple[str, str] = ("yes", "no")) -> str:
    """``words[0]`` when ``|value| <= limit``, else ``words[1]``; ``limit`` must be >= 0."""
    v, lim = _finite(value, "value"), _finite(limit, "limit")
    if lim < 0:
        raise ValueError(f"limit must be >= 0, got {limit!r}")
    return words[0] if abs(v) <= lim else words[1]


def order_word(
    a: float | None,
    b: float | None,
    *,
    words: tuple[str, str, str] = ("above", "below", "level with"),
    missing: str | None = None,
) -> str:
    """``words[0]`` when ``a > b``, ``words[1]`` when ``a < b``, else ``words[2]`` (exact: the
    caller rounds first when it means a tolerance, and says so). With ``missing``: that clause
    when either value is None (not a number: a parameter left at "all", say); without it a None
    is refused like any other value that is not a finite number."""
    if missing is not None and (a is None or b is None):
        return missing
    x, y = _finite(a, "a"), _finite(b, "b")
    if x > y:
        return words[0]
    return words[1] if x < y else words[2]


def covers_word(
    ci_low: float,
    ci_high: float,
    value: float = 0.0,
    *,
    words: tuple[str, str] = ("includes zero", "excludes zero"),
) -> str:
    """``words[0]`` when the interval ``[ci_low, ci_high]`` contains ``value``, else
    ``words[1]``."""
    lo, hi, v = _finite(ci_low, "ci_low"), _finite(ci_high, "ci_high"), _finite(value, "value")
    if lo > hi:
        raise ValueError(f"ci_low must be <= ci_high, got {lo} > {hi}")
    return words[0] if lo <= v <= hi else words[1]


def best_name(values: Mapping[str, float], *, largest: bool = True) -> str:
    """The name whose value is largest (``largest=False``: smallest). Refuses a tie for the
    top, an empty mapping and non-finite values with a ValueError naming the entry."""
    if not values:
        raise ValueError("best_name needs at least one value")
    clean = {name: _finite(v, f"values[{name!r}]") for name, v in values.items()}
    top = max(clean.values()) if largest else min(clean.values())
    names = [name for name, v in clean.items() if v == top]
    if len(names) > 1:
        raise ValueError(f"best_name: {names} tie at {top!r}; no single best")
    return names[0]


def name_word(name: str | None, *, missing: str) -> str:
    """``name`` as recorded (a computed name: the tie rule an evaluator was observed to follow),
    or ``missing`` when it is None (not computed: the evaluator's library is not installed, say).
    Anything but a str or None is refused, so a number or a flag is never printed as a name."""
    if name is None:
        return missing
    if not isinstance(name, str):
        raise ValueError(f"name must be a str or None, got {name!r}")
    return name


def ratio_list_phrase(ratios: Mapping[str, float], *, digits: int = 2, empty: str) -> str:
    """Named ratios in words, in the given order: "1.52x (a)", "1.52x (a) and 0.98x (b)",
    "1.52x (a), 0.98x (b) and 1.10x (c)" (``digits`` decimals); ``empty`` when there are none
    (a ratio nobody measured is said, not printed as 1). Non-finite ratios are refused, naming
    the entry."""
    clean = [(name, _finite(v, f"ratios[{name!r}]")) for name, v in ratios.items()]
    return list_phrase([f"{v:.{digits}f}x ({name})" for name, v in clean], empty=empty)


def first_phrase(
    items: Iterable[Any],
    where: Callable[[Any], object],
    value: Callable[[Any], float],
    *,
    words: tuple[str, str],
) -> str:
    """``words[0]`` with ``value(item)`` in its format field, for the first of ``items`` (in
    their order) for which ``where(item)`` holds: ``words=("from t = {:,} on", "at no block size
    of this sweep")`` reads "from t = 12 on"; ``words[1]`` when it holds for none. The items
    after that first one are not read (so the words depend on no later item). ``where`` must
    give a bool (a numpy bool is accepted), ``value`` a finite number; ``words[0]`` must have a
    format field ``{...}``."""
    if "{" not in words[0]:
        raise ValueError(f"words[0] must have a format field for the value, got {words[0]!r}")
    for item in items:
        hit = where(item)
        if not isinstance(hit, (bool, np.bool_)):
            raise ValueError(f"where must give True or False, got {hit!r}")
        if hit:
            found = value(item)
            if isinstance(found, (bool, np.bool_)):
                raise ValueError(f"value must be a number, not a flag, got {found!r}")
            _finite(found, "value")
            return words[0].format(found)
    return words[1]


def template_phrase(
    template: str,
    rows: Iterable[Mapping[str, Any] | None],
    *,
    sep: str = "; ",
    empty: str | None = None,
) -> str:
    """``template`` with each row's values in its named format fields, the rows joined by
    ``sep``: ``template_phrase("{variant}: {verdict}", rows)`` reads "P1: resolved above zero;
    P2: not resolved at this power", and ``"{lift_pct:+.2f}%"`` formats a number as a format
    field does. The clause is fixed (a choice between clauses is made by the word function that
    picks the template); only the fields the template names are read from each row. A row that
    is None (a record not computed, such as a benchmark record not there yet) is left out;
    ``empty`` (a whole clause) when no row is left, an error when ``empty`` is not given. A
    number that is NaN or an infinity is refused, naming its row and field."""
    fields = [name for _, name, _, _ in string.Formatter().parse(template) if name is not None]
    if not fields:
        raise ValueError(f"template must have a named format field, got {template!r}")
    if any(not name.isidentifier() for name in fields):
        raise ValueError(f"template fields must be plain names, got {fields} in {template!r}")
    out = []
    for i, row in enumerate(rows):
        if row is None:
            continue
        values = {}
        for name in fields:
            try:
                value = row[name]
            except KeyError:
                raise ValueError(f"rows[{i}] has no field {name!r} for {template!r}") from None
            if isinstance(value, (float, np.floating)):
                _finite(float(value), f"rows[{i}][{name!r}]")
            values[name] = value
        out.append(template.format(**values))
    if not out:
        if empty is None:
            raise ValueError("template_phrase needs at least one row, or an empty= clause")
        return empty
    return sep.join(out)


def sample_rows_phrase(policy: Mapping[str, Any], parameter: str) -> str:
    """How many eligible users' rows an audit took, said against what ``parameter`` asked for,
    as one whole clause: ``policy`` is a candidate policy record (``n_rows``, ``n_eligible``,
    ``n_rows_requested``, None for "all"; :func:`rankbook.data.candidates.build_candidate_rows`).
    "the audit takes every one of them: 22,146 rows, fewer than the 30,000 that parameter
    n_rows asks for"; "the audit draws 5,000 of them at random, as many as ..."; "... exactly as
    many as ..."; "... (parameter n_rows is "all")". A count that is not a finite number is
    refused, naming its field."""
    requested = policy["n_rows_requested"]
    for key in ("n_rows", "n_eligible") + (() if requested is None else ("n_rows_requested",)):
        _finite(policy[key], f"policy[{key!r}]")
    asks = f"parameter {parameter} asks for"  # spliced into the templates (no format field)
    if requested is None:
        return template_phrase(
            "the audit takes every one of them: {n_rows:,} rows (parameter " + parameter
            + ' is "all")',
            [policy],
        )
    return order_word(
        requested,
        policy["n_eligible"],
        words=tuple(
            template_phrase(clause, [policy])
            for clause in (
                "the audit takes every one of them: {n_rows:,} rows, fewer than the "
                "{n_rows_requested:,} that " + asks,
                "the audit draws {n_rows:,} of them at random, as many as " + asks,
                "the audit takes every one of them: {n_rows:,} rows, exactly as many as " + asks,
            )
        ),
    )
