"""Every symbol a chapter writes in math is on the notation page or defined before its first use.

The rule, at the granularity a reader looks a symbol up by:

* Math is what a chapter's Markdown cells hold in ``$...$``, ``$$...$$`` and ``{math}``
  directives (code cells, code fences and inline code are not math).
* A **symbol** is a name with its subscript kind: a run of letters (``s``, ``item``, ``Ref``), a
  name in ``\\mathrm{}``/``\\operatorname{}``/``\\mathit{}`` (``NDCG``, ``clip``), a Greek
  letter (``\\alpha``) or a blackboard or calligraphic letter (``\\mathbb{E}``, ``\\mathcal{L}``,
  each a symbol of its own, not ``E`` or ``L``). A subscript made of single
  letters, digits and punctuation is an index (``s_i``, ``s_{(k)}`` and ``s_j`` are all the
  symbol ``s_·``, and so are ``NCD_{i,lc}`` and ``T_{item}``); a subscript that is one word of
  three or more letters is part of the name (``Ref_{txt}`` is ``Ref_txt``). Superscripts are
  powers or positions and are ignored. ``\\text{}`` is prose, TeX commands for operators,
  relations, spacing and delimiters (``\\sum``, ``\\log``, ``\\le``, ``\\,``)
  are not symbols, and neither are digits.
* A symbol is **known** to a chapter when the notation page (``book/notation.md``) writes it, or
  when the chapter defines it at or before its first use: the Markdown paragraph (or display
  equation) of its first use states a definition — the symbol is the left-hand side of a
  display equation (``$$ B_k(u) = ... $$``, each ``\\qquad``-separated part counts), the
  paragraph words one ("where", "with", "let", "denote", "is the", "are the", "the number of",
  "be the", "define", "write", "called", "stands for"), or introduces it by apposition ("an
  evaluator $M$"). A display equation standing alone counts the paragraph right after it
  ("where ..."). Euler's ``e`` is known.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
CHAPTERS = sorted((ROOT / "notebooks").glob("[0-9][0-9]_*.md"))

_FENCE = re.compile(
    r"^(?P<f>`{3,}|~{3,}|:{3,})(?P<info>[^\n]*)\n(?P<body>.*?)^(?P=f)\s*$", re.S | re.M
)
_NAMED = re.compile(r"\\(?:mathrm|operatorname|mathit|mathsf|textrm)\s*\{([^{}]*)\}")
_BB = re.compile(r"\\(mathbb|mathcal)\s*\{([A-Za-z])\}")
_DROP_GROUP = re.compile(
    r"\\(?:text|textit|textbf|mbox|label|tag|begin|end)\s*\{[^{}]*\}(_\s*(\{[^{}]*\}|\w))?"
    r"|\\\\\[[^\]]*\]"
)
_GREEK = {
    "alpha",
    "beta",
    "gamma",
    "delta",
    "epsilon",
    "varepsilon",
    "zeta",
    "eta",
    "theta",
    "iota",
    "kappa",
    "lambda",
    "mu",
    "nu",
    "xi",
    "pi",
    "rho",
    "sigma",
    "tau",
    "upsilon",
    "phi",
    "varphi",
    "chi",
    "psi",
    "omega",
    "ell",
    "Gamma",
    "Delta",
    "Theta",
    "Lambda",
    "Xi",
    "Pi",
    "Sigma",
    "Phi",
    "Psi",
    "Omega",
}
_COMMAND = re.compile(r"\\([A-Za-z]+)|\\.")
_TOKEN = re.compile(r"(@[A-Za-z]+@|[A-Za-z]+)(_\s*(\{(?:[^{}]|\{[^{}]*\})*\}|\\?[A-Za-z0-9]))?")
_CUE = re.compile(
    r"\b(where|with|let|denotes?|is the|are the|is a|is an|the number of|be the|be a|defines?|"
    r"defined|write|we call|called|stands? for)\b",
    flags=re.I,
)


#: Words that are symbols themselves when they stand in a subscript (``T_{item}``: an index).
ARGUMENTS = {"item"}

#: Constants every reader knows: Euler's number.
CONSTANTS = {"e"}


def _markdown(path: Path) -> list[str]:
    """The chapter's Markdown paragraphs (math kept, code dropped), in page order."""
    import jupytext

    nb = jupytext.read(path)
    paragraphs: list[str] = []
    for cell in nb.cells:
        if cell.cell_type != "markdown":
            continue
        text = cell.source

        def keep(match: re.Match) -> str:
            info = match.group("info").strip()
            if info.startswith("{math}"):
                body = re.sub(r"^:\w+:.*$", "", match.group("body"), flags=re.M)
                return f"\n\n$${body}$$\n\n"
            if info.startswith("{") and not info.startswith(("{code", "{index")):
                return "\n\n" + re.sub(r"^:\w+:.*$", "", match.group("body"), flags=re.M)
            return "\n\n"

        for _ in range(3):  # nested fences (a solution holding a code block)
            text = _FENCE.sub(keep, text)
        text = re.sub(r"`[^`\n]*`", " ", text)
        paragraphs.extend(p for p in re.split(r"\n\s*\n", text) if p.strip())
    return paragraphs


