"""Guo et al.'s reported Amazon figures, quoted once for the chapters that compare with them.

Guo, Chen, Zhu & Li (2026), "Tie Handling Is Part of the Evaluation Protocol",
arXiv:2609.26977, Table 2 and §5.1: real Amazon Beauty and Personal Care, 30,000 rows of one
relevant item and 30 sampled negatives, weighted attribute overlap.
"""

from __future__ import annotations

__all__ = ["PAPER_AMAZON"]

#: Reported by Guo et al. (2026), Table 2 and §5.1: real Amazon Beauty, 30,000 rows, weighted
#: attribute overlap; the residualized score changes by 0.0004 NDCG@10 (input order -> hash).
PAPER_AMAZON = {
    "ndcg_input_order": 0.8474,
    "ndcg_hash": 0.1702,
    "hr_input_order": 0.9997,
    "hr_hash": 0.3526,
    "residualized_change": 0.0004,
}
