"""The data box's sentence on what a simulator reproduces of the papers."""

from __future__ import annotations

from rankbook.report.deviations import (
    PRESET_SENTENCES,
    SIMULATOR_SENTENCES,
    simulator_sentence,
)
from rankbook.report.provenance import provenance_markdown


def test_a_function_listed_on_its_own_gets_its_sentence_not_its_modules():
    small = simulator_sentence("rankbook.data.synthetic_rows.random_small_rows")
    worked = simulator_sentence("rankbook.data.synthetic_rows.tie_block_rows")
    assert small == SIMULATOR_SENTENCES["rankbook.data.synthetic_rows.random_small_rows"]
    assert worked == SIMULATOR_SENTENCES["rankbook.data.synthetic_rows"]
    assert small != worked


def test_a_generator_not_listed_is_said_so():
    assert "not recorded" in simulator_sentence("somewhere.else")


def _amazon_source(preset: str):
    from rankbook.data.amazon_presets import preset_args
    from rankbook.data.amazon_sim import simulation_source

    return simulation_source(preset_args(preset))


def test_the_amazon_sentence_follows_the_runs_settings_not_only_the_generator():
    """The sentence that two of the paper's figures set the tie regime holds only at the
    paper_regime preset's settings; the dense preset, or paper_regime with one setting moved,
    gets the sentence that no figure set them."""
    paper_sentence = SIMULATOR_SENTENCES["rankbook.data.amazon_sim"]
    other = PRESET_SENTENCES["rankbook.data.amazon_sim"][1]
    paper, dense = _amazon_source("paper_regime"), _amazon_source("dense")
    assert simulator_sentence(paper.generator, paper.details["generator_args"]) == paper_sentence
    assert simulator_sentence(dense.generator, dense.details["generator_args"]) == other
    moved = {**paper.details["generator_args"], "title_vocabulary": 0}
    assert simulator_sentence(paper.generator, moved) == other
    assert simulator_sentence(paper.generator) == other  # settings unknown: nothing claimed
    assert other != paper_sentence


def test_the_data_box_of_a_dense_run_does_not_say_the_paper_set_its_regime():
    dense_box = provenance_markdown({"preset": "dense"}, _amazon_source("dense"))
    paper_box = provenance_markdown({"preset": "paper_regime"}, _amazon_source("paper_regime"))
    assert PRESET_SENTENCES["rankbook.data.amazon_sim"][1] in dense_box
    assert SIMULATOR_SENTENCES["rankbook.data.amazon_sim"] not in dense_box
    assert SIMULATOR_SENTENCES["rankbook.data.amazon_sim"] in paper_box
