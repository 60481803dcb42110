"""Peer adapters run and reproduce their documented tie behaviour on the paper's case."""

import numpy as np
import pytest

from rankaudit import audit_row_order, evaluate
from rankbook.ties.peers import PEERS, peer_table


@pytest.fixture(scope="module")
def rows():
    s = np.zeros((3, 31))
    s[1] = np.arange(31)[::-1]
    s[2, :5] = 1.0
    y = np.zeros((3, 31))
    y[:, 0] = 1
    return s, y


def test_registry_lists_versions():
    table = peer_table()
    assert set(table["name"]) == set(PEERS)
    assert {"name", "library", "version", "api", "metric", "ties"} <= set(table.columns)
    assert table["api"].notna().all()


@pytest.mark.parametrize("name", sorted(PEERS))
def test_peer_runs_and_agrees_on_untied_row(name, rows):
    peer = PEERS[name]
    if peer.distribution and peer.version() == "not installed":
        pytest.skip(f"{peer.distribution} not installed")
    s, y = rows
    values = np.asarray(peer(s, y, k=10), dtype=float)
    assert values.shape == (3,)
    assert values[1] == pytest.approx(1.0, abs=1e-6)  # relevant item strictly best


@pytest.mark.parametrize("name", ["sklearn_ndcg", "torchmetrics"])
def test_exact_peers_equal_expected(name, rows):
    pytest.importorskip("sklearn" if name == "sklearn_ndcg" else "torchmetrics")
    s, y = rows
    exp = evaluate(s, y, k=10)["nDCG@10"].to_numpy()
    np.testing.assert_allclose(PEERS[name](s, y, k=10), exp, atol=1e-6)


def test_stable_sort_peer_is_not_row_order_invariant(rows):
    s, y = rows
    audit = audit_row_order(PEERS["python_sorted"], s, y, n_permutations=5)
    assert not audit.is_invariant


def test_sort_idioms_follow_their_documented_tie_order(rows):
    s, y = rows  # row 0: all 31 tied, relevant first; row 2: 5 tied at the top, relevant first
    stable = PEERS["numpy_argsort_stable"](s, y, k=10)
    np.testing.assert_allclose(stable, PEERS["python_sorted"](s, y, k=10))
    np.testing.assert_allclose(stable, [1.0, 1.0, 1.0])  # input order: relevant-first wins
    pytest.importorskip("sklearn")
    hr = PEERS["sklearn_top_k_accuracy"](s, y, k=3)
    np.testing.assert_allclose(hr, [0.0, 1.0, 0.0])  # later position first: relevant-first loses
