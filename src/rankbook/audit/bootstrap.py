r"""Row-bootstrap confidence intervals for the Part II tables: every Δ(input order → rule).

Rows (one held-out relevant item and its negatives) are the independent units of an audit, so
the sampling uncertainty of a table cell and of a change between two tie rules on the *same*
rows is measured by resampling rows with replacement (Efron & Tibshirani, 1993, *An
Introduction to the Bootstrap*, ch. 13, percentile interval). With per-row metrics
:math:`m_{r}^{\text{rule}}` and resample counts :math:`c_{br}` (``sum_r c_br = n``),

.. math::

    \bar m^{\text{rule}}_b = \frac{1}{n} \sum_r c_{br}\, m_r^{\text{rule}}, \qquad
    \Delta_b = \bar m^{\text{rule}}_b - \bar m^{\text{input order}}_b,

and the 95% interval of a level is the 2.5% and 97.5% quantiles of its draws. A change
:math:`\Delta` gets its interval and its two-sided p-value from the *same* draws
(:func:`rankaudit.runs.significance.dual_interval_test`), so its CI excludes 0 exactly when
``p <= alpha``, the pair :func:`rankaudit.runs.decision.effect_verdict` reads. The change is
paired (both rules on each resampled row), which is what makes it much narrower than the two
levels' intervals. The resampling is vectorised: counts of a block of resamples are one
``bincount``, the means one matrix product; the generator is ``numpy``'s PCG64 at a stated seed.

Public API: :data:`BOOT_RULES`, :data:`ROUNDING`, :func:`row_bootstrap`,
:func:`row_bootstrap_draws`, :func:`rule_intervals`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from rankaudit.runs.decision import ALPHA
from rankaudit.runs.significance import dual_interval_test
from rankbook.audit.rows_evaluate import evaluate_rows
from rankbook.data.candidates import CandidateRows

__all__ = ["BOOT_RULES", "ROUNDING", "row_bootstrap", "row_bootstrap_draws", "rule_intervals"]

#: The rules whose change from input order gets an interval (single-run rules: the averaged
#: ``hash_mean``/``random`` lines already carry a seed-to-seed sd).
BOOT_RULES = ("hash", "expected")

#: A per-row change no larger than this anywhere is rounding alone: no change (p = 1).
ROUNDING = 1e-12

_BLOCK = 100  # resamples per block: (100, n_rows) counts at a time


def row_bootstrap(
    per_row: np.ndarray, *, n_boot: int, seed: int, level: float = 1.0 - ALPHA
) -> tuple[np.ndarray, np.ndarray]:
    """Percentile row-bootstrap interval of each column mean of ``per_row`` ``(n_rows, m)``.

    Returns ``(low, high)``, each ``(m,)``. Columns resampled together (same rows), so a column
    that is a per-row difference gives the paired interval of that difference.
    """
    if not 0.0 < level < 1.0:
        raise ValueError(f"level must lie in (0, 1), got {level!r}")
    means = row_bootstrap_draws(per_row, n_boot=n_boot, seed=seed)
    tail = (1.0 - level) / 2.0
    low, high = np.quantile(means, [tail, 1.0 - tail], axis=0)
    return low, high


def row_bootstrap_draws(per_row: np.ndarray, *, n_boot: int, seed: int) -> np.ndarray:
    """The ``(n_boot, m)`` resampled column means of ``per_row`` ``(n_rows, m)`` (rows resampled
    with replacement, all columns on the same rows)."""
    x = np.asarray(per_row, dtype=np.float64)
    if x.ndim != 2 or x.shape[0] < 2:
        raise ValueError(f"per_row must be (n_rows >= 2, m), got shape {x.shape}")
    if not np.isfinite(x).all():
        bad = int(np.argwhere(~np.isfinite(x))[0, 0])
        raise ValueError(f"per_row has a non-finite value in row {bad}")
    if int(n_boot) < 10:
        raise ValueError(f"n_boot must be >= 10, got {n_boot!r}")
    n = x.shape[0]
    rng = np.random.default_rng(seed)
    means = np.empty((int(n_boot), x.shape[1]))
    for start in range(0, int(n_boot), _BLOCK):
        b = min(_BLOCK, int(n_boot) - start)
        idx = rng.integers(0, n, size=(b, n)) + (np.arange(b) * n)[:, None]
        counts = np.bincount(idx.ravel(), minlength=b * n).reshape(b, n)
        means[start : start + b] = counts @ x / n
    return means


def rule_intervals(
    rows: CandidateRows,
    scores: Mapping[str, np.ndarray],
    *,
    k: int,
    seed: int,
    n_boot: int,
    rules: Sequence[str] = BOOT_RULES,
) -> list[dict[str, Any]]:
    """Row-bootstrap 95% CIs of every cell and every Δ(input order → rule), per score.

    One record per (score, tie rule in ``("input_order", *rules)``, metric in ``ndcg10``,
    ``hr10``): ``value`` (the row mean), ``ci_low``/``ci_high`` (its interval), ``delta`` (rule
    minus input order, 0 for input order itself), ``delta_ci_low``/``delta_ci_high`` and
    ``delta_p``, the interval and two-sided p-value of the change from the same draws
    (:func:`rankaudit.runs.significance.dual_interval_test`; a change of rounding alone, no row
    moving by more than :data:`ROUNDING`, has ``p = 1`` and an interval that includes 0),
    ``delta_sd`` the standard deviation (ddof 1) of the per-row change and ``n_rows`` the rows,
    from which a page computes the power of the change's test at a stated effect
    (:func:`rankbook.ranking.power.power_paired`). Hash runs use ``seed`` (the single hash run
    of Table 2); the bootstrap uses ``seed`` as well.
    """
    names, columns = [], []
    for name, s in scores.items():
        for rule in ("input_order", *rules):
            frame = evaluate_rows(rows, s, k=k, ties=rule, seed=seed)
            for metric, col in (("ndcg10", f"nDCG@{k}"), ("hr10", f"Success@{k}")):
                names.append((name, rule, metric))
                columns.append(frame[col].to_numpy(np.float64))
    levels = np.column_stack(columns)
    base = {(s, m): levels[:, i] for i, (s, r, m) in enumerate(names) if r == "input_order"}
    deltas = np.column_stack([levels[:, i] - base[(s, m)] for i, (s, _, m) in enumerate(names)])
    draws = row_bootstrap_draws(np.hstack([levels, deltas]), n_boot=n_boot, seed=seed)
    j = len(names)
    lo, hi = np.quantile(draws[:, :j], [ALPHA / 2, 1.0 - ALPHA / 2], axis=0)
    delta_sd = deltas.std(axis=0, ddof=1)
    out = []
    for i, (score, rule, metric) in enumerate(names):
        dlo, dhi, dp = dual_interval_test(draws[:, j + i], alpha=ALPHA)
        if np.abs(deltas[:, i]).max() <= ROUNDING:
            dlo, dhi, dp = min(dlo, 0.0), max(dhi, 0.0), 1.0
        out.append(
            {
                "score": score,
                "tie_rule": rule,
                "metric": metric,
                "value": float(levels[:, i].mean()),
                "ci_low": float(lo[i]),
                "ci_high": float(hi[i]),
                "delta": float(deltas[:, i].mean()),
                "delta_ci_low": dlo,
                "delta_ci_high": dhi,
                "delta_p": dp,
                "delta_sd": float(delta_sd[i]),
                "n_rows": int(levels.shape[0]),
                "n_boot": int(n_boot),
            }
        )
    return out
