"""What every ``rankaudit`` command shares: the one-line-error parser, reading runs and qrels in
any supported format, the common options, and writing the report."""

from __future__ import annotations

import argparse
import functools
import gzip
import json
import sys
from pathlib import Path

import numpy as np

from rankaudit._checks import WORKERS, CountBound, check_count, check_int
from rankaudit._version import __version__
from rankaudit.distributed.cluster import connect
from rankaudit.distributed.leaderboard import audit_run_files_on_cluster
from rankaudit.measures.registry import describe_measures
from rankaudit.measures.rules import RULES, check_rules, rule_names
from rankaudit.runs import outputs
from rankaudit.runs.evaluate import DEFAULT_MEASURES, RunAudit
from rankaudit.runs.inputs import file_sha256, input_name, is_reopenable_file
from rankaudit.runs.leaderboard import audit_run_files
from rankaudit.runs.tables import Qrels, Run
from rankaudit.runs.tabular import read_long_qrels, read_long_run
from rankaudit.runs.trec import read_trec_qrels, read_trec_run

__all__ = [
    "DEFAULT_RULES",
    "PROG",
    "OneLineParser",
    "add_common_options",
    "add_measure_options",
    "add_scheduler_options",
    "add_ties_option",
    "audit_files",
    "check_order",
    "check_output",
    "count_type",
    "emit",
    "input_label",
    "input_records",
    "json_ready",
    "number_text",
    "reader_args",
    "rules_epilog",
    "read_qrels_arg",
    "read_run_arg",
    "sha256_of",
    "tie_rules",
    "to_json",
    "version",
]

PROG = "rankaudit"
DEFAULT_RULES = ("trec_eval", "expected", "pessimistic", "optimistic")


class OneLineParser(argparse.ArgumentParser):
    """argparse, with errors as one line (no usage dump) and exit status 2."""

    def error(self, message: str) -> None:  # type: ignore[override]
        sys.stderr.write(f"{self.prog}: error: {message} (see --help)\n")
        raise SystemExit(2)


def count_type(bound: CountBound):
    """argparse type: a count in ``1..bound`` (:func:`rankaudit._checks.check_count`), refused
    as argparse refuses a value (``argument --workers: must be an integer >= 1``): a worker
    count of 0 would start no worker and wait forever, a huge one never finish."""

    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"must be an integer >= 1; got {text!r}") from None
        try:
            return check_count(value, "the value", bound)
        except ValueError as exc:
            raise argparse.ArgumentTypeError(str(exc).removeprefix("the value ")) from None

    parse.__name__ = "count"  # how argparse names the type in its message
    return parse


def version() -> str:
    return __version__


def sha256_of(path: str) -> str:
    """Hex SHA-256 of the file at ``path`` (read again: only for a regular file)."""
    return file_sha256(Path(path))


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


#: TREC text columns: a run line ``qid Q0 docno rank score tag``, a qrels line
#: ``qid iter docno rel``.
RUN_FIELDS, QRELS_FIELDS = 6, 4
_PEEK_BYTES = 1 << 16


def _first_fields(path: str) -> int | None:
    """The number of blank-separated fields of the first non-empty line of a regular file
    (gzip by content), read apart from the reader; None for a pipe, ``-`` or an unreadable
    file (the reader reports those)."""
    if path == "-" or not is_reopenable_file(path):
        return None
    try:
        with open(path, "rb") as raw:
            head = raw.read(2)
            raw.seek(0)
            stream = gzip.open(raw) if head == b"\x1f\x8b" else raw
            data = stream.read(_PEEK_BYTES)
    except (OSError, EOFError, gzip.BadGzipFile):
        return None
    for line in data.splitlines():
        if line.split():
            return len(line.split())
    return None


def check_order(qrels: str, run: str, args: argparse.Namespace) -> None:
    """Refuse, before anything is read, a QRELS and RUN given the wrong way round (the order
    is trec_eval's: qrels first): the first file's first line has a run's 6 columns and the
    second's a qrels' 4 (TREC text files only; a pipe cannot be looked at twice)."""
    if _kind(qrels, args.input_format) != "trec" or _kind(run, args.input_format) != "trec":
        return
    if _first_fields(qrels) == RUN_FIELDS and _first_fields(run) == QRELS_FIELDS:
        raise ValueError(
            f"{qrels} looks like a run ({RUN_FIELDS} columns) and {run} like qrels "
            f"({QRELS_FIELDS} columns): the order is QRELS RUN, as trec_eval's"
        )


