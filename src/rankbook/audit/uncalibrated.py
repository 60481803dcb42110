r"""Chapter 06's outcomes the simulator preset was not calibrated to, judged with row-bootstrap CIs.

The ``paper_regime`` preset of :mod:`rankbook.data.amazon_presets` is set to two of Guo et al.'s
(2026, arXiv:2609.26977, Table 2) figures, input-order NDCG@10 and hash HR@10 of the weighted
overlap. Three other outcomes are *not* targets and so test the simulation:

* ``hash_ndcg``: weighted-overlap hash NDCG@10 against the paper's 0.1702;
* ``residualized_move``: the size :math:`|\Delta|` of the residualized score's change from input
  order to hash against the paper's 0.0004 (the paper gives no sign);
* ``residualized_vs_chance``: residualized NDCG@10 (exact expectation) against the all-tied
  chance level :math:`E[\mathrm{NDCG@10}]` of a row whose 31 candidates all tie (0.1466).

Each outcome's 95% CI and its two-sided p-value against the reference come from the *same*
row-bootstrap draws (:func:`rankaudit.runs.significance.dual_interval_test`; Davison & Hinkley,
1997, sections 4.4 and 5.2): the per-row values are resampled by
:func:`rankbook.audit.bootstrap.row_bootstrap_draws` with the chapter's seed, so the rows drawn are
those of Table 2's intervals, and with ``B`` draws, ``k`` of which lie on the far side of the
reference, ``p = min(1, 2 (1 + k) / (B + 1))``, never below its floor ``2 / (B + 1)``. The CI
excludes the reference exactly when ``p <= alpha``. The verdict ``relation`` is where the CI lies
against the reference ("above", "below" or "includes"); the page's words are
:func:`rankbook.report.prose.interval_phrase` of the same numbers. The size of the residualized
move is compared with the paper's unsigned figure ``r``: its CI is the image under
:math:`|\cdot|` of the signed CI (:func:`abs_interval`) and its p-value the larger of the signed
tests against ``+r`` and ``-r`` (the size differs from ``r`` only when the change differs from
both), so the pair stays dual. The outcomes are read together, so the p-values are
Holm-adjusted within them (Holm, 1979); a difference is resolved only when its Holm-adjusted p is
at most the level. The paper reports no CI, so "differs" here ignores the paper's own sampling
error.

:func:`residual_diagnosis` measures why a residual score can rank the relevant item *below*
chance: where the relevant item shares no attribute with the history (overlap 0), its residual is
:math:`-x^\top\hat\beta`, minus the value predicted from what the item is and how often it was
bought, so the residual ranks those rows against the prediction; if the held-out item is more
popular than its sampled negatives, it sinks.

Public API: :func:`abs_interval`, :func:`residual_diagnosis`, :func:`uncalibrated_outcomes`.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np
from scipy.stats import rankdata

from rankaudit.runs.decision import ALPHA
from rankaudit.runs.significance import dual_interval_test, holm_adjust
from rankaudit.ties.evaluate import evaluate
from rankbook.audit.bootstrap import ROUNDING, row_bootstrap_draws
from rankbook.audit.rows_evaluate import evaluate_rows
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


def _per_row(rows: CandidateRows, scores: Mapping[str, np.ndarray], *, k: int, seed: int):
    """The per-row NDCG@k of weighted overlap under hash, of the residualized score's change from
    input order to hash, and of the residualized score under the exact expectation (the hash
    rule at ``seed``, as in Table 2)."""

    def ndcg(name: str, rule: str) -> np.ndarray:
        frame = evaluate_rows(rows, scores[name], k=k, ties=rule, seed=seed)
        return frame[f"nDCG@{k}"].to_numpy(np.float64)

    move = ndcg("residualized", "hash") - ndcg("residualized", "input_order")
    return ndcg("weighted", "hash"), move, ndcg("residualized", "expected")


def uncalibrated_outcomes(
    rows: CandidateRows,
    scores: Mapping[str, np.ndarray],
    *,
    k: int,
    seed: int,
    n_boot: int,
    paper: Mapping[str, float],
    chance_ndcg: float,
    model_ndcg: float | None = None,
) -> list[dict[str, Any]]:
    """One verdict record per uncalibrated outcome (see the module docstring).

    ``rows``/``scores``: the audit's rows and scores (``weighted`` and ``residualized`` used);
    ``k``, ``seed`` and ``n_boot``: those of the audit's row bootstrap; ``paper``:
    :data:`rankbook.audit.paper.PAPER_AMAZON`; ``chance_ndcg``: the all-tied expectation;
    ``model_ndcg``: the tie-regime model's hash NDCG@10 at the paper's implied ``(q, p)``,
    compared as a second reference when given.

    Each record: ``outcome``, ``value``, ``ci_low``, ``ci_high``, ``reference``,
    ``reference_name``, ``relation`` ("above", "below" or "includes"), ``p_value`` (two-sided,
    from the CI's own draws), ``p_holm`` (Holm within the records returned) and ``n_boot``. A
    change of rounding alone (no row moving by more than :data:`rankbook.audit.bootstrap.ROUNDING`)
    is a change of exactly 0.
    """
    hashed, move, expected = _per_row(rows, scores, k=k, seed=seed)
    if np.abs(move).max() <= ROUNDING:
        move = np.zeros_like(move)
    draws = row_bootstrap_draws(np.column_stack([hashed, move, expected]), n_boot=n_boot, seed=seed)
    r = float(paper["residualized_change"])
    items = [
        ("hash_ndcg", 0, float(hashed.mean()), float(paper["ndcg_hash"]), "the paper's"),
        ("residualized_move", 1, abs(float(move.mean())), r, "the paper's"),
        (
            "residualized_vs_chance",
            2,
            float(expected.mean()),
            float(chance_ndcg),
            "the all-tied chance level",
        ),
    ]
    if model_ndcg is not None:
        items.insert(
            1, ("hash_ndcg_vs_model", 0, float(hashed.mean()), float(model_ndcg), "the model's")
        )
    out = []
    for outcome, column, value, ref, ref_name in items:
        if outcome == "residualized_move":
            lo, hi, p_plus = dual_interval_test(draws[:, column], null=r, alpha=ALPHA)
            p_minus = dual_interval_test(draws[:, column], null=-r, alpha=ALPHA)[2]
            lo, hi, p = *abs_interval(lo, hi), max(p_plus, p_minus)
        else:
            lo, hi, p = dual_interval_test(draws[:, column], null=ref, alpha=ALPHA)
        relation = "above" if lo > ref else "below" if hi < ref else "includes"
        out.append(
            {
                "outcome": outcome,
                "value": value,
                "ci_low": float(lo),
                "ci_high": float(hi),
                "reference": ref,
                "reference_name": ref_name,
                "relation": relation,
                "p_value": float(p),
                "n_boot": int(n_boot),
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
