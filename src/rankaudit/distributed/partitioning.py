"""Put every row's candidates in one partition, in their original frame order.

The single-machine evaluator sees a row's candidates together and in frame
order (the order the ``input_order`` rule uses).  A Dask DataFrame read from
files gives no such promise: a row's lines may straddle a partition boundary,
or be scattered all over the frame.

One cheap pass over the row-id column (:func:`analyse_rows`) finds, per
partition, its first and last row id and its number of *runs* (maximal blocks
of consecutive lines with the same row id), plus the number of distinct row ids
``D`` in the frame.  Merging runs that continue across a boundary gives ``M``
runs in all; ``M == D`` exactly when every row's lines are contiguous in frame
order.  (When the row ids are sorted throughout the frame, ``M == D`` holds
without counting ``D``, and the pass is only a scan of each partition.)  Then,
with ``row_partitioning=``:

``"auto"`` (default)
    rows already whole per partition: used as they are; contiguous rows that
    straddle boundaries: the leading run of a partition is moved to the
    partition where its row starts (only those lines move,
    :func:`repair_boundaries`); anything else (rows scattered over the frame):
    a full shuffle.
``"shuffle"``
    always the full shuffle, without the analysis pass: each line is tagged
    with ``partition << 40 | position``, the lines are hash-shuffled on the row
    id (Dask's ``DataFrame.shuffle``) and each output partition is sorted by
    the tag, which restores frame order inside every row.
``"check"``
    the caller states that rows are whole per partition; the analysis verifies
    it and a ValueError names a row that is not.

A frame indexed by the row id with known divisions is used as it is (a row
cannot straddle divisions).
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np
import pandas as pd

from rankaudit._optional import require
from rankaudit.scalars import plain

__all__ = [
    "ROW_PARTITIONINGS",
    "RowLayout",
    "analyse_rows",
    "check_dask_frame",
    "check_rows_whole",
    "repair_boundaries",
    "rows_whole",
    "shuffle_rows",
    "whole_by_divisions",
]

ROW_PARTITIONINGS = ("auto", "shuffle", "check")
_TAG = "__rankaudit_line__"
_POSITION_BITS = 40  # up to 2**40 lines per partition, 2**23 partitions


def check_dask_frame(frame: object, function: str) -> None:
    """Raise a ValueError unless ``frame`` is a Dask DataFrame (a pandas frame names the fix)."""
    if isinstance(frame, pd.DataFrame):
        raise ValueError(
            f"frame: rankaudit.distributed.{function} takes a Dask DataFrame; got a pandas "
            f"DataFrame. Use rankaudit.{function}(frame) on one machine, or "
            "dask.dataframe.from_pandas(frame, npartitions=...)"
        )
    if not all(hasattr(frame, a) for a in ("_meta_nonempty", "map_partitions", "npartitions")):
        raise ValueError(
            f"frame: rankaudit.distributed.{function} takes a Dask DataFrame; got "
            f"{type(frame).__name__}"
        )


def _row_column(frame, row_col: str) -> None:
    if row_col not in frame.columns and frame.index.name != row_col:
        raise ValueError(
            f"LongColumns.row={row_col!r} is neither a column nor the index of the Dask DataFrame; "
            f"columns are: {', '.join(map(str, frame.columns))}"
        )


def _ids(part: pd.DataFrame, row_col: str) -> np.ndarray:
    return (part[row_col] if row_col in part.columns else part.index.to_series()).to_numpy()


def whole_by_divisions(frame, row_col: str) -> bool:
    """True when the frame is indexed by ``row_col`` with known divisions (rows cannot straddle)."""
    return frame.index.name == row_col and bool(frame.known_divisions)


# --------------------------------------------------------------------------- analysis
def _runs(part: pd.DataFrame, row_col: str, partition_info: dict | None = None) -> pd.DataFrame:
    """One line: the partition's number, lines, runs, first and last row id."""
    ids = _ids(part, row_col)
    number = -1 if partition_info is None else int(partition_info["number"])
    runs = 1 + int(np.count_nonzero(ids[1:] != ids[:-1])) if len(ids) else 0
    ends = (plain(ids[0]), plain(ids[-1])) if len(ids) else (None, None)
    try:
        monotonic = bool(pd.Index(ids).is_monotonic_increasing)
    except TypeError:  # ids of mixed types
        monotonic = False
    return pd.DataFrame(
        {
            "partition": [number],
            "lines": [len(ids)],
            "runs": [runs],
            "sorted": [monotonic],
            "first": pd.Series([ends[0]], dtype=object),
            "last": pd.Series([ends[1]], dtype=object),
        }
    )


