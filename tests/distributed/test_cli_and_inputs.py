"""Issue 16: the Dask command line (``rankaudit rows --scheduler``) never hangs and prints one
line; pandas frames are refused."""

from __future__ import annotations

import subprocess
import sys

import pandas as pd
import pytest

pytest.importorskip("distributed")


def _cli(*args: str, timeout: float = 120) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "rankaudit", "rows", *args],
        capture_output=True,
        text=True,
        timeout=timeout,
    )


@pytest.mark.parametrize(
    "flag, value",
    [
        ("--workers", "0"),
        ("--workers", "-1"),
        ("--k", "0"),
        ("--n-repeats", "0"),
        ("--synthetic-rows", "0"),
        ("--workers", "two"),
    ],
)
def test_nonpositive_counts_are_refused_not_hung(flag, value):
    out = _cli(flag, value, timeout=60)
    assert out.returncode == 2
    assert f"argument {flag}: must be an integer >= 1" in out.stderr
    assert "Traceback" not in out.stderr


def test_a_bad_row_prints_one_error_line_not_a_traceback(tmp_path):
    path = tmp_path / "bad.csv"
    path.write_text("row_id,item_id,score,label\n0,1,1.0,1\n0,2,nan,0\n")
    out = _cli(str(path), "--scheduler", "local", "--workers", "1")
    assert out.returncode == 2
    assert "Traceback" not in out.stderr and "Compute Failed" not in out.stderr
    errors = [line for line in out.stderr.splitlines() if line.startswith("rankaudit rows:")]
    assert len(errors) == 1
    assert "row 0 (row_id=0) has a non-finite score nan at candidate 1" in errors[0]


def test_a_missing_input_file_is_one_line(tmp_path):
    for where in ((), ("--scheduler", "local", "--workers", "1")):
        out = _cli(str(tmp_path / "nope.csv"), *where)
        assert out.returncode == 2
        assert out.stderr.strip().splitlines() == [
            f"rankaudit rows: error: {tmp_path / 'nope.csv'}: no such file or directory"
        ]


@pytest.mark.parametrize("function", ["evaluate", "tie_prevalence"])
def test_a_pandas_frame_is_refused_with_the_fix(function):
    import rankaudit.distributed as rd

    frame = pd.DataFrame({"row_id": [0], "item_id": [1], "score": [1.0], "label": [1]})
    with pytest.raises(
        ValueError,
        match=rf"takes a Dask DataFrame; got a pandas DataFrame. Use "
        rf"rankaudit.{function}\(frame\)",
    ):
        getattr(rd, function)(frame)
    with pytest.raises(ValueError, match="got list"):
        getattr(rd, function)([1, 2])
