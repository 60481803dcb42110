"""Tables a page shows: Table 1 of the progressive ablation as two projector-width tables, and
the one formatter of a displayed DataFrame's numbers.

:func:`display_frame` prints every number of a DataFrame as a reader reads it: an integer count
with thousands separators ("22,146", never "22146" or "100000.00"), a float at the precision the
caller states ("0.125"), a nonzero float too small for that precision in powers of ten
("5.0 × 10⁻⁵", never Python's "5e-05"), "—" where there is no value; text, dates and flags as
they are (:func:`rankbook.report.prose.number_text` for each number).

Table 1 of the progressive ablation (chapters 11 and 12):

The ablation's table has a dozen columns; at 1280 px they do not fit one text column. This
module splits it with the **key columns first**: :func:`table1_views` returns

* the *lift* table: per row ``variant vs baseline``, MRR of the baseline and of the variant, the
  lift in percent, its paired bootstrap 95% CI, the sign-flip p-value and its Holm adjustment
  (Holm 1979) across the feature rows; and
* the *context* table: the share of the oracle's lift, the seed spread, any chapter-specific
  columns (``extra``) and the paper's offline and online lifts (Sheng et al. 2025), "—" where the
  paper lists none.

Headers are words ("MRR base"), never the results JSON's snake_case keys; p-values are printed
with :func:`rankbook.report.prose.p_value_phrase` (never 0.000: the floor is 1 / (n_perm + 1)).
"""

from __future__ import annotations

import numbers
import re
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import pandas as pd

from rankaudit._checks import check_int
from rankaudit.runs.pfloor import floor_bounds, monte_carlo_floor
from rankbook.report.prose import flag_word, number_text, p_value_phrase, power_of_ten

__all__ = [
    "display_frame",
    "format_frame",
    "format_values",
    "key_value_text",
    "p_column",
    "table1_views",
]

_KEY = "variant vs baseline"


def format_values(
    values: Sequence[Any] | Any,
    spec: str = ".2f",
    *,
    missing: str = "—",
    prefix: str = "",
    integer_spec: str | None = None,
) -> list[str]:
    """Each value of a table column printed with the format ``spec`` after ``prefix``;
    ``missing`` where there is no value (None or NaN); whole numbers with ``integer_spec``
    when one is given (counts beside rates in one column). A value the spec writes with an
    exponent ("2.2e-16" under ``.2g``) is written in powers of ten, "2.2 × 10⁻¹⁶"."""
    out = []
    for v in values:
        if v is None or pd.isna(v):
            out.append(missing)
        elif integer_spec is not None and float(v).is_integer():
            out.append(prefix + _no_exponent(format(float(v), integer_spec)))
        else:
            out.append(prefix + _no_exponent(_signed_zero(float(v), format(float(v), spec))))
    return out


_NEGATIVE_ZERO = re.compile(r"-0(?:\.0*)?%?")


def _signed_zero(value: float, text: str) -> str:
    """``text`` unless the spec rounded a nonzero ``value`` to a signed zero ("-0.0000"):
    then ``value`` in powers of ten with two significant digits, as
    :func:`rankbook.report.prose.number_text` writes a value too small for its places; a
    negative zero itself prints unsigned."""
    if _NEGATIVE_ZERO.fullmatch(text) is None:
        return text
    return power_of_ten(value, 1) if value != 0.0 else text[1:]


_EXPONENT = re.compile(r"-?\d(?:\.(\d+))?e[+-]\d+")


def _no_exponent(text: str) -> str:
    """A number ``format`` wrote as "2.2e-16" (a ``g`` or ``e`` spec) in powers of ten, with the
    same mantissa ("2.2 × 10⁻¹⁶"); any other text as it is."""
    match = _EXPONENT.fullmatch(text)
    if match is None:
        return text
    return power_of_ten(float(text), len(match.group(1) or ""))


def format_frame(frame: pd.DataFrame, spec: str = ".2f", *, missing: str = "—") -> pd.DataFrame:
    """Every cell of ``frame`` printed by :func:`format_values` (same index and columns)."""
    return frame.apply(
        lambda column: pd.Series(format_values(column, spec, missing=missing), index=column.index)
    )


