"""The figure helpers of rankbook.report.figures_context draw titled, labelled figures and
refuse input that lacks their columns."""

from __future__ import annotations

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402
import pytest  # noqa: E402

from rankbook.report import figures_context as fc  # noqa: E402
from tests.report.test_figure_legends import legend_on_data


def _titled(fig) -> bool:
    axes = [ax for ax in fig.axes if ax.get_xlabel() or ax.get_ylabel()]
    titles = [ax.get_title() for ax in fig.axes] + [
        fig._suptitle.get_text() if fig._suptitle else ""
    ]
    return bool(axes) and any(titles)


def test_hash_seeds_and_sweep_figures_are_titled():
    rng = np.random.default_rng(0)
    assert _titled(fc.plot_hash_seeds(rng.normal(0.2, 0.01, 30), 0.2, 0.01, "seeds"))
    sweep = pd.DataFrame(
        {
            "p_switch": [0.0, 0.5, 0.0, 0.5],
            "p_return": [0.0, 0.0, 0.7, 0.7],
            "feature": ["a", "a", "a", "a"],
            "lift_pct": [1.0, 2.0, 1.5, 2.5],
            "ci_low": [0.0, 1.0, 0.5, 1.5],
            "ci_high": [2.0, 3.0, 2.5, 3.5],
        }
    )
    assert _titled(fc.plot_context_sweep(sweep, "sweep"))
    # a point whose model never splits on its added feature is crossed, and the note says so
    fig = fc.plot_context_sweep(sweep.assign(added_splits=[3, 0, 2, 5]), "sweep")
    crosses = [line for ax in fig.axes for line in ax.lines if line.get_marker() == "x"]
    assert [list(line.get_ydata()) for line in crosses] == [[2.0]]
    assert any("never splits" in t.get_text() for t in fig.texts)
    unmarked = fc.plot_context_sweep(sweep.assign(added_splits=[3, 1, 2, 5]), "sweep")
    assert not [line for ax in unmarked.axes for line in ax.lines if line.get_marker() == "x"]
    listed = sweep.assign(variant=["r1", "r2", "r3", "r4"], paper_lift_pct=[1.0, 1.0, 2.0, 2.0])
    assert _titled(fc.plot_lifts_vs_paper(listed, "vs paper"))


def test_session_figures_are_titled():
    queries = pd.DataFrame(
        {
            "session_id": [0, 0, 0, 1, 1],
            "query_id": [0, 1, 2, 3, 4],
            "query_index": [0, 1, 2, 0, 1],
            "intent_target_item": [5, 5, 6, 7, 7],
            "intent_switched": [False, False, True, False, False],
            "intent_returned": [False, False, False, False, False],
            "intent_query_index": [0, 1, 0, 0, 1],
            "intent_level": [0, 1, 0, 0, 2],
        }
    )
    serp = pd.DataFrame({"rank": [1, 2, 1, 2], "clicked": [1, 0, 1, 1], "purchased": [1, 0, 0, 0]})
    for fig in (
        fc.plot_session_lengths(queries),
        fc.plot_intent_shifts(queries),
        fc.plot_query_specificity(queries),
        fc.plot_click_rate_by_position(serp),
    ):
        assert _titled(fig)


def test_helpers_name_missing_columns():
    with pytest.raises(ValueError, match="serp lacks"):
        fc.plot_click_rate_by_position(pd.DataFrame({"rank": [1]}))
    with pytest.raises(ValueError, match="table lacks"):
        fc.plot_features_by_label(pd.DataFrame({"label": [0]}), ["NCD_lc"], "t")
    with pytest.raises(ValueError, match="at least two"):
        fc.plot_hash_seeds([0.1], 0.1, 0.01, "t")


def test_session_figures_keep_their_legends_off_the_data():
    queries = pd.DataFrame(
        {
            "query_index": [0, 1, 2, 1, 2, 3],
            "intent_switched": [False, True, True, True, False, True],
            "intent_returned": [False, False, True, False, False, True],
        }
    )
    serp = pd.DataFrame({"rank": [1, 2, 1, 2], "clicked": [1, 0, 1, 1], "purchased": [1, 0, 0, 0]})
    assert legend_on_data(fc.plot_intent_shifts(queries)) == []
    assert legend_on_data(fc.plot_click_rate_by_position(serp)) == []


def test_the_legend_check_can_fail():
    fig, ax = plt.subplots()
    ax.plot([0, 1], [0, 1], label="line")
    ax.legend(loc="upper left")
    assert legend_on_data(fig) == [""]
