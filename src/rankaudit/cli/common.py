"""What every ``rankaudit`` command shares: the one-line-error parser, reading runs and qrels in
any supported format, the common options, and writing the report."""

from __future__ import annotations

import argparse
import hashlib
import sys
from pathlib import Path

import numpy as np

from rankaudit._version import __version__
from rankaudit.runs.rules import check_run_rule
from rankaudit.runs.tables import Qrels, Run
from rankaudit.runs.tabular import read_long_qrels, read_long_run
from rankaudit.runs.trec import read_trec_qrels, read_trec_run

__all__ = [
    "DEFAULT_RULES",
    "PROG",
    "OneLineParser",
    "add_common_options",
    "emit",
    "input_records",
    "json_ready",
    "read_qrels_arg",
    "read_run_arg",
    "sha256_of",
    "tie_rules",
    "version",
]

PROG = "rankaudit"
DEFAULT_RULES = "trec_eval,expected,pessimistic,optimistic"


class OneLineParser(argparse.ArgumentParser):
    """argparse, with errors as one line (no usage dump) and exit status 2."""

    def error(self, message: str) -> None:  # type: ignore[override]
        sys.stderr.write(f"{self.prog}: error: {message} (see --help)\n")
        raise SystemExit(2)


def version() -> str:
    return __version__


def sha256_of(path: str) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as fh:
        for chunk in iter(lambda: fh.read(1 << 20), b""):
            digest.update(chunk)
    return digest.hexdigest()


def _kind(path: str, declared: str) -> str:
    if declared != "auto":
        return declared
    suffixes = [s.lower() for s in Path(path).suffixes]
    if suffixes and suffixes[-1] == ".gz":
        suffixes = suffixes[:-1]
    last = suffixes[-1] if suffixes else ""
    return {".csv": "csv", ".tsv": "tsv", ".parquet": "parquet", ".pq": "parquet"}.get(last, "trec")


def read_run_arg(path: str, args: argparse.Namespace) -> Run:
    """The run at ``path``, in the format ``--input-format`` names (or its name suggests)."""
    kind = _kind(path, args.input_format)
    if kind == "trec":
        return read_trec_run(path)
    return read_long_run(
        path,
        query_col=args.query_col,
        docno_col=args.docno_col,
        score_col=args.score_col,
        file_format=kind,
    )


def read_qrels_arg(path: str, args: argparse.Namespace) -> Qrels:
    """The qrels at ``path``, in the format ``--input-format`` names (or its name suggests)."""
    kind = _kind(path, args.input_format)
    if kind == "trec":
        return read_trec_qrels(path)
    return read_long_qrels(
        path,
        query_col=args.query_col,
        docno_col=args.docno_col,
        relevance_col=args.relevance_col,
        file_format=kind,
    )


def tie_rules(text: str) -> list[str]:
    """``--ties`` as a list of checked rule names (comma-separated)."""
    rules = [t.strip() for t in text.split(",") if t.strip()]
    if not rules:
        raise ValueError("--ties is empty")
    return [check_run_rule(r) for r in rules]


def input_records(**paths: str) -> list[dict[str, str]]:
    """``[{role, path, name, sha256}]`` of the inputs, for a JSON report."""
    return [
        {"role": role, "path": str(p), "name": Path(p).name, "sha256": sha256_of(p)}
        for role, p in paths.items()
    ]


def emit(text: str, output: str | None) -> None:
    """The report to ``output`` (a file) or to standard output."""
    if output:
        Path(output).write_text(text)
    else:
        sys.stdout.write(text)


def json_ready(obj: object) -> object:
    """JSON-ready copy: numpy scalars to Python numbers."""
    if isinstance(obj, dict):
        return {k: json_ready(v) for k, v in obj.items()}
    if isinstance(obj, list):
        return [json_ready(v) for v in obj]
    if isinstance(obj, np.generic):
        return obj.item()
    return obj


def add_common_options(p: argparse.ArgumentParser) -> None:
    """The options every command takes: relevance level, -c, input format and columns, seed, -o."""
    p.add_argument(
        "--relevance-level",
        "-l",
        type=int,
        default=1,
        metavar="N",
        help="relevant iff label >= N (trec_eval -l; default 1)",
    )
    p.add_argument(
        "--complete",
        "-c",
        action="store_true",
        help="average over every qrels query, missing ones scoring 0 (trec_eval -c)",
    )
    p.add_argument(
        "--input-format",
        choices=("auto", "trec", "csv", "tsv", "parquet"),
        default="auto",
        help="format of the input files (default: from the name; "
        "TREC text unless .csv/.tsv/.parquet)",
    )
    p.add_argument("--query-col", default="query", help="query column of a long-format table")
    p.add_argument("--docno-col", default="docno", help="document column of a long-format table")
    p.add_argument("--score-col", default="score", help="score column of a long-format run")
    p.add_argument("--relevance-col", default="relevance", help="label column of long-format qrels")
    p.add_argument("--seed", type=int, default=0, help="seed of the hash rule and of resampling")
    p.add_argument("-o", "--output", metavar="FILE", help="write to FILE instead of stdout")