def math_spans(paragraph: str) -> list[tuple[str, bool]]:
    """The paragraph's math, each span with whether it is a display equation."""
    spans = [(m.group(1), True) for m in re.finditer(r"\$\$(.+?)\$\$", paragraph, flags=re.S)]
    rest = re.sub(r"\$\$(.+?)\$\$", " ", paragraph, flags=re.S)
    spans += [(m.group(1), False) for m in re.finditer(r"(?<!\\)\$([^$\n]+?)\$", rest)]
    return spans


def _subscript_kind(sub: str | None) -> str:
    if not sub:
        return ""
    inner = sub.strip().lstrip("_").strip()
    inner = inner[1:-1] if inner.startswith("{") else inner
    inner = _NAMED.sub(lambda m: m.group(1), inner).strip()
    named = re.fullmatch(r"[a-z]{3,}", inner) and inner not in ARGUMENTS
    return f"_{inner}" if named else "_·"


def symbols(tex: str) -> list[str]:
    """The symbols of one math span, in order (see the module docstring for the rule)."""
    tex = _DROP_GROUP.sub(" ", tex)
    tex = re.sub(r"\^\s*(\{(?:[^{}]|\{[^{}]*\})*\}|\\[A-Za-z]+|[A-Za-z0-9])", " ", tex)
    tex = _BB.sub(lambda m: f"@{m.group(1)}{m.group(2)}@", tex)
    tex = _NAMED.sub(lambda m: "@" + re.sub(r"[^A-Za-z]", "", m.group(1)) + "@", tex)
    tex = _COMMAND.sub(lambda m: f"@{m.group(1)}@" if m.group(1) in _GREEK else " ", tex)
    found = []
    for match in _TOKEN.finditer(tex):
        name, sub = match.group(1), match.group(2)
        if name.startswith("@"):
            name = name.strip("@")
            letter = re.fullmatch(r"(mathbb|mathcal)([A-Za-z])", name)
            name = f"\\{letter.group(1)}{{{letter.group(2)}}}" if letter else name
            name = f"\\{name}" if name in _GREEK else name
        if not name:
            continue
        found.append(name + _subscript_kind(sub))
    return found


def _prose(paragraph: str) -> str:
    """The paragraph's words without its math."""
    text = re.sub(r"\$\$.*?\$\$(\s*\([^()]*\))?", " ", paragraph, flags=re.S)
    return re.sub(r"\$[^$\n]*\$", " ", text)


def notation_symbols() -> set[str]:
    text = (ROOT / "book" / "notation.md").read_text(encoding="utf-8")
    return {s for tex, _ in math_spans(text) for s in symbols(tex)}