def tie_rules(values: str | list[str], api: str = "runs") -> list[str]:
    """``--ties`` as a list of checked rule names of ``api`` (``"runs"`` or ``"rows"``): several
    values, as ``-m`` takes them, each of which may also hold comma-separated names (the
    earlier form).  The names are those of the rule registry
    (:func:`rankaudit.measures.rules.rule_names`), a rule added with ``register_rule``
    included."""
    text = values if isinstance(values, str) else " ".join(values)
    if not text.replace(",", " ").split():
        raise ValueError("--ties is empty")
    return check_rules(text, api=api)


def add_ties_option(
    p: argparse.ArgumentParser, default: list[str], meaning: str, api: str = "runs"
) -> None:
    """``--ties RULE [RULE ...]`` (space- or comma-separated), its choices read from the rule
    registry when the parser is built (a registered rule is listed and accepted; the names
    are checked by :func:`tie_rules`); ``meaning`` says what several rules do."""
    p.add_argument(
        "--ties",
        nargs="+",
        default=list(default),
        metavar="RULE",
        help=f"tie rules among {', '.join(rule_names(api))}, space- or comma-separated; "
        f"{meaning} (default: %(default)s)",
    )


def rules_epilog(api: str = "runs") -> str:
    """The ``tie rules:`` block of a command's help: every rule of ``api`` in the registry,
    with its one-line summary."""
    return "tie rules:\n" + "\n".join(f"  {r:<12} {RULES[r].summary}" for r in rule_names(api))


def input_label(path: str, role: str) -> str:
    """How reports name an input, one rule for every command: a regular file by its file name
    (``system-01.run``); anything else (a pipe such as ``<(zcat run.gz)``, standard input, a
    device), whose file name says nothing (``63``), by its role among the arguments and the
    argument as given: ``run 2 (/dev/fd/62)``, ``qrels (<stdin>)``."""
    if is_reopenable_file(path):
        return Path(path).name
    return f"{role} ({input_name(path)})"


def input_records(**inputs: Run | Qrels | str) -> list[dict[str, str]]:
    """``[{role, path, name, sha256}]`` of the inputs, for a JSON report (``name``: see
    :func:`input_label`; the role ``run_a`` reads ``run a``).  A :class:`Run` or
    :class:`Qrels` carries the SHA-256 of the bytes its reader read (a pipe cannot be read
    twice); a path is hashed here."""
    records = []
    for role, item in inputs.items():
        if isinstance(item, (Run, Qrels)):
            path, digest = item.source, item.sha256 or ""
        else:
            path, digest = str(item), sha256_of(str(item))
        name = input_label(path, role.replace("_", " "))
        records.append({"role": role, "path": path, "name": name, "sha256": digest})
    return records


def check_output(output: str | None, *inputs: str) -> None:
    """Refuse an ``-o`` that would overwrite one of the inputs, is a folder, a block device or
    a socket, or lies in a missing folder (before anything is read, so nothing is lost):
    :func:`rankaudit.runs.outputs.check_output`."""
    outputs.check_output(output, *inputs)


def emit(text: str, output: str | None) -> None:
    """The report to ``output`` (``-`` or None: standard output) by the one output writer,
    :func:`rankaudit.runs.outputs.write_output`: a regular file whole or not at all, keeping
    its mode; a symlink's target; a device or FIFO written into, never replaced."""
    outputs.write_output(text, output)


def number_text(value: float, digits: int = 4) -> str:
    """A number the command line prints in a sentence (a p-value, a tolerance), in ASCII:
    ``digits`` significant digits, positional from 10^-4 on ("0.04321", "1", "123,456"), below
    that a mantissa times a power of ten ("9.999 x 10^-5", "10^-12" for an exact power), never
    Python's "9.999e-05"; 0 is "0", a non-finite value as Python writes it ("nan")."""
    digits = check_int(digits, "digits", lo=1)
    v = float(value)
    if v == 0.0 or not np.isfinite(v) or abs(v) >= 1e-4:
        return format(v, f".{digits}g") if abs(v) < 10**digits else f"{v:,.0f}"
    mantissa, exponent = format(v, f".{digits - 1}e").split("e")
    mantissa = mantissa.rstrip("0").rstrip(".")
    power = f"10^{int(exponent)}"
    if mantissa.lstrip("-") == "1":
        return ("-" if mantissa.startswith("-") else "") + power
    return f"{mantissa} x {power}"


