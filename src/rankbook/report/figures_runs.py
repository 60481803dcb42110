"""Figures of a user's own run files (chapter 15), built here so that a chapter cell shows one
call.

Like :mod:`rankbook.report.figures`: every helper returns a matplotlib ``Figure`` drawn with
seaborn, with a title and labelled axes, its legend outside the plotting area; the caption is the
chapter's.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from rankaudit._optional import require

plt = require("matplotlib.pyplot", purpose="rankbook.report.figures_runs")
sns = require("seaborn", purpose="rankbook.report.figures_runs")

__all__ = ["plot_run_envelope"]


def plot_run_envelope(envelope: pd.DataFrame):
    """Each measure of one run relative to its exact expectation over tie orders: a bar from the
    pessimistic to the optimistic value (the tie envelope), the expectation at 0 and trec_eval's
    value as a cross. ``envelope`` is indexed by measure with columns ``pessimistic``,
    ``optimistic``, ``expected`` and ``trec_eval`` (``rankaudit audit --format json``'s
    ``envelope``). Relative values keep an envelope of 0.001 visible beside values that differ
    by 0.3 between measures, which one shared absolute axis would shrink to a hairline."""
    missing = {"pessimistic", "optimistic", "expected", "trec_eval"} - set(envelope.columns)
    if missing:
        raise ValueError(f"envelope lacks columns {sorted(missing)}")
    rel = envelope[["pessimistic", "optimistic", "trec_eval"]].sub(envelope["expected"], axis=0)
    y = np.arange(len(rel))
    colors = sns.color_palette("colorblind", 3)
    fig, ax = plt.subplots(figsize=(8, 0.6 * len(rel) + 1.6))
    ax.barh(
        y,
        rel["optimistic"] - rel["pessimistic"],
        left=rel["pessimistic"],
        height=0.5,
        color=colors[0],
        alpha=0.6,
        zorder=2,
        label="tie envelope (pessimistic to optimistic)",
    )
    ax.axvline(0.0, color="0.3", lw=1, ls="--", zorder=1)
    ax.plot(np.zeros(len(rel)), y, "o", color=colors[0], zorder=3, label="expected (exact)")
    ax.plot(rel["trec_eval"], y, "x", color=colors[1], ms=9, mew=2, zorder=4, label="trec_eval")
    ax.set_yticks(y, list(rel.index))
    ax.invert_yaxis()
    span = float(np.nanmax(np.abs(rel.to_numpy()))) if len(rel) else 0.0
    span = 1.15 * span if span > 0 else 1.0
    ax.set(
        xlim=(-span, span),
        xlabel="value minus its expectation over tie orders (mean over queries)",
        title="Where the tie orders put each measure",
    )
    ax.legend(loc="upper left", bbox_to_anchor=(1.01, 1), frameon=False, fontsize=8)
    fig.tight_layout()
    return fig
