"""The ``rankaudit`` command line: audit a run's tie sensitivity, compare two runs, fill the
reporting checklist, audit many runs as one leaderboard.

::

    rankaudit audit RUN QRELS [-m nDCG@10 RR P@10 AP] [--ties trec_eval,expected,...]
                    [--per-query] [--format table|json|csv] [-o FILE]
    rankaudit compare RUN_A RUN_B QRELS [-m nDCG@10]
    rankaudit checklist RUN QRELS
    rankaudit leaderboard QRELS RUN [RUN ...] [--baseline RUN] [--scheduler local --workers 2]

RUN and QRELS are TREC files (``qid Q0 docno rank score tag`` / ``qid iter docno rel``) or
long-format ``.csv`` / ``.tsv`` / ``.parquet`` tables (column names by option).  Every error
(bad argument, missing or malformed file) is one line on stderr and a non-zero exit status:
2 for a usage error, 1 for a problem with the data.

One module a command (:mod:`rankaudit.cli.audit`, ...), each with a ``register(sub)`` that adds
its subparser; what they share (reading inputs, writing the report) is in
:mod:`rankaudit.cli.common`.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence

from rankaudit.cli import audit, checklist, compare, leaderboard
from rankaudit.cli.common import PROG, OneLineParser, version

__all__ = ["build_parser", "main"]

COMMANDS = (audit, compare, checklist, leaderboard)


def build_parser() -> argparse.ArgumentParser:
    parser = OneLineParser(
        prog=PROG, description="Tie-aware audit of ranking runs against TREC qrels."
    )
    parser.add_argument("--version", action="version", version=f"{PROG} {version()}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=OneLineParser)
    sub.required = True
    for command in COMMANDS:
        command.register(sub)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; returns the exit status (0 ok, 1 bad data, 2 bad usage)."""
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        return int(args.func(args))
    except (ValueError, OSError, KeyError) as exc:
        message = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
        sys.stderr.write(f"{PROG} {args.command}: error: {message}\n")
        return 1
    except MemoryError:
        sys.stderr.write(f"{PROG} {args.command}: error: out of memory\n")
        return 1
