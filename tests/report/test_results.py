from __future__ import annotations

import json
import os
import subprocess
import sys

import numba
import numpy as np
import pandas as pd
import pytest

from rankbook.data import DataSource
from rankbook.ranking.lambdamart import LambdaMARTConfig
from rankbook.report import read_results, write_results
from rankbook.report.environment import hardware_record

SOURCE = DataSource("Toy", "simulated", "1", generator="tests.toy")


@pytest.fixture(autouse=True)
def _results_in_tmp(tmp_path, monkeypatch):
    monkeypatch.setenv("RANKAUDIT_RESULTS_DIR", str(tmp_path))


def test_round_trip_is_full_precision_and_byte_identical(tmp_path):
    results = {"x": np.float32(1) / 3, "table": pd.DataFrame({"a": [1, 2], "b": [0.1, 1 / 3]})}
    first = write_results(
        "t", params={"k": 10}, data_source=SOURCE, results=results, checks=[]
    ).read_bytes()
    second = write_results(
        "t", params={"k": 10}, data_source=SOURCE, results=results, checks=[]
    ).read_bytes()
    assert first == second
    record = read_results("t", tmp_path)
    assert record["table"][1]["b"] == 1 / 3
    assert record["data_source"]["kind"] == "simulated"
    assert record["rankaudit_version"]
    assert json.loads(first) == record


@pytest.mark.parametrize("bad", [float("nan"), np.inf, [1.0, np.nan]])
def test_non_finite_values_are_refused(bad):
    with pytest.raises(ValueError, match="finite"):
        write_results("t", params={}, data_source=SOURCE, results={"x": bad}, checks=[])


def test_keys_must_be_snake_case_and_not_reserved():
    with pytest.raises(ValueError, match="snake_case"):
        write_results("t", params={}, data_source=SOURCE, results={"NDCG": 1.0}, checks=[])
    with pytest.raises(ValueError, match="params"):
        write_results("t", params={}, data_source=SOURCE, results={"params": 1}, checks=[])


def test_a_pages_results_may_carry_its_own_params_and_no_others():
    """A page's results dict holds its params for its words cells; written once, as params."""
    params = {"k": 10, "seed": 0}
    page = {"params": dict(params), "x": 1.0}
    path = write_results("t", params=params, data_source=SOURCE, results=page, checks=[])
    record = json.loads(path.read_text())
    assert record["params"] == params and record["x"] == 1.0
    assert "params" in page  # the page's dict is left as it was
    with pytest.raises(ValueError, match="differ"):
        write_results("t", params={"k": 5}, data_source=SOURCE, results=page, checks=[])


def test_simulated_source_must_name_its_generator():
    with pytest.raises(ValueError, match="generator"):
        DataSource("x", "simulated", "1")
    with pytest.raises(ValueError, match="kind"):
        DataSource("x", "made-up", "1")


def _validate(record):
    import jsonschema

    from rankbook.report.results import results_schema

    jsonschema.validate(record, results_schema(), cls=jsonschema.Draft202012Validator)


def test_results_record_the_software_and_satisfy_the_schema(tmp_path):
    path = write_results(
        "t", params={"k": 10}, data_source=SOURCE, results={"hr@10": 0.5}, checks=[]
    )
    record = json.loads(path.read_text())
    _validate(record)
    software = record["software"]
    names = {p["name"]: p["version"] for p in software["packages"]}
    assert names["numpy"] == np.__version__ and names["pandas"] == pd.__version__
    commit = software["git"]["commit"]
    assert commit is None or len(commit) == 40
    hardware = software["hardware"]
    assert hardware["logical_cpus"] == os.cpu_count()
    assert hardware["threads"]["numba"] == numba.get_num_threads()
    assert hardware["threads"]["lightgbm"] in (None, LambdaMARTConfig().num_threads)


