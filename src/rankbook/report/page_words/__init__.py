"""Each chapter's computed words, as one function of its results dict.

A chapter glues what its words function returns instead of building a qualitative sentence in
its own cells, so the words of a page are a function of its results file alone. One module per
chapter, ``ch<NN>_<stem>.py``, defines

- ``words(results) -> dict[str, str]``: every word or phrase the page glues, each built by
  :mod:`rankbook.report.prose` from a computed value and a stated threshold;
- ``DEPENDS``: the results paths ``(key, index or None, field)`` the words depend on, or a
  function of the results giving them. A field pair ``(low, high)`` is an interval, moved as a
  whole.

``tests/report/test_page_words.py`` executes each chapter at its smoke parameters, checks the
page glued exactly these words, then perturbs every listed value and checks some word flips.

Public API: :data:`PAGE_WORDS` (chapter stem -> words function), :data:`DEPENDS` (chapter stem ->
its paths), :func:`page_words` (the words of one chapter's results).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from types import ModuleType
from typing import Any

from rankbook.report.page_words import (
    ch01_stable_sort_bias,
    ch02_random_tie_expectation,
    ch03_tie_breaking_rules,
    ch04_evaluator_audit,
    ch05_movielens_audit,
    ch17_real_recommenders,
)

__all__ = ["DEPENDS", "PAGE_WORDS", "page_words"]

#: chapter stem -> its words module (one line per chapter).
_MODULES: dict[str, ModuleType] = {
    "01_stable_sort_bias": ch01_stable_sort_bias,
    "02_random_tie_expectation": ch02_random_tie_expectation,
    "03_tie_breaking_rules": ch03_tie_breaking_rules,
    "04_evaluator_audit": ch04_evaluator_audit,
    "05_movielens_audit": ch05_movielens_audit,
    "17_real_recommenders": ch17_real_recommenders,
}

#: chapter stem -> its words function.
PAGE_WORDS: dict[str, Callable[[Mapping[str, Any]], dict[str, str]]] = {
    stem: module.words for stem, module in _MODULES.items()
}

#: chapter stem -> the results paths its words depend on (or a function of the results).
DEPENDS: dict[str, Any] = {stem: module.DEPENDS for stem, module in _MODULES.items()}


def page_words(stem: str, results: Mapping[str, Any]) -> dict[str, str]:
    """The words chapter ``stem`` glues, computed from its results dict."""
    if stem not in PAGE_WORDS:
        raise ValueError(f"stem: no words module for chapter {stem!r}; known: {sorted(PAGE_WORDS)}")
    return PAGE_WORDS[stem](results)
