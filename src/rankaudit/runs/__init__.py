"""Your own run: TREC / CSV / Parquet runs and qrels, trec_eval measures and their tie envelope.

Modules (one job each):

- :mod:`~rankaudit.runs.tables`: the in-memory :class:`Run` / :class:`Qrels` (and what a tie is);
- :mod:`~rankaudit.runs.trec` / :mod:`~rankaudit.runs.tabular` / :mod:`~rankaudit.runs.adapters`:
  readers of TREC files, long-format CSV/TSV/Parquet, and ranx / ir_measures objects;
- :mod:`~rankaudit.runs.errors`: :class:`RunFileError`, naming file and line;
- :mod:`~rankaudit.runs.measures`: what nDCG@k, P@k, R@k, AP, RR and Success@k are;
- :mod:`~rankaudit.runs.rules`: the tie rules (trec_eval, input_order, hash, expected, bounds);
- :mod:`~rankaudit.runs.inputs`: every input read once, by one contract (pipes, gzip by
  content, BOM, CRLF, runs of blanks);
- :mod:`~rankaudit.runs.rank_agreement`: leaderboard orders, Kendall's tau, tau_AP, rank
  intervals;
- :mod:`~rankaudit.runs.layout`: the run joined with its qrels, per query;
- :mod:`~rankaudit.runs.kernels` / :mod:`~rankaudit.runs.reference`: fast and plain computation;
- :mod:`~rankaudit.runs.evaluate`: :func:`evaluate_run` and :func:`audit_run`;
- :mod:`~rankaudit.runs.compare`: two runs, paired, under expected and worst cases;
- :mod:`~rankaudit.runs.track`: a simulated track of many tie-heavy runs, as TREC files.
"""

from rankaudit.runs.adapters import (
    qrels_from_ir_measures,
    qrels_from_ranx,
    run_from_ir_measures,
    run_from_ranx,
)
from rankaudit.runs.compare import RunComparison, compare_runs
from rankaudit.runs.errors import RunFileError
from rankaudit.runs.evaluate import RunAudit, audit_run, evaluate_run
from rankaudit.runs.measures import Measure, parse_measure, parse_measures
from rankaudit.runs.rules import RUN_TIE_RULES
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
