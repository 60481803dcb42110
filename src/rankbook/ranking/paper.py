"""Sheng et al.'s reported figures, quoted once for every chapter and table that compares.

Sheng, Muthiah, Islam & Feng, "Progressive Refinement of E-commerce Search Ranking Based on
Short-Term Activities of the Buyer" (eBay). Table 1 gives offline MRR-of-sold-item lifts of
each contextual feature over its own baseline; Table 2 gives the online A/B lifts of the three
variants whose experiments had completed (two weeks, all platforms, 50/50 traffic).

The paper's qualitative readings of Table 1 (section 3.2) are :data:`PAPER_CLAIMS`, each a
:class:`Claim`: the paper's sentence quoted verbatim, the book's operationalisation (variant
``a`` against variant ``b`` over their common baseline) and the test it gets: *superiority*
(``L_a - L_b > 0``) for "beats"/"outperforms", *equivalence* (``|L_a - L_b| < margin``) for
"similar". A claim the book adds has ``source == "book"`` and is never called the paper's.
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = [
    "EQUIVALENCE_MARGIN_PCT",
    "PAPER_CLAIMS",
    "Claim",
    "PAPER_TABLE1_LIFT_PCT",
    "PAPER_TABLE2_ONLINE_LIFT_PCT",
    "PROGRESSION",
]

#: Offline MRR-of-sold-item lift in %, per variant row vs its baseline (Table 1).
PAPER_TABLE1_LIFT_PCT: dict[str, float] = {
    "MLR + NCD_lc": 1.16,
    "MLR + CosSim_lc": 1.84,
    "MLR + NCD_l5c": 0.60,
    "MLR + CosSim_l5c": 1.23,
    "P1 + NCD_Ref_txt": 0.93,
    "P1 + CosSim_Ref_emb": 1.08,
    "P2 + CosSim_seq:trans": 0.69,
    "P2 + CosSim_seq:perc": 1.01,
}

#: Online A/B MRR-of-sold-item lift in % (Table 2): only these three variants were reported.
PAPER_TABLE2_ONLINE_LIFT_PCT: dict[str, float] = {
    "MLR + NCD_lc": 1.30,
    "MLR + NCD_l5c": 0.72,
    "P1 + NCD_Ref_txt": 0.96,
}

#: Feature sets of the progression figure, in order: MLR -> P1 -> P2 -> P2 + a sequence encoder.
PROGRESSION = ("MLR", "P1", "P2", "P2 + CosSim_seq:trans", "P2 + CosSim_seq:perc")

#: Equivalence margin, in percentage points of lift, for a claim that two lifts are "similar":
#: half the smaller of the two intent-aware rows' lifts in Table 1 (0.93 / 2), so a difference
#: inside it is smaller than half of what either feature adds in the paper.
EQUIVALENCE_MARGIN_PCT = 0.465


@dataclass(frozen=True)
class Claim:
    """One claim: ``a`` vs ``b`` over their common baseline, its test and where it comes from.

    ``test``: ``"superiority"`` (``L_a - L_b > 0``) or ``"equivalence"`` (``|L_a - L_b| <
    margin_pct``); ``paper_quote``: the paper's sentence, verbatim (``None`` when ``source`` is
    ``"book"``).
    """

    claim: str
    variant_a: str
    variant_b: str
    test: str
    paper_quote: str | None
    source: str = "paper"
    margin_pct: float | None = None

    def __post_init__(self) -> None:
        if self.test not in ("superiority", "equivalence"):
            raise ValueError(f"claim {self.claim!r}: test must be superiority or equivalence")
        if (self.test == "equivalence") != (self.margin_pct is not None):
            raise ValueError(f"claim {self.claim!r}: a margin_pct goes with equivalence only")
        if self.source not in ("paper", "book"):
            raise ValueError(f"claim {self.claim!r}: source must be 'paper' or 'book'")
        if (self.source == "paper") != (self.paper_quote is not None):
            raise ValueError(
                f"claim {self.claim!r}: a paper claim needs its quote, a book one none"
            )


_EMBEDDING = (
    "Embedding similarity with the previous click yields a 1.84% improvement, while textual NCD "
    "with the last 5 clicks shows a 0.60% lift, suggesting that embedding-based features more "
    "effectively capture user preferences."
)
_RECENCY = (
    "Extended click histories may introduce irrelevant items, misaligning with the user\u2019s "
    "current intent."
)
_INTENT = (
    "Both textual and embedding-based intent-aware contextual features show similar performance "
    "enhancements over P1"
)
_PERCEIVER = (
    "The Perceiver-based feature outperforms the transformer-based feature, with a 1.01% lift "
    "over P2"
)

#: The paper's qualitative readings of Table 1 (section 3.2), and the tests the book gives them.
PAPER_CLAIMS: tuple[Claim, ...] = (
    Claim(
        "last click beats last five (NCD)", "MLR + NCD_lc", "MLR + NCD_l5c", "superiority", _RECENCY
    ),
    Claim(
        "last click beats last five (CosSim)",
        "MLR + CosSim_lc",
        "MLR + CosSim_l5c",
        "superiority",
        _RECENCY,
    ),
    # the paper's own comparison: CosSim_lc (1.84%) against NCD_l5c (0.60%)
    Claim(
        "embedding (last click) beats text (last five)",
        "MLR + CosSim_lc",
        "MLR + NCD_l5c",
        "superiority",
        _EMBEDDING,
    ),
    # the book's comparisons at equal windows: the paper does not make them
    Claim(
        "embedding beats text at the last click (the book's)",
        "MLR + CosSim_lc",
        "MLR + NCD_lc",
        "superiority",
        None,
        source="book",
    ),
    Claim(
        "embedding beats text at the last five (the book's)",
        "MLR + CosSim_l5c",
        "MLR + NCD_l5c",
        "superiority",
        None,
        source="book",
    ),
    Claim(
        "intent-aware text and embedding similar over P1",
        "P1 + CosSim_Ref_emb",
        "P1 + NCD_Ref_txt",
        "equivalence",
        _INTENT,
        margin_pct=EQUIVALENCE_MARGIN_PCT,
    ),
    Claim(
        "Perceiver beats Transformer",
        "P2 + CosSim_seq:perc",
        "P2 + CosSim_seq:trans",
        "superiority",
        _PERCEIVER,
    ),
)
