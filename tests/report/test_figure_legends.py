"""Figures of chapters 14, 15 and 18 keep their legends off the data, and chapter 15's tie
envelopes are wide enough to see.

The checks are geometric, on the drawn figure: a legend box that overlaps the plotting area may
hide a bar or a marker (chapter 18's lower-right legend covered the last system's interval,
chapter 14's covered the bars); an envelope of 0.001 drawn on an axis shared by measures 0.3
apart is a hairline of a pixel or two (chapter 15's bands could not be seen).
"""

from __future__ import annotations

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt  # noqa: E402
import pandas as pd  # noqa: E402
import pytest  # noqa: E402
from matplotlib.patches import Rectangle  # noqa: E402

from rankbook.report.figures import plot_rank_intervals, plot_throughput  # noqa: E402
from rankbook.report.figures_runs import plot_run_envelope  # noqa: E402

#: The smallest width, in pixels, at which a band is seen as a band.
MIN_BAND_PX = 10.0

#: Chapter 15's envelope on MovieLens-100K at smoke size (values of one rankaudit audit).
ENVELOPE = pd.DataFrame(
    {
        "trec_eval": [0.409126, 0.075833, 0.318537, 0.318537],
        "expected": [0.409611, 0.075833, 0.319044, 0.319044],
        "pessimistic": [0.408935, 0.075833, 0.318183, 0.318183],
        "optimistic": [0.410324, 0.075833, 0.319951, 0.319951],
    },
    index=pd.Index(["nDCG@10", "P@10", "AP", "RR"], name="measure"),
)


def legend_on_data(fig) -> list[str]:
    """Titles of the axes whose legend box overlaps the plotting area (it may hide data)."""
    fig.canvas.draw()
    renderer = fig.canvas.get_renderer()
    return [
        ax.get_title()
        for ax in fig.axes
        if ax.get_legend() is not None
        and ax.get_legend().get_window_extent(renderer).overlaps(ax.get_window_extent(renderer))
    ]


def band_widths_px(fig) -> list[float]:
    """The drawn width in pixels of every bar (Rectangle patch) of the figure's axes."""
    fig.canvas.draw()
    return [
        patch.get_window_extent().width
        for ax in fig.axes
        for patch in ax.patches
        if isinstance(patch, Rectangle)
    ]


def _board(n: int = 6) -> dict:
    systems = [f"s{i}.run" for i in range(n)]
    return {
        "rankings": [
            {"measure": "nDCG@10", "ties": "expected", "order": systems},
            {"measure": "nDCG@10", "ties": "trec_eval", "order": systems[::-1]},
        ],
        "rank_intervals": [
            {"measure": "nDCG@10", "run": s, "best": 1, "worst": n} for s in systems
        ],
    }


def _throughput() -> pd.DataFrame:
    return pd.DataFrame(
        {
            "engine": ["one machine"] + ["dask"] * 6,
            "n_workers": [1, 1, 1, 1, 2, 2, 2],
            "layout": ["-"] + ["whole", "straddle", "shuffle"] * 2,
            "rows_per_second": [1.2e6, 8e4, 7e4, 3e4, 1.5e5, 1.3e5, 5e4],
        }
    )


@pytest.mark.parametrize(
    "draw",
    [
        lambda: plot_rank_intervals(_board(), "nDCG@10", "rank intervals"),
        lambda: plot_throughput(_throughput(), 20000),
        lambda: plot_run_envelope(ENVELOPE),
    ],
    ids=["18-rank-intervals", "14-throughput", "15-run-envelope"],
)
def test_the_legend_stays_off_the_data(draw):
    fig = draw()
    assert fig is not None, "the helper returns its Figure"
    assert legend_on_data(fig) == []
    plt.close(fig)


def test_the_legend_check_can_fail():
    fig, ax = plt.subplots()
    ax.plot([0, 1], [0, 1], label="line")
    ax.legend(loc="lower right")
    assert legend_on_data(fig) == [""]
    plt.close(fig)


def test_every_nonzero_envelope_is_a_visible_band():
    fig = plot_run_envelope(ENVELOPE)
    widths = band_widths_px(fig)
    moved = ENVELOPE["optimistic"] > ENVELOPE["pessimistic"]
    assert len(widths) == len(ENVELOPE)
    assert all(w >= MIN_BAND_PX for w, m in zip(widths, moved, strict=True) if m), widths
    plt.close(fig)


def test_the_band_check_can_fail():
    """The same envelopes on one absolute axis, as chapter 15 drew them: hairlines."""
    fig, ax = plt.subplots(figsize=(7, 3.2))
    ax.barh(
        range(len(ENVELOPE)),
        ENVELOPE["optimistic"] - ENVELOPE["pessimistic"],
        left=ENVELOPE["pessimistic"],
    )
    ax.plot(ENVELOPE["expected"], range(len(ENVELOPE)), "o")
    assert max(band_widths_px(fig)) < MIN_BAND_PX
    plt.close(fig)


def test_the_envelope_names_missing_columns():
    with pytest.raises(ValueError, match="envelope lacks columns"):
        plot_run_envelope(ENVELOPE.drop(columns="trec_eval"))