def undefined_symbols(path: Path, known: set[str]) -> list[tuple[str, str]]:
    """(symbol, the paragraph of its first use) for each symbol neither known nor defined."""
    seen = set(known) | CONSTANTS
    missing = []
    paragraphs = _markdown(path)
    for i, paragraph in enumerate(paragraphs):
        words = _prose(paragraph)
        if not words.strip() and i + 1 < len(paragraphs):  # a display, then "where ..."
            words = _prose(paragraphs[i + 1])
        defines = bool(_CUE.search(words))
        introduced = {
            name
            for m in re.finditer(
                r"\b(?:an?|the|each|every|some|its|their)\s+[A-Za-z-]+\s+\$([^$]+)\$",
                paragraph,
                flags=re.I,
            )
            for name in symbols(m.group(1))
        }
        for tex, display in math_spans(paragraph):
            names = symbols(tex)
            segments = re.split(r"\\q?quad|\\\\|&=", tex) if display else []
            lhs = [n for seg in segments if "=" in seg for n in symbols(seg.split("=", 1)[0])]
            for name in names:
                if name in seen:
                    continue
                seen.add(name)
                if not (defines or name in lhs or name in introduced):
                    missing.append((name, " ".join(paragraph.split())[:160]))
    return missing


def test_symbols_of_the_rule():
    assert symbols(r"B_k(u) = \{\, i \in C_u : s_i = s_{(k)} \,\}") == [
        "B_·",
        "u",
        "i",
        "C_·",
        "s_·",
        "s_·",
    ]
    assert symbols(r"\mathbb{E}[\mathrm{HR@}k] = \operatorname{clip}(k - g, 0, t)/t") == [
        "\\mathbb{E}",
        "HR",
        "k",
        "clip",
        "k",
        "g",
        "t",
        "t",
    ]
    assert symbols(r"Ref_{txt} \ne \mathrm{MRR}_{sale}, \alpha^2, \text{earlier clicks}") == [
        "Ref_txt",
        "MRR_sale",
        "\\alpha",
    ]
    assert symbols(r"NCD_{i,lc} + item_i^n + T_{item^{n-1}}") == ["NCD_·", "item_·", "T_·"]
    assert symbols(r"\mathcal{L} = L + \mathbb{E}[C]") == ["\\mathcal{L}", "L", "\\mathbb{E}", "C"]


def test_an_undefined_symbol_is_found(tmp_path):
    page = tmp_path / "99_x.md"
    page.write_text(
        "# T\n\nThe block $B_k(u)$ holds $C_u$.\n\nLater $C_u$ again, with $z$ the zeta.\n",
        encoding="utf-8",
    )
    found = undefined_symbols(page, {"B_·", "u"})
    assert [name for name, _ in found] == ["C_·"]


@pytest.mark.parametrize("path", CHAPTERS, ids=lambda p: p.stem)
def test_every_chapter_symbol_is_on_the_notation_page_or_defined(path):
    missing = undefined_symbols(path, notation_symbols())
    assert not missing, (
        f"{path.stem}: symbols neither on book/notation.md nor defined: "
        + "; ".join(f"{name} in “{where}”" for name, where in missing)
    )


# --- One meaning per symbol (issue #35 item 5) ------------------------------------------------
#
# The rule above only asks that a symbol be known; it cannot see that $n$ counts candidates on
# the notation page and rows in another chapter. The rule below can: every symbol that heads a
# row of ``book/notation.md`` has its meaning in ``SENSES`` (words of that row), and
#
# * in every chapter, the paragraph of the symbol's first use (or, for a display standing
#   alone, the prose that frames its run of displays: the paragraph that introduces the run and
#   the "where ..." paragraph after it) says what the symbol is with those words: the notation page
#   promises that chapters define each symbol again where they first use it, so that definition
#   must be the page's meaning;
# * wherever a count symbol is followed by a plural noun ("$n$ draws", "$m$ clicks"), the noun
#   is the counted thing of its meaning;
# * the discount is the book's, with 1-based ranks: no $\log_2(2 + \text{rank})$.
#
# Names such as NDCG or CosSim carry their meaning in their name, so their entries are their
# name and the rule bites on the letters. ``EXCEPTIONS`` lists a (symbol, chapter) pair the rule
# cannot read, each with its reason.

