"""Input checking and the internal batch format shared by all kernels.

Every public entry point turns its input into a :class:`Batch` (CSR-style:
flat ``scores`` / ``labels`` plus row offsets or a common row length) here or in
:mod:`rankaudit.ties.longformat`.  Cheap structural checks (shapes, dtypes,
row counts, ids) happen here; value checks that need a pass over the data
(non-finite scores, negative / NaN labels, duplicate item ids) happen inside
the kernels while they read, and :func:`raise_for_status` turns the kernel's
status into a ``ValueError`` that names the problem and the first offending row.
"""

from __future__ import annotations

import numbers
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from rankaudit._checks import check_not_masked, check_positive_int, check_seed
from rankaudit.measures.hashing import ids_to_keys, splitmix64, splitmix64_array
from rankaudit.measures.row_support import BAD_LABEL, DUPLICATE_ITEM, NONFINITE_SCORE, OK
from rankaudit.scalars import plain
from rankaudit.ties.exact_values import (
    asarray_exact,
    kernel_scores,
)

_NO_OFFSETS = np.zeros(0, dtype=np.int64)

__all__ = [
    "EMPTY_POLICIES",
    "Batch",
    "batch_from_arrays",
    "check_empty_policy",
    "check_k",
    "check_positive_int",
    "check_seed",
    "exact_scores",
    "kernel_numbers",
    "kernel_view",
    "narrow_labels",
    "raise_for_status",
    "row_keys",
]

EMPTY_POLICIES = ("error", "zero", "drop")


@dataclass(frozen=True)
class Batch:
    """Rows of candidates in CSR layout.

    Row ``i`` is ``scores[start:start + length]`` (and the same slice of
    ``labels`` / ``item_ids``): ``start = i * row_len`` for rectangular input
    (no offsets array is built: at two million rows it is 16 MB of writes),
    ``offsets[i]:offsets[i+1]`` for ragged rows.  ``row_ids`` label the rows in
    the output (input positions for arrays, the row-id column for long
    format); ``user_ids`` (per row) feed the hash and random rules.
    """

    scores: np.ndarray
    labels: np.ndarray
    row_ids: np.ndarray
    row_id_name: str
    row_offsets: np.ndarray | None = None  # ragged rows: n_rows + 1 CSR offsets
    row_len: int | None = None  # rectangular rows: their common length
    user_ids: np.ndarray | None = None
    item_ids: np.ndarray | None = None
    item_id_name: str = "item_ids"
    user_id_name: str | None = None  # output column for user ids (None: not shown)

    def __post_init__(self) -> None:
        if (self.row_offsets is None) == (self.row_len is None):
            raise ValueError("Batch needs exactly one of row_offsets (ragged) and row_len")
        object.__setattr__(self, "scores", kernel_view(self.scores))
        object.__setattr__(self, "labels", kernel_view(narrow_labels(self.labels)))

    @property
    def n_rows(self) -> int:
        return int(self.row_ids.shape[0])

    @property
    def max_len(self) -> int:
        """Length of the longest row (scratch size of the kernels)."""
        if self.row_len is not None:
            return self.row_len
        return int(self.row_lengths().max()) if self.n_rows else 0

    def kernel_layout(self) -> tuple[int, int, np.ndarray]:
        """``(n_rows, row_len, offsets)`` as the kernels take them (see ``row_bounds``):
        ``row_len >= 0`` with an empty ``offsets`` for rectangular input, else ``-1``."""
        if self.row_len is not None:
            return self.n_rows, self.row_len, _NO_OFFSETS
        return self.n_rows, -1, self.row_offsets  # type: ignore[return-value]

    def row_start(self, row: int) -> int:
        """Index of the first candidate of ``row`` in the flat arrays."""
        if self.row_len is not None:
            return row * self.row_len
        return int(self.row_offsets[row])  # type: ignore[index]

    def row_lengths(self) -> np.ndarray:
        """Number of candidates of every row."""
        if self.row_len is not None:
            return np.full(self.n_rows, self.row_len, dtype=np.int64)
        return np.diff(self.row_offsets)  # type: ignore[arg-type]

    def describe_position(self, index: int) -> str:
        """'row 3 (...) candidate 2': how error messages name one entry of the flat arrays."""
        if self.row_len is not None:
            row = index // self.row_len if self.row_len else 0
        else:
            row = int(np.searchsorted(self.row_offsets, index, side="right") - 1)
        return f"{self.describe_row(row)} candidate {index - self.row_start(row)}"

    def describe_row(self, row: int) -> str:
        """'row 3' or 'row 3 (row_id='u7')': how error messages name a row."""
        if self.row_id_name == "row":
            text = f"row {row}"
            if self.user_ids is not None:
                text += f" (user_id={plain(self.user_ids[row])!r})"
            return text
        return f"row {row} ({self.row_id_name}={plain(self.row_ids[row])!r})"