def _sorted_throughout(info: pd.DataFrame) -> bool:
    """Row ids non-decreasing over the whole frame (each partition sorted, boundaries in order)."""
    filled = info[info["lines"] > 0]
    if not filled["sorted"].all():
        return False
    try:
        return all(
            a <= b for a, b in zip(filled["last"].iloc[:-1], filled["first"].iloc[1:], strict=True)
        )
    except TypeError:
        return False


@dataclass(frozen=True)
class RowLayout:
    """How rows lie in a frame's partitions (see the module docstring)."""

    lines: tuple[int, ...]
    runs: tuple[int, ...]
    first: tuple[object, ...]
    last: tuple[object, ...]
    n_row_ids: int

    @property
    def continued(self) -> tuple[bool, ...]:
        """``continued[p]``: partition p starts with the row the previous non-empty one ends
        with."""
        out, previous = [], None
        for n, first, last in zip(self.lines, self.first, self.last, strict=True):
            out.append(bool(n) and previous is not None and first == previous)
            if n:
                previous = last
        return tuple(out)

    @property
    def contiguous(self) -> bool:
        """Every row's lines are consecutive in frame order (``M == D``)."""
        return sum(self.runs) - sum(self.continued) == self.n_row_ids

    @property
    def whole(self) -> bool:
        """Every row lies in one partition, contiguously."""
        return self.contiguous and not any(self.continued)


def analyse_rows(frame, row_col: str) -> RowLayout:
    """One pass over the row ids of the Dask DataFrame ``frame`` (computed)."""

    _row_column(frame, row_col)
    ids_only = frame[[row_col]] if row_col in frame.columns else frame.iloc[:, :0]  # reads less
    meta = _runs(ids_only._meta.iloc[:0], row_col).iloc[:0]
    info = ids_only.map_partitions(_runs, row_col, meta=meta).compute()
    info = info.sort_values("partition", kind="stable")
    if not np.array_equal(info["partition"].to_numpy(), np.arange(frame.npartitions)):
        raise RuntimeError("Dask did not pass partition_info; the row layout cannot be analysed")
    layout = RowLayout(
        tuple(info["lines"].tolist()),
        tuple(info["runs"].tolist()),
        tuple(info["first"].tolist()),
        tuple(info["last"].tolist()),
        -1,
    )
    if _sorted_throughout(info):  # sorted ids: every id is one run, no distinct count needed
        n_ids = sum(layout.runs) - sum(layout.continued)
    else:
        ids = frame[row_col] if row_col in frame.columns else frame.index.to_series()
        n_ids = int(ids.nunique(dropna=False).compute())
    return replace(layout, n_row_ids=n_ids)


def check_rows_whole(frame, row_col: str) -> None:
    """Raise ValueError unless every row of ``frame`` lies in one partition, contiguously."""
    layout = analyse_rows(frame, row_col)
    if layout.whole:
        return
    if layout.contiguous:
        p = layout.continued.index(True)
        raise ValueError(
            f"{row_col}: row {layout.first[p]!r} continues from an earlier partition into "
            f"partition {p} ({sum(layout.continued)} rows straddle a partition boundary); with "
            "row_partitioning='check' every row must lie in one partition. Use "
            "row_partitioning='auto' (the default) to move only those lines"
        )
    raise ValueError(
        f"{row_col}: some row ids occur in more than one block of consecutive lines "
        f"({sum(layout.runs) - sum(layout.continued)} blocks for {layout.n_row_ids} row ids); "
        "with row_partitioning='check' every row must lie in one partition. Use "
        "row_partitioning='auto' (the default) to shuffle lines by row id"
    )