#: symbol -> words (a regular expression, case-insensitive) of its meaning on the notation page.
SENSES: dict[str, str] = {
    "n": r"candidates?|row length",
    "N": r"rows?|users?|quer(y|ies)",
    "s_·": r"scores?|scoring|cosine",
    "y_·": r"labels?|relevan|gain",
    "k": r"cutoff|top|largest|HR@|NDCG@",
    "R": r"rank",
    "R_·": r"rank",
    "g": r"higher|better|above|before",
    "g_·": r"higher|better|above|before",
    "t": r"tie|block|tied",
    "t_·": r"tie|block|tied",
    "m_·": r"relevant",
    "D": r"discount",
    "DCG": r"DCG",
    "IDCG": r"IDCG|ideal",
    "NDCG": r"NDCG",
    "HR": r"HR|hit",
    "RR": r"RR|reciprocal",
    "\\mathbb{E}": r"expect|mean|average|random|tie|chance|probabilit|uniform",
    "clip": r"clip",
    "Var": r"Var|variance",
    "H_·": r"harmonic",
    "C_·": r"candidate|unrated|scored",
    "B_·": r"boundary|block",
    "Q": r"query",
    "T_·": r"titles?",
    "E_·": r"embedding|vector|encod",
    "item_·": r"result|item",
    "item": r"click",
    "C": r"compress",
    "NCD": r"NCD|compression",
    "CosSim": r"CosSim|cosine",
    "Ref_txt": r"Ref|reference|closest",
    "Ref_emb": r"Ref|reference|closest",
    "CosSim_seq": r"CosSim|cosine",
    "y": r"label|gain",
    "G": r"gain",
    "RR_sale": r"RR|reciprocal",
    "MRR_sale": r"MRR|reciprocal",
    "b_·": r"baseline",
    "v_·": r"variant",
    "d_·": r"difference|paired",
    "L": r"lift",
    "B": r"bootstrap|resamples?",
    "P": r"flips?|permutations?|sign",
    "m": r"hypothes[ie]s|tests?|null|p-values?",
    "p_·": r"p-values?|p_",
    "\\alpha": r"level|error rate|significan|FWER|FDR|reject",
    "\\sigma": r"standard deviation|standard error|spread",
    "\\ell": r"clicks?",
}

#: symbols of the count kind: a plural noun right after one must be what it counts.
COUNTS = {"n", "N", "m", "B", "P", "\\ell"}

#: (symbol, chapter stem prefix) -> why the rule does not apply there.
EXCEPTIONS: dict[tuple[str, str], str] = {
    ("n", "09"): "the $n$ of '$item_i^n$, the $n$-th query' is the superscript query index of the "
    "paper's notation, which the notation page's rows for $item_i^n$ and $item^{n-j}$ spell out",
}

_NOT_NOUNS = {
    "is",
    "was",
    "has",
    "does",
    "as",
    "its",
    "this",
    "thus",
    "us",
    "less",
    "plus",
    "times",
}


def notation_heads(text: str | None = None) -> dict[str, str]:
    """symbol -> its row's meaning, for the symbols heading a row of ``book/notation.md``.

    A row's head symbols are the first symbol of each math span of its first column, and those
    written as "$X$ number of ..." in its meaning (``$B$ ...; $P$ number of sign flips``).
    """
    if text is None:
        text = (ROOT / "book" / "notation.md").read_text(encoding="utf-8")
    heads: dict[str, str] = {}
    for line in text.splitlines():
        if not line.startswith("|") or re.match(r"\|\s*(-|symbol\b)", line):
            continue
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) < 2:
            continue
        for tex, _ in math_spans(cells[0]):
            found = symbols(tex)
            if found:
                heads.setdefault(found[0], cells[1])
        for m in re.finditer(r"\$([^$]+)\$ number of", cells[1]):
            heads.setdefault(symbols(m.group(1))[0], cells[1])
    return heads


