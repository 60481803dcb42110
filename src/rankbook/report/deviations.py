"""What each simulator can and cannot reproduce of its paper, for the page's data box.

Every page built on a simulator says in one sentence which of the paper's numbers it
reproduces and which it cannot; the sentence depends only on the simulator (the ``generator``
of the page's :class:`rankbook.data.source.DataSource`) and, for a simulator whose sentence
holds only at one preset of its settings (the Amazon simulator's ``paper_regime``), on whether
the run's settings are that preset's (:data:`PRESET_SENTENCES`), so it is kept here, once,
beside the link to the book's table of departures from the papers (``book/deviations.md``,
label :data:`DEVIATIONS_LABEL`). A sentence is true on every page that shows it: where only
some of a simulator's pages test the paper's comparisons, it names them.  Papers: Guo et al.
(2026), "Tie Handling Is Part of the Evaluation Protocol"; Sheng et al. (2025), progressive
contextual search ranking.

Public API: :data:`DEVIATIONS_LABEL`, :data:`SIMULATOR_SENTENCES`, :data:`PRESET_SENTENCES`,
:func:`simulator_sentence`, :func:`deviations_line`.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from rankbook.data.amazon_presets import PRESETS

__all__ = [
    "DEVIATIONS_LABEL",
    "PRESET_SENTENCES",
    "SIMULATOR_SENTENCES",
    "deviations_line",
    "simulator_sentence",
]

#: the MyST label of the page of departures from the papers
DEVIATIONS_LABEL = "deviations"

#: generator module -> what the pages built on it reproduce of the paper and what they cannot
SIMULATOR_SENTENCES: dict[str, str] = {
    # at the paper_regime preset's settings; any other settings: PRESET_SENTENCES
    "rankbook.data.amazon_sim": (
        "Two of Guo et al.'s Amazon figures (weighted overlap: input-order NDCG@10 and hash "
        "HR@10, Table 2) set this simulator's tie regime: they are its inputs, not findings, and "
        "a run's values land near them only as closely as two fitted parameters allow (its "
        "intervals need not cover them); every other value on this page (hash NDCG@10 and the "
        "rest) is the simulator's and cannot reproduce the paper's."
    ),
    # shown on Chapters 8 to 12: only 11 and 12 test the paper's comparisons
    "rankbook.data.sessions": (
        "This simulator reproduces none of Sheng et al.'s numbers: the paper's MRR-sale lifts "
        "come from eBay's search logs (Table 1) and from online A/B tests on eBay (Table 2), "
        "neither available to this book. "
        "{ref}`Chapter 11 <ablation>` and {ref}`Chapter 12 <sequence-models>` test on these "
        "sessions whether each of the paper's comparisons goes the paper's way; Chapters 8 to "
        "10 build the sessions and the features those tests use and test none of the paper's "
        "comparisons."
    ),
    "rankaudit.distributed.synthetic": (
        "This synthetic table reproduces none of the papers' numbers: it measures speed, memory "
        "and the agreement of one process with a cluster, which neither paper reports."
    ),
    # listed before its module: the first key that matches a generator gives its sentence
    "rankbook.data.synthetic_rows.random_small_rows": (
        "These random rows include rows with several relevant items and graded labels, outside "
        "Guo et al.'s closed forms, which are for one relevant item per row (§3.2, §3.3): they "
        "check this book's general expectation (tie-averaged DCG and its hit-rate and "
        "reciprocal-rank forms) against enumeration, Monte Carlo and scikit-learn, and "
        "reproduce none of the paper's numbers."
    ),
    "rankbook.data.synthetic_rows": (
        "Simulated rows are Guo et al.'s setting of one relevant item among tied negatives "
        "(§3.2), where the paper's closed forms apply (e.g. expected HR@10 = 10/31 = 0.3226 with "
        "30 tied negatives); they cannot reproduce the paper's dataset values or say how often "
        "the bias occurs."
    ),
    "rankbook.ranking.comparisons": (
        "This simulated example reproduces none of the papers' numbers: it shows the paired "
        "tests on a known truth (an effect the parameters set), which neither paper reports."
    ),
}


#: generator module -> (the preset whose settings :data:`SIMULATOR_SENTENCES` speaks of, the
#: sentence for a run at any other settings)
PRESET_SENTENCES: dict[str, tuple[str, str]] = {
    "rankbook.data.amazon_sim": (
        "paper_regime",
        "This run's settings are not the simulator's paper_regime preset, the one set to two of "
        "Guo et al.'s Amazon figures (weighted overlap: input-order NDCG@10 and hash HR@10, "
        "Table 2): no figure of the paper set them, so every value on this page is the "
        "simulator's and reproduces none of the paper's.",
    ),
}


def _at_preset(preset: str, args: Mapping[str, Any] | None) -> bool:
    """Whether the generator ``args`` carry every setting of ``preset``."""
    settings = PRESETS[preset]
    return args is not None and all(
        key in args and args[key] == value for key, value in settings.items()
    )


def simulator_sentence(generator: str | None, args: Mapping[str, Any] | None = None) -> str:
    """The sentence of :data:`SIMULATOR_SENTENCES` for ``generator`` (a generator call or
    name, matched by its module or by the function itself, the first listed key that matches);
    for a generator of :data:`PRESET_SENTENCES`, its sentence for other settings unless
    ``args`` (the generator's arguments, ``DataSource.details["generator_args"]``) carry every
    setting of its preset (no ``args``: other settings, so nothing is claimed for them); for a
    generator not listed, a sentence that says so."""
    name = str(generator or "")
    for module, sentence in SIMULATOR_SENTENCES.items():
        if name == module or name.startswith(module + "."):
            if module in PRESET_SENTENCES:
                preset, other = PRESET_SENTENCES[module]
                return sentence if _at_preset(preset, args) else other
            return sentence
    return (
        f"What the generator {name or '(unnamed)'} reproduces of the papers' numbers is not "
        "recorded: read it as the simulator's numbers only."
    )


def deviations_line() -> str:
    """The data box's link to the departures from the papers (MyST)."""
    return (
        "**Departures from the papers:** every one, and what it can change: "
        f"{{ref}}`{DEVIATIONS_LABEL}`."
    )
