"""``rankaudit leaderboard`` end to end in a subprocess: the "done when" list of the command."""

from __future__ import annotations

import itertools
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from scipy import stats

from rankaudit.cli import main as cli_main
from rankbook.data.track import simulate_track, write_track
from tests.cli_process import run_cli

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="module")
def track20(tmp_path_factory):
    """20 runs with heavy ties (3 score levels, 40 documents a query)."""
    folder = tmp_path_factory.mktemp("track20")
    write_track(folder, simulate_track(20, 40, 40, n_levels=3, spread=0.8, seed=11))
    return folder


def test_json_matches_audit_tau_scipy_intervals_and_tie_pairs(track20, tmp_path):
    out = tmp_path / "board.json"
    measures = ["nDCG@10", "AP", "RR"]
    proc = run_cli(
        "leaderboard",
        track20 / "qrels.txt",
        track20 / "runs",
        "-m",
        *measures,
        "--n-perm",
        "200",
        "--format",
        "json",
        "-o",
        out,
    )
    assert proc.returncode == 0, proc.stderr
    doc = json.loads(out.read_text())
    assert {
        "runs",
        "values",
        "envelopes",
        "rankings",
        "kendall_tau",
        "rank_intervals",
        "tie_decided_pairs",
        "pairs",
        "n_queries",
        "inputs",
    } <= set(doc)
    names = [r["name"] for r in doc["runs"]]
    assert len(names) == 20 and all(len(r["sha256"]) == 64 for r in doc["runs"])
    # each run's numbers are exactly those of `rankaudit audit` on that run alone
    for run in doc["runs"]:
        single = tmp_path / f"{run['name']}.json"
        assert (
            cli_main(
                [
                    "audit",
                    str(track20 / "qrels.txt"),
                    run["path"],
                    "-m",
                    *measures,
                    "--format",
                    "json",
                    "-o",
                    str(single),
                ]
            )
            == 0
        )
        alone = json.loads(single.read_text())
        mine = [
            {k: v for k, v in r.items() if k != "run"}
            for r in doc["values"]
            if r["run"] == run["name"]
        ]
        assert mine == alone["aggregate"]
        env = {r["measure"]: r for r in alone["envelope"]}
        for e in (e for e in doc["envelopes"] if e["run"] == run["name"]):
            for key in ("pessimistic", "expected", "optimistic", "moved_share"):
                assert e[key] == env[e["measure"]][key]
    orders = {(r["measure"], r["ties"]): r["order"] for r in doc["rankings"]}
    # Kendall's tau is scipy's on the stated orders
    for t in doc["kendall_tau"]:
        a, b = orders[(t["measure"], t["rule_a"])], orders[(t["measure"], t["rule_b"])]
        pos_b = {n: k for k, n in enumerate(b)}
        assert t["tau"] == pytest.approx(
            stats.kendalltau(range(len(a)), [pos_b[n] for n in a]).statistic, abs=1e-12
        )
    # trec_eval and expected ranks lie inside each rank interval
    interval = {(r["measure"], r["run"]): (r["best"], r["worst"]) for r in doc["rank_intervals"]}
    for (m, rule), order in orders.items():
        for k, run in enumerate(order, start=1):
            best, worst = interval[(m, run)]
            assert best <= k <= worst, (m, rule, run)
    # every pair whose order differs between two rules is listed
    listed = {(p["measure"], frozenset((p["run_a"], p["run_b"]))) for p in doc["tie_decided_pairs"]}
    rules = [r["ties"] for r in doc["rankings"] if r["measure"] == measures[0]]
    n_differ = 0
    for m in measures:
        for a, b in itertools.combinations(names, 2):
            if any(
                (orders[(m, r1)].index(a) < orders[(m, r1)].index(b))
                != (orders[(m, r2)].index(a) < orders[(m, r2)].index(b))
                for r1, r2 in itertools.combinations(rules, 2)
            ):
                n_differ += 1
                assert (m, frozenset((a, b))) in listed
    assert n_differ > 0
    assert doc["n_queries"] == 40 and len(doc["pairs"]) == 3 * 190


