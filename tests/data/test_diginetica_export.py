"""A simulated log written in the DIGINETICA format loads back with its SERPs, clicks and times."""

from __future__ import annotations

import json

import numpy as np
import pytest

from rankbook.data.diginetica import load_diginetica
from rankbook.data.diginetica_export import EXPORT_MARKER, hash_tokens, write_diginetica
from rankbook.data.sessions import SessionConfig, simulate_sessions
from rankbook.ranking.experiment import default_embedder


@pytest.fixture(scope="module")
def exported(tmp_path_factory):
    log = simulate_sessions(SessionConfig(n_sessions=150, n_products=200, seed=3), progress=False)
    out = write_diginetica(log, tmp_path_factory.mktemp("digi"))
    return log, out, load_diginetica(out)


def test_files_use_the_original_headers(exported):
    _, out, _ = exported
    header = (out / "train-queries.csv").read_text().splitlines()[0]
    assert header == (
        "queryId;sessionId;userId;timeframe;duration;eventdate;searchstring.tokens;"
        "categoryId;items;is.test"
    )
    assert (out / "products.csv").read_text().splitlines()[
        0
    ] == "itemId;pricelog2;product.name.tokens"


def test_round_trip_keeps_serps_clicks_and_times(exported):
    log, _, back = exported
    a = log.serp.sort_values(["query_id", "rank"], kind="stable")
    b = back.serp.sort_values(["query_id", "rank"], kind="stable")
    np.testing.assert_array_equal(a.item_id.to_numpy(), b.item_id.to_numpy())
    np.testing.assert_array_equal(a["rank"].to_numpy(), b["rank"].to_numpy())
    np.testing.assert_array_equal(a.clicked.to_numpy(), b.clicked.to_numpy())
    # the loader's rule marks an item sold in every SERP of the session that showed it before the
    # purchase, so sales can only be added, never lost
    assert (b.purchased.to_numpy() >= a.purchased.to_numpy()).all()
    qa = log.queries.set_index("query_id").timestamp
    qb = back.queries.set_index("query_id").timestamp.loc[qa.index]
    assert (qa.to_numpy() == qb.to_numpy()).all()
    assert len(back.clicks) == len(log.clicks)
    np.testing.assert_allclose(back.items.price.to_numpy(), log.items.price.to_numpy(), rtol=1e-5)


def test_export_is_labelled_simulated_and_hashed(exported):
    log, out, back = exported
    assert back.source.kind == "simulated"
    assert back.source.generator == log.source.generator
    assert "SIMULATED" in back.source.label()
    assert back.extra["hashed_tokens"] is True
    assert json.loads((out / EXPORT_MARKER).read_text())["generator"] == log.source.generator
    assert back.items.title.str.fullmatch(r"[0-9 ]*").all()


def test_hash_tokens_is_stable_and_word_based():
    import pandas as pd

    t = hash_tokens(pd.Series(["Red Shoe", "red  shoe!", "", None]))
    assert t[0] == t[1] and t[0].count(",") == 1
    assert t[2] == "" and t[3] == ""


def test_default_embedder_reads_hashed_tokens_with_ppmi_fitted_before_validation(
    exported, monkeypatch
):
    from rankbook.context import embed
    from rankbook.data.sessions import assign_time_windows
    from rankbook.ranking.experiment import DEFAULT_FRACTIONS

    _, _, back = exported
    seen = {}
    real_fit = embed.PPMISVDEmbedder.fit

    def spy(self, titles, sessions=None):
        seen["sessions"] = set(sessions.session_id)
        return real_fit(self, titles, sessions)

    monkeypatch.setattr(embed.PPMISVDEmbedder, "fit", spy)
    emb = default_embedder(back)
    assert isinstance(emb, embed.PPMISVDEmbedder)
    windows = assign_time_windows(back.queries, DEFAULT_FRACTIONS).to_numpy()
    later = set(back.queries.session_id[np.isin(windows, ["valid", "test"])])
    assert seen["sessions"] and not (seen["sessions"] & later)
