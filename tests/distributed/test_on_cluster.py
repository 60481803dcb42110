"""rankaudit.distributed on a real LocalCluster (2 worker processes) against one machine.

Per-row results must be bit-for-bit those of ``rankaudit.evaluate`` /
``rankaudit.tie_prevalence`` on ``frame.compute()``, for every tie rule, on
tie-heavy ragged data whose rows straddle partitions.
"""

from __future__ import annotations

import dask.dataframe as dd
import numpy as np
import pandas as pd
import pytest

import rankaudit
import rankaudit.distributed as rd
from rankaudit.cli import main
from tests.distributed.conftest import tie_heavy_long

pytestmark = pytest.mark.usefixtures("dask_client")

RULES = [
    ("input_order", {}),
    ("hash", {}),
    ("random", {}),
    ("random", {"n_repeats": 4}),
    ("expected", {}),
    ("expected", {"return_variance": True}),
    ("pessimistic", {}),
    ("optimistic", {}),
]


def _sorted(frame: pd.DataFrame, row_col: str = "row_id") -> pd.DataFrame:
    return frame.sort_values(row_col, kind="stable").reset_index(drop=True)


def _assert_same_as_local(result, local: pd.DataFrame, row_col: str = "row_id") -> None:
    got = result.rows.compute()
    pd.testing.assert_frame_equal(_sorted(got, row_col), _sorted(local, row_col), check_exact=True)
    assert result.n_rows == len(local)
    for column, mean in result.means.items():
        assert mean == rd.exact_mean(local[column])
        assert mean == pytest.approx(local[column].mean(), rel=1e-14, abs=1e-15)


@pytest.fixture(scope="module")
def contiguous() -> pd.DataFrame:
    return tie_heavy_long(300, seed=1)


@pytest.fixture(scope="module")
def interleaved() -> pd.DataFrame:
    return tie_heavy_long(300, seed=2, interleave=True)


def test_rows_really_span_partitions(contiguous, interleaved):
    with pytest.raises(ValueError, match="continues from an earlier partition"):
        rd.check_rows_whole(dd.from_pandas(contiguous, npartitions=7), "row_id")
    with pytest.raises(ValueError, match="more than one block of consecutive lines"):
        rd.check_rows_whole(dd.from_pandas(interleaved, npartitions=5), "row_id")


# contiguous rows straddling boundaries -> "auto" moves only those lines; scattered rows ->
# "auto" shuffles; "shuffle" forces the full shuffle on contiguous rows too
CASES = [("interleaved", "auto", ties, extra) for ties, extra in RULES] + [
    ("contiguous", "auto", "input_order", {}),
    ("contiguous", "auto", "random", {}),
    ("contiguous", "shuffle", "input_order", {}),
]


@pytest.mark.parametrize(("layout", "how", "ties", "extra"), CASES)
def test_identical_to_one_machine(request, layout, how, ties, extra):
    data = request.getfixturevalue(layout)
    frame = dd.from_pandas(data, npartitions=7 if layout == "contiguous" else 5)
    result = rd.evaluate(
        frame, k=5, ties=ties, seed=11, row_partitioning=how, progress=False, **extra
    )
    local = rankaudit.evaluate(data, k=5, ties=ties, seed=11, **extra)
    _assert_same_as_local(result, local)


def test_partitioning_does_not_matter_for_seeded_rules(contiguous):
    results = [
        rd.evaluate(
            dd.from_pandas(contiguous, npartitions=p), ties="random", seed=5, progress=False
        )
        for p in (2, 8)
    ]
    pd.testing.assert_frame_equal(
        _sorted(results[0].rows.compute()), _sorted(results[1].rows.compute()), check_exact=True
    )
    pd.testing.assert_series_equal(results[0].means, results[1].means, check_exact=True)


def test_string_ids_and_user_column():
    data = tie_heavy_long(200, seed=3, string_ids=True, interleave=True)
    frame = dd.from_pandas(data, npartitions=4)
    by_user = rankaudit.LongColumns(user="user")
    for ties in ("hash", "random"):
        result = rd.evaluate(frame, k=3, ties=ties, seed=2, columns=by_user, progress=False)
        local = rankaudit.evaluate(data, k=3, ties=ties, seed=2, columns=by_user)
        _assert_same_as_local(result, local)


