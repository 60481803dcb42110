r"""What the run measures are: their names (as ir_measures spells them) and definitions.

This module says what each measure *is*; :mod:`rankaudit.runs.reference` computes them
plainly and :mod:`rankaudit.runs.kernels` fast (the split ir_measures makes between a
measure and its providers).  Every definition is trec_eval's (9.x), for one query with
ranked list ``d_1, d_2, ...`` (the run's documents in the order of the tie rule):

- ``rel(d)``: the qrels label of ``d``; unjudged documents have none (never relevant);
- relevant: judged with ``rel(d) >= relevance_level`` (default 1, trec_eval ``-l``);
- ``R``: the number of relevant documents of the query *in the qrels* (retrieved or not);
- gain ``g(d) = max(rel(d), 0)`` (trec_eval's ndcg skips gains <= 0).

========== ====================== ===============================================================
name       trec_eval              value
========== ====================== ===============================================================
nDCG@k     ``ndcg_cut.k``         ``DCG@k / IDCG@k``, ``DCG@k = sum_{r<=k} g(d_r) / log2(r+1)``,
                                  IDCG@k the same sum over *all* judged labels of the query sorted
                                  decreasingly (0 when IDCG is 0).  ``nDCG`` (no k): all ranks
                                  (``ndcg``).  Järvelin & Kekäläinen, ACM TOIS 20(4), 2002.
P@k        ``P.k``                ``#relevant among d_1..d_k / k`` (k even when fewer are retrieved)
R@k        ``recall.k``           ``#relevant among d_1..d_k / R`` (0 when R = 0)
AP         ``map``                ``(1/R) sum_{relevant d_r} P@r`` (0 when R = 0)
RR         ``recip_rank``         ``1 / r`` of the first relevant ``d_r``, 0 when none is retrieved
Success@k  ``success.k``          1 if a relevant document is among ``d_1..d_k``, else 0
========== ====================== ===============================================================

Queries: those with at least one line in both the run and the qrels (trec_eval's default);
with ``complete=True`` (``trec_eval -c``) every query of the qrels, a query absent from the
run scoring 0 on every measure.  The aggregate is the mean over those queries.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from rankaudit._checks import check_cutoff

__all__ = ["FAMILIES", "Measure", "parse_measure", "parse_measures"]

#: family name -> (kernel code, needs a cutoff, may take a cutoff, trec_eval name)
FAMILIES: dict[str, tuple[int, bool, bool, str]] = {
    "nDCG": (0, False, True, "ndcg_cut"),
    "P": (1, True, True, "P"),
    "R": (2, True, True, "recall"),
    "AP": (3, False, False, "map"),
    "RR": (4, False, False, "recip_rank"),
    "Success": (5, True, True, "success"),
}
_ALIASES = {name.lower(): name for name in FAMILIES} | {
    "map": "AP",
    "mrr": "RR",
    "recall": "R",
    "ndcg_cut": "nDCG",
    "success": "Success",
}
_PATTERN = re.compile(r"([A-Za-z_]+)(?:@(\d+))?")


@dataclass(frozen=True)
class Measure:
    """A measure with its parameter: ``family`` (one of :data:`FAMILIES`) and ``cutoff``.

    ``str(measure)`` is its ir_measures spelling (``nDCG@10``, ``AP``), and
    :attr:`trec_eval_name` the key pytrec_eval reports (``ndcg_cut_10``, ``map``).
    """

    family: str
    cutoff: int | None = None

    def __post_init__(self) -> None:
        if self.family not in FAMILIES:
            raise ValueError(
                f"unknown measure family {self.family!r}; known: {', '.join(FAMILIES)}"
            )
        _, needs, may, _ = FAMILIES[self.family]
        if self.cutoff is None and needs:
            raise ValueError(f"{self.family} needs a cutoff, e.g. {self.family}@10")
        if self.cutoff is not None and not may:
            raise ValueError(
                f"{self.family} takes no cutoff (trec_eval's {FAMILIES[self.family][3]} has none)"
            )
        if self.cutoff is not None:
            check_cutoff(self.cutoff, f"the cutoff of {self.family}")

    @property
    def code(self) -> int:
        """The kernel's integer code of the family."""
        return FAMILIES[self.family][0]

    @property
    def trec_eval_name(self) -> str:
        """The measure's name in pytrec_eval's output (``ndcg_cut_10``, ``P_10``, ``map``...)."""
        base = FAMILIES[self.family][3]
        if self.family == "nDCG" and self.cutoff is None:
            return "ndcg"
        return base if self.cutoff is None else f"{base}_{self.cutoff}"

    def __str__(self) -> str:
        return self.family if self.cutoff is None else f"{self.family}@{self.cutoff}"


def parse_measure(text: str | Measure) -> Measure:
    """``"nDCG@10"`` -> ``Measure("nDCG", 10)``; case-insensitive, with trec_eval aliases
    (``map``, ``recall@k``, ``mrr``).  Raises ValueError naming the text."""
    if isinstance(text, Measure):
        return text
    if not isinstance(text, str):
        raise ValueError(f"a measure must be a string such as 'nDCG@10'; got {text!r}")
    match = _PATTERN.fullmatch(text.strip())
    family = _ALIASES.get(match.group(1).lower()) if match else None
    if match is None or family is None:
        raise ValueError(
            f"unknown measure {text!r}; use nDCG@k, P@k, R@k, AP, RR or Success@k (e.g. nDCG@10)"
        )
    cutoff = int(match.group(2)) if match.group(2) is not None else None
    try:
        return Measure(family, cutoff)
    except ValueError as exc:
        raise ValueError(f"measure {text!r}: {exc}") from None


def parse_measures(texts: object) -> tuple[Measure, ...]:
    """Parse a sequence of measure names (or one comma-separated string); no duplicates."""
    if isinstance(texts, str):
        texts = [t for t in texts.split(",") if t.strip()]
    measures = tuple(parse_measure(t) for t in texts)  # type: ignore[union-attr]
    if not measures:
        raise ValueError("no measure given")
    seen: set[Measure] = set()
    for m in measures:
        if m in seen:
            raise ValueError(f"measure {m} is given twice")
        seen.add(m)
    return measures