def _small_track(folder: Path) -> Path:
    write_track(folder, simulate_track(4, 6, 8, n_levels=2, seed=2))
    return folder


def test_local_cluster_output_is_byte_identical_to_one_process(tmp_path):
    track = _small_track(tmp_path)
    common = [
        "leaderboard",
        track / "qrels.txt",
        f"{track}/runs/*.run",
        "-m",
        "nDCG@10",
        "AP",
        "--n-perm",
        "100",
        "--format",
        "json",
    ]
    one = run_cli(*common, "-o", tmp_path / "one.json")
    two = run_cli(*common, "-o", tmp_path / "two.json", "--scheduler", "local", "--workers", "2")
    assert one.returncode == 0 and two.returncode == 0, one.stderr + two.stderr
    assert (tmp_path / "one.json").read_bytes() == (tmp_path / "two.json").read_bytes()


@pytest.mark.parametrize("scheduler", [[], ["--scheduler", "local", "--workers", "2"]])
def test_malformed_line_names_file_and_line_and_writes_nothing(tmp_path, scheduler):
    track = _small_track(tmp_path)
    bad = track / "runs" / "system-02.run"
    lines = bad.read_text().splitlines()
    lines[6] = lines[6].rsplit(" ", 2)[0] + " not-a-score tag"
    bad.write_text("\n".join(lines) + "\n")
    out = tmp_path / "board.json"
    proc = run_cli(
        "leaderboard",
        track / "qrels.txt",
        track / "runs",
        "--format",
        "json",
        "-o",
        out,
        *scheduler,
    )
    assert proc.returncode == 2, proc.stderr
    err = proc.stderr.strip().splitlines()
    assert len(err) == 1 and "Traceback" not in proc.stderr, proc.stderr
    assert f"{bad}:7" in err[0]
    assert not out.exists()


def test_usage_errors_are_one_line(tmp_path):
    track = _small_track(tmp_path)
    proc = run_cli("leaderboard", track / "qrels.txt", track / "runs", "--baseline", "nope.run")
    assert proc.returncode == 2 and "nope.run" in proc.stderr
    assert len(proc.stderr.strip().splitlines()) == 1
    proc = run_cli("leaderboard", track / "qrels.txt", f"{track}/nothing-*.run")
    assert proc.returncode == 2 and "no run file matches" in proc.stderr
    proc = run_cli("leaderboard", "--help")
    assert proc.returncode == 0 and "rank interval" in proc.stdout
    assert "pessimistic value > this run's optimistic" in proc.stdout


def test_table_and_csv_formats(tmp_path):
    track = _small_track(tmp_path)
    out = tmp_path / "board.csv"
    args = ["leaderboard", str(track / "qrels.txt"), str(track / "runs"), "-m", "nDCG@10", "RR"]
    assert cli_main([*args, "--n-perm", "50", "--format", "csv", "-o", str(out)]) == 0
    import pandas as pd

    table = pd.read_csv(out)
    assert len(table) == 2 * 4 and {"rank_trec_eval", "rank_expected", "best", "worst"} <= set(
        table.columns
    )
    assert (
        (table["best"] <= table["rank_trec_eval"]) & (table["rank_trec_eval"] <= table["worst"])
    ).all()
    text = tmp_path / "board.txt"
    assert cli_main([*args, "--n-perm", "50", "--baseline", "system-00.run", "-o", str(text)]) == 0
    body = text.read_text()
    assert "== nDCG@10 ==" in body and "== RR ==" in body and "Kendall tau" in body