def to_json(doc: object) -> str:
    """The report as JSON text; a NaN or infinity is an error, never written."""
    return json.dumps(json_ready(doc), indent=2, allow_nan=False, default=str) + "\n"


def json_ready(obj: object) -> object:
    """JSON-ready copy: numpy scalars to Python numbers."""
    if isinstance(obj, dict):
        return {k: json_ready(v) for k, v in obj.items()}
    if isinstance(obj, list):
        return [json_ready(v) for v in obj]
    if isinstance(obj, np.generic):
        return obj.item()
    return obj


def add_measure_options(p: argparse.ArgumentParser, ties_note: str = "") -> None:
    """``-m`` (several measures) and ``--ties`` (comma-separated rules), as audit and
    leaderboard take them; ``ties_note`` is added to the ``--ties`` help."""
    p.add_argument(
        "-m",
        "--measures",
        nargs="+",
        default=list(DEFAULT_MEASURES),
        metavar="M",
        help="measures in ir_measures' spelling, e.g. nDCG@10 \"nDCG(dcg='exp-log2')@10\" "
        "RBP(p=0.9) (every measure is listed below; default: %(default)s)",
    )
    add_ties_option(p, list(DEFAULT_RULES), f"each is reported{ties_note}")
    p.formatter_class = argparse.RawDescriptionHelpFormatter
    p.epilog = (f"{p.epilog}\n\n" if p.epilog else "") + (
        "measures (ir_measures' spelling; parameters in parentheses, cutoff after @):\n"
        + describe_measures()
        + "\n\n"
        + rules_epilog("runs")
    )


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
    p.add_argument(
        "-o",
        "--output",
        metavar="FILE",
        help="write to FILE instead of stdout ('-': stdout); a file is replaced whole, keeping "
        "its mode, a symlink's target is written, a device or FIFO is written into",
    )


#: The options that say how to read an input (a small picklable namespace for Dask workers).
READ_OPTIONS = ("input_format", "query_col", "docno_col", "score_col", "relevance_col")


def reader_args(args: argparse.Namespace) -> argparse.Namespace:
    """Only the reading options of ``args`` (:data:`READ_OPTIONS`)."""
    return argparse.Namespace(**{k: getattr(args, k) for k in READ_OPTIONS})


def add_scheduler_options(p: argparse.ArgumentParser, what: str) -> None:
    """``--scheduler local|ADDRESS`` and ``--workers``, as every command that can use Dask
    takes them; ``what`` says what becomes a task."""
    p.add_argument(
        "--scheduler",
        metavar="ADDRESS",
        help=f"compute {what} as Dask tasks on this scheduler (tcp://host:8786), or 'local' "
        "for a LocalCluster of --workers processes (default: in this process); the numbers "
        "are the same bits either way",
    )
    p.add_argument(
        "--workers",
        type=int,
        default=2,
        help=f"LocalCluster worker processes, 1..{WORKERS} (default: %(default)s)",
    )


def audit_files(
    args: argparse.Namespace, paths: list[str], options: dict[str, object]
) -> list[RunAudit]:
    """The audit of every run of ``paths`` against ``args.qrels`` (``options``: of
    :func:`rankaudit.audit_run`): in this process, or one Dask task a run on
    ``args.scheduler`` (:func:`rankaudit.distributed.leaderboard.audit_run_files_on_cluster`);
    the same kernels, the same bits."""
    check_count(args.workers, "--workers", WORKERS)
    read_run = functools.partial(read_run_arg, args=reader_args(args))
    if args.scheduler is None:
        qrels = read_qrels_arg(args.qrels, args)
        return audit_run_files(paths, read_run, qrels, **options)
    read_qrels = functools.partial(read_qrels_arg, args=reader_args(args))
    try:
        with connect(args.scheduler, args.workers) as client:
            return audit_run_files_on_cluster(
                client, paths, read_run, args.qrels, read_qrels, **options
            )
    except ImportError as exc:  # no Dask here: one line, as every other error
        raise ValueError(str(exc)) from None
