"""``rankaudit.distributed.tie_prevalence``: :func:`rankaudit.tie_prevalence` on a Dask DataFrame.

Per-row flags come from the single-machine kernel run on each partition after
every row has been brought into one partition
(:mod:`rankaudit.distributed.partitioning`); they depend on the row alone, so
they equal the single-machine flags.  The summary is rebuilt from integer
counts reduced over partitions (rows, rows without a relevant item, rows with
each flag, and the sum of ``relevant_block_size`` over rows with a relevant
item), so every fraction is ``count / n`` exactly as on one machine, whatever
the partitioning.  Definitions of the flags: :mod:`rankaudit.ties.prevalence`
(Guo et al., arXiv:2609.26977, §4.2).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from rankaudit._optional import require
from rankaudit.distributed.evaluate import progress_compute, run_on_partition
from rankaudit.distributed.partitioning import check_dask_frame, rows_whole
from rankaudit.options import DEFAULT_COLUMNS, LONG_COLUMN_KEYWORDS, LongColumns, moved_keywords
from rankaudit.ties.prevalence import tie_prevalence as tie_prevalence_local
from rankaudit.ties.validation import check_k

__all__ = ["DistributedTiePrevalence", "tie_prevalence"]

FLAGS = ("any_tie", "boundary_tie", "relevant_tied", "relevant_boundary_tie")


@dataclass(frozen=True)
class DistributedTiePrevalence:
    """Result of :func:`tie_prevalence`: ``.rows`` (Dask DataFrame of per-row flags, as the
    single-machine ``.rows``), ``.summary`` (pandas Series, computed, same keys and values as
    the single-machine ``.summary``) and ``k``."""

    rows: object
    summary: pd.Series
    k: int

    def __repr__(self) -> str:
        return f"DistributedTiePrevalence(k={self.k})\n{self.summary.to_string()}"


def _local_rows(part: pd.DataFrame, *, row_col: str, **kwargs) -> pd.DataFrame:
    """:func:`rankaudit.tie_prevalence` of one partition (its ``columns`` name the row)."""
    return tie_prevalence_local(part, **kwargs).rows


def _prevalence_partition(
    part: pd.DataFrame,
    meta: pd.DataFrame,
    row_col: str,
    partition_info: dict | None = None,
    **kwargs,
) -> pd.DataFrame:
    return run_on_partition(_local_rows, part, meta, row_col, partition_info, **kwargs)


def _counts(rows: pd.DataFrame) -> dict[str, int]:
    has_rel = rows["n_relevant"].to_numpy() > 0
    counts = {flag: int(rows[flag].to_numpy().sum()) for flag in FLAGS}
    counts["n_rows"] = len(rows)
    counts["n_with_relevant"] = int(has_rel.sum())
    counts["block_sum"] = int(rows["relevant_block_size"].to_numpy()[has_rel].sum())
    return counts


def _summary(parts: list[dict[str, int]]) -> pd.Series:
    total = {key: sum(part[key] for part in parts) for key in parts[0]}
    n = total["n_rows"]
    if n == 0:
        raise ValueError("the DataFrame has zero rows; nothing to evaluate")
    n_rel = total["n_with_relevant"]
    summary = {"n_rows": n, "n_rows_without_relevant": n - n_rel}
    summary.update({f"frac_{flag}": total[flag] / n for flag in FLAGS})
    summary["mean_relevant_block_size"] = total["block_sum"] / n_rel if n_rel else 0.0
    return pd.Series(summary, dtype=object)


@moved_keywords(LONG_COLUMN_KEYWORDS)
def tie_prevalence(
    frame,
    *,
    k: int = 10,
    columns: LongColumns = DEFAULT_COLUMNS,
    row_partitioning: str = "auto",
    shuffle_method: str | None = None,
    persist: bool = True,
    progress: bool = True,
) -> DistributedTiePrevalence:
    """Per-row tie flags and summary fractions of a long-format Dask DataFrame.

    Same flags, summary keys and values as :func:`rankaudit.tie_prevalence`
    on ``frame.compute()`` (module docstring; ``columns`` as there); ``row_partitioning``,
    ``shuffle_method``, ``persist`` and ``progress`` as in :func:`rankaudit.distributed.evaluate`.
    """
    check_dask_frame(frame, "tie_prevalence")
    k = check_k(k)
    if not isinstance(columns, LongColumns):
        raise ValueError(f"columns must be a LongColumns; got {type(columns).__name__}")
    row_col, score_col, label_col = columns.row, columns.score, columns.label
    options = dict(k=k, columns=columns)
    example = frame._meta_nonempty.iloc[:1]
    if row_col not in example.columns:
        example = example.reset_index()
    for keyword, column in (("LongColumns.score", score_col), ("LongColumns.label", label_col)):
        if column not in example.columns:
            raise ValueError(
                f"{keyword}={column!r} is not a column of the Dask DataFrame; "
                f"columns are: {', '.join(map(str, frame.columns))}"
            )
    example = example.assign(**{score_col: np.float64(0.0), label_col: 1})
    meta = tie_prevalence_local(example, **options).rows.iloc[:0]
    whole = rows_whole(frame, row_col, row_partitioning, shuffle_method)
    rows = whole.map_partitions(_prevalence_partition, meta, row_col, meta=meta, **options)
    if persist:
        rows = rows.persist()
    dask = require("dask", purpose="rankaudit.distributed")

    parts = [dask.delayed(_counts)(part) for part in rows.to_delayed()]
    summary = _summary(progress_compute(parts, progress, "rankaudit.distributed tie_prevalence"))
    return DistributedTiePrevalence(rows=rows, summary=summary, k=k)
