"""Figures the chapters draw, built here so that a chapter cell shows one call.

Every helper returns a matplotlib ``Figure`` drawn with seaborn, with a title and labelled
axes; the caption is the chapter's (a MyST ``figure`` around the cell output).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import matplotlib.pyplot as plt
import pandas as pd
import seaborn as sns

__all__ = ["plot_prevalence", "plot_table2"]


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