def kernel_view(values: np.ndarray) -> np.ndarray:
    """A read-only view of ``values`` (no copy): the kernels read the flat arrays and never
    write them, and numba compiles a kernel once per argument type, read-only being one. Every
    batch hands the kernels read-only arrays, so writable and read-only input (a NumPy array, a
    Parquet column, a memory map) share one compiled signature."""
    view = values.view()
    view.flags.writeable = False
    return view


def narrow_labels(labels: np.ndarray) -> np.ndarray:
    """Integer labels as ``int8`` when every value fits (-128..127), else as given: the same
    values in the dtype most rows arrive in (0/1 and graded labels), so that int8, int64 and
    bool labels share the kernels' compiled signatures. A value outside int8 keeps its dtype
    (nothing is clipped); float labels are untouched."""
    if labels.dtype.kind not in "iub" or labels.dtype == np.int8:
        return labels
    if labels.size == 0:
        return labels.astype(np.int8)
    low, high = labels.min(), labels.max()
    if int(low) >= -128 and int(high) <= 127:
        return labels.astype(np.int8)
    return labels


# --------------------------------------------------------------------------- scalars
def check_k(k: object) -> int:
    """``k`` must be an integer >= 1 (bools and floats are rejected).  A ``k`` beyond a row is
    that row's length (never an overflow), so no upper bound applies here; a measure *name*
    (``nDCG@k``) is parsed with :func:`rankaudit._checks.check_cutoff`."""
    return check_positive_int(k, "k")


def check_empty_policy(empty: object) -> str:
    if empty not in EMPTY_POLICIES:
        raise ValueError(f"empty={empty!r} is not valid; choose one of {', '.join(EMPTY_POLICIES)}")
    return str(empty)


# --------------------------------------------------------------------------- arrays
def _first_non_numeric_row(values: Sequence[Sequence[object]]) -> tuple[int, object]:
    for i, row in enumerate(values):
        for x in np.asarray(row, dtype=object).reshape(-1):
            if not isinstance(x, numbers.Real):
                return i, x
    return -1, None


def kernel_numbers(values: np.ndarray, name: str, raw: object) -> np.ndarray:
    """Convert to a kernel-friendly numeric dtype without copying when possible.

    ``name`` (``"scores"`` or ``"labels"``) picks the rule and names the messages; ``raw`` is the
    input as given (``None`` for an array), searched for the first non-numeric row.
    Labels keep integer dtypes; scores go through :func:`kernel_scores`.
    """
    kind = values.dtype.kind
    if kind in "mM":  # timestamps and durations: compared exactly, as their int64 ticks
        if name == "labels":
            raise ValueError(f"labels must be numbers; got dtype {values.dtype}")
        nat = np.flatnonzero(np.isnat(values).reshape(-1))
        if len(nat):
            raise ValueError(f"{name}: value {int(nat[0])} (flat position) is missing (NaT)")
        return kernel_scores(values.view(np.int64))
    if kind == "f" or (kind in "iu" and name != "labels"):
        if name == "labels":
            if values.dtype.itemsize > 8:
                return values.astype(np.float64)
            return values.astype(np.float32) if values.dtype.itemsize < 4 else values
        return kernel_scores(values)
    if kind in "iu":
        return values
    if kind == "b":
        return values.view(np.uint8) if name == "labels" else values.astype(np.float64)
    row, value = _first_non_numeric_row(raw if raw is not None else values)
    if row < 0 and kind == "O":
        if name == "labels":
            with np.errstate(over="ignore"):
                return np.array([float(x) for x in values.reshape(-1)]).reshape(values.shape)
        return kernel_scores(values)
    raise ValueError(
        f"{name}: row {max(row, 0)} holds a non-numeric value {plain(value)!r}; {name} must be "
        f"numbers (got dtype {values.dtype})"
    )


