"""``-o`` never replaces what it points at, for every command that writes: a FIFO's reader gets
the report and the FIFO stays a FIFO, a character device stays a device, a symlink stays a
link and its target gets the report, an existing file keeps its mode, a new one gets the
umask's, ``-`` and ``/dev/fd/N`` are descriptors, and a bad output is one line naming it.
Then the command-line side of the other items: one reader verdict, exact large exponential
gains in every format, a repeated keyword refused, gzip padding read.

No test here writes onto a system node (``/dev/null``, ``/dev/stdout``): a regression would
replace it on the machine that runs the tests.  The device is a private node made with mknod.
"""

from __future__ import annotations

import gzip
import json
import os
import stat
from pathlib import Path

import pytest

from rankaudit.cli import main
from rankaudit.runs.outputs import OutputError, write_output

RUN = "1 Q0 d1 1 0.5 t\n1 Q0 d2 2 0.5 t\n1 Q0 d3 3 0.3 t\n2 Q0 d1 1 0.2 t\n2 Q0 d4 2 0.1 t\n"
RUN_B = "1 Q0 d1 1 0.4 t\n1 Q0 d2 2 0.6 t\n1 Q0 d3 3 0.3 t\n2 Q0 d4 1 0.3 t\n2 Q0 d1 2 0.1 t\n"
QRELS = "1 0 d1 1\n1 0 d3 2\n2 0 d1 1\n2 0 d4 0\n"


@pytest.fixture
def files(tmp_path):
    run, run_b, qrels = tmp_path / "a.run", tmp_path / "b.run", tmp_path / "q.qrels"
    run.write_text(RUN)
    run_b.write_text(RUN_B)
    qrels.write_text(QRELS)
    return str(run), str(run_b), str(qrels)


def _commands(files) -> dict[str, list[str]]:
    run, run_b, qrels = files
    return {
        "audit": ["audit", qrels, run, "-m", "AP"],
        "compare": ["compare", qrels, run, run_b, "-m", "AP", "--n-perm", "100"],
        "checklist": ["checklist", qrels, run, "-m", "AP"],
        "leaderboard": ["leaderboard", qrels, run, run_b, "-m", "AP"],
    }


def _report(capsys, argv: list[str]) -> str:
    """What the command prints to standard output."""
    assert main(argv) == 0, capsys.readouterr().err
    return capsys.readouterr().out


def _error(capsys, argv: list[str]) -> str:
    code = main(argv)
    err = capsys.readouterr().err.strip().splitlines()
    assert code == 2 and len(err) == 1 and "Traceback" not in err[0], err
    return err[0]


COMMANDS = ["audit", "checklist", "compare", "leaderboard"]


@pytest.mark.parametrize("command", COMMANDS)
def test_a_fifo_gets_the_report_and_stays_a_fifo(capsys, files, tmp_path, command):
    argv = _commands(files)[command]
    want = _report(capsys, argv)
    fifo = tmp_path / "out.fifo"
    os.mkfifo(fifo)
    reader = os.open(fifo, os.O_RDONLY | os.O_NONBLOCK)  # the reader is there first
    try:
        assert main([*argv, "-o", str(fifo)]) == 0, capsys.readouterr().err
        got = b""
        while chunk := _read_some(reader):
            got += chunk
    finally:
        os.close(reader)
    assert stat.S_ISFIFO(os.lstat(fifo).st_mode), "the FIFO was replaced by a file"
    assert got.decode() == want


def _read_some(fd: int) -> bytes:
    try:
        return os.read(fd, 1 << 16)
    except BlockingIOError:
        return b""


def test_a_character_device_stays_a_device(capsys, files, tmp_path):
    null = tmp_path / "null"
    try:
        os.mknod(null, stat.S_IFCHR | 0o666, os.makedev(1, 3))  # a private /dev/null
    except PermissionError:
        pytest.skip("mknod needs CAP_MKNOD")
    argv = _commands(files)["audit"]
    assert main([*argv, "-o", str(null)]) == 0, capsys.readouterr().err
    assert stat.S_ISCHR(os.lstat(null).st_mode), "the device was replaced by a file"


