"""The paper's Table 2 layout and the preset tag."""

from __future__ import annotations

import pytest

from rankbook.audit.tables import paper_table2_frame
from rankbook.data.amazon_presets import tag_preset
from rankbook.data.source import DataSource


def _line(score, rule, ndcg, hr):
    return {"score": score, "tie_rule": rule, "ndcg10": ndcg, "hr10": hr}


def test_paper_layout_delta_is_hash_minus_input_order() -> None:
    results = {
        "table2": [
            _line("a", "input_order", 0.9, 1.0),
            _line("a", "hash", 0.2, 0.35),
            _line("b", "input_order", 0.5, 0.6),
            _line("b", "hash", 0.5, 0.6),
        ],
        "prevalence": [
            {"score": "a", "any_tie": 1.0, "boundary_tie": 0.9, "relevant_tie": 0.95},
            {"score": "b", "any_tie": 0.1, "boundary_tie": 0.0, "relevant_tie": 0.0},
        ],
    }
    frame = paper_table2_frame(results)
    assert list(frame.index) == ["a", "b"]
    assert frame.loc["a", ("NDCG@10", "Δ input order → hash")] == pytest.approx(-0.7)
    assert frame.loc["a", ("HR@10", "Δ input order → hash")] == pytest.approx(-0.65)
    assert frame.loc["b", ("NDCG@10", "Δ input order → hash")] == 0.0
    assert frame.loc["a", ("prevalence", "relevant tied")] == 0.95


def test_tag_preset_only_marks_simulated_sources() -> None:
    sim = DataSource(name="x", kind="simulated", version="1", generator="g()")
    assert tag_preset(sim, "paper_regime").details["preset"] == "paper_regime"
    real = DataSource(name="x", kind="real", version="1", path="/data")
    assert "preset" not in tag_preset(real, "paper_regime").details


def test_table2_frames_print_a_negative_zero_unsigned_through_display_frame() -> None:
    # a move that rounds to -0.0000 at four decimals: display_frame (number_text) is the one
    # place that prints it unsigned, in the numbers and in the CI cells
    from rankbook.audit.display import table2_frame
    from rankbook.report.tables import display_frame

    tiny = -1e-6
    results = {
        "table2": [
            {**_line("a", "input_order", 0.5, 0.6), "ndcg10_sd": None, "hr10_sd": None},
            {**_line("a", "hash", 0.5 + tiny, 0.6), "ndcg10_sd": None, "hr10_sd": None},
            {
                **_line("a", "expected", 0.5 + tiny, 0.6),
                "ndcg10_sd": None,
                "hr10_sd": None,
                "delta_ndcg10": tiny,
                "delta_hr10": 0.0,
            },
        ],
        "prevalence": [{"score": "a", "any_tie": 0.1, "boundary_tie": 0.0, "relevant_tie": 0.0}],
        "row_bootstrap": [
            {
                "score": "a",
                "tie_rule": "hash",
                "metric": m,
                "delta_ci_low": tiny,
                "delta_ci_high": 0.0,
            }
            for m in ("ndcg10", "hr10")
        ],
    }
    paper = display_frame(paper_table2_frame(results), 4)
    assert paper.loc["a", ("NDCG@10", "Δ input order → hash")] == "0.0000"
    assert paper.loc["a", ("NDCG@10", "Δ 95% CI")] == "[0.0000, 0.0000]"
    wide = display_frame(table2_frame(results, "ndcg10"), 4)
    assert wide.loc["Δ expected", "a"] == "0.0000"
