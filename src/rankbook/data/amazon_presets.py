r"""Named settings of the Amazon simulator, and the tie-regime model that calibrates them.

Two presets of :func:`rankbook.data.amazon_sim.simulate_amazon_beauty`:

- ``"paper_regime"`` (the default of the Amazon chapters): sparse histories and sparse lexical
  metadata, so that most rating-weighted overlap scores are exactly 0 and nearly every row is
  one large tie block with the relevant item stored first, the regime that Table 2 of Guo et al.
  (2026, "Tie Handling Is Part of the Evaluation Protocol", arXiv:2609.26977) implies.
- ``"dense"``: the generator's own defaults (a 12-word vocabulary per category plus shared
  adjectives, feature bullets and category names), where candidates share tokens often and
  fewer rows are tied; the book's earlier setting, kept to show how the gap grows with ties.

**The tie-regime model** (:func:`tie_regime_metrics`) reads the paper's four Amazon numbers as a
two-parameter mixture on rows of one relevant item and ``n`` negatives, for a score that is
exactly 0 unless a candidate shares an attribute with the user's history:

- with probability :math:`1 - q` the relevant item scores above 0 and ranks first under every
  rule (it rarely ties with a positive negative);
- with probability :math:`q` it scores 0; then each negative independently scores above 0 with
  probability :math:`p`, so :math:`g \sim \mathrm{Bin}(n, p)` negatives rank above it and it
  shares one tie block of size :math:`t = n + 1 - g` with the zero-scoring negatives.

Input order puts it at rank :math:`g + 1`; a uniform tie order (the hash rule in expectation)
puts it uniformly on :math:`g+1, \dots, g+t`. Hence, with :math:`D(r) = 1/\log_2(r+1)`,

.. math::

    \mathrm{NDCG}_{io} = 1 - q + q\,E[D(g+1)\,1\{g < k\}],\quad
    \mathrm{HR}_{io} = 1 - q + q\,P(g < k),

    \mathrm{NDCG}_{exp} = 1 - q + q\,E\Big[\tfrac{1}{t}\sum_{r=g+1}^{\min(k, n+1)} D(r)\Big],\quad
    \mathrm{HR}_{exp} = 1 - q + q\,E\Big[\tfrac{(k - g)_+}{t}\Big].

:func:`calibrate_tie_regime` solves the first and the last equation for :math:`(q, p)`.
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np

from rankaudit.measures.row_reference import single_relevant_means
from rankbook.data.source import DataSource

__all__ = [
    "tag_preset",
    "DEFAULT_PRESET",
    "PRESETS",
    "calibrate_tie_regime",
    "measured_tie_regime",
    "preset_args",
    "tie_regime_metrics",
]

PRESETS: dict[str, dict[str, object]] = {
    "paper_regime": {
        "user_exponent": 2.5,  # more one-review users than the default 1.9: short histories
        "n_stores": 6000,  # many small stores with flat weights: store names rarely shared
        "store_exponent": 0.5,
        "title_vocabulary": 550,  # 550 pseudo-words per category: titles rarely share tokens
        "affinity": 0.8,  # relevant items a little closer to the history (default 0.7)
        "extra_tokens": False,  # no shared adjectives, feature bullets or category names
    },
    "dense": {},
}
DEFAULT_PRESET = "paper_regime"


def preset_args(name: str) -> dict[str, object]:
    """The simulator overrides of preset ``name`` (a copy)."""
    if name not in PRESETS:
        raise ValueError(f"preset must be one of {sorted(PRESETS)}, got {name!r}")
    return dict(PRESETS[name])


def _binomial_pmf(n: int, p: float) -> np.ndarray:
    from scipy.stats import binom

    return binom.pmf(np.arange(n + 1), n, p)


def tie_regime_metrics(
    q: float, p: float, *, n_negatives: int = 30, k: int = 10
) -> dict[str, float]:
    """NDCG@k and HR@k under input order and in expectation over uniform tie orders, for the
    two-parameter tie-regime model of the module docstring."""
    if not 0.0 <= q <= 1.0 or not 0.0 <= p <= 1.0:
        raise ValueError(f"q and p must lie in [0, 1], got q={q!r}, p={p!r}")
    if n_negatives < 1 or k < 1:
        raise ValueError(f"n_negatives and k must be >= 1, got {n_negatives}, {k}")
    n = int(n_negatives)
    g = np.arange(n + 1)
    pmf = _binomial_pmf(n, p)
    t = n + 1 - g
    # input order: the relevant item (stored first) takes the first place of its block, a
    # block of one; expected: its place is uniform over the block (the core's closed form)
    io_hr, io_ndcg = single_relevant_means(g, np.ones_like(g), k)
    exp_hr, exp_ndcg = single_relevant_means(g, t, k)
    return {
        name: float(1.0 - q + q * (pmf @ values))
        for name, values in (
            ("ndcg_input_order", io_ndcg),
            ("hr_input_order", io_hr),
            ("ndcg_expected", exp_ndcg),
            ("hr_expected", exp_hr),
        )
    }


def calibrate_tie_regime(
    ndcg_input_order: float, hr_expected: float, *, n_negatives: int = 30, k: int = 10
) -> tuple[float, float]:
    """``(q, p)`` of the tie-regime model that reproduces an input-order NDCG@k and an
    expected (hash) HR@k exactly (two equations, two unknowns, solved by root finding)."""
    from scipy.optimize import brentq

    def q_for(p: float) -> float:
        # HR_exp = 1 - q (1 - h(p))  =>  q = (1 - HR_exp) / (1 - h(p))
        h = tie_regime_metrics(1.0, p, n_negatives=n_negatives, k=k)["hr_expected"]
        return (1.0 - hr_expected) / (1.0 - h)

    def gap(p: float) -> float:
        return (
            tie_regime_metrics(min(q_for(p), 1.0), p, n_negatives=n_negatives, k=k)[
                "ndcg_input_order"
            ]
            - ndcg_input_order
        )

    p = float(brentq(gap, 1e-9, 0.5, xtol=1e-14))
    return float(q_for(p)), p


def measured_tie_regime(scores: np.ndarray, labels: np.ndarray) -> dict[str, float | None]:
    """The model's two parameters measured on rows with the relevant item in column 0:
    ``q`` = share of rows whose relevant item scores exactly 0, ``p`` = share of negatives
    scoring above 0 in those rows (None when no relevant item scores 0); plus ``p_all``, the
    share of negatives scoring above 0 over all rows."""
    scores, labels = np.asarray(scores, dtype=np.float64), np.asarray(labels)
    if scores.ndim != 2 or scores.shape != labels.shape or not (labels[:, 0] == 1).all():
        raise ValueError(
            "scores and labels must be (n, m) arrays with the relevant item in column 0"
        )
    zero = scores[:, 0] == 0.0
    negatives = scores[:, 1:] > 0.0
    return {
        "q": float(zero.mean()),
        "p": float(negatives[zero].mean()) if zero.any() else None,
        "p_all": float(negatives.mean()),
    }


def tag_preset(source: DataSource, preset: str) -> DataSource:
    """``source`` with ``details["preset"] = preset`` when it is simulated (a real source is
    returned unchanged: a real ``data_dir`` overrides the simulator and its presets)."""
    if not source.is_simulated:
        return source
    return replace(source, details={**source.details, "preset": preset})
