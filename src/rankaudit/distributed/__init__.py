"""Tie-aware evaluation past one machine, on Dask (``dask[dataframe]`` + ``distributed``).

- :func:`evaluate`: :func:`rankaudit.evaluate` on a long-format Dask DataFrame;
  per-row metrics as a Dask DataFrame plus their means, identical to the
  single-machine result for every tie rule, whatever the partitioning.
- :func:`tie_prevalence`: :func:`rankaudit.tie_prevalence` on Dask, with the
  same summary fractions.
- :func:`exact_mean`: the partition-independent mean the two report.
- :class:`SyntheticTable`: a synthetic long-format table, generated on the workers.
- :mod:`rankaudit.distributed.leaderboard`: a whole track of run files audited as Dask tasks
  (one run a task, the qrels shared once), for ``rankaudit audit|leaderboard --scheduler``;
  :mod:`rankaudit.distributed.cluster` connects to a scheduler or starts a LocalCluster.

Rows split across partitions are made whole first: only the lines that
straddle a partition boundary move when rows are contiguous in frame order, and
all lines are shuffled by row id when they are scattered
(:mod:`rankaudit.distributed.partitioning`).  Nothing here starts a cluster:
the calls run on whatever Dask scheduler is active, e.g. ::

    from distributed import Client, LocalCluster
    import dask.dataframe as dd
    import rankaudit.distributed as rd

    client = Client(LocalCluster(n_workers=2, threads_per_worker=1))  # one machine
    # client = Client("tcp://scheduler-host:8786")                     # a real cluster
    frame = dd.read_parquet("eval_log/*.parquet")  # columns row_id, item_id, score, label
    result = rd.evaluate(frame, k=10, ties="expected")
    print(result.means)                       # computed
    result.rows.to_parquet("per_row_metrics/")  # per-row metrics, written by the workers

On a real cluster the workers need rankaudit installed (same version) and must
be able to read the input paths (shared filesystem or object store).

Command line
------------
``rankaudit rows`` (the one console script; the former ``rankaudit-distributed`` and
``python -m rankaudit.distributed`` are folded into it)::

    rankaudit rows --scheduler local                       # LocalCluster, synthetic table
    rankaudit rows data.parquet --scheduler tcp://host:8786 --k 10 --ties expected hash \
        --rows-dir per_row/ --tie-flags

gives the same bits without ``--scheduler`` (in one process); ``rankaudit audit`` and
``rankaudit leaderboard`` take ``--scheduler`` too.  ``rankaudit rows --help`` lists every
option.
"""

from rankaudit.distributed.evaluate import DistributedEvaluation, evaluate
from rankaudit.distributed.exact import exact_mean
from rankaudit.distributed.partitioning import check_rows_whole
from rankaudit.distributed.prevalence import DistributedTiePrevalence, tie_prevalence
from rankaudit.distributed.synthetic import (
    SyntheticTable,
    synthetic_long_dask,
    synthetic_long_table,
)

__all__ = [
    "DistributedEvaluation",
    "DistributedTiePrevalence",
    "SyntheticTable",
    "check_rows_whole",
    "evaluate",
    "exact_mean",
    "synthetic_long_dask",
    "synthetic_long_table",
    "tie_prevalence",
]
