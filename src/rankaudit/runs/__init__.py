"""Your own run: TREC / CSV / Parquet runs and qrels, trec_eval measures and their tie envelope.

Modules (one job each):

- :mod:`~rankaudit.runs.tables`: the in-memory :class:`Run` / :class:`Qrels` (and what a tie is);
- :mod:`~rankaudit.runs.trec` / :mod:`~rankaudit.runs.tabular` / :mod:`~rankaudit.runs.adapters`:
  readers of TREC files, long-format CSV/TSV/Parquet, and ranx / ir_measures objects;
- :mod:`~rankaudit.runs.errors`: :class:`RunFileError`, naming file and line;
- :mod:`~rankaudit.runs.tie_keys`: the key each rule sorts a run's tie blocks by;
- :mod:`~rankaudit.runs.inputs`: every input read once, by one contract (pipes, gzip by
  content, BOM, CRLF, runs of blanks);
- :mod:`~rankaudit.runs.outputs`: every ``-o`` written by one writer that never replaces what
  the path names (a device, a FIFO, a symlink's target, a file's mode);
- :mod:`~rankaudit.runs.rank_agreement`: leaderboard orders, Kendall's tau, tau_AP, rank
  intervals;
- :mod:`~rankaudit.runs.layout`: the run joined with its qrels, per query;
- the measures, the rules and their kernels: the core, :mod:`rankaudit.measures`;
- :mod:`~rankaudit.runs.evaluate`: :func:`evaluate_run` and :func:`audit_run`;
- :mod:`~rankaudit.runs.compare`: two runs, paired, under expected and worst cases;
- :mod:`~rankaudit.runs.significance`: paired tests over queries (bootstrap, randomisation, Holm);
- :mod:`~rankaudit.runs.leaderboard`: many runs on one qrels as one leaderboard.
"""

from rankaudit.measures.registry import Measure, parse_measure, parse_measures
from rankaudit.measures.rules import RUN_TIE_RULES
from rankaudit.runs.adapters import (
    qrels_from_ir_measures,
    qrels_from_ranx,
    run_from_ir_measures,
    run_from_ranx,
)
from rankaudit.runs.compare import RunComparison, compare_runs
from rankaudit.runs.errors import RunFileError
from rankaudit.runs.evaluate import RunAudit, audit_run, evaluate_run
from rankaudit.runs.tables import Qrels, Run
from rankaudit.runs.tabular import read_long_qrels, read_long_run
from rankaudit.runs.trec import read_trec_qrels, read_trec_run, write_trec_qrels, write_trec_run

__all__ = [
    "RUN_TIE_RULES",
    "Measure",
    "Qrels",
    "Run",
    "RunAudit",
    "RunComparison",
    "RunFileError",
    "audit_run",
    "compare_runs",
    "evaluate_run",
    "parse_measure",
    "parse_measures",
    "qrels_from_ir_measures",
    "qrels_from_ranx",
    "read_long_qrels",
    "read_long_run",
    "read_trec_qrels",
    "read_trec_run",
    "run_from_ir_measures",
    "run_from_ranx",
    "write_trec_qrels",
    "write_trec_run",
]
