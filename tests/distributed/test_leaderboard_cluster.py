"""A track audited as Dask tasks equals the same track audited in one process."""

from __future__ import annotations

import numpy as np
import pytest

from rankaudit.distributed.leaderboard import audit_run_files_on_cluster
from rankaudit.runs import RunFileError, read_trec_qrels, read_trec_run
from rankaudit.runs.leaderboard import audit_run_files, leaderboard_rules
from rankbook.data.track import simulate_track, write_track

OPTIONS = dict(measures=["nDCG@10", "RR"], ties=leaderboard_rules(["hash"]), seed=3)


def test_cluster_audits_equal_one_process_and_first_error_wins(tmp_path, dask_client):
    paths = [str(p) for p in write_track(tmp_path, simulate_track(5, 8, 10, n_levels=2, seed=4))]
    qrels_path = str(tmp_path / "qrels.txt")
    local = audit_run_files(paths, read_trec_run, read_trec_qrels(qrels_path), **OPTIONS)
    remote = audit_run_files_on_cluster(
        dask_client, paths, read_trec_run, qrels_path, read_trec_qrels, **OPTIONS
    )
    assert len(remote) == len(local)
    for a, b in zip(local, remote, strict=True):
        assert list(a.queries) == list(b.queries)
        for rule in a.values:
            assert np.array_equal(a.values[rule], b.values[rule])
    for k in (3, 1):  # two bad runs: the one first in the order of paths is reported
        lines = open(paths[k]).read().splitlines()
        lines[2] = "too few fields"
        open(paths[k], "w").write("\n".join(lines) + "\n")
    with pytest.raises(RunFileError, match=rf"{paths[1]}:3"):
        audit_run_files_on_cluster(
            dask_client, paths, read_trec_run, qrels_path, read_trec_qrels, **OPTIONS
        )
