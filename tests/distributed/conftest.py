"""Fixtures for the Dask tests: tie-heavy ragged long-format data and a real LocalCluster."""

from __future__ import annotations

import logging

import numpy as np
import pandas as pd
import pytest


def tie_heavy_long(
    n_rows: int = 300,
    *,
    seed: int = 0,
    string_ids: bool = False,
    n_empty: int = 0,
    interleave: bool = False,
) -> pd.DataFrame:
    """Ragged rows (1..12 candidates), scores in {0, 1, 2}, graded labels 0..3, several relevant.

    Row ids are not in sorted order of first appearance; ``n_empty`` rows have no relevant
    item; ``interleave`` permutes all lines, so every row is scattered over the frame.
    """
    rng = np.random.default_rng(seed)
    lengths = rng.integers(1, 13, size=n_rows)
    row_ids = rng.permutation(10 * n_rows)[:n_rows]
    row = np.repeat(np.arange(n_rows), lengths)
    offsets = np.concatenate(([0], np.cumsum(lengths)[:-1]))
    position = np.arange(len(row)) - offsets[row]
    labels = np.where(rng.random(len(row)) < 0.3, rng.integers(1, 4, size=len(row)), 0)
    labels[offsets + rng.integers(0, lengths)] = rng.integers(1, 4, size=n_rows)
    for r in range(n_empty):
        labels[offsets[r] : offsets[r] + lengths[r]] = 0
    frame = pd.DataFrame(
        {
            "row_id": row_ids[row],
            "item_id": rng.integers(0, 50, size=n_rows)[row] * 100 + position,
            "score": rng.integers(0, 3, size=len(row)).astype(np.float64),
            "label": labels,
            "user": (row_ids[row] // 3),
        }
    )
    if string_ids:
        frame["row_id"] = "q" + frame["row_id"].astype(str)
        frame["item_id"] = "doc-" + frame["item_id"].astype(str)
        frame["user"] = "user-" + frame["user"].astype(str)
    if interleave:
        frame = frame.iloc[rng.permutation(len(frame))].reset_index(drop=True)
    return frame


@pytest.fixture(scope="module")
def dask_client():
    """A real two-process LocalCluster (one per test module), closed afterwards."""
    distributed = pytest.importorskip("distributed")
    cluster = distributed.LocalCluster(
        n_workers=2,
        threads_per_worker=1,
        processes=True,
        dashboard_address=None,
        silence_logs=logging.ERROR,
    )
    client = distributed.Client(cluster)
    yield client
    client.close()
    cluster.close()
