"""A whole track audited on a Dask cluster: one run a task, the qrels shared once.

:func:`audit_run_files_on_cluster` does what
:func:`rankaudit.runs.leaderboard.audit_run_files` does in one process, on the workers of
``client``: the qrels are read by one task whose result every run task takes as input (Dask
copies it to each worker once), and each run is read and audited by its own task
(:func:`~rankaudit.runs.leaderboard.audit_run_file`), so a worker holds one run at a time
and the client only the per-query values.  An input that is not a regular file (``-``, a pipe
such as ``<(zcat run.gz)``, a FIFO) can be read once, and only by this process: it is read here,
in the client, once, and its table is shipped to the cluster (``client.scatter``), so the
workers never open it.  The audits come back in the order of ``paths`` and are the same
numbers, computed by the same kernels, as in one process; a task's error (say, a malformed
line, named with its file and line) is raised here, the first in the order of ``paths``,
after the other tasks are cancelled.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from rankaudit.runs.evaluate import RunAudit
from rankaudit.runs.inputs import is_reopenable_file
from rankaudit.runs.leaderboard import audit_run_file
from rankaudit.runs.tables import Qrels, Run

__all__ = ["audit_run_files_on_cluster"]


def audit_run_files_on_cluster(
    client: object,
    paths: Sequence[str],
    read_run: Callable[[str], Run],
    qrels_path: str,
    read_qrels: Callable[[str], Qrels],
    **options: object,
) -> list[RunAudit]:
    """The audit of every run of ``paths`` (``options``: of ``audit_run``), one task a run.

    ``read_run`` and ``read_qrels`` must be picklable (a module-level function or a
    ``functools.partial`` of one); the workers need rankaudit installed and must see the paths
    of regular files.  Any other input (``-``, a pipe) is read here, in the order of
    ``paths``, and shipped as a table (module docstring).
    """
    if is_reopenable_file(qrels_path):
        qrels = client.submit(read_qrels, qrels_path, pure=False)
    else:
        qrels = client.scatter(read_qrels(qrels_path), hash=False)
    futures: list = []
    try:
        for p in paths:
            if is_reopenable_file(p):
                source = p
            else:
                try:
                    source = client.scatter(read_run(p), hash=False)
                except Exception:
                    # an earlier run's error comes first, as in one process
                    for f in futures:
                        f.result()
                    raise
            futures.append(
                client.submit(audit_run_file, source, read_run, qrels, pure=False, **options)
            )
        return [f.result() for f in futures]
    finally:
        client.cancel([*futures, qrels])
