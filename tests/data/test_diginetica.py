"""DIGINETICA loader on hand-written fixtures in the real schema (camelCase, snake_case, malformed
rows)."""

import shutil
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from rankaudit.errors import InputFileError
from rankbook.context.embed import PPMISVDEmbedder
from rankbook.context.features import CONTEXT_FEATURES, click_history
from rankbook.data.diginetica import load_diginetica
from rankbook.ranking.experiment import prepare_experiment

FIX = Path(__file__).resolve().parents[1] / "fixtures" / "diginetica"


@pytest.fixture(scope="module")
def log():
    return load_diginetica(FIX / "camel", kind="fixture")


def test_tables_and_labels(log):
    assert len(log.items) == 8 and log.items.item_id.tolist() == list(range(8))
    assert log.items.title.iloc[0] == "4 5 6" and log.items.price.iloc[0] == 2**7
    assert len(log.queries) == 6
    s = log.serp.merge(log.items[["item_id", "source_item_id"]], on="item_id")
    q1 = s[s.query_id == 1].sort_values("rank")
    assert q1.source_item_id.tolist() == [1, 2, 3, 4]
    assert q1.clicked.tolist() == [False, True, True, False]
    # item 5 bought in session 1 at t=100s: a sale on query 1 (t=0) and 2 (t=60s) SERPs where shown
    sale = s[s.label == 2][["query_id", "source_item_id"]].values.tolist()
    assert [2, 5] in sale
    # item 4 bought in session 2 at 50 s: shown on query 4 (t=0) and query 5 (t=30.5 s)
    assert [4, 4] in sale and [5, 4] in sale
    assert set(s.label) <= {0, 1, 2}
    assert log.queries.set_index("query_id").query_text[3] == ""
    assert pd.isna(log.queries.set_index("query_id").query_category[1])
    assert log.source.kind == "fixture"


def test_snake_case_headers_load_identically(log):
    other = load_diginetica(FIX / "snake", kind="fixture")
    for name in ("items", "queries", "serp", "clicks"):
        pd.testing.assert_frame_equal(getattr(log, name), getattr(other, name))


def test_history_from_views_and_clicks(log):
    h = click_history(log.queries, log.clicks, 5)
    src = log.items.source_item_id.to_numpy()
    by_q = dict(zip(log.queries.query_id, h, strict=True))
    assert by_q[1][0] == -1
    assert [src[i] for i in by_q[3][:4] if i >= 0] == [5, 3, 2]  # most recent first
    assert [src[i] for i in by_q[6] if i >= 0] == []  # view at 2 s is after the query at 0 s


def test_features_run_unchanged_with_ppmi(log):
    emb = PPMISVDEmbedder(dim=3).fit(log.items.title.tolist(), log.clicks)
    exp = prepare_experiment(
        log, embedder=emb, fractions={"train": 0.34, "valid": 0.33, "test": 0.33}, progress=False
    )
    tab = exp.table
    assert len(tab) == len(log.serp)
    assert tab.loc[tab.n_history == 0, CONTEXT_FEATURES].isna().all().all()
    assert tab.loc[tab.n_history > 0, "NCD_lc"].notna().all()


def _with(tmp_path: Path, target: str, bad: str) -> Path:
    d = tmp_path / "digi"
    shutil.copytree(FIX / "camel", d)
    shutil.copy(FIX / "malformed" / bad, d / target)
    return d


@pytest.mark.parametrize(
    ("target", "bad", "match"),
    [
        (
            "train-queries.csv",
            "train-queries.short-row.csv",
            r"train-queries\.csv:3: expected 10",
        ),
        (
            "train-clicks.csv",
            "train-clicks.bad-number.csv",
            r"train-clicks\.csv:3: column 'itemid' is not a number",
        ),
        ("products.csv", "products.long-row.csv", r"products\.csv:2: "),
    ],
)
def test_malformed_rows_name_file_and_line(tmp_path, target, bad, match):
    with pytest.raises(InputFileError, match=match):
        load_diginetica(_with(tmp_path, target, bad))


def test_missing_file_and_unknown_item(tmp_path):
    d = tmp_path / "digi"
    shutil.copytree(FIX / "camel", d)
    (d / "train-purchases.csv").unlink()
    with pytest.raises(FileNotFoundError, match="train-purchases.csv: no such file"):
        load_diginetica(d)
    shutil.copy(FIX / "camel" / "train-purchases.csv", d)
    text = (d / "train-clicks.csv").read_text().replace("1;9000;3", "1;9000;99")
    (d / "train-clicks.csv").write_text(text)
    with pytest.raises(InputFileError, match=r"train-clicks\.csv:3: itemId 99 not in products"):
        load_diginetica(d)


def test_max_sessions(log):
    small = load_diginetica(FIX / "camel", max_sessions=1)
    assert small.queries.session_id.unique().tolist() == [1]
    assert np.isin(small.serp.query_id, [1, 2, 3]).all()