def meaning_drifts(path: Path, senses: dict[str, str] | None = None) -> list[str]:
    """Where the chapter uses a notation symbol in another meaning (the rule above)."""
    senses = SENSES if senses is None else senses
    stem = path.stem[:2]
    found: list[str] = []
    first_seen: set[str] = set()
    paragraphs = _markdown(path)
    for i, paragraph in enumerate(paragraphs):
        context = paragraph
        if not _prose(paragraph).strip():  # a display standing alone: the prose around its run
            context = "\n".join(display_context(paragraphs, i))
        short = " ".join(paragraph.split())[:140]
        for tex, _ in math_spans(paragraph):
            tex = re.sub(r"0x[0-9A-Fa-f]+", " ", tex)  # hexadecimal constants are numbers
            if re.search(r"\\log_?\{?2\}?\s*\(\s*2\s*\+", tex):
                found.append(f"discount with 0-based ranks ({tex.strip()[:60]}) in “{short}”")
            for name in symbols(tex):
                if name not in senses or (name, stem) in EXCEPTIONS:
                    continue
                if name in first_seen and name not in COUNTS:
                    continue
                first_seen.add(name)
                note = f"{name} used without its meaning /{senses[name]}/ in “{short}”"
                if not re.search(senses[name], context, flags=re.I) and note not in found:
                    found.append(note)
        for m in re.finditer(r"(?<!\$)\$([^$\n]+)\$\s+([a-z]+)\b", _code_free(paragraph)):
            names = symbols(m.group(1))
            noun = m.group(2)
            if len(names) != 1 or names[0] not in COUNTS or (names[0], stem) in EXCEPTIONS:
                continue
            if not noun.endswith("s") or noun in _NOT_NOUNS:
                continue
            if not re.fullmatch(senses[names[0]], noun, flags=re.I):
                found.append(f"{names[0]} counts “{noun}”, not /{senses[names[0]]}/ in “{short}”")
    return found


def display_context(paragraphs: list[str], i: int) -> list[str]:
    """The paragraphs that frame display ``i``: its run of displays standing alone, and the prose
    paragraph on either side of the run (the sentence that introduces the displays and the
    "where ..." after them). Displays in a row share one introduction, so the third display of a
    row is read with the definition paragraph above the first."""
    start, stop = i, i + 1
    while start > 0 and not _prose(paragraphs[start - 1]).strip():
        start -= 1
    while stop < len(paragraphs) and not _prose(paragraphs[stop]).strip():
        stop += 1
    return paragraphs[max(start - 1, 0) : stop + 1]


def _code_free(paragraph: str) -> str:
    return re.sub(r"\$\$.*?\$\$", " ", paragraph, flags=re.S)


def test_every_notation_symbol_has_its_meaning_words():
    heads = notation_heads()
    assert set(heads) == set(SENSES), (
        f"notation.md heads without SENSES: {sorted(set(heads) - set(SENSES))}; "
        f"SENSES not on notation.md: {sorted(set(SENSES) - set(heads))}"
    )


def test_a_drifting_symbol_is_found(tmp_path):
    """The rule can fail: $n$ as rows at first use, $n$ counting draws, a 0-based discount."""
    page = tmp_path / "99_x.md"
    page.write_text(
        "# T\n\nThe row mean over $n$ rows has spread $\\sigma/\\sqrt{n}$.\n\n"
        "A mean of $n$ draws, and a discount $1/\\log_2(2 + r)$.\n",
        encoding="utf-8",
    )
    found = "\n".join(meaning_drifts(page))
    for kind in ("n used without its meaning", "n counts “rows”", "n counts “draws”", "0-based"):
        assert kind in found, found
    good = tmp_path / "98_y.md"
    good.write_text(
        "# T\n\nA row of $n$ candidates; $\\sigma$ the standard deviation of one draw.\n\n"
        "The top $n$ candidates, with discount $1/\\log_2(r + 1)$.\n",
        encoding="utf-8",
    )
    assert meaning_drifts(good) == []


def test_a_run_of_displays_is_read_with_the_prose_that_frames_it(tmp_path):
    """The second display of a run is read with the definition above the first, not alone."""
    body = (
        "# T\n\nWith titles $T_x$, embeddings $E$ and a compressor $C$:\n\n"
        "$$\nNCD_{i} = C(T_{i})\n$$\n\n$$\nCosSim_{i} = E_{i} \\cdot E_{j}\n$$\n\n"
        "and the rest.\n"
    )
    good = tmp_path / "99_x.md"
    good.write_text(body, encoding="utf-8")
    assert meaning_drifts(good) == []
    bad = tmp_path / "98_y.md"
    bad.write_text(body.replace("embeddings $E$", "features $E$"), encoding="utf-8")
    assert [d.split(" used")[0] for d in meaning_drifts(bad)] == ["E_·"]


@pytest.mark.parametrize("path", CHAPTERS, ids=lambda p: p.stem)
def test_every_notation_symbol_means_one_thing(path):
    drifts = meaning_drifts(path)
    assert not drifts, f"{path.stem}: " + "\n  ".join(drifts)
