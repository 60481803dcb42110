r"""The one registry of measures: each declared once, with typed parameters, apart from its
providers (the split ir_measures makes between a measure and the code that computes it).

A :class:`Family` declares a measure: its name as ir_measures spells it, its parameters
(type, default, check), whether it takes a cutoff, its trec_eval name, the list-kernel code
it is computed by (tied by *name* to :mod:`rankaudit.measures.list_kernels`) and how its
expectation under uniform random tie orders is computed (``"exact"`` for every family here:
closed forms or a dynamic programme over the tie blocks, in
:mod:`rankaudit.measures.list_kernels`).  A :class:`Measure` is a family with its cutoff and
non-default parameters; ``str(measure)`` is the ir_measures spelling
(``nDCG(dcg='exp-log2')@10``), which :func:`parse_measure` reads back.

Definitions, trec_eval 9.x semantics, for one query with ranked list ``d_1, d_2, ...`` (the
run's documents in the order of the tie rule) and ``n`` retrieved documents:

- ``rel(d)``: the qrels label of ``d``; unjudged documents have none (never relevant);
- relevant: judged with ``rel(d) >= l``, ``l`` the measure's ``rel`` parameter or else the
  evaluation's relevance level (trec_eval ``-l``, default 1);
- ``R``: relevant documents of the query *in the qrels* (retrieved or not); ``N``: judged
  non-relevant documents in the qrels (``rel < l``);
- gain ``g(d)``: ``max(rel(d), 0)`` (``dcg='log2'``, trec_eval), ``2**rel(d) - 1`` for
  ``rel > 0`` (``dcg='exp-log2'``, Burges et al. 2005), or a map ``gains={label: gain}``
  applied to the qrels first (labels not in the map keep their value, as ir_measures does);
  0 when unjudged; gains <= 0 add nothing.

============ ================ ==================================================================
name         trec_eval        value
============ ================ ==================================================================
nDCG@k       ``ndcg_cut.k``   ``DCG@k / IDCG@k``, ``DCG@k = sum_{r<=k} g(d_r) / log2(r+1)``; IDCG
                              the same sum over all judged labels of the query, gains decreasing
                              (Järvelin & Kekäläinen 2002).  No k: ``ndcg``.
P@k          ``P.k``          ``#relevant in d_1..d_k / k``
R@k          ``recall.k``     ``#relevant in d_1..d_k / R`` (0 when R = 0)
Rprec        ``Rprec``        ``#relevant in d_1..d_R / R`` (Buckley & Voorhees 2000)
AP, AP@k     ``map``,         ``(1/R) sum_{relevant d_r, r<=k} P@r`` (0 when R = 0)
             ``map_cut.k``
RR, RR@k     ``recip_rank``   ``1/r`` of the first relevant ``d_r`` (``r <= k``), else 0
Success@k    ``success.k``    1 if a relevant document is among ``d_1..d_k``, else 0; ``HR@k``
                              is its recommender-systems name
Judged@k     (ir_measures)    ``#judged in d_1..d_k / min(n, k)`` (0 when nothing is retrieved)
NumRet       ``num_ret``      ``n`` (``@k``: ``min(n, k)``); ``NumRet(rel=l)`` is NumRelRet
NumRel       ``num_rel``      ``R``
NumRelRet    ``num_rel_ret``  ``#relevant retrieved`` (``@k``: in ``d_1..d_k``)
RBP(p)@k     (ir_measures)    ``(1-p) sum_{r<=k, d_r relevant} rel(d_r) p^(r-1)`` (Moffat &
                              Zobel 2008): graded, as ir_measures (trectools' graded RBP) and
                              ranx weight it; ``RBP(p, rel=l)`` is binary: each relevant
                              document (``rel >= l``) adds 1 (ir_measures' cwl_eval)
RBPres(p)    (none)           RBP's residual: ``(1-p) sum_{unjudged d_r} p^(r-1) + p^n``, the
                              most that unjudged and unretrieved documents could add to a
                              binary RBP (to a graded one: times the largest label)
ERR@k        (gdeval)         ``sum_{r<=k} (1/r) R_r prod_{i<r} (1 - R_i)``,
                              ``R_i = (2**g_i - 1) / 2**max_grade``, ``max_grade`` = 4 as
                              gdeval (Chapelle et al. 2009)
Bpref        ``bpref``        ``(1/R) sum_{relevant retrieved d_r} (1 - min(n_r, R)/min(R, N))``,
                              ``n_r`` judged non-relevant documents ranked above ``d_r``;
                              1 per relevant document when ``min(R, N) = 0`` (Buckley & Voorhees
                              2004; trec_eval's code)
============ ================ ==================================================================

Aggregation over queries (:mod:`rankaudit.measures.aggregation`), as trec_eval: the mean over
the evaluated queries for every measure except the counts ``NumRet``, ``NumRel`` and
``NumRelRet``, whose per-query values are summed (trec_eval's ``num_ret``, ``num_rel``,
``num_rel_ret``; ir_measures' ``SumAgg``). Each family declares its aggregation once
(:attr:`Family.aggregation`); every path that aggregates reads it from there. Sums are
``math.fsum`` (correctly rounded, exact for counts below 2**53) and means ``math.fsum / n``, so
an aggregate does not depend on the order of the queries.

Accepted spellings: ir_measures' (case-insensitive family, ``name(param=value, ...)@k``),
``HR@k`` for ``Success@k``, trec_eval's (``ndcg_cut.10``, ``map``, ``recip_rank``, ``P_10``)
and ranx's (``ndcg@10``, ``ndcg_burges@10``, ``precision@10``, ``recall@10``, ``hit_rate@10``,
``hits@10``, ``map@100``, ``mrr``, ``r-precision``, ``bpref``); an ``ir_measures`` measure
object is read through its ``str``.  An unknown name or parameter names the closest known one.
"""

