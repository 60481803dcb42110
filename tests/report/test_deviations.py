"""The data box's sentence on what a simulator reproduces of the papers."""

from __future__ import annotations

from rankbook.report.deviations import SIMULATOR_SENTENCES, simulator_sentence


def test_a_function_listed_on_its_own_gets_its_sentence_not_its_modules():
    small = simulator_sentence("rankbook.data.synthetic_rows.random_small_rows")
    worked = simulator_sentence("rankbook.data.synthetic_rows.tie_block_rows")
    assert small == SIMULATOR_SENTENCES["rankbook.data.synthetic_rows.random_small_rows"]
    assert worked == SIMULATOR_SENTENCES["rankbook.data.synthetic_rows"]
    assert small != worked


def test_a_generator_not_listed_is_said_so():
    assert "not recorded" in simulator_sentence("somewhere.else")