def test_queries_answered_by_only_some_runs_are_counted_and_pipes_work(tmp_path, capsys):
    """The reader contract on the leaderboard: a judged query only one run of a pair answered is
    counted, never dropped unsaid; runs may be pipes (read once, digests from the readers)."""
    qrels = tmp_path / "q.qrels"
    qrels.write_text("".join(f"{q} 0 d1 1\n" for q in (1, 2, 3, 4)))
    full = "".join(f"{q} Q0 d1 1 0.5 t\n{q} Q0 d2 2 0.5 t\n" for q in (1, 2, 3, 4))
    (tmp_path / "a.run").write_text(full)
    (tmp_path / "b.run").write_text(full.replace("4 Q0 d1 1 0.5 t\n4 Q0 d2 2 0.5 t\n", ""))
    out = tmp_path / "board.json"
    argv = ["leaderboard", str(qrels), str(tmp_path / "a.run"), str(tmp_path / "b.run")]
    assert cli_main([*argv, "--format", "json", "-o", str(out), "--n-perm", "50"]) == 0
    pair = json.loads(out.read_text())["pairs"][0]
    assert (pair["n_queries"], pair["n_queries_only_in_a"], pair["n_queries_only_in_b"]) == (
        3,
        1,
        0,
    )
    assert cli_main([*argv, "--n-perm", "50"]) == 0
    assert "answered by only one run of the pair" in capsys.readouterr().out
    assert cli_main([*argv, "-o", str(qrels)]) == 2
    assert "refusing to overwrite an input" in capsys.readouterr().err
    proc = subprocess.run(
        [
            "bash",
            "-c",
            f"{sys.executable} -m rankaudit leaderboard q.qrels <(cat a.run) b.run "
            "--format json --n-perm 50",
        ],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        timeout=300,
        env=dict(os.environ, PYTHONPATH=str(ROOT / "src")),
    )
    assert proc.returncode == 0, proc.stderr
    digests = {r["name"]: r["sha256"] for r in json.loads(proc.stdout)["inputs"]}
    assert len(set(digests.values())) == 3 and all(len(d) == 64 for d in digests.values())


def test_a_busy_dashboard_port_does_not_reach_stderr(tmp_path):
    """Two clusters on one machine (two leaderboards, or a book build beside a test run): the
    scheduler's HTTP port 8787 is taken, and the error is still the one line it was."""
    import socket

    held = socket.socket()
    try:
        held.bind(("0.0.0.0", 8787))
    except OSError:  # already taken by something else: the condition under test holds anyway
        held.close()
        held = None
    else:
        held.listen()
    try:
        test_malformed_line_names_file_and_line_and_writes_nothing(
            tmp_path, ["--scheduler", "local", "--workers", "2"]
        )
    finally:
        if held is not None:
            held.close()


def _two_runs_sharing_one_query(folder: Path) -> list[str]:
    (folder / "q.qrels").write_text("q1 0 d1 1\nq2 0 d1 1\nq3 0 d1 1\n")
    (folder / "a.run").write_text("q1 Q0 d1 1 1 a\nq2 Q0 d1 1 1 a\n")
    (folder / "b.run").write_text("q2 Q0 d1 1 1 b\nq3 Q0 d2 1 1 b\n")
    (folder / "c.run").write_text("q1 Q0 d1 1 1 c\nq2 Q0 d2 1 1 c\nq3 Q0 d1 1 1 c\n")
    return ["leaderboard", *(str(folder / n) for n in ("q.qrels", "a.run", "b.run", "c.run"))]


