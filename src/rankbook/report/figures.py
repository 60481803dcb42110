"""Figures the chapters draw, built here so that a chapter cell shows one call.

Every helper returns a matplotlib ``Figure`` drawn with seaborn, with a title and labelled
axes; the caption is the chapter's (a MyST ``figure`` around the cell output).
"""

from __future__ import annotations

import itertools
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import pandas as pd

from rankaudit._optional import require
from rankbook.report.prose import plural_phrase, power_of_ten
from rankbook.report.tables import format_values

plt = require("matplotlib.pyplot", purpose="rankbook.report.figures")
sns = require("seaborn", purpose="rankbook.report.figures")

__all__ = [
    "plot_ablation_design",
    "plot_epoch_curves",
    "plot_precision_sweep",
    "plot_prevalence",
    "plot_rank_intervals",
    "plot_protocol_metrics",
    "plot_regimes",
    "plot_table2",
    "plot_throughput",
    "plot_tie_rule_sensitivity",
    "plot_variant_lifts",
]


def _bars_by_rule(frame: pd.DataFrame, x: str, hue: str, title: str, xlabel: str, ylabel: str):
    """NDCG@10 bars by ``x`` with one bar per tie rule (``hue``), the legend under the axes."""
    fig, ax = plt.subplots(figsize=(9, 4.4))
    sns.barplot(data=frame, x=x, y="ndcg10", hue=hue, ax=ax, palette="colorblind")
    ax.set(title=title, xlabel=xlabel, ylabel=ylabel)
    ax.legend(
        title="tie rule",
        fontsize=9,
        ncols=frame[hue].nunique(),
        loc="upper center",
        bbox_to_anchor=(0.5, -0.18),
        frameon=False,
    )
    fig.tight_layout()
    return fig


def plot_table2(results: Mapping[str, Any], title: str):
    """Bar chart of NDCG@10 by score family and tie rule (``results["table2"]``)."""
    frame = pd.DataFrame(results["table2"])
    return _bars_by_rule(
        frame, "score", "tie_rule", title, "score family", "NDCG@10 (mean over rows)"
    )


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
    ax.legend(
        title="rows with",
        fontsize=9,
        ncols=4,
        loc="upper center",
        bbox_to_anchor=(0.5, -0.18),
        frameon=False,
    )
    fig.tight_layout()
    return fig


def plot_tie_rule_sensitivity(summary: pd.DataFrame, tolerance: float, *, k: int = 10):
    """Horizontal bars of each audit's NDCG@k range across tie rules, with the tolerance marked.

    ``summary`` has columns ``audit`` and ``NDCG@{k} range`` (``k`` the cutoff). The x axis is
    logarithmic (the ranges span orders of magnitude), so a range of exactly 0 is drawn at the
    axis floor, ``tolerance / 100``; every bar carries its value as text. Bars past the tolerance
    are red and the tolerance is a labelled red line, so neither depends on reading the axis.
    """
    floor = tolerance / 100
    values = summary[f"NDCG@{k} range"].to_numpy(dtype=float)
    frame = summary.assign(
        shown=np.maximum(values, floor),
        beyond=np.where(values > tolerance, "beyond tolerance", "within tolerance"),
    )
    fig, ax = plt.subplots(figsize=(8.5, 0.42 * len(frame) + 1.6))
    sns.barplot(
        data=frame,
        y="audit",
        x="shown",
        hue="beyond",
        ax=ax,
        dodge=False,
        palette={"beyond tolerance": "C3", "within tolerance": "C0"},
    )
    tolerance_label = f"tolerance {power_of_ten(tolerance, 0)}"  # "10⁻⁴", never "0.0001"/"1e-04"
    ax.axvline(tolerance, color="firebrick", linestyle="-", linewidth=2.5, label=tolerance_label)
    for y, (value, shown) in enumerate(zip(values, frame["shown"], strict=True)):
        ax.text(shown * 1.15, y, format_values([value], ".2g")[0], va="center")  # 2 significant
    ax.set_xscale("log")
    ax.set_xlim(floor, max(frame["shown"].max() * 4, tolerance * 10))
    ax.set(
        title=f"Sensitivity of NDCG@{k} to the tie rule",
        xlabel=f"NDCG@{k} range across tie rules (log scale; 0 drawn at the left edge)",
        ylabel="",
    )
    ax.legend(loc="lower right")


