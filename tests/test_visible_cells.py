"""Plumbing out of sight (issue #25 item 4: "every visible code cell the method"): no code cell a
reader sees calls ``glue`` or ``glue_many``.

A cell is hidden when tagged ``remove-cell`` or ``remove-input``. ``hide-input``/``hide-cell``
only fold the code behind a click, so the reader still sees it: such cells count as visible
(the ``parameters`` cell is ``hide-input`` and must not glue). Results are per chapter.
"""

from __future__ import annotations

import pytest

from tests.notebook_cells import MYST_HEADER, NOTEBOOKS, chapter_stems, code_cells, visible_glue

_SYNTHETIC = (
    MYST_HEADER
    + """
```{code-cell} ipython3
:tags: [remove-input]

glue("hidden", 1)
```

```{code-cell} ipython3
x = 2
glue_many(x=x)
```

```{code-cell} ipython3
:tags: [hide-input]

import rankbook.report as report
report.glue("folded", 3)
```

```{code-cell} ipython3
:tags: [remove-cell]

glue_many(y=4)
```
"""
)


def test_the_scan_catches_visible_glue():
    """The scan can fail: visible and folded cells that glue are found, hidden ones are not."""
    found = visible_glue(code_cells(_SYNTHETIC))
    assert [(f.cell, f.line) for f in found] == [(2, 2), (3, 2)]


@pytest.mark.parametrize("stem", chapter_stems())
def test_no_glue_in_visible_cells(stem):
    found = visible_glue(code_cells(NOTEBOOKS / f"{stem}.md"))
    assert not found, f"{stem}: glue in visible cells at\n" + "\n".join(f"  {f}" for f in found)
