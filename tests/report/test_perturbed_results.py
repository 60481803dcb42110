"""The ±5% switch of the page tests (``tests/perturbed_results.py``) moves what it says it moves."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from tests.conftest import ROOT
from tests.perturbed_results import (
    ENV,
    KEPT,
    SPREAD,
    perturb,
    perturb_file,
    seed_from_env,
    unperturbed_path,
)


def _results() -> dict:
    return {
        "params": {"alpha": 0.05, "n_boot": 200, "p_switch": 0.3},
        "software": {"python": "3.11", "hardware": {"logical_cpus": 2}},
        "checks": [{"name": "x", "kind": "test", "passed": True, "unit_test": "t::t"}],
        "rankaudit_version": "1.0",
        "data_source": {"kind": "simulated", "name": "s", "details": {"rate": 0.25}},
        "rows": [
            {"lift_pct": 3.17, "ci_low": -1.44, "ci_high": 8.64, "p_value": 0.998, "n": 162,
             "p_switch": 0.3, "ok": True, "name": "CosSim"},
            {"lift_pct": -0.2, "ci_low": 0.999, "ci_high": 1.0, "p_value": 1.0, "n": 7,
             "p_switch": 0.6, "ok": False, "name": None},
        ],
        "share": 0.0,
        "big": 1234.5,
    }


def _floats(value, path=()):
    if isinstance(value, bool):
        return {}
    if isinstance(value, float):
        return {path: value}
    items = value.items() if isinstance(value, dict) else enumerate(value) if isinstance(
        value, list
    ) else ()
    out = {}
    for k, v in items:
        out.update(_floats(v, (*path, k)))
    return out


@pytest.mark.parametrize("seed", [0, 1, 12345])
def test_every_float_moves_by_at_most_five_percent_and_nothing_else_moves(seed):
    before = _results()
    after = perturb(before, seed)
    assert before == _results()  # the input is not changed
    for key in KEPT & set(before):
        assert after[key] == before[key]
    moved = 0
    for path, x in _floats({k: v for k, v in before.items() if k not in KEPT}).items():
        node = after
        for step in path:
            node = node[step]
        if path[-1] == "p_switch" or x == 0.0:  # a parameter's grid point; 0 stays 0
            assert node == x
            continue
        assert abs(node - x) <= SPREAD * abs(x) + 1e-15, path
        moved += node != x
    assert moved >= 8
    # ints (counts), bools and strings are as they were
    assert [(r["n"], r["ok"], r["name"]) for r in after["rows"]] == [
        (162, True, "CosSim"), (7, False, None),
    ]


@pytest.mark.parametrize("seed", range(20))
def test_probabilities_stay_in_the_unit_interval_and_intervals_in_order(seed):
    after = perturb(_results(), seed)
    for row in after["rows"]:
        assert 0.0 <= row["p_value"] <= 1.0
        assert row["ci_low"] <= row["ci_high"]


def test_the_same_seed_gives_the_same_file_and_another_seed_another():
    assert perturb(_results(), 7) == perturb(_results(), 7)
    assert perturb(_results(), 7) != perturb(_results(), 8)


def test_each_value_is_seeded_by_its_own_path():
    """Adding a key elsewhere, or reordering keys, does not move another value's factor."""
    base = perturb(_results(), 3)
    more = _results() | {"another": 9.0}
    reordered = dict(reversed(list(more.items())))
    assert perturb(reordered, 3)["big"] == base["big"]
    assert perturb(reordered, 3)["rows"] == base["rows"]


def test_the_seeding_is_the_same_in_every_process():
    """BLAKE2b of the path, not Python's salted hash(): two processes with different hash
    seeds move a value by the same factor."""
    code = (
        "import json; from tests.perturbed_results import perturb; "
        "print(json.dumps(perturb({'a': {'b': [1.5, 0.5]}, 'c': 2.0}, 11)))"
    )
    out = set()
    for hash_seed in ("1", "2"):
        env = os.environ | {"PYTHONHASHSEED": hash_seed}
        run = subprocess.run(
            [sys.executable, "-c", code], cwd=ROOT, env=env, capture_output=True, text=True
        )
        assert run.returncode == 0, run.stderr
        out.add(run.stdout)
    assert len(out) == 1


def test_perturb_file_keeps_the_unmoved_file_beside_it(tmp_path):
    path = tmp_path / "results" / "11_ablation.json"
    path.parent.mkdir()
    path.write_text(json.dumps(_results()))
    kept = perturb_file(path, 5)
    assert kept == unperturbed_path(path) == tmp_path / "results" / "unperturbed" / path.name
    assert json.loads(kept.read_text()) == _results()
    once = path.read_text()
    assert json.loads(once) == perturb(_results(), 5)
    perturb_file(path, 5)  # a second call moves the unmoved file again, not the moved one
    assert path.read_text() == once


def test_the_switch_reads_an_integer_seed():
    assert seed_from_env({}) is None
    assert seed_from_env({ENV: ""}) is None
    assert seed_from_env({ENV: " 42 "}) == 42
    with pytest.raises(ValueError, match=ENV):
        seed_from_env({ENV: "yes"})
