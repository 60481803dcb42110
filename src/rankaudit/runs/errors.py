"""The one error type of :mod:`rankaudit.runs`: a bad input file, named with its line."""

from __future__ import annotations

__all__ = ["RunFileError"]


class RunFileError(ValueError):
    """A run or qrels file that cannot be read as declared.

    A ``ValueError`` whose message starts ``<file>:<line>:`` when the problem sits on one
    line (``line`` is 1-based, ``None`` when the problem is the whole file), as compilers do,
    so the command line can print it as one line.
    """

    def __init__(self, path: str, line: int | None, reason: str) -> None:
        self.path = str(path)
        self.line = line
        self.reason = reason
        where = f"{self.path}:{line}" if line is not None else self.path
        super().__init__(f"{where}: {reason}")
