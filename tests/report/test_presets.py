"""The ``class`` preset: session 2's chapters (08-12) declare one, with parameters they know."""

from __future__ import annotations

import pytest

from rankbook.report.chapter_source import (
    check_parameter_names,
    preset_parameters,
    smoke_parameters,
)
from tests.conftest import ROOT

SESSION_2 = [
    "08_session_data",
    "09_heuristic_features",
    "10_intent_aware_features",
    "11_ablation",
    "12_sequence_models",
]


@pytest.mark.parametrize("name", SESSION_2)
def test_session_2_chapter_declares_a_class_preset_it_can_run(name):
    preset = preset_parameters(ROOT / "notebooks", name, "class")
    assert preset, "an empty class preset would run the chapter at its defaults"
    check_parameter_names(ROOT / "notebooks", name, preset)
    # a class run is no larger than the tests' smoke run in any size the two share
    smoke = smoke_parameters(ROOT / "notebooks", name)
    for key in set(preset) & set(smoke):
        if key.startswith(("n_", "sweep_", "encoder_", "epochs")):
            assert preset[key] <= smoke[key], (key, preset[key], smoke[key])


def test_a_chapter_without_the_preset_says_so():
    with pytest.raises(ValueError, match="00_quickstart declares no 'class' preset"):
        preset_parameters(ROOT / "notebooks", "00_quickstart", "class")


def test_an_unknown_preset_is_named():
    with pytest.raises(ValueError, match="unknown preset 'laptop'"):
        preset_parameters(ROOT / "notebooks", "08_session_data", "laptop")
