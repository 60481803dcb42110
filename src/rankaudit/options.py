"""Typed option groups of the public API: the keyword arguments that belong together.

Each is a frozen dataclass whose fields are checked, when it is built, by the one validator
(:mod:`rankaudit._checks`), so a bad value fails where it is written, naming the field:

- :class:`ResamplingOptions`: the paired tests of :func:`rankaudit.compare_runs` and
  :func:`rankaudit.leaderboard`: sign flips of the randomisation test (Fisher 1935; Smucker,
  Allan & Carterette, CIKM 2007), resamples of the paired bootstrap (Efron & Tibshirani 1993),
  and their seed.
- :class:`LongColumns`: the column names of a long-format table (one line per row and
  candidate) given to :func:`rankaudit.evaluate`.
- :class:`PermutationOptions`: the within-row permutation audit of :func:`rankaudit.checklist`
  (:func:`rankaudit.audit_row_order`): how many random orders of every row, and their seed.
- :class:`SensitivityOptions`: the checklist's sensitivity analysis: the tie rules it compares
  and the NDCG@k range beyond which it asks for attention.

A keyword that moved into a group is refused by name, never accepted silently
(:func:`moved_keywords`): ``evaluate(frame, row_col="query")`` is a TypeError that says to
write ``columns=LongColumns(row="query")``; ``checklist(s, y, n_permutations=5)`` one that
says ``permutation=PermutationOptions(n_permutations=...)``.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Mapping
from dataclasses import dataclass, fields
from typing import Any, TypeVar

from rankaudit._checks import (
    BOOTSTRAP_RESAMPLES,
    RERUNS,
    SIGN_FLIPS,
    check_count,
    check_number,
    check_seed,
)
from rankaudit.measures.rules import check_rules

__all__ = [
    "CHECKLIST_KEYWORDS",
    "DEFAULT_COLUMNS",
    "DEFAULT_PERMUTATION",
    "DEFAULT_RESAMPLING",
    "DEFAULT_SENSITIVITY",
    "LONG_COLUMN_KEYWORDS",
    "LongColumns",
    "PermutationOptions",
    "ResamplingOptions",
    "SensitivityOptions",
    "check_option",
    "moved_keywords",
]

F = TypeVar("F", bound=Callable[..., Any])


@dataclass(frozen=True)
class ResamplingOptions:
    """The paired tests over queries: ``n_perm`` sign flips of the randomisation test
    (``1..SIGN_FLIPS``), ``n_boot`` resamples of the bootstrap CI of the lift
    (``1..BOOTSTRAP_RESAMPLES``), and ``seed`` of both (any integer)."""

    n_perm: int = 10_000
    n_boot: int = 2_000
    seed: int = 0

    def __post_init__(self) -> None:
        object.__setattr__(self, "n_perm", check_count(self.n_perm, "n_perm", SIGN_FLIPS))
        n_boot = check_count(self.n_boot, "n_boot", BOOTSTRAP_RESAMPLES)
        object.__setattr__(self, "n_boot", n_boot)
        object.__setattr__(self, "seed", check_seed(self.seed))


#: The paired tests' defaults: 10,000 sign flips, 2,000 bootstrap resamples, seed 0.
DEFAULT_RESAMPLING = ResamplingOptions()


@dataclass(frozen=True)
class LongColumns:
    """The columns of a long-format table, one line per row and candidate: ``row`` (the row
    or query id), ``item`` (the candidate id; None, or a name the table lacks, when there is
    none: then the ``"hash"`` rule cannot be used), ``score``, ``label`` (graded relevance)
    and ``user`` (the user id the ``"hash"`` and ``"random"`` rules key on; None: the row
    id).  Each name is a non-empty string (or None where allowed)."""

    row: str = "row_id"
    item: str | None = "item_id"
    score: str = "score"
    label: str = "label"
    user: str | None = None

    def __post_init__(self) -> None:
        for f in fields(self):
            value = getattr(self, f.name)
            optional = f.name in ("item", "user")
            if (value is None and optional) or (isinstance(value, str) and value):
                continue
            allowed = "a non-empty string" + (" or None" if optional else "")
            raise ValueError(f"LongColumns.{f.name} must be {allowed}; got {value!r}")


#: A table's default columns: ``row_id``, ``item_id``, ``score``, ``label``, no user column.
DEFAULT_COLUMNS = LongColumns()

#: The former keywords of the long-format column names and their place now.
LONG_COLUMN_KEYWORDS: dict[str, str] = {
    f"{f.name}_col": f"columns=LongColumns({f.name}=...)" for f in fields(LongColumns)
}


@dataclass(frozen=True)
class PermutationOptions:
    """The checklist's permutation audit (:func:`rankaudit.audit_row_order`): every row is
    stored in ``n_permutations`` random within-row orders (``1..RERUNS``; each evaluates the
    whole input again) drawn from ``seed`` (any integer)."""

    n_permutations: int = 50
    seed: int = 0

    def __post_init__(self) -> None:
        n = check_count(self.n_permutations, "PermutationOptions.n_permutations", RERUNS)
        object.__setattr__(self, "n_permutations", n)
        object.__setattr__(self, "seed", check_seed(self.seed, "PermutationOptions.seed"))


#: The permutation audit's defaults: 50 permutations, seed 0.
DEFAULT_PERMUTATION = PermutationOptions()


@dataclass(frozen=True)
class SensitivityOptions:
    """The checklist's sensitivity analysis: NDCG@k under each tie rule of ``rules`` (rules of
    the rectangular API, distinct; a sequence or one string separated by commas or blanks),
    and ``tolerance`` (a finite number >= 0): a range of NDCG@k across them above it asks for
    attention, as does a storage-order effect above it."""

    rules: tuple[str, ...] = ("input_order", "hash", "expected", "pessimistic", "optimistic")
    tolerance: float = 1e-3

    def __post_init__(self) -> None:
        try:
            rules = tuple(check_rules(self.rules, api="rows"))
        except (TypeError, ValueError) as err:
            raise ValueError(f"SensitivityOptions.rules: {err}") from None
        object.__setattr__(self, "rules", rules)
        tolerance = check_number(self.tolerance, "SensitivityOptions.tolerance", lo=0)
        object.__setattr__(self, "tolerance", tolerance)


#: The sensitivity analysis's defaults: the five deterministic and expected rules, 1e-3.
DEFAULT_SENSITIVITY = SensitivityOptions()

#: The former keywords of :func:`rankaudit.checklist` and their place now.
CHECKLIST_KEYWORDS: dict[str, str] = {
    "n_permutations": "permutation=PermutationOptions(n_permutations=...)",
    "permutation_seed": "permutation=PermutationOptions(seed=...)",
    "sensitivity_rules": "sensitivity=SensitivityOptions(rules=...)",
    "tolerance": "sensitivity=SensitivityOptions(tolerance=...)",
}


def check_option(value: object, name: str, kind: type) -> Any:
    """``value`` if it is a ``kind`` (an option group), else a ValueError naming ``name``."""
    if not isinstance(value, kind):
        raise ValueError(f"{name} must be a {kind.__name__}; got {type(value).__name__}")
    return value


def moved_keywords(moved: Mapping[str, str]) -> Callable[[F], F]:
    """Decorate a function so that a keyword of ``moved`` (old name -> where it is now) is a
    TypeError naming its new place rather than being accepted or reported as merely
    unexpected; the signature shown (``help``, ``inspect``) stays the function's own."""

    def decorate(function: F) -> F:
        @functools.wraps(function)
        def wrapper(*args: Any, **kwargs: Any) -> Any:
            old = [name for name in kwargs if name in moved]
            if old:
                places = "; ".join(f"{name}= is now {moved[name]}" for name in old)
                raise TypeError(f"{function.__name__}() no longer takes {places}")
            return function(*args, **kwargs)

        return wrapper  # type: ignore[return-value]

    return decorate