def test_a_pair_sharing_one_query_is_marked_not_computed_in_every_format(tmp_path, capsys):
    """Runs a and b share one judged query: the leaderboard is still built (exit 0) and the
    pair's tests say "not computed" with the reason, in the table, the CSV and the JSON."""
    import pandas as pd

    argv = [*_two_runs_sharing_one_query(tmp_path), "-m", "P@1", "--n-perm", "50"]
    reason = "runs 'a.run' and 'b.run' share 1 evaluated query: a paired test needs at least 2"
    assert cli_main(argv) == 0, capsys.readouterr().err
    text = capsys.readouterr().out
    assert "== P@1 ==" in text and f"tests of a.run and b.run not computed: {reason}" in text
    row = next(x for x in text.splitlines() if x.startswith("a.run b.run"))
    assert row.count("not computed") == 4 and "nan" not in text.lower()

    assert cli_main([*argv, "--format", "json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    pair = next(p for p in doc["pairs"] if (p["run_a"], p["run_b"]) == ("a.run", "b.run"))
    assert pair["computed"] is False and pair["reason"] == reason and pair["p_value"] is None
    assert sum(p["computed"] for p in doc["pairs"]) == 2

    out = tmp_path / "pairs.csv"
    assert cli_main([*argv, "--format", "csv", "--table", "pairs", "-o", str(out)]) == 0
    pairs = pd.read_csv(out, keep_default_na=False)
    ab = pairs[(pairs["run_a"] == "a.run") & (pairs["run_b"] == "b.run")].iloc[0]
    assert ab["computed"] == False and ab["reason"] == reason and ab["p_value"] == ""  # noqa: E712
    assert "nan" not in out.read_text().lower()
    assert cli_main([*argv, "--format", "csv"]) == 0  # the runs table, as before
    assert "rank_trec_eval" in capsys.readouterr().out
    assert cli_main([*argv, "--table", "pairs"]) == 2
    assert "--table pairs applies to --format csv only" in capsys.readouterr().err


def _bash(command: str, cwd: Path) -> subprocess.CompletedProcess:
    return subprocess.run(
        ["bash", "-c", command],
        capture_output=True,
        text=True,
        cwd=cwd,
        timeout=300,
        env=dict(os.environ, PYTHONPATH=str(ROOT / "src")),
    )


def test_pipes_and_stdin_under_dask_give_the_one_process_output(tmp_path):
    """Runs and qrels read through pipes (``<(cat a.run)``) or standard input (``-``) are read
    once, in the client, and shipped to the workers: the output of ``--scheduler local`` is
    byte for byte the output of one process.  Such runs are named by position and argument
    (``run 1 (/dev/fd/63)``, ``run 1 (<stdin>)``), never by the pipe's number ("63")."""
    write_track(tmp_path, simulate_track(3, 6, 8, n_levels=2, seed=2))
    a, b, c = (f"runs/system-0{k}.run" for k in range(3))
    rankaudit = f"{sys.executable} -m rankaudit leaderboard"
    tail = "-m nDCG@10 AP --n-perm 50 --format json"
    dask = "--scheduler local --workers 2"
    for command in (
        f"{rankaudit} qrels.txt <(cat {a}) <(cat {b}) {c} {tail}",
        f"cat {a} | {rankaudit} <(cat qrels.txt) - {b} --baseline - {tail}",
    ):
        one, two = _bash(command, tmp_path), _bash(f"{command} {dask}", tmp_path)
        assert one.returncode == 0 and two.returncode == 0, one.stderr + two.stderr
        assert one.stdout == two.stdout, command
        doc = json.loads(one.stdout)
        names = [r["name"] for r in doc["runs"]]
        assert not any(n.isdigit() for n in names), names
        assert all(len(r["sha256"]) == 64 for r in doc["inputs"])
        if "--baseline" in command:
            assert names == ["run 1 (<stdin>)", "system-01.run"]
            assert doc["baseline"] == "run 1 (<stdin>)"
            assert doc["inputs"][0]["name"].startswith("qrels (/dev/fd/")
        else:
            assert names[0].startswith("run 1 (/dev/fd/") and names[1].startswith("run 2 (/dev/")
            assert names[2] == "system-02.run"
    proc = _bash(f"cat {a} | {rankaudit} qrels.txt - - {tail}", tmp_path)
    assert proc.returncode == 2 and "standard input (-) is given as two runs" in proc.stderr
    proc = _bash(f"cat qrels.txt | {rankaudit} - - {b} {tail}", tmp_path)
    assert proc.returncode == 2 and "standard input (-) is both the qrels and a run" in proc.stderr
