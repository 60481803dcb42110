"""The line a page ends with: how long it took to execute, at its parameters, on which machine.

A chapter never types its running time (the book's rule: a number a run measures is never typed;
typed estimates were wrong on most pages). :func:`rankbook.report.pipeline.run_chapter` measures
the execution with ``time.perf_counter`` around papermill, records it in the executed notebook's
``rankaudit_run`` metadata beside the CPU model and core count, and appends this line.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from rankbook.report.prose import number_text, plural_phrase

__all__ = ["add_running_time", "running_time_markdown"]


def running_time_markdown(seconds: float, machine: Mapping[str, Any]) -> str:
    """The page's measured running time as one line: "This page executed in 59 s at these
    parameters on AMD EPYC, 2 cores." (whole seconds; ``machine`` holds ``cpu_model`` and
    ``cores``, either of which may be ``None`` when the platform does not say)."""
    if seconds < 0 or seconds != seconds:
        raise ValueError(f"seconds must be a measured time (>= 0), got {seconds!r}")
    where = machine.get("cpu_model") or "an unnamed processor"
    cores = machine.get("cores")
    if cores:
        where += f", {plural_phrase(int(cores), 'core', 'cores')}"
    return f"This page executed in {number_text(round(seconds))} s at these parameters on {where}."


def add_running_time(notebook: Any, seconds: float, machine: Mapping[str, Any]) -> None:
    """Append the :func:`running_time_markdown` line as the page's last cell (replacing an
    earlier one), so the page states the time it took instead of a typed estimate."""
    import nbformat

    tag = "rankaudit-running-time"
    cells = [c for c in notebook.cells if tag not in c.metadata.get("tags", [])]
    text = running_time_markdown(seconds, machine)
    cells.append(nbformat.v4.new_markdown_cell(text, metadata={"tags": [tag]}))
    notebook.cells = cells
