"""Words from numbers: the one place a chapter's qualitative words are computed.

A page must not type "all", "few", "rises", "resolved" or "fails" beside a number: the word is a
predicate of that number and a stated threshold, computed here, so that it flips when the
number flips (the tests flip each one). Every function returns plain text for ``{glue:text}``.

Counts         ``count_phrase(k, n)``: "all 24", "none of the 8", "5 of 8"; never "only 24 of 24";
               with ``verb=("is", "are")`` the verb agrees ("neither of the 2 pairs is");
               with ``empty=`` a whole clause for ``n == 0`` (nothing to count).
Shares         ``share_word(f)``: "none", "few" (``f < few_below``), "a minority", "most"
               (``f > most_above``), "all"; the thresholds are arguments, stated by the caller.
Signs          ``direction_word(d)``: "rises" / "falls" / "does not move" (``|d| <= tol``);
               ``signed_phrase(d, unit)``: "rises by 1.23%", "1.23 percentage points below".
Sizes          ``size_word(v, reference)``: "small" only when ``|v| < ratio * |reference|``,
               against a reference the sentence names, else "not small".
Verdicts       none here: every verdict comes from :mod:`rankaudit.runs.decision` (and
               :mod:`rankbook.report.decision` for a verdict with its power).
Sameness       ``same_word(a, b)``: "also" when two computed names are equal, else "not".
Flags          ``flag_word(flag, (yes, no))``: the caller's two words for a computed bool.
Lists          ``list_phrase(names)``: computed names in words, "a, b and c".
Plurals        ``plural_phrase(n, "rejection", "rejections")``: "1 rejection", "2 rejections";
               every count prints with thousands separators ("22,146 rows").
Differences    ``difference_phrase(gap)``: "differ by at most 2.2 × 10⁻¹⁶", or "are exactly
               equal" when the largest difference is exactly 0 (never "at most 0.0e+00"), or
               the caller's ``missing`` clause when it was not computed (None);
               ``gap_phrase(gap)``: "largest difference 2.2 × 10⁻¹⁶" / "no difference at all".
Small numbers  ``power_of_ten(x)``: "2.2 × 10⁻¹⁶", "10⁻⁹" (``digits=0``), never Python's
               "2.2e-16" on a page; ``number_text(x, digits)``: a plain decimal with
               thousands separators ("22,146", "0.125"), in powers of ten only where the
               decimal would show no significant digit.
Intervals      ``interval_phrase(lo, hi, ref, name="the paper's")``: where a CI lies against a
               reference value: "lies above the paper's 0.1702", "lies below ...", "includes ...".
p-values       ``p_value_phrase(p, n_perm)``: a Monte Carlo p-value is never 0; its smallest
               value is ``1 / (B + 1)`` for ``B`` permutations (Phipson & Smyth, 2010, "Permutation
               p-values should never be zero"), so it prints "p ≤ 0.001 (1,000 permutations)".

Public API: the functions in ``__all__``.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np

from rankaudit._checks import check_int
from rankaudit.runs.pfloor import at_floor, monte_carlo_floor
from rankbook.report.decision import FEW_BELOW, MOST_ABOVE, SMALL_RATIO

__all__ = [
    "comparison_word",
    "count_phrase",
    "difference_phrase",
    "direction_word",
    "flag_word",
    "gap_phrase",
    "interval_phrase",
    "list_phrase",
    "number_text",
    "plural_phrase",
    "power_of_ten",
    "same_word",
    "p_value_phrase",
    "share_word",
    "signed_phrase",
    "size_word",
]


def _finite(value: float, name: str) -> float:
    v = float(value)
    if not math.isfinite(v):
        raise ValueError(f"{name} must be a finite number, got {value!r}")
    return v


def _whole(value: int, name: str, *, lo: int | None = None, what: str = "a whole number") -> int:
    """``value`` as an ``int`` when it is a finite whole number (``3`` or ``3.0``, not a bool)
    and at least ``lo`` (when given); NaN, an infinity, ``2.5`` or a value below ``lo`` is a
    ValueError naming ``name`` and saying it must be ``what``."""
    bad = isinstance(value, bool) or not math.isfinite(v := float(value)) or v != int(v)
    if bad or (lo is not None and v < lo):
        raise ValueError(f"{name} must be {what}, got {value!r}")
    return int(v)


def count_phrase(
    k: int,
    n: int,
    noun: str = "",
    *,
    verb: tuple[str, str] | None = None,
    empty: str | None = None,
) -> str:
    """``k`` of ``n`` in words: "all 24 rows", "none of the 8 rows", "5 of 8 rows".

    ``n == 1``: "the one row" / "not the one row"; ``n == 2``: "both rows" / "neither of the
    2 rows". With ``verb = (singular, plural)`` the phrase is a clause whose verb agrees with it:
    singular after "the one", "1 of", and "neither" ("neither of the 2 pairs is a resolved
    swap", "1 of 4 pairs is a resolved swap"), plural otherwise ("none of the 4 pairs are
    resolved swaps", "both pairs are resolved swaps", "3 of 4 pairs are resolved swaps").
    With ``empty``: that whole clause when ``n == 0`` (nothing to count: "no interval excludes
    its reference, so ..."); without it ``n == 0`` is refused.
    """
    k, n = _whole(k, "k"), _whole(n, "n")
    if empty is not None and n == 0 and k == 0:
        return empty
    if n < 1 or not 0 <= k <= n:
        raise ValueError(f"count_phrase needs 0 <= k <= n and n >= 1, got k={k}, n={n}")
    tail = f" {noun}" if noun else ""
    if n == 1:
        phrase = f"the one{tail}" if k == 1 else f"not the one{tail}"
    elif k == n:
        phrase = f"both{tail}" if n == 2 else f"all {n:,}{tail}"
    elif k == 0:
        phrase = f"neither of the 2{tail}" if n == 2 else f"none of the {n:,}{tail}"
    else:
        phrase = f"{k:,} of {n:,}{tail}"
    if verb is None:
        return phrase
    singular = n == 1 or k == 1 or (k == 0 and n == 2)
    return f"{phrase} {verb[0] if singular else verb[1]}"


def share_word(frac: float, *, few_below: float = FEW_BELOW, most_above: float = MOST_ABOVE) -> str:
    """A share in words against stated thresholds (by default the decision page's): none, few,
    a minority, most, all."""
    f = _finite(frac, "frac")
    if not 0.0 <= f <= 1.0:
        raise ValueError(f"frac must lie in [0, 1], got {frac!r}")
    few_below, most_above = _finite(few_below, "few_below"), _finite(most_above, "most_above")
    if not 0.0 < few_below <= most_above < 1.0:
        raise ValueError("share_word needs 0 < few_below <= most_above < 1")
    if f == 0.0:
        return "none"
    if f == 1.0:
        return "all"
    if f < few_below:
        return "few"
    return "most" if f > most_above else "a minority"


def direction_word(
    delta: float,
    *,
    tol: float = 0.0,
    words: tuple[str, str, str] = ("rises", "falls", "does not move"),
) -> str:
    """``words[0]`` when ``delta > tol``, ``words[1]`` when ``delta < -tol``, else ``words[2]``."""
    d, tol = _finite(delta, "delta"), _finite(tol, "tol")
    if tol < 0:
        raise ValueError(f"tol must be >= 0, got {tol!r}")
    if d > tol:
        return words[0]
    if d < -tol:
        return words[1]
    return words[2]


def signed_phrase(
    delta: float,
    unit: str = "%",
    *,
    digits: int = 2,
    words: tuple[str, str, str] = ("rises by", "falls by", "does not move"),
    number_first: bool = False,
) -> str:
    """The size and sign of ``delta`` in words: "rises by 1.23%", "falls by 0.50%".

    With ``number_first=True``, ``words=("above", "below", "level with")`` and the unit
    " percentage points": "1.23 percentage points above". Zero at ``digits`` reads ``words[2]``.
    """
    d = _finite(delta, "delta")
    tol = 0.5 * 10.0 ** (-digits)
    word = direction_word(d, tol=tol, words=words)
    if word == words[2]:
        return words[2]
    size = f"{abs(d):.{digits}f}{unit}"
    return f"{size} {word}" if number_first else f"{word} {size}"


def size_word(value: float, reference: float, *, ratio: float = SMALL_RATIO) -> str:
    """ "small" when ``|value| < ratio * |reference|``, else "not small" (``ratio`` by default
    the decision page's).

    The sentence must name the reference ("small against the oracle's lift"): a size is small
    only relative to something.
    """
    v, r, q = _finite(value, "value"), _finite(reference, "reference"), _finite(ratio, "ratio")
    if r == 0:
        raise ValueError("reference must be non-zero: nothing is small against zero")
    if q <= 0:
        raise ValueError(f"ratio must be > 0, got {ratio!r}")
    return "small" if abs(v) < q * abs(r) else "not small"


def p_value_phrase(
    p: float,
    n_perm: int | None = None,
    *,
    unit: str = "permutations",
    sides: int = 1,
    raw: float | None = None,
) -> str:
    """A p-value as printed: never "p = 0.000".

    With ``n_perm`` permutations the smallest possible value is ``sides / (n_perm + 1)``; at that
    floor the phrase is "p ≤ 0.001 (1,000 permutations)" (the bound rounded up to two
    significant figures; ``unit`` names the draws, e.g. "bootstrap resamples" for a bootstrap
    p-value; ``sides=2`` for the two-sided bootstrap p-value of
    :func:`rankaudit.runs.significance.dual_interval_test`, whose floor is ``2 / (B + 1)``).
    Otherwise three decimals, two significant figures below 0.001, and in powers of ten below
    0.0001 ("p = 3.0 × 10⁻⁵"). For an adjusted p-value (Holm, Bonferroni, BH), ``raw`` is the
    unadjusted p it comes from: when ``raw`` sits at the floor, ``p`` is only an upper bound and
    is printed as one, rounded up: "p ≤ 0.009".
    """
    v = _finite(p, "p")
    if not 0.0 <= v <= 1.0:
        raise ValueError(f"p must lie in [0, 1], got {p!r}")
    if n_perm is not None:
        b = _whole(n_perm, "n_perm", lo=1)
        floor = monte_carlo_floor(b, sides)
        floored = at_floor(v, b, sides)
        if floored or (raw is not None and at_floor(_finite(raw, "raw"), b, sides) and v < 1):
            exp = math.floor(math.log10(max(v, floor))) - 1  # rounded up, two significant figures
            bound = math.ceil(max(v, floor) / 10.0**exp * (1 - 1e-12)) * 10.0**exp
            draws = f" ({b:,} {unit})" if floored else ""
            return f"p ≤ {bound:.{max(0, -exp)}f}".rstrip("0").rstrip(".") + draws
    elif v == 0.0:
        raise ValueError("p = 0 is not a p-value: pass n_perm for a Monte Carlo floor")
    if v < 0.0001:
        return f"p = {power_of_ten(v, 1)}"  # never Python's "3e-05"
    if v < 0.001:
        return f"p = {v:.2g}"
    return f"p = {v:.3f}"


def comparison_word(value: float, reference: float) -> str:
    """How ``value`` compares with ``reference``: "smaller than", "larger than" or "equal to"
    (exact comparison: the caller rounds first if it means a tolerance, and says so)."""
    v, r = _finite(value, "value"), _finite(reference, "reference")
    if v < r:
        return "smaller than"
    return "larger than" if v > r else "equal to"


def interval_phrase(
    ci_low: float, ci_high: float, reference: float, *, name: str = "", digits: int = 4
) -> str:
    """Where the CI ``[ci_low, ci_high]`` lies against ``reference``, named by ``name``:
    "lies above the paper's 0.1702" (``ci_low > reference``), "lies below ..." (``ci_high <
    reference``), otherwise "includes ..."."""
    lo, hi = _finite(ci_low, "ci_low"), _finite(ci_high, "ci_high")
    ref = _finite(reference, "reference")
    if lo > hi:
        raise ValueError(f"ci_low must be <= ci_high, got {lo} > {hi}")
    where = "lies above" if lo > ref else "lies below" if hi < ref else "includes"
    head = f"{name} " if name else ""
    return f"{where} {head}{ref:.{digits}f}"


def same_word(
    a: object, b: object, *, words: tuple[str, str] = ("also", "not"), missing: str | None = None
) -> str:
    """``words[0]`` when ``a == b`` (two computed names, e.g. the best model of two protocols),
    else ``words[1]``: "it is also the best" / "it is not the best". With ``missing``: that
    clause when either value is None (not computed, e.g. another chapter's file not there yet);
    without it a None is compared like any value."""
    if missing is not None and (a is None or b is None):
        return missing
    return words[0] if a == b else words[1]


def flag_word(flag: object, words: tuple[str, str] = ("yes", "no")) -> str:
    """``words[0]`` when the computed predicate ``flag`` holds, else ``words[1]``: "survives" /
    "does not survive", "identical" / "NOT identical". ``flag`` must be a bool (a numpy bool
    is accepted) or the number 1 or 0 (a JSON flag); anything else is refused rather than read
    by Python's truthiness."""
    if isinstance(flag, (bool, _np_bool())):
        return words[0] if flag else words[1]
    if isinstance(flag, (int, float)) and float(flag) in (0.0, 1.0):
        return words[0] if float(flag) == 1.0 else words[1]
    raise ValueError(f"flag must be True/False (or 1/0), got {flag!r}")


def _np_bool() -> type:
    import numpy as np

    return np.bool_


def list_phrase(names: Sequence[str], *, conjunction: str = "and", empty: str | None = None) -> str:
    """Computed names as a list in words: "a", "a and b", "a, b and c" (in the given order);
    ``empty`` when there is none (an error when ``empty`` is not given)."""
    items = [str(n) for n in names]
    if not items:
        if empty is None:
            raise ValueError("list_phrase needs at least one name")
        return empty
    if len(items) == 1:
        return items[0]
    return f"{', '.join(items[:-1])} {conjunction} {items[-1]}"


def plural_phrase(n: int, singular: str, plural: str, *, zero: str | None = None) -> str:
    """A count with its noun in the right number: "1 false rejection", "0 false rejections".
    With ``zero``: that whole phrase when the count is 0 ("no false rejection")."""
    count = _whole(n, "n", lo=0, what="a count (an integer >= 0)")
    if zero is not None and count == 0:
        return zero
    return f"{count:,} {singular if count == 1 else plural}"


_SUPERSCRIPT = str.maketrans("-0123456789", "⁻⁰¹²³⁴⁵⁶⁷⁸⁹")


def power_of_ten(value: float, digits: int = 1) -> str:
    """``value`` as a mantissa with ``digits`` decimals times a power of ten, the way a page
    writes a small number: ``power_of_ten(2.2e-16)`` is "2.2 × 10⁻¹⁶", ``power_of_ten(1e-9, 0)``
    is "10⁻⁹" (a mantissa of exactly 1 at ``digits=0`` is left out), 0 is "0". The mantissa is
    Python's ``format(value, f".{digits}e")``, so the rounding is the same as ``:.1e``."""
    v = _finite(value, "value")
    digits = check_int(digits, "digits", lo=0)
    if v == 0.0:
        return "0"
    mantissa, exponent = format(v, f".{digits}e").split("e")
    power = "10" + str(int(exponent)).translate(_SUPERSCRIPT)
    if int(exponent) == 0:
        return mantissa
    if digits == 0 and mantissa.lstrip("-") == "1":
        return ("-" if mantissa.startswith("-") else "") + power
    return f"{mantissa} × {power}"


def number_text(value: float, digits: int = 3) -> str:
    """A table's or sentence's number: an integer with thousands separators ("22,146"), any
    other value as a decimal with ``digits`` places and separators ("1,234.500", "0.125"), and
    a nonzero value too small to show a significant digit at ``digits`` places in powers of ten
    with two significant digits ("5.0 × 10⁻⁵" at ``digits=3``), never "0.000" for it (nor
    "-0.000" for a negative zero)."""
    if isinstance(value, (bool, np.bool_)):
        raise ValueError(f"value must be a number, not a flag, got {value!r}")
    v = _finite(value, "value")
    digits = check_int(digits, "digits", lo=0)
    if isinstance(value, (int, np.integer)):
        return f"{int(value):,}"
    if v == 0.0:
        v = 0.0  # a negative zero prints as "0.000", never "-0.000"
    if v != 0.0 and abs(v) < 0.5 * 10.0**-digits:
        return power_of_ten(v, 1)
    return f"{v:,.{digits}f}"


def _gap(gap: float) -> float:
    g = _finite(gap, "gap")
    if g < 0:
        raise ValueError(f"gap must be a largest absolute difference (>= 0), got {gap!r}")
    return g


def difference_phrase(
    gap: float | None,
    other: str = "",
    *,
    plural: bool = True,
    digits: int = 1,
    missing: str | None = None,
) -> str:
    """A largest absolute difference as a verb phrase: "differ by at most 2.2 × 10⁻¹⁶" (``other``:
    "differ from scikit-learn's value by at most ..."), or "are exactly equal" ("... to
    scikit-learn's value") when ``gap`` is exactly 0. ``plural=False`` for a singular subject
    ("differs", "is"). With ``missing``: that clause when ``gap`` is None (not computed, e.g. its
    library not installed); without it a None is refused like any value that is no number."""
    if missing is not None and gap is None:
        return missing
    if gap is None:
        raise ValueError("gap must be a finite number, got None")
    g = _gap(gap)
    if g == 0.0:
        return f"{'are' if plural else 'is'} exactly equal" + (f" to {other}" if other else "")
    verb = "differ" if plural else "differs"
    return f"{verb}{f' from {other}' if other else ''} by at most {power_of_ten(g, digits)}"


def gap_phrase(
    gap: float,
    *,
    name: str = "largest difference",
    zero: str = "no difference at all",
    digits: int = 1,
) -> str:
    """A largest absolute difference as a noun phrase: "largest difference 2.2 × 10⁻¹⁶", or
    ``zero`` ("no difference at all") when ``gap`` is exactly 0."""
    g = _gap(gap)
    return zero if g == 0.0 else f"{name} {power_of_ten(g, digits)}"
