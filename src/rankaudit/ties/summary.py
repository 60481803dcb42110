"""``rankaudit.ties.summarize``: the aggregate of each metric column of an
:func:`rankaudit.evaluate` result, as each measure declares it (trec_eval's aggregation,
:mod:`rankaudit.measures.aggregation`), never of its id columns."""

from __future__ import annotations

import re

import pandas as pd

from rankaudit.measures.aggregation import aggregate_value
from rankaudit.measures.registry import Measure, parse_measure

__all__ = ["summarize"]

#: A default measure's column (:data:`rankaudit.ties.fast_path.ROW_FAST_PATH`).
_METRIC_NAME = re.compile(r"(Success|nDCG)@\d+|RR")


def summarize(results: pd.DataFrame) -> pd.Series:
    """The aggregate of each metric column of an :func:`evaluate` result, never of its id
    columns.

    ``mean(Success@k)`` is HR@k, ``mean(nDCG@k)`` is NDCG@k and ``mean(RR)`` is MRR over the
    rows of ``results`` (after any ``empty="drop"``).  Every measure column
    (``attrs["measures"]``, or a column named as a default measure) is aggregated as its
    measure declares, as trec_eval does
    (:func:`rankaudit.measures.registry.aggregate_value`): the mean over rows, the *sum* for
    the counts ``NumRet``, ``NumRel`` and ``NumRelRet``.  The metric columns are those of
    ``results.attrs["metric_columns"]`` still present or, when there are none (a pandas
    operation such as ``pd.concat`` of frames with different attrs drops them), the
    columns named ``Success@<k>``, ``nDCG@<k>`` or ``RR``.  Raises ValueError when there is no
    metric column, or when ``results`` has no rows.
    """
    if not isinstance(results, pd.DataFrame):
        raise ValueError(
            f"results must be the DataFrame evaluate() returns; got {type(results).__name__}"
        )
    names = [c for c in results.attrs.get("metric_columns", ()) if c in results.columns]
    if not names:
        names = [c for c in results.columns if isinstance(c, str) and _METRIC_NAME.fullmatch(c)]
    if not names:
        raise ValueError(
            "results: no metric column (Success@k, nDCG@k or RR) to average; columns are: "
            + ", ".join(map(str, results.columns))
        )
    if len(results) == 0:
        raise ValueError("results has zero rows; there is no mean to report")
    declared = set(results.attrs.get("measures", ()))
    out = results[names].mean()
    for name in names:
        if name in declared or _METRIC_NAME.fullmatch(name):
            out[name] = aggregate_value(_measure_of(name), results[name].to_numpy())
    return out


def _measure_of(name: str) -> Measure:
    """The registry measure of a metric column, for its aggregation.  A default measure's
    cutoff may exceed what a name may spell (a cutoff beyond a row is the row's length), and a
    family aggregates alike at every cutoff, so its family is read at cutoff 1."""
    match = _METRIC_NAME.fullmatch(name)
    return parse_measure(f"{match.group(1)}@1" if match and match.group(1) else name)
