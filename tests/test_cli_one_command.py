"""Issue 34 item 6: one command line.

``rankaudit`` is the only console script; every subcommand that can use Dask takes
``--scheduler local|ADDRESS`` and gives the same bits as without it; QRELS comes first
everywhere (trec_eval's order) and two TREC files given the other way round are refused in one
line naming both; ``compare_runs`` from Python gives the statistics ``rankaudit compare`` prints.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import tomllib

from rankaudit import compare_runs, read_trec_qrels, read_trec_run
from rankaudit.cli import main
from rankaudit.options import ResamplingOptions
from rankaudit.runs.compare import compare_measures

ROOT = Path(__file__).resolve().parents[1]
RUN_A = "1 Q0 d1 1 0.5 a\n1 Q0 d2 2 0.5 a\n1 Q0 d3 3 0.3 a\n2 Q0 d1 1 0.2 a\n2 Q0 d4 2 0.2 a\n"
RUN_B = "1 Q0 d1 1 0.4 b\n1 Q0 d2 2 0.6 b\n1 Q0 d3 3 0.6 b\n2 Q0 d4 1 0.3 b\n2 Q0 d1 2 0.1 b\n"
RUN_C = "1 Q0 d3 1 0.9 c\n1 Q0 d1 2 0.1 c\n2 Q0 d4 1 0.5 c\n2 Q0 d1 2 0.5 c\n3 Q0 d7 1 1 c\n"
QRELS = "1 0 d1 1\n1 0 d3 2\n2 0 d1 1\n2 0 d4 0\n3 0 d7 1\n"


@pytest.fixture
def files(tmp_path) -> dict[str, str]:
    out = {}
    for name, text in {"a.run": RUN_A, "b.run": RUN_B, "c.run": RUN_C, "q.qrels": QRELS}.items():
        (tmp_path / name).write_text(text)
        out[name] = str(tmp_path / name)
    return out


def _json(capsys, argv: list[str]) -> dict:
    code = main([*argv, "--format", "json"])
    captured = capsys.readouterr()
    assert code == 0, captured.err
    return json.loads(captured.out)


def test_exactly_one_console_script():
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    assert project["scripts"] == {"rankaudit": "rankaudit.cli:main"}
    assert not (ROOT / "src/rankaudit/distributed/cli.py").exists()
    assert not (ROOT / "src/rankaudit/distributed/__main__.py").exists()


def _without_timing(doc: dict) -> dict:
    return {k: v for k, v in doc.items() if k not in ("inputs",)}


@pytest.mark.parametrize(
    "argv",
    [
        ["audit", "{q}", "{a}", "-m", "nDCG@10", "AP", "RR", "--ties", "trec_eval", "expected"],
        ["leaderboard", "{q}", "{a}", "{b}", "{c}", "-m", "AP", "P@2", "--n-perm", "50"],
        ["rows", "--synthetic-rows", "300", "--ties", "expected", "hash", "random", "--k", "5"],
        ["rows", "--synthetic-rows", "200", "-m", "AP", "NumRelRet", "nDCG@3"],
    ],
    ids=["audit", "leaderboard", "rows", "rows-measures"],
)
def test_scheduler_local_gives_the_same_bits(capsys, files, argv):
    pytest.importorskip("distributed")
    argv = [
        a.format(q=files["q.qrels"], a=files["a.run"], b=files["b.run"], c=files["c.run"])
        for a in argv
    ]
    alone = _json(capsys, argv)
    on_dask = _json(capsys, [*argv, "--scheduler", "local", "--workers", "2"])
    assert _without_timing(on_dask) == _without_timing(alone)  # floats compared exactly


@pytest.mark.parametrize("command", ["audit", "checklist", "compare", "leaderboard"])
def test_swapped_qrels_and_run_are_one_line_naming_both(capsys, files, command):
    run, qrels = files["a.run"], files["q.qrels"]
    argv = [command, run, qrels]
    if command in ("compare", "leaderboard"):
        argv.append(files["b.run"])
    assert main(argv) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1, err
    assert err[0] == (
        f"rankaudit {command}: error: {run} looks like a run (6 columns) and {qrels} like "
        "qrels (4 columns): the order is QRELS RUN, as trec_eval's"
    )


def test_compare_runs_in_python_gives_the_cli_statistics(capsys, files):
    resampling = ResamplingOptions(n_perm=300, n_boot=200, seed=7)
    argv = ["compare", files["q.qrels"], files["a.run"], files["b.run"], "-m", "AP", "nDCG@3"]
    argv += ["--n-perm", "300", "--n-boot", "200", "--seed", "7"]
    cli = _json(capsys, argv)["comparisons"]
    run_a, run_b = read_trec_run(files["a.run"]), read_trec_run(files["b.run"])
    qrels = read_trec_qrels(files["q.qrels"])
    python = [
        c.summary()
        for c in compare_measures(run_a, run_b, qrels, ["AP", "nDCG@3"], resampling=resampling)
    ]
    assert cli == json.loads(json.dumps(python))
    for key in ("p_value_sign_flip", "lift_pct", "lift_ci_low", "lift_ci_high", "p_holm"):
        assert key in cli[0]
    one = compare_runs(run_a, run_b, qrels, "AP", resampling=resampling).summary()
    assert one["p_value_sign_flip"] == cli[0]["p_value_sign_flip"]
    assert one["lift_ci_low"] == cli[0]["lift_ci_low"]
    assert compare_runs(run_a, run_b, qrels, "AP", resampling=None).tests is None


def test_resampling_options_are_checked_by_the_one_validator():
    with pytest.raises(ValueError, match="n_perm must be an integer >= 1"):
        ResamplingOptions(n_perm=0)
    with pytest.raises(ValueError, match=r"n_boot must be an integer in \[1, "):
        ResamplingOptions(n_boot=10**12)
    with pytest.raises(ValueError, match="seed must be an integer"):
        ResamplingOptions(seed=1.5)


def test_leaderboard_in_python_gives_the_cli_board(capsys, files):
    from rankaudit import leaderboard

    argv = ["leaderboard", files["q.qrels"], files["a.run"], files["b.run"], files["c.run"]]
    argv += ["-m", "AP", "P@2", "--n-perm", "50", "--seed", "3"]
    cli = _json(capsys, argv)
    qrels = read_trec_qrels(files["q.qrels"])
    runs = {name: read_trec_run(files[name]) for name in ("a.run", "b.run", "c.run")}
    board = leaderboard(runs, qrels, ["AP", "P@2"], resampling=ResamplingOptions(50, 2, 3))
    python = json.loads(json.dumps(board.records()))
    for key in ("values", "pairs", "kendall_tau", "tie_decided_pairs", "rankings"):
        assert python[key] and python[key] == cli[key], key  # the CLI names a run by its file name
    with pytest.raises(TypeError, match="resampling must be a ResamplingOptions"):
        leaderboard(runs, qrels, resampling={"n_perm": 50})
