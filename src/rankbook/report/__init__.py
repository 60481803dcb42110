"""Reporting: parameter validation, provenance, results JSON, the book pipeline."""

from rankbook.report.glue import glue, glue_many, glue_words
from rankbook.report.params import (
    Bool,
    Choice,
    Float,
    Int,
    IntList,
    OptionalDir,
    Str,
    check_params,
)
from rankbook.report.provenance import provenance_markdown, show_run
from rankbook.report.results import read_results, results_dir, write_results

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
    "glue_words",
    "provenance_markdown",
    "read_results",
    "results_dir",
    "show_run",
    "write_results",
]
