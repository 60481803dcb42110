"""Long-format input: one DataFrame line per (row, candidate), rows of any length.

Columns are named by a :class:`rankaudit.options.LongColumns` (``row``, ``item``, ``score``,
``label``, optional ``user``).  Lines are grouped by row id in order of
first appearance; inside a row, candidates keep their order in the frame (that
is the "input order" the ``input_order`` rule uses).  The result is a CSR
:class:`~rankaudit.ties.validation.Batch`, the same layout rectangular input
gets, so both forms go through the same kernels and give identical results.

The hash and random rules use the ``user`` column as the user id when it is given,
else the row id.
"""

from __future__ import annotations

import numbers

import numpy as np
import pandas as pd

from rankaudit.options import DEFAULT_COLUMNS, LongColumns
from rankaudit.scalars import plain
from rankaudit.ties.validation import Batch, kernel_numbers

__all__ = ["batch_from_long"]


def _require_columns(df: pd.DataFrame, columns: dict[str, str | None]) -> None:
    for keyword, column in columns.items():
        if column is not None and column not in df.columns:
            raise ValueError(
                f"{keyword}={column!r} is not a column of the DataFrame; "
                f"columns are: {', '.join(map(str, df.columns))}"
            )
        if column is not None and int((df.columns == column).sum()) > 1:
            raise ValueError(
                f"{keyword}={column!r} names {int((df.columns == column).sum())} columns of the "
                "DataFrame; column names must be unique (rename or drop the duplicates)"
            )


def _first_null(values: pd.Series, name: str) -> None:
    nulls = values.isna().to_numpy()
    if nulls.any():
        line = values.index[int(np.argmax(nulls))]
        raise ValueError(f"{name}: DataFrame line {plain(line)!r} has a missing value")


def _numeric_column(df: pd.DataFrame, column: str, kind: str, row_ids: pd.Series) -> np.ndarray:
    values = df[column].to_numpy()
    if values.dtype.kind in "fiubmM" or (
        values.dtype.kind == "O" and all(isinstance(x, numbers.Real) for x in values)
    ):  # object columns of Python ints stay exact (no float64 round trip)
        return kernel_numbers(values.reshape(-1, 1), kind, None).reshape(-1)
    coerced = pd.to_numeric(df[column], errors="coerce")
    failed = (coerced.isna() & df[column].notna()).to_numpy() | np.array(
        [isinstance(x, (str, bytes)) for x in df[column]], dtype=bool
    )
    if failed.any():
        i = int(np.argmax(failed))
        raise ValueError(
            f"{column}: row with {row_ids.name}={plain(row_ids.iloc[i])!r} (DataFrame line "
            f"{plain(df.index[i])!r}) holds a non-numeric value {plain(df[column].iloc[i])!r}; "
            f"{kind} must be numbers"
        )
    return kernel_numbers(coerced.to_numpy().reshape(-1, 1), kind, None).reshape(-1)


def batch_from_long(
    df: pd.DataFrame, columns: LongColumns = DEFAULT_COLUMNS, *, need_items: bool = False
) -> Batch:
    """Group a long-format frame into a CSR :class:`Batch` (see module docstring); an error
    names the column as ``columns`` does (``LongColumns.score='points' is not a column``)."""
    if not isinstance(df, pd.DataFrame):
        raise ValueError(f"expected a pandas DataFrame; got {type(df).__name__}")
    if not isinstance(columns, LongColumns):
        raise ValueError(f"columns must be a LongColumns; got {type(columns).__name__}")
    row_col, item_col, score_col = columns.row, columns.item, columns.score
    label_col, user_col = columns.label, columns.user
    _require_columns(
        df,
        {
            "LongColumns.row": row_col,
            "LongColumns.score": score_col,
            "LongColumns.label": label_col,
            "LongColumns.user": user_col,
        },
    )
    if item_col is not None and item_col not in df.columns:
        if need_items:
            _require_columns(df, {"LongColumns.item": item_col})
        item_col = None
    if item_col is not None:
        _require_columns(df, {"LongColumns.item": item_col})
    if len(df) == 0:
        raise ValueError("the DataFrame has zero rows; nothing to evaluate")
    _first_null(df[row_col], row_col)
    codes, uniques = pd.factorize(df[row_col], sort=False)
    order = np.argsort(codes, kind="stable")
    grouped = bool(np.all(codes[1:] >= codes[:-1]))
    counts = np.bincount(codes, minlength=len(uniques))
    offsets = np.concatenate(([0], np.cumsum(counts))).astype(np.int64)
    frame = df if grouped else df.iloc[order]
    row_ids = frame[row_col]

    scores = _numeric_column(frame, score_col, "scores", row_ids)
    labels = _numeric_column(frame, label_col, "labels", row_ids)
    items = None
    if item_col is not None:
        _first_null(frame[item_col], item_col)
        items = frame[item_col].to_numpy()
    users = None
    if user_col is not None:
        _first_null(frame[user_col], user_col)
        per_line = frame[user_col].to_numpy()
        firsts = per_line[offsets[:-1]]
        same = per_line == np.repeat(firsts, counts)
        if not np.all(same):
            line = int(np.argmax(~same))
            row = int(np.searchsorted(offsets, line, side="right") - 1)
            raise ValueError(
                f"{user_col}: row {row} ({row_col}={plain(uniques[row])!r}) has more than one user "
                f"id ({plain(firsts[row])!r} and {plain(per_line[line])!r}); a row belongs to one "
                f"user"
            )
        users = firsts
    else:
        users = np.asarray(uniques)
    return Batch(
        row_offsets=offsets,
        scores=np.ascontiguousarray(scores),
        labels=np.ascontiguousarray(labels),
        row_ids=np.asarray(uniques),
        row_id_name=row_col,
        user_ids=users,
        item_ids=items,
        item_id_name=item_col or "item_ids",
        user_id_name=user_col,
    )
