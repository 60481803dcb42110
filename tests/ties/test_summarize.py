"""evaluate() output names its id and metric columns; summarize() averages metrics only."""

import numpy as np
import pandas as pd
import pytest

from rankaudit import LongColumns, audit_row_order, evaluate
from rankaudit.ties import summarize


def _long(scores, labels, row_ids):
    n, m = scores.shape
    return pd.DataFrame(
        {
            "query": np.repeat(row_ids, m),
            "doc": np.tile(np.arange(m), n),
            "score": scores.ravel(),
            "label": labels.ravel(),
        }
    )


@pytest.fixture
def batch():
    rng = np.random.default_rng(3)
    scores = rng.integers(0, 3, (20, 6)).astype(float)
    labels = np.zeros((20, 6))
    labels[np.arange(20), rng.integers(0, 6, 20)] = 1
    return scores, labels


def test_attrs_name_id_and_metric_columns(batch):
    s, y = batch
    out = evaluate(s, y, k=3, user_ids=np.arange(100, 120), return_variance=True)
    assert out.attrs["id_columns"] == ["row", "user_id"]
    assert out.attrs["metric_columns"] == ["Success@3", "nDCG@3", "RR"]
    assert (out.attrs["k"], out.attrs["ties"]) == (3, "expected")


def test_summarize_averages_metric_columns_only(batch):
    s, y = batch
    out = evaluate(
        _long(s, y, np.arange(1000, 1020)), k=3, columns=LongColumns(row="query", item="doc")
    )
    means = summarize(out)
    assert list(means.index) == ["Success@3", "nDCG@3", "RR"]
    columns = ["Success@3", "nDCG@3", "RR"]
    np.testing.assert_allclose(means.to_numpy(), out[columns].mean().to_numpy())
    np.testing.assert_allclose(means.to_numpy(), summarize(evaluate(s, y, k=3)).to_numpy())
    # without attrs (e.g. after pd.concat of frames with different attrs) names decide
    bare = pd.DataFrame(out.to_dict("list"))
    assert bare.attrs == {}
    pd.testing.assert_series_equal(summarize(bare), means)
    # a column subset keeps the metrics that are left
    assert list(summarize(out[["query", "RR"]]).index) == ["RR"]


def test_summarize_refuses_frames_without_metrics_or_rows(batch):
    s, y = batch
    out = evaluate(s, y)
    with pytest.raises(ValueError, match="no metric column"):
        summarize(out[["row"]])
    with pytest.raises(ValueError, match="zero rows"):
        summarize(out.iloc[:0])
    with pytest.raises(ValueError, match="DataFrame"):
        summarize(out.to_numpy())


def test_audit_skips_custom_id_columns(batch):
    s, y = batch

    def evaluator(scores, labels):  # long format with a numeric, custom-named row id
        return evaluate(
            _long(scores, labels, np.arange(len(scores)) * 7),
            columns=LongColumns(row="query", item=None),
        )

    audit = audit_row_order(evaluator, s, y, n_permutations=3)
    assert list(audit.summary["metric"]) == ["Success@10", "nDCG@10", "RR"]
    assert audit.is_invariant