from __future__ import annotations

import ast
import difflib
import re
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from rankaudit._checks import check_cutoff
from rankaudit.measures import list_support as K
from rankaudit.measures.families import AGGREGATIONS, FAMILIES, Family, Param
from rankaudit.measures.list_kernels import N_CODES

__all__ = [
    "AGGREGATIONS",
    "FAMILIES",
    "Family",
    "Measure",
    "Param",
    "describe_measures",
    "measure_spec",
    "parse_measure",
    "parse_measures",
    "register_family",
    "unregister_family",
]


#: lower-case spelling -> family name
_NAMES: dict[str, str] = {}
for _fam in FAMILIES.values():
    _NAMES[_fam.name.lower()] = _fam.name
    for _alias in _fam.aliases:
        _NAMES[_alias.lower()] = _fam.name
_NAMES["ndcg_burges"] = "nDCG"  # ranx's exponential-gain nDCG

_PATTERN = re.compile(r"([A-Za-z][A-Za-z_\-]*)\s*(?:\((.*)\))?\s*(?:([@._])(\S+))?", re.S)


@dataclass(frozen=True)
class Measure:
    """A declared measure with its cutoff and its non-default parameters (sorted pairs)."""

    family: str
    cutoff: int | None = None
    params: tuple[tuple[str, object], ...] = ()

    def __post_init__(self) -> None:
        if self.family not in FAMILIES:
            raise ValueError(
                f"unknown measure family {self.family!r}{_closest(self.family, FAMILIES)}; "
                f"known: {', '.join(FAMILIES)}"
            )
        fam = FAMILIES[self.family]
        if self.cutoff is None and fam.cutoff == "required":
            raise ValueError(f"{self.family} needs a cutoff, e.g. {self.family}@10")
        if self.cutoff is not None and fam.cutoff == "none":
            raise ValueError(f"{self.family} takes no cutoff")
        if self.cutoff is not None:
            check_cutoff(self.cutoff, f"the cutoff of {self.family}")
        checked = []
        names = [name for name, _ in self.params]
        twice = next((name for name in names if names.count(name) > 1), None)
        if twice is not None:
            raise ValueError(f"{self.family}: parameter {twice!r} is given twice")
        for name, value in self.params:
            try:
                p = fam.param(name)
            except KeyError:
                known = ", ".join(p.name for p in fam.params) or "none"
                raise ValueError(
                    f"{self.family} has no parameter {name!r}"
                    f"{_closest(name, [p.name for p in fam.params])}; its parameters: {known}"
                ) from None
            value = p.check(value, name)
            if value != p.default and value != ():
                checked.append((name, value))
        object.__setattr__(self, "params", tuple(sorted(checked)))

    def param(self, name: str) -> object:
        """The value of parameter ``name`` (its default when not given)."""
        for key, value in self.params:
            if key == name:
                return value
        return FAMILIES[self.family].param(name).default

    def level(self, relevance_level: int) -> int:
        """The label at or above which a document is relevant for this measure: its ``rel``
        parameter when given, else ``relevance_level`` (trec_eval's ``-l``)."""
        has_rel = any(p.name == "rel" for p in FAMILIES[self.family].params)
        rel = self.param("rel") if has_rel else None
        return relevance_level if rel is None else int(rel)  # type: ignore[call-overload]

    @property
    def aggregation(self) -> str:
        """How per-query values combine over queries: ``"mean"``, or ``"sum"`` for the counts
        (declared once per family, :attr:`Family.aggregation`)."""
        return FAMILIES[self.family].aggregation

    @property
    def higher_is_better(self) -> bool:
        """Whether higher values are better (declared once per family,
        :attr:`Family.direction`); the leaderboard orders by it."""
        return FAMILIES[self.family].direction > 0

    @property
    def code(self) -> int:
        """The list kernel's code of the family."""
        return FAMILIES[self.family].kernel

    @property
    def trec_eval_name(self) -> str | None:
        """The key pytrec_eval reports (``ndcg_cut_10``, ``map``, ``P_10``), or None when
        trec_eval does not compute this measure (or these parameters)."""
        fam = FAMILIES[self.family]
        if any(k != "rel" for k, _ in self.params) or (
            self.family == "nDCG" and self.param("dcg") != "log2"
        ):
            return None
        if self.cutoff is None:
            return fam.trec_eval
        return None if fam.trec_eval_cut is None else f"{fam.trec_eval_cut}_{self.cutoff}"

    def __str__(self) -> str:
        text = self.family
        if self.params:
            text += "(" + ", ".join(f"{k}={_literal(v)}" for k, v in self.params) + ")"
        return text if self.cutoff is None else f"{text}@{self.cutoff}"


