"""A measure added once to the core works on Dask: ``measures=`` gives the local values."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

dd = pytest.importorskip("dask.dataframe")

from rankaudit.distributed.evaluate import evaluate as evaluate_dask  # noqa: E402
from rankaudit.ties import evaluate  # noqa: E402


def test_registry_measures_on_dask_equal_local():
    import dask

    rng = np.random.default_rng(3)
    n, m = 60, 8
    frame = pd.DataFrame(
        {
            "row_id": np.repeat(np.arange(n), m),
            "item_id": np.tile(np.arange(m), n),
            "score": rng.integers(0, 3, n * m).astype(float),
            "label": rng.integers(0, 3, n * m),
        }
    )
    frame.loc[frame.index % m == 0, "label"] = 2
    names = ["nDCG(dcg='exp-log2')@5", "Bpref", "ERR@5", "HR@5"]
    local = evaluate(frame, ties="expected", measures=names)
    with dask.config.set(scheduler="synchronous"):
        result = evaluate_dask(
            dd.from_pandas(frame, npartitions=3),
            ties="expected",
            measures=names,
            progress=False,
        )
        rows = result.rows.compute().sort_values("row_id")
    for name in local.attrs["measures"]:
        np.testing.assert_allclose(rows[name].to_numpy(), local[name].to_numpy(), atol=1e-12)
        assert result.means[name] == pytest.approx(local[name].mean(), abs=1e-12)
