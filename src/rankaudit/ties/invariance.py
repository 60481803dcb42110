"""Row-order invariance audit of any evaluator callable.

Definition (Guo et al., arXiv:2609.26977, §1 and §3.1): an evaluator is
*row-order invariant* when permuting the candidates of a row, keeping every
candidate's id, label and score together, leaves its result unchanged.  A
stable sort by score is not (equal scores keep input order, so a relevant-first
row wins every tie); a tie-break on a key that travels with the candidate (a
hash of ids, an exact expectation) is.

:func:`audit_row_order` checks this empirically: it draws ``n_permutations``
independent random permutations of every row, reruns the evaluator on each
and reports, per metric, the largest change of any row, the mean over rows of
each row's largest change, and the largest change of the row mean.  One
change above ``atol`` is a proof of non-invariance; no change is evidence (not
proof) of invariance, stronger with more permutations.
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd

from rankaudit._checks import RERUNS, check_count, check_not_masked
from rankaudit._optional import tqdm
from rankaudit.ties.validation import check_seed

__all__ = ["RowOrderAudit", "audit_row_order"]

_ID_COLUMNS = frozenset({"row", "row_id", "user_id"})


@dataclass(frozen=True)
class RowOrderAudit:
    """Result of :func:`audit_row_order`.

    ``summary``: one line per metric with ``baseline_mean``, ``max_row_change``,
    ``mean_row_change``, ``max_mean_change`` and ``is_invariant``.
    ``per_row``: each row's largest absolute change per metric.
    """

    is_invariant: bool
    max_row_change: float
    mean_row_change: float
    max_mean_change: float
    n_permutations: int
    atol: float
    summary: pd.DataFrame
    per_row: pd.DataFrame

    def __repr__(self) -> str:
        verdict = "invariant" if self.is_invariant else "NOT invariant"
        return (
            f"RowOrderAudit({verdict} over {self.n_permutations} permutations, "
            f"max row change {self.max_row_change:.6g}, "
            f"max mean change {self.max_mean_change:.6g})"
        )


def _as_table(result: object, columns: Sequence[str] | None) -> pd.DataFrame:
    """An evaluator's output as a float DataFrame (rows x metrics)."""
    if isinstance(result, pd.DataFrame):
        if columns is not None:
            missing = [c for c in columns if c not in result.columns]
            if missing:
                raise ValueError(f"columns: the evaluator output has no column(s) {missing}")
            table = result[list(columns)]
        else:
            ids = _ID_COLUMNS.union(result.attrs.get("id_columns", ()))
            numeric = [
                c
                for c in result.columns
                if c not in ids and pd.api.types.is_numeric_dtype(result[c])
            ]
            table = result[numeric]
        return table.astype(np.float64).reset_index(drop=True)
    if isinstance(result, pd.Series):
        return pd.DataFrame({result.name or "value": result.to_numpy(dtype=np.float64)})
    arr = np.asarray(result, dtype=np.float64)
    if arr.ndim == 0:
        return pd.DataFrame({"value": [float(arr)]})
    if arr.ndim == 1:
        return pd.DataFrame({"value": arr})
    if arr.ndim == 2:
        return pd.DataFrame(arr, columns=[f"value_{j}" for j in range(arr.shape[1])])
    raise ValueError(f"the evaluator returned an array of shape {arr.shape}; expected <= 2-D")


def _check_atol(atol: object) -> float:
    if isinstance(atol, (bool, np.bool_)) or not isinstance(atol, numbers.Real):
        raise ValueError(f"atol must be a finite number >= 0; got {atol!r} ({type(atol).__name__})")
    value = float(atol)
    if not (math.isfinite(value) and value >= 0):
        raise ValueError(f"atol must be a finite number >= 0; got {atol!r}")
    return value


def _checked_table(result: object, columns: Sequence[str] | None, when: str) -> pd.DataFrame:
    """:func:`_as_table`, refusing output that is not numeric or not finite (NaN would make
    every comparison False and read as a change)."""
    try:
        table = _as_table(result, columns)
    except (TypeError, ValueError) as err:
        if str(err).startswith(("columns:", "the evaluator")):
            raise
        raise ValueError(f"the evaluator's output {when} is not numeric: {err}") from err
    values = table.to_numpy()
    bad = ~np.isfinite(values)
    if bad.any():
        row, col = (int(i[0]) for i in np.nonzero(bad))
        raise ValueError(
            f"the evaluator returned a non-finite value {float(values[row, col])!r} {when} "
            f"(row {row}, column {table.columns[col]!r}); row-order invariance needs finite "
            "results"
        )
    return table


