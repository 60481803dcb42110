"""Figures the chapters draw, built here so that a chapter cell shows one call.

Every helper returns a matplotlib ``Figure`` drawn with seaborn, with a title and labelled
axes; the caption is the chapter's (a MyST ``figure`` around the cell output).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
import seaborn as sns

__all__ = [
    "plot_prevalence",
    "plot_table2",
    "plot_throughput",
    "plot_tie_rule_sensitivity",
]


def plot_table2(results: Mapping[str, Any], title: str):
    """Bar chart of NDCG@10 by score family and tie rule (``results["table2"]``)."""
    frame = pd.DataFrame(results["table2"])
    fig, ax = plt.subplots(figsize=(9, 4.4))
    sns.barplot(data=frame, x="score", y="ndcg10", hue="tie_rule", ax=ax, palette="colorblind")
    ax.set(title=title, xlabel="score family", ylabel="NDCG@10 (mean over rows)")
    ax.legend(title="tie rule", fontsize=9, ncols=4, loc="upper center",
              bbox_to_anchor=(0.5, -0.18), frameon=False)
    fig.tight_layout()
    return fig


def plot_prevalence(results: Mapping[str, Any], title: str):
    """Bar chart of the tie-prevalence fractions per score family (``results["prevalence"]``)."""
    frame = pd.DataFrame(results["prevalence"]).melt(
        id_vars="score",
        value_vars=["any_tie", "boundary_tie", "relevant_tie", "relevant_boundary_tie"],
        var_name="measure",
        value_name="fraction",
    )
    fig, ax = plt.subplots(figsize=(9, 4.2))
    sns.barplot(data=frame, x="score", y="fraction", hue="measure", ax=ax, palette="colorblind")
    ax.set(title=title, xlabel="score family", ylabel="fraction of rows", ylim=(0, 1.05))
    ax.legend(title="rows with", fontsize=9, ncols=4, loc="upper center",
              bbox_to_anchor=(0.5, -0.18), frameon=False)
    fig.tight_layout()
    return fig


def plot_tie_rule_sensitivity(summary: pd.DataFrame, tolerance: float):
    """Horizontal bars of each audit's NDCG@10 range across tie rules, with the tolerance marked.

    ``summary`` has columns ``audit`` and ``NDCG@10 range``. The x axis is logarithmic (the
    ranges span orders of magnitude), so a range of exactly 0 is drawn at the axis floor,
    ``tolerance / 100``; every bar carries its value as text. Bars past the tolerance are red
    and the tolerance is a labelled red line, so neither depends on reading the axis.
    """
    floor = tolerance / 100
    values = summary["NDCG@10 range"].to_numpy(dtype=float)
    frame = summary.assign(
        shown=np.maximum(values, floor),
        beyond=np.where(values > tolerance, "beyond tolerance", "within tolerance"),
    )
    fig, ax = plt.subplots(figsize=(8.5, 0.42 * len(frame) + 1.6))
    sns.barplot(data=frame, y="audit", x="shown", hue="beyond", ax=ax, dodge=False,
                palette={"beyond tolerance": "C3", "within tolerance": "C0"})
    ax.axvline(tolerance, color="firebrick", linestyle="-", linewidth=2.5,
               label=f"tolerance {tolerance:g}")
    for y, (value, shown) in enumerate(zip(values, frame["shown"], strict=True)):
        ax.text(shown * 1.15, y, "0" if value == 0 else f"{value:.2g}", va="center")
    ax.set_xscale("log")
    ax.set_xlim(floor, max(frame["shown"].max() * 4, tolerance * 10))
    ax.set(title="Sensitivity of NDCG@10 to the tie rule",
           xlabel="NDCG@10 range across tie rules (log scale; 0 drawn at the left edge)",
           ylabel="")
    ax.legend(loc="lower right")
    fig.tight_layout()
    return fig


def plot_throughput(throughput: pd.DataFrame, n_rows: int):
    """Rows per second of the Dask configurations, with the single-machine rate as a line.

    ``throughput`` has columns ``engine``, ``n_workers``, ``layout`` and ``rows_per_second``;
    its first line is the single-machine run.
    """
    runs = throughput[throughput["engine"] != "one machine"].assign(
        workers=lambda d: d["n_workers"].astype(str) + " worker(s)"
    )
    fig, ax = plt.subplots(figsize=(8, 4))
    sns.barplot(runs, x="layout", y="rows_per_second", hue="workers", ax=ax, palette="colorblind")
    ax.axhline(throughput["rows_per_second"].iloc[0], ls="--", c="k", label="one machine, no Dask")
    ax.set(title=f"Expected-metrics evaluation, {n_rows:,} rows (simulated)",
           xlabel="row layout in the Dask partitions", ylabel="rows per second (log scale)",
           yscale="log")
    ax.legend()
    fig.tight_layout()
    return fig
