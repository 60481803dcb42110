"""No chapter types its running time: the pipeline measures it and prints it on the page.

A typed "Running time: about 10 seconds" was wrong on most pages at their default parameters
(a run measures it; the book's rule is that a number a run measures is never typed). The
executed page's last line gives the measured time and the machine
(:func:`rankbook.report.pipeline.running_time_markdown`, tested in
``tests/report/test_pipeline.py``).
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
CHAPTERS = sorted((ROOT / "notebooks").glob("[0-9][0-9]_*.md"))

_COUNT = r"(?:\d[\d.,]*|one|two|three|four|five|ten|fifteen|twenty|thirty|sixty|a few|a|an)"
#: A typed duration: "about 10 seconds", "two minutes", "under a minute", "30 s".
DURATION = re.compile(
    rf"\b{_COUNT}(?:\s+to\s+{_COUNT})?\s+(?:seconds?|minutes?|hours?|s|min)\b", re.I
)


def typed_durations(markdown: str) -> list[str]:
    """The typed durations and "Running time:" labels in a chapter's text outside code cells."""
    text = re.sub(r"(`{3,})\{code-cell\}.*?\n\1", " ", markdown, flags=re.S)
    text = " ".join(text.split())
    return DURATION.findall(text) + re.findall(r"Running time:", text, flags=re.I)


def test_the_pattern_catches_the_typed_durations():
    assert typed_durations("Running time: about 10 seconds.") == ["10 seconds", "Running time:"]
    assert typed_durations("about one to two\nminutes on two cores") == ["one to two minutes"]
    assert typed_durations("under a minute") == ["a minute"]
    assert typed_durations("The running time is printed at the end of the page.") == []


@pytest.mark.parametrize("path", CHAPTERS, ids=[p.stem for p in CHAPTERS])
def test_no_chapter_types_a_duration(path):
    assert typed_durations(path.read_text(encoding="utf-8")) == []
