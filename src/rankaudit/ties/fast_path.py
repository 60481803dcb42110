"""Which measures :func:`rankaudit.evaluate` computes by the row kernels, its fast path on
rows, declared once (:data:`ROW_FAST_PATH`), and the measures it computes without
``measures=``."""

from __future__ import annotations

from collections.abc import Sequence

from rankaudit.measures.registry import Measure, parse_measure

__all__ = ["ROW_FAST_PATH", "default_measures", "fast_path_cutoff", "metric_names"]

#: The measures of the core registry (:mod:`rankaudit.measures.registry`) whose fast path on
#: rows is the row kernels (:mod:`rankaudit.measures.row_expected`, ``row_ordered``,
#: ``row_sampled``), in ir_measures' spelling, which is also their column name: HR@k
#: (``Success@k``), nDCG@k (``nDCG@k``) and RR (``RR``), all three at one cutoff ``k``.
#: They are also :func:`rankaudit.evaluate`'s default measures.  Under every rule that does
#: not sample, the row kernels' values are the list kernels' bits, and under ``random`` they
#: draw the same tie orders (tests hold both).
#: Labels: here any finite label >= 0 is a gain and ``label > 0`` is relevant; the list kernels
#: take whole-number grades, relevant at level 1 (``label >= 1``), because trec_eval's
#: measures read grades (ERR's ``2**label``, a level ``rel=l``).  On whole-number labels the
#: two rules are the same; a fractional label is accepted by this path only.
ROW_FAST_PATH: tuple[str, str, str] = ("Success@{k}", "nDCG@{k}", "RR")


def default_measures(k: int) -> tuple[str, str, str]:
    """The measures of :func:`evaluate` without ``measures=`` at cutoff ``k``
    (:data:`ROW_FAST_PATH`): ``('Success@k', 'nDCG@k', 'RR')``."""
    hr, ndcg, rr = (name.format(k=k) for name in ROW_FAST_PATH)
    return hr, ndcg, rr


def metric_names(k: int) -> tuple[str, str, str]:
    """The metric columns the row kernels fill at cutoff ``k``: a measure's column is its name,
    ``('Success@k', 'nDCG@k', 'RR')`` (:func:`default_measures`)."""
    return default_measures(k)


def fast_path_cutoff(measures: Sequence[Measure] | None, k: int) -> int | None:
    """The cutoff at which the row kernels compute every measure of ``measures``, or None.

    ``measures=None`` is :func:`default_measures` at ``k``: the fast path at ``k`` (any
    ``k >= 1``; a cutoff beyond a row is its length, so ``k`` is not parsed as a name, whose
    cutoff the registry bounds).  None when a measure is not one of :data:`ROW_FAST_PATH`
    (another family, a parameter, a cutoff on RR) or when two measures have different
    cutoffs: the list kernels compute them then.  ``k`` is the cutoff when no measure has one
    (``RR`` alone).
    """
    if measures is None:
        return k
    cutoffs = {m.cutoff for m in measures if m.cutoff is not None}
    if len(cutoffs) > 1:
        return None
    cutoff = cutoffs.pop() if cutoffs else k
    fast = {parse_measure(name) for name in default_measures(cutoff)}
    return cutoff if all(m in fast for m in measures) else None