def test_rows_whole_by_construction_check_or_index():
    table = rd.SyntheticTable(3_000, min_candidates=2, block_rows=700)
    frame = rd.synthetic_long_dask(table)
    local = rankaudit.evaluate(rd.synthetic_long_table(table), ties="hash", seed=1)
    checked = rd.evaluate(frame, ties="hash", seed=1, row_partitioning="check", progress=False)
    _assert_same_as_local(checked, local)
    indexed = frame.set_index("row_id", sorted=True)  # known divisions: no shuffle needed
    by_index = rd.evaluate(indexed, ties="hash", seed=1, progress=False)
    _assert_same_as_local(by_index, local)


def test_check_refuses_split_rows(contiguous):
    with pytest.raises(ValueError, match="row_partitioning='auto'"):
        rd.evaluate(dd.from_pandas(contiguous, npartitions=7), row_partitioning="check")


def test_empty_rows_policies():
    data = tie_heavy_long(120, seed=4, n_empty=9, interleave=True)
    frame = dd.from_pandas(data, npartitions=4)
    for empty in ("zero", "drop"):
        result = rd.evaluate(frame, ties="expected", empty=empty, progress=False)
        local = rankaudit.evaluate(data, ties="expected", empty=empty)
        _assert_same_as_local(result, local)
        assert result.n_rows == (120 if empty == "zero" else 111)
    with pytest.raises(ValueError, match="no relevant item"):
        rd.evaluate(frame, ties="expected", progress=False)


def test_bad_input_is_reported_from_the_workers(contiguous):
    bad = contiguous.copy()
    bad.loc[50, "label"] = -1
    with pytest.raises(ValueError, match=r"row_id=.*invalid label.*Dask partition"):
        rd.evaluate(dd.from_pandas(bad, npartitions=3), progress=False)
    frame = dd.from_pandas(contiguous, npartitions=3)
    with pytest.raises(ValueError, match="valid rules are"):
        rd.evaluate(frame, ties="first")
    with pytest.raises(ValueError, match="LongColumns.score='points'"):
        rd.evaluate(frame, columns=rankaudit.LongColumns(score="points"))
    with pytest.raises(ValueError, match="row_partitioning"):
        rd.evaluate(frame, row_partitioning="sort")
    with pytest.raises(ValueError, match="no rows"):
        rd.evaluate(dd.from_pandas(contiguous.iloc[:0], npartitions=1), progress=False)


def test_paper_worked_case():
    data = pd.DataFrame(
        {"row_id": 0, "item_id": np.arange(31), "score": 0.0, "label": (np.arange(31) == 0) * 1}
    )
    frame = dd.from_pandas(data, npartitions=3)
    expected = rd.evaluate(frame, ties="expected", progress=False).means
    assert expected["Success@10"] == pytest.approx(10 / 31, abs=1e-15)
    assert expected["nDCG@10"] == pytest.approx(0.1466, abs=5e-5)


@pytest.mark.parametrize("layout", ["contiguous", "interleaved"])
def test_tie_prevalence_identical(request, layout):
    data = request.getfixturevalue(layout)
    result = rd.tie_prevalence(dd.from_pandas(data, npartitions=6), k=4, progress=False)
    local = rankaudit.tie_prevalence(data, k=4)
    pd.testing.assert_frame_equal(
        _sorted(result.rows.compute()), _sorted(local.rows), check_exact=True
    )
    assert result.summary.to_dict() == local.summary.to_dict()
    assert list(result.summary.index) == list(local.summary.index)


def test_command_line_on_the_cluster(dask_client, capsys, tmp_path):
    data = tie_heavy_long(150, seed=6)
    path = tmp_path / "log.parquet"
    data.to_parquet(path)
    out_dir = tmp_path / "per_row"
    code = main(
        [
            "rows",
            str(path),
            "--scheduler",
            dask_client.scheduler.address,
            "--ties",
            "hash",
            "--k",
            "5",
            "--tie-flags",
            "--rows-dir",
            str(out_dir),
        ]
    )
    assert code == 0
    printed = capsys.readouterr().out
    local = rankaudit.evaluate(data, k=5, ties="hash")
    assert f"{len(local):,} rows, ties='hash', k=5" in printed
    assert "frac_boundary_tie" in printed
    written = pd.read_parquet(out_dir / "hash")
    pd.testing.assert_frame_equal(_sorted(written), _sorted(local), check_exact=True)
