"""Run every ``benchmarks/bench_*.py`` in turn (what ``make bench`` calls).

Each benchmark measures rankaudit against its peers in one run and prints a table of ratios;
extra arguments are passed through (e.g. ``--rows 200000`` for a quick run).
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path


def main(argv: list[str]) -> int:
    here = Path(__file__).resolve().parent
    failed = []
    for script in sorted(here.glob("bench_*.py")):
        print(f"\n=== {script.name} ===", flush=True)
        if subprocess.run([sys.executable, str(script), *argv]).returncode != 0:
            failed.append(script.name)
    if failed:
        print(f"\nFAILED: {', '.join(failed)}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
