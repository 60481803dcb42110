"""Re-storing candidate rows: the full-row permutation of the tie audit's §6, and its foils.

Guo et al. (2026, "Tie Handling Is Part of the Evaluation Protocol", arXiv:2609.26977, §6): a
permutation of the *whole* row, drawn independently of relevance, makes the relevant item's
position within its tie block uniform, so an input-order evaluator is right *in expectation*
over permutations (one permutation is one random draw, not an invariant ranking). Moving only
the relevant item does not do this: stored last it loses every tie (the pessimistic bound).

:func:`restore_rows` returns the rows stored one of these ways; scores and labels travel together.
"""

from __future__ import annotations

import numpy as np

__all__ = ["RESTORINGS", "restore_rows"]

RESTORINGS = ("relevant_first", "relevant_last", "full_row_permutation")


def restore_rows(
    scores: np.ndarray, labels: np.ndarray, how: str, seed: int = 0
) -> tuple[np.ndarray, np.ndarray]:
    """``(scores, labels)`` of ``(n, m)`` rows re-stored by ``how``:

    - ``"relevant_first"``: as given (the audit's layout, relevant item in column 0);
    - ``"relevant_last"``: column 0 moved to the end, the negatives' order kept;
    - ``"full_row_permutation"``: every row independently and uniformly permuted
      (``numpy.random.default_rng(seed).permuted`` on the column positions).
    """
    scores, labels = np.asarray(scores), np.asarray(labels)
    if scores.ndim != 2 or scores.shape != labels.shape:
        raise ValueError(
            f"scores and labels must be (n, m) arrays of one shape, got {scores.shape}, "
            f"{labels.shape}"
        )
    if how == "relevant_first":
        return scores.copy(), labels.copy()
    if how == "relevant_last":
        order = np.r_[1 : scores.shape[1], 0]
        return scores[:, order], labels[:, order]
    if how == "full_row_permutation":
        rng = np.random.default_rng(seed)
        order = rng.permuted(np.tile(np.arange(scores.shape[1]), (scores.shape[0], 1)), axis=1)
        return np.take_along_axis(scores, order, axis=1), np.take_along_axis(labels, order, axis=1)
    raise ValueError(f"how must be one of {RESTORINGS}, got {how!r}")