#: The progressive design of Part III: each step's features, added to the previous baseline.
DESIGN_STEPS = (
    ("MLR", "engine features\n(no session\ncontext)"),
    ("P1", "+ NCD, CosSim of\nlast click and\nlast 5 clicks"),
    ("P2", "+ NCD, CosSim of\nthe query-matched\nclick (Ref)"),
    ("P2 + seq", "+ CosSim to a\nsequence encoder's\nsummary"),
)


#: A time window's name is written inside its bar only when the bar is at least this wide.
_MIN_LABELLED_SHARE = 0.12


def plot_ablation_design(windows: Mapping[str, Mapping[str, float]]):
    """The MLR -> P1 -> P2 -> +sequence design (top) and the time windows of each chapter (bottom).

    ``windows`` maps a label (e.g. ``"chapter 11"``) to ``{window name: share of sessions}`` in
    time order, as passed to ``rankbook.data.session_log.assign_time_windows``.
    """
    palette = dict(
        zip(["encoder", "train", "valid", "test"], sns.color_palette("colorblind", 4), strict=True)
    )
    fig, (top, bottom) = plt.subplots(
        2, 1, figsize=(10, 5.6), gridspec_kw={"height_ratios": [1.1, 1]}
    )
    top.set(
        xlim=(0, len(DESIGN_STEPS)),
        ylim=(0, 1),
        title="Progressive design: each step is tested against the one before it",
    )
    top.axis("off")
    box = {"boxstyle": "round,pad=0.5", "fc": "#eef3fb", "ec": "#35608f"}
    boxes = [
        top.text(
            i + 0.5, 0.75, name, ha="center", va="center", fontsize=13, weight="bold", bbox=box
        )
        for i, (name, _) in enumerate(DESIGN_STEPS)
    ]
    for i, (_, added) in enumerate(DESIGN_STEPS):
        top.text(i + 0.5, 0.22, added, ha="center", va="center", fontsize=9.5)
    # from the right edge of one box to the left edge of the next, whatever the names' widths
    # (the shrinks, in points, clear the boxes' padding: 0.5 of the 13-point font)
    arrow = {"arrowstyle": "-|>", "lw": 1.8, "color": "#35608f", "shrinkA": 10, "shrinkB": 10}
    for before, after in itertools.pairwise(boxes):
        top.annotate("", (0, 0.5), (1, 0.5), xycoords=after, textcoords=before, arrowprops=arrow)
    labels = list(windows)
    for y, label in enumerate(labels):
        left = 0.0
        for name, share in windows[label].items():
            bottom.barh(y, share, left=left, color=palette.get(name, "grey"), edgecolor="white")
            # a name inside its bar only where it fits; every share is on the row's label
            if share >= _MIN_LABELLED_SHARE:
                bottom.text(left + share / 2, y, name, ha="center", va="center", fontsize=10)
            left += share
    rows = [
        f"{label}\n" + ", ".join(f"{name} {share:.0%}" for name, share in windows[label].items())
        for label in labels
    ]
    bottom.set(
        yticks=range(len(labels)),
        yticklabels=rows,
        xlim=(0, 1),
        xlabel="sessions, ordered by start time (share of the log)",
        title="Time windows: a session belongs wholly to the window of its start",
    )
    bottom.invert_yaxis()
    bottom.xaxis.set_major_formatter(plt.FuncFormatter(lambda v, _: f"{v:.0%}"))
    fig.tight_layout()
    return fig


def plot_throughput(throughput: pd.DataFrame, n_rows: int):
    """Rows per second of the Dask configurations, with the single-machine rate as a line.

    ``throughput`` has columns ``engine``, ``n_workers``, ``layout`` and ``rows_per_second``;
    its first line is the single-machine run.
    """
    runs = throughput[throughput["engine"] != "one machine"].assign(
        workers=lambda d: [plural_phrase(n, "worker", "workers") for n in d["n_workers"]]
    )
    fig, ax = plt.subplots(figsize=(8, 4))
    sns.barplot(runs, x="layout", y="rows_per_second", hue="workers", ax=ax, palette="colorblind")
    ax.axhline(throughput["rows_per_second"].iloc[0], ls="--", c="k", label="one machine, no Dask")
    ax.set(
        title=f"Expected-metrics evaluation, {n_rows:,} rows (simulated)",
        xlabel="row layout in the Dask partitions",
        ylabel="rows per second (log scale)",
        yscale="log",
    )
    ax.legend(loc="upper left", bbox_to_anchor=(1.01, 1), frameon=False)  # off the bars
    return fig


