"""Compile the library's numba kernels once, before the pytest workers start.

The kernels are ``numba.njit(cache=True)``: the first process that calls one with a new
signature compiles it (up to seconds) and writes it to ``src/**/__pycache__``; every later
process loads it.  In a fresh clone nothing is cached, and the two workers, the chapters'
kernels and the command-line tests' subprocesses would each compile the same signatures at
about the same time.  ``tests/conftest.py`` runs this file in four processes at the start of
a test session (``rows`` in two shards: the row kernels behind ``rankaudit.evaluate``;
``runs``: the list kernels behind ``rankaudit.audit_run``; ``peers``: ranx, a peer the tests
and chapter 4 call, whose Numba functions are cached in its own install and so start cold in
a fresh environment), on the input types the chapters and most tests use; a signature left
out is compiled where it is first used, as before. Nothing here is a test, and no result
depends on it: a cached kernel is the same machine code.

The setup (``make``'s install step) starts ``setup VENV library`` and ``setup VENV peers`` in
the background as soon as the library's own dependencies and ranx are installed, so that the
kernels compile on the core pip leaves idle while it installs the rest (torch, LightGBM, the site
tooling); each holds an exclusive lock (``VENV/.warm-library.lock``, ``.warm-peers.lock``) until
its kernels are written, then marks the stage done (``.warm-<stage>.done``). The test session's
start waits for both (:func:`wait_for_setup_warmup`), then runs what is left
(:func:`session_parts`): the library's parts, which find their kernels cached (a kernel edited
since the setup compiles there), and ranx's only where the setup did not finish them (ranx's
install does not change after the setup).

Usage: ``python tests/warm_kernels.py rows [SHARD N_SHARDS]``, ``... runs``, ``... peers`` or
``... setup VENV library|peers``.
"""

from __future__ import annotations

import fcntl
import os
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

__all__ = [
    "SETUP_PARTS",
    "done_path",
    "lock_path",
    "run_parts",
    "session_parts",
    "wait_for_setup_warmup",
    "warm_during_setup",
    "warm_peers",
    "warm_rows",
    "warm_runs",
]


def _readonly(array: np.ndarray) -> np.ndarray:
    out = array.copy()
    out.flags.writeable = False  # as a Parquet column or a memory map reaches the kernels
    return out


def warm_rows(shard: int = 0, n_shards: int = 1) -> None:
    """Every rule of rows on the input types the chapters pass (float64 and float32 scores,
    integer and float labels, integer and string ids); with ``n_shards``, every
    ``n_shards``-th input from ``shard`` on."""
    from rankaudit import evaluate, tie_prevalence
    from rankaudit.measures.rules import RULES

    rng = np.random.default_rng(0)
    n, m = 8, 6
    ids = {"int": np.arange(n * m).reshape(n, m), "str": np.arange(n * m).astype(str).reshape(n, m)}
    users = np.arange(n)
    binary = np.zeros((n, m), dtype=np.int8)
    binary[:, 0] = 1
    graded = rng.integers(0, 3, (n, m)).astype(np.float64)
    graded[:, 0] = 2.0
    scores = rng.integers(0, 3, (n, m)).astype(np.float64)
    # Every batch hands the kernels read-only arrays and narrows integer labels that fit to
    # int8 (rankaudit.ties.validation.Batch), so these three cover the chapters' input types:
    # float64 scores (from floats or integers) with 0/1 labels, with graded float labels, and
    # float32 scores (a Parquet column, the scale chapter's synthetic rows).
    inputs = [
        (scores, binary),
        (scores, graded),
        (_readonly(scores.astype(np.float32)), binary.astype(np.int64)),
    ]
    for s, labels in inputs[shard::n_shards]:
        tie_prevalence(s, labels, k=3)
        for name, rule in RULES.items():
            if rule.rows:
                evaluate(s, labels, k=3, ties=name, item_ids=ids["int"], user_ids=users)
    for name, rule in RULES.items():
        if rule.needs_items and shard == n_shards - 1:
            evaluate(scores, binary, k=3, ties=name, item_ids=ids["str"], user_ids=users)


def warm_runs() -> None:
    """Every rule of runs on a small tied run, with one measure of every family."""
    from rankaudit import audit_run
    from rankaudit.measures.registry import FAMILIES, parse_measure
    from rankaudit.measures.rules import RUN_TIE_RULES
    from rankaudit.runs.tables import Qrels, Run

    query = np.repeat(["q1", "q2", "q3"], 5)
    docno = np.array([f"d{i}" for i in range(len(query))])
    run = Run.from_arrays(query, docno, np.tile([3.0, 2.0, 2.0, 1.0, 1.0], 3))
    qrels = Qrels.from_arrays(query[::2], docno[::2], np.tile([2, 0, 1], 3)[: len(query[::2])])
    measures = []
    for family in FAMILIES.values():
        cut = "@5" if family.cutoff == "required" else ""
        measures.append(str(parse_measure(f"{family.name}{cut}")))
    for rule in RUN_TIE_RULES:
        audit_run(run, qrels, measures, ties=[rule])
    audit_run(run, qrels, measures, ties=list(RUN_TIE_RULES))


