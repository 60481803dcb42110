"""The ``rankaudit`` command line: audit a run's tie sensitivity, compare two runs, fill the
reporting checklist, audit many runs as one leaderboard.

::

    rankaudit audit QRELS RUN [-m nDCG@10 RR P@10 AP] [--ties trec_eval expected ...]
                    [--per-query] [--format table|json|csv] [-o FILE] [--scheduler local]
    rankaudit compare QRELS RUN_A RUN_B [-m nDCG@10 AP] [--ties expected trec_eval ...]
                      [--n-perm N] [--n-boot N]
    rankaudit checklist QRELS RUN [-m nDCG@10] [--ties trec_eval ...]
    rankaudit leaderboard QRELS RUN [RUN ...] [--baseline RUN] [--scheduler local --workers 2]
    rankaudit rows [TABLE] [--k 10] [-m ...] [--ties expected hash ...] [--scheduler ADDRESS]

Every ``--ties`` takes one or several rules (space- or comma-separated) of the rule registry,
a rule added with :func:`rankaudit.measures.rules.register_rule` included; each command's
``--help`` says what several mean for it.
QRELS always comes first, as in trec_eval (``trec_eval qrels run``); two TREC files given the
other way round (the first with a run's 6 columns, the second with a qrels' 4) are refused in
one line naming both.  ``--scheduler local|ADDRESS`` (audit, leaderboard, rows) computes on a
Dask cluster and gives the same bits as without it; it replaces the former second console
script ``rankaudit-distributed`` (now ``rankaudit rows``).
RUN and QRELS are TREC files (``qid Q0 docno rank score tag`` / ``qid iter docno rel``) or
long-format ``.csv`` / ``.tsv`` / ``.parquet`` tables (column names by option).  Every error
(bad argument, missing or malformed file, data the audit refuses) is one line on stderr and exit
status 2; success is 0.  RUN or QRELS may be ``-`` (standard input) or a pipe
(``<(zcat run.gz)``): every input is read once, gzip recognised by its content.  ``-o FILE``
never overwrites an input; a regular file is written whole or not at all and keeps its mode
(a new one gets the umask's), a symlink's target is written, a character device or FIFO is
written into and never replaced, ``-`` is standard output (:mod:`rankaudit.runs.outputs`).

One module a command (:mod:`rankaudit.cli.audit`, ...), each with a ``register(sub)`` that adds
its subparser; what they share (reading inputs, writing the report) is in
:mod:`rankaudit.cli.common`.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Sequence

from rankaudit.cli import audit, checklist, compare, leaderboard, rows
from rankaudit.cli.common import PROG, OneLineParser, version

__all__ = ["build_parser", "main"]

COMMANDS = (audit, compare, checklist, leaderboard, rows)


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
    """Run the command line; returns the exit status: 0 on success, 2 on any error (a usage
    error, a malformed or missing file, data the audit refuses), with one line on stderr.

    An unexpected exception is reported in one line too (set ``RANKAUDIT_DEBUG=1`` to see its
    traceback).
    """
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        return int(args.func(args))
    except (ValueError, OSError, KeyError) as exc:
        message = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
        sys.stderr.write(f"{PROG} {args.command}: error: {message}\n")
        return 2
    except MemoryError:
        sys.stderr.write(f"{PROG} {args.command}: error: out of memory\n")
        return 2
    except KeyboardInterrupt:
        sys.stderr.write(f"{PROG} {args.command}: interrupted\n")
        return 130
    except Exception as exc:  # noqa: BLE001 - one line, never a traceback (module docstring)
        if os.environ.get("RANKAUDIT_DEBUG"):
            raise
        text = " ".join(str(exc).split())[:300] or "no message"
        sys.stderr.write(
            f"{PROG} {args.command}: internal error ({type(exc).__name__}): {text}; "
            "rerun with RANKAUDIT_DEBUG=1 for the traceback and please report it\n"
        )
        return 2
