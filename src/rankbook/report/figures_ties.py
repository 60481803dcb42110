"""Figures of Part I (chapters 00 to 04), built here so that a chapter cell shows one call.

Like :mod:`rankbook.report.figures`: every helper returns a matplotlib ``Figure`` drawn with
seaborn, with a title and labelled axes; the caption is the chapter's.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd

from rankaudit._optional import require

plt = require("matplotlib.pyplot", purpose="rankbook.report.figures_ties")
sns = require("seaborn", purpose="rankbook.report.figures_ties")

__all__ = [
    "metric_label",
    "plot_boundary_blocks",
    "plot_layout_strip",
    "plot_mc_convergence",
    "plot_seed_spread",
    "plot_tie_block_sweep",
]


def plot_boundary_blocks(block_sizes: pd.Series, k: int, source_name: str):
    """Chapter 00: histogram of each user's boundary tie-block size at cutoff ``k``."""
    sns.set_theme(style="whitegrid")
    fig, ax = plt.subplots(figsize=(7, 3.5))
    sns.histplot(block_sizes, discrete=True, ax=ax)
    ax.xaxis.get_major_locator().set_params(integer=True)
    ax.set(
        title=f"Popularity ties at the top-{k} boundary ({source_name})",
        xlabel="candidates tied at the boundary score",
        ylabel="users",
    )
    return fig


def metric_label(metric: str) -> str:
    """A metric column as the papers name it on a figure: ``Success@k`` is HR@k (the
    recommender-systems name the registry accepts), ``nDCG@k`` is NDCG@k."""
    return metric.replace("Success@", "HR@").upper()


def plot_tie_block_sweep(curves: pd.DataFrame, metric_cols: Sequence[str], k: int):
    """Chapter 01: each metric against the tie block size ``t``, one line per tie rule.

    ``curves`` is long: columns ``tie_block_size``, ``rule``, ``metric``, ``value``; the dotted
    line marks the cutoff ``k``.
    """
    sns.set_theme(style="whitegrid")
    fig, axes = plt.subplots(1, len(metric_cols), figsize=(9, 4.2))
    for ax, metric in zip(axes, metric_cols, strict=True):
        sns.lineplot(
            data=curves[curves["metric"] == metric],
            x="tie_block_size",
            y="value",
            hue="rule",
            style="rule",
            markers=True,
            ax=ax,
            legend=ax is axes[0],
        )
        ax.axvline(k, color="grey", lw=0.8, ls=":")
        ax.set(
            title=f"{metric_label(metric)} as the tie block grows",
            ylim=(-0.05, 1.05),
            xlabel="tie block size t (relevant item included)",
            ylabel=metric_label(metric),
        )
    handles, labels = axes[0].get_legend_handles_labels()
    axes[0].get_legend().remove()
    fig.legend(handles, labels, title="tie rule", loc="lower center", ncol=3, frameon=False)
    fig.tight_layout(rect=(0, 0.12, 1, 1))
    return fig


def plot_mc_convergence(convergence: pd.DataFrame, final: pd.DataFrame, *, min_draw: int = 10):
    """Chapter 02: running Monte Carlo mean with its 95% band against the exact value.

    ``convergence``: columns ``metric``, ``draw``, ``mean``, ``lower``, ``upper``; ``final``:
    indexed by metric, with the exact expectation in ``exact``. Draws below ``min_draw`` are
    left out (their band is too wide to read).
    """
    sns.set_theme(style="whitegrid")
    metrics = list(final.index)
    fig, axes = plt.subplots(1, len(metrics), figsize=(10, 3.8))
    palette = sns.color_palette(n_colors=len(metrics))
    for ax, metric, color in zip(axes, metrics, palette, strict=True):
        part = convergence[(convergence["metric"] == metric) & (convergence["draw"] >= min_draw)]
        ax.fill_between(
            part["draw"], part["lower"], part["upper"], color=color, alpha=0.25, label="95% band"
        )
        sns.lineplot(data=part, x="draw", y="mean", color=color, ax=ax, label="running mean")
        ax.axhline(final.loc[metric, "exact"], color="black", ls="--", lw=1, label="exact")
        ax.set(
            xscale="log",
            title=f"E[{metric}], Monte Carlo",
            xlabel="random tie orders drawn",
            ylabel=f"mean {metric}",
        )
        ax.legend(loc="upper right", fontsize=8)
    for ax in axes[1:]:
        ax.get_legend().remove()
    fig.tight_layout()
    return fig


def plot_seed_spread(values: pd.Series, expected: float, sd_theory: float, k: int):
    """Chapter 03: histogram of mean NDCG@k over hash seeds, the exact expectation (dashed) and
    the normal density with the exact per-row variances, ``N(expected, sd_theory²)``."""
    sns.set_theme(style="whitegrid")
    fig, ax = plt.subplots(figsize=(7.5, 3.8))
    sns.histplot(values, stat="density", bins=20, ax=ax, label="hash seeds")
    grid = np.linspace(values.min() - 2 * sd_theory, values.max() + 2 * sd_theory, 200)
    density = np.exp(-0.5 * ((grid - expected) / sd_theory) ** 2) / (sd_theory * np.sqrt(2 * np.pi))
    ax.plot(grid, density, color="black", lw=1, label="normal, exact variance")
    ax.axvline(expected, color="black", ls="--", lw=1, label="exact expectation")
    ax.set(
        title=f"NDCG@{k} under {len(values)} hash seeds (simulated rows)",
        xlabel=f"mean NDCG@{k} over rows",
        ylabel="density",
    )
    ax.legend(fontsize=8)
    return fig


def plot_layout_strip(
    table: pd.DataFrame,
    names: Sequence[str],
    expected_ndcg: float,
    expected_hr: float,
    k: int,
    n_rows: int,
):
    """Chapter 04: each evaluator's mean metric in the three layouts (``relevant first``,
    ``relevant last``, ``ids renamed`` columns of ``table``), with the exact expectations of
    NDCG@k (dashed) and HR@k (dotted)."""
    sns.set_theme(style="whitegrid")
    long = table.assign(evaluator=list(names)).melt(
        id_vars=["evaluator"],
        value_vars=["relevant first", "relevant last", "ids renamed"],
        var_name="layout",
        value_name="value",
    )
    fig, ax = plt.subplots(figsize=(7, 0.5 * len(table) + 1.5))
    sns.stripplot(
        data=long, y="evaluator", x="value", hue="layout", dodge=True, size=8, jitter=False, ax=ax
    )
    ax.axvline(expected_ndcg, color="black", ls="--", lw=1)
    ax.axvline(expected_hr, color="black", ls=":", lw=1)
    ax.set(
        title=f"Reported metric by layout ({n_rows} simulated rows)",
        xlabel=f"mean NDCG@{k} ([HR]: HR@{k})",
        ylabel="",
    )
    ax.legend(
        title="layout",
        loc="upper center",
        bbox_to_anchor=(0.5, -0.12),
        ncol=3,
        fontsize=9,
        frameon=False,
    )
    return fig