def _cell(value: Any, digits: int, whole: bool, missing: str, where: str) -> Any:
    if value is None or (pd.api.types.is_scalar(value) and pd.isna(value)):
        return missing
    if isinstance(value, (bool, np.bool_)):
        return flag_word(value)  # a flag reads yes/no, as in the prose
    if isinstance(value, str) or not isinstance(value, (numbers.Real, np.number)):
        return value  # text, a date, an object: as pandas prints it
    if whole:
        if not float(value).is_integer():
            raise ValueError(f"counts column {where} holds {value!r}, not a whole number")
        return number_text(int(value))
    return number_text(value, digits)


def display_frame(
    frame: pd.DataFrame,
    digits: int | Mapping[str, int] = 3,
    *,
    counts: Sequence[str] = (),
    missing: str = "—",
) -> pd.DataFrame:
    """``frame`` with every number printed for a reader (same index and columns, str cells).

    Flags read "yes" / "no" (:func:`rankbook.report.prose.flag_word`), integers get thousands
    separators, floats ``digits`` decimals (one number for every column,
    or a mapping column -> digits, 3 for a column it leaves out) through
    :func:`rankbook.report.prose.number_text`; the columns named in ``counts`` hold whole numbers
    stored as floats (``describe()``'s count) and print as integers. A numeric index (not a
    MultiIndex) is printed the same way. A ``counts`` or ``digits`` name that is not a column, or
    a non-whole value in a ``counts`` column, raises a ValueError naming it.
    """
    if not isinstance(frame, pd.DataFrame):
        raise ValueError(f"frame must be a pandas DataFrame, got {type(frame).__name__}")
    per_column = dict(digits) if isinstance(digits, Mapping) else {}
    default = 3 if isinstance(digits, Mapping) else check_int(digits, "digits", lo=0)
    for name, value in per_column.items():
        check_int(value, f"digits[{name!r}]", lo=0)
    for kind, names in (("digits", per_column), ("counts", counts)):
        unknown = [name for name in names if name not in frame.columns]
        if unknown:
            raise ValueError(f"{kind} names {unknown}, not columns of frame {list(frame.columns)}")
    out = pd.DataFrame(
        {
            column: [
                _cell(
                    v,
                    per_column.get(column, default),
                    column in counts,
                    missing,
                    repr(column),
                )
                for v in frame[column].tolist()
            ]
            for column in frame.columns
        },
        index=frame.index,
        columns=frame.columns,
    )
    if not isinstance(frame.index, pd.MultiIndex) and pd.api.types.is_numeric_dtype(frame.index):
        out.index = pd.Index(
            [_cell(v, default, False, missing, "index") for v in frame.index.tolist()],
            name=frame.index.name,
        )
    return out


def key_value_text(params: Mapping[str, Any]) -> str:
    """A table cell for a mapping of hyperparameters: ``class=BPR, k=32, max_iter=5`` in the
    mapping's order, every value whole (a table cell is never cut with "...")."""
    return ", ".join(f"{key}={value}" for key, value in params.items())


