"""The simulated track: deterministic, tie-heavy, and tie-order-only systems really differ only
in how their ties fall."""

from __future__ import annotations

import numpy as np
import pytest

from rankaudit.runs import audit_run, read_trec_qrels, read_trec_run
from rankbook.data.track import simulate_track, write_track


def test_track_is_deterministic_and_tie_heavy():
    a = simulate_track(5, 10, 20, n_levels=3, seed=3)
    b = simulate_track(5, 10, 20, n_levels=3, seed=3)
    assert np.array_equal(a.scores, b.scores) and np.array_equal(a.docno, b.docno)
    assert a.scores.shape == (5, 200) and set(np.unique(a.scores)) <= {0.0, 1.0, 2.0}
    assert not np.array_equal(a.scores, simulate_track(5, 10, 20, n_levels=3, seed=4).scores)
    for q in np.unique(a.query):
        assert len(set(a.docno[a.query == q])) == 20  # no document twice in one query


def test_tie_order_only_systems_share_every_score_label_multiset(tmp_path):
    track = simulate_track(4, 12, 25, n_levels=3, tie_order_only=True, seed=1)
    for j in range(1, 4):
        assert not np.array_equal(track.scores[j], track.scores[0])
        for q in np.unique(track.query):
            rows = track.query == q
            mine = sorted(zip(track.scores[j][rows], track.label[rows], strict=True))
            first = sorted(zip(track.scores[0][rows], track.label[rows], strict=True))
            assert mine == first
    paths = write_track(tmp_path, track)
    qrels = read_trec_qrels(tmp_path / "qrels.txt")
    envs = [audit_run(read_trec_run(p), qrels, ["nDCG@10", "AP"]).envelope() for p in paths]
    for env in envs[1:]:
        for rule in ("expected", "pessimistic", "optimistic"):
            assert np.allclose(env[rule], envs[0][rule], rtol=0, atol=1e-12)
    te = np.array([env["trec_eval"].to_numpy() for env in envs])
    assert np.ptp(te[:, 0]) > 0  # the docno tie-break lands differently


def test_bad_arguments_are_named():
    with pytest.raises(ValueError, match="n_levels"):
        simulate_track(2, 2, 2, n_levels=0)
    with pytest.raises(ValueError, match="relevant_share"):
        simulate_track(2, 2, 2, relevant_share=1.5)
