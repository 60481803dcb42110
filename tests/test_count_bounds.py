"""Every count a user can pass is bounded (``rankaudit._checks.check_count``): beyond the
bound, one line that states the bound and why, before any work; at the bound, accepted.

Before the bounds, ``leaderboard --n-perm 100000000000`` and ``checklist --n-permutations
100000000`` ran until killed and ``compare --n-boot 100000000000`` ended out of memory: the
command-line cases run in a subprocess with a timeout, so such a regression fails, not hangs.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from rankaudit._checks import (
    BOOTSTRAP_RESAMPLES,
    MONTE_CARLO_DRAWS,
    RANDOM_REPEATS,
    RERUNS,
    SIGN_FLIPS,
    WORKERS,
    CountBound,
    check_count,
)

ROOT = Path(__file__).resolve().parents[1]
RUN = "1 Q0 d1 1 0.5 t\n1 Q0 d2 2 0.5 t\n1 Q0 d3 3 0.3 t\n2 Q0 d1 1 0.2 t\n2 Q0 d4 2 0.1 t\n"
QRELS = "1 0 d1 1\n1 0 d3 2\n2 0 d4 1\n"


def test_check_count_states_the_bound_and_why():
    bound = CountBound(10, "ten is plenty")
    assert check_count(np.int64(10), "n", bound) == 10
    with pytest.raises(ValueError, match=r"^n must be an integer in \[1, 10\]; got 11 \(ten is"):
        check_count(11, "n", bound)
    with pytest.raises(ValueError, match=r"n must be an integer >= 1; got 0"):
        check_count(0, "n", bound)
    with pytest.raises(ValueError, match="must be an integer"):
        check_count(2.0, "n", bound)


@pytest.fixture
def files(tmp_path):
    (tmp_path / "r.run").write_text(RUN)
    (tmp_path / "s.run").write_text(RUN.replace("0.5 t", "0.4 t", 1))
    (tmp_path / "q.qrels").write_text(QRELS)
    return tmp_path


@pytest.mark.parametrize(
    ("argv", "flag", "bound"),
    [
        (
            ["leaderboard", "q.qrels", "r.run", "s.run", "--n-perm", "100000000000"],
            "--n-perm",
            SIGN_FLIPS,
        ),
        (["leaderboard", "q.qrels", "r.run", "s.run", "--workers", "100000"], "--workers", WORKERS),
        (
            ["checklist", "q.qrels", "r.run", "--n-permutations", "100000000"],
            "--n-permutations",
            RERUNS,
        ),
        (
            ["compare", "q.qrels", "r.run", "s.run", "--n-boot", "100000000000"],
            "--n-boot",
            BOOTSTRAP_RESAMPLES,
        ),
        (
            ["compare", "q.qrels", "r.run", "s.run", "--n-perm", "100000000000"],
            "--n-perm",
            SIGN_FLIPS,
        ),
    ],
)
def test_commands_refuse_counts_beyond_their_bound_in_one_line(files, argv, flag, bound):
    proc = subprocess.run(
        [sys.executable, "-m", "rankaudit", *argv],
        capture_output=True,
        text=True,
        cwd=files,
        env=dict(os.environ, PYTHONPATH=str(ROOT / "src")),
        timeout=120,
    )
    err = proc.stderr.strip().splitlines()
    assert proc.returncode == 2 and len(err) == 1, proc.stderr
    assert f"{flag} must be an integer in [1, {bound.most}]; got" in err[0]
    assert bound.why in err[0]
    assert proc.stdout == ""


@pytest.mark.parametrize(
    ("argv", "bound"),
    [
        (["leaderboard", "--help"], SIGN_FLIPS),
        (["leaderboard", "--help"], WORKERS),
        (["checklist", "--help"], RERUNS),
        (["compare", "--help"], BOOTSTRAP_RESAMPLES),
        (["compare", "--help"], SIGN_FLIPS),
    ],
)
def test_help_states_the_bounds(capsys, argv, bound):
    from rankaudit.cli import main

    with pytest.raises(SystemExit):
        main(argv)
    assert f"1..{bound.most}" in " ".join(capsys.readouterr().out.split())


def _library_calls():
    from rankaudit.runs.significance import (
        equivalence_lift_difference,
        paired_bootstrap_lift,
        paired_bootstrap_test,
        paired_lift_difference,
        paired_randomisation_test,
    )
    from rankaudit.ties.evaluate import evaluate
    from rankaudit.ties.invariance import audit_row_order
    from rankbook.ties.montecarlo import random_tie_draws

    a, b = np.array([0.2, 0.4, 0.5]), np.array([0.3, 0.4, 0.7])
    s, y = np.array([[1.0, 1.0, 0.5]]), np.array([[0, 1, 0]])
    return [
        ("n_perm", SIGN_FLIPS, lambda n: paired_randomisation_test(a, b, n_perm=n)),
        ("n_boot", BOOTSTRAP_RESAMPLES, lambda n: paired_bootstrap_lift(a, b, n_boot=n)),
        ("n_boot", BOOTSTRAP_RESAMPLES, lambda n: paired_lift_difference(a, b, a, n_boot=n)),
        ("n_boot", BOOTSTRAP_RESAMPLES, lambda n: paired_bootstrap_test(a, b, n_boot=n)),
        (
            "n_boot",
            BOOTSTRAP_RESAMPLES,
            lambda n: equivalence_lift_difference(a, b, a, margin_pct=1.0, n_boot=n),
        ),
        ("n_repeats", RANDOM_REPEATS, lambda n: evaluate(s, y, ties="random", n_repeats=n)),
        (
            "n_permutations",
            RERUNS,
            lambda n: audit_row_order(lambda s_, y_: s_.sum(axis=1), s, y, n_permutations=n),
        ),
        ("n_draws", MONTE_CARLO_DRAWS, lambda n: random_tie_draws(s, y, 1, n)),
    ]


@pytest.mark.parametrize("case", range(len(_library_calls())))
def test_library_counts_beyond_the_bound_are_refused_before_any_work(case):
    name, bound, call = _library_calls()[case]
    with pytest.raises(ValueError, match=rf"{name} must be an integer in \[1, {bound.most}\]"):
        call(bound.most + 1)


def test_leaderboard_run_checklist_and_cluster_counts(tmp_path):
    from rankaudit.checklists.from_run import run_checklist
    from rankaudit.distributed.cluster import connect
    from rankaudit.options import PermutationOptions
    from rankaudit.runs import audit_run, read_trec_qrels, read_trec_run
    from rankaudit.runs.leaderboard import build_leaderboard, leaderboard_rules

    (tmp_path / "r.run").write_text(RUN)
    (tmp_path / "q.qrels").write_text(QRELS)
    run, qrels = read_trec_run(tmp_path / "r.run"), read_trec_qrels(tmp_path / "q.qrels")
    audit = audit_run(run, qrels, ["P@1"], ties=leaderboard_rules([]))
    with pytest.raises(ValueError, match=rf"n_perm must be an integer in \[1, {SIGN_FLIPS.most}"):
        build_leaderboard(["a", "b"], [audit, audit], n_perm=SIGN_FLIPS.most + 1)
    with pytest.raises(ValueError, match=rf"n_permutations must be an integer in \[1, {RERUNS}"):
        run_checklist(run, qrels, permutation=PermutationOptions(RERUNS.most + 1))
    with pytest.raises(ValueError, match=rf"n_workers must be an integer in \[1, {WORKERS}"):
        with connect("local", WORKERS.most + 1):
            pass


def test_monte_carlo_draws_times_rows_is_bounded():
    from rankbook.ties.montecarlo import MAX_DRAWN_VALUES, random_tie_draws

    rows = MAX_DRAWN_VALUES // 1000 + 1
    s, y = np.zeros((rows, 2)), np.zeros((rows, 2))
    with pytest.raises(ValueError, match="n_draws x rows"):
        random_tie_draws(s, y, 1, 1000)


def test_at_the_bound_a_count_is_accepted():
    from rankaudit.runs.significance import paired_randomisation_test

    p = paired_randomisation_test(np.zeros(3), np.ones(3), n_perm=SIGN_FLIPS.most, chunk=10_000)
    assert 0 < p <= 1
