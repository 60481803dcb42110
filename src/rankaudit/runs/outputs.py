"""Writing an output once, whatever its path names: the one writer of every command's ``-o``.

The counterpart of :mod:`rankaudit.runs.inputs`.  An output path is honoured as the shell's
``>`` honours it, never replaced by something else:

- ``-`` (or no path) is **standard output**; so are ``/dev/stdout`` and ``/dev/stderr``, and
  ``/dev/fd/N`` is descriptor ``N``: written through the open descriptor, at its offset
  (``>> log`` stays an append), never reopened or replaced.
- A **regular file** (new or existing) is written whole or not at all: into a temporary file
  beside it, then renamed over it.  An existing file keeps its permission bits (and its owner
  and group where the process may set them); a new file gets ``0666`` less the umask, as the
  shell would create it.
- A **symbolic link** is followed: its target is written as above and the link stays a link
  (a dangling link creates its target, as ``>`` does).
- A **character device** or a **FIFO** (``/dev/null``, a terminal, a named pipe) is written
  into directly (a FIFO's open waits for its reader, as ``>`` does): a rename over it would
  put a regular file where the device or pipe was.
- A **directory**, a **block device** or a **socket** is refused, before anything is read.

:func:`check_output` runs before the inputs are read (an output that is an input, a folder,
a missing folder), :func:`write_output` writes.  Errors are :class:`OutputError` (a
``ValueError``) naming the path as the user gave it, never the temporary file.

Public API: :class:`OutputError`, :func:`check_output`, :func:`check_output_dir`,
:func:`write_output`.
"""

from __future__ import annotations

import os
import re
import secrets
import stat
import sys
from pathlib import Path

__all__ = ["OutputError", "check_output", "check_output_dir", "write_output"]

_FD_PATH = re.compile(r"/(?:dev/fd|proc/self/fd)/(\d+)")
_REFUSED_NODES = {
    stat.S_IFDIR: "is a directory; name a file",
    stat.S_IFBLK: "is a block device; refusing to write a report onto it",
    stat.S_IFSOCK: "is a socket; name a file",
}


class OutputError(ValueError):
    """An output that cannot be written as asked, named as the user gave it (``option path:
    reason``), one line."""

    def __init__(self, option: str, path: str, reason: str) -> None:
        self.option, self.path, self.reason = option, str(path), reason
        super().__init__(f"{option} {path}: {reason}")


def _stdout(path: str | os.PathLike | None) -> bool:
    return path is None or str(path) in ("", "-")


def _descriptor(path: str) -> int | None:
    """The open file descriptor a path names (``/dev/stdout``, ``/dev/stderr``, ``/dev/fd/N``,
    ``/proc/self/fd/N``), or None.  Such a path is written through the descriptor itself, at
    its offset: reopening it would truncate what the shell opened for appending, and its
    "target" (``pipe:[123]``) is no path at all."""
    text = os.path.normpath(os.path.abspath(path))
    named = {"/dev/stdout": 1, "/dev/stderr": 2}
    if text in named:
        return named[text]
    match = _FD_PATH.fullmatch(text)
    return int(match.group(1)) if match else None


def _node(path: Path, option: str, shown: str) -> os.stat_result | None:
    """The status of what ``path`` names after following links; None if nothing is there."""
    try:
        return os.stat(path)
    except FileNotFoundError:
        return None
    except OSError as exc:  # a link loop, a component that is not a folder, no permission
        raise OutputError(option, shown, f"cannot be written ({exc.strerror})") from None


def _same_file(a: Path, b: Path) -> bool:
    try:
        return a.resolve() == b.resolve() or (a.exists() and b.exists() and a.samefile(b))
    except OSError:
        return False


