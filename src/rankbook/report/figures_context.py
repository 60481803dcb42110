"""Figures of the hash-seed chapter and of Part III (sessions, context features, the ablation),
built here so that a chapter cell shows one call (companion of :mod:`rankbook.report.figures`).

Every helper returns a matplotlib ``Figure`` drawn with seaborn, with a title and labelled
axes; the caption is the chapter's (a MyST ``figure`` around the cell output).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np
import pandas as pd

from rankaudit._optional import require

plt = require("matplotlib.pyplot", purpose="rankbook.report.figures_context")
sns = require("seaborn", purpose="rankbook.report.figures_context")

__all__ = [
    "plot_ablation_lifts",
    "plot_click_rate_by_position",
    "plot_context_sweep",
    "plot_features_by_label",
    "plot_hash_seeds",
    "plot_intent_shifts",
    "plot_lifts_vs_paper",
    "plot_progression",
    "plot_query_specificity",
    "plot_session_lengths",
]

_LABELS = {0: "none", 1: "click", 2: "sale"}


def _need(frame: pd.DataFrame, columns: Sequence[str], name: str) -> None:
    missing = sorted(set(columns) - set(frame.columns))
    if missing:
        raise ValueError(f"{name} lacks the column(s) {missing}")


def plot_hash_seeds(per_seed: Sequence[float], expected: float, closed_sd: float, title: str):
    """Histogram of the row-mean NDCG@10 under each hash seed, the exact expectation (solid line)
    and the normal density with the closed-form sd around it (dashed; McSherry & Najork, 2008)."""
    values = np.asarray(per_seed, dtype=float)
    if values.size < 2:
        raise ValueError("per_seed needs at least two hash seeds")
    fig, ax = plt.subplots(figsize=(7, 3.6))
    sns.histplot(values, stat="density", bins=20, ax=ax, color="C0", label="hash seeds")
    grid = np.linspace(values.min(), values.max(), 200)
    sd = max(float(closed_sd), 1e-12)
    density = np.exp(-0.5 * ((grid - expected) / sd) ** 2) / (sd * np.sqrt(2 * np.pi))
    ax.plot(grid, density, "k--", label="closed form")
    ax.axvline(expected, color="k", label="exact expectation")
    ax.set(title=title, xlabel="row-mean NDCG@10", ylabel="density")
    ax.legend(fontsize=8)
    fig.tight_layout()
    return fig


def plot_click_rate_by_position(serp: pd.DataFrame):
    """Click and sale rate per shown item by SERP position (columns ``rank``, ``clicked``,
    ``purchased``)."""
    _need(serp, ("rank", "clicked", "purchased"), "serp")
    by_rank = serp.groupby("rank")
    ctr = pd.DataFrame({"click": by_rank.clicked.mean(), "sale": by_rank.purchased.mean()})
    fig, ax = plt.subplots(figsize=(7, 3.5))
    long = ctr.reset_index().melt("rank", var_name="event")
    sns.lineplot(data=long, x="rank", y="value", hue="event", marker="o", ax=ax)
    ax.set(
        title="Click and sale rate by position",
        xlabel="SERP position",
        ylabel="rate per shown item",
        xticks=range(1, len(ctr) + 1, 2),
    )
    sns.move_legend(ax, "upper left", bbox_to_anchor=(1.01, 1))  # beside the curves, not on them
    fig.tight_layout()
    return fig


def plot_session_lengths(queries: pd.DataFrame):
    """Queries per session (left) and distinct intents per session (right)."""
    _need(queries, ("session_id", "query_id", "intent_target_item"), "queries")
    per = queries.groupby("session_id").agg(
        queries=("query_id", "size"), intents=("intent_target_item", "nunique")
    )
    fig, axes = plt.subplots(1, 2, figsize=(9, 3.5))
    sns.histplot(per.queries, discrete=True, ax=axes[0])
    axes[0].set(title="Queries per session", xlabel="queries", ylabel="sessions")
    sns.histplot(per.intents, discrete=True, ax=axes[1])
    axes[1].set(title="Intents per session", xlabel="distinct intents", ylabel="sessions")
    fig.tight_layout()
    return fig


def plot_intent_shifts(queries: pd.DataFrame, max_index: int = 8):
    """Share of later queries whose intent shifted, by position in the session, stacked into
    fresh intents and returns to an earlier one."""
    _need(queries, ("query_index", "intent_returned", "intent_switched"), "queries")
    later = queries[queries.query_index > 0]
    sw = later.groupby("query_index").agg(
        returned=("intent_returned", "mean"), any_shift=("intent_switched", "mean")
    )
    sw["fresh"] = sw.any_shift - sw.returned
    fig, ax = plt.subplots(figsize=(7, 3.5))
    sw[["fresh", "returned"]].loc[:max_index].plot.bar(stacked=True, rot=0, ax=ax)
    ax.set(
        title="Intent shifts by query position",
        xlabel="query index in session",
        ylabel="share of queries",
    )
    ax.legend(title="intent", loc="upper left", bbox_to_anchor=(1.01, 1))  # beside the bars
    fig.tight_layout()
    return fig


def plot_query_specificity(queries: pd.DataFrame, cap: int = 5):
    """Share of queries naming 0-3 facets, by the number of earlier queries in the same intent
    (capped at ``cap``)."""
    _need(queries, ("intent_query_index", "intent_level"), "queries")
    spec = queries.assign(k=queries.intent_query_index.clip(upper=cap))
    tab = pd.crosstab(spec.k, spec.intent_level, normalize="index")
    fig, ax = plt.subplots(figsize=(7, 3.5))
    tab.plot.bar(stacked=True, rot=0, ax=ax)
    ax.set(
        title="Broad to specific",
        xlabel=f"queries earlier in the same intent (capped at {cap})",
        ylabel="share of queries",
    )
    ax.legend(title="facets named", loc="upper left", bbox_to_anchor=(1.01, 1))
    fig.tight_layout()
    return fig


def plot_features_by_label(table: pd.DataFrame, features: Sequence[str], title: str):
    """Box plots of ``features`` by engagement label (none, click, sale), on rows whose query
    has an earlier click (``n_history > 0``)."""
    _need(table, (*features, "label", "n_history"), "table")
    long = table.loc[table.n_history > 0, [*features, "label"]].melt("label", var_name="feature")
    long["label"] = long.label.map(_LABELS)
    fig, ax = plt.subplots(figsize=(2.2 * len(features) + 3, 3.5))
    sns.boxplot(
        data=long,
        x="feature",
        y="value",
        hue="label",
        hue_order=list(_LABELS.values()),
        showfliers=False,
        ax=ax,
    )
    ax.set(title=title, xlabel="feature", ylabel="value")
    ax.legend(title="label", loc="upper left", bbox_to_anchor=(1.01, 1))
    fig.tight_layout()
    return fig


def plot_context_sweep(sweep: pd.DataFrame, title: str):
    """Lift over MLR (with its CI) of each feature against ``p_switch``, one panel per
    ``p_return``; points are dodged sideways to stay readable. With a ``distinct`` column
    (:func:`rankbook.ranking.experiment.context_sweep`) a grid point that repeats an earlier
    point's log is drawn hollow: the same run, shown again, not a second measurement. With an
    ``added_splits`` column a point whose model never splits on the feature it adds gets a black
    cross: its lift is not the feature's."""
    _need(sweep, ("p_switch", "p_return", "feature", "lift_pct", "ci_low", "ci_high"), "sweep")
    parts = list(sweep.groupby("p_return", sort=True))
    fig, axes = plt.subplots(1, len(parts), figsize=(5 * len(parts), 4), sharey=True, squeeze=False)
    any_repeat = any_unused = False
    for ax, (p_ret, part) in zip(axes[0], parts, strict=True):
        for i, (feature, g) in enumerate(part.groupby("feature", sort=False)):
            x = g.p_switch + (i - 2) * 0.012
            err = [g.lift_pct - g.ci_low, g.ci_high - g.lift_pct]
            line = ax.errorbar(x, g.lift_pct, yerr=err, marker="o", capsize=3, label=feature)
            repeat = ~g["distinct"].astype(bool) if "distinct" in g else pd.Series(False, g.index)
            if repeat.any():
                any_repeat = True
                color = line.lines[0].get_color()
                ax.plot(x[repeat], g.lift_pct[repeat], "o", color=color, mfc="white", zorder=3)
            if "added_splits" in g and (unused := g.added_splits.to_numpy() == 0).any():
                any_unused = True
                ax.plot(x[unused], g.lift_pct[unused], "x", color="black", ms=9, mew=1.5, zorder=4)
        ax.axhline(0, color="grey", lw=1)
        ax.set(
            title=f"p_return = {p_ret:.2f}",
            xlabel="p_switch (probability of an intent shift)",
            ylabel="MRR-sale lift over MLR (%)",
        )
    axes[0, -1].legend(title="feature added", loc="upper left", bbox_to_anchor=(1.01, 1))
    notes = [
        note
        for note, drawn in (
            ("hollow: the same log as an earlier grid point, shown again", any_repeat),
            ("cross: the model never splits on the feature it adds", any_unused),
        )
        if drawn
    ]
    if notes:
        fig.text(0.01, 0.01, "; ".join(notes), fontsize="small")
    fig.suptitle(title)
    fig.tight_layout()
    return fig


