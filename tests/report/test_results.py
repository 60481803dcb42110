from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest

from rankaudit.data import DataSource
from rankaudit.report import read_results, write_results

SOURCE = DataSource("Toy", "simulated", "1", generator="tests.toy")


@pytest.fixture(autouse=True)
def _results_in_tmp(tmp_path, monkeypatch):
    monkeypatch.setenv("RANKAUDIT_RESULTS_DIR", str(tmp_path))


def test_round_trip_is_full_precision_and_byte_identical(tmp_path):
    results = {"x": np.float32(1) / 3, "table": pd.DataFrame({"a": [1, 2], "b": [0.1, 1 / 3]})}
    first = write_results("t", params={"k": 10}, data_source=SOURCE, results=results).read_bytes()
    second = write_results("t", params={"k": 10}, data_source=SOURCE, results=results).read_bytes()
    assert first == second
    record = read_results("t", tmp_path)
    assert record["table"][1]["b"] == 1 / 3
    assert record["data_source"]["kind"] == "simulated"
    assert record["rankaudit_version"]
    assert json.loads(first) == record


@pytest.mark.parametrize("bad", [float("nan"), np.inf, [1.0, np.nan]])
def test_non_finite_values_are_refused(bad):
    with pytest.raises(ValueError, match="finite"):
        write_results("t", params={}, data_source=SOURCE, results={"x": bad})


def test_keys_must_be_snake_case_and_not_reserved():
    with pytest.raises(ValueError, match="snake_case"):
        write_results("t", params={}, data_source=SOURCE, results={"NDCG": 1.0})
    with pytest.raises(ValueError, match="reserved"):
        write_results("t", params={}, data_source=SOURCE, results={"params": 1})


def test_simulated_source_must_name_its_generator():
    with pytest.raises(ValueError, match="generator"):
        DataSource("x", "simulated", "1")
    with pytest.raises(ValueError, match="kind"):
        DataSource("x", "made-up", "1")
