"""Shared fixtures: the project paths, the chapters executed once at smoke parameters, the site."""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pytest

from rankaudit.measures.rules import RULES, TieRule
from rankbook.report.pipeline import (
    ChapterFailed,
    Paths,
    build_book,
    chapter_names,
    run_chapter,
    run_chapter_into,
)
from rankbook.report.preloaded_kernel import SERVER_ENV, refusal, start_server
from tests.chromium_probe import shared_probes
from tests.page_probes import FIT_PROBE
from tests.perturbed_results import perturb_file, seed_from_env
from tests.shared_work import claim, finish, once, shared_folder, wait_for
from tests.warm_kernels import run_parts, session_parts, wait_for_setup_warmup

ROOT = Path(__file__).resolve().parents[1]

#: A throwaway tie rule a user could register (ties in reverse input order), for the tests that
#: check a registered rule reaches every dispatch: the kernels, the run API and the command line.
REVERSED = TieRule(
    "reverse_input",
    "input position descending",
    "key",
    "score descending, ties in reverse input order",
    rows=True,
    runs=True,
    key=lambda ctx: np.negative(ctx.position()),
    input_dependent=True,
)


def pytest_sessionstart(session: pytest.Session) -> None:
    """Compile the numba kernels (and ranx's, where the setup did not) once, in up to four
    processes, before any worker starts (``tests/warm_kernels.py``): in a fresh clone every
    process would otherwise compile the same kernels. Runs in the process that starts the
    session (xdist's controller, or the one process); a failure here only costs the time, the
    tests then compile where they need."""
    if hasattr(session.config, "workerinput"):
        return
    wait_for_setup_warmup(Path(sys.prefix))  # the setup's own warm-up, if still compiling
    run_parts(session_parts(Path(sys.prefix)))


class KernelServer:
    """This worker's kernel server (:mod:`rankbook.report.preloaded_kernel`), named in
    ``RANKBOOK_KERNEL_SERVER``; :meth:`current` starts another when the worker's environment
    no longer matches the one the running server imported in (a library set ``OMP_NUM_THREADS``
    and the like in this process: dask's cluster does), since that server would refuse this
    worker's kernels."""

    def __init__(self, folder: Path) -> None:
        self.folder, self.started = folder, 0
        self.proc: subprocess.Popen | None = None
        self.env: dict[str, str] = {}

    def current(self) -> None:
        env, cwd = dict(os.environ), str(ROOT / "notebooks")
        if self.proc is not None and refusal({"cwd": cwd, "env": env}, self.env, cwd) is None:
            return
        self.stop()
        self.started += 1
        sock = self.folder / f"kernel{self.started}.sock"
        self.proc, self.env = start_server(sock, ROOT / "notebooks", wait=False), env
        os.environ[SERVER_ENV] = str(sock)

    def stop(self) -> None:
        if self.proc is not None:
            self.proc.terminate()
            self.proc.wait(timeout=60)
            self.proc = None


@pytest.fixture(scope="session")
def kernel_server() -> Iterator[KernelServer | None]:
    """A kernel server for this worker: every chapter this worker runs, and every command it
    starts that runs one, forks its kernel from a process that imported the chapters' stack
    once (about 3 CPU-seconds saved per chapter, some 45 chapters a run). Started without
    waiting: a chapter asked for before it listens gets a plain kernel. Its logs
    (``kernel<n>.sock.log``) say what it served and refused, and why."""
    if os.name != "posix":
        yield None
        return
    before = os.environ.get(SERVER_ENV)
    server = KernelServer(Path(tempfile.mkdtemp(prefix="rankbook-ks-")))
    try:
        yield server
    finally:
        server.stop()
        if before is None:
            os.environ.pop(SERVER_ENV, None)
        else:
            os.environ[SERVER_ENV] = before
        shutil.rmtree(server.folder, ignore_errors=True)


@pytest.fixture(autouse=True)
def _current_kernel_server(kernel_server: KernelServer | None) -> None:
    """Before each test, a kernel server that can serve this worker's environment."""
    if kernel_server is not None:
        kernel_server.current()


@pytest.fixture
def reversed_rule(monkeypatch: pytest.MonkeyPatch) -> str:
    """``reverse_input`` registered for one test (removed after it); its name."""
    monkeypatch.setitem(RULES, REVERSED.name, REVERSED)
    return REVERSED.name


@dataclass
class SmokeBook:
    paths: Paths
    failures: dict[str, str] = field(default_factory=dict)


#: Chapters that must run in one process, in this order: chapter 12 reads chapter 11's results.
ORDERED_UNITS = (("11_ablation", "12_sequence_models"),)
#: Units started first, the longest at smoke parameters first, so that two workers finish the
#: chapters at about the same time (only the speed depends on this list, never a result).
LONGEST_FIRST = (
    "11_ablation",
    "04_evaluator_audit",
    "14_evaluating_at_scale",
    "10_intent_aware_features",
    "06_amazon_audit",
    "09_heuristic_features",
    "18_leaderboard_ties",
    "15_audit_your_run",
)