def check_output(output: str | os.PathLike | None, *inputs: str, option: str = "-o") -> None:
    """Refuse, before anything is read, an output that is one of ``inputs`` (it would be
    overwritten), a directory, a block device or a socket, or whose folder does not exist."""
    if _stdout(output) or _descriptor(str(output)) is not None:
        return
    shown = str(output)
    out = Path(shown)
    node = _node(out, option, shown)
    if node is not None and stat.S_IFMT(node.st_mode) in _REFUSED_NODES:
        raise OutputError(option, shown, _REFUSED_NODES[stat.S_IFMT(node.st_mode)])
    for item in inputs:
        if item != "-" and _same_file(out, Path(item)):
            raise OutputError(option, shown, f"is the input {item}; refusing to overwrite an input")
    if node is None:
        folder = Path(os.path.realpath(out)).parent
        if not folder.is_dir():
            raise OutputError(option, shown, f"no such directory {folder}")


def check_output_dir(output: str | os.PathLike, option: str = "--output") -> None:
    """Refuse, before anything is computed, a folder output (a Parquet dataset) whose path
    names something other than a directory (a file, a device, a FIFO, standard output)."""
    shown = str(output)
    if _stdout(output) or _descriptor(shown) is not None:
        raise OutputError(option, shown, "is standard output or a descriptor; name a directory")
    node = _node(Path(shown), option, shown)
    if node is not None and not stat.S_ISDIR(node.st_mode):
        raise OutputError(option, shown, "exists and is not a directory; name a directory")


def _write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view) :]


def _replace_regular(
    target: Path, data: bytes, node: os.stat_result | None, option: str, shown: str
) -> None:
    """Write ``data`` into a new file beside ``target`` and rename it over ``target``.  The new
    file is created ``0666`` less the umask (as ``>`` creates one); over an existing file it
    takes that file's owner (where allowed) and permission bits."""
    while True:
        tmp = target.parent / f".{target.name}.{secrets.token_hex(4)}.tmp"
        try:
            fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666)
            break
        except FileExistsError:
            continue
        except OSError as exc:
            raise OutputError(option, shown, f"cannot be written ({exc.strerror})") from None
    try:
        try:
            _write_all(fd, data)
            if node is not None:
                try:
                    os.fchown(fd, node.st_uid, node.st_gid)
                except PermissionError:
                    pass  # only a privileged writer can give the file back to its owner
                os.fchmod(fd, stat.S_IMODE(node.st_mode))  # after chown, which clears set-id
        finally:
            os.close(fd)
        os.replace(tmp, target)
    except BaseException as exc:
        tmp.unlink(missing_ok=True)
        if isinstance(exc, OSError):
            raise OutputError(option, shown, f"cannot be written ({exc.strerror})") from None
        raise


def _write_descriptor(fd: int, data: str | bytes, option: str, shown: str) -> None:
    std = {1: sys.stdout, 2: sys.stderr}.get(fd)
    if std is not None and isinstance(data, str):
        std.write(data)
        std.flush()
        return
    if std is not None:
        std.flush()
    raw = data.encode("utf-8") if isinstance(data, str) else bytes(data)
    try:
        _write_all(fd, raw)
    except OSError as exc:
        raise OutputError(option, shown, f"cannot be written ({exc.strerror})") from None


def write_output(data: str | bytes, output: str | os.PathLike | None, option: str = "-o") -> None:
    """Write ``data`` (text as UTF-8) to ``output`` as the module docstring says: standard
    output for ``-`` or None, through the descriptor for ``/dev/stdout`` and ``/dev/fd/N``,
    straight into a character device or FIFO, whole or not at all into a regular file (a
    link's target), keeping an existing file's mode."""
    if _stdout(output):
        _write_descriptor(1, data, option, "-")
        return
    shown = str(output)
    fd = _descriptor(shown)
    if fd is not None:
        _write_descriptor(fd, data, option, shown)
        return
    check_output(shown, option=option)
    raw = data.encode("utf-8") if isinstance(data, str) else bytes(data)
    target = Path(os.path.realpath(shown))  # a link's target; the link stays
    node = _node(target, option, shown)
    if node is None or stat.S_ISREG(node.st_mode):
        _replace_regular(target, raw, node, option, shown)
        return
    # a character device or a FIFO (check_output refused the rest): written into, as ``>``
    # does; a FIFO's open waits for its reader
    try:
        out = os.open(target, os.O_WRONLY)
        try:
            _write_all(out, raw)
        finally:
            os.close(out)
    except OSError as exc:
        raise OutputError(option, shown, f"cannot be written ({exc.strerror})") from None
