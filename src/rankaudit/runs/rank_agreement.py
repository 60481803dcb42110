"""How far two leaderboards agree, and where each system can land when values lie in envelopes.

A *leaderboard* orders ``N`` systems by a value, best first; values equal up to rounding are
ordered by the systems' names (:func:`leaderboard_order`), so the order is a strict permutation
that does not depend on the order the systems were given in.  *Equal up to rounding*: sorted by
value, a system joins the group of the first (largest) value above it when it is at most
``tol`` below that value, and starts a new group otherwise; a group is ordered by name.  The
default ``tol`` is :func:`rankaudit.measures.list_evaluate.rounding_tolerance` of the values
(``1e-12`` of their magnitude): two systems whose values differ by rounding alone (the same
per-query values summed in another order) are equal, never ordered by that rounding.

Kendall's tau   (Kendall, 1938, Biometrika 30:81-93) between two strict orders of the same
                ``N`` systems: ``tau = (C - D) / (N (N - 1) / 2)`` with ``C`` the concordant and
                ``D`` the discordant pairs.  On strict orders it equals tau-b, what
                ``scipy.stats.kendalltau`` returns on the two vectors of positions.
tau_AP          (Yilmaz, Aslam & Robertson, 2008, SIGIR, "A new rank correlation coefficient
                for information retrieval"): ``tau_AP = 2 / (N - 1) * sum_{i=2..N} C(i) /
                (i - 1) - 1`` where ``C(i)`` counts the systems above position ``i`` of the
                *compared* order that are also above that system in the *reference* order.
                Swaps near the top cost more than swaps near the bottom; it is not symmetric.
Rank interval   system ``i`` with tie envelope ``[lo_i, hi_i]`` (its pessimistic and
                optimistic values): ``best_i = 1 + #{j != i : lo_j > hi_i}`` (``i`` at its
                optimistic value, everyone else at their pessimistic one, equal values
                counted in ``i``'s favour) and ``worst_i = 1 + #{j != i : hi_j >= lo_i}``
                (``i`` at its pessimistic value, everyone else at their optimistic one, equal
                values counted against ``i``).  Any values ``v_j`` in ``[lo_j, hi_j]`` put
                ``i`` at a position between ``best_i`` and ``worst_i`` of
                :func:`leaderboard_order`, whatever the tie-break by name; both ends are
                reached because each system's bounds are reached by its own tie order.
                With a rounding tolerance ``tol`` (the same as the order's): ``lo_j > hi_i +
                tol`` and ``hi_j >= lo_i - tol``, which keeps that guarantee for the order's
                groups.

Public API: :func:`leaderboard_order`, :func:`positions`, :func:`kendall_tau`,
:func:`tau_ap`, :func:`rank_intervals`.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from rankaudit.measures.list_evaluate import rounding_tolerance

__all__ = ["kendall_tau", "leaderboard_order", "positions", "rank_intervals", "tau_ap"]


def leaderboard_order(
    names: Sequence[str],
    values: np.ndarray,
    tol: float | None = None,
    *,
    higher_is_better: bool = True,
) -> list[str]:
    """``names`` by ``values`` best first (descending; ascending when
    ``higher_is_better=False``, the measure's declared direction); values equal up to ``tol``
    (default: the rounding tolerance of ``values``) by name ascending (module docstring)."""
    v = np.asarray(values, dtype=np.float64)
    if not higher_is_better:
        v = -v
    if v.shape != (len(names),):
        raise ValueError(f"need one value per system, got {v.shape} for {len(names)} names")
    if len(set(names)) != len(names):
        raise ValueError("two systems share a name: names must be unique")
    if not np.all(np.isfinite(v)):
        raise ValueError(
            f"the value of system {names[int(np.argmax(~np.isfinite(v)))]!r} is not finite"
        )
    tol = rounding_tolerance(v) if tol is None else float(tol)
    text = np.asarray(names, dtype=object).astype(str)
    order = np.lexsort((text, -v))
    group = np.empty(len(v), np.int64)
    leader = 0
    for k, i in enumerate(order):  # one pass over the systems, largest value first
        if v[order[leader]] - v[i] > tol:
            leader = k
        group[i] = leader
    return [names[i] for i in np.lexsort((text, group))]


def positions(order: Sequence[str], names: Sequence[str]) -> np.ndarray:
    """1-based position in ``order`` of each of ``names``."""
    where = {name: k for k, name in enumerate(order, start=1)}
    if set(where) != set(names) or len(order) != len(names):
        raise ValueError("the order and the names must list the same systems")
    return np.array([where[n] for n in names], dtype=np.int64)


def _check_orders(a: Sequence[str], b: Sequence[str]) -> tuple[np.ndarray, np.ndarray]:
    if len(a) < 2:
        raise ValueError(f"a rank correlation needs at least 2 systems, got {len(a)}")
    if len(set(a)) != len(a) or sorted(a) != sorted(b):
        raise ValueError("the two orders must be permutations of the same unique systems")
    names = list(a)
    return positions(a, names), positions(b, names)


def kendall_tau(order_a: Sequence[str], order_b: Sequence[str]) -> float:
    """Kendall's tau between two strict orders of the same systems (module docstring)."""
    pa, pb = _check_orders(order_a, order_b)
    n = len(pa)
    upper = np.triu(np.ones((n, n), dtype=bool), 1)
    sign = np.sign(pa[:, None] - pa[None, :]) * np.sign(pb[:, None] - pb[None, :])
    return float(sign[upper].sum() / upper.sum())


def tau_ap(compared: Sequence[str], reference: Sequence[str]) -> float:
    """tau_AP of ``compared`` against ``reference`` (Yilmaz et al., 2008; module docstring)."""
    _check_orders(compared, reference)
    n = len(compared)
    ref_pos = positions(reference, list(compared))  # reference position, in compared's order
    above = ref_pos[None, :] < ref_pos[:, None]  # above[i, j]: j is above i in the reference
    lower = np.tril(np.ones((n, n), dtype=bool), -1)  # j above i in the compared order
    correct = (above & lower).sum(axis=1)[1:]
    return float(2.0 / (n - 1) * np.sum(correct / np.arange(1, n)) - 1.0)


def rank_intervals(
    lower: np.ndarray,
    upper: np.ndarray,
    tol: float | None = None,
    *,
    higher_is_better: bool = True,
) -> tuple[np.ndarray, np.ndarray]:
    """``(best, worst)`` 1-based ranks of each system whose value lies in ``[lower, upper]``,
    values within ``tol`` (default: the rounding tolerance of the bounds) counted as equal;
    ``higher_is_better=False`` (a measure whose lower values are better) ranks ``-upper`` to
    ``-lower`` instead."""
    lo = np.asarray(lower, dtype=np.float64)
    hi = np.asarray(upper, dtype=np.float64)
    if not higher_is_better:
        lo, hi = -hi, -lo
    if lo.ndim != 1 or lo.shape != hi.shape:
        raise ValueError(f"lower and upper must be 1-D of one length, got {lo.shape}, {hi.shape}")
    if not (np.all(np.isfinite(lo)) and np.all(np.isfinite(hi))):
        raise ValueError("lower and upper must be finite")
    if np.any(lo > hi):
        raise ValueError(f"lower exceeds upper for system {int(np.argmax(lo > hi))}")
    tol = rounding_tolerance(lo, hi) if tol is None else float(tol)
    others = ~np.eye(len(lo), dtype=bool)
    best = 1 + np.sum((lo[None, :] > hi[:, None] + tol) & others, axis=1)
    worst = 1 + np.sum((hi[None, :] >= lo[:, None] - tol) & others, axis=1)
    return best.astype(np.int64), worst.astype(np.int64)
