"""Chapter 10's computed words: how often each reference click carries the wanted brand against
the last click, how many sweep points exclude zero (features and oracle), the share of returning
queries (``share_word``: few below 10%, most above 50%), and the intent-aware cosine's gap to the
last-five average at both ends of the ``p_switch`` grid against the median CI half-width.

Public API: :func:`words` and :data:`DEPENDS` (see :mod:`rankbook.report.page_words`).
"""

from __future__ import annotations

import statistics
from collections.abc import Mapping
from typing import Any

from rankbook.report.prose import count_phrase, share_word, signed_phrase
from rankbook.report.prose_limits import covers_word, order_word

__all__ = ["DEPENDS", "ORACLE", "words"]

ORACLE = "Oracle_intent"
_BRAND = "reference_has_the_intents_brand"
_OFTEN = ("more often than", "less often than", "as often as")


def _sweep(results: Mapping[str, Any]) -> list[Mapping[str, Any]]:
    return results["context_sweep"]


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
    feats = [r for r in sweep if r["feature"] != ORACLE]
    oracle = [r for r in sweep if r["feature"] == ORACLE]
    n_sig = sum(covers_word(r["ci_low"], r["ci_high"]) == "excludes zero" for r in feats)
    n = len(feats)
    head = f"{count_phrase(n_sig, n, 'feature points').capitalize()} have a CI that excludes zero"
    gaps = [sweep[a]["lift_pct"] - sweep[b]["lift_pct"] for a, b in _gap_rows(results)]
    half = statistics.median(r["ci_high"] - r["ci_low"] for r in sweep) / 2
    above = ("above", "below", "level with")
    return {
        "emb_vs_lc": order_word(brand["ref_emb"], brand["last_click"], words=_OFTEN),
        "txt_vs_lc": order_word(brand["ref_txt"], brand["last_click"], words=_OFTEN),
        "oracle_sig_phrase": count_phrase(
            sum(r["ci_low"] > 0 for r in oracle), len(oracle), "points"
        ),
        "returned_share_word": share_word(max(r["share_returned"] for r in sweep)),
        "sweep_sig_phrase": count_phrase(n_sig, n, "(feature, grid point) points"),
        "sweep_sig_takeaway": head
        + (
            ": every feature lifts MRR-sale over MLR at every grid point"
            if n_sig == n
            else "; at this size the others' lifts cannot be told from zero"
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
    """The brand shares, every sweep row's CI, the four lifts of the gaps and the largest
    returning share."""
    sweep = _sweep(results)
    out: list[tuple[str, Any, Any]] = [
        ("reference_check", _BRAND, f) for f in ("ref_emb", "ref_txt", "last_click")
    ]
    out += [("context_sweep", i, ("ci_low", "ci_high")) for i in range(len(sweep))]
    for a, b in _gap_rows(results):
        out += [("context_sweep", a, "lift_pct"), ("context_sweep", b, "lift_pct")]
    top = max(range(len(sweep)), key=lambda i: sweep[i]["share_returned"])
    out.append(("context_sweep", top, "share_returned"))
    return out