def exact_scores(values: object, name: str = "scores") -> np.ndarray:
    """``values`` as the kernels compare them: every ``>`` and ``==`` of the input kept
    (integers beyond 2**53 and timestamps by their dense rank, never a lossy cast; see
    :mod:`rankaudit.ties.exact_values`).  The one conversion every rectangular entry point uses;
    a masked array is refused (:func:`rankaudit._checks.check_not_masked`)."""
    check_not_masked(values, name)
    arr = asarray_exact(values)
    return kernel_numbers(arr, name, values if not isinstance(values, np.ndarray) else None)


def _as_rows(values: object, name: str) -> tuple[np.ndarray | None, list[np.ndarray] | None]:
    """A 2-D array, or a list of 1-D rows when the input is ragged."""
    if values is None:
        raise ValueError(f"{name} is required")
    check_not_masked(values, name)
    try:
        arr = asarray_exact(values)
    except ValueError:  # inhomogeneous lists of lists: ragged rows
        return None, [asarray_exact(r).reshape(-1) for r in values]  # type: ignore[union-attr]
    if (
        arr.dtype == object
        and arr.ndim == 1
        and arr.size
        and all(isinstance(r, (list, tuple, np.ndarray)) for r in arr)
    ):
        return None, [asarray_exact(r).reshape(-1) for r in arr]
    if arr.ndim != 2:
        raise ValueError(
            f"{name} must be 2-D (rows, candidates); got shape {arr.shape}"
            + (" (wrap a single row as [row])" if arr.ndim == 1 else "")
        )
    return arr, None


def batch_from_arrays(
    scores: object,
    labels: object,
    *,
    user_ids: object = None,
    item_ids: object = None,
) -> Batch:
    """Check rectangular (or list-of-rows ragged) inputs and lay them out as a :class:`Batch`;
    masked arrays are refused, naming the argument (masks are not honoured)."""
    s2d, s_rows = _as_rows(scores, "scores")
    y2d, y_rows = _as_rows(labels, "labels")
    i2d, i_rows = (None, None) if item_ids is None else _as_rows(item_ids, "item_ids")

    if s2d is not None and y2d is not None and (i_rows is None):
        n_rows = s2d.shape[0]
        if y2d.shape[0] != n_rows:
            raise ValueError(
                f"shapes differ: scores has {n_rows} rows but labels has {y2d.shape[0]}; "
                f"row {min(n_rows, y2d.shape[0])} is the first without a partner"
            )
        if y2d.shape[1] != s2d.shape[1]:
            raise ValueError(
                f"shapes differ: row 0 has {s2d.shape[1]} scores but {y2d.shape[1]} labels "
                f"(scores {s2d.shape}, labels {y2d.shape})"
            )
        if i2d is not None and i2d.shape != s2d.shape:
            raise ValueError(
                f"shapes differ: item_ids has shape {i2d.shape} but scores has {s2d.shape}"
            )
        if n_rows == 0:
            raise ValueError("scores has zero rows; nothing to evaluate")
        flat_s = kernel_numbers(np.ascontiguousarray(s2d), "scores", scores).reshape(-1)
        flat_y = kernel_numbers(np.ascontiguousarray(y2d), "labels", labels).reshape(-1)
        n_cand = s2d.shape[1]
        row_len: int | None = n_cand
        offsets: np.ndarray | None = None
        flat_i = None if i2d is None else np.ascontiguousarray(i2d).reshape(-1)
    else:
        rows_s = s_rows if s_rows is not None else list(s2d)  # type: ignore[arg-type]
        rows_y = y_rows if y_rows is not None else list(y2d)  # type: ignore[arg-type]
        rows_i = None
        if item_ids is not None:
            rows_i = i_rows if i_rows is not None else list(i2d)  # type: ignore[arg-type]
        if len(rows_s) != len(rows_y):
            raise ValueError(
                f"shapes differ: scores has {len(rows_s)} rows but labels has {len(rows_y)}; "
                f"row {min(len(rows_s), len(rows_y))} is the first without a partner"
            )
        if len(rows_s) == 0:
            raise ValueError("scores has zero rows; nothing to evaluate")
        for i, (rs, ry) in enumerate(zip(rows_s, rows_y, strict=True)):
            if rs.shape != ry.shape:
                raise ValueError(
                    f"shapes differ: row {i} has {rs.size} scores but {ry.size} labels"
                )
            if rows_i is not None and (i >= len(rows_i) or rows_i[i].shape != rs.shape):
                got = rows_i[i].size if i < len(rows_i) else 0
                raise ValueError(f"shapes differ: row {i} has {rs.size} scores but {got} item_ids")
        lengths = np.fromiter((r.size for r in rows_s), dtype=np.int64, count=len(rows_s))
        offsets = np.concatenate(([0], np.cumsum(lengths))).astype(np.int64)
        n_rows = len(rows_s)
        row_len = None
        flat_s = _numeric_rows(rows_s, "scores")
        flat_y = _numeric_rows(rows_y, "labels")
        flat_i = None if rows_i is None else _concat(rows_i)

    users = None
    if user_ids is not None:
        check_not_masked(user_ids, "user_ids")
        users = np.asarray(user_ids)
        if users.ndim != 1 or users.shape[0] != n_rows:
            raise ValueError(
                f"user_ids must be 1-D with one id per row ({n_rows}); got shape {users.shape}"
            )
    return Batch(
        row_offsets=offsets,
        scores=flat_s,
        labels=flat_y,
        row_ids=np.arange(n_rows),
        row_id_name="row",
        user_ids=users,
        item_ids=flat_i,
        user_id_name=None if users is None else "user_id",
        row_len=row_len,
    )


