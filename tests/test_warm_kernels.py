"""The setup's background kernel warm-up and the test session's wait for it
(``tests/warm_kernels.py``): the session waits while the lock is held, and not after; it skips
the parts a finished setup stage marked done, except the library's."""

from __future__ import annotations

import fcntl
import os
import time

from tests import warm_kernels
from tests.warm_kernels import (
    SETUP_PARTS,
    done_path,
    lock_path,
    run_parts,
    session_parts,
    wait_for_setup_warmup,
)


def test_the_session_waits_while_the_setup_holds_the_lock_and_not_after(tmp_path):
    wait_for_setup_warmup(tmp_path, timeout=5.0)  # no lock file: no setup warm-up, no wait
    with open(lock_path(tmp_path, "peers"), "a", encoding="utf-8") as held:
        fcntl.flock(held, fcntl.LOCK_EX)
        start = time.monotonic()
        wait_for_setup_warmup(tmp_path, timeout=1.0)
        assert time.monotonic() - start >= 1.0  # it waited for the lock, up to its timeout
    start = time.monotonic()
    wait_for_setup_warmup(tmp_path, timeout=5.0)  # released: at once
    assert time.monotonic() - start < 1.0


def test_the_session_skips_the_peers_the_setup_finished_and_always_runs_the_library(tmp_path):
    library = list(SETUP_PARTS["library"])
    assert session_parts(tmp_path) == library + list(SETUP_PARTS["peers"])
    done_path(tmp_path, "peers").touch()
    done_path(tmp_path, "library").touch()
    assert session_parts(tmp_path) == library


def test_the_setup_marks_a_stage_done_only_when_every_part_finished(tmp_path, monkeypatch):
    monkeypatch.setattr(warm_kernels, "SETUP_PARTS", {"peers": (("exit", "0"),)})
    monkeypatch.setattr(os, "nice", lambda _: 0)
    monkeypatch.setattr(warm_kernels, "run_parts", lambda parts: False)
    warm_kernels.warm_during_setup(str(tmp_path), "peers")
    assert not done_path(tmp_path, "peers").exists()
    monkeypatch.setattr(warm_kernels, "run_parts", lambda parts: True)
    warm_kernels.warm_during_setup(str(tmp_path), "peers")
    assert done_path(tmp_path, "peers").exists()


def test_run_parts_says_whether_every_part_exited_with_zero():
    assert run_parts([("runs",)], timeout=300.0)
    assert not run_parts([("no_such_part",)], timeout=60.0)
