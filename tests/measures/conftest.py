"""Shared helpers of the core's tests: tie-free random runs and the peers in a child process."""

from __future__ import annotations

import atexit
import json
import selectors
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

import numpy as np

from rankaudit.runs.tables import Qrels, Run

WORKER = Path(__file__).with_name("peer_worker.py")


def tie_free_run_and_qrels(seed: int, n_queries: int = 30, low: int = -1, high: int = 4):
    """Nested dicts ``run[q][doc] = score`` (distinct scores) and ``qrels[q][doc] = label``
    (graded, ``low..high``); query ids are numbers (gdeval accepts nothing else)."""
    rng = np.random.default_rng(seed)
    run: dict[str, dict[str, float]] = {}
    qrels: dict[str, dict[str, int]] = {}
    for q in range(n_queries):
        qid = str(100 + q)
        docs = [f"d{i}" for i in rng.choice(60, int(rng.integers(1, 45)), replace=False)]
        scores = rng.permutation(len(docs)) / 3.0 + 0.25
        run[qid] = {d: float(s) for d, s in zip(docs, scores, strict=True)}
        judged = [f"d{i}" for i in rng.choice(60, int(rng.integers(1, 30)), replace=False)]
        qrels[qid] = {d: int(rng.integers(low, high + 1)) for d in judged}
    return run, qrels


def tables(run: dict, qrels: dict) -> tuple[Run, Qrels]:
    """The nested dicts as rankaudit's in-memory Run and Qrels."""
    rq = [q for q in run for _ in run[q]]
    rd = [d for q in run for d in run[q]]
    rs = [s for q in run for s in run[q].values()]
    qq = [q for q in qrels for _ in qrels[q]]
    qd = [d for q in qrels for d in qrels[q]]
    ql = [v for q in qrels for v in qrels[q].values()]
    return Run.from_arrays(rq, rd, rs), Qrels.from_arrays(qq, qd, ql)


_worker: list[tuple[subprocess.Popen, Any]] = []  # this pytest process's peer worker, if any


def _peer_worker() -> tuple[subprocess.Popen, Any]:
    if _worker and _worker[0][0].poll() is None:
        return _worker[0]
    _stop_worker()
    errors = tempfile.TemporaryFile(mode="w+")
    proc = subprocess.Popen(
        [sys.executable, str(WORKER)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=errors,
        text=True,
    )
    _worker.append((proc, errors))
    return proc, errors


def _stop_worker() -> None:
    while _worker:
        proc, errors = _worker.pop()
        proc.kill()
        proc.wait()
        errors.close()


atexit.register(_stop_worker)


def ask_peers(run: dict, qrels: dict, level: int, asks: list[list[str]], timeout: int = 600):
    """``{key: {query: value}}`` from the peers, in a child process (``peer_worker.py``) with a
    timeout: one process answers this pytest process's jobs; a job that fails, or outlasts
    ``timeout`` seconds, fails its test with the worker's stderr and ends the worker (the next
    job starts another)."""
    proc, errors = _peer_worker()
    job = json.dumps({"run": run, "qrels": qrels, "level": level, "asks": asks})
    line = ""
    try:
        proc.stdin.write(job + "\n")
        proc.stdin.flush()
        ready = selectors.DefaultSelector()
        ready.register(proc.stdout, selectors.EVENT_READ)
        if ready.select(timeout):
            line = proc.stdout.readline()
    except OSError:
        line = ""
    if not line:
        errors.seek(0)
        tail = errors.read()[-3000:]
        _stop_worker()
        raise AssertionError(f"the peer worker gave no answer within {timeout} s: {tail}")
    return json.loads(line)
