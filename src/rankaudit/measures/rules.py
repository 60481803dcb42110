"""The one registry of tie rules: how candidates with exactly equal scores are ordered.

Every rule ranks by score, descending; they differ only inside a tie block (candidates whose
scores are exactly equal as given: no rounding, no tolerance).

=================  ===================================================  ===========  ========
rule               order within a tie block                             rows         runs
=================  ===================================================  ===========  ========
``trec_eval``      docno descending in byte order (``strcmp``): what    --           yes
                   trec_eval and pytrec_eval do
``input_order``    input position (a stable sort): lets a relevant-     yes          yes
                   first row win every tie; not row-order invariant
``hash``           ascending ``tie_hash(seed, query/user id, item id)``  yes          yes
                   (:mod:`rankaudit.measures.hashing`), ids on collision
``random``         uniform random, seeded; ``n_repeats`` averages       yes          --
``expected``       no order: the exact mean over uniform random orders  yes          yes
``pessimistic``    worst first for the measure: its minimum             yes          yes
``optimistic``     best first for the measure: its maximum              yes          yes
=================  ===================================================  ===========  ========

*rows* is the rectangular API (:func:`rankaudit.evaluate`), *runs* the run API
(:func:`rankaudit.runs.evaluate_run`, ``rankaudit audit``).  Why the bounds are bounds: each
measure is a sum over ranks of a non-increasing weight times a per-document utility (its gain,
its relevance, whether it is judged, ERR's stopping probability) or a non-decreasing function
of how early the useful documents come, so inside a block putting higher utility first can
only raise it (rearrangement inequality); the bound rules sort each block by the measure's own
utility.  A rule is *row-order invariant* when permuting a row's candidates leaves the value
unchanged: all rules except ``input_order`` are.
"""

from __future__ import annotations

import difflib
from dataclasses import dataclass

__all__ = [
    "DETERMINISTIC_RULES",
    "RULES",
    "RUN_TIE_RULES",
    "TIE_RULES",
    "TieRule",
    "check_rule",
    "check_rules",
]


@dataclass(frozen=True)
class TieRule:
    """A tie rule: name, one-line summary, whether it fixes one order, where it applies."""

    name: str
    summary: str
    deterministic: bool
    rows: bool
    runs: bool


RULES: dict[str, TieRule] = {
    r.name: r
    for r in (
        TieRule("trec_eval", "docno descending (byte order), as trec_eval", True, False, True),
        TieRule("input_order", "input position (a stable sort)", True, True, True),
        TieRule("hash", "seeded tie hash of (query, item)", True, True, True),
        TieRule("random", "uniform random, seeded", False, True, False),
        TieRule("expected", "exact mean over uniform random orders", False, True, True),
        TieRule("pessimistic", "worst first: the measure's minimum", True, True, True),
        TieRule("optimistic", "best first: the measure's maximum", True, True, True),
    )
}

#: the rules of the rectangular API, in the order they are documented
TIE_RULES: tuple[str, ...] = tuple(
    n for n in ("input_order", "hash", "random", "expected", "pessimistic", "optimistic")
)
#: the rules of the run API, trec_eval's first
RUN_TIE_RULES: tuple[str, ...] = tuple(
    n for n in ("trec_eval", "input_order", "expected", "pessimistic", "optimistic", "hash")
)
DETERMINISTIC_RULES: tuple[str, ...] = tuple(n for n in TIE_RULES if RULES[n].deterministic)


def check_rule(ties: object, *, api: str = "rows") -> str:
    """Return ``ties`` if it names a rule of ``api`` (``"rows"`` or ``"runs"``), else raise a
    ValueError listing the valid ones and naming the closest."""
    valid = TIE_RULES if api == "rows" else RUN_TIE_RULES
    if isinstance(ties, str) and ties in valid:
        return ties
    hint = ""
    if isinstance(ties, str):
        found = difflib.get_close_matches(ties, valid, n=1, cutoff=0.5)
        if ties in RULES:
            hint = f" (it applies to {'runs' if api == 'rows' else 'rectangular rows'} only)"
        elif found:
            hint = f" (did you mean {found[0]!r}?)"
    raise ValueError(f"ties={ties!r} is not a tie rule{hint}; valid rules are: {', '.join(valid)}")


def check_rules(ties: object, *, api: str = "runs") -> list[str]:
    """Several rules: a sequence, or one string separated by commas and/or blanks; no
    duplicates, at least one."""
    if isinstance(ties, str):
        ties = [t for t in ties.replace(",", " ").split() if t]
    rules = [check_rule(t, api=api) for t in ties]  # type: ignore[union-attr]
    if not rules:
        raise ValueError("no tie rule given")
    if len(set(rules)) != len(rules):
        raise ValueError(f"a tie rule is given twice: {rules}")
    return rules
