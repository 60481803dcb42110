"""In-memory runs and qrels: the long format every reader returns.

A :class:`Run` holds one line per retrieved document: query id, document id (``docno``)
and score, all in file order.  A :class:`Qrels` holds one line per judgment: query id,
docno and an integer relevance label (negative labels allowed, as in trec_eval, where
they mean "in the pool but not judged": never relevant, gain 0).

Ids are kept as strings, exactly as written (``"01"`` and ``"1"`` are different queries,
as in trec_eval, which compares ids with ``strcmp``).  Scores are IEEE doubles.

**What counts as a tie.**  Two documents of one query are tied exactly when their
parsed scores are equal as doubles (``==``), the comparison trec_eval makes after
``atof``.  So ``"0.1"`` and ``"0.10"`` tie, ``"0.1"`` and ``"0.1000000000000000056"``
tie (the same double), while ``"0.30000000000000004"`` and ``"0.3"`` do not.  No
tolerance is applied: a score rounded when it was written is a tie the rounding made.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from rankaudit._checks import LABEL_RANGE, check_not_masked, first_label_out_of_range

__all__ = ["Qrels", "Run", "distinct_ids"]


def _as_string_array(values: object, name: str) -> pa.Array:
    arr = values if isinstance(values, (pa.Array, pa.ChunkedArray)) else pa.array(values)
    if isinstance(arr, pa.ChunkedArray):
        arr = arr.combine_chunks()
    if pa.types.is_dictionary(arr.type):
        arr = arr.cast(arr.type.value_type)
    if pa.types.is_integer(arr.type):
        arr = arr.cast(pa.string())
    if pa.types.is_large_string(arr.type):
        arr = arr.cast(pa.string())
    if not pa.types.is_string(arr.type):
        raise ValueError(f"{name} must be strings (or integers); got {arr.type}")
    if arr.null_count:
        row = int(np.flatnonzero(np.asarray(arr.is_null()))[0])
        raise ValueError(f"{name} has a missing value at row {row}")
    return arr


def distinct_ids(ids: pa.Array) -> pa.Array:
    """The distinct values of an id column (plain or dictionary-encoded strings), as strings."""
    if pa.types.is_dictionary(ids.type):
        used = np.bincount(ids.indices.to_numpy(), minlength=len(ids.dictionary)) > 0
        return pc.unique(ids.dictionary.filter(pa.array(used)))
    return pc.unique(ids)


def _location(table: Run | Qrels, row: int) -> tuple[str, int | None, str]:
    if not table.from_file:
        return table.source, None, f"row {row}"
    line = int(table.lines[row]) if table.lines is not None else row + 1
    return table.source, line, f"line {line}"


def _exact_doubles(score: object, source: str) -> np.ndarray:
    """Scores as IEEE doubles, refusing any value a double cannot hold exactly (integers beyond
    2**53, timestamps, long doubles): a rounded score would make a tie the data do not have."""
    raw = np.asarray(score)
    if raw.dtype.kind in "mM":
        raise ValueError(
            f"{source}: scores are {raw.dtype} values; a run holds scores as doubles, which "
            "cannot keep nanosecond timestamps apart: convert them to numbers first (for "
            "example seconds as float)"
        )
    if raw.dtype.kind not in "fiub" and raw.dtype.kind != "O":
        raise ValueError(f"{source}: scores must be numbers; got dtype {raw.dtype}")
    try:
        with np.errstate(over="ignore", invalid="ignore"):
            s = np.ascontiguousarray(raw.astype(np.float64)).reshape(-1)
    except (TypeError, ValueError, OverflowError):
        raise ValueError(f"{source}: scores must be numbers") from None
    flat = raw.reshape(-1)
    with np.errstate(over="ignore", invalid="ignore"):
        if raw.dtype.kind == "O":  # Python ints and floats compare with a double exactly
            lossy = np.array([float(x) != x for x in flat.tolist()], dtype=bool)
        elif raw.dtype.kind == "b":
            lossy = np.zeros(len(flat), dtype=bool)
        else:  # a round trip that does not give the value back lost it
            lossy = s.astype(raw.dtype) != flat
            bound = {"i": 2.0**63, "u": 2.0**64}.get(raw.dtype.kind)
            if bound is not None:  # rounded up past the integer type: no round trip to trust
                lossy |= np.abs(s) >= bound
        lossy &= np.isfinite(s)  # a non-finite score gets its own message
    bad = np.flatnonzero(lossy)
    if len(bad):
        row = int(bad[0])
        raise ValueError(
            f"{source}: score of row {row} ({flat[row]}) cannot be held exactly as a "
            "double (runs compare scores as doubles, as trec_eval)"
        )
    return s


@dataclass(frozen=True)
class Run:
    """A ranking run in long format (file order kept).

    Attributes
    ----------
    query, docno
        ``pyarrow`` string arrays, one entry per line; the TREC readers return them
        dictionary-encoded (int32 codes into the distinct ids), which every consumer accepts.
    score
        ``float64`` numpy array, finite.
    source
        Where it came from (a file name, or a description), for messages.
    lines
        The 1-based file line of every row (``None``: row ``i`` is line ``i + 1``).
    from_file
        Whether rows are named by file line (True) or by row (False) in messages.
    sha256
        Hex SHA-256 of the bytes the reader read, when it read a file or a pipe.
    """

    query: pa.Array
    docno: pa.Array
    score: np.ndarray
    source: str = "<run>"
    lines: np.ndarray | None = None
    from_file: bool = False
    sha256: str | None = None

    def location(self, row: int) -> tuple[str, int | None, str]:
        """``(source, line, label)`` of ``row``: the 1-based file line for a file, else the row."""
        return _location(self, row)

    @classmethod
    def from_arrays(cls, query: object, docno: object, score: object, source: str = "<run>") -> Run:
        """Build a run from three equal-length sequences (checked: strings or ints, finite
        scores; a masked array is refused, masks are not honoured)."""
        for name, value in (("query", query), ("docno", docno), ("score", score)):
            check_not_masked(value, name)
        q = _as_string_array(query, "query")
        d = _as_string_array(docno, "docno")
        s = _exact_doubles(score, source)
        if not (len(q) == len(d) == len(s)):
            raise ValueError(
                f"query, docno and score differ in length: {len(q)}, {len(d)}, {len(s)}"
            )
        bad = np.flatnonzero(~np.isfinite(s))
        if len(bad):
            raise ValueError(f"{source}: score of row {int(bad[0])} is not finite ({s[bad[0]]})")
        return cls(q, d, s, source)

    def __len__(self) -> int:
        return len(self.score)

    def to_pandas(self):
        """The run as a DataFrame with columns ``query, docno, score``."""
        import pandas as pd

        return pd.DataFrame(
            {
                "query": self.query.to_numpy(zero_copy_only=False),
                "docno": self.docno.to_numpy(zero_copy_only=False),
                "score": self.score,
            }
        )


@dataclass(frozen=True)
class Qrels:
    """Relevance judgments in long format: ``query``, ``docno`` (string arrays, plain or
    dictionary-encoded) and
    ``relevance`` (``int64`` numpy array; negative = judged unjudgeable, as trec_eval)."""

    query: pa.Array
    docno: pa.Array
    relevance: np.ndarray
    source: str = "<qrels>"
    lines: np.ndarray | None = None
    from_file: bool = False
    sha256: str | None = None

    def location(self, row: int) -> tuple[str, int | None, str]:
        """``(source, line, label)`` of ``row``: the 1-based file line for a file, else the row."""
        return _location(self, row)

    @classmethod
    def from_arrays(
        cls, query: object, docno: object, relevance: object, source: str = "<qrels>"
    ) -> Qrels:
        """Build qrels from three equal-length sequences (labels must be integers; a masked
        array is refused, masks are not honoured)."""
        for name, value in (("query", query), ("docno", docno), ("relevance", relevance)):
            check_not_masked(value, name)
        q = _as_string_array(query, "query")
        d = _as_string_array(docno, "docno")
        raw = np.asarray(relevance)
        if raw.dtype.kind == "f":
            if not np.all(np.isfinite(raw)) or np.any(raw != np.round(raw)):
                row = int(np.flatnonzero(~np.isfinite(raw) | (raw != np.round(raw)))[0])
                raise ValueError(f"{source}: relevance of row {row} is not an integer ({raw[row]})")
        elif raw.dtype.kind not in "iub":
            raise ValueError(f"{source}: relevance must be integers; got dtype {raw.dtype}")
        bad_row = first_label_out_of_range(raw)
        if bad_row >= 0:
            raise ValueError(
                f"{source}: relevance of row {bad_row} is out of range ({raw[bad_row]}; "
                f"{LABEL_RANGE})"
            )
        r = np.ascontiguousarray(raw.astype(np.int64))
        if not (len(q) == len(d) == len(r)):
            raise ValueError(
                f"query, docno and relevance differ in length: {len(q)}, {len(d)}, {len(r)}"
            )
        return cls(q, d, r, source)

    def __len__(self) -> int:
        return len(self.relevance)

    def to_pandas(self):
        """The qrels as a DataFrame with columns ``query, docno, relevance``."""
        import pandas as pd

        return pd.DataFrame(
            {
                "query": self.query.to_numpy(zero_copy_only=False),
                "docno": self.docno.to_numpy(zero_copy_only=False),
                "relevance": self.relevance,
            }
        )
