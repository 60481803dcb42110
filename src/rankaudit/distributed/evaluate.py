"""``rankaudit.distributed.evaluate``: :func:`rankaudit.evaluate` on a Dask DataFrame.

How it runs
    1. Every row's candidates are brought into one partition, in frame order
       (:mod:`rankaudit.distributed.partitioning`: nothing to do, a move of the
       lines that straddle partition boundaries, or a shuffle on the row id).
    2. Each partition is a long-format frame, evaluated by the single-machine
       :func:`rankaudit.evaluate` on a worker (the same numba kernels).
    3. The per-row metrics stay on the cluster (persisted) as a Dask
       DataFrame; their means (and, for ``measures=``, their aggregates as each
       measure declares: the sum for the counts) are reduced exactly
       (:mod:`rankaudit.distributed.exact`) and returned computed.

Why the result is identical to one machine
    A row's metrics under every rule depend only on the row itself: its
    (score, label, item id) lines in frame order, its row id (the user id of
    the ``"hash"`` and ``"random"`` rules unless ``columns.user`` names another
    column), ``k``, ``seed`` and ``n_repeats``; never on where the row sits in
    the batch (see :mod:`rankaudit.ties.longformat` and
    :mod:`rankaudit.measures.row_sampled`).  Step 1 hands each row to the evaluator
    whole and in order, so per-row values are bit-for-bit those of
    ``rankaudit.evaluate(frame.compute(), ...)``, whatever the partitioning.
    The means are the correctly rounded means of those values, so they do not
    depend on the partitioning either (:func:`rankaudit.distributed.exact_mean`
    gives the same number from a single-machine result; pandas' ``.mean()``
    agrees to within a few units in the last place).
"""

from __future__ import annotations

from dataclasses import dataclass

import pandas as pd

from rankaudit._optional import require, tqdm
from rankaudit.distributed.exact import (
    exact_sums,
    means_of_totals,
    sums_from_sums,
    totals_from_sums,
)
from rankaudit.distributed.partitioning import check_dask_frame, rows_whole
from rankaudit.measures.registry import parse_measures
from rankaudit.options import DEFAULT_COLUMNS, LONG_COLUMN_KEYWORDS, LongColumns, moved_keywords
from rankaudit.ties.evaluate import evaluate as evaluate_local

__all__ = ["DistributedEvaluation", "evaluate", "progress_compute"]


@dataclass(frozen=True)
class DistributedEvaluation:
    """Result of :func:`evaluate`.

    Attributes
    ----------
    rows
        Dask DataFrame, one line per evaluated row: the row-id column, the
        ``columns.user`` column when given, then ``Success@k``, ``nDCG@k``, ``RR`` and
        any ``*_std`` / ``*_var`` columns (as :func:`rankaudit.evaluate`).
        Lines are grouped by partition, not sorted; sort by the row id to
        line them up with a single-machine result.
    means
        pandas Series: the correctly rounded mean of each metric column.
    n_rows
        Number of evaluated rows (after ``empty="drop"``).
    aggregates
        pandas Series: each metric column aggregated as trec_eval aggregates it, which is
        its mean except for a ``measures=`` count (``NumRet``, ``NumRel``, ``NumRelRet``),
        whose correctly rounded *sum* it holds (the family's declared aggregation,
        :func:`rankaudit.measures.registry.aggregate_value`).
    """

    rows: object
    means: pd.Series
    n_rows: int
    aggregates: pd.Series

    def __repr__(self) -> str:
        return f"DistributedEvaluation(n_rows={self.n_rows})\n{self.means.to_string()}"


def run_on_partition(
    function,
    part: pd.DataFrame,
    meta: pd.DataFrame,
    row_col: str,
    partition_info: dict | None,
    **kwargs,
) -> pd.DataFrame:
    """``function(part, row_col=row_col, **kwargs)`` on one partition of whole rows.

    An empty partition gives ``meta``; a ValueError is re-raised with the partition
    number, since the single-machine message counts rows ("row i") within the partition.
    """
    if len(part) == 0:
        return meta
    if row_col not in part.columns:
        part = part.reset_index()
    try:
        return function(part, row_col=row_col, **kwargs)
    except ValueError as err:
        number = "?" if partition_info is None else partition_info["number"]
        raise ValueError(
            f"{err} [Dask partition {number}: 'row i' counts rows within that partition; "
            f"the {row_col} value names the row]"
        ) from err


def _evaluate_partition(
    part: pd.DataFrame,
    meta: pd.DataFrame,
    row_col: str,
    partition_info: dict | None = None,
    **kwargs,
) -> pd.DataFrame:
    return run_on_partition(_evaluate_whole_rows, part, meta, row_col, partition_info, **kwargs)


def _evaluate_whole_rows(part: pd.DataFrame, *, row_col: str, **kwargs) -> pd.DataFrame:
    """:func:`rankaudit.evaluate` of one partition (its ``columns`` name the row column)."""
    return evaluate_local(part, **kwargs)


def _meta_frame(frame, *, columns: LongColumns, **kwargs) -> pd.DataFrame:
    """Empty output frame with the right columns and dtypes: the local evaluator on one line."""
    if not isinstance(columns, LongColumns):
        raise ValueError(f"columns must be a LongColumns; got {type(columns).__name__}")
    example = frame._meta_nonempty.iloc[:1]
    if columns.row not in example.columns:
        example = example.reset_index()
    for keyword, column in (
        ("LongColumns.score", columns.score),
        ("LongColumns.label", columns.label),
    ):
        if column not in example.columns:
            raise ValueError(
                f"{keyword}={column!r} is not a column "
                f"of the Dask DataFrame; columns are: {', '.join(map(str, frame.columns))}"
            )
    example = example.assign(**{columns.score: 0.0, columns.label: 1})
    return evaluate_local(example, columns=columns, **kwargs).iloc[:0]


