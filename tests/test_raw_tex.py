"""The raw-TeX checker that ``test_book`` runs on every built page, on snippets."""

from tests.raw_tex import raw_tex_leftovers


def test_the_course_guides_broken_row_is_caught():
    row = "<td>$\\lvert\\Delta\\mathrm{NDCG}</td></tr><tr><td>vert$ (8 min)</td>"
    assert raw_tex_leftovers(row)[:1] == ["$\\lvert"]


def test_delimiters_and_commands_left_as_text_are_caught():
    assert raw_tex_leftovers("<p>so \\(x\\) and $$y$$</p>") == ["\\(", "$$", "$$"]
    assert raw_tex_leftovers("<p>the \\frac{a}{b} here</p>") == ["\\frac"]


def test_typeset_math_code_and_prices_pass():
    page = (
        "<p>costs $5 and $10</p><mjx-container>\\frac{1}{2}</mjx-container>"
        "<pre>print('\\n\\\\frac')</pre><code>\\left</code><script>var a='$$'</script>"
        "<p>a \\newline-free text</p>"
    )
    assert raw_tex_leftovers(page) == []
