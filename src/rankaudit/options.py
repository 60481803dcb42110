"""Typed option groups of the public API: the keyword arguments that belong together.

Each is a frozen dataclass whose fields are checked, when it is built, by the one validator
(:mod:`rankaudit._checks`), so a bad value fails where it is written, naming the field:

- :class:`ResamplingOptions`: the paired tests of :func:`rankaudit.compare_runs` and
  :func:`rankaudit.leaderboard`: sign flips of the randomisation test (Fisher 1935; Smucker,
  Allan & Carterette, CIKM 2007), resamples of the paired bootstrap (Efron & Tibshirani 1993),
  and their seed.
"""

from __future__ import annotations

from dataclasses import dataclass

from rankaudit._checks import BOOTSTRAP_RESAMPLES, SIGN_FLIPS, check_count, check_seed

__all__ = ["DEFAULT_RESAMPLING", "ResamplingOptions"]


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