def p_column(
    values: Sequence[Any],
    *,
    n_perm: int | None,
    unit: str = "permutations",
    sides: int = 1,
    raw: Sequence[Any] | None = None,
) -> list[str]:
    """Each p-value of a table column as :func:`rankbook.report.prose.p_value_phrase` prints
    it, without its "p = ": "0.013", or at the Monte Carlo floor ``sides / (n_perm + 1)`` "p ≤
    0.002 (1,000 bootstrap resamples)" (never "0.0000"); "—" where there is no value.

    ``raw``: for a column of adjusted p-values (Holm, Bonferroni, BH), the unadjusted p-values
    of the same rows. An unadjusted p at the floor is only known to be at most that, so an
    adjusted value computed from it is a bound too, printed rounded up: "≤ 0.009". That is the
    row's own value, and any row's value equal to it: Holm's step-down maximum and BH's step-up
    minimum each take a row's adjusted value from another row's term, and when that term is a
    floored row's, the two rows' adjusted values are equal (an exact value printed with "≤"
    is still true; a bound printed as exact would not be).

    ``n_perm=None`` for an analytic p-value (a t-test's): below 0.0001 in powers of ten, and one
    that underflowed to 0 as "< 2.2 × 10⁻³⁰⁸" (the smallest normal double), never "0"."""
    if raw is not None and len(raw) != len(values):
        raise ValueError(f"raw has {len(raw)} p-values for {len(values)} rows")
    if n_perm is not None:
        check_int(n_perm, "n_perm", lo=1)
    given = _floats_or_none(values)
    bounds = (
        floor_bounds(given, _floats_or_none(raw), n_perm, sides)
        if raw is not None and n_perm is not None
        else [False] * len(values)
    )
    out = []
    for value, bound in zip(given, bounds, strict=True):
        if value is None:
            out.append("—")
        elif n_perm is None and value == 0.0:
            out.append(f"< {power_of_ten(float(np.finfo(np.float64).tiny), 1)}")
        else:
            floor = monte_carlo_floor(n_perm, sides) if bound else None
            phrase = p_value_phrase(value, n_perm, unit=unit, sides=sides, raw=floor)
            # "0.013"; the floor with its draws as printed; a bound without its "p": "≤ 0.009"
            bare = phrase.endswith(")") or phrase.startswith("p = ")
            out.append(phrase.removeprefix("p = ") if bare else phrase.removeprefix("p "))
    return out


def _floats_or_none(values: Sequence[Any]) -> list[float | None]:
    """Each value as a float, a missing one (None, NaN, NA) as None."""
    return [None if v is None or pd.isna(v) else float(v) for v in values]


def _dash(values: Sequence[Any]) -> list[str]:
    return format_values(values, ".2f")


def table1_views(
    table: pd.DataFrame,
    records: Sequence[Mapping[str, Any]],
    *,
    n_perm: int,
    unit: str = "permutations",
    sides: int = 1,
    paper: Mapping[str, float],
    paper_online: Mapping[str, float],
    extra: Mapping[str, Sequence[Any]] | None = None,
) -> tuple[pd.DataFrame, pd.DataFrame]:
    """The (lift, context) tables of an ablation ``table`` (``AblationResult.table``).

    ``records`` are ``AblationResult.table1(...)`` rows in the same order (for ``p_holm`` and
    ``share_of_oracle``); ``paper`` and ``paper_online`` map a variant to the paper's lift in
    percent; ``extra`` adds named columns to the context table, one value per row. A length
    mismatch raises a ValueError naming the argument.
    """
    n = len(table)
    if len(records) != n:
        raise ValueError(f"records has {len(records)} rows but table has {n}")
    for name, values in (extra or {}).items():
        if len(values) != n:
            raise ValueError(f"extra[{name!r}] has {len(values)} values but table has {n} rows")
    index = pd.Index(table.variant + " vs " + table.baseline, name=_KEY)
    kind = {"n_perm": n_perm, "unit": unit, "sides": sides}

    lifts = pd.DataFrame(
        {
            "MRR base": table.mrr_sale_base.round(4).to_numpy(),
            "MRR variant": table.mrr_sale_variant.round(4).to_numpy(),
            "lift %": table.lift_pct.round(2).to_numpy(),
            "95% CI": [
                f"[{a:.2f}, {b:.2f}]" for a, b in zip(table.ci_low, table.ci_high, strict=True)
            ],
            "p": p_column(table.p_value.tolist(), **kind),
            "p (Holm)": p_column(
                [r.get("p_holm") for r in records], **kind, raw=table.p_value.tolist()
            ),
        },
        index=index,
    )
    context = pd.DataFrame(
        {
            "share of oracle": _dash([r.get("share_of_oracle") for r in records]),
            "seed sd": table.lift_seed_std.round(2).to_numpy(),
            **{name: list(values) for name, values in (extra or {}).items()},
            "paper lift %": _dash(table.variant.map(paper).tolist()),
            "paper online lift %": _dash(table.variant.map(paper_online).tolist()),
        },
        index=index,
    )
    return lifts, context
