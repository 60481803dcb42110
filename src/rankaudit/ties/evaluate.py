"""``rankaudit.evaluate``: HR@k, NDCG@k and RR of every row under a declared tie rule.

This module is the API layer: it checks arguments, lays the input out as a CSR
batch (:mod:`~rankaudit.ties.validation`, :mod:`~rankaudit.ties.longformat`),
calls the kernel of the chosen rule (:mod:`~rankaudit.measures.row_expected`,
:mod:`~rankaudit.measures.row_ordered`, :mod:`~rankaudit.measures.row_sampled`) and returns a
DataFrame.  The metric definitions live in :mod:`rankaudit.measures.row_metrics`.

The returned frame starts with id columns (the row id, and the user id when
given), which are numbers too: average the *metric* columns only.
:func:`summarize` does that; the frame's ``attrs`` name both groups
(``attrs["metric_columns"]``, ``attrs["id_columns"]``) along with ``k`` and
``ties``.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from rankaudit._checks import RANDOM_REPEATS, check_count, check_not_masked
from rankaudit.measures.hashing import normalize_ids
from rankaudit.measures.registry import parse_measures
from rankaudit.measures.row_expected import row_expected_kernel
from rankaudit.measures.row_ordered import HASH, KEY, row_ordered_kernel
from rankaudit.measures.row_sampled import RANDOM_DOMAIN, row_random_kernel
from rankaudit.measures.row_support import (
    RowBatch,
    RowOutput,
    RowTables,
    discount_tables,
    harmonic_tables,
    log2_table,
)
from rankaudit.measures.rules import TIE_RULES, check_rule, rule
from rankaudit.options import DEFAULT_COLUMNS, LONG_COLUMN_KEYWORDS, LongColumns, moved_keywords
from rankaudit.ties.fast_path import default_measures, fast_path_cutoff, metric_names
from rankaudit.ties.ideal import rescale_to_ideal
from rankaudit.ties.longformat import batch_from_long
from rankaudit.ties.measures_rows import evaluate_measures
from rankaudit.ties.tie_context import row_tie_keys
from rankaudit.ties.validation import (
    Batch,
    batch_from_arrays,
    check_empty_policy,
    check_k,
    check_seed,
    raise_for_status,
    row_keys,
)

__all__ = ["TIE_RULES", "evaluate", "evaluate_batch"]

_EMPTY = np.zeros(1)


@moved_keywords(LONG_COLUMN_KEYWORDS)
def evaluate(
    scores: object,
    labels: object = None,
    *,
    k: int = 10,
    ties: str = "expected",
    measures: object = None,
    seed: int = 0,
    user_ids: object = None,
    item_ids: object = None,
    ideal_labels: object = None,
    empty: str = "error",
    n_repeats: int = 1,
    return_variance: bool = False,
    columns: LongColumns = DEFAULT_COLUMNS,
) -> pd.DataFrame:
    """Evaluate HR@k, NDCG@k and RR (or any ``measures``) of every row under a tie rule.

    Metrics (relevant = label > 0; definitions in :mod:`rankaudit.measures.row_metrics`)
        - ``Success@k = 1[min rank of a relevant item <= k]``;
        - ``nDCG@k = DCG@k / IDCG@k`` with ``DCG@k = sum_{r<=k} label(r)/log2(r+1)``
          (linear gain; IDCG from the row's own labels sorted decreasingly;
          Järvelin & Kekäläinen, ACM TOIS 2002), as scikit-learn and trec_eval;
        - ``rr = 1 / rank of the first relevant item``, no cutoff (its mean is
          MRR; Voorhees, TREC-8 QA 1999).

    Tie rules (``ties=``; see :mod:`rankaudit.ties.ranking`)
        ``"input_order"`` stable sort by score (reproduces the relevant-first
        bias; not row-order invariant), ``"hash"`` order by
        ``tie_hash(seed, user id, item id)`` (:mod:`rankaudit.measures.hashing`),
        ``"random"`` seeded uniform random order averaged over ``n_repeats``
        draws (:mod:`rankaudit.measures.row_sampled`), ``"expected"`` the exact
        expectation over uniform random tie orders (McSherry & Najork, ECIR
        2008; :mod:`rankaudit.measures.row_expected`), ``"pessimistic"`` /
        ``"optimistic"`` relevant items last / first within ties (lower label
        first / higher label first for graded labels).

    Parameters
    ----------
    scores
        ``(rows, candidates)`` array of scores (higher = better), a list of
        1-D rows of different lengths, or a long-format DataFrame (then
        ``labels`` must be None and ``columns`` names its columns).
        A tie is exact equality of the values as given (integers of any size
        compared exactly, float32 kept float32, ``-0.0 == 0.0``; see
        :mod:`rankaudit.ties.ranking`).
    labels
        Same shape as ``scores``; graded relevance, finite, >= 0 and < 2**53,
        0 = not relevant.
    k
        Cutoff of the default measures (``Success@k``, ``nDCG@k``), an integer >= 1 of any
        integer type (a cutoff beyond the longest row acts as the row length); with
        ``measures=`` the measures carry their own cutoffs.
    ties
        The tie rule (above).
    seed
        Seed of the ``"hash"`` and ``"random"`` rules (an integer, used modulo 2**64).
    user_ids
        One id (int or str) per row, for ``"hash"`` and ``"random"``; without
        them the row position is used, so results then depend on where a row
        sits in the batch.
    item_ids
        Same shape as ``scores``; ids (int or str) of the candidates, required
        by ``"hash"`` and distinct within a row.
    n_repeats
        Number of random tie orders averaged by ``"random"``, ``1..RANDOM_REPEATS.most`` (> 1 adds
        the per-row sample standard deviation as ``*_std`` columns).
    empty
        Rows without a relevant item: ``"error"`` (default) raises,
        ``"zero"`` scores them 0, ``"drop"`` leaves them out (the row-id
        column shows which rows remain).
    return_variance
        With ``"expected"``: add ``*_var`` columns, the exact per-row variance
        of each metric over uniform random tie orders (fast-path measures only).
    columns
        Column names of a long-format DataFrame, a :class:`rankaudit.LongColumns` (its user
        column defaults to the row id); the former ``row_col=`` ... ``user_col=`` are refused.
    ideal_labels
        Optional: one sequence per row with the labels of *all* judged items of
        that row's query (retrieved or not), as in a qrels file.  IDCG@k is then
        taken from them, as trec_eval's ``ndcg_cut`` does, instead of from the
        row's candidates: ``nDCG@k`` (and ``nDCG@k_var``) are rescaled by
        ``IDCG_row / IDCG_ideal`` (squared for the variance); HR and RR do not
        change.  Default None keeps the candidate-based IDCG.  A row whose ideal
        labels give a smaller IDCG than its own candidates is an error.
    measures
        The measures of the core registry to compute, in ir_measures' spelling
        (:mod:`rankaudit.measures.registry`), e.g. ``["nDCG(dcg='exp-log2')@10", "AP",
        "RBP(p=0.9)", "HR@10"]`` (ranx names and ir_measures objects too); each column is
        named ``str(measure)``.  Default None: :func:`~rankaudit.ties.fast_path.default_measures`
        at ``k``, ``Success@k``, ``nDCG@k`` and ``RR``.

        One dispatch, read from one declaration
        (:data:`rankaudit.ties.fast_path.ROW_FAST_PATH`,
        :func:`~rankaudit.ties.fast_path.fast_path_cutoff`): when every requested measure is
        ``Success@k`` (``HR@k``), ``nDCG@k`` or ``RR``, at one cutoff, the row kernels compute
        them (the fast path; the default measures always take it); otherwise the list kernels
        of :func:`rankaudit.runs.evaluate_run` do, with every candidate judged (labels are then
        whole-number grades, relevant = label >= 1, and ``ideal_labels`` give R, N and IDCG).
        Under every rule that does not sample the two paths give the same bits on the fast
        path's measures; ``ties="random"`` orders each tie block by the same draws on both
        (:func:`rankaudit.measures.row_sampled.random_tie_keys`; with ``n_repeats > 1`` a
        ``str(measure)_std`` column each).  ``return_variance`` and fractional labels need the
        fast path; with other measures they are an error.  ``pessimistic`` / ``optimistic``
        bound each measure by its own utility, and ``pessimistic <= expected <= optimistic``
        holds exactly.  :func:`summarize` aggregates every measure column as trec_eval does:
        the mean over rows, the sum for the counts ``NumRet``, ``NumRel``, ``NumRelRet``.
        With ``measures=`` the cutoff is the measures' own: ``k`` is then used only for
        ``RR`` alone (no cutoff) and is otherwise ignored, as before.

    Returns
    -------
    pandas.DataFrame
        One line per input row (in input order; first appearance for long
        format): a row-id column (``row`` = input position, or ``columns.row``),
        ``user_id`` / ``columns.user`` when user ids were given, then ``Success@k``,
        ``nDCG@k``, ``RR`` and any ``*_var`` / ``*_std`` columns.  The id
        columns are numeric too, so do not take ``.mean()`` of the whole
        frame: use :func:`summarize` (means of ``Success@k``, ``nDCG@k``, ``RR``,
        i.e. HR@k, NDCG@k and MRR), or the column lists in
        ``attrs["metric_columns"]`` / ``attrs["id_columns"]``.

    Raises
    ------
    ValueError
        Naming the problem and the first offending row: NaN / infinite
        scores, shapes that differ, negative / NaN / non-numeric labels, bad
        ``k``, unknown ``ties``, ``"hash"`` without item ids or with a repeated
        item id in a row, zero rows, and rows with no relevant item when
        ``empty="error"``; a NumPy masked array (``numpy.ma``) with a masked entry, as
        ``scores``, ``labels``, ``item_ids``, ``user_ids`` or ``ideal_labels`` (or as one of
        their rows), is refused: masks are not honoured (NumPy's conversions would drop the
        mask and evaluate the values under it), so remove the masked candidates (ragged rows
        are accepted) or fill them deliberately.

    Examples
    --------
    >>> import numpy as np, rankaudit
    >>> scores = np.zeros((1, 31)); labels = np.zeros((1, 31)); labels[0, 0] = 1
    >>> rankaudit.evaluate(scores, labels, ties="input_order")["nDCG@10"].item()
    1.0
    >>> round(rankaudit.evaluate(scores, labels)["nDCG@10"].item(), 4)
    0.1466
    >>> from rankaudit.ties import summarize  # means of the metric columns only
    >>> summarize(rankaudit.evaluate(scores, labels)).round(4).to_dict()
    {'Success@10': 0.3226, 'nDCG@10': 0.1466, 'RR': 0.1299}
    """
    ties = check_rule(ties, api="rows")
    check_not_masked(ideal_labels, "ideal_labels")
    k = check_k(k)
    seed = check_seed(seed)
    empty = check_empty_policy(empty)
    n_repeats = check_count(n_repeats, "n_repeats", RANDOM_REPEATS)
    if n_repeats != 1 and rule(ties).order != "sample":
        raise ValueError(f"n_repeats={n_repeats} applies only to ties='random' (got ties={ties!r})")
    if return_variance and rule(ties).order != "expected":
        raise ValueError(
            "return_variance=True applies only to ties='expected' "
            "(ties='random' with n_repeats > 1 reports *_std columns)"
        )

    if isinstance(scores, pd.DataFrame):
        if labels is not None or user_ids is not None or item_ids is not None:
            raise ValueError(
                "with a long-format DataFrame, pass labels / user ids / item ids as columns "
                "(columns=LongColumns(label=, user=, item=)), not as arguments"
            )
        batch = batch_from_long(scores, columns, need_items=rule(ties).needs_items)
    else:
        if labels is None:
            raise ValueError("labels are required (same shape as scores)")
        batch = batch_from_arrays(scores, labels, user_ids=user_ids, item_ids=item_ids)
    if rule(ties).needs_items and batch.item_ids is None:
        raise ValueError(
            f"ties={ties!r} needs item_ids (one id per candidate, distinct within a row): "
            f"{rule(ties).describe.format(seed=seed, n_repeats=n_repeats)}"
        )

    # The one dispatch: the row kernels when every measure is a fast-path measure at one
    # cutoff (ROW_FAST_PATH), else the list kernels; measures=None is default_measures(k).
    parsed = None if measures is None else parse_measures(measures)
    names = list(default_measures(k)) if parsed is None else [str(m) for m in parsed]
    cutoff = fast_path_cutoff(parsed, k)
    if cutoff is None:
        if return_variance:
            raise ValueError(
                "return_variance applies only to measures of the row kernels' fast path "
                f"(Success@k, nDCG@k and RR at one cutoff); measures={names} are not"
            )
        assert parsed is not None
        values, has_rel = evaluate_measures(
            batch, parsed, ties, seed=seed, ideal_labels=ideal_labels, n_repeats=n_repeats
        )
    else:
        values, has_rel = evaluate_batch(
            batch,
            k=cutoff,
            ties=ties,
            seed=seed,
            n_repeats=n_repeats,
            return_variance=return_variance,
        )
        if ideal_labels is not None:
            rescale_to_ideal(values, batch, ideal_labels, cutoff)
        values = _requested(values, names)
    frame = _to_frame(batch, values, has_rel, empty)
    frame.attrs.update(ties=ties, measures=names)
    if cutoff is not None:
        frame.attrs["k"] = cutoff
    return frame


def _requested(values: dict[str, np.ndarray], names: list[str]) -> dict[str, np.ndarray]:
    """The row kernels' columns of the requested measures, in their order, then their
    ``*_var`` / ``*_std`` columns in the same order."""
    out = {name: values[name] for name in names}
    for suffix in ("_var", "_std"):
        extra = [f"{name}{suffix}" for name in names]
        out.update({name: values[name] for name in extra if name in values})
    return out


def evaluate_batch(
    batch: Batch,
    *,
    k: int,
    ties: str,
    seed: int = 0,
    n_repeats: int = 1,
    return_variance: bool = False,
) -> tuple[dict[str, np.ndarray], np.ndarray]:
    """Run the kernel of ``ties`` on a checked batch.

    Returns the metric arrays by column name and a per-row bool array: does the
    row hold a relevant item (label > 0)?  (One byte a row rather than a count:
    at two million rows the output writes are a measurable part of the time.)
    Raises ValueError on invalid values (see :func:`evaluate`).
    """
    declared = rule(ties)
    n = batch.n_rows
    max_len = batch.max_len
    names_k = k
    # A cutoff beyond the longest row changes nothing; clamping keeps k an int64 in the kernels
    # (k = 2**64 - 1 would otherwise be typed uint64 and compare wrongly with int64 ranks).
    k = min(k, max(max_len, 1))
    disc, cum1, cum2 = discount_tables(k, max_len)
    expected = declared.order == "expected"
    sample = declared.order == "sample"
    h1, h2 = harmonic_tables(max_len) if expected else (_EMPTY, _EMPTY)
    tables = RowTables(disc, cum1, cum2, h1, h2, max_len, log2_table(k, max_len))
    rows = RowBatch(*batch.kernel_layout(), batch.scores, batch.labels)
    extra = (expected and return_variance) or (sample and n_repeats > 1)
    width = n if extra else 0
    out = RowOutput(
        np.empty(n),
        np.empty(n),
        np.empty(n),
        np.empty(width),
        np.empty(width),
        np.empty(width),
        np.empty(n, dtype=np.bool_),
    )
    hr_name, ndcg_name, rr_name = metric_names(names_k)
    values = {hr_name: out.hr, ndcg_name: out.ndcg, rr_name: out.rr}
    suffix = "_var" if expected else "_std"
    if expected:
        status = row_expected_kernel(rows, k, return_variance, tables, out)
    elif sample:
        keys = row_keys(batch, seed, domain=RANDOM_DOMAIN)
        status = row_random_kernel(rows, k, n_repeats, keys, tables, out)
    else:
        mode = declared.kernel_mode  # a ValueError for a rule without an order
        item_keys = item_codes = order_keys = np.zeros(1, dtype=np.int64)
        keys = np.zeros(1, dtype=np.uint64)
        if mode == HASH:
            assert batch.item_ids is not None
            item_keys, item_codes = normalize_ids(
                batch.item_ids, batch.item_id_name, locate=batch.describe_position
            )
            keys = row_keys(batch, seed)
        elif mode == KEY:
            order_keys = np.zeros(np.asarray(batch.scores).size, dtype=np.int64)
            start = batch.row_start(0) if n else 0
            ranked = row_tie_keys(batch, ties, seed)
            order_keys[start : start + len(ranked)] = ranked
        status = row_ordered_kernel(
            rows, k, mode, keys, item_keys, item_codes, order_keys, tables, out
        )
    if extra:
        seconds = (out.hr_extra, out.ndcg_extra, out.rr_extra)
        values.update({f"{name}{suffix}": v for name, v in zip(list(values), seconds, strict=True)})
    raise_for_status(*status, batch)
    return values, out.has_rel


def _to_frame(
    batch: Batch, values: dict[str, np.ndarray], has_rel: np.ndarray, empty: str
) -> pd.DataFrame:
    columns: dict[str, np.ndarray] = {batch.row_id_name: batch.row_ids}
    if batch.user_id_name is not None and batch.user_ids is not None:
        columns[batch.user_id_name] = batch.user_ids
    id_columns = list(columns)
    columns.update(values)
    if not has_rel.all():
        missing = ~has_rel
        if empty == "error":
            row = int(np.argmax(missing))
            raise ValueError(
                f"labels: {batch.describe_row(row)} has no relevant item (label > 0); "
                f"{int(missing.sum())} of {batch.n_rows} rows have none. Pass empty='zero' to "
                "score such rows 0, or empty='drop' to leave them out"
            )
        if empty == "drop":
            columns = {name: col[has_rel] for name, col in columns.items()}
    frame = pd.DataFrame(columns, copy=False)
    frame.attrs["id_columns"] = id_columns
    frame.attrs["metric_columns"] = [name for name in values if not name.endswith(("_var", "_std"))]
    return frame
