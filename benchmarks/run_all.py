"""Run every ``benchmarks/bench_*.py`` in turn (what ``make bench`` calls).

Each benchmark measures rankaudit against its peers in one run and prints a table of ratios;
extra arguments are passed through (e.g. ``--rows 200000`` for a quick run), except
``--trec-eval PATH``, which is handed to ``bench_measures.py`` as the ``TREC_EVAL`` environment
variable (the C trec_eval binary; without one that benchmark skips its trec_eval comparison).
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

__all__ = ["main", "split_trec_eval"]


def split_trec_eval(argv: list[str]) -> tuple[list[str], str | None]:
    """``argv`` without ``--trec-eval PATH`` / ``--trec-eval=PATH``, and that PATH (or None)."""
    rest: list[str] = []
    path = None
    it = iter(argv)
    for arg in it:
        if arg == "--trec-eval":
            path = next(it, None)
            if path is None:
                raise SystemExit("--trec-eval needs a PATH")
        elif arg.startswith("--trec-eval="):
            path = arg.split("=", 1)[1]
        else:
            rest.append(arg)
    return rest, path


def main(argv: list[str]) -> int:
    here = Path(__file__).resolve().parent
    argv, trec_eval = split_trec_eval(argv)
    env = dict(os.environ)
    if trec_eval is not None:
        env["TREC_EVAL"] = trec_eval
    failed = []
    for script in sorted(here.glob("bench_*.py")):
        print(f"\n=== {script.name} ===", flush=True)
        if subprocess.run([sys.executable, str(script), *argv], env=env).returncode != 0:
            failed.append(script.name)
    if failed:
        print(f"\nFAILED: {', '.join(failed)}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
