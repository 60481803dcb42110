"""The declared measure families: each measure's name (ir_measures' spelling), typed parameters
with their checks, cutoff rule, trec_eval name, list-kernel code, how its expectation under
random ties is computed and how its per-query values aggregate over queries.  Definitions:
:mod:`rankaudit.measures.registry`.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, NamedTuple

from rankaudit._checks import LABEL_LIMIT, check_label_level
from rankaudit.measures import list_support as K

__all__ = [
    "AGGREGATIONS",
    "ERR_MAX_GRADE",
    "FAMILIES",
    "Family",
    "KernelArgs",
    "Param",
    "label_utility",
]

#: How a measure's per-query values combine into one value for the run, as trec_eval
#: combines them: ``"mean"`` over the evaluated queries, or ``"sum"`` (trec_eval's counts
#: ``num_ret``, ``num_rel``, ``num_rel_ret``; ir_measures' ``SumAgg``).
AGGREGATIONS = ("mean", "sum")

#: ERR's largest ``max_grade``: ``1 - 2**-60`` is still below 1 in a double.
ERR_MAX_GRADE = 60

_GAIN_MAX = 2.0**K.EXP_GAIN_TOP


def _check_dcg(value: object, name: str) -> str:
    if value not in ("log2", "exp-log2"):
        raise ValueError(f"{name}={value!r}: use 'log2' (linear gain) or 'exp-log2' (2**rel - 1)")
    return str(value)


def _check_gains(value: object, name: str) -> tuple[tuple[int, float], ...]:
    if not isinstance(value, dict) or not value:
        raise ValueError(f"{name} must be a non-empty dict {{label: gain}}, e.g. {{0:0,1:1,2:3}}")
    out = []
    for label, gain in value.items():
        if isinstance(label, bool) or not isinstance(label, int) or abs(label) >= LABEL_LIMIT:
            raise ValueError(f"{name}: label {label!r} must be an integer with |label| < 2**53")
        if isinstance(gain, bool) or not isinstance(gain, int | float) or not math.isfinite(gain):
            raise ValueError(f"{name}: gain {gain!r} of label {label} must be a finite number")
        if abs(gain) > _GAIN_MAX:  # a DCG sum of such gains would overflow to infinity
            raise ValueError(
                f"{name}: gain {gain!r} of label {label} must be at most 2**{K.EXP_GAIN_TOP} "
                "in magnitude (a sum of larger gains overflows a double)"
            )
        if float(gain) != float(label):  # an identity entry changes nothing (ir_measures drops it)
            out.append((label, float(gain)))
    return tuple(sorted(out))


def _check_p(value: object, name: str) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float) or not 0 < value < 1:
        raise ValueError(f"{name}={value!r}: the persistence p must be a number in (0, 1)")
    return float(value)


def _check_rel(value: object, name: str) -> int:
    return check_label_level(value, name)


def _check_max_grade(value: object, name: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value <= ERR_MAX_GRADE:
        raise ValueError(f"{name}={value!r}: max_grade must be an integer in [0, {ERR_MAX_GRADE}]")
    return int(value)


@dataclass(frozen=True)
class Param:
    """A measure parameter: name, type name (for help), default (None = not set), check."""

    name: str
    kind: str
    default: object
    check: Callable[[object, str], object]
    doc: str


_REL = Param("rel", "int", None, _check_rel, "relevance level (default: the evaluation's -l)")
#: RBP's ``rel`` as ir_measures reads it: given, RBP is binary at that level; not given, RBP
#: is graded (a document at or above the evaluation's -l adds its label).
_RBP_REL = Param(
    "rel", "int", None, _check_rel, "binary at this level (default: graded, labels >= -l)"
)


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
    (:func:`rankaudit.measures.list_evaluate.utility_class`).
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

    def __post_init__(self) -> None:
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
            K.NDCG,
            "optional",
            (
                Param("dcg", "str", "log2", _check_dcg, "'log2' (linear gain) or 'exp-log2'"),
                Param("gains", "dict", None, _check_gains, "gain map {label: gain}"),
            ),
            "ndcg",
            "ndcg_cut",
            "normalised discounted cumulative gain",
            aliases=("ndcg", "ndcg_cut"),
            kernel_args=_ndcg_args,
            utility=_ndcg_utility,
        ),
        Family("P", K.P, "required", (_REL,), None, "P", "precision at k", aliases=("precision",)),
        Family("R", K.R, "required", (_REL,), None, "recall", "recall at k", aliases=("recall",)),
        Family(
            "Rprec",
            K.RPREC,
            "none",
            (_REL,),
            "Rprec",
            None,
            "precision at rank R",
            aliases=("r-precision", "r_precision"),
        ),
        Family(
            "AP",
            K.AP,
            "optional",
            (_REL,),
            "map",
            "map_cut",
            "average precision",
            aliases=("map", "map_cut"),
        ),
        Family(
            "RR",
            K.RR,
            "optional",
            (_REL,),
            "recip_rank",
            None,
            "reciprocal rank",
            aliases=("mrr", "recip_rank"),
        ),
        Family(
            "Success",
            K.SUCCESS,
            "required",
            (_REL,),
            None,
            "success",
            "a relevant document in the top k",
            aliases=("hr", "hit_rate", "success"),
        ),
        Family(
            "Judged",
            K.JUDGED,
            "required",
            (),
            None,
            None,
            "share of the top k judged",
            utility=lambda m, level: ("judged",),
        ),
        Family(
            "NumRet",
            K.NUMRET,
            "optional",
            (),
            "num_ret",
            None,
            "documents retrieved",
            aliases=("num_ret",),
            aggregation="sum",
        ),
        Family(
            "NumRel",
            K.NUMREL,
            "none",
            (_REL,),
            "num_rel",
            None,
            "relevant in the qrels",
            aliases=("num_rel",),
            aggregation="sum",
        ),
        Family(
            "NumRelRet",
            K.NUMRELRET,
            "optional",
            (_REL,),
            "num_rel_ret",
            None,
            "relevant documents retrieved",
            aliases=("hits", "num_rel_ret"),
            aggregation="sum",
        ),
        Family(
            "RBP",
            K.RBP,
            "optional",
            (Param("p", "float", 0.8, _check_p, "persistence"), _RBP_REL),
            None,
            None,
            "rank-biased precision (graded; binary at rel=l)",
            kernel_args=_rbp_args,
            utility=_rbp_utility,
        ),
        Family(
            "RBPres",
            K.RBPRES,
            "none",
            (Param("p", "float", 0.8, _check_p, "persistence"),),
            None,
            None,
            "RBP's residual (unjudged and unretrieved mass)",
            direction=-1,
            kernel_args=lambda m: KernelArgs(real=float(m.param("p"))),
            utility=lambda m, level: ("unjudged",),
        ),
        Family(
            "ERR",
            K.ERR,
            "required",
            (Param("max_grade", "int", 4, _check_max_grade, "grade of R = 1 - 2**-g"),),
            None,
            None,
            "expected reciprocal rank (cascade)",
            aliases=("err",),
            kernel_args=lambda m: KernelArgs(integer=int(m.param("max_grade"))),
        ),
        Family(
            "Bpref",
            K.BPREF,
            "none",
            (_REL,),
            "bpref",
            None,
            "binary preference",
            aliases=("bpref",),
            utility=_bpref_utility,
        ),
    )
}