def _numeric_rows(rows: list[np.ndarray], name: str) -> np.ndarray:
    """Ragged rows -> one flat numeric array.  Rows of mixed dtypes are converted one by one
    (a joint concatenation would round int64 beyond 2**53 to float64)."""
    if len({r.dtype for r in rows if r.size}) <= 1:
        return kernel_numbers(_concat(rows), name, rows)
    row, value = _first_non_numeric_row(rows)
    if row >= 0:
        raise ValueError(
            f"{name}: row {row} holds a non-numeric value {plain(value)!r}; {name} must be numbers"
        )
    parts = [kernel_numbers(r, name, [r]) for r in rows]
    return _concat([p.astype(np.float64) if p.dtype.kind != "f" else p for p in parts])


def _concat(rows: list[np.ndarray]) -> np.ndarray:
    non_empty = [r for r in rows if r.size]
    if not non_empty:
        return np.zeros(0, dtype=np.float64)
    return np.concatenate(non_empty)


# --------------------------------------------------------------------------- keys
def row_keys(batch: Batch, seed: int, domain: int | None = None) -> np.ndarray:
    """Per-row ``splitmix64(splitmix64(seed) ^ id64(user))`` (then ``^ domain``, mixed again).

    The user id is the row's user id, or its row position without user ids.
    """
    with np.errstate(over="ignore"):
        if batch.user_ids is None:
            users = np.arange(batch.n_rows, dtype=np.uint64)
        else:
            users = ids_to_keys(batch.user_ids, "user_ids")
        seed_key = np.uint64(splitmix64(seed & ((1 << 64) - 1)))
        keys = splitmix64_array(users ^ seed_key)
        if domain is not None:
            keys = splitmix64_array(keys ^ np.uint64(domain))
    return keys


# --------------------------------------------------------------------------- kernel status
def raise_for_status(status: int, row: int, position: int, batch: Batch) -> None:
    """Raise the ValueError that a kernel's ``(status, row, position)`` stands for."""
    if status == OK:
        return
    where = batch.describe_row(row)
    idx = batch.row_start(row) + int(position)
    if status == NONFINITE_SCORE:
        raise ValueError(
            f"scores: {where} has a non-finite score {plain(batch.scores[idx])!r} at candidate "
            f"{position}; scores must be finite (no NaN or inf)"
        )
    if status == BAD_LABEL:
        raise ValueError(
            f"labels: {where} has an invalid label {plain(batch.labels[idx])!r} at candidate "
            f"{position}; labels must be finite numbers >= 0 and < 2**53 (0 = not relevant)"
        )
    if status == DUPLICATE_ITEM:
        assert batch.item_ids is not None
        raise ValueError(
            f"{batch.item_id_name}: {where} repeats item id {plain(batch.item_ids[idx])!r} at "
            f"candidate "
            f"{position}; ties='hash' needs distinct item ids within a row"
        )
    raise RuntimeError(f"unknown kernel status {status}")  # pragma: no cover