def _chapter_units(names: list[str]) -> list[tuple[str, ...]]:
    """The chapters as units of shared work: the ordered groups, then one unit per chapter,
    the known longest first."""
    grouped = {name for unit in ORDERED_UNITS for name in unit}
    units = [unit for unit in ORDERED_UNITS if all(n in names for n in unit)]
    units += [(name,) for name in names if name not in grouped]
    rank = {name: i for i, name in enumerate(LONGEST_FIRST)}
    return sorted(units, key=lambda unit: rank.get(unit[0], len(rank)))


@pytest.fixture(scope="session")
def smoke_book(tmp_path_factory: pytest.TempPathFactory) -> SmokeBook:
    """Every chapter executed once per test run, at its smoke parameters, into a temporary build
    tree that every pytest worker reads (the workers split the chapters: ``tests/shared_work.py``).

    With ``RANKBOOK_PERTURB_RESULTS=<seed>`` set, every float of each chapter's own numbers in
    its results file is then moved by a random ±5% (``tests/perturbed_results.py``; the
    unmoved file is kept in ``results/unperturbed/``), so that every test reading the results
    shows it holds wherever a run's numbers fall. The files are moved once every chapter has
    run, not after each: a chapter may read an earlier chapter's results (chapter 12 reads
    chapter 11's), and it must execute on what that chapter computed.
    """
    seed = seed_from_env()
    tmp = shared_folder(tmp_path_factory, "smoke_book")
    marks = shared_folder(tmp_path_factory, "smoke_book_claims")
    book = tmp / "book"
    paths = Paths(ROOT, ROOT / "notebooks", book, book / "chapters", tmp / "results")
    once(
        marks,
        "book",
        lambda: shutil.copytree(
            ROOT / "book", book, ignore=shutil.ignore_patterns("_build", "chapters"), symlinks=False
        ),
    )
    names = chapter_names(paths.notebooks)
    for unit in _chapter_units(names):
        if not claim(marks, unit[0]):
            continue
        failed = False
        for name in unit:
            error = None
            if failed:
                error = f"not run: {unit[0]} failed before it"
            else:
                try:
                    run_chapter(name, paths=paths, smoke=True, log=lambda *_: None)
                except ChapterFailed as err:
                    error, failed = str(err), True
                except BaseException as err:  # mark it, so that no other worker waits on it
                    finish(marks, name, f"{type(err).__name__}: {err}")
                    raise
            finish(marks, name, error)
    result = SmokeBook(paths, wait_for(marks, names))
    if seed is not None:
        moved = [name for name in names if name not in result.failures]
        once(
            marks,
            "perturb",
            lambda: [perturb_file(paths.results / f"{n}.json", seed) for n in moved],
        )
    return result


@pytest.fixture(scope="session")
def site(smoke_book: SmokeBook, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The site built strictly, once per test run, from the smoke-executed chapters (its
    ``_build/html``); one worker builds it, the others wait for it."""
    assert not smoke_book.failures, f"chapters failed: {sorted(smoke_book.failures)}"
    paths = smoke_book.paths
    marks = shared_folder(tmp_path_factory, "smoke_book_claims")
    html = paths.book / "_build" / "html"

    def build() -> None:
        built = build_book(paths.book, paths.executed, results=paths.results, log=lambda *_: None)
        assert built == html, f"the site was built into {built}, not {html}"

    once(marks, "site", build)
    return html


@pytest.fixture(scope="session")
def fit_probes(site: Path, tmp_path_factory: pytest.TempPathFactory):
    """``fit_probes(pages)``: for each page of the site, ``(what FIT_PROBE reported, the DOM
    Chromium printed after it)`` at 1280 x 800, each page run once per test run and the pages
    split between the workers that ask (:func:`tests.chromium_probe.shared_probes`)."""
    folder = shared_folder(tmp_path_factory, "fit_probes")
    return lambda pages: shared_probes(folder, list(pages), FIT_PROBE, width=1280, height=800)


@pytest.fixture(scope="session")
def shared_rerun(tmp_path_factory: pytest.TempPathFactory):
    """``shared_rerun(chapter, params)``: the folder a student's rerun of ``chapter`` at its smoke
    size with ``params`` on top writes (:func:`rankbook.report.pipeline.run_chapter_into`), run
    once per test run for every test and worker that asks for the same rerun (the exercise
    sheets' test and the grader's run session 1's first two exercises alike). Read it; copy it
    to change it."""
    folder = shared_folder(tmp_path_factory, "reruns")

    def rerun(chapter: str, params: dict) -> Path:
        text = json.dumps([chapter, params], sort_keys=True)
        unit = f"{chapter}-{hashlib.sha256(text.encode()).hexdigest()[:16]}"
        out = folder / unit

        def work() -> None:
            base = Paths(ROOT, ROOT / "notebooks", out / "book", out / "ex", out / "res")
            run_chapter_into(
                chapter, out / "run", params, paths=base, smoke=True, log=lambda *_: None
            )

        once(folder, unit, work)
        return out / "run"

    return rerun
