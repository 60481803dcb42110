from __future__ import annotations

import numpy as np
import pytest

from rankaudit._checks import check_int, check_number
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
        (1.5, Float(0, 1), "'k' must be a finite number in [0, 1]; got 1.5"),
        ("sort", Choice("hash", "expected"), "one of 'hash', 'expected'"),
        ("yes", Bool(), "True or False"),
        ("", Str(), "non-empty string"),
        ([], IntList(), "non-empty list"),
        ([1, -2], IntList(lo=0), "'k'[1] must be an integer >= 0; got -2"),
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
    with pytest.raises(ValueError, match="Parameter kk is not declared"):
        check_params({"k": 1, "kk": 2}, k=Int())
    with pytest.raises(ValueError, match="Parameter seed has a spec but no value"):
        check_params({"k": 1}, k=Int(), seed=Int())


@pytest.mark.parametrize("value", [10.0, True, False, np.True_, 1e3, "10", None, np.float64(3.0)])
def test_int_refuses_what_the_library_refuses(value):
    """A chapter's integer is the library's: 10.0 and True are not integers, with the same
    message as :func:`rankaudit._checks.check_int`."""
    with pytest.raises(ValueError) as library:
        check_int(value, "Parameter 'k'", lo=1)
    with pytest.raises(ValueError) as chapter:
        check_params({"k": value}, k=Int(lo=1))
    assert str(chapter.value) == str(library.value)
    with pytest.raises(ValueError, match=r"'k'\[0\] must be an integer"):
        check_params({"k": [value]}, k=IntList(lo=1))


@pytest.mark.parametrize("value", [1, 7, np.int64(7), np.int8(3)])
def test_int_accepts_what_the_library_accepts(value):
    out = check_params({"k": value}, k=Int(lo=1, hi=7))["k"]
    assert out == check_int(value, "k", lo=1, hi=7) and type(out) is int


def test_int_special_literals_and_their_message():
    assert check_params({"n": "all"}, n=Int(lo=1, special=("all",))) == {"n": "all"}
    with pytest.raises(ValueError, match=r"'n' must be an integer >= 1; got 0; .* one of 'all'"):
        check_params({"n": 0}, n=Int(lo=1, special=("all",)))
    with pytest.raises(ValueError, match="must be an integer"):  # True is not a literal 1
        check_params({"n": True}, n=Int(lo=1, special=(1,)))


@pytest.mark.parametrize("value", [True, np.bool_(False), float("inf"), float("nan"), "0.5", 2])
def test_float_refuses_what_the_library_refuses(value):
    with pytest.raises(ValueError) as library:
        check_number(value, "Parameter 'p'", lo=0, hi=1)
    with pytest.raises(ValueError) as chapter:
        check_params({"p": value}, p=Float(0, 1))
    assert str(chapter.value) == str(library.value)


def test_float_accepts_integers_and_numpy_reals():
    out = check_params({"p": 1, "q": np.float32(0.5)}, p=Float(0, 1), q=Float(0, 1))
    assert out == {"p": 1.0, "q": 0.5} and all(type(v) is float for v in out.values())