def warm_peers() -> None:
    """ranx's run and qrels builders and the metrics the tests and chapter 4 ask of it
    (``ndcg@k``, ``ndcg_burges``, ``rbp``), on integer labels and float scores; nothing when
    ranx is not installed."""
    try:
        import ranx
    except ImportError:
        return
    nested_qrels = {"q1": {"d1": 1, "d2": 2}, "q2": {"d3": 1}}
    nested_run = {"q1": {"d1": 0.5, "d2": 0.4, "d9": 0.3}, "q2": {"d3": 0.2, "d1": 0.1}}
    for qrels, run in (
        (ranx.Qrels(nested_qrels), ranx.Run(nested_run)),
        (ranx.Qrels.from_dict(nested_qrels), ranx.Run.from_dict(nested_run)),
    ):
        for metric in ("ndcg@10", "ndcg_burges@10", "rbp.8", "rbp.5"):
            ranx.evaluate(qrels, run, metric, return_mean=False)


#: what each background warm-up of the setup compiles, one process a part
SETUP_PARTS = {
    "library": (("rows", "0", "2"), ("rows", "1", "2"), ("runs",)),
    "peers": (("peers",),),
}


def lock_path(venv: Path, stage: str) -> Path:
    """The lock the setup's warm-up ``stage`` holds: ``<venv>/.warm-<stage>.lock``."""
    return Path(venv) / f".warm-{stage}.lock"


def done_path(venv: Path, stage: str) -> Path:
    """The mark the setup's warm-up ``stage`` leaves when every part of it finished:
    ``<venv>/.warm-<stage>.done``."""
    return Path(venv) / f".warm-{stage}.done"


def session_parts(venv: Path) -> list[tuple[str, ...]]:
    """The parts the test session's start runs: every part of ``library`` (cached after the
    setup, so quick; a kernel edited since compiles here), and those of ``peers`` unless the
    setup's warm-up marked them done."""
    return [
        part
        for stage, parts in SETUP_PARTS.items()
        if stage == "library" or not done_path(venv, stage).exists()
        for part in parts
    ]


def run_parts(parts, *, timeout: float = 900.0) -> bool:
    """Run each part (``("rows", "0", "2")``, ``("peers",)``, ...) of this file in a process of
    this interpreter, all at once; return when all are done, whether every part exited with 0
    (a part past ``timeout`` seconds is killed: a warm-up only saves time, the tests compile
    what is left)."""
    here = Path(__file__).resolve()
    jobs = [
        subprocess.Popen(
            [sys.executable, str(here), *part], cwd=here.parents[1], stdout=subprocess.DEVNULL
        )
        for part in parts
    ]
    ok = True
    for job in jobs:
        try:
            ok = job.wait(timeout=timeout) == 0 and ok
        except subprocess.TimeoutExpired:
            job.kill()
            ok = False
    return ok


def warm_during_setup(venv: str, stage: str) -> None:
    """Hold an exclusive lock (:func:`lock_path`) while the parts of ``stage``
    (:data:`SETUP_PARTS`: ``library``, the row kernels in two shards and the run kernels, once
    the library's dependencies are installed; ``peers``, ranx's functions, once everything is)
    compile in processes of this interpreter, at a lower priority (``nice`` 10: pip keeps its
    core, the kernels take what it leaves); return when all are done, leaving
    :func:`done_path` when every part finished."""
    os.nice(10)
    done_path(Path(venv), stage).unlink(missing_ok=True)
    with open(lock_path(Path(venv), stage), "a", encoding="utf-8") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        if run_parts(SETUP_PARTS[stage]):
            done_path(Path(venv), stage).touch()


def wait_for_setup_warmup(venv: Path, timeout: float = 900.0) -> None:
    """Block until no setup warm-up holds its lock in ``venv`` (at most ``timeout`` seconds in
    all); at once for a stage whose lock file does not exist (it was not started)."""
    deadline = time.monotonic() + timeout
    for stage in SETUP_PARTS:
        path = lock_path(venv, stage)
        if not path.exists():
            continue
        with open(path, encoding="utf-8") as handle:
            while True:
                try:
                    fcntl.flock(handle, fcntl.LOCK_SH | fcntl.LOCK_NB)
                    break
                except BlockingIOError:
                    if time.monotonic() > deadline:
                        return
                    time.sleep(0.5)


if __name__ == "__main__":
    parts = {"rows": warm_rows, "runs": warm_runs, "peers": warm_peers}
    if sys.argv[1] == "setup":
        warm_during_setup(sys.argv[2], sys.argv[3])
    else:
        parts[sys.argv[1]](*map(int, sys.argv[2:]))
