"""Part II audits: data -> candidate rows -> scores -> Tables 2 and 3, and row-level files.

- :mod:`~rankaudit.audit.prepare`: load a dataset, build candidate rows, compute the scores;
- :mod:`~rankaudit.audit.tables`: Table 2, tie prevalence, hash-vs-expectation, Table 3;
- :mod:`~rankaudit.audit.rowfiles`: the row-level parquet every aggregate is computed from;
- :mod:`~rankaudit.audit.chapter`: one chapter runner for Tables 2 and 3, and its replay.
"""

from rankaudit.audit.chapter import recompute_results, run_audit_chapter
from rankaudit.audit.prepare import AuditRun, prepare_audit
from rankaudit.audit.rowfiles import load_rows, rows_path, save_rows
from rankaudit.audit.tables import audit_results, lookup, table2, table2_frame, table3_results

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
