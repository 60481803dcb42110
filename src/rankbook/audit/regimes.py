"""The Amazon tie regimes measured: one audit per simulator preset, side by side.

:func:`regime_summary` runs the weighted and residualized scores of one preset of
:mod:`rankbook.data.amazon_presets` under input order, the hash rule and the exact
expectation (McSherry & Najork, ECIR 2008), with the tie prevalence and the tie-regime model's
measured parameters, so a chapter can show how the input-order inflation grows with ties.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from rankaudit.ties.prevalence import tie_prevalence
from rankbook.audit.prepare import prepare_audit
from rankbook.audit.rows_evaluate import evaluate_rows
from rankbook.audit.tables import hash_ready
from rankbook.data.amazon_presets import measured_tie_regime, preset_args

__all__ = ["regime_summary"]


def regime_summary(
    preset: str,
    *,
    n_rows: int | str | None,
    n_negatives: int,
    seed: int,
    k: int,
    scores: Sequence[str] = ("weighted", "residualized"),
) -> list[dict[str, Any]]:
    """One record per score for simulator preset ``preset``: NDCG@k and HR@k under input order,
    the hash rule (seed ``seed``) and the exact expectation, the share of rows with the relevant
    item tied, and the measured ``q``/``p`` of the tie-regime model."""
    run = prepare_audit(
        "amazon",
        n_rows=n_rows,
        n_negatives=n_negatives,
        seed=seed,
        families=list(scores),
        simulate=preset_args(preset),
    )
    rows = hash_ready(run.rows)
    out = []
    for name in scores:
        s = run.scores[name]
        line: dict[str, Any] = {"preset": preset, "score": name}
        for rule in ("input_order", "hash", "expected"):
            frame = evaluate_rows(rows, s, k=k, ties=rule, seed=seed)
            line[f"ndcg_{rule}"] = float(frame[f"nDCG@{k}"].mean())
            line[f"hr_{rule}"] = float(frame[f"Success@{k}"].mean())
        line["relevant_tie"] = float(
            tie_prevalence(s, rows.labels, k=k).summary["frac_relevant_tied"]
        )
        line.update({f"model_{key}": v for key, v in measured_tie_regime(s, rows.labels).items()})
        out.append(line)
    return out
