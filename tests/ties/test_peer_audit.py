"""Tests of the peer-evaluator audit (rankbook.ties.peer_audit)."""

from __future__ import annotations

import numpy as np
import pytest

from rankbook.data.synthetic_rows import simulate_tie_heavy_rows
from rankbook.ties import peer_audit as pa
from rankbook.ties.peers import PEERS


@pytest.fixture(scope="module")
def sample():
    return simulate_tie_heavy_rows(40, seed=1)


def test_layouts_move_the_relevant_item_and_rename_ids(sample):
    views = pa.layouts(sample.scores, sample.labels, sample.item_ids, 1682)
    assert list(views) == list(pa.LAYOUTS)
    last = views["relevant_last"]
    assert (last.labels[:, -1] == 1).all() and (last.labels[:, :-1] == 0).all()
    np.testing.assert_array_equal(np.sort(last.scores, 1), np.sort(sample.scores, 1))
    np.testing.assert_array_equal(last.int_ids[:, -1], sample.item_ids[:, 0])
    renamed = views["ids_renamed"]
    np.testing.assert_array_equal(renamed.int_ids, 1683 - sample.item_ids)
    assert renamed.str_ids[0, 0] == f"i{1683 - sample.item_ids[0, 0]:04d}"
    with pytest.raises(ValueError, match="column 0"):
        pa.layouts(sample.scores, sample.labels[:, ::-1], sample.item_ids, 1682)


def test_observed_rule_of_known_idioms(sample):
    views = pa.layouts(sample.scores, sample.labels, sample.item_ids, 1682)

    def run(f):
        return {n: f(v.scores, v.labels, k=10, item_ids=v.str_ids) for n, v in views.items()}

    assert (
        pa.observed_tie_rule(run(PEERS["numpy_argsort_stable"]), views, "nDCG@k", 10)
        == "input order"
    )
    assert pa.observed_tie_rule(run(PEERS["sklearn_ndcg"]), views, "nDCG@k", 10).startswith(
        "tie-averaged"
    )
    assert (
        pa.observed_tie_rule(run(PEERS["pytrec_eval"]), views, "nDCG@k", 10) == "item id descending"
    )
    rng = np.random.default_rng(0)
    noise = {n: rng.random(len(v.scores)) for n, v in views.items()}
    assert pa.observed_tie_rule(noise, views, "nDCG@k", 10) == "none of the tested rules"


def test_audit_peers_records_schema(sample):
    peers = {n: PEERS[n] for n in ("sklearn_ndcg", "python_sorted")}
    results = pa.audit_peers(
        sample.scores, sample.labels, sample.item_ids, 1682, n_permutations=3, peers=peers
    )
    table, records = pa.peer_audit_records(results)
    assert len(table) == len(records) == 2
    for r in records:
        assert set(r) == {
            "library",
            "version",
            "metric",
            "invariant",
            "value_relevant_first",
            "value_relevant_last",
        }
    by_lib = {r["library"]: r for r in records}
    assert by_lib["scikit-learn"]["invariant"] is True
    assert by_lib["python"]["invariant"] is False
    assert by_lib["python"]["value_relevant_first"] > by_lib["python"]["value_relevant_last"]


def test_missing_library_is_reported_not_dropped(sample):
    class Missing:
        library, metric = "nolib", "nDCG@k"

        def version(self):
            return "not installed"

        def __call__(self, *args, **kwargs):
            raise ImportError("this adapter needs 'nolib'")

    results = pa.audit_peers(
        sample.scores,
        sample.labels,
        sample.item_ids,
        1682,
        n_permutations=2,
        peers={"nolib": Missing()},
    )
    assert len(results) == 1 and "nolib" in results[0].error
    # the status says why in words, without the exception's class name
    status = pa.peer_versions(results)["status"].tolist()
    assert status == ["not audited: this adapter needs 'nolib'"]
    table, records = pa.peer_audit_records(results)
    assert table.empty and records == []


def test_peer_glue_values_audited_and_missing(sample):
    peers = {n: PEERS[n] for n in ("python_sorted",)}
    results = pa.audit_peers(
        sample.scores, sample.labels, sample.item_ids, 1682, n_permutations=2, peers=peers
    )
    values = pa.peer_glue_values(results, ["python_sorted", "ranx"])
    assert values["python_sorted_rule"] == "input order"
    assert values["python_sorted_invariant"] == "no"
    assert values["python_sorted_relevant_first"] == results[0].values["relevant_first"]
    assert values["ranx_invariant"] == "not audited" and np.isnan(values["ranx_ids_renamed"])
