"""Row-level reproducibility: every aggregate of an audit chapter's results JSON is recomputed
from its saved parquet arrays and must match exactly (no tolerance)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from rankbook.audit import load_rows, recompute_results, rows_path, run_audit_chapter
from rankbook.report import read_results, write_results

#: row-bootstrap resamples: the recomputation replays them from the stored spec, so a few
#: suffice to check that every aggregate comes back to the bit (the chapters use 1,000)
N_BOOT = 50


@pytest.fixture
def results_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("RANKAUDIT_RESULTS_DIR", str(tmp_path))
    return tmp_path


def _assert_recomputed_equal(stem: str, directory: Path) -> int:
    stored = read_results(stem, directory)
    again = recompute_results(stem, directory)
    checked = 0
    for key, value in again.items():
        assert stored[key] == value, f"{stem}: {key} differs after recomputation from parquet"
        checked += 1
    return checked


@pytest.mark.real_data
def test_movielens_chapter_aggregates_recompute_exactly(results_dir: Path) -> None:
    stem = "05_movielens_audit"
    params = dict(data_dir=None, n_users=80, n_negatives=30, seed=42, k=10, n_hash_seeds=4)
    run, results = run_audit_chapter(
        stem, "movielens", data_dir=None, n_rows=80, n_negatives=30, seed=42, k=10, n_hash_seeds=4,
        n_boot=N_BOOT,
    )
    write_results(stem, params=params, data_source=run.source, results=results, checks=[])
    assert _assert_recomputed_equal(stem, results_dir) >= 5
    stored = read_results(stem, results_dir)
    assert len(stored["table2"]) == 5 * 7 and len(stored["prevalence"]) == 5
    rows, scores = load_rows(rows_path(stem, results_dir))
    np.testing.assert_array_equal(rows.item_ids, run.rows.item_ids)
    for name, s in run.scores.items():
        np.testing.assert_array_equal(scores[name], s)


def test_amazon_chapter_aggregates_recompute_exactly(
    results_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import rankbook.audit.chapter as audit

    small = dict(n_users=2500, n_items=600, n_stores=100, seed=1)
    original = audit.prepare_audit
    monkeypatch.setattr(
        audit, "prepare_audit", lambda *a, **kw: original(*a, **{**kw, "simulate": small})
    )
    stem = "06_amazon_audit"
    run, results = audit.run_audit_chapter(
        stem, "amazon", data_dir=None, n_rows=60, n_negatives=30, seed=42, k=10, n_hash_seeds=4,
        n_boot=N_BOOT,
    )
    assert run.source.kind == "simulated"
    write_results(stem, params={"n_rows": 60}, data_source=run.source, results=results, checks=[])
    assert _assert_recomputed_equal(stem, results_dir) >= 5
    rows, _ = load_rows(rows_path(stem, results_dir))
    assert rows.item_ids.dtype == object and str(rows.item_ids[0, 0]).startswith("B0")


@pytest.mark.real_data
def test_table3_chapter_aggregates_recompute_exactly(results_dir: Path) -> None:
    stem = "07_hash_seeds_vs_expectation"
    run, results = run_audit_chapter(
        stem,
        "movielens",
        table="table3",
        score="overlap",
        data_dir=None,
        n_rows=60,
        n_negatives=30,
        seed=42,
        k=10,
        n_hash_seeds=5,
        n_permutations=3,
        n_boot=N_BOOT,
    )
    write_results(stem, params={"n_rows": 60}, data_source=run.source, results=results, checks=[])
    assert _assert_recomputed_equal(stem, results_dir) >= 5
    assert read_results(stem, results_dir)["table3"]["n_seeds"] == 5


def test_tampered_parquet_is_detected(results_dir: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import pyarrow.parquet as pq

    import rankbook.audit.chapter as audit

    small = dict(n_users=2500, n_items=600, n_stores=100, seed=1)
    original = audit.prepare_audit
    monkeypatch.setattr(
        audit, "prepare_audit", lambda *a, **kw: original(*a, **{**kw, "simulate": small})
    )
    stem = "06_amazon_audit"
    run, results = audit.run_audit_chapter(
        stem, "amazon", data_dir=None, n_rows=40, n_negatives=30, seed=42, k=10, n_hash_seeds=3,
        n_boot=N_BOOT,
    )
    write_results(stem, params={"n_rows": 40}, data_source=run.source, results=results, checks=[])
    path = rows_path(stem, results_dir)
    table = pq.read_table(path)
    frame = table.to_pandas()
    frame.loc[frame["position"] == 0, "score_overlap"] += 100.0  # relevant item now always on top
    import pyarrow as pa

    pq.write_table(
        pa.Table.from_pandas(frame, preserve_index=False).replace_schema_metadata(
            table.schema.metadata
        ),
        path,
    )
    with pytest.raises(AssertionError, match="differs"):
        _assert_recomputed_equal(stem, results_dir)
