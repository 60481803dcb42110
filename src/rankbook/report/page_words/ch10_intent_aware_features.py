"""Chapter 10's computed words: how often each reference click carries the wanted brand against
the last click, how many of the sweep's distinct configurations each verdict reaches (features
and oracle, each its own family: the verdicts of
:func:`rankbook.ranking.experiment.sweep_verdicts`, Holm within the family, from
:func:`rankaudit.runs.decision.effect_verdict`; a grid point that repeats another's log is
counted once), the share of returning queries (``share_word``: few below 10%, most above 50%),
and the intent-aware cosine's gap to the last-five average at both ends of the ``p_switch`` grid
against the median CI half-width of the distinct points.

Public API: :func:`words` and :data:`DEPENDS` (see :mod:`rankbook.report.page_words`).
"""

from __future__ import annotations

import statistics
from collections.abc import Mapping
from typing import Any

from rankaudit.runs.decision import NOT_RESOLVED, RESOLVED_ABOVE, RESOLVED_BELOW
from rankbook.report.prose import count_phrase, share_word, signed_phrase
from rankbook.report.prose_limits import order_word

__all__ = ["DEPENDS", "ORACLE", "words"]

ORACLE = "Oracle_intent"
_BRAND = "reference_has_the_intents_brand"
_OFTEN = ("more often than", "less often than", "as often as")


def _sweep(results: Mapping[str, Any]) -> list[Mapping[str, Any]]:
    return results["context_sweep"]


def _distinct(results: Mapping[str, Any]) -> list[int]:
    """Indices of the sweep rows of distinct configurations (a repeated log counted once)."""
    return [i for i, r in enumerate(_sweep(results)) if r["distinct"]]


def _verdict_clause(rows: list[Mapping[str, Any]], noun: str, family: str) -> str:
    """How many of ``rows`` are resolved above zero, and below zero when any is, by their
    stored verdicts, with the family the adjustment ran over: one whole clause."""
    n = len(rows)
    above = sum(r["verdict"] == RESOLVED_ABOVE for r in rows)
    below = sum(r["verdict"] == RESOLVED_BELOW for r in rows)
    clause = f"{count_phrase(above, n, noun, verb=('is', 'are'))} {RESOLVED_ABOVE}"
    if below:
        clause += f" and {count_phrase(below, n, verb=('is', 'are'))} {RESOLVED_BELOW}"
    return f"{clause} (Holm within {family})"


def _gap_rows(results: Mapping[str, Any]) -> tuple[tuple[int, int], tuple[int, int]]:
    """Indices of (CosSim_Ref_emb, CosSim_l5c) at the largest ``p_return``, at the smallest and
    at the largest ``p_switch``."""
    sweep = _sweep(results)
    p_ret = max(r["p_return"] for r in sweep)
    at = [r["p_switch"] for r in sweep if r["p_return"] == p_ret]

    def pair(p_sw: float) -> tuple[int, int]:
        idx = {
            r["feature"]: i
            for i, r in enumerate(sweep)
            if r["p_return"] == p_ret and r["p_switch"] == p_sw
        }
        return idx["CosSim_Ref_emb"], idx["CosSim_l5c"]

    return pair(min(at)), pair(max(at))


def words(results: Mapping[str, Any]) -> dict[str, str]:
    """The words chapter 10 glues, from its results dict alone."""
    brand = results["reference_check"][_BRAND]
    sweep = _sweep(results)
    distinct = [sweep[i] for i in _distinct(results)]
    feats = [r for r in distinct if r["feature"] != ORACLE]
    oracle = [r for r in distinct if r["feature"] == ORACLE]
    n_up = sum(r["verdict"] == RESOLVED_ABOVE for r in feats)
    n = len(feats)
    family = f"the {n:,} distinct feature points"
    head = _verdict_clause(feats, "distinct feature points", family)
    n_open = sum(r["verdict"] == NOT_RESOLVED for r in feats)
    gaps = [sweep[a]["lift_pct"] - sweep[b]["lift_pct"] for a, b in _gap_rows(results)]
    half = statistics.median(r["ci_high"] - r["ci_low"] for r in distinct) / 2
    above = ("above", "below", "level with")
    return {
        "emb_vs_lc": order_word(brand["ref_emb"], brand["last_click"], words=_OFTEN),
        "txt_vs_lc": order_word(brand["ref_txt"], brand["last_click"], words=_OFTEN),
        "oracle_sig_phrase": _verdict_clause(
            oracle, "distinct oracle points", f"the oracle's own {len(oracle):,} points"
        ),
        "returned_share_word": share_word(max(r["share_returned"] for r in sweep)),
        "sweep_sig_phrase": _verdict_clause(
            feats, "distinct (feature, grid point) pairs", "one family of them all"
        ),
        "sweep_sig_takeaway": head[:1].upper()
        + head[1:]
        + (
            ": every feature lifts MRR-sale over MLR at every distinct grid point"
            if n_up == n
            else f": every one is {NOT_RESOLVED}"
            if n_open == n
            else f"; {count_phrase(n_open, n, verb=('is', 'are'))} {NOT_RESOLVED}"
            if n_open
            else ""
        ),
        "gap_low_phrase": signed_phrase(
            gaps[0], " percentage points", words=above, number_first=True
        ),
        "gap_high_phrase": signed_phrase(
            gaps[1], " percentage points", words=above, number_first=True
        ),
        "gap_noise": "differences smaller than the median CI half-width: at this size the sweep "
        "can neither confirm nor rule out"
        if max(abs(g) for g in gaps) < half
        else "a difference at least as large as the median CI half-width at one end, but the "
        "two features were not compared by a paired test here, so the sweep does not yet confirm",
    }


def DEPENDS(results: Mapping[str, Any]) -> list[tuple[str, Any, Any]]:  # noqa: N802
    """The brand shares, the verdict of every distinct configuration's row, the four lifts of
    the gaps and the largest returning share."""
    sweep = _sweep(results)
    out: list[tuple[str, Any, Any]] = [
        ("reference_check", _BRAND, f) for f in ("ref_emb", "ref_txt", "last_click")
    ]
    out += [("context_sweep", i, "verdict") for i in _distinct(results)]
    for a, b in _gap_rows(results):
        out += [("context_sweep", a, "lift_pct"), ("context_sweep", b, "lift_pct")]
    top = max(range(len(sweep)), key=lambda i: sweep[i]["share_returned"])
    out.append(("context_sweep", top, "share_returned"))
    return out
