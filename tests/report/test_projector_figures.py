"""Figures and tables meant for a 1280-px projector: no overlapping labels, readable headers."""

from __future__ import annotations

import itertools

import matplotlib

matplotlib.use("Agg")

import pandas as pd  # noqa: E402
import pytest  # noqa: E402

from rankbook.ranking.experiment import PART3_FRACTIONS, part3_fractions  # noqa: E402
from rankbook.report.figures import plot_ablation_design  # noqa: E402
from rankbook.report.tables import table1_views  # noqa: E402


def _overlaps(fig) -> list[tuple[str, str]]:
    fig.canvas.draw()
    renderer = fig.canvas.get_renderer()
    texts = [
        t
        for ax in fig.axes
        for t in [*ax.texts, ax.title]
        + ([*ax.get_yticklabels(), *ax.get_xticklabels()] if ax.axison else [])
        if t.get_visible() and t.get_text().strip()
    ]
    boxes = [(t.get_text(), t.get_window_extent(renderer)) for t in texts]
    return [(a, b) for (a, ba), (b, bb) in itertools.combinations(boxes, 2) if ba.overlaps(bb)]


def test_design_figure_has_no_overlapping_labels():
    windows = {
        "simulated (defaults)": part3_fractions(n_sessions=6000, encoder_sessions=20000),
        "real log": dict(PART3_FRACTIONS),
    }
    assert not _overlaps(plot_ablation_design(windows))


def test_the_overlap_check_can_fail():
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots()
    ax.text(0.5, 0.5, "valid\n4%")
    ax.text(0.51, 0.5, "test\n5%")
    assert _overlaps(fig)


def _arrows_into_boxes(fig) -> list[str]:
    """Names of the boxed labels an annotation's arrow runs into (it should stop at the edge)."""
    fig.canvas.draw()
    renderer = fig.canvas.get_renderer()
    found = []
    for ax in fig.axes:
        arrows = [
            t.arrow_patch.get_window_extent(renderer)
            for t in ax.texts
            if getattr(t, "arrow_patch", None) is not None
        ]
        for t in ax.texts:
            patch = t.get_bbox_patch()
            if patch is None or getattr(t, "arrow_patch", None) is not None:
                continue
            box = patch.get_window_extent(renderer)
            found += [t.get_text() for arrow in arrows if arrow.overlaps(box)]
    return found


def test_design_arrows_stop_at_the_boxes():
    windows = {"real log": dict(PART3_FRACTIONS)}
    assert _arrows_into_boxes(plot_ablation_design(windows)) == []


def test_the_arrow_check_can_fail():
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots()
    ax.text(0.5, 0.5, "a wide box name", ha="center", bbox={"boxstyle": "round"})
    ax.annotate("", xy=(0.5, 0.5), xytext=(0.1, 0.5), arrowprops={"arrowstyle": "-|>"})
    assert _arrows_into_boxes(fig) == ["a wide box name"]


def _ablation_table():
    return pd.DataFrame(
        {
            "variant": ["P1", "MLR + Oracle_intent"],
            "baseline": ["MLR", "MLR"],
            "mrr_sale_base": [0.31234, 0.31234],
            "mrr_sale_variant": [0.32, 0.4],
            "lift_pct": [2.5, 28.1],
            "ci_low": [-0.5, 20.0],
            "ci_high": [5.0, 35.0],
            "p_value": [0.2, 0.0002],
            "lift_seed_std": [0.3, 0.1],
        }
    )


def test_table1_views_key_columns_first_and_words_for_headers():
    lifts, context = table1_views(
        _ablation_table(),
        [{"p_holm": 0.2, "share_of_oracle": 0.09}, {"p_holm": None, "share_of_oracle": None}],
        n_perm=4999,
        paper={"P1": 1.0},
        paper_online={},
    )
    assert list(lifts.columns)[:3] == ["MRR base", "MRR variant", "lift %"]
    assert lifts.index.name == "variant vs baseline"
    assert lifts.loc["MLR + Oracle_intent vs MLR", "p (Holm)"] == "—"
    assert lifts.loc["P1 vs MLR", "p"] == "0.2000" or lifts.loc["P1 vs MLR", "p"].startswith("0.2")
    assert "0.0002" in lifts.loc["MLR + Oracle_intent vs MLR", "p"]
    assert context.loc["P1 vs MLR", "paper lift %"] == "1.00"
    assert context.loc["MLR + Oracle_intent vs MLR", "paper online lift %"] == "—"
    for frame in (lifts, context):
        assert not any("_" in str(c) for c in frame.columns), frame.columns
        assert frame.shape[1] + 1 <= 7, "wider than a projector column"


def test_table1_views_names_a_length_mismatch():
    with pytest.raises(ValueError, match="records has 1 rows"):
        table1_views(_ablation_table(), [{}], n_perm=99, paper={}, paper_online={})
    with pytest.raises(ValueError, match=r"extra\['encoder'\]"):
        table1_views(
            _ablation_table(),
            [{}, {}],
            n_perm=99,
            paper={},
            paper_online={},
            extra={"encoder": [1]},
        )


def test_progression_tick_labels_do_not_overlap():
    import seaborn as sns

    from rankbook.report.figures_context import plot_progression

    sets = ["MLR", "P1", "P2", "P2 + CosSim_seq:trans", "P2 + CosSim_seq:perc"]
    prog = pd.DataFrame(
        {"feature_set": sets * 2, "mrr_sale": [0.71, 0.72, 0.74, 0.75, 0.75] * 2}
    )
    with sns.axes_style("whitegrid"), sns.plotting_context("notebook"):  # the chapter's theme
        assert not _overlaps(plot_progression(prog, "progression"))


def test_sensitivity_figure_writes_no_exponent():
    import re

    import matplotlib.pyplot as plt

    from rankbook.report.figures import plot_tie_rule_sensitivity

    summary = pd.DataFrame(
        {"audit": ["exact", "rounded", "popularity"], "NDCG@10 range": [0.0, 2.2e-16, 0.0014]}
    )
    plot_tie_rule_sensitivity(summary, 1e-4)  # draws on a new current figure
    fig = plt.gcf()
    texts = [t.get_text() for ax in fig.axes for t in ax.texts]
    texts += [t.get_text() for ax in fig.axes for t in ax.get_legend().get_texts()]
    assert {"0", "2.2 × 10⁻¹⁶", "0.0014", "tolerance 10⁻⁴"} <= set(texts), texts
    assert not [t for t in texts if re.search(r"\d[eE][+-]?\d", t)], texts
