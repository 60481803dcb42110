"""Every computed word of a page flips when a results value it depends on moves.

For each chapter of :data:`rankaudit.report.page_words.PAGE_WORDS`, the chapter is executed at
its smoke parameters (the ``smoke_book`` fixture), its words are recomputed from its results file
and must be what the executed page glued under the same names (so the page shows these words,
not hand-typed ones), then every
value listed in :data:`~rankaudit.report.page_words.DEPENDS` is perturbed in turn, and some word
must change. The perturbations are generic (sign, scale, complement, shifts), not chosen per
chapter; a perturbation the words function refuses as invalid input is skipped.
"""

from __future__ import annotations

import copy
import json

import pytest

from rankaudit.report.page_words import DEPENDS, PAGE_WORDS


def _node(results, path):
    key, index, _ = path
    return results[key] if index is None else results[key][index]


def _candidates(v: float) -> list[float]:
    return [-v, 10 * v, v / 10, 0.0, 1.0 - v, v + 1, v - 1, v + 0.5, v - 0.5, v + 0.05, v - 0.05]


def _perturbed(results, path):
    """Copies of ``results`` with the value at ``path`` moved to each generic candidate. A field
    pair ``(low, high)`` is an interval: it moves as a whole (its midpoint to each candidate)."""
    field = path[2]
    node = _node(results, path)
    if isinstance(field, tuple):
        lo, hi = (float(node[f]) for f in field)
        mid, half = (lo + hi) / 2, (hi - lo) / 2
        values = [{field[0]: c - half, field[1]: c + half} for c in _candidates(mid)]
    else:
        values = [{field: c} for c in _candidates(float(node[field]))]
    for update in values:
        out = copy.deepcopy(results)
        _node(out, path).update(update)
        yield out


def glued_values(notebook: dict) -> dict[str, str]:
    """``{name: text/plain repr}`` of every value a notebook glued (MyST-NB's scrapbook records)."""
    out = {}
    for cell in notebook["cells"]:
        for o in cell.get("outputs", []):
            name = o.get("metadata", {}).get("scrapbook", {}).get("name")
            if name is not None:
                out[name] = o["data"].get(o["metadata"]["scrapbook"]["mime_prefix"] + "text/plain")
    return out


def flips(words, results, path) -> bool:
    """True when some generic perturbation of the value at ``path`` changes the words."""
    base = words(results)
    for moved_results in _perturbed(results, path):
        try:
            moved = words(moved_results)
        except ValueError:
            continue
        if moved != base:
            return True
    return False


def test_flip_detects_a_word_that_ignores_its_number():
    """The test itself can fail: a words function that does not read a listed value."""
    results = {"x": {"v": 0.3}}

    def constant(_):
        return {"w": "rises"}

    def reads(r):
        return {"w": "rises" if r["x"]["v"] > 0 else "falls"}

    assert not flips(constant, results, ("x", None, "v"))
    assert flips(reads, results, ("x", None, "v"))


@pytest.mark.parametrize("stem", sorted(PAGE_WORDS))
def test_page_words_are_on_the_page_and_flip(smoke_book, stem):
    assert stem not in smoke_book.failures, smoke_book.failures.get(stem)
    results = json.loads((smoke_book.paths.results / f"{stem}.json").read_text())
    words = PAGE_WORDS[stem](results)
    glued = glued_values(json.loads((smoke_book.paths.executed / f"{stem}.ipynb").read_text()))
    for key, text in words.items():
        assert glued.get(key) == repr(text), (
            f"{stem}: {key!r} glued {glued.get(key)!r}, not {text!r}"
        )
    depends = DEPENDS[stem](results) if callable(DEPENDS[stem]) else DEPENDS[stem]
    assert depends, f"{stem}: no value listed for its words"
    for path in depends:
        assert flips(PAGE_WORDS[stem], results, path), f"{stem}: no word depends on {path}"