# --------------------------------------------------------------------------- boundary repair
def _leading_run(part: pd.DataFrame, row_col: str) -> pd.DataFrame:
    ids = _ids(part, row_col)
    if len(ids) == 0:
        return part
    change = np.flatnonzero(ids[1:] != ids[:-1])
    return part.iloc[: int(change[0]) + 1 if len(change) else len(ids)]


def _assemble(part: pd.DataFrame, row_col: str, drop_leading: bool, *tails: pd.DataFrame):
    if drop_leading:
        part = part.iloc[len(_leading_run(part, row_col)) :]
    if not tails:
        return part
    return pd.concat([part, *tails])


def repair_boundaries(frame, row_col: str, layout: RowLayout):
    """Move each straddling row's continuation lines to the partition where the row starts.

    Precondition: ``layout.contiguous`` (checked).  Only the leading runs of
    partitions that continue a row move; frame order inside every row is kept.
    """
    dask = require("dask", purpose="rankaudit.distributed")
    dd = require("dask.dataframe", purpose="rankaudit.distributed")

    if not layout.contiguous:
        raise ValueError(f"{row_col}: rows are not contiguous in frame order; shuffle instead")
    parts = frame.to_delayed()
    continued = layout.continued
    new_parts = []
    for p, part in enumerate(parts):
        tails = []
        if layout.lines[p] and not (continued[p] and layout.runs[p] == 1):
            q = p + 1
            while q < len(parts):
                if layout.lines[q] == 0:
                    q += 1
                    continue
                if not continued[q]:
                    break
                tails.append(dask.delayed(_leading_run)(parts[q], row_col))
                if layout.runs[q] > 1:
                    break
                q += 1
        new_parts.append(dask.delayed(_assemble)(part, row_col, continued[p], *tails))
    return dd.from_delayed(new_parts, meta=frame._meta, verify_meta=False)


# --------------------------------------------------------------------------- shuffle
def _tag(part: pd.DataFrame, partition_info: dict | None = None) -> pd.DataFrame:
    if partition_info is None:
        if len(part) == 0:  # Dask's metadata pass on an empty frame
            return part.assign(**{_TAG: np.zeros(0, dtype=np.int64)})
        raise RuntimeError("Dask did not pass partition_info; the frame order cannot be restored")
    number = np.int64(partition_info["number"]) << np.int64(_POSITION_BITS)
    return part.assign(**{_TAG: number + np.arange(len(part), dtype=np.int64)})


def _untag(part: pd.DataFrame) -> pd.DataFrame:
    order = np.argsort(part[_TAG].to_numpy(), kind="stable")
    return part.iloc[order].drop(columns=[_TAG])


def shuffle_rows(frame, row_col: str, shuffle_method: str | None = None):
    """Hash-shuffle lines on the row id, then restore frame order inside each partition."""
    if row_col not in frame.columns:  # indexed by the row id, divisions unknown
        frame = frame.reset_index()
    tagged = frame.map_partitions(_tag, meta=_tag(frame._meta))
    shuffled = tagged.shuffle(
        on=row_col, npartitions=frame.npartitions, shuffle_method=shuffle_method
    )
    return shuffled.map_partitions(_untag, meta=frame._meta)


def rows_whole(
    frame, row_col: str, row_partitioning: str = "auto", shuffle_method: str | None = None
):
    """A Dask DataFrame with every row's lines in one partition, in their original frame order."""
    if row_partitioning not in ROW_PARTITIONINGS:
        raise ValueError(
            f"row_partitioning={row_partitioning!r} is not valid; use one of: "
            f"{', '.join(ROW_PARTITIONINGS)}"
        )
    _row_column(frame, row_col)
    if whole_by_divisions(frame, row_col):
        return frame
    if row_partitioning == "shuffle":
        return shuffle_rows(frame, row_col, shuffle_method)
    if row_partitioning == "check":
        check_rows_whole(frame, row_col)
        return frame
    layout = analyse_rows(frame, row_col)
    if layout.whole:
        return frame
    if layout.contiguous:
        return repair_boundaries(frame, row_col, layout)
    return shuffle_rows(frame, row_col, shuffle_method)
