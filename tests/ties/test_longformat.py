"""Long-format (ragged) DataFrame input gives the same results as arrays."""

import numpy as np
import pandas as pd
import pytest

from rankaudit import LongColumns, evaluate
from rankaudit.ties.ranking import TIE_RULES


def _interleaved_frame(scores, labels, items, rng):
    """Lines of all rows interleaved at random, each row's candidates kept in order."""
    row_of_line = np.concatenate([np.full(len(s), i) for i, s in enumerate(scores)])
    rng.shuffle(row_of_line)
    seen = np.zeros(len(scores), dtype=int)
    lines = []
    for r in row_of_line:
        j = seen[r]
        seen[r] += 1
        lines.append((f"u{r}", items[r][j], scores[r][j], labels[r][j]))
    return pd.DataFrame(lines, columns=["query", "doc", "s", "rel"])


def _kwargs(rule):
    if rule == "random":
        return {"n_repeats": 5}
    if rule == "expected":
        return {"return_variance": True}
    return {}


@pytest.mark.parametrize("rule", TIE_RULES)
def test_long_format_equals_ragged_lists(rows_factory, rule):
    rng = np.random.default_rng(5)
    scores, labels, items = rows_factory(rng, 40, max_len=9)
    df = _interleaved_frame(scores, labels, items, rng)
    users = np.array([f"u{i}" for i in range(len(scores))])
    want = evaluate(
        scores, labels, k=3, ties=rule, user_ids=users, item_ids=items, seed=2, **_kwargs(rule)
    )
    got = evaluate(
        df,
        k=3,
        ties=rule,
        columns=LongColumns(row="query", item="doc", score="s", label="rel"),
        seed=2,
        **_kwargs(rule),
    )
    got = got.set_index("query").loc[users].reset_index(drop=True)
    metric_cols = [c for c in want.columns if c not in ("row", "user_id")]
    pd.testing.assert_frame_equal(got[metric_cols], want[metric_cols], rtol=0, atol=1e-15)


def test_long_format_equals_rectangular(rows_factory):
    rng = np.random.default_rng(6)
    scores, labels, items = rows_factory(rng, 30, max_len=7, ragged=False)
    df = pd.DataFrame(
        {
            "row_id": np.repeat(np.arange(30), len(scores[0])),
            "item_id": np.concatenate(items),
            "score": np.concatenate(scores),
            "label": np.concatenate(labels),
        }
    )
    for rule in ("expected", "hash", "input_order"):
        a = evaluate(np.stack(scores), np.stack(labels), ties=rule, item_ids=np.stack(items), k=2)
        b = evaluate(df, ties=rule, k=2)
        assert b["row_id"].tolist() == list(range(30))
        np.testing.assert_array_equal(a.iloc[:, 1:].to_numpy(), b.iloc[:, 1:].to_numpy())


def test_long_format_errors_name_rows_and_columns():
    df = pd.DataFrame({"row_id": [1, 1, 2], "score": [0.1, 0.2, np.nan], "label": [1, 0, 1]})
    with pytest.raises(ValueError, match=r"scores: row 1 \(row_id=2\) has a non-finite score"):
        evaluate(df)
    with pytest.raises(ValueError, match="LongColumns.score='points' is not a column"):
        evaluate(df, columns=LongColumns(score="points"))
    df2 = df.assign(score=[0.1, 0.2, 0.3], label=[1, 0, 0])
    with pytest.raises(ValueError, match=r"labels: row 1 \(row_id=2\) has no relevant item"):
        evaluate(df2)
    out = evaluate(df2, empty="drop")
    assert out["row_id"].tolist() == [1]
    with pytest.raises(ValueError, match="LongColumns.item='item_id' is not a column"):
        evaluate(df2, ties="hash")
    df3 = df2.assign(label=[1, "x", 1])
    with pytest.raises(
        ValueError,
        match=r"label: row with row_id=1 \(DataFrame line 1\) holds a non-numeric value 'x'",
    ):
        evaluate(df3)
    df4 = df2.assign(user=["a", "b", "c"])
    with pytest.raises(
        ValueError, match=r"user: row 0 \(row_id=1\) has more than one user id \('a' and 'b'\)"
    ):
        evaluate(df4, columns=LongColumns(user="user"), empty="zero")


def test_ragged_rows_keep_lengths():
    scores = [[3.0, 1.0], [1.0, 1.0, 1.0, 1.0], [5.0], [], [2.0, 2.0]]
    labels = [[0, 1], [0, 0, 0, 1], [1], [], [1, 0]]
    for rule in ("expected", "random", "input_order"):
        out = evaluate(scores, labels, k=1, ties=rule, empty="zero")
        assert out["Success@1"].iloc[0] == 0.0 and out["Success@1"].iloc[2] == 1.0
        assert out["RR"].iloc[3] == 0.0
    out = evaluate(scores, labels, k=1, empty="drop")
    assert out["row"].tolist() == [0, 1, 2, 4]
    np.testing.assert_allclose(out["Success@1"], [0.0, 0.25, 1.0, 0.5])
    np.testing.assert_allclose(out["RR"], [0.5, (1 + 1 / 2 + 1 / 3 + 1 / 4) / 4, 1.0, 0.75])


def test_messages_show_plain_ids():
    """Ids read from numpy arrays print as ``272``, not ``np.int64(272)``."""
    df = pd.DataFrame(
        {
            "row_id": np.array([272, 272, 273, 273]),
            "item_id": np.array([5, 6, 7, 7]),
            "score": [1.0, np.nan, 1.0, 1.0],
            "label": [1, 0, 1, 0],
        }
    )
    with pytest.raises(ValueError, match=r"row 0 \(row_id=272\) has a non-finite score nan") as err:
        evaluate(df)
    assert "np." not in str(err.value)
    df.loc[1, "score"] = 1.0
    with pytest.raises(ValueError, match=r"row 1 \(row_id=273\) repeats item id 7 ") as err:
        evaluate(df, ties="hash")
    assert "np." not in str(err.value)
