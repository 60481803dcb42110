"""The error type of :mod:`rankaudit.runs`: a bad input file, named with its line.

:data:`RunFileError` is an alias of :class:`rankaudit.errors.InputFileError`, the one class
for bad files of both packages (``path:line: reason``), kept so that code written against
``rankaudit.runs.RunFileError`` keeps working: it is the same class object, not a subclass.
"""

from __future__ import annotations

from rankaudit.errors import InputFileError

__all__ = ["RunFileError"]

#: Alias of :class:`rankaudit.errors.InputFileError` (the same class object).
RunFileError = InputFileError
