"""Making rows whole per partition (rankaudit.distributed.partitioning), on the sync scheduler.

Partitions are cut at random places, some empty, and rows may span several of
them; every mode must hand each row to exactly one partition with its lines in
frame order.
"""

from __future__ import annotations

import dask
import dask.dataframe as dd
import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rankaudit.distributed.partitioning import analyse_rows, check_rows_whole, rows_whole


def _frame(lengths: list[int], *, scatter_seed: int | None = None) -> pd.DataFrame:
    row = np.repeat(np.arange(len(lengths)) * 7 + 3, lengths)
    frame = pd.DataFrame({"row_id": row, "line": np.arange(len(row))})
    if scatter_seed is not None:
        order = np.random.default_rng(scatter_seed).permutation(len(frame))
        frame = frame.iloc[order].reset_index(drop=True)
        frame["line"] = np.arange(len(frame))
    return frame


def _cut(frame: pd.DataFrame, cuts: list[int]):
    bounds = [0, *sorted(cuts), len(frame)]
    pieces = [frame.iloc[a:b] for a, b in zip(bounds[:-1], bounds[1:], strict=True)]
    return dd.from_delayed([dask.delayed(p) for p in pieces], meta=frame.iloc[:0])


def _assert_whole_in_order(result, frame: pd.DataFrame) -> None:
    parts = [p for p in dask.compute(*result.to_delayed(), scheduler="sync")]
    seen: dict[int, int] = {}
    for number, part in enumerate(parts):
        for row_id, lines in part.groupby("row_id", sort=False)["line"]:
            assert row_id not in seen, f"row {row_id} in partitions {seen[row_id]} and {number}"
            seen[row_id] = number
            expected = frame.loc[frame["row_id"] == row_id, "line"].to_numpy()
            np.testing.assert_array_equal(lines.to_numpy(), expected)
    assert sorted(seen) == sorted(frame["row_id"].unique())
    assert sum(len(p) for p in parts) == len(frame)


lengths_st = st.lists(st.integers(1, 9), min_size=1, max_size=12)


@settings(max_examples=25, deadline=None)
@given(lengths_st, st.data(), st.sampled_from(["auto", "shuffle"]), st.booleans())
def test_every_row_whole_and_in_frame_order(lengths, data, mode, scatter):
    frame = _frame(lengths, scatter_seed=7 if scatter else None)
    cuts = data.draw(st.lists(st.integers(0, len(frame)), max_size=6))
    with dask.config.set(scheduler="sync"):
        _assert_whole_in_order(rows_whole(_cut(frame, cuts), "row_id", mode), frame)


def test_layout_analysis():
    frame = _frame([3, 20, 2, 4])  # the 20-line row spans several partitions
    with dask.config.set(scheduler="sync"):
        layout = analyse_rows(_cut(frame, [2, 8, 12, 12, 16, 27]), "row_id")
        assert layout.contiguous and not layout.whole
        assert layout.continued == (False, True, True, False, True, True, True)
        assert analyse_rows(_cut(frame, [3, 23]), "row_id").whole
        assert not analyse_rows(
            _cut(_frame([3, 20, 2, 4], scatter_seed=1), [10]), "row_id"
        ).contiguous
        # a row id that comes back later in the frame is not contiguous
        back = pd.concat([frame, frame.iloc[:2]], ignore_index=True)
        assert not analyse_rows(_cut(back, []), "row_id").contiguous


def test_check_mode_names_the_problem():
    frame = _frame([3, 5, 4])
    with dask.config.set(scheduler="sync"):
        check_rows_whole(_cut(frame, [3, 8]), "row_id")
        with pytest.raises(ValueError, match=r"row 10 continues .* into partition 1"):
            check_rows_whole(_cut(frame, [5]), "row_id")
        with pytest.raises(ValueError, match="more than one block"):
            check_rows_whole(_cut(_frame([3, 5, 4], scatter_seed=2), [6]), "row_id")
        with pytest.raises(ValueError, match="row_partitioning='sort' is not valid"):
            rows_whole(_cut(frame, []), "row_id", "sort")
        with pytest.raises(ValueError, match="LongColumns.row='query'"):
            rows_whole(_cut(frame, []), "query")


@pytest.mark.parametrize(("cuts", "interleave"), [([3, 9], False), ([5, 20], True)])
def test_row_id_as_index_with_unknown_divisions(cuts, interleave):
    import rankaudit
    import rankaudit.distributed as rd
    from tests.distributed.conftest import tie_heavy_long

    data = tie_heavy_long(6, seed=9, interleave=interleave)
    indexed = _cut(data.set_index("row_id"), cuts)
    assert not indexed.known_divisions
    with dask.config.set(scheduler="sync"):
        result = rd.evaluate(indexed, ties="hash", k=3, progress=False)
        got = result.rows.compute().sort_values("row_id").reset_index(drop=True)
    local = rankaudit.evaluate(data, ties="hash", k=3).sort_values("row_id").reset_index(drop=True)
    pd.testing.assert_frame_equal(got, local, check_exact=True)
