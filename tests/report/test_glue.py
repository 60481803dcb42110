from __future__ import annotations

import numpy as np

from rankaudit.report.glue import plain


def test_numpy_scalars_become_python_numbers_that_format():
    for value, kind in [(np.float64(0.25), float), (np.int64(3), int), (np.bool_(True), bool),
                        (np.array(1.5), float)]:
        out = plain(value)
        assert type(out) is kind
        assert format(float(out), ".2f")


def test_other_values_pass_through():
    assert plain("text") == "text"
    assert plain([1, 2]) == [1, 2]