def progress_compute(tasks: list, progress: bool, desc: str) -> list:
    """Compute dask delayed ``tasks``; with a distributed client, show a tqdm bar over them."""
    dask = require("dask", purpose="rankaudit.distributed")

    try:
        from distributed import as_completed, get_client

        client = get_client()
    except (ImportError, ValueError):
        return list(dask.compute(*tasks))

    futures = client.compute(tasks)
    for _ in tqdm(as_completed(futures), total=len(futures), desc=desc, disable=not progress):
        pass
    return client.gather(futures)


@moved_keywords(LONG_COLUMN_KEYWORDS)
def evaluate(
    frame,
    *,
    k: int = 10,
    ties: str = "expected",
    measures: object = None,
    seed: int = 0,
    empty: str = "error",
    n_repeats: int = 1,
    return_variance: bool = False,
    columns: LongColumns = DEFAULT_COLUMNS,
    row_partitioning: str = "auto",
    shuffle_method: str | None = None,
    persist: bool = True,
    progress: bool = True,
) -> DistributedEvaluation:
    """Evaluate HR@k, NDCG@k and RR of every row of a long-format Dask DataFrame.

    The metrics, tie rules and arguments shared with :func:`rankaudit.evaluate`
    mean exactly what they mean there (HR@k; NDCG@k with linear gain,
    Järvelin & Kekäläinen, ACM TOIS 2002; RR, Voorhees, TREC-8 1999; the
    ``"expected"`` rule is the tie-averaged expectation of McSherry & Najork,
    ECIR 2008), and the per-row results are identical to
    ``rankaudit.evaluate(frame.compute(), ...)`` for every rule (module docstring).

    Parameters
    ----------
    frame
        ``dask.dataframe.DataFrame`` in long format: one line per (row,
        candidate), columns named by ``columns``.  The row id may also be the index.
    k, ties, seed, n_repeats, empty, return_variance, measures
        As in :func:`rankaudit.evaluate` (``measures``: any measure of the core registry,
        e.g. ``["nDCG(dcg='exp-log2')@10", "AP", "RBP(p=0.9)"]``).
    columns
        Column names, a :class:`rankaudit.LongColumns` as in :func:`rankaudit.evaluate` (its
        user column defaults to the row id as the user id of ``"hash"`` / ``"random"``).
    row_partitioning
        How rows split across partitions are made whole
        (:mod:`rankaudit.distributed.partitioning`): ``"auto"`` (default)
        analyses the row ids in one cheap pass and then uses the partitions as
        they are, moves only the lines of rows that straddle a boundary (rows
        contiguous in frame order), or shuffles all lines by row id (rows
        scattered); ``"shuffle"`` always shuffles; ``"check"`` requires rows
        to be whole per partition and raises otherwise.
    shuffle_method
        Passed to Dask's ``DataFrame.shuffle`` (None: Dask's default, ``"p2p"``
        on a distributed cluster).
    persist
        Keep the per-row metrics in cluster memory (computed once, for the
        means and for later use of ``.rows``).  With False they are computed
        for the means and recomputed whenever ``.rows`` is used.
    progress
        Show a tqdm bar over partitions while the means are computed (with a
        ``distributed`` client).

    Returns
    -------
    DistributedEvaluation
        ``.rows`` (Dask DataFrame of per-row metrics), ``.means`` (pandas
        Series, computed) and ``.n_rows``.

    Raises
    ------
    ValueError
        Whatever :func:`rankaudit.evaluate` raises for a row (raised on the
        worker, naming the row), a column that does not exist, an unknown
        ``row_partitioning``, a row split across partitions under ``"check"``,
        and no rows to average (zero input rows, or all dropped by
        ``empty="drop"``).

    Examples
    --------
    ::

        from distributed import Client, LocalCluster
        client = Client(LocalCluster(n_workers=2))  # or Client("tcp://scheduler:8786")
        frame = dask.dataframe.read_parquet("eval/*.parquet")
        result = rankaudit.distributed.evaluate(frame, k=10, ties="expected")
        result.means["nDCG@10"]
    """
    check_dask_frame(frame, "evaluate")
    options = dict(
        k=k,
        ties=ties,
        seed=seed,
        n_repeats=n_repeats,
        empty=empty,
        return_variance=return_variance,
        measures=measures,
    )
    meta = _meta_frame(frame, columns=columns, **options)  # also validates the options
    row_col = columns.row
    whole = rows_whole(frame, row_col, row_partitioning, shuffle_method)
    rows = whole.map_partitions(
        _evaluate_partition, meta, row_col, meta=meta, columns=columns, **options
    )
    if persist:
        rows = rows.persist()
    row_id_columns = {row_col, columns.user}
    metric_columns = [c for c in meta.columns if c not in row_id_columns]
    parts = [_sums(part, metric_columns) for part in rows.to_delayed()]
    totals, n_rows = totals_from_sums(progress_compute(parts, progress, "rankaudit.distributed"))
    means = means_of_totals(totals, n_rows)
    summed = [] if measures is None else parse_measures(measures)
    summed = [str(m) for m in summed if m.aggregation == "sum"]
    aggregates = means.copy()
    for name, value in sums_from_sums({name: totals[name] for name in summed}).items():
        aggregates[name] = value
    return DistributedEvaluation(rows=rows, means=means, n_rows=n_rows, aggregates=aggregates)


def _sums(part, columns: list[str]):
    dask = require("dask", purpose="rankaudit.distributed")

    return dask.delayed(exact_sums)(part, columns)
