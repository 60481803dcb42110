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

Each rule is one :class:`TieRule` declaration that carries its behaviour, and every dispatch
reads it (no rule name is compared anywhere else):

- ``order``: how a tie block is resolved: ``"key"`` (every measure alike, by the rule's sort
  ``key``, ascending), ``"bound"`` (each measure by its own utility: ``bound = -1`` worst
  first, ``+1`` best first), ``"expected"`` (the exact mean over uniform random orders) or
  ``"sample"`` (seeded uniform random orders, averaged);
- ``key``: for a ``"key"`` rule, a function of a :class:`TieContext` (what an input shape
  offers: input positions, item ranks, the hash order) returning an integer key per
  document, so that a new key rule needs no adapter code;
- ``row_mode``: the row kernels' built-in mode of a key rule (their fast path,
  :mod:`rankaudit.measures.row_ordered`), or None to sort by ``key`` there too;
- ``describe``: the checklist's description (``{seed}`` and ``{n_repeats}`` are filled in);
- flags: ``needs_seed``, ``needs_items`` (rows: item ids required), ``input_dependent`` (the
  order inside ties comes from how the input was written: its file order or its document
  names; the checklist warns), ``rows`` / ``runs`` (which API offers it).

:func:`rule` returns the declaration of a name, and raises the library's ValueError for an
unknown one; :func:`register_rule` adds one (tests use it to prove the dispatch reads here).
"""

from __future__ import annotations

import difflib
from collections.abc import Callable
from dataclasses import dataclass
from typing import Protocol

import numpy as np

__all__ = [
    "DETERMINISTIC_RULES",
    "ORDERS",
    "ROW_MODES",
    "RULES",
    "RUN_TIE_RULES",
    "TIE_RULES",
    "TieContext",
    "TieRule",
    "check_rule",
    "check_rules",
    "register_rule",
    "rule",
    "rule_names",
]

#: how a rule resolves a tie block (module docstring)
ORDERS = ("key", "bound", "expected", "sample")
#: the row kernels' built-in modes (:mod:`rankaudit.measures.row_ordered` reads them from
#: here): a key rule's fast path, or the bound rules' label order
ROW_MODES = {"input_order": 0, "optimistic": 1, "pessimistic": 2, "hash": 3, "key": 4}


class TieContext(Protocol):
    """What an input shape (a run's queries, rectangular or ragged rows) offers a key rule:
    one integer per document, flat in the shape's document order."""

    def position(self) -> np.ndarray:
        """The document's input position (file order inside each query or row)."""
        ...

    def item_rank(self) -> np.ndarray:
        """The rank of the document's id among all ids, ascending (docnos in byte order)."""
        ...

    def hash_rank(self) -> np.ndarray:
        """The rank of the document in the seeded hash order
        (:func:`rankaudit.measures.hashing.hash_order_ranks`)."""
        ...


@dataclass(frozen=True)
class TieRule:
    """A tie rule and its behaviour (module docstring)."""

    name: str
    summary: str
    order: str
    describe: str
    rows: bool
    runs: bool
    key: Callable[[TieContext], np.ndarray] | None = None
    bound: int = 0
    row_mode: int | None = None
    needs_seed: bool = False
    needs_items: bool = False
    input_dependent: bool = False

    def __post_init__(self) -> None:
        if self.order not in ORDERS:
            raise ValueError(f"tie rule {self.name!r}: order {self.order!r} is not in {ORDERS}")
        if (self.order == "key") != (self.key is not None):
            raise ValueError(f"tie rule {self.name!r}: a key exactly when order='key'")
        if (self.order == "bound") != (self.bound in (-1, 1)):
            raise ValueError(f"tie rule {self.name!r}: bound -1 or +1 exactly when order='bound'")
        if self.row_mode is not None and self.row_mode not in ROW_MODES.values():
            raise ValueError(f"tie rule {self.name!r}: row_mode {self.row_mode!r} is unknown")

    @property
    def deterministic(self) -> bool:
        """Whether the rule fixes one order of every tie block."""
        return self.order in ("key", "bound")

    @property
    def kernel_mode(self) -> int:
        """The row kernels' mode: the declared fast path, the bounds' label order, or the
        generic sort by :attr:`key`."""
        if self.order == "bound":
            return ROW_MODES["optimistic" if self.bound > 0 else "pessimistic"]
        if self.order != "key":
            raise ValueError(f"tie rule {self.name!r} does not fix an order")
        return ROW_MODES["key"] if self.row_mode is None else self.row_mode


RULES: dict[str, TieRule] = {
    r.name: r
    for r in (
        TieRule(
            "trec_eval",
            "docno descending (byte order), as trec_eval",
            "key",
            "score descending, ties by docno descending (byte order), as trec_eval: the "
            "document names decide every tie",
            rows=False,
            runs=True,
            key=lambda ctx: np.negative(ctx.item_rank()),
            input_dependent=True,
        ),
        TieRule(
            "input_order",
            "input position (a stable sort)",
            "key",
            "score descending, ties in input order (a stable sort): how the input was "
            "written enters the ranking",
            rows=True,
            runs=True,
            key=lambda ctx: ctx.position(),
            row_mode=ROW_MODES["input_order"],
            input_dependent=True,
        ),
        TieRule(
            "hash",
            "seeded tie hash of (query, item)",
            "key",
            "deterministic hash: tie_hash(seed={seed}, query or user id, item id) ascending, "
            "collisions by item id",
            rows=True,
            runs=True,
            key=lambda ctx: ctx.hash_rank(),
            row_mode=ROW_MODES["hash"],
            needs_seed=True,
            needs_items=True,
        ),
        TieRule(
            "random",
            "uniform random, seeded",
            "sample",
            "uniform random order within ties, seed {seed}, averaged over {n_repeats} orders",
            rows=True,
            runs=False,
            needs_seed=True,
        ),
        TieRule(
            "expected",
            "exact mean over uniform random orders",
            "expected",
            "exact expectation over uniform random orders of every tie block (closed form, "
            "no seed)",
            rows=True,
            runs=True,
        ),
        TieRule(
            "pessimistic",
            "worst first: the measure's minimum",
            "bound",
            "pessimistic bound: relevant and higher-gain items last within ties (the "
            "measure's minimum)",
            rows=True,
            runs=True,
            bound=-1,
        ),
        TieRule(
            "optimistic",
            "best first: the measure's maximum",
            "bound",
            "optimistic bound: relevant and higher-gain items first within ties (the "
            "measure's maximum)",
            rows=True,
            runs=True,
            bound=1,
        ),
    )
}

#: the rules of the rectangular API, in the order they are documented
TIE_RULES: tuple[str, ...] = (
    "input_order",
    "hash",
    "random",
    "expected",
    "pessimistic",
    "optimistic",
)
#: the rules of the run API, trec_eval's first
RUN_TIE_RULES: tuple[str, ...] = (
    "trec_eval",
    "input_order",
    "expected",
    "pessimistic",
    "optimistic",
    "hash",
)
DETERMINISTIC_RULES: tuple[str, ...] = tuple(n for n in TIE_RULES if RULES[n].deterministic)


def register_rule(declared: TieRule) -> TieRule:
    """Add a rule to the registry (every dispatch reads it from there); a name may be
    declared once."""
    if not isinstance(declared, TieRule):
        raise ValueError(f"register_rule takes a TieRule; got {type(declared).__name__}")
    if declared.name in RULES:
        raise ValueError(f"tie rule {declared.name!r} is already declared")
    RULES[declared.name] = declared
    return declared


def rule_names(api: str = "rows") -> tuple[str, ...]:
    """The rules of ``api`` (``"rows"`` or ``"runs"``): the documented ones first, then any
    registered later."""
    if api not in ("rows", "runs"):
        raise ValueError(f"api={api!r}: use 'rows' or 'runs'")
    documented = TIE_RULES if api == "rows" else RUN_TIE_RULES
    later = (n for n, r in RULES.items() if n not in documented and getattr(r, api))
    return (*documented, *later)


def rule(name: object) -> TieRule:
    """The declaration of rule ``name``; an unknown name is a ValueError naming the known
    ones (there is no default rule)."""
    if isinstance(name, str) and name in RULES:
        return RULES[name]
    hint = ""
    if isinstance(name, str):
        found = difflib.get_close_matches(name, list(RULES), n=1, cutoff=0.5)
        hint = f" (did you mean {found[0]!r}?)" if found else ""
    raise ValueError(f"ties={name!r} is not a tie rule{hint}; known rules: {', '.join(RULES)}")


def check_rule(ties: object, *, api: str = "rows") -> str:
    """Return ``ties`` if it names a rule of ``api`` (``"rows"`` or ``"runs"``), else raise a
    ValueError listing the valid ones and naming the closest."""
    valid = rule_names(api)
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
