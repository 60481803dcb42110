"""The student route, on Linux, macOS and Windows: ``python tools/student.py setup``, then
``run 1``, ``rerun CHAPTER -p KEY VALUE --out DIR``, ``show DIR KEY``.

Runs with any Python 3.11+ before the environment exists: it puts this checkout's ``src`` on the
path and calls :func:`rankbook.course.student.main` (standard library only).
"""

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))

from rankbook.course.student import main  # noqa: E402

if __name__ == "__main__":
    raise SystemExit(main(root=ROOT))