def plot_ablation_lifts(
    table: pd.DataFrame,
    per_query: pd.DataFrame,
    paper: Mapping[str, float],
    oracle_variant: str | None,
):
    """Lift of each variant over its own baseline with its CI (points), single ranker seeds
    (crosses) and the paper's offline lifts (red diamonds); the oracle row, whose lift is several
    times the features', gets its own panel and axis."""
    _need(table, ("variant", "baseline", "lift_pct", "ci_low", "ci_high"), "table")
    _need(per_query, ("feature_set", "seed", "rr_expected"), "per_query")
    seed_means = per_query.groupby(["feature_set", "seed"]).rr_expected.mean()
    is_oracle = (table.variant == oracle_variant).to_numpy()
    panels = [m for m in (~is_oracle, is_oracle) if m.any()]
    fig, axes = plt.subplots(
        len(panels),
        1,
        figsize=(8, 1.2 + 0.45 * len(table)),
        squeeze=False,
        gridspec_kw={"height_ratios": [max(m.sum(), 1.5) for m in panels]},
    )
    for ax, mask in zip(axes[:, 0], panels, strict=True):
        part = table[mask].reset_index(drop=True)
        y = np.arange(len(part))[::-1]
        err = [part.lift_pct - part.ci_low, part.ci_high - part.lift_pct]
        ax.errorbar(part.lift_pct, y, xerr=err, fmt="o", capsize=3, label="lift, 95% CI")
        for yi, r in zip(y, part.itertuples(), strict=True):
            s = 100 * (seed_means[r.variant] / seed_means[r.baseline] - 1)
            ax.scatter(
                s,
                np.full(len(s), yi),
                marker="x",
                color="grey",
                zorder=3,
                label="single seed" if yi == y[0] else None,
            )
        ax.scatter(part.variant.map(paper), y, marker="D", color="tab:red", label="paper (eBay)")
        ax.axvline(0, color="black", lw=1)
        ax.set_yticks(y, part.variant + " vs " + part.baseline)
        ax.set_ylim(y.min() - 0.6, y.max() + 0.6)
        ax.set(xlabel="MRR-sale lift (%)", ylabel="")
    own = " (oracle: own panel and axis)" if len(panels) > 1 else ""
    axes[0, 0].set_title("Progressive ablation: lift over own baseline" + own)
    axes[0, 0].legend(loc="upper left", bbox_to_anchor=(1.01, 1))
    fig.tight_layout()
    return fig


