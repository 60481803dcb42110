"""The peers' child process (``peer_worker.py``, behind ``ask_peers``): one process answers a
pytest process's jobs; a failed or late job fails its test, and the next job gets a new one."""

from __future__ import annotations

import pytest

from tests.measures.conftest import ask_peers, tie_free_run_and_qrels


def test_a_failed_or_late_job_fails_and_the_next_gets_a_new_worker():
    run, qrels = tie_free_run_and_qrels(0, n_queries=3)
    asks = [["pytrec_eval", "recip_rank", "rr"]]
    first = ask_peers(run, qrels, 1, asks)
    assert set(first["rr"]) <= set(run) and first["rr"]
    with pytest.raises(AssertionError, match="ValueError: nobody"):
        ask_peers(run, qrels, 1, [["nobody", "x", "x"]])
    assert ask_peers(run, qrels, 1, asks) == first
    with pytest.raises(AssertionError, match="no answer within 0 s"):
        ask_peers(run, qrels, 1, [["ranx", "ndcg@10", "n"]], timeout=0)
    assert ask_peers(run, qrels, 1, asks) == first
