"""The student route on any operating system: set up ``.venv-student`` and run the chapters.

Standard library only, so that any Python 3.11+ can start it from a fresh clone
(``python src/rankbook/course/student.py ...``; on Windows
``py src\\rankbook\\course\\student.py ...``):

* ``setup [--full]``: create the virtual environment, install ``requirements/student.in``
  pinned by ``requirements/lock.txt`` (with ``--full``, the whole lock: PyTorch, LightGBM and
  the encoders for sessions 2 and 3), install this checkout, ``pip check``, and print the
  environment's size and install time;
* ``run SESSION [--out DIR]``: fetch the data and run the session's chapters, each into
  ``DIR/<chapter>`` (default ``student-runs``) with its readable page;
* ``rerun CHAPTER [-p KEY VALUE ...] [--preset class] --out DIR``: one chapter into a folder of
  one's own (the sheets' commands);
* ``show FOLDER KEY ...``: print results keys of a rerun folder.

Paths are built with :mod:`pathlib`; the environment's interpreter is ``Scripts\\python.exe`` on
Windows and ``bin/python`` elsewhere (:func:`venv_python`); sizes are summed in Python
(:func:`folder_size`), not by ``du``.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from collections.abc import Sequence
from pathlib import Path, PurePath, PureWindowsPath

__all__ = [
    "MIN_PYTHON",
    "TORCH_CPU_INDEX",
    "folder_size",
    "main",
    "pip_install_commands",
    "results_path",
    "venv_python",
]

#: The oldest Python the pinned lock installs on (numpy 2.4 and pandas 3 need 3.11).
MIN_PYTHON = (3, 11)


def venv_python(venv: PurePath, windows: bool | None = None) -> PurePath:
    """The interpreter of the virtual environment ``venv``.

    ``windows`` defaults to this machine's (``os.name == "nt"``); the path keeps ``venv``'s flavour,
    so a :class:`~pathlib.PureWindowsPath` gives ``venv\\Scripts\\python.exe``.
    """
    if windows is None:
        windows = os.name == "nt" or isinstance(venv, PureWindowsPath)
    return venv / "Scripts" / "python.exe" if windows else venv / "bin" / "python"


#: PyTorch's index of CPU-only wheels: on Linux, PyPI's torch wheel brings CUDA libraries.
TORCH_CPU_INDEX = "https://download.pytorch.org/whl/cpu"


def pip_install_commands(
    python: PurePath, root: PurePath, full: bool, system: str = sys.platform
) -> list[list[str]]:
    """The pip commands of the setup, as argument lists (no shell): requirements, checkout, check.

    ``full`` installs the whole lock (sessions 2 and 3, PyTorch included); otherwise
    ``requirements/student.in`` constrained by the lock (session 1). On Linux (``system``
    ``"linux"``) the full install also reads :data:`TORCH_CPU_INDEX`, so torch comes as the CPU
    wheel (``2.13.0+cpu`` satisfies the lock's ``torch==2.13.0``); on macOS and Windows PyPI's
    torch wheel is the CPU one already.
    """
    req = root / "requirements"
    pip = [str(python), "-m", "pip", "install", "--disable-pip-version-check", "-q"]
    cpu = ["--extra-index-url", TORCH_CPU_INDEX] if system.startswith("linux") else []
    first = [*pip, *cpu, "-r", str(req / "lock.txt")] if full else [
        *pip, "-r", str(req / "student.in"), "-c", str(req / "lock.txt")
    ]  # fmt: skip
    return [
        first,
        [*pip, "--no-deps", "-e", str(root), "-e", str(root / "src")],
        [str(python), "-m", "pip", "check"],
    ]


def results_path(folder: PurePath | str, chapter: str) -> PurePath:
    """``folder/<chapter>.json``, with ``~`` expanded for a concrete path."""
    if isinstance(folder, str):
        folder = Path(folder).expanduser()
    return folder / f"{chapter}.json"


def folder_size(folder: Path) -> int:
    """Bytes of every file under ``folder`` (links not followed)."""
    total = 0
    for path in Path(folder).rglob("*"):
        if path.is_file() and not path.is_symlink():
            total += path.stat().st_size
    return total


def _run(cmd: Sequence[str | PurePath], **kwargs) -> None:
    print("  " + " ".join(map(str, cmd)), flush=True)
    proc = subprocess.run([str(c) for c in cmd], **kwargs)
    if proc.returncode != 0:
        raise SystemExit(proc.returncode)


def _python_of(venv: Path) -> Path:
    python = Path(venv_python(venv))
    if not python.is_file():
        raise SystemExit(
            f"ERROR: {python} not found; set the environment up first: "
            "python src/rankbook/course/student.py setup"
        )
    return python


def _setup(root: Path, venv: Path, full: bool) -> None:
    start = time.monotonic()
    if not Path(venv_python(venv)).is_file():
        _run([sys.executable, "-m", "venv", venv])
    for cmd in pip_install_commands(venv_python(venv), root, full):
        _run(cmd, cwd=root)
    gib = folder_size(venv) / 2**30
    print(f"student environment {venv}: {gib:.2f} GiB, installed in "
          f"{time.monotonic() - start:.0f} s")  # fmt: skip


def _session_chapters(python: Path, root: Path, session: int) -> list[str]:
    code = (
        "from rankbook.report.slides import session_plans; "
        f"print(*session_plans()[{session - 1}].chapters)"
    )
    out = subprocess.run([str(python), "-c", code], cwd=root, capture_output=True, text=True)
    if out.returncode != 0:
        raise SystemExit(f"ERROR: could not read session {session}'s plan:\n{out.stderr}")
    return out.stdout.split()


def main(argv: Sequence[str] | None = None, root: Path | None = None) -> int:
    """The command line of ``src/rankbook/course/student.py``."""
    if sys.version_info < MIN_PYTHON:
        print(f"ERROR: Python {'.'.join(map(str, MIN_PYTHON))} or newer is needed (this is "
              f"{sys.version.split()[0]}); see the course guide's setup.", file=sys.stderr)
        return 2  # fmt: skip
    root = root or Path(__file__).resolve().parents[3]
    parser = argparse.ArgumentParser(prog="python src/rankbook/course/student.py")
    parser.add_argument("--venv", default=root / ".venv-student", type=Path,
                        help="the environment's folder (default .venv-student)")  # fmt: skip
    sub = parser.add_subparsers(dest="command", required=True)
    setup = sub.add_parser("setup", help="create and install the student environment")
    setup.add_argument("--full", action="store_true",
                       help="the whole lock (sessions 2 and 3: PyTorch, LightGBM, encoders)")
    run = sub.add_parser("run", help="run a session's chapters, each into a folder")
    run.add_argument("session", type=int, choices=[1, 2, 3])
    run.add_argument("--out", default=root / "student-runs", type=Path)
    run.add_argument("--preset", choices=["class"], default=None)
    rerun = sub.add_parser("rerun", help="rerun one chapter into a folder of your own")
    rerun.add_argument("chapter")
    rerun.add_argument("-p", "--parameter", nargs=2, action="append", default=[],
                       metavar=("KEY", "VALUE"))
    rerun.add_argument("--preset", choices=["class"], default=None)
    rerun.add_argument("--out", required=True)
    show = sub.add_parser("show", help="print results keys of a rerun folder")
    show.add_argument("folder")
    show.add_argument("keys", nargs="+")
    args = parser.parse_args(argv)
    venv = Path(args.venv)
    if args.command == "setup":
        _setup(root, venv, args.full)
        return 0
    if args.command == "show":
        files = sorted(Path(args.folder).expanduser().glob("*.json"))
        if not files:
            print(f"ERROR: no results JSON in {args.folder}", file=sys.stderr)
            return 2
        record = json.loads(files[0].read_text(encoding="utf-8"))
        for key in args.keys:
            print(f"{key}: {json.dumps(record.get(key, '(no such key)'), indent=1)}")
        return 0
    python = _python_of(venv)
    pipeline = [python, "-m", "rankbook.report.pipeline", "run"]
    if args.command == "rerun":
        flags = [x for pair in args.parameter for x in ("-p", *pair)]
        flags += ["--preset", args.preset] if args.preset else []
        _run([*pipeline, args.chapter, *flags, "--out", Path(args.out).expanduser()], cwd=root)
        return 0
    _run([python, "-m", "rankbook.data.fetch"], cwd=root)
    start = time.monotonic()
    for chapter in _session_chapters(python, root, args.session):
        flags = ["--preset", args.preset] if args.preset else []
        _run([*pipeline, chapter, *flags, "--out", Path(args.out) / chapter], cwd=root)
    print(f"session {args.session}'s chapters ran in {time.monotonic() - start:.0f} s; "
          f"pages: {Path(args.out)}")  # fmt: skip
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