def plot_variant_lifts(table: pd.DataFrame, title: str, *, truth: Mapping[str, bool] | None = None):
    """Lift (%) with its 95% CI per variant; marker filled where Holm rejects at the table's alpha.

    ``table`` is :func:`rankbook.ranking.comparisons.compare_variants`'s output; ``truth``
    optionally maps a variant to whether it has a real effect (printed on the y labels).
    """
    frame = table.iloc[::-1].reset_index(drop=True)
    fig, ax = plt.subplots(figsize=(9, 0.45 * len(frame) + 1.6))
    colors = sns.color_palette("colorblind", 2)
    for y, row in frame.iterrows():
        kept = bool(row["reject_holm"])
        ax.plot([row["ci_low"], row["ci_high"]], [y, y], color=colors[kept], lw=2.5)
        ax.plot(
            row["lift_pct"],
            y,
            "o",
            ms=8,
            color=colors[kept],
            mfc=colors[kept] if kept else "white",
            mew=2,
        )
    names = [
        f"{v} ({'real' if truth[v] else 'null'})" if truth else str(v) for v in frame["variant"]
    ]
    ax.set_yticks(range(len(frame)), names)
    ax.axvline(0, color="black", lw=1.2, ls=":")
    ax.set(
        title=title,
        xlabel="lift of mean RR over the baseline (%), with 95% paired bootstrap CI",
        ylabel="variant",
    )
    handles = [
        plt.Line2D([], [], color=colors[1], marker="o", lw=2.5, label="Holm rejects"),
        plt.Line2D(
            [], [], color=colors[0], marker="o", mfc="white", lw=2.5, label="Holm does not reject"
        ),
    ]
    ax.legend(handles=handles, loc="lower right", frameon=True)
    fig.tight_layout()
    return fig


def plot_regimes(records: Sequence[Mapping[str, Any]], paper: Mapping[str, float], title: str):
    """Weighted-overlap NDCG@10 and HR@10 per tie rule for each preset (bars) with the paper's
    input-order and hash values as black markers (the paper has no expected value for Table 2)."""
    frame = pd.DataFrame([r for r in records if r["score"] == "weighted"])
    presets = list(dict.fromkeys(frame["preset"]))
    rules = ["input_order", "hash", "expected"]
    # seaborn places the hue bars of one category side by side across a width of 0.8: the
    # paper's markers go over the paper_regime bar (the category centre if that preset is absent)
    slot = presets.index("paper_regime") if "paper_regime" in presets else None
    offset = 0.0 if slot is None else -0.4 + 0.8 * (slot + 0.5) / len(presets)
    fig, axes = plt.subplots(1, 2, figsize=(10, 4.2), sharey=True)
    for ax, metric, label in zip(axes, ("ndcg", "hr"), ("NDCG@10", "HR@10"), strict=True):
        long = frame.melt(
            id_vars="preset",
            value_vars=[f"{metric}_{r}" for r in rules],
            var_name="rule",
            value_name="value",
        )
        long["rule"] = long["rule"].str.removeprefix(f"{metric}_")
        sns.barplot(
            data=long, x="rule", y="value", hue="preset", order=rules, ax=ax, palette="colorblind"
        )
        xs = np.array([0.0, 1.0]) + offset
        ax.scatter(
            xs,
            [paper[f"{metric}_input_order"], paper[f"{metric}_hash"]],
            marker="D",
            s=60,
            color="black",
            zorder=5,
            label="paper (real Amazon)",
        )
        ax.set(title=label, xlabel="tie rule", ylabel="mean over rows", ylim=(0, 1.05))
        ax.legend(fontsize=8, loc="upper right")
    fig.suptitle(title)
    fig.tight_layout()
    return fig


