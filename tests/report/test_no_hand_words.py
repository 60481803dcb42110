"""No chapter builds a qualitative word in its own cells (issue #21: "no chapter builds a
qualitative sentence in its own Python strings").

Every code cell of every notebook is parsed (jupytext, then ``ast``); the scan
(:func:`tests.notebook_cells.hand_words`) fails on

- a conditional expression with a string branch (``"agrees" if ok else "does not agree"``);
- a ``glue``/``glue_many`` value that is a string literal, an f-string, a concatenation, a
  ``%``/``.format`` template or a ``.join`` -- or a name the notebook bound to such a string.

The words a page glues come from the prose and decision functions, called in its words cells
(``tests/words_cells.py``), instead. Results are per chapter, naming cell and line.
"""

from __future__ import annotations

import pytest

from tests.notebook_cells import MYST_HEADER, NOTEBOOKS, chapter_stems, code_cells, hand_words

_SYNTHETIC = (
    MYST_HEADER
    + """
# A page with hand-built words

```{code-cell} ipython3
:tags: [remove-cell]

from rankbook.report import glue, glue_many

glue("n", 3)
glue_words(w=direction_word(results["x"]))
```

```{code-cell} ipython3
:tags: [remove-cell]

glue("verdict", "holds" if p < 0.05 else "does not hold")
glue("models", ", ".join(names))
glue_many(best=f"the best is {name}")
note = "they are " + word
glue("note", note)
```
"""
)


def test_the_scan_catches_hand_built_words():
    """The scan can fail: a synthetic page with each kind of hand-built word."""
    found = hand_words(code_cells(_SYNTHETIC))
    where = {(f.cell, f.line) for f in found}
    assert (1, 3) not in where and (1, 4) not in where, found  # a number; a prose call: clean
    assert (2, 1) in where  # the conditional (and its glued value)
    assert (2, 2) in where  # a .join
    assert (2, 3) in where  # an f-string through glue_many
    assert (2, 5) in where  # a name bound to a concatenation
    assert any("conditional" in f.what for f in found)


def test_the_scan_passes_words_from_a_prose_call():
    clean = _SYNTHETIC.split('```{code-cell} ipython3\n:tags: [remove-cell]\n\nglue("verdict"')[0]
    assert hand_words(code_cells(clean)) == []


@pytest.mark.parametrize("stem", chapter_stems())
def test_no_hand_built_words(stem):
    found = hand_words(code_cells(NOTEBOOKS / f"{stem}.md"))
    assert not found, f"{stem}: hand-built words at\n" + "\n".join(f"  {f}" for f in found)
