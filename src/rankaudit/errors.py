"""The one error type for a bad input file: ``path:line: reason``, as compilers print it.

Every reader of the library (runs, qrels) and every loader of the compendium raises
:class:`InputFileError` for a file it cannot read as declared, so a caller catches one class
and the command line prints one line.  It is a ``ValueError``: code that catches bad input as
``ValueError`` keeps working.

This is a bottom room of the package: it imports nothing from rankaudit.
"""

from __future__ import annotations

import os

__all__ = ["InputFileError"]


class InputFileError(ValueError):
    """A file that cannot be read as declared, named with its line.

    The message is ``<path>:<line>: <reason>`` when the problem sits on one line (``line`` is
    1-based, the header being line 1) and ``<path>: <reason>`` when it is the whole file
    (``line`` is ``None``: an unreadable gzip stream, a file that holds no records).
    The attributes ``path`` (a ``str``), ``line`` and ``reason`` hold the three parts.
    """

    def __init__(self, path: str | os.PathLike[str], line: int | None, reason: str) -> None:
        self.path = os.fspath(path)
        self.line = line
        self.reason = reason
        where = self.path if line is None else f"{self.path}:{line}"
        super().__init__(f"{where}: {reason}")

    def __reduce__(self) -> tuple[type[InputFileError], tuple[str, int | None, str]]:
        # the default pickles ``args`` (the message alone); Dask workers send errors pickled
        return type(self), (self.path, self.line, self.reason)
