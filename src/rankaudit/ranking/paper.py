"""Sheng et al.'s reported figures, quoted once for every chapter and table that compares.

Sheng, Ali, Fan & Raghunathan, "Progressive Refinement of E-commerce Search Ranking Based on
Short-Term Activities of the Buyer" (eBay). Table 1 gives offline MRR-of-sold-item lifts of
each contextual feature over its own baseline; Table 2 gives the online A/B lifts of the three
variants whose experiments had completed (two weeks, all platforms, 50/50 traffic).
"""

from __future__ import annotations

__all__ = [
    "PAPER_CLAIMS",
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

#: The paper's qualitative claims (section 3.2) as ``(claim, variant a, variant b)``: it reports
#: that ``a`` lifts MRR-sale more than ``b`` over their common baseline (Table 1).
PAPER_CLAIMS: tuple[tuple[str, str, str], ...] = (
    ("last click beats last five (NCD)", "MLR + NCD_lc", "MLR + NCD_l5c"),
    ("last click beats last five (CosSim)", "MLR + CosSim_lc", "MLR + CosSim_l5c"),
    ("embedding beats text (last click)", "MLR + CosSim_lc", "MLR + NCD_lc"),
    ("embedding beats text (last five)", "MLR + CosSim_l5c", "MLR + NCD_l5c"),
    ("embedding beats text (reference click)", "P1 + CosSim_Ref_emb", "P1 + NCD_Ref_txt"),
    ("Perceiver beats Transformer", "P2 + CosSim_seq:perc", "P2 + CosSim_seq:trans"),
)
