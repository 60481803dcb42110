"""Part II audits: data -> candidate rows -> scores -> Tables 2 and 3, and row-level files.

- :mod:`~rankbook.audit.prepare`: load a dataset, build candidate rows, compute the scores;
- :mod:`~rankbook.audit.tables`: Table 2, tie prevalence, hash-vs-expectation, Table 3;
- :mod:`~rankbook.audit.rowfiles`: the row-level parquet every aggregate is computed from;
- :mod:`~rankbook.audit.chapter`: one chapter runner for Tables 2 and 3, and its replay.
"""

from rankbook.audit.chapter import recompute_results, run_audit_chapter
from rankbook.audit.prepare import AuditRun, prepare_audit
from rankbook.audit.rowfiles import load_rows, rows_path, save_rows
from rankbook.audit.tables import audit_results, lookup, table2, table2_frame, table3_results

__all__ = [
    "AuditRun",
    "audit_results",
    "load_rows",
    "lookup",
    "prepare_audit",
    "recompute_results",
    "rows_path",
    "run_audit_chapter",
    "save_rows",
    "table2",
    "table2_frame",
    "table3_results",
]
