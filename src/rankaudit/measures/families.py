"""The declared measure families: each measure's name (ir_measures' spelling), typed parameters
with their checks (:mod:`rankaudit.measures.params`), cutoff rule, trec_eval name, list-kernel
code (:mod:`rankaudit.measures.list_kernels`), direction, how its expectation under random ties
is computed, how its per-query values aggregate over queries, and its plain definition on one
ranked list (``reference``, with its formula and citation), which the kernel is tested against.
Parsing: :mod:`rankaudit.measures.registry`.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, NamedTuple

from rankaudit.measures import list_kernels as codes
from rankaudit.measures import list_support as K
from rankaudit.measures.gains import gain_of, gain_scale, ideal_dcg
from rankaudit.measures.params import (
    ERR_MAX_GRADE,
    RBP_REL,
    REL,
    Param,
    check_dcg,
    check_gains,
    check_max_grade,
    check_p,
)

__all__ = [
    "AGGREGATIONS",
    "ERR_MAX_GRADE",
    "FAMILIES",
    "Family",
    "KernelArgs",
    "Ranked",
    "Param",
    "label_utility",
]

#: How a measure's per-query values combine into one value for the run, as trec_eval
#: combines them: ``"mean"`` over the evaluated queries, or ``"sum"`` (trec_eval's counts
#: ``num_ret``, ``num_rel``, ``num_rel_ret``; ir_measures' ``SumAgg``).
AGGREGATIONS = ("mean", "sum")

class KernelArgs(NamedTuple):
    """What a measure passes its kernel branch beside code, cutoff and level (one entry of
    :class:`~rankaudit.measures.list_support.MeasureSpec`): ``real`` (RBP's ``p``),
    ``integer`` (ERR's ``max_grade``; RBP: graded or binary), the gain kind and a gain map."""

    real: float = 0.0
    integer: int = 0
    gain_kind: int = K.LINEAR_GAIN
    gains: tuple[tuple[int, float], ...] = ()


def label_utility(measure: Any, relevance_level: int) -> tuple:
    """The bound order most measures share (``("label",)``: by label, judged non-relevant
    below unjudged; :func:`rankaudit.measures.list_evaluate.utility_class`), or, for a measure
    with ``rel`` at a level below 1, relevance at that level (``("relevant", level)``)."""
    has_rel = any(p.name == "rel" for p in FAMILIES[measure.family].params)
    level = measure.level(relevance_level)
    return ("relevant", level) if has_rel and level < 1 else ("label",)


def _ndcg_args(m: Any) -> KernelArgs:
    gains = m.param("gains")
    if gains is not None:
        return KernelArgs(gain_kind=K.MAPPED_GAIN, gains=gains)
    return KernelArgs(gain_kind=K.EXP_GAIN if m.param("dcg") == "exp-log2" else K.LINEAR_GAIN)


def _ndcg_utility(m: Any, relevance_level: int) -> tuple:
    gains = m.param("gains")
    return ("gain", gains) if gains is not None else label_utility(m, relevance_level)


def _rbp_args(m: Any) -> KernelArgs:
    return KernelArgs(
        real=float(m.param("p")), integer=K.RBP_GRADED if m.param("rel") is None else 0
    )


def _rbp_utility(m: Any, relevance_level: int) -> tuple:
    # graded: its gain (the label at or above the level) never decreases along the label key
    return ("label",) if m.param("rel") is None else label_utility(m, relevance_level)


def _bpref_utility(m: Any, relevance_level: int) -> tuple:
    level = m.level(relevance_level)
    return ("bpref", level) if level != 1 else label_utility(m, relevance_level)


class Ranked(NamedTuple):
    """One ranked list as a family's ``reference`` reads it: the measure, ``labels[r-1]`` the
    label at rank r (None: unjudged), ``judged`` every label of the query in the qrels,
    ``level`` the measure's relevance level, ``rel`` (relevant at each rank), ``top`` (``rel``
    within the cutoff), ``n_rel`` and ``n_nonrel`` (judged relevant and non-relevant)."""

    measure: Any
    labels: Sequence[int | None]
    judged: Sequence[int]
    level: int
    rel: list[bool]
    top: list[bool]
    n_rel: int
    n_nonrel: int


def _ndcg_reference(x: Ranked) -> float:
    """``DCG@k / IDCG@k``, ``DCG@k = sum_{r<=k} g(label_r) / log2(r + 1)`` (Järvelin &
    Kekäläinen, 2002), the ideal from every judged label (trec_eval's)."""
    m, k = x.measure, x.measure.cutoff
    scale = gain_scale(m, x.judged)
    gains = [gain_of(m, lab, scale) for lab in x.labels][: k if k is not None else len(x.labels)]
    dcg = sum(g / math.log2(r + 1) for r, g in enumerate(gains, start=1) if g > 0)
    idcg = ideal_dcg(x.judged, k, m)
    return dcg / idcg if idcg > 0 else 0.0


def _ap_reference(x: Ranked) -> float:
    """``sum_{r<=k, rel_r} P@r / R`` (trec_eval's ``map``; 0 without a relevant document)."""
    hits, total = 0, 0.0
    for r, hit in enumerate(x.top, start=1):
        hits += hit
        total += hits / r if hit else 0.0
    return total / x.n_rel if x.n_rel else 0.0


def _rbp_reference(x: Ranked) -> float:
    """``(1 - p) sum_r u_r p**(r-1)`` (Moffat & Zobel, 2008): ``u_r`` the label at or above
    the level (graded, ``rel`` not given) or 1 (binary at ``rel``)."""
    p, graded = float(x.measure.param("p")), x.measure.param("rel") is None
    k = x.measure.cutoff
    labels = x.labels if k is None else x.labels[:k]
    return (1 - p) * sum(
        (lab if graded else 1) * p ** (r - 1)  # type: ignore[operator]
        for r, (lab, hit) in enumerate(zip(labels, x.top, strict=True), start=1)
        if hit and (not graded or lab > 0)  # type: ignore[operator]
    )


def _rbpres_reference(x: Ranked) -> float:
    """RBP's residual: ``(1 - p) sum_{r unjudged} p**(r-1) + p**n`` (Moffat & Zobel, 2008)."""
    p = float(x.measure.param("p"))
    unjudged = [r for r, lab in enumerate(x.labels, start=1) if lab is None]
    return (1 - p) * sum(p ** (r - 1) for r in unjudged) + p ** len(x.labels)


def _err_reference(x: Ranked) -> float:
    """``sum_{r<=k} R_r / r prod_{i<r} (1 - R_i)``, ``R = (2**label - 1) / 2**max_grade``
    (Chapelle et al., 2009)."""
    top_grade = 2.0 ** int(x.measure.param("max_grade"))
    total, survive = 0.0, 1.0
    for r, lab in enumerate(x.labels[: x.measure.cutoff], start=1):
        stop = (2.0**lab - 1.0) / top_grade if lab is not None and lab > 0 else 0.0
        total += survive * stop / r
        survive *= 1.0 - stop
    return total


def _bpref_reference(x: Ranked) -> float:
    """``1/R sum_{rel r} (1 - min(above_r, R) / min(N, R))`` over the judged documents
    (Buckley & Voorhees, 2004; trec_eval's ``bpref``)."""
    above, total = 0, 0.0
    for lab in x.labels:
        if lab is None or lab < 0:
            continue
        if lab < x.level:
            above += 1
        else:
            total += 1.0 if above == 0 else 1.0 - min(above, x.n_rel) / min(x.n_nonrel, x.n_rel)
    return total / x.n_rel if x.n_rel else 0.0


def _recall(hits: Sequence[bool], n_rel: int) -> float:
    return sum(hits) / n_rel if n_rel else 0.0


def _judged_share(shown: Sequence[int | None]) -> float:
    return sum(lab is not None for lab in shown) / len(shown) if shown else 0.0


@dataclass(frozen=True)
class Family:
    """A measure declared once: see the module docstring for the definitions.

    ``cutoff`` is ``"required"``, ``"optional"`` or ``"none"``; ``kernel`` the list-kernel
    code; ``trec_eval`` the key pytrec_eval reports without cutoff (``None``: trec_eval lacks
    the measure); ``expectation`` how ``ties="expected"`` is computed (``"exact"``);
    ``aggregation`` how per-query values combine over queries (one of :data:`AGGREGATIONS`:
    ``"mean"``, or ``"sum"`` for the counts, as trec_eval and ir_measures sum them);
    ``direction`` which values are better, ``+1`` higher (every family here except RBP's
    residual, the unjudged mass left: less is a more complete judgement), ``-1`` lower: the
    leaderboard orders by it; ``kernel_args`` what the measure passes its kernel branch
    (:class:`KernelArgs`); ``utility`` the class its bounds order each tie block by
    (:func:`rankaudit.measures.list_evaluate.utility_class`); ``reference`` its plain
    definition on one ranked list (:class:`Ranked`), which the kernel branch is tested against
    (:func:`rankaudit.measures.list_reference.measure_of_ranking`): required.
    """

    name: str
    kernel: int
    cutoff: str
    params: tuple[Param, ...]
    trec_eval: str | None
    trec_eval_cut: str | None
    summary: str
    expectation: str = "exact"
    aliases: tuple[str, ...] = field(default=())
    aggregation: str = "mean"
    direction: int = 1
    kernel_args: Callable[[Any], KernelArgs] = field(default=lambda m: KernelArgs())
    utility: Callable[[Any, int], tuple] = field(default=label_utility)
    reference: Callable[[Ranked], float] | None = None

    def __post_init__(self) -> None:
        if not callable(self.reference):
            raise ValueError(f"{self.name}: declare its reference, a function of one Ranked list")
        if self.aggregation not in AGGREGATIONS:
            raise ValueError(f"{self.name}: aggregation {self.aggregation!r} not in {AGGREGATIONS}")
        if self.direction not in (1, -1):
            raise ValueError(f"{self.name}: direction {self.direction!r} is +1 or -1")

    def param(self, name: str) -> Param:
        for p in self.params:
            if p.name == name:
                return p
        raise KeyError(name)


FAMILIES: dict[str, Family] = {
    f.name: f
    for f in (
        Family(
            "nDCG",
            codes.NDCG,
            "optional",
            (
                Param("dcg", "str", "log2", check_dcg, "'log2' (linear gain) or 'exp-log2'"),
                Param("gains", "dict", None, check_gains, "gain map {label: gain}"),
            ),
            "ndcg",
            "ndcg_cut",
            "normalised discounted cumulative gain",
            aliases=("ndcg", "ndcg_cut"),
            kernel_args=_ndcg_args,
            utility=_ndcg_utility,
            reference=_ndcg_reference,
        ),
        Family(
            "P", codes.P, "required", (REL,), None, "P", "precision at k",
            aliases=("precision",),
            reference=lambda x: sum(x.top) / x.measure.cutoff,
        ),
        Family(
            "R", codes.R, "required", (REL,), None, "recall", "recall at k",
            aliases=("recall",),
            reference=lambda x: _recall(x.top, x.n_rel),
        ),
        Family(
            "Rprec", codes.RPREC, "none", (REL,), "Rprec", None, "precision at rank R",
            aliases=("r-precision", "r_precision"),
            reference=lambda x: _recall(x.rel[: x.n_rel], x.n_rel),
        ),
        Family(
            "AP", codes.AP, "optional", (REL,), "map", "map_cut", "average precision",
            aliases=("map", "map_cut"),
            reference=_ap_reference,
        ),
        Family(
            "RR", codes.RR, "optional", (REL,), "recip_rank", None, "reciprocal rank",
            aliases=("mrr", "recip_rank"),
            reference=lambda x: next((1.0 / r for r, h in enumerate(x.top, start=1) if h), 0.0),
        ),
        Family(
            "Success", codes.SUCCESS, "required", (REL,), None, "success",
            "a relevant document in the top k",
            aliases=("hr", "hit_rate", "success"),
            reference=lambda x: float(any(x.top)),
        ),
        Family(
            "Judged", codes.JUDGED, "required", (), None, None, "share of the top k judged",
            utility=lambda m, level: ("judged",),
            reference=lambda x: _judged_share(x.labels[: x.measure.cutoff]),
        ),
        Family(
            "NumRet", codes.NUMRET, "optional", (), "num_ret", None, "documents retrieved",
            aliases=("num_ret",),
            aggregation="sum",
            reference=lambda x: float(len(x.top)),
        ),
        Family(
            "NumRel", codes.NUMREL, "none", (REL,), "num_rel", None, "relevant in the qrels",
            aliases=("num_rel",),
            aggregation="sum",
            reference=lambda x: float(x.n_rel),
        ),
        Family(
            "NumRelRet", codes.NUMRELRET, "optional", (REL,), "num_rel_ret", None,
            "relevant documents retrieved",
            aliases=("hits", "num_rel_ret"),
            aggregation="sum",
            reference=lambda x: float(sum(x.top)),
        ),
        Family(
            "RBP", codes.RBP, "optional",
            (Param("p", "float", 0.8, check_p, "persistence"), RBP_REL), None, None,
            "rank-biased precision (graded; binary at rel=l)",
            kernel_args=_rbp_args,
            utility=_rbp_utility,
            reference=_rbp_reference,
        ),
        Family(
            "RBPres", codes.RBPRES, "none", (Param("p", "float", 0.8, check_p, "persistence"),),
            None, None, "RBP's residual (unjudged and unretrieved mass)",
            direction=-1,
            kernel_args=lambda m: KernelArgs(real=float(m.param("p"))),
            utility=lambda m, level: ("unjudged",),
            reference=_rbpres_reference,
        ),
        Family(
            "ERR", codes.ERR, "required",
            (Param("max_grade", "int", 4, check_max_grade, "grade of R = 1 - 2**-g"),), None, None,
            "expected reciprocal rank (cascade)",
            aliases=("err",),
            kernel_args=lambda m: KernelArgs(integer=int(m.param("max_grade"))),
            reference=_err_reference,
        ),
        Family(
            "Bpref", codes.BPREF, "none", (REL,), "bpref", None, "binary preference",
            aliases=("bpref",),
            utility=_bpref_utility,
            reference=_bpref_reference,
        ),
    )
}
