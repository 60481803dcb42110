"""Part II tables laid out for a page: Table 2 as the paper prints it and as this book extends it,
and one cell of it for glue (Guo et al., 2026, arXiv:2609.26977, Table 2).

The frames hold numbers rounded to 4 decimals; a page shows them through
:func:`rankbook.report.tables.display_frame`, which prints a negative zero unsigned. The CI cells
are text written here (this room may not import the report room's formatters), with the same
rule: a bound that rounds to zero prints as 0.0000.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import pandas as pd

__all__ = ["lookup", "paper_table2_frame", "table2_frame"]


def table2_frame(results: Mapping[str, Any], metric: str = "ndcg10") -> pd.DataFrame:
    """Table 2 for display: one column per score family, one line per tie rule.

    Values are rounded to 4 decimals (display only; the results JSON keeps full precision);
    show the frame with ``display_frame(frame, 4)``, which prints a negative zero as 0.0000.
    The rules with a seed-to-seed standard deviation (``hash_mean``, ``random``) are followed
    by a ``... sd`` line; the last line, ``Δ expected``, is the change from input order to the
    exact expectation. ``metric`` is ``"ndcg10"`` or ``"hr10"``.
    """
    if metric not in ("ndcg10", "hr10"):
        raise ValueError(f"metric must be 'ndcg10' or 'hr10'; got {metric!r}.")
    frame = pd.DataFrame(results["table2"])
    scores = list(dict.fromkeys(frame["score"]))
    lines = {}
    for rule in dict.fromkeys(frame["tie_rule"]):
        part = frame[frame["tie_rule"] == rule].set_index("score").reindex(scores)
        lines[rule] = part[metric]
        if (part[f"{metric}_sd"].fillna(0) > 0).any():
            lines[f"{rule} sd"] = part[f"{metric}_sd"]
    exp = frame[frame["tie_rule"] == "expected"].set_index("score").reindex(scores)
    lines["Δ expected"] = exp[f"delta_{metric}"]
    wide = pd.DataFrame(lines).T.round(4)
    wide.index.name, wide.columns.name = "tie rule", "score"
    return wide


def lookup(results: Mapping[str, Any], score: str, tie_rule: str, metric: str = "ndcg10") -> float:
    """One cell of Table 2, for ``glue``."""
    for line in results["table2"]:
        if line["score"] == score and line["tie_rule"] == tie_rule:
            return float(line[metric])
    raise KeyError(f"no Table 2 line for score={score!r}, tie_rule={tie_rule!r}")


def paper_table2_frame(results: Mapping[str, Any]) -> pd.DataFrame:
    """Table 2 as the paper lays it out: one line per score; NDCG@10 and HR@10 under input order
    and the hash rule, each with ``Δ`` = hash - input order (the paper's direction) and, when the
    results hold ``row_bootstrap``, its row-bootstrap 95% CI; then the prevalence measures
    (shares of rows with any tie, a tie crossing the top-k boundary, the relevant item tied).
    Rounded to 4 decimals for display (show it with ``display_frame(frame, 4)``)."""
    t2 = pd.DataFrame(results["table2"])
    prev = pd.DataFrame(results["prevalence"]).set_index("score")
    scores = list(dict.fromkeys(t2["score"]))
    cols: dict[tuple[str, str], pd.Series] = {}
    for metric, label in (("ndcg10", "NDCG@10"), ("hr10", "HR@10")):
        io = t2[t2["tie_rule"] == "input_order"].set_index("score")[metric].reindex(scores)
        h = t2[t2["tie_rule"] == "hash"].set_index("score")[metric].reindex(scores)
        cols[(label, "input order")] = io
        cols[(label, "hash")] = h
        cols[(label, "Δ input order → hash")] = h - io
        if results.get("row_bootstrap"):
            boot = pd.DataFrame(results["row_bootstrap"])
            b = boot[(boot["tie_rule"] == "hash") & (boot["metric"] == metric)].set_index("score")
            b = b.reindex(scores)
            cols[(label, "Δ 95% CI")] = pd.Series(
                [
                    f"[{round(lo, 4) + 0.0:.4f}, {round(hi, 4) + 0.0:.4f}]"  # -0.0 + 0.0 is 0.0
                    for lo, hi in zip(b.delta_ci_low, b.delta_ci_high, strict=True)
                ],
                index=b.index,
            )
    for key, label in (
        ("any_tie", "any tie"),
        ("boundary_tie", "boundary tie"),
        ("relevant_tie", "relevant tied"),
    ):
        cols[("prevalence", label)] = prev[key].reindex(scores)
    frame = pd.DataFrame(cols).round(4)
    frame.index.name = "score"
    return frame
