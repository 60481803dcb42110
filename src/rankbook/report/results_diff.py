"""How far two runs of the same chapters moved: every number of two results folders, compared.

A chapter's results file (``results/<chapter>.json``) is the machine-readable record of its page.
Two runs with the same parameters and seed on the same code agree in bits on one machine; on
another CPU, or with other thread counts, floating-point reductions (BLAS, torch's intra-op
threads, LightGBM's histograms) may sum in another order and move the last digits, which a
trained model can amplify. This module walks both files leaf by leaf and reports, per chapter,
how many numbers moved and by how much:

    moved(x, y)    = x != y                         (bits; NaN never occurs in a results file)
    abs_diff(x, y) = |x - y|
    rel_diff(x, y) = |x - y| / max(|x|, |y|)        (0 when both are 0)

Timings (any key naming seconds, wall time or throughput) and the ``software`` and ``params``
records are not results and are skipped. A number present in one file only is reported as a
structural difference, never dropped.

Usage::

    python -m rankbook.report.results_diff RESULTS_A RESULTS_B
"""

from __future__ import annotations

import argparse
import json
import math
import re
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

__all__ = ["ChapterDrift", "chapter_drift", "drift_table", "numeric_leaves", "main"]

_SKIPPED_ROOTS = frozenset({"software", "params", "rankaudit_version"})
_TIMING = re.compile(r"second|wall|elapsed|throughput|timing", re.IGNORECASE)


@dataclass(frozen=True)
class ChapterDrift:
    """The numbers of one chapter's results in two runs, compared leaf by leaf."""

    chapter: str
    numbers: int
    moved: int
    max_abs_diff: float
    max_rel_diff: float
    worst_path: str
    only_in_one: int


def numeric_leaves(record: object, path: tuple[str, ...] = ()) -> Iterator[tuple[str, float]]:
    """Every number of a results record as ``(path, value)``; booleans count as numbers
    (a flipped verdict flag is a moved number); timings and the software record are skipped."""
    if isinstance(record, dict):
        for key, value in record.items():
            if (not path and key in _SKIPPED_ROOTS) or _TIMING.search(str(key)):
                continue
            yield from numeric_leaves(value, (*path, str(key)))
    elif isinstance(record, list):
        for index, value in enumerate(record):
            yield from numeric_leaves(value, (*path, str(index)))
    elif isinstance(record, bool | int | float):
        yield "/".join(path), float(record)


def _rel(x: float, y: float) -> float:
    scale = max(abs(x), abs(y))
    return 0.0 if scale == 0.0 else abs(x - y) / scale


def chapter_drift(chapter: str, first: Path, second: Path) -> ChapterDrift:
    """Compare ``first`` and ``second`` (two results files of ``chapter``)."""
    a = dict(numeric_leaves(json.loads(first.read_text(encoding="utf-8"))))
    b = dict(numeric_leaves(json.loads(second.read_text(encoding="utf-8"))))
    shared = sorted(a.keys() & b.keys())
    moved = [key for key in shared if a[key] != b[key]]
    worst = max(moved, key=lambda key: (_rel(a[key], b[key]), key), default="")
    return ChapterDrift(
        chapter=chapter,
        numbers=len(shared),
        moved=len(moved),
        max_abs_diff=max((abs(a[k] - b[k]) for k in moved), default=0.0),
        max_rel_diff=max((_rel(a[k], b[k]) for k in moved), default=0.0),
        worst_path=worst,
        only_in_one=len(a.keys() ^ b.keys()),
    )


def drift_table(first: Path, second: Path) -> list[ChapterDrift]:
    """Every chapter whose results file is in both folders, in chapter order."""
    names = sorted(p.stem for p in first.glob("*.json") if (second / p.name).is_file())
    if not names:
        raise FileNotFoundError(f"no results file <chapter>.json in both {first} and {second}")
    return [chapter_drift(n, first / f"{n}.json", second / f"{n}.json") for n in names]


def _fmt(x: float) -> str:
    return "0" if x == 0.0 else f"{x:.1e}" if not math.isinf(x) else "inf"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m rankbook.report.results_diff")
    parser.add_argument("first", type=Path, help="results folder of the first run")
    parser.add_argument("second", type=Path, help="results folder of the second run")
    args = parser.parse_args(argv)
    try:
        rows = drift_table(args.first, args.second)
    except (OSError, json.JSONDecodeError) as err:
        print(f"rankbook.report.results_diff: {err}", file=sys.stderr)
        return 2
    header = " | ".join(
        (
            "chapter",
            "numbers",
            "moved",
            "max abs diff",
            "max rel diff",
            "only in one",
            "largest move at",
        )
    )
    print(f"| {header} |")
    print("|---|---:|---:|---:|---:|---:|---|")
    for r in rows:
        print(
            f"| {r.chapter} | {r.numbers:,} | {r.moved:,} | {_fmt(r.max_abs_diff)} "
            f"| {_fmt(r.max_rel_diff)} | {r.only_in_one} | {r.worst_path or '-'} |"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
