"""Part I's figure helpers draw titled, labelled figures from the data their chapters pass."""

from __future__ import annotations

import matplotlib

matplotlib.use("Agg")

import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402

from rankbook.report.figures_ties import (  # noqa: E402
    plot_boundary_blocks,
    plot_layout_strip,
    plot_mc_convergence,
    plot_seed_spread,
    plot_tie_block_sweep,
)


def _titled(fig) -> list[str]:
    titles = [ax.get_title() for ax in fig.axes if ax.get_title()]
    assert titles and all(ax.get_xlabel() for ax in fig.axes if ax.get_title())
    return titles


def test_boundary_blocks_names_the_cutoff_and_source():
    fig = plot_boundary_blocks(pd.Series([1, 1, 2, 5]), 10, "ML-100K")
    assert _titled(fig) == ["Popularity ties at the top-10 boundary (ML-100K)"]


def test_tie_block_sweep_one_panel_per_metric():
    curves = pd.DataFrame(
        [
            {"tie_block_size": t, "rule": r, "metric": m, "value": 1.0 / t}
            for t in (1, 2, 3)
            for r in ("a", "b")
            for m in ("Success@2", "nDCG@2")
        ]
    )
    fig = plot_tie_block_sweep(curves, ["Success@2", "nDCG@2"], 2)
    assert _titled(fig) == ["HR@2 as the tie block grows", "NDCG@2 as the tie block grows"]


def test_mc_convergence_marks_the_exact_value():
    rows = [
        {"metric": m, "draw": d, "mean": 0.5, "lower": 0.4, "upper": 0.6}
        for m in ("HR@2", "RR")
        for d in (10, 100)
    ]
    final = pd.DataFrame({"exact": [0.5, 0.3]}, index=["HR@2", "RR"])
    fig = plot_mc_convergence(pd.DataFrame(rows), final)
    assert _titled(fig) == ["E[HR@2], Monte Carlo", "E[RR], Monte Carlo"]
    assert fig.axes[1].lines[-1].get_ydata()[0] == 0.3  # the dashed exact line


def test_seed_spread_counts_the_seeds():
    values = pd.Series(np.linspace(0.2, 0.3, 7))
    fig = plot_seed_spread(values, 0.25, 0.02, 10)
    assert _titled(fig) == ["NDCG@10 under 7 hash seeds (simulated rows)"]


def test_layout_strip_has_one_row_per_evaluator():
    table = pd.DataFrame(
        {"relevant first": [1.0, 0.5], "relevant last": [0.2, 0.5], "ids renamed": [1.0, 0.5]}
    )
    fig = plot_layout_strip(table, ["sorted", "sklearn"], 0.5, 0.6, 10, 300)
    assert _titled(fig) == ["Reported metric by layout (300 simulated rows)"]
    assert [t.get_text() for t in fig.axes[0].get_yticklabels()] == ["sorted", "sklearn"]