def _literal(value: object) -> str:
    if isinstance(value, tuple):  # a gain map
        return "{" + ",".join(f"{k}:{_number(g)}" for k, g in value) + "}"
    if isinstance(value, float):
        return _number(value)
    return repr(value)


def _number(x: float) -> str:
    return str(int(x)) if float(x).is_integer() else repr(float(x))


def _closest(word: str, known: object) -> str:
    found = difflib.get_close_matches(str(word), [str(k) for k in known], n=1, cutoff=0.5)
    if not found:
        found = difflib.get_close_matches(
            str(word).lower(), [str(k).lower() for k in known], n=1, cutoff=0.5
        )
        found = [k for k in map(str, known) if found and k.lower() == found[0]]
    return f" (did you mean {found[0]!r}?)" if found else ""


def _parse_params(text: str, where: str) -> list[tuple[str, object]]:
    try:
        call = ast.parse(f"f({text})", mode="eval").body
    except SyntaxError:
        raise ValueError(f"measure {where!r}: cannot read the parameters ({text})") from None
    assert isinstance(call, ast.Call)
    if call.args:
        raise ValueError(f"measure {where!r}: parameters are named, e.g. RBP(p=0.8)")
    out = []
    for kw in call.keywords:
        if kw.arg is None:
            raise ValueError(f"measure {where!r}: parameters are named, e.g. RBP(p=0.8)")
        try:
            value = ast.literal_eval(kw.value)
        except ValueError:
            raise ValueError(f"measure {where!r}: {kw.arg}= must be a literal") from None
        if isinstance(kw.value, ast.Dict) and len(value) < len(kw.value.keys):
            raise ValueError(f"measure {where!r}: {kw.arg}= holds a key twice")
        out.append((kw.arg, value))
    return out


def parse_measure(text: object) -> Measure:
    """One measure from its name: ``"nDCG@10"``, ``"nDCG(dcg='exp-log2')@10"``, ``"HR@10"``,
    ``"RBP(p=0.9)"``, trec_eval's ``"ndcg_cut.10"``, ranx's ``"ndcg_burges@10"``, or an
    ir_measures measure object.  Raises ValueError naming the text and the closest name."""
    if isinstance(text, Measure):
        return text
    if not isinstance(text, str) and type(text).__module__.startswith("ir_measures"):
        text = str(text)
    if not isinstance(text, str):
        raise ValueError(f"a measure must be a string such as 'nDCG@10'; got {text!r}")
    spelled = text.strip()
    match = _PATTERN.fullmatch(spelled)
    if match is None:
        raise ValueError(f"cannot read measure {text!r}; e.g. nDCG@10, AP, RBP(p=0.8)")
    name, params_text, separator, cut_text = match.groups()
    key = name.lower()
    family = _NAMES.get(key)
    if family is None:
        raise ValueError(
            f"unknown measure {text!r}{_closest(name, sorted(FAMILIES))}; known: "
            f"{', '.join(FAMILIES)} (see `rankaudit audit --help`)"
        )
    params = _parse_params(params_text, text) if params_text else []
    if ("judged_only", False) in params:  # ir_measures' default, spelled out
        params.remove(("judged_only", False))
    if any(p == "judged_only" for p, _ in params):
        raise ValueError(
            f"measure {text!r}: judged_only=True is not supported; remove the unjudged "
            "documents from the run first (rankaudit scores unjudged documents as trec_eval)"
        )
    if family == "NumRet" and any(p == "rel" for p, _ in params):
        family = "NumRelRet"  # ir_measures: NumRet(rel=l) counts retrieved documents >= l
    if key == "ndcg_burges":
        params.append(("dcg", "exp-log2"))
    cutoff = None
    if key == "rbp" and separator == "." and cut_text is not None and cut_text.isdigit():
        params.append(("p", float(f"0.{cut_text}")))  # ranx: rbp.95 is RBP(p=0.95)
        cut_text = None
    if cut_text is not None:
        if not re.fullmatch(r"\d+", cut_text):
            raise ValueError(f"measure {text!r}: the cutoff {cut_text!r} is not an integer")
        cutoff = int(cut_text)
    try:
        return Measure(family, cutoff, tuple(params))
    except ValueError as exc:
        raise ValueError(f"measure {text!r}: {exc}") from None


