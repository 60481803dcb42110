"""What raw TeX left on a built page looks like (used by ``test_book`` on every page)."""

from __future__ import annotations

import html
import re

__all__ = ["raw_tex_leftovers", "visible_text"]

# delimiters MathJax should have consumed, a dollar before a command, or a command in plain text
_LEFTOVER = re.compile(
    r"\\\(|\\\[|\$\$|\$\\[A-Za-z]+|\\(?:lvert|rvert|lVert|rVert|mathrm|mathbb|mathcal|operatorname"
    r"|frac|tfrac|dfrac|sum|prod|log|sqrt|text|le|ge|leq|geq|neq|times|cdot|ldots|infty|alpha"
    r"|beta|gamma|theta|sigma|mu|Delta|hat|bar|tilde|left|right|begin|end)(?![A-Za-z])"
)


def visible_text(page_html: str) -> str:
    """The text a reader sees: scripts, styles, typeset math, code and tags removed."""
    text = re.sub(r"<(script|style|pre|code|mjx-container)\b.*?</\1>", " ", page_html, flags=re.S)
    text = re.sub(r"<[^>]+>", " ", text)
    return html.unescape(text)


def raw_tex_leftovers(page_html: str) -> list[str]:
    """Every piece of TeX the page shows as text (empty when the math was all typeset)."""
    return _LEFTOVER.findall(visible_text(page_html))