@pytest.mark.parametrize("command", COMMANDS)
def test_a_symlink_stays_a_link_and_its_target_gets_the_report(capsys, files, tmp_path, command):
    argv = _commands(files)[command]
    want = _report(capsys, argv)
    target = tmp_path / "reports" / "target.txt"
    target.parent.mkdir()
    target.write_text("old\n")
    target.chmod(0o640)
    link = tmp_path / "link.txt"
    link.symlink_to(target)
    assert main([*argv, "-o", str(link)]) == 0, capsys.readouterr().err
    assert link.is_symlink() and os.readlink(link) == str(target)
    assert target.read_text() == want
    assert stat.S_IMODE(target.stat().st_mode) == 0o640
    assert sorted(p.name for p in target.parent.iterdir()) == ["target.txt"]  # no temp left


@pytest.mark.parametrize(("umask", "mode"), [(0o022, 0o644), (0o002, 0o664), (0o077, 0o600)])
def test_a_new_file_gets_the_umask_and_an_existing_one_keeps_its_mode(
    capsys, files, tmp_path, umask, mode
):
    argv = _commands(files)["audit"]
    old = os.umask(umask)
    try:
        new = tmp_path / "new.txt"
        assert main([*argv, "-o", str(new)]) == 0
        existing = tmp_path / "existing.txt"
        existing.write_text("x")
        existing.chmod(0o664)
        assert main([*argv, "-o", str(existing)]) == 0
    finally:
        os.umask(old)
    assert stat.S_IMODE(new.stat().st_mode) == mode
    assert stat.S_IMODE(existing.stat().st_mode) == 0o664
    assert existing.read_text() == new.read_text() != "x"


def test_dash_and_dev_fd_are_descriptors(capsys, files, tmp_path):
    argv = _commands(files)["audit"]
    want = _report(capsys, argv)
    assert _report(capsys, [*argv, "-o", "-"]) == want
    assert not (Path.cwd() / "-").exists()
    r, w = os.pipe()
    try:
        assert main([*argv, "-o", f"/dev/fd/{w}"]) == 0, capsys.readouterr().err
        os.close(w)
        got = b""
        while chunk := os.read(r, 1 << 16):
            got += chunk
    finally:
        os.close(r)
    assert got.decode() == want


def test_an_existing_output_is_appended_to_through_its_descriptor(tmp_path):
    log = tmp_path / "log.txt"
    log.write_text("first\n")
    fd = os.open(log, os.O_WRONLY | os.O_APPEND)
    try:
        write_output("second\n", f"/dev/fd/{fd}")
    finally:
        os.close(fd)
    assert log.read_text() == "first\nsecond\n"


def test_bad_outputs_are_one_line_naming_the_path(capsys, files, tmp_path):
    argv = _commands(files)["audit"]
    line = _error(capsys, [*argv, "-o", str(tmp_path / "missing_dir" / "x")])
    assert line.endswith(f"-o {tmp_path}/missing_dir/x: no such directory {tmp_path}/missing_dir")
    assert ".tmp" not in line
    line = _error(capsys, [*argv, "-o", str(tmp_path)])
    assert f"-o {tmp_path}: is a directory" in line
    line = _error(capsys, [*argv, "-o", files[0]])
    assert "refusing to overwrite an input" in line and Path(files[0]).read_text() == RUN
    loop = tmp_path / "loop"
    loop.symlink_to(loop)
    assert f"-o {loop}: cannot be written" in _error(capsys, [*argv, "-o", str(loop)])