def plot_progression(prog: pd.DataFrame, title: str):
    """MRR of the sold item per feature set, one dot per ranker seed and a dash at the mean
    (``prog``: columns ``feature_set``, ``mrr_sale``, in display order)."""
    _need(prog, ("feature_set", "mrr_sale"), "prog")
    means = prog.groupby("feature_set", sort=False).mrr_sale.mean()
    labels = [name.replace(" + ", "\n+ ").replace(":", ":\n") for name in means.index]
    # each tick label gets the width of its longest line (about 0.09 inch a character at 10 pt),
    # so that neighbouring names never overlap
    longest = max(len(line) for label in labels for line in label.split("\n"))
    slot = max(1.2, 0.09 * longest + 0.2)
    fig, ax = plt.subplots(figsize=(max(8.0, 2.6 + slot * len(labels)), 3.8))
    sns.stripplot(
        data=prog, x="feature_set", y="mrr_sale", color="black", size=5, jitter=0.1, ax=ax
    )
    ax.scatter(
        range(len(means)),
        means,
        marker="_",
        s=1200,
        linewidths=2.5,
        color="tab:blue",
        zorder=3,
        label="mean over seeds",
    )
    ax.set_xticks(range(len(means)), labels, fontsize=10)
    ax.set(title=title, xlabel="feature set", ylabel="MRR (sold item)")
    ax.legend(loc="upper left", bbox_to_anchor=(1.01, 1))
    fig.tight_layout()
    return fig


def plot_lifts_vs_paper(listed: pd.DataFrame, title: str):
    """Each row's measured lift with its 95% CI (black) and the paper's lift (red crosses)."""
    _need(listed, ("variant", "lift_pct", "ci_low", "ci_high", "paper_lift_pct"), "listed")
    fig, ax = plt.subplots(figsize=(7, 4))
    y = range(len(listed))
    err = [listed.lift_pct - listed.ci_low, listed.ci_high - listed.lift_pct]
    ax.errorbar(
        listed.lift_pct, y, xerr=err, fmt="o", color="black", capsize=3, label="measured (95% CI)"
    )
    ax.scatter(
        listed.paper_lift_pct, y, marker="x", color="red", s=60, zorder=3, label="paper, Table 1"
    )
    ax.axvline(0, color="grey", lw=1)
    ax.set_yticks(list(y), listed.variant)
    ax.invert_yaxis()
    ax.set(title=title, xlabel="lift over the row's baseline (%)", ylabel="")
    ax.legend(loc="upper left", bbox_to_anchor=(1.01, 1))
    fig.tight_layout()
    return fig