def parse_measures(texts: object) -> tuple[Measure, ...]:
    """Measures from a sequence of names (or one string, comma- or space-separated);
    no duplicates (two spellings of one measure count as a duplicate)."""
    if isinstance(texts, str):
        texts = _split(texts)
    if not isinstance(texts, list | tuple) and not hasattr(texts, "__iter__"):
        texts = [texts]
    measures = tuple(parse_measure(t) for t in texts)  # type: ignore[union-attr]
    if not measures:
        raise ValueError("no measure given")
    seen: set[Measure] = set()
    for m in measures:
        if m in seen:
            raise ValueError(f"measure {m} is given twice")
        seen.add(m)
    return measures


def _split(text: str) -> list[str]:
    """Split on commas and blanks outside parentheses and braces."""
    parts, depth, cur = [], 0, []
    for ch in text:
        depth += ch in "({"
        depth -= ch in ")}"
        if depth == 0 and (ch == "," or ch.isspace()):
            parts.append("".join(cur))
            cur = []
        else:
            cur.append(ch)
    parts.append("".join(cur))
    return [p for p in (s.strip() for s in parts) if p]


def _default_text(p: Param) -> str:
    if p.default is None:
        return "-l" if p.name == "rel" else "{label:gain}"
    return repr(p.default)


def describe_measures() -> str:
    """One line per family for ``--help``: spelling, parameters and defaults, summary."""
    lines = []
    for fam in FAMILIES.values():
        cut = {"required": "@k", "optional": "[@k]", "none": ""}[fam.cutoff]
        params = ", ".join(f"{p.name}={_default_text(p)}" for p in fam.params)
        spelled = f"{fam.name}({params}){cut}" if params else f"{fam.name}{cut}"
        lines.append(f"  {spelled:<42} {fam.summary}")
    lines.append("  HR@k = Success@k; trec_eval and ranx names are accepted too")
    return "\n".join(lines)


def register_family(family: Family) -> Family:
    """Declare a measure family: it is then parsed (its name, case-insensitive, and its
    aliases) and computed everywhere, by the kernel branch ``family.kernel``."""
    if not isinstance(family, Family):
        raise ValueError(f"register_family takes a Family; got {type(family).__name__}")
    spelled = [family.name.lower(), *(alias.lower() for alias in family.aliases)]
    taken = [s for s in spelled if s in _NAMES] + ([family.name] if family.name in FAMILIES else [])
    if taken:
        raise ValueError(f"measure family {family.name!r}: {taken[0]!r} is already declared")
    FAMILIES[family.name] = family
    for name in spelled:
        _NAMES[name] = family.name
    return family


def unregister_family(name: str) -> Family:
    """Remove a family :func:`register_family` declared (and its spellings); returns it."""
    if name not in FAMILIES:
        raise ValueError(f"unknown measure family {name!r}")
    family = FAMILIES.pop(name)
    for spelled in [k for k, v in _NAMES.items() if v == name]:
        del _NAMES[spelled]
    return family


def measure_spec(measures: Sequence[Measure], relevance_level: int) -> K.MeasureSpec:
    """The kernels' :class:`~rankaudit.measures.list_kernels.MeasureSpec` of ``measures``;
    a measure without ``rel`` takes ``relevance_level`` (trec_eval ``-l``)."""
    codes, cutoffs, levels, reals, ints, kinds = [], [], [], [], [], []
    map_offsets, map_keys, map_gains = [0], [], []
    for m in measures:
        if not 0 <= m.code < N_CODES:
            raise ValueError(f"measure {m}: the kernels know no code {m.code}")
        args = FAMILIES[m.family].kernel_args(m)
        codes.append(m.code)
        cutoffs.append(m.cutoff or 0)
        levels.append(m.level(relevance_level))
        reals.append(float(args.real))
        ints.append(int(args.integer))
        kinds.append(int(args.gain_kind))
        map_keys += [label for label, _ in args.gains]
        map_gains += [gain for _, gain in args.gains]
        map_offsets.append(len(map_keys))
    columns = dict(codes=codes, cutoffs=cutoffs, levels=levels, ints=ints, gain_kind=kinds)
    columns.update(map_offsets=map_offsets, map_keys=map_keys)
    return K.MeasureSpec(
        **{key: np.asarray(value, np.int64) for key, value in columns.items()},
        reals=np.asarray(reals, np.float64),
        map_gains=np.asarray(map_gains, np.float64),
    )