def test_a_folder_nobody_may_write_in_names_the_output_not_the_temporary_file(capsys, files):
    """No one, root included, creates a file in /proc: the error names ``-o /proc/x``."""
    out = "/proc/rankaudit-report"
    line = _error(capsys, [*_commands(files)["audit"], "-o", out])
    assert line.startswith(f"rankaudit audit: error: -o {out}: cannot be written ("), line
    assert ".tmp" not in line and ".rankaudit-report." not in line
    with pytest.raises(OutputError, match=f"^-o {out}: cannot be written"):
        write_output("x", out)


@pytest.mark.parametrize("kind", ["file", "fifo", "dash"])
def test_distributed_refuses_an_output_that_is_not_a_folder_before_it_starts(
    capsys, tmp_path, kind
):
    path = tmp_path / "out"
    if kind == "file":
        path.write_text("keep")
    elif kind == "fifo":
        os.mkfifo(path)
    argv = ["rows", "--synthetic-rows", "10", "--rows-dir", "-" if kind == "dash" else str(path)]
    assert main(argv) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("rankaudit rows: error: --rows-dir "), err
    assert "scheduler" not in capsys.readouterr().out  # refused before a cluster started
    if kind == "file":
        assert path.read_text() == "keep"
    if kind == "fifo":
        assert stat.S_ISFIFO(os.lstat(path).st_mode)


# ---------------------------------------------------------------- the other items, end to end
def test_hex_labels_are_one_line_whatever_else_the_file_holds(capsys, tmp_path):
    run = tmp_path / "hex.run"
    run.write_text("q1 Q0 d1 1 2.0 r\nq1 Q0 d2 2 1.0 r\n")
    for other in ("0xFFFFFFFFFFFFFFFF", "+1"):
        qrels = tmp_path / "hex.qrels"
        qrels.write_text(f"q1 0 d1 0x10\nq1 0 d2 {other}\n")
        line = _error(capsys, ["audit", str(qrels), str(run), "-m", "nDCG@2", "NumRel"])
        assert line.endswith("hex.qrels:1: relevance '0x10' is not an integer")


def test_large_exponential_gains_are_exact_in_every_format(capsys, tmp_path):
    run = tmp_path / "exp.run"
    run.write_text("q1 Q0 d1 1 3.0 r\nq1 Q0 d2 2 2.0 r\nq1 Q0 d3 3 2.0 r\n")
    qrels = tmp_path / "exp1100.qrels"
    qrels.write_text("q1 0 d1 1100\nq1 0 d2 1\nq1 0 d3 0\n")
    base = ["audit", str(qrels), str(run), "-m", "nDCG(dcg='exp-log2')@3"]
    doc = json.loads(_report(capsys, [*base, "--format", "json"]))
    values = {row["ties"]: row["value"] for row in doc["aggregate"]}
    assert values and all(v == 1.0 for v in values.values()), values  # the ratio rounds to 1
    csv = _report(capsys, [*base, "--format", "csv"])
    table = _report(capsys, base)
    assert "nan" not in csv.lower() and "nan" not in table.lower()
    rows = [line.split(",") for line in csv.strip().splitlines()[1:]]
    assert {r[1]: float(r[2]) for r in rows} == values


def test_a_repeated_keyword_is_one_line(capsys, files):
    run, _, qrels = files
    line = _error(capsys, ["audit", qrels, run, "-m", "nDCG(gains={1:2}, gains={1:3})@3"])
    assert "parameter 'gains' is given twice" in line


def test_gzip_with_tape_padding_reads_as_the_plain_file(capsys, files, tmp_path):
    run, _, qrels = files
    padded = tmp_path / "padded.run"
    padded.write_bytes(gzip.compress(RUN.encode(), mtime=0) + b"\0" * 10240)
    plain = _report(capsys, ["audit", qrels, run, "-m", "AP", "--format", "json"])
    got = _report(capsys, ["audit", qrels, str(padded), "-m", "AP", "--format", "json"])
    assert json.loads(got)["aggregate"] == json.loads(plain)["aggregate"]
