"""The student edition: the same pages built with sphinx-exercise's ``hide_solutions`` and
without the instructor's solutions page (:mod:`rankbook.course.editions`), on a two-page book
built strictly by jupyter-book (the whole book's editions are checked in ``tests/test_book.py``).
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from rankbook.course.editions import build_student_edition, student_config, student_toc
from rankbook.course.solutions_page import solutions_markdown, write_solutions_page

SHEET = """(sheet-session1)=
# Exercise sheet, session 1: a test

````{exercise} A rerun · Rerun · ★☆☆
:label: s1-1

```bash
python src/rankbook/course/student.py rerun 01_stable_sort_bias -p n_negatives 99 --out ~/rerun/s1-1
```

**Read:** `all_tied_expected_ndcg10`.
````

````{solution} s1-1
:class: dropdown

The answer is SECRET-ANSWER-TEXT, as $1/n$ says.
````
"""

CONFIG = """title: "Tiny"
only_build_toc_files: true
execute:
  execute_notebooks: "off"
parse:
  myst_enable_extensions: [dollarmath, colon_fence]
sphinx:
  extra_extensions: [sphinx_exercise]
"""

TOC = """format: jb-book
root: index
chapters:
  - file: sheet_session1
  - file: solutions
"""


def test_student_config_hides_solutions_and_keeps_the_rest():
    config = {"title": "T", "sphinx": {"config": {"a": 1}}, "parse": {"x": 2}}
    out = student_config(config)
    assert out["sphinx"]["config"] == {"a": 1, "hide_solutions": True}
    assert out["parse"] == {"x": 2} and out["title"] == "T (student edition)"
    assert "hide_solutions" not in config["sphinx"]["config"]  # the input is not changed


def test_student_toc_drops_the_solutions_page_at_any_depth():
    toc = {
        "root": "index",
        "parts": [
            {"chapters": [{"file": "a", "sections": [{"file": "solutions"}, {"file": "b"}]}]},
            {"chapters": [{"file": "solutions"}]},
        ],
    }
    out = student_toc(toc)
    assert out["parts"][0]["chapters"][0]["sections"] == [{"file": "b"}]
    assert out["parts"][1]["chapters"] == []


def test_solutions_page_copies_each_solution_under_its_exercise(tmp_path):
    sheet = tmp_path / "sheet_session1.md"
    sheet.write_text(SHEET, encoding="utf-8")
    text = solutions_markdown([sheet])
    assert "## Exercise sheet, session 1: a test" in text
    assert "### S1.1 A rerun" in text and "{ref}`s1-1`" in text
    assert "SECRET-ANSWER-TEXT, as $1/n$ says." in text
    sheet.write_text(SHEET.split("````{solution}")[0], encoding="utf-8")
    with pytest.raises(ValueError, match="s1-1 has no solution"):
        solutions_markdown([sheet])


@pytest.mark.slow
def test_student_edition_has_no_solutions(tmp_path):
    book = tmp_path / "book"
    book.mkdir()
    (book / "_config.yml").write_text(CONFIG, encoding="utf-8")
    (book / "_toc.yml").write_text(TOC, encoding="utf-8")
    (book / "index.md").write_text("# Tiny book\n\nA page.\n", encoding="utf-8")
    (book / "sheet_session1.md").write_text(SHEET, encoding="utf-8")
    write_solutions_page(book)
    jb = Path(sys.executable).parent / "jupyter-book"
    subprocess.run([str(jb), "build", str(book), "-W", "-n", "-q"], check=True)
    full = book / "_build" / "html"  # the instructor's edition: the solution on both pages
    assert "SECRET-ANSWER-TEXT" in (full / "sheet_session1.html").read_text(encoding="utf-8")
    assert "SECRET-ANSWER-TEXT" in (full / "solutions.html").read_text(encoding="utf-8")
    html = build_student_edition(book, log=lambda *_: None)
    assert html == book / "_build" / "student" / "_build" / "html"
    sheet = (html / "sheet_session1.html").read_text(encoding="utf-8")
    assert "all_tied_expected_ndcg10" in sheet  # the exercise is there
    assert "SECRET-ANSWER-TEXT" not in sheet  # its solution is not
    assert not (html / "solutions.html").exists()
    assert "(student edition)" in (html / "index.html").read_text(encoding="utf-8")
