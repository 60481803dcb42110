"""Row-level files of an audit: the arrays every aggregate is computed from, as parquet.

A chapter saves its candidate ids, labels and scores next to its results JSON
(:func:`save_rows`); :func:`load_rows` reads them back bit-identically, so a reader can
recompute each number of a results file exactly (:mod:`rankbook.audit.chapter`).
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq

from rankbook.data.candidates import CandidateRows
from rankbook.paths import results_dir

__all__ = ["load_rows", "rows_fingerprint", "rows_path", "save_rows"]


def rows_path(stem: str, directory: Path | None = None) -> Path:
    """``<results_dir>/<stem>_rows.parquet``."""
    return (directory or results_dir()) / f"{stem}_rows.parquet"


def save_rows(
    stem: str,
    rows: CandidateRows,
    scores: Mapping[str, np.ndarray],
    directory: Path | None = None,
) -> Path:
    """Save candidate ids, labels and every score array (long format, float64) as parquet, with
    the candidate policy in the file's key-value metadata."""
    frame = rows.to_frame(dict(scores))
    table = pa.Table.from_pandas(frame, preserve_index=False)
    meta = dict(table.schema.metadata or {})
    meta[b"rankaudit_candidates"] = json.dumps(
        {"seed": rows.seed, "policy": rows.policy}, sort_keys=True
    ).encode()
    path = rows_path(stem, directory)
    pq.write_table(table.replace_schema_metadata(meta), path)
    return path


def load_rows(path: str | Path) -> tuple[CandidateRows, dict[str, np.ndarray]]:
    """Read :func:`save_rows` output back: ``(rows, scores)``, bit-identical arrays."""
    table = pq.read_table(path)
    info = json.loads((table.schema.metadata or {}).get(b"rankaudit_candidates", b"{}") or b"{}")
    frame = table.to_pandas()
    for column in ("user_id", "item_id"):
        if frame[column].dtype.kind not in "iu":
            frame[column] = frame[column].astype(object)
    return CandidateRows.from_frame(frame, seed=int(info.get("seed", 0)), policy=info.get("policy"))


def rows_fingerprint(rows: CandidateRows, scores: Mapping[str, np.ndarray] | None = None) -> str:
    """A BLAKE2b digest of the candidate ids (as text, so string and integer ids of the same
    values agree), the labels and, when given, the named score arrays (sorted by name): two
    audits hold the same rows and scores exactly when their fingerprints are equal."""
    h = hashlib.blake2b(digest_size=16)
    for ids in (rows.user_ids, rows.item_ids):
        h.update("\x1f".join(map(str, np.asarray(ids).ravel().tolist())).encode())
    h.update(np.ascontiguousarray(rows.labels, dtype=np.int64).tobytes())
    for name in sorted(scores or {}):
        h.update(name.encode())
        h.update(np.ascontiguousarray(scores[name], dtype=np.float64).tobytes())
    return h.hexdigest()
