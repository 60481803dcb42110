"""The synthetic long-format table (rankaudit.distributed.synthetic)."""

from __future__ import annotations

import pandas as pd
import pytest

from rankaudit.distributed.synthetic import (
    SyntheticTable,
    synthetic_long_dask,
    synthetic_long_table,
)
from rankbook.throughput import synthetic_source


def test_pandas_and_dask_tables_are_the_same_lines():
    table = SyntheticTable(2_500, min_candidates=3, block_rows=1_000, seed=4)
    frame = synthetic_long_table(table)
    lazy = synthetic_long_dask(table)
    assert lazy.npartitions == 3
    pd.testing.assert_frame_equal(lazy.compute(scheduler="sync").reset_index(drop=True), frame)
    straddled = synthetic_long_dask(table, straddle_lines=45)
    parts = straddled.to_delayed()
    first = parts[1].compute(scheduler="sync")["row_id"]
    assert first.iloc[0] < 1_000 <= first.iloc[-1]  # partition 1 starts inside a row of block 0
    pd.testing.assert_frame_equal(straddled.compute(scheduler="sync").reset_index(drop=True), frame)


def test_shape_of_the_table():
    table = SyntheticTable(1_200, n_candidates=31, score_levels=4, block_rows=500)
    frame = synthetic_long_table(table)
    assert len(frame) == 1_200 * 31
    per_row = frame.groupby("row_id")
    assert (per_row["label"].sum() == 1).all()
    assert (per_row["item_id"].nunique() == 31).all()
    assert set(frame["score"].unique()) <= {0.0, 1.0, 2.0, 3.0}
    ragged = synthetic_long_table(SyntheticTable(500, n_candidates=9, min_candidates=2))
    sizes = ragged.groupby("row_id").size()
    assert sizes.min() >= 2 and sizes.max() <= 9 and sizes.nunique() > 1
    continuous = synthetic_long_table(SyntheticTable(100, score_levels=0))
    assert continuous["score"].nunique() > 3000


def test_provenance_and_bad_parameters():
    source = synthetic_source(SyntheticTable(10))
    assert source.kind == "simulated"
    assert source.generator == "rankaudit.distributed.synthetic.synthetic_long_table"
    for bad in (dict(n_rows=0), dict(n_rows=5, score_levels=1), dict(n_rows=5, min_candidates=40)):
        with pytest.raises(ValueError):
            SyntheticTable(**bad)
