"""The setup's background kernel warm-up and the test session's wait for it
(``tests/warm_kernels.py``): the session waits while the lock is held, and not after."""

from __future__ import annotations

import fcntl
import time

from tests.warm_kernels import lock_path, wait_for_setup_warmup


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
