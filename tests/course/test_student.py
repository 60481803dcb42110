"""The student route's entry point (:mod:`rankbook.course.student`, run as a script): its
paths on Windows and POSIX layouts, its commands without a shell, and its environment files."""

from __future__ import annotations

import subprocess
import sys
from pathlib import PurePosixPath, PureWindowsPath

from rankbook.course.student import (
    MIN_PYTHON,
    TORCH_CPU_INDEX,
    folder_size,
    pip_install_commands,
    venv_python,
)
from tests.conftest import ROOT


def test_venv_python_on_windows_and_posix():
    win = PureWindowsPath(r"C:\Users\Ada Lovelace\rankaudit\.venv-student")
    assert venv_python(win) == PureWindowsPath(
        r"C:\Users\Ada Lovelace\rankaudit\.venv-student\Scripts\python.exe"
    )
    posix = PurePosixPath("/home/ada/rankaudit/.venv-student")
    assert venv_python(posix, windows=False) == posix / "bin" / "python"
    assert venv_python(posix, windows=True) == posix / "Scripts" / "python.exe"


def test_pip_commands_are_argument_lists_with_windows_paths():
    root = PureWindowsPath(r"C:\Users\Ada Lovelace\rankaudit")
    python = venv_python(root / ".venv-student")
    first, editable, check = pip_install_commands(python, root, full=False)
    assert first[0] == r"C:\Users\Ada Lovelace\rankaudit\.venv-student\Scripts\python.exe"
    assert first[-4:] == [
        "-r", r"C:\Users\Ada Lovelace\rankaudit\requirements\student.in",
        "-c", r"C:\Users\Ada Lovelace\rankaudit\requirements\lock.txt",
    ]  # fmt: skip
    assert editable[-4:] == ["-e", str(root), "-e", str(root / "src")]
    assert check[-2:] == ["pip", "check"]
    (full, *_) = pip_install_commands(python, root, full=True, system="win32")
    assert full[-1].endswith(r"requirements\lock.txt") and "-c" not in full
    assert TORCH_CPU_INDEX not in full  # PyPI's Windows and macOS torch wheels are CPU wheels
    (linux, *_) = pip_install_commands(PurePosixPath("/v/bin/python"), PurePosixPath("/r"),
                                       full=True, system="linux")
    assert linux[linux.index("--extra-index-url") + 1] == TORCH_CPU_INDEX


def test_folder_size_sums_files(tmp_path):
    (tmp_path / "a").mkdir()
    (tmp_path / "a" / "x").write_bytes(b"12345")
    (tmp_path / "y").write_bytes(b"123")
    assert folder_size(tmp_path) == 8


def test_student_script_runs_with_the_system_python_and_says_what_is_missing(tmp_path):
    script = ROOT / "src" / "rankbook" / "course" / "student.py"
    help_ = subprocess.run([sys.executable, str(script), "--help"], capture_output=True, text=True)
    assert help_.returncode == 0 and "setup" in help_.stdout and "rerun" in help_.stdout
    proc = subprocess.run(
        [sys.executable, str(script), "--venv", str(tmp_path / "none"), "rerun", "00_quickstart",
         "--out", str(tmp_path / "q")], capture_output=True, text=True,
    )  # fmt: skip
    assert proc.returncode != 0 and "src/rankbook/course/student.py setup" in proc.stderr


def test_the_python_version_is_stated_once_and_truthfully():
    lock = (ROOT / "requirements" / "lock.txt").read_text(encoding="utf-8")
    assert "on Python 3.11" in lock.splitlines()[0]
    wanted = f'requires-python = ">={MIN_PYTHON[0]}.{MIN_PYTHON[1]}"'
    for pyproject in (ROOT / "pyproject.toml", ROOT / "src" / "pyproject.toml"):
        assert wanted in pyproject.read_text(encoding="utf-8"), pyproject
    student_env = (ROOT / "environment-student.yml").read_text(encoding="utf-8")
    assert "python=3.11" in student_env and "-r requirements/student.in" in student_env
    assert "-c requirements/lock.txt" in student_env


def test_the_makefile_student_target_calls_the_entry_point():
    make = (ROOT / "Makefile").read_text(encoding="utf-8")
    target = make[make.index("\nstudent:"):].split("\n\n")[0]
    assert "src/rankbook/course/student.py" in target
    assert "du " not in target and "bin/python" not in target
