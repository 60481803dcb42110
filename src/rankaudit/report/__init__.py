"""Reporting: parameter validation, provenance, results JSON, the book pipeline."""

from rankaudit.report.glue import glue, glue_many
from rankaudit.report.params import (
    Bool,
    Choice,
    Float,
    Int,
    IntList,
    OptionalDir,
    Str,
    check_params,
)
from rankaudit.report.provenance import provenance_markdown, show_run
from rankaudit.report.results import read_results, results_dir, write_results

__all__ = [
    "Bool",
    "Choice",
    "Float",
    "Int",
    "IntList",
    "OptionalDir",
    "Str",
    "check_params",
    "glue",
    "glue_many",
    "provenance_markdown",
    "read_results",
    "results_dir",
    "show_run",
    "write_results",
]
