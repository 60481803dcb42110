from __future__ import annotations

import numpy as np

from rankbook.report.glue import plain


def test_numpy_scalars_become_python_numbers_that_format():
    for value, kind in [
        (np.float64(0.25), float),
        (np.int64(3), int),
        (np.bool_(True), bool),
        (np.array(1.5), float),
    ]:
        out = plain(value)
        assert type(out) is kind
        assert format(float(out), ".2f")


def test_other_values_pass_through():
    assert plain("text") == "text"
    assert plain([1, 2]) == [1, 2]


def test_glue_many_glues_each_pair_as_a_plain_value(monkeypatch):
    import importlib

    import pytest

    glue_module = importlib.import_module("rankbook.report.glue")

    calls = []
    monkeypatch.setattr(
        glue_module,
        "glue",
        lambda name, value, display=False: calls.append((name, glue_module.plain(value))),
    )
    glue_module.glue_many(n_rows=np.int64(3), hr=np.float64(0.25))
    assert calls == [("n_rows", 3), ("hr", 0.25)]
    assert type(calls[0][1]) is int
    with pytest.raises(ValueError, match="at least one"):
        glue_module.glue_many()