def plot_rank_intervals(board: Mapping[str, Any], measure: str, title: str):
    """One bar per system from its best to its worst possible rank under ties (``rank_intervals``
    of a ``rankaudit leaderboard`` JSON document ``board``), with its trec_eval and expected
    ranks marked; systems in the order of the expected leaderboard, rank 1 at the top."""
    orders = {r["ties"]: r["order"] for r in board["rankings"] if r["measure"] == measure}
    spans = {
        r["run"]: (r["best"], r["worst"])
        for r in board["rank_intervals"]
        if r["measure"] == measure
    }
    systems = orders["expected"]
    n = len(systems)
    fig, ax = plt.subplots(figsize=(8, 0.5 * n + 1.6))
    colors = sns.color_palette("colorblind", 3)
    for y, name in enumerate(systems):
        best, worst = spans[name]
        ax.barh(y, worst - best + 0.8, left=best - 0.4, height=0.6, color=colors[0], alpha=0.35)
    y = np.arange(n)
    ax.plot(
        [orders["expected"].index(s) + 1 for s in systems],
        y,
        "o",
        color=colors[0],
        label="expected rank",
    )
    ax.plot(
        [orders["trec_eval"].index(s) + 1 for s in systems],
        y,
        "x",
        color=colors[1],
        ms=9,
        mew=2,
        label="trec_eval rank",
    )
    ax.set_yticks(y, systems)
    ax.invert_yaxis()
    ax.set_xticks(range(1, n + 1))
    ax.set(
        title=title,
        xlabel=f"rank on {measure} (1 = best); bar: rank interval under ties",
        ylabel="system",
        xlim=(0.4, n + 0.6),
    )
    ax.legend(loc="upper left", bbox_to_anchor=(1.01, 1), frameon=False, fontsize=8)
    return fig


def plot_protocol_metrics(metrics: Sequence[Mapping[str, Any]], protocol: str, title: str):
    """Bar chart of NDCG@10 by model and tie rule for one protocol at float64 (``metrics``
    records with ``model, protocol, precision, ties, ndcg10``)."""
    frame = pd.DataFrame(metrics)
    frame = frame[(frame["protocol"] == protocol) & (frame["precision"] == "float64")]
    return _bars_by_rule(frame, "model", "ties", title, "model", "NDCG@10 (mean over users)")


def plot_precision_sweep(sweep: Sequence[Mapping[str, Any]], precisions: Sequence[str]):
    """Two panels over ``precisions`` (in that order), one line per model: the share of rows
    whose relevant item is tied, and the NDCG@10 gap input order minus expectation
    (``precision_sweep`` records of one protocol)."""
    frame = pd.DataFrame(sweep)
    order = {p: i for i, p in enumerate(precisions)}
    frame = frame[frame["precision"].isin(order)].assign(step=frame["precision"].map(order))
    fig, axes = plt.subplots(1, 2, figsize=(11, 4.2), sharex=True)
    for ax, column, label in (
        (axes[0], "prevalence", "rows with the relevant item tied"),
        (axes[1], "gap_input_order_vs_expected", "NDCG@10: input order − expected"),
    ):
        sns.lineplot(
            data=frame, x="step", y=column, hue="model", marker="o", ax=ax, palette="colorblind"
        )
        ax.set(xlabel="score precision", ylabel=label)
        ax.set_xticks(range(len(precisions)), list(precisions), rotation=30)
    axes[0].set_title("Tie prevalence")
    axes[1].set_title("How far input order departs from the expectation")
    axes[0].get_legend().remove()
    axes[1].legend(title="model", fontsize=8, loc="upper left", bbox_to_anchor=(1.02, 1))
    fig.tight_layout()
    return fig


def plot_epoch_curves(history: pd.DataFrame, title: str):
    """Validation NDCG@10 by training epoch, one line per encoder (colour) and seed (style), a
    star on each run's kept epoch (its best validation NDCG@10; Prechelt, 1998, early stopping).

    ``history``: columns ``encoder``, ``seed``, ``epoch``, ``valid_ndcg`` (epoch 0 = untrained).
    """
    missing = {"encoder", "seed", "epoch", "valid_ndcg"} - set(history.columns)
    if missing:
        raise ValueError(f"history lacks the column(s) {sorted(missing)}")
    fig, ax = plt.subplots(figsize=(7, 3.5))
    sns.lineplot(
        data=history, x="epoch", y="valid_ndcg", hue="encoder", style="seed", marker="o", ax=ax
    )
    best = history.loc[history.groupby(["encoder", "seed"]).valid_ndcg.idxmax()]
    ax.scatter(
        best.epoch, best.valid_ndcg, marker="*", s=180, color="black", zorder=4, label="kept epoch"
    )
    ax.set(title=title, xlabel="epoch (0 = untrained)", ylabel="validation NDCG@10")
    ax.xaxis.set_major_locator(plt.MaxNLocator(integer=True))  # whole epochs, never "0.5"
    ax.legend(loc="upper left", bbox_to_anchor=(1.01, 1))
    fig.tight_layout()
    return fig
