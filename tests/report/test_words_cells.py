"""The words cells of the chapters keep their rules, and the harness that re-runs them works.

A words cell (tag ``words``, see ``tests/words_cells.py``) is hidden, reads only ``results``,
chooses no word with its own ``if``, imports only the prose and decision functions and glues
only with ``glue_words``; ``glue_words`` is called nowhere else. The harness can fail: each rule
is shown to catch a cell that breaks it, and the dependency reader to find exactly the values a
words function reads.
"""

from __future__ import annotations

import ast

import pytest

from rankbook.report.prose import count_phrase, direction_word
from tests.notebook_cells import MYST_HEADER, NOTEBOOKS, chapter_stems, code_cells, glue_calls
from tests.words_cells import (
    WORDS_TAG,
    read_paths,
    words_cell_rules,
    words_cells,
    words_function,
)

CHAPTERS = chapter_stems()


def _notebook(tmp_path, *cells: str, stem: str = "99_fake"):
    """A MyST notebook in ``tmp_path`` with the given words cells (hidden, tagged)."""
    body = "".join(
        f"\n```{{code-cell}} ipython3\n:tags: [remove-cell, {WORDS_TAG}]\n\n{c}\n```\n\nText.\n"
        for c in cells
    )
    (tmp_path / f"{stem}.md").write_text(MYST_HEADER + body)
    return tmp_path


@pytest.mark.parametrize("stem", CHAPTERS)
def test_words_cells_keep_the_rules(stem):
    broken = [str(f) for c in words_cells(stem) for f in words_cell_rules(c)]
    assert not broken, f"{stem}: {broken}"


@pytest.mark.parametrize("stem", CHAPTERS)
def test_words_cells_are_hidden_and_only_they_glue_words(stem):
    for cell in code_cells_of(stem):
        calls = [
            c.func.id if isinstance(c.func, ast.Name) else c.func.attr
            for c in glue_calls(ast.parse(cell.source))
        ]
        if WORDS_TAG in cell.tags:
            assert "remove-cell" in cell.tags, f"{stem}: words cell {cell.number} is visible"
            assert set(calls) == {"glue_words"}, f"{stem}: words cell {cell.number} glues {calls}"
        else:
            assert "glue_words" not in calls, (
                f"{stem}: code cell {cell.number} calls glue_words outside a words cell"
            )


def code_cells_of(stem):
    return code_cells(NOTEBOOKS / f"{stem}.md")


@pytest.mark.parametrize(
    "source, what",
    [
        ("glue_words(w='up' if results['x'] > 0 else 'down')", "an if chooses"),
        ("if results['x'] > 0:\n    glue_words(w=direction_word(1))", "an if chooses"),
        ("import pandas\nglue_words(w=pandas.__name__)", "imports a module whole"),
        ("from rankbook.report.tables import display_frame", "imports from"),
        ("glue_words(w=direction_word(share_tied))", "reads 'share_tied'"),
        ("word = 'rises'\nglue_words(w=word)", "a string 'rises' outside a call"),
        ("glue_words(w=direction_word(1, words=(f\"{results['a']}\", 'b', 'c')))", "f-string"),
    ],
)
def test_each_rule_catches_a_cell_that_breaks_it(tmp_path, source, what):
    folder = _notebook(tmp_path, "from rankbook.report.prose import direction_word\n" + source)
    (cell,) = words_cells("99_fake", folder)
    assert any(what in f.what for f in words_cell_rules(cell)), words_cell_rules(cell)


def test_a_clean_cell_passes(tmp_path):
    source = (
        "from rankbook.report.prose import count_phrase, direction_word\n\n"
        "t = results['t']\n"
        "rows = [r for r in t['rows'] if r['engine'] != 'one machine']\n"
        "glue_words(w=direction_word(t['a'] - t['b'], words=('up', 'down', 'level')),\n"
        "           n=count_phrase(t['n'], t['all'], 'users'))"
    )
    (cell,) = words_cells("99_fake", _notebook(tmp_path, source))
    assert words_cell_rules(cell) == []


def test_words_function_runs_the_cells_in_order_on_a_results_dict(tmp_path):
    folder = _notebook(
        tmp_path,
        "from rankbook.report.prose import direction_word\n\n"
        "change = results['t']['a'] - results['t']['b']\n"
        "glue_words(w=direction_word(change, words=('up', 'down', 'level')))",
        "from rankbook.report.prose import count_phrase\n\n"
        "glue_words(n=count_phrase(results['t']['n'], results['t']['all'], 'users'), "
        "tol=direction_word(results['t']['a'] - 0.25))",
    )
    words = words_function("99_fake", folder)
    results = {"t": {"a": 0.5, "b": 0.2, "n": 3, "all": 8, "spare": 1.0}}
    assert words(results) == {
        "w": direction_word(0.3, words=("up", "down", "level")),
        "n": count_phrase(3, 8, "users"),
        "tol": direction_word(0.25),
    }
    assert words.thresholds == {"cell 2: 0.25": 0.25}  # a number the cells state
    # the values read, and only those ("spare" is never read)
    assert read_paths(words, results) == [
        ("t", None, "a"), ("t", None, "b"), ("t", None, "n"), ("t", None, "all"),
    ]


def test_read_paths_merges_an_interval_and_walks_lists(tmp_path):
    folder = _notebook(
        tmp_path,
        "from rankbook.report.prose_limits import covers_word\n\n"
        "rows = results['rows']\n"
        "glue_words(**{'sig': covers_word(rows[1]['ci_low'], rows[1]['ci_high']),\n"
        "              'top': covers_word(results['top'], results['top'])})",
    )
    words = words_function("99_fake", folder)
    results = {"rows": [{"ci_low": 0.1, "ci_high": 0.3}, {"ci_low": -1.0, "ci_high": 2.0}],
               "top": 0.5}
    assert read_paths(words, results) == [
        ("rows", 1, ("ci_low", "ci_high")), (None, None, "top"),
    ]


def test_a_chapter_without_words_cells_is_refused(tmp_path):
    (tmp_path / "98_none.md").write_text(MYST_HEADER + "\nText.\n")
    with pytest.raises(ValueError, match="98_none"):
        words_function("98_none", tmp_path)


def test_a_cell_that_glues_a_number_is_refused(tmp_path):
    words = words_function("99_fake", _notebook(tmp_path, "glue_words(n=results['n'])"))
    with pytest.raises(TypeError, match="glued a int"):
        words({"n": 3})

