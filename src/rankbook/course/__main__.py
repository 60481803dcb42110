"""``python -m rankbook.course grade SHEET FOLDER``: grade a student's reruns against a sheet.

``SHEET`` is a sheet's file or a session number (``1`` is ``book/sheet_session1.md``); ``FOLDER``
is the student's rerun folder (the sheets' ``~/rerun``). Prints one line per check and exits 1
when a check is wrong, 2 on bad input.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from pathlib import Path

from rankbook.course.grader import format_report, grade_sheet
from rankbook.paths import find_project_root

__all__ = ["main"]


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m rankbook.course")
    sub = parser.add_subparsers(dest="command", required=True)
    grade = sub.add_parser("grade", help="grade a student's reruns against a sheet")
    grade.add_argument("sheet", help="a sheet file, or a session number (1, 2, 3)")
    grade.add_argument("folder", help="the student's rerun folder (the sheets' ~/rerun)")
    args = parser.parse_args(argv)
    sheet = Path(args.sheet)
    if args.sheet.isdigit():
        sheet = find_project_root() / "book" / f"sheet_session{args.sheet}.md"
    if not sheet.is_file():
        print(f"ERROR: no sheet {sheet}", file=sys.stderr)
        return 2
    try:
        checks = grade_sheet(sheet, Path(args.folder))
    except ValueError as err:
        print(f"ERROR: {err}", file=sys.stderr)
        return 2
    print(format_report(checks))
    return 0 if all(check.ok is not False for check in checks) else 1


if __name__ == "__main__":
    raise SystemExit(main())