def audit_row_order(
    evaluator: Callable[..., object],
    scores: np.ndarray,
    labels: np.ndarray,
    *,
    n_permutations: int = 50,
    seed: int = 0,
    atol: float = 1e-12,
    columns: Sequence[str] | None = None,
    progress: bool | None = None,
    **ids: object,
) -> RowOrderAudit:
    """Permute every row's candidates and rerun ``evaluator``; report how much results move.

    Parameters
    ----------
    evaluator
        Called as ``evaluator(scores, labels, **ids)``; returns per-row values
        (1-D array, Series, or a DataFrame of metric columns), or one number.
    scores, labels
        ``(rows, candidates)`` arrays.
    n_permutations
        Number of independent random permutations (each permutes every row and reruns the
        evaluator), ``1..RERUNS.most``.
    seed
        Seed of ``numpy.random.default_rng`` drawing the permutations (an
        integer, used modulo 2**64).
    atol
        Largest change still counted as equal, a finite number >= 0
        (floating-point summation order can move an invariant evaluator by ~1e-16).
    columns
        Which columns of a DataFrame output to audit (default: every numeric
        column except ``row`` / ``row_id`` / ``user_id`` and the id columns that
        :func:`rankaudit.evaluate` names in ``attrs["id_columns"]``).
    progress
        Show a tqdm bar (default: when rows x permutations >= 200,000).
    **ids
        Extra keyword arguments for the evaluator (e.g. ``item_ids``,
        ``user_ids``).  Arrays with the shape of ``scores`` are permuted with
        the candidates; anything else is passed unchanged.

    Returns
    -------
    RowOrderAudit
        Verdict ``is_invariant`` (every change <= ``atol``), the largest per-row
        change, the mean per-row largest change, the largest change of the mean,
        and per-metric / per-row tables.

    Raises
    ------
    ValueError
        On bad arguments (checked before the evaluator runs), and when the
        evaluator returns a NaN / infinite or non-numeric value (naming the
        permutation, row and column), or a different shape after a permutation.
        A masked array (``numpy.ma``) as ``scores``, ``labels`` or an id is refused:
        masks are not honoured.
    """
    seed = check_seed(seed) & ((1 << 64) - 1)
    atol = _check_atol(atol)
    if not callable(evaluator):
        raise ValueError(f"evaluator must be callable; got {type(evaluator).__name__}")
    n_permutations = check_count(n_permutations, "n_permutations", RERUNS)
    if progress is not None and not isinstance(progress, (bool, np.bool_)):
        raise ValueError(f"progress must be True, False or None; got {progress!r}")
    if isinstance(columns, str):
        columns = [columns]
    for name, value in {"scores": scores, "labels": labels, **ids}.items():
        check_not_masked(value, name)
    s = np.asarray(scores)
    y = np.asarray(labels)
    if s.ndim != 2:
        raise ValueError(f"scores must be 2-D (rows, candidates); got shape {s.shape}")
    if y.shape != s.shape:
        raise ValueError(f"shapes differ: scores {s.shape} but labels {y.shape}")
    if s.shape[0] == 0:
        raise ValueError("scores has zero rows; nothing to audit")
    per_candidate = {
        name: np.asarray(v)
        for name, v in ids.items()
        if np.shape(v) == s.shape  # type: ignore[arg-type]
    }

    baseline = _checked_table(evaluator(s, y, **ids), columns, "on the input order")
    worst = np.zeros(baseline.shape)
    max_mean_change = np.zeros(baseline.shape[1])
    base_values = baseline.to_numpy()
    base_mean = base_values.mean(axis=0)
    rng = np.random.default_rng(seed)
    show = progress if progress is not None else s.shape[0] * n_permutations >= 200_000
    for i in tqdm(range(n_permutations), desc="permutations", disable=not show, leave=False):
        perm = np.argsort(rng.random(s.shape), axis=1)
        moved = {
            name: np.take_along_axis(per_candidate[name], perm, axis=1)
            if name in per_candidate
            else v
            for name, v in ids.items()
        }
        out = _checked_table(
            evaluator(
                np.take_along_axis(s, perm, axis=1), np.take_along_axis(y, perm, axis=1), **moved
            ),
            columns,
            f"after permutation {i}",
        )
        values = out.to_numpy()
        if values.shape != base_values.shape or list(out.columns) != list(baseline.columns):
            raise ValueError(
                f"the evaluator returned shape {values.shape} after a permutation but "
                f"{base_values.shape} before"
            )
        worst = np.maximum(worst, np.abs(values - base_values))
        max_mean_change = np.maximum(max_mean_change, np.abs(values.mean(axis=0) - base_mean))

    per_metric_max = worst.max(axis=0)
    summary = pd.DataFrame(
        {
            "metric": list(baseline.columns),
            "baseline_mean": base_mean,
            "max_row_change": per_metric_max,
            "mean_row_change": worst.mean(axis=0),
            "max_mean_change": max_mean_change,
            "is_invariant": per_metric_max <= atol,
        }
    )
    return RowOrderAudit(
        is_invariant=bool((per_metric_max <= atol).all()),
        max_row_change=float(per_metric_max.max()),
        mean_row_change=float(worst.mean(axis=0).max()),
        max_mean_change=float(max_mean_change.max()),
        n_permutations=int(n_permutations),
        atol=float(atol),
        summary=summary,
        per_row=pd.DataFrame(worst, columns=baseline.columns),
    )
