r"""Chapter 06's outcomes the simulator preset was not calibrated to, judged with row-bootstrap CIs.

The ``paper_regime`` preset of :mod:`rankbook.data.amazon_presets` is set to two of Guo et al.'s
(2026, arXiv:2609.26977, Table 2) figures, input-order NDCG@10 and hash HR@10 of the weighted
overlap. Three other outcomes are *not* targets and so test the simulation:

* ``hash_ndcg``: weighted-overlap hash NDCG@10 against the paper's 0.1702;
* ``residualized_move``: the size :math:`|\Delta|` of the residualized score's change from input
  order to hash against the paper's 0.0004 (the paper gives no sign);
* ``residualized_vs_chance``: residualized NDCG@10 (exact expectation) against the all-tied
  chance level :math:`E[\mathrm{NDCG@10}]` of a row whose 31 candidates all tie (0.1466).

Each verdict is where the row-bootstrap 95% CI (:mod:`rankbook.audit.bootstrap`) lies against the
reference (``relation``: "above", "below" or "includes"); the page's words are
:func:`rankbook.report.prose.interval_phrase` of the same numbers. The outcomes are read
together, so each also gets a two-sided p-value against its reference, Holm-adjusted within
these outcomes (Holm, 1979): ``z = (value - reference) / se`` with ``se`` the normal standard
error implied by the CI's width (``(ci_high - ci_low) / (2 z_0.975)``,
:func:`rankaudit.runs.decision.interval_z`), ``p = 2 Phi(-|z|)``; a difference is resolved
only when its CI excludes the reference *and* its Holm-adjusted p is at most the level. The
paper reports no CI, so "differs" here ignores the paper's own sampling error.

:func:`residual_diagnosis` measures why a residual score can rank the relevant item *below*
chance: where the relevant item shares no attribute with the history (overlap 0), its residual is
:math:`-x^\top\hat\beta`, minus the value predicted from what the item is and how often it was
bought, so the residual ranks those rows against the prediction; if the held-out item is more
popular than its sampled negatives, it sinks.

Public API: :func:`abs_interval`, :func:`residual_diagnosis`, :func:`uncalibrated_outcomes`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
from scipy.stats import norm, rankdata

from rankaudit.runs.decision import interval_z
from rankaudit.runs.significance import holm_adjust
from rankaudit.ties.evaluate import evaluate
from rankbook.data.candidates import CandidateRows

__all__ = ["abs_interval", "residual_diagnosis", "uncalibrated_outcomes"]


def abs_interval(ci_low: float, ci_high: float) -> tuple[float, float]:
    """The interval of :math:`|\\Delta|` implied by a CI ``[lo, hi]`` of :math:`\\Delta`."""
    lo, hi = float(ci_low), float(ci_high)
    if lo > hi:
        raise ValueError(f"ci_low must be <= ci_high, got {lo} > {hi}")
    if lo >= 0:
        return lo, hi
    if hi <= 0:
        return -hi, -lo
    return 0.0, max(-lo, hi)


def _cell(boot: Sequence[Mapping[str, Any]], score: str, rule: str, metric: str = "ndcg10"):
    for r in boot:
        if r["score"] == score and r["tie_rule"] == rule and r["metric"] == metric:
            return r
    raise KeyError(f"row_bootstrap has no record for {score!r}, {rule!r}, {metric!r}")


def uncalibrated_outcomes(
    boot: Sequence[Mapping[str, Any]],
    *,
    paper: Mapping[str, float],
    chance_ndcg: float,
    model_ndcg: float | None = None,
) -> list[dict[str, Any]]:
    """One verdict record per uncalibrated outcome (see the module docstring).

    ``boot``: the ``row_bootstrap`` records of :func:`rankbook.audit.tables.audit_results`;
    ``paper``: :data:`rankbook.audit.paper.PAPER_AMAZON`; ``chance_ndcg``: the all-tied
    expectation; ``model_ndcg``: the tie-regime model's hash NDCG@10 at the paper's implied
    ``(q, p)``, compared as a second reference when given.

    Each record: ``outcome``, ``value``, ``ci_low``, ``ci_high``, ``reference``,
    ``reference_name``, ``relation`` ("above", "below" or "includes"), ``z``, ``p_value`` and
    ``p_holm`` (Holm within the records returned; module docstring). A zero-width CI is no
    sampling spread: ``z`` is None and ``p`` is 1 at the reference, 0 away from it.
    """
    h = _cell(boot, "weighted", "hash")
    move = _cell(boot, "residualized", "hash")
    res = _cell(boot, "residualized", "expected")
    m_lo, m_hi = abs_interval(move["delta_ci_low"], move["delta_ci_high"])
    items = [
        ("hash_ndcg", h["value"], h["ci_low"], h["ci_high"], paper["ndcg_hash"], "the paper's"),
        (
            "residualized_move",
            abs(move["delta"]),
            m_lo,
            m_hi,
            paper["residualized_change"],
            "the paper's",
        ),
        (
            "residualized_vs_chance",
            res["value"],
            res["ci_low"],
            res["ci_high"],
            float(chance_ndcg),
            "the all-tied chance level",
        ),
    ]
    if model_ndcg is not None:
        items.insert(
            1,
            (
                "hash_ndcg_vs_model",
                h["value"],
                h["ci_low"],
                h["ci_high"],
                float(model_ndcg),
                "the model's",
            ),
        )
    half = {  # the half-width of each comparison's CI (the move's: its signed Δ interval)
        "residualized_move": (move["delta_ci_high"] - move["delta_ci_low"]) / 2,
    }
    out = []
    for outcome, value, lo, hi, ref, ref_name in items:
        relation = "above" if lo > ref else "below" if hi < ref else "includes"
        se = float(half.get(outcome, (hi - lo) / 2)) / interval_z()
        z = (float(value) - float(ref)) / se if se > 0 else None
        p = 2 * float(norm.sf(abs(z))) if z is not None else float(value == ref)
        out.append(
            {
                "outcome": outcome,
                "value": float(value),
                "ci_low": float(lo),
                "ci_high": float(hi),
                "reference": float(ref),
                "reference_name": ref_name,
                "relation": relation,
                "z": z,
                "p_value": p,
            }
        )
    for record, p_holm in zip(out, holm_adjust(np.array([o["p_value"] for o in out])), strict=True):
        record["p_holm"] = float(p_holm)
    return out


def residual_diagnosis(
    rows: CandidateRows,
    scores: Mapping[str, np.ndarray],
    *,
    k: int,
    residual: str = "residualized",
    overlap: str = "weighted",
    popularity: str = "popularity",
) -> dict[str, float]:
    """Why the residual score ranks the relevant item where it does, measured on the rows.

    Returns ``share_overlap_zero`` (rows whose relevant item has overlap exactly 0),
    ``ndcg_zero_rows``/``ndcg_other_rows`` (residual NDCG@k, exact expectation, on those rows and
    the rest), ``share_relevant_more_popular`` (rows whose relevant item has more training
    interactions than the median negative), ``ndcg_reversed_popularity`` (NDCG@k, expected, of
    ranking by *minus* popularity, the pure anti-popularity ranker) and
    ``spearman_residual_popularity`` (mean within-row Spearman correlation of residual and
    popularity on the overlap-0 rows, over rows where both vary).
    """
    labels = np.asarray(rows.labels)
    rel = np.argmax(labels > 0, axis=1)
    at = np.arange(len(labels))
    res, w, pop = (np.asarray(scores[n], dtype=np.float64) for n in (residual, overlap, popularity))
    zero = w[at, rel] == 0
    if zero.all() or not zero.any():
        raise ValueError(
            "residual_diagnosis needs rows with and without a zero-overlap relevant item"
        )
    ndcg = evaluate(res, labels, k=k, ties="expected")[f"nDCG@{k}"].to_numpy()
    rev = evaluate(-pop, labels, k=k, ties="expected")[f"nDCG@{k}"].to_numpy()
    negs = np.where(labels > 0, np.nan, pop)
    more = pop[at, rel] > np.nanmedian(negs, axis=1)
    rr, rp = rankdata(res[zero], axis=1), rankdata(pop[zero], axis=1)
    rr, rp = rr - rr.mean(1, keepdims=True), rp - rp.mean(1, keepdims=True)
    den = np.sqrt((rr * rr).sum(1) * (rp * rp).sum(1))
    ok = den > 0
    rho = (rr * rp).sum(1)[ok] / den[ok]
    return {
        "share_overlap_zero": float(zero.mean()),
        "ndcg_zero_rows": float(ndcg[zero].mean()),
        "ndcg_other_rows": float(ndcg[~zero].mean()),
        "share_relevant_more_popular": float(more.mean()),
        "ndcg_reversed_popularity": float(rev.mean()),
        "spearman_residual_popularity": float(rho.mean()) if ok.any() else 0.0,
    }
