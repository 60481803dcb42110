"""What :func:`rankaudit.evaluate` computes without ``measures=``: registry measures whose fast
path on rows is the row kernels, declared once (:data:`ROW_FAST_PATH`), and the column names
it reports them under."""

from __future__ import annotations

__all__ = ["ROW_FAST_PATH", "default_measures", "metric_names"]

#: The default measures of :func:`rankaudit.evaluate`, declared once: three measures of the
#: core registry (:mod:`rankaudit.measures.registry`) and the column each is reported under.
#: The row kernels (:mod:`rankaudit.measures.row_expected`, ``row_ordered``, ``row_sampled``)
#: are their fast path on rows: under every rule that does not sample their values are the
#: list kernels' bits, and under ``random`` they draw the same tie orders (tests hold both).
#: Labels: here any finite label >= 0 is a gain and ``label > 0`` is relevant; the list kernels
#: (``measures=``) take whole-number grades, relevant at level 1 (``label >= 1``), because
#: trec_eval's measures read grades (ERR's ``2**label``, a level ``rel=l``).  On whole-number
#: labels the two rules are the same; a fractional label is accepted by this path only.
ROW_FAST_PATH: tuple[tuple[str, str], ...] = (
    ("Success@{k}", "Success@{k}"),
    ("nDCG@{k}", "nDCG@{k}"),
    ("RR", "RR"),
)


def metric_names(k: int) -> tuple[str, str, str]:
    """The metric column names for cutoff ``k``: ``('Success@k', 'nDCG@k', 'RR')``
    (:data:`ROW_FAST_PATH`)."""
    hr, ndcg, rr = (column.format(k=k) for _, column in ROW_FAST_PATH)
    return hr, ndcg, rr


def default_measures(k: int) -> dict[str, str]:
    """``{column: registry measure}`` of :func:`evaluate` without ``measures=`` at cutoff
    ``k`` (:data:`ROW_FAST_PATH`), e.g. ``{'Success@10': 'Success@10', ...}``; the frame's
    ``attrs["registry_measures"]``."""
    return {column.format(k=k): measure.format(k=k) for measure, column in ROW_FAST_PATH}