def test_the_hardware_record_follows_the_thread_settings(monkeypatch):
    """The recorded counts are read when the file is written, not fixed at import."""
    before = hardware_record()["threads"]["numba"]
    if numba.config.NUMBA_NUM_THREADS > 1:
        numba.set_num_threads(1)
        try:
            assert hardware_record()["threads"]["numba"] == 1
        finally:
            numba.set_num_threads(before)
    fake_torch = type("FakeTorch", (), {"get_num_threads": staticmethod(lambda: 3)})
    monkeypatch.setitem(sys.modules, "torch", fake_torch)
    assert hardware_record()["threads"]["torch"] == 3
    monkeypatch.delitem(sys.modules, "torch")
    assert hardware_record()["threads"]["torch"] is None
    assert hardware_record()["threads"]["lightgbm"] == LambdaMARTConfig().num_threads
    monkeypatch.delitem(sys.modules, "rankbook.ranking.lambdamart")
    assert hardware_record()["threads"]["lightgbm"] is None


def test_results_of_several_sources_satisfy_the_schema():
    other = DataSource("Real", "real", "2024")
    path = write_results(
        "t", params={}, data_source={"a": SOURCE, "b": other}, results={}, checks=[]
    )
    _validate(json.loads(path.read_text()))


@pytest.mark.parametrize(
    "mutate",
    [
        lambda r: r.pop("software"),
        lambda r: r.pop("params"),
        lambda r: r["software"]["git"].update(commit="not-a-sha"),
        lambda r: r["data_source"].update(kind="made-up"),
        lambda r: r["data_source"].update(generator=None),  # simulated without a generator
        lambda r: r.update(BadKey=1),
        lambda r: r.update(table=[{"Bad Key": 1}]),
    ],
)
def test_the_schema_rejects_broken_records(mutate):
    import jsonschema

    path = write_results("t", params={"k": 1}, data_source=SOURCE, results={"x": 1.0}, checks=[])
    record = json.loads(path.read_text())
    _validate(record)
    mutate(record)
    with pytest.raises(jsonschema.ValidationError):
        _validate(record)


def test_checks_are_required_listed_and_validated():
    from rankbook.report.checks import falsifiable_check, identity_check

    checks = [
        falsifiable_check("hash mean within 2 se", True, "tests/audit/test_x.py::test_y"),
        identity_check("input order = optimistic", True, "the relevant item is stored first"),
    ]
    path = write_results("t", params={}, data_source=SOURCE, results={}, checks=checks)
    record = json.loads(path.read_text())
    assert [c["kind"] for c in record["checks"]] == ["test", "identity"]
    with pytest.raises(TypeError, match="checks"):
        write_results("t", params={}, data_source=SOURCE, results={})
    with pytest.raises(ValueError, match="reserved"):
        write_results("t", params={}, data_source=SOURCE, results={"checks": []}, checks=[])


@pytest.mark.parametrize(
    "bad, message",
    [
        ({"name": "a", "kind": "proof", "passed": True}, "kind"),
        ({"name": "a", "kind": "test", "passed": True}, "unit test"),
        ({"name": "a", "kind": "identity", "passed": True}, "by construction"),
        ({"name": "a", "kind": "identity", "passed": "yes", "why": "w"}, "passed"),
        ({"name": "", "kind": "identity", "passed": True, "why": "w"}, "name"),
    ],
)
def test_a_malformed_check_is_refused_naming_it(bad, message):
    with pytest.raises(ValueError, match=message):
        write_results("t", params={}, data_source=SOURCE, results={}, checks=[bad])


def test_the_schema_requires_checks_with_their_kind():
    jsonschema = pytest.importorskip("jsonschema")
    from rankbook.report.results import results_schema

    path = write_results("t", params={}, data_source=SOURCE, results={}, checks=[])
    record = json.loads(path.read_text())
    jsonschema.validate(record, results_schema())
    del record["checks"]
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate(record, results_schema())
    record["checks"] = [{"name": "a", "kind": "test", "passed": True}]
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate(record, results_schema())


def test_recording_the_threads_neither_misreads_nor_changes_torch_s_count():
    """In a fresh process, the first call into Numba's threading layer resets the OpenMP
    thread count torch reports (chapter 12 trains with 1 torch thread and recorded 2): the
    record reads torch's count first, and leaves it as the chapter set it."""
    code = (
        "import torch\n"
        "torch.set_num_threads(1)\n"
        "torch.ones(4).sum()\n"  # torch has run, as chapter 12's training has
        "assert torch.get_num_threads() == 1\n"
        "from rankbook.report.environment import hardware_record\n"
        "print(hardware_record()['threads']['torch'], torch.get_num_threads())\n"
    )
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert proc.stdout.split() == ["1", "1"], proc.stdout
