"""Tie rules: how candidates with exactly equal scores are ordered.

=================  ==========================================================
rule               order within a tie block
=================  ==========================================================
``input_order``    input position (a stable sort by decreasing score): the
                   common default, which lets a relevant-first row win every
                   tie.  Not row-order invariant.
``hash``           ascending ``tie_hash(seed, user id, item id)``
                   (:mod:`rankaudit.ties.hashing`), item id on collision.
``random``         uniform random, seeded (:mod:`rankaudit.ties.sampled`);
                   ``n_repeats`` averages several draws.
``expected``       no order: the exact expectation over uniform random
                   orders (:mod:`rankaudit.ties.expected`).
``pessimistic``    lower label first: relevant items last (lower bound).
``optimistic``     higher label first: relevant items first (upper bound).
=================  ==========================================================

What a tie is: two candidates of a row tie when their scores are *exactly equal as
given* -- no rounding, no tolerance.  float32 scores are compared as float32 and
float64 as float64 (``np.float32(0.1)`` and ``0.1`` are different numbers);
``-0.0`` equals ``0.0``; integers are compared exactly at any size (integers
beyond 2**53 and long doubles are replaced by their rank, which keeps every
``>`` and ``==``, never cast lossily to float64).  NaN and infinite scores are
refused.

A rule is *row-order invariant* when permuting a row's candidates (keeping
their ids, labels and scores) leaves the metric unchanged; all rules except
``input_order`` are.

:func:`rank_candidates` is the plain, sort-based reference that materialises
the ranking of every row (``np.lexsort``); the evaluation kernels never sort.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from rankaudit.ties.hashing import normalize_ids, tie_hash_array

__all__ = ["DETERMINISTIC_RULES", "TIE_RULES", "check_rule", "rank_candidates"]

TIE_RULES: tuple[str, ...] = (
    "input_order",
    "hash",
    "random",
    "expected",
    "pessimistic",
    "optimistic",
)
DETERMINISTIC_RULES: tuple[str, ...] = ("input_order", "hash", "pessimistic", "optimistic")


def check_rule(ties: object) -> str:
    """Return ``ties`` if it names a rule, else raise a ValueError listing the valid ones."""
    if not isinstance(ties, str) or ties not in TIE_RULES:
        raise ValueError(
            f"ties={ties!r} is not a tie rule; valid rules are: {', '.join(TIE_RULES)}"
        )
    return ties


def rank_candidates(
    scores: np.ndarray,
    labels: np.ndarray | None = None,
    *,
    ties: str = "hash",
    seed: int = 0,
    user_ids: Sequence[object] | np.ndarray | None = None,
    item_ids: np.ndarray | None = None,
) -> np.ndarray:
    """Rank the candidates of each row of a rectangular batch under a deterministic rule.

    Parameters
    ----------
    scores
        ``(rows, candidates)`` scores; higher is better.
    labels
        ``(rows, candidates)`` labels; needed by ``pessimistic`` / ``optimistic``.
    ties
        One of ``input_order``, ``hash``, ``pessimistic``, ``optimistic``.
    seed, user_ids, item_ids
        Hash inputs (``hash`` only).  Without ``user_ids`` the row position is
        the user id.

    Returns
    -------
    numpy.ndarray
        ``order`` of shape ``(rows, candidates)``: ``order[i, r]`` is the
        candidate at rank ``r + 1`` of row ``i``.
    """
    check_rule(ties)
    if ties not in DETERMINISTIC_RULES:
        raise ValueError(
            f"ties={ties!r} does not define one ranking; rank_candidates accepts "
            f"{', '.join(DETERMINISTIC_RULES)}"
        )
    s = np.asarray(scores)
    if s.ndim != 2:
        raise ValueError(f"scores must be 2-D (rows, candidates); got shape {s.shape}")
    if s.dtype not in (np.float32, np.float64):  # ints of any size, long doubles: exact order
        s = np.unique(s, return_inverse=True)[1].reshape(s.shape).astype(np.float64)
    position = np.broadcast_to(np.arange(s.shape[1]), s.shape)
    if ties == "input_order":
        keys: tuple[np.ndarray, ...] = (position, -s)
    elif ties in ("pessimistic", "optimistic"):
        if labels is None:
            raise ValueError(f"labels are required for ties={ties!r}")
        y = np.asarray(labels, dtype=np.float64)
        keys = (position, y if ties == "pessimistic" else -y, -s)
    else:
        if item_ids is None:
            raise ValueError("item_ids are required for ties='hash'")
        users = np.arange(s.shape[0]) if user_ids is None else np.asarray(user_ids)
        _, fallback = normalize_ids(item_ids, "item_ids")
        h = tie_hash_array(seed, users.reshape(-1, 1), np.asarray(item_ids))
        keys = (fallback, h, -s)
    return np.lexsort(keys, axis=-1)
