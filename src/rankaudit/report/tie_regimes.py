"""Chapter helpers for the Amazon tie regimes and the paper's Table 2 layout.

- :func:`tag_preset` records which simulator preset made a :class:`DataSource`.
- :func:`regime_summary` measures one preset: the weighted and residualized scores under input
  order, the hash rule and the exact expectation, with tie prevalence and the tie-regime model's
  measured parameters (:func:`rankaudit.data.amazon_presets.measured_tie_regime`).
- :func:`paper_table2_frame` lays an audit's results out as Table 2 of Guo et al. (2026, "Tie
  Handling Is Part of the Evaluation Protocol", arXiv:2609.26977): input order vs hash, NDCG@10
  and HR@10, the change input order -> hash, and the prevalence measures alongside.
- :func:`plot_regimes` draws the presets side by side with the paper's values as markers.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import replace
from typing import Any

import numpy as np
import pandas as pd

from rankaudit.audit.prepare import prepare_audit
from rankaudit.audit.tables import hash_ready
from rankaudit.data.amazon_presets import measured_tie_regime, preset_args
from rankaudit.data.source import DataSource
from rankaudit.ties.evaluate import evaluate
from rankaudit.ties.prevalence import tie_prevalence

__all__ = ["PAPER_AMAZON", "paper_table2_frame", "plot_regimes", "regime_summary", "tag_preset"]

#: Reported by Guo et al. (2026), Table 2 and §5.1: real Amazon Beauty, 30,000 rows, weighted
#: attribute overlap; the residualized score changes by 0.0004 NDCG@10 (input order -> hash).
PAPER_AMAZON = {
    "ndcg_input_order": 0.8474,
    "ndcg_hash": 0.1702,
    "hr_input_order": 0.9997,
    "hr_hash": 0.3526,
    "residualized_change": 0.0004,
}


def tag_preset(source: DataSource, preset: str) -> DataSource:
    """``source`` with ``details["preset"] = preset`` when it is simulated (a real source is
    returned unchanged: a real ``data_dir`` overrides the simulator and its presets)."""
    if not source.is_simulated:
        return source
    return replace(source, details={**source.details, "preset": preset})


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
        "amazon", n_rows=n_rows, n_negatives=n_negatives, seed=seed, families=list(scores),
        simulate=preset_args(preset),
    )
    rows = hash_ready(run.rows)
    out = []
    for name in scores:
        s = run.scores[name]
        line: dict[str, Any] = {"preset": preset, "score": name}
        for rule in ("input_order", "hash", "expected"):
            frame = evaluate(s, rows.labels, k=k, ties=rule, seed=seed, user_ids=rows.user_ids, item_ids=rows.item_ids)
            line[f"ndcg_{rule}"] = float(frame[f"ndcg@{k}"].mean())
            line[f"hr_{rule}"] = float(frame[f"hr@{k}"].mean())
        line["relevant_tie"] = float(tie_prevalence(s, rows.labels, k=k).summary["frac_relevant_tied"])
        line.update({f"model_{key}": v for key, v in measured_tie_regime(s, rows.labels).items()})
        out.append(line)
    return out


def paper_table2_frame(results: Mapping[str, Any]) -> pd.DataFrame:
    """Table 2 as the paper lays it out: one line per score; NDCG@10 and HR@10 under input order
    and the hash rule, each with ``Δ`` = hash - input order (the paper's direction); then the
    prevalence measures (shares of rows with any tie, a tie crossing the top-k boundary, the
    relevant item tied). Rounded to 4 decimals for display."""
    t2 = pd.DataFrame(results["table2"])
    prev = pd.DataFrame(results["prevalence"]).set_index("score")
    scores = list(dict.fromkeys(t2["score"]))
    cols: dict[tuple[str, str], pd.Series] = {}
    for metric, label in (("ndcg10", "NDCG@10"), ("hr10", "HR@10")):
        io = t2[t2["tie_rule"] == "input_order"].set_index("score")[metric].reindex(scores)
        h = t2[t2["tie_rule"] == "hash"].set_index("score")[metric].reindex(scores)
        cols[(label, "input order")] = io
        cols[(label, "hash")] = h
        cols[(label, "Δ input order → hash")] = h - io
    for key, label in (("any_tie", "any tie"), ("boundary_tie", "boundary tie"), ("relevant_tie", "relevant tied")):
        cols[("prevalence", label)] = prev[key].reindex(scores)
    frame = pd.DataFrame(cols).round(4)
    frame.index.name = "score"
    return frame


def plot_regimes(records: Sequence[Mapping[str, Any]], paper: Mapping[str, float], title: str):
    """Weighted-overlap NDCG@10 and HR@10 per tie rule for each preset (bars) with the paper's
    input-order and hash values as black markers (the paper has no expected value for Table 2)."""
    import matplotlib.pyplot as plt
    import seaborn as sns

    frame = pd.DataFrame([r for r in records if r["score"] == "weighted"])
    presets = list(dict.fromkeys(frame["preset"]))
    rules = ["input_order", "hash", "expected"]
    # seaborn places the hue bars of one category side by side across a width of 0.8: the
    # paper's markers go over the paper_regime bar (the category centre if that preset is absent)
    slot = presets.index("paper_regime") if "paper_regime" in presets else None
    offset = 0.0 if slot is None else -0.4 + 0.8 * (slot + 0.5) / len(presets)
    fig, axes = plt.subplots(1, 2, figsize=(10, 4.2), sharey=True)
    for ax, metric, label in zip(axes, ("ndcg", "hr"), ("NDCG@10", "HR@10"), strict=True):
        long = frame.melt(id_vars="preset", value_vars=[f"{metric}_{r}" for r in rules], var_name="rule", value_name="value")
        long["rule"] = long["rule"].str.removeprefix(f"{metric}_")
        sns.barplot(data=long, x="rule", y="value", hue="preset", order=rules, ax=ax, palette="colorblind")
        xs = np.array([0.0, 1.0]) + offset
        ax.scatter(xs, [paper[f"{metric}_input_order"], paper[f"{metric}_hash"]], marker="D", s=60,
                   color="black", zorder=5, label="paper (real Amazon)")
        ax.set(title=label, xlabel="tie rule", ylabel="mean over rows", ylim=(0, 1.05))
        ax.legend(fontsize=8, loc="upper right")
    fig.suptitle(title)
    fig.tight_layout()
    return fig
