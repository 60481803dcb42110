"""The book's decision standard as a page reads it: verdict words and the thresholds of words.

Every verdict a page prints is one of :data:`rankaudit.runs.decision.VERDICTS`, computed by the
library's :mod:`rankaudit.runs.decision` (effect, equivalence, paper's claim, expectation). This
module adds what pages need beside them:

- :data:`DECISION_LABEL`: the label of the page "How this book decides" (``book/decide.md``),
  which states the standard once and glues its thresholds from here;
- the thresholds of the book's size words (:data:`FEW_BELOW`, :data:`MOST_ABOVE` for
  :func:`rankbook.report.prose.share_word`; :data:`SMALL_RATIO` for
  :func:`rankbook.report.prose.size_word`), stated on that page and nowhere in running text;
- :func:`row_claim_verdict`: a table row read as the paper's claim that its lift is above zero,
  by the same rule as every claim (:func:`rankaudit.runs.decision.claim_verdict`);
- :func:`verdict_with_power`: a verdict with its power in parentheses when not resolved;
- :func:`n_resolved`: how many pairs of a table have their difference resolved, each by
  :func:`rankaudit.runs.decision.direction_verdict` at its Holm-adjusted p-value.

Public API: the names in ``__all__``.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from rankaudit._checks import check_unit_interval
from rankaudit.runs.decision import (
    ALPHA,
    MIN_POWER,
    NOT_RESOLVED,
    RESOLVED_ABOVE,
    VERDICTS,
    Z_AGREE,
    claim_verdict,
    direction_verdict,
)

__all__ = [
    "ALPHA",
    "DECISION_LABEL",
    "FEW_BELOW",
    "MIN_POWER",
    "MOST_ABOVE",
    "SMALL_RATIO",
    "VERDICTS",
    "Z_AGREE",
    "decision_constants",
    "n_resolved",
    "row_claim_verdict",
    "verdict_with_power",
]

#: MyST label of the page that states the standard ("How this book decides").
DECISION_LABEL = "how-this-book-decides"
#: "few": a share below this.
FEW_BELOW = 0.1
#: "most": a share above this.
MOST_ABOVE = 0.5
#: "small": under this fraction of the reference the sentence names.
SMALL_RATIO = 0.5


def verdict_with_power(verdict: str, power: float | None) -> str:
    """``verdict``, with "(power 0.46)" appended when it is :data:`NOT_RESOLVED` and the power
    is known (a non-result is read with the power it had); a nonzero power that two decimals
    would print as 0.00 reads "(power < 0.01)". ``power`` must be a probability (NaN or an
    infinity is refused, naming it, even when it is not printed)."""
    if verdict not in VERDICTS:
        raise ValueError(f"not a verdict of the decision standard: {verdict!r}")
    if power is not None:
        power = check_unit_interval(power, "power")
    if verdict != NOT_RESOLVED or power is None:
        return verdict
    if 0.0 < power < 0.005:
        return f"{verdict} (power < 0.01)"
    return f"{verdict} (power {power:.2f})"


def row_claim_verdict(row: Mapping[str, Any], power: float | None) -> str:
    """A Table 1 row as the paper's claim "this feature lifts MRR": the paper claims the lift is
    above zero; ``row["verdict"]`` is what the row's test reached (Holm within its family)."""
    return claim_verdict(RESOLVED_ABOVE, str(row["verdict"]), power, min_power=MIN_POWER)


def n_resolved(
    pairs: Iterable[Mapping[str, Any]], alpha: float = ALPHA, measure: str | None = None
) -> int:
    """How many of ``pairs`` (records with ``diff`` and ``p_holm``, as a leaderboard's
    ``pairs`` or :func:`rankbook.audit.protocol_pairs.pair_tests` give them) have their
    difference resolved at level ``alpha``: the verdict of
    :func:`rankaudit.runs.decision.direction_verdict` at the pair's Holm-adjusted p-value is not
    :data:`NOT_RESOLVED` (so ``p_holm <= alpha`` and ``diff != 0``). A pair whose tests were not
    computed (``p_holm`` None) is not resolved. With ``measure``: only the pairs on that
    measure (their ``measure`` field)."""
    return sum(
        direction_verdict(float(r["diff"]), float(r["p_holm"]), alpha=alpha) != NOT_RESOLVED
        for r in pairs
        if (measure is None or r["measure"] == measure) and r["p_holm"] is not None
    )


def decision_constants() -> dict[str, float]:
    """The thresholds the decision page glues, by name."""
    return {
        "alpha": ALPHA,
        "min_power": MIN_POWER,
        "z_agree": Z_AGREE,
        "few_below": FEW_BELOW,
        "most_above": MOST_ABOVE,
        "small_ratio": SMALL_RATIO,
    }
