"""Typed option groups of the public API: the keyword arguments that belong together.

Each is a frozen dataclass whose fields are checked, when it is built, by the one validator
(:mod:`rankaudit._checks`), so a bad value fails where it is written, naming the field:

- :class:`TieOptions`: the tie rule of :func:`rankaudit.evaluate` with what only that rule
  reads (the seed of ``hash`` and ``random``, the repeats of ``random``, the variance of
  ``expected``);
- :class:`RowIds`: the user and item ids of array input (the hash key ``(seed, user, item)``);
- :class:`LongColumns`: the column names of a long-format table;
- :class:`ResamplingOptions`: the paired tests of :func:`rankaudit.compare_runs` and
  :func:`rankaudit.leaderboard`: sign flips of the randomisation test (Fisher 1935; Smucker,
  Allan & Carterette, CIKM 2007), resamples of the paired bootstrap (Efron & Tibshirani 1993),
  and their seed.
"""

from __future__ import annotations

from dataclasses import dataclass

from rankaudit._checks import (
    BOOTSTRAP_RESAMPLES,
    RANDOM_REPEATS,
    SIGN_FLIPS,
    check_count,
    check_seed,
)
from rankaudit.measures.rules import check_rule

__all__ = ["DEFAULT_RESAMPLING", "LongColumns", "ResamplingOptions", "RowIds", "TieOptions"]


def _check_name(value: object, name: str, *, optional: bool = False) -> str | None:
    """A column name: a non-empty string (or None where ``optional``)."""
    if value is None and optional:
        return None
    if not isinstance(value, str) or not value:
        raise ValueError(f"{name} must be a non-empty column name; got {value!r}")
    return value


@dataclass(frozen=True)
class TieOptions:
    """A tie rule of :func:`rankaudit.evaluate` and the settings only that rule reads.

    ``rule``: ``input_order``, ``hash``, ``random``, ``expected``, ``pessimistic`` or
    ``optimistic`` (:mod:`rankaudit.measures.rules`); ``seed``: any integer, the seed of
    ``hash`` (``tie_hash(seed, user, item)``) and ``random``; ``n_repeats``: random tie orders
    averaged by ``random`` (``1..RANDOM_REPEATS``; > 1 adds ``*_std`` columns);
    ``variance``: with ``expected``, add ``*_var`` columns, the exact variance over uniform
    random tie orders (McSherry & Najork, ECIR 2008).  ``ties="hash"`` is short for
    ``TieOptions("hash")``.
    """

    rule: str = "expected"
    seed: int = 0
    n_repeats: int = 1
    variance: bool = False

    def __post_init__(self) -> None:
        rule = check_rule(self.rule, api="rows")
        object.__setattr__(self, "rule", rule)
        object.__setattr__(self, "seed", check_seed(self.seed, "TieOptions.seed"))
        repeats = check_count(self.n_repeats, "TieOptions.n_repeats", RANDOM_REPEATS)
        object.__setattr__(self, "n_repeats", repeats)
        if not isinstance(self.variance, bool):
            raise ValueError(f"TieOptions.variance must be True or False; got {self.variance!r}")
        if repeats != 1 and rule != "random":
            raise ValueError(
                f"TieOptions.n_repeats={repeats} applies only to rule='random' (got {rule!r})"
            )
        if self.variance and rule != "expected":
            raise ValueError(
                "TieOptions.variance=True applies only to rule='expected' "
                "(rule='random' with n_repeats > 1 reports *_std columns)"
            )

    @classmethod
    def of(cls, ties: str | TieOptions) -> TieOptions:
        """``ties`` as options: a rule name is ``TieOptions(rule)``."""
        return ties if isinstance(ties, TieOptions) else cls(ties)


@dataclass(frozen=True)
class RowIds:
    """Ids of array input: ``users`` one id (int or str) per row, ``items`` one per candidate
    (the shape of ``scores``, distinct within a row).  ``hash`` needs ``items``; without
    ``users`` the row position is the user id, so ``hash`` and ``random`` then depend on where a
    row sits in the batch."""

    users: object = None
    items: object = None


@dataclass(frozen=True)
class LongColumns:
    """Column names of a long-format table (one line per row and candidate): ``row`` the row
    id, ``item`` the candidate id (None: no item ids), ``score``, ``label`` the graded
    relevance, ``user`` the user id of ``hash`` / ``random`` (None: the row id)."""

    row: str = "row_id"
    item: str | None = "item_id"
    score: str = "score"
    label: str = "label"
    user: str | None = None

    def __post_init__(self) -> None:
        for field in ("row", "score", "label"):
            _check_name(getattr(self, field), f"LongColumns.{field}")
        for field in ("item", "user"):
            _check_name(getattr(self, field), f"LongColumns.{field}", optional=True)


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
