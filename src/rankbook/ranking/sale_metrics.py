"""MRR of the sold item, tie-aware, computed through the core :func:`rankaudit.evaluate`.

``RR_sale(q) = 1 / rank of the first sold item (label 2) in the ranker's order of q's SERP``;
``MRR_sale`` is its mean over queries that had a sale (Craswell, 2009, "Mean reciprocal rank",
Encyclopedia of Database Systems; the paper's offline metric). Clicks (label 1) count as not
relevant here.

When the ranker gives several items the same score, the order within the tie is not defined by the
model. ``ties="expected"`` averages RR over all orders of each tie block in closed form (McSherry &
Najork, 2008, ECIR); ``ties="input_order"`` keeps the table's row order, which is **the logged SERP
order**: within a tie it silently hands the production engine's ranking to the model (Part I's
lesson). Report both.

Public API: :func:`sale_rr`, :func:`sale_tie_prevalence`.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from rankaudit.ties.evaluate import evaluate
from rankaudit.ties.prevalence import tie_prevalence

__all__ = ["sale_rr", "sale_tie_prevalence"]


def _sale_long(frame: pd.DataFrame, scores: np.ndarray) -> pd.DataFrame:
    if len(scores) != len(frame):
        raise ValueError(f"scores has {len(scores)} values for {len(frame)} rows")
    sold = frame.label.to_numpy() == 2
    has_sale = pd.Series(sold).groupby(frame.query_id.to_numpy()).transform("any").to_numpy()
    if not has_sale.any():
        raise ValueError("no query in the table has a sale (label 2)")
    return pd.DataFrame(
        {
            "row_id": frame.query_id.to_numpy()[has_sale],
            "item_id": frame.item_id.to_numpy()[has_sale],
            "score": np.asarray(scores, dtype=np.float64)[has_sale],
            "label": sold[has_sale].astype(np.int8),
        }
    )


def sale_rr(frame: pd.DataFrame, scores: np.ndarray, *, ties: str = "expected") -> pd.Series:
    """Per-query RR of the sold item (queries with a sale only), indexed by ``query_id``, in table
    order."""
    long = _sale_long(frame, scores)
    res = evaluate(long, ties=ties, k=10)  # the default LongColumns name its columns
    return pd.Series(
        res["RR"].to_numpy(), index=pd.Index(res["row_id"].to_numpy(), name="query_id"), name="RR"
    )


def sale_tie_prevalence(
    frame: pd.DataFrame, scores: np.ndarray, *, k: int = 10
) -> dict[str, float]:
    """Tie diagnostics of the ranker's scores on queries with a sale
    (:func:`rankaudit.tie_prevalence`)."""
    long = _sale_long(frame, scores)
    tp = tie_prevalence(long, k=k)  # the default LongColumns name its columns
    return {key: float(v) for key, v in tp.summary.items() if key.startswith(("frac_", "mean_"))}
