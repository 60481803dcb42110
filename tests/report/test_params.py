from __future__ import annotations

import pytest

from rankbook.report import Bool, Choice, Float, Int, IntList, OptionalDir, Str, check_params


def test_valid_values_are_normalised(tmp_path):
    out = check_params(
        dict(k=10, p=0.5, rule="hash", flag=True, name="x", d=str(tmp_path), seeds=[1, 2], n="all"),
        k=Int(lo=1),
        p=Float(0, 1),
        rule=Choice("hash", "expected"),
        flag=Bool(),
        name=Str(),
        d=OptionalDir(),
        seeds=IntList(lo=0),
        n=Int(lo=1, special=("all",)),
    )
    assert out["k"] == 10 and out["n"] == "all" and out["d"] == str(tmp_path.resolve())


@pytest.mark.parametrize(
    "value, spec, fragment",
    [
        (-1, Int(lo=1), "'k' must be an integer >= 1; got -1"),
        (2.5, Int(lo=1), "'k' must be an integer"),
        (True, Int(lo=1), "'k' must be an integer"),
        ("10", Int(lo=1), "got '10'"),
        (float("nan"), Float(), "'k' must be a finite number"),
        (1.5, Float(0, 1), "<= 1"),
        ("sort", Choice("hash", "expected"), "one of 'hash', 'expected'"),
        ("yes", Bool(), "True or False"),
        ("", Str(), "non-empty string"),
        ([], IntList(), "non-empty list"),
        ([1, -2], IntList(lo=0), "each >= 0"),
    ],
)
def test_bad_values_name_the_parameter(value, spec, fragment):
    with pytest.raises(ValueError) as err:
        check_params({"k": value}, k=spec)
    assert "Parameter 'k'" in str(err.value)
    assert fragment in str(err.value)


def test_missing_directory_is_named(tmp_path):
    with pytest.raises(ValueError, match="Parameter 'data_dir': directory .* does not exist"):
        check_params({"data_dir": str(tmp_path / "nope")}, data_dir=OptionalDir())
    assert check_params({"data_dir": None}, data_dir=OptionalDir()) == {"data_dir": None}


def test_undeclared_and_missing_parameters_are_refused():
    with pytest.raises(ValueError, match="kk are not declared"):
        check_params({"k": 1, "kk": 2}, k=Int())
    with pytest.raises(ValueError, match="seed have a spec but no value"):
        check_params({"k": 1}, k=Int(), seed=Int())
