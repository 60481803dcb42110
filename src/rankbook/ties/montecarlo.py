r"""Monte Carlo over random tie orders, seed spread, and the three-way check of chapter 02.

:func:`random_tie_draws` is deliberately independent of the library's ``"random"`` rule: each
draw gives every candidate an i.i.d. uniform key and ranks by ``(-score, key)`` with
:func:`numpy.lexsort`, which makes every ordering consistent with the scores equally likely
(McSherry & Najork 2008). :func:`three_way_check` holds the exact expectation to enumeration,
Monte Carlo and scikit-learn's tie-averaged ``ndcg_score``.

References
----------
.. code-block:: bibtex

    @misc{guo2026ties,
      author = {Guo, Chengkun and Chen, Han and Zhu, Yilin and Li, Yingrui},
      title  = {Tie Handling Is Part of the Evaluation Protocol: An Order-Invariance
                Audit for Tie-Heavy Recommender Scores},
      year   = {2026}, eprint = {2609.26977}, archivePrefix = {arXiv}
    }
    @inproceedings{mcsherry2008ties,
      author    = {McSherry, Frank and Najork, Marc},
      title     = {Computing Information Retrieval Performance Measures Efficiently
                   in the Presence of Tied Scores},
      booktitle = {ECIR 2008}, series = {LNCS}, volume = {4956}, pages = {414--421},
      year = {2008}
    }
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence

import numpy as np
import pandas as pd

from rankaudit._checks import MONTE_CARLO_DRAWS, check_count, check_int
from rankaudit._optional import tqdm
from rankaudit.measures.row_metrics import metrics_of_ranking
from rankaudit.runs.decision import interval_z
from rankaudit.ties.bruteforce import brute_force_moments

__all__ = [
    "MAX_DRAWN_VALUES",
    "random_tie_draws",
    "running_mean_bands",
    "seed_spread",
    "three_way_check",
]

#: The most values :func:`random_tie_draws` keeps per metric (``n_draws x rows``): 2**25, that
#: is 256 MiB a metric, three metrics.
MAX_DRAWN_VALUES = 2**25


def random_tie_draws(
    scores: np.ndarray,
    labels: np.ndarray,
    k: int,
    n_draws: int,
    seed: int = 0,
    chunk: int = 256,
) -> dict[str, np.ndarray]:
    """HR@k, NDCG@k and RR under ``n_draws`` independent uniform random tie orders
    (``1..MONTE_CARLO_DRAWS.most``, and ``n_draws * rows <= MAX_DRAWN_VALUES``).

    Each draw ranks every row by ``(-score, u)`` with ``u`` i.i.d. uniform, so every
    ordering consistent with the scores is equally likely. Returns, per metric, an
    array of shape ``(n_draws, rows)``. Draws are processed ``chunk`` at a time.
    """
    s = np.asarray(scores, dtype=np.float64)
    y = np.asarray(labels, dtype=np.float64)
    if s.ndim != 2 or s.shape != y.shape:
        raise ValueError(f"scores and labels must be 2-D of one shape; got {s.shape} and {y.shape}")
    n_draws = check_count(n_draws, "n_draws", MONTE_CARLO_DRAWS)
    if n_draws * len(s) > MAX_DRAWN_VALUES:
        raise ValueError(
            f"n_draws x rows = {n_draws} x {len(s)} is more than the {MAX_DRAWN_VALUES} values "
            "a metric may keep (each draw is kept for every row, 8 bytes each): draw fewer or "
            "pass fewer rows at a time"
        )
    k = check_int(k, "k", lo=1)
    rng = np.random.default_rng(check_int(seed, "seed", lo=0))
    out: dict[str, list[np.ndarray]] = {}
    done = 0
    while done < n_draws:
        m = min(chunk, n_draws - done)
        u = rng.random((m, *s.shape))
        order = np.lexsort((u, np.broadcast_to(-s, u.shape)), axis=-1)
        for name, v in metrics_of_ranking(np.broadcast_to(y, u.shape), order, k).items():
            out.setdefault(name, []).append(v)
        done += m
    return {name: np.concatenate(parts, axis=0) for name, parts in out.items()}


def running_mean_bands(draws: np.ndarray, z: float | None = None) -> pd.DataFrame:
    """Running mean of a sequence of draws with a normal ``z`` confidence band (``None``: the
    decision standard's ``1 - ALPHA`` band, :func:`rankaudit.runs.decision.interval_z`).

    ``lower/upper = mean_n -+ z * sd_n / sqrt(n)`` with ``sd_n`` the sample standard
    deviation of the first ``n`` draws (ddof = 1; the band is 0 wide at ``n = 1``).
    """
    z = interval_z() if z is None else float(z)
    x = np.asarray(draws, dtype=np.float64).ravel()
    if x.size == 0:
        raise ValueError("draws is empty")
    n = np.arange(1, x.size + 1, dtype=np.float64)
    mean = np.cumsum(x) / n
    sq = np.cumsum(x**2)
    var = np.zeros_like(mean)
    var[1:] = np.maximum(sq[1:] - n[1:] * mean[1:] ** 2, 0.0) / (n[1:] - 1.0)
    half = z * np.sqrt(var / n)
    return pd.DataFrame(
        {"draw": n.astype(np.int64), "mean": mean, "lower": mean - half, "upper": mean + half}
    )


def seed_spread(
    evaluate_one: Callable[[int], pd.DataFrame], seeds: Sequence[int], progress: bool = True
) -> pd.DataFrame:
    """The row-mean of every metric column under each seed: one output row per seed.

    ``evaluate_one(seed)`` returns per-row metrics (e.g. ``rankaudit.evaluate(...,
    ties="hash", seed=seed)``); the spread of these means across seeds is the
    seed-to-seed variation the paper asks to report (Guo et al. 2026, §6). ``progress``
    shows a tqdm bar over seeds.
    """
    seeds = [check_int(s, "seeds[]", lo=0) for s in seeds]
    if not seeds:
        raise ValueError("seeds is empty")
    rows = []
    for seed in tqdm(seeds, desc="seeds", leave=False, disable=not progress):
        frame = evaluate_one(seed)
        metrics = [
            c for c in frame.columns if str(c).startswith(("Success@", "nDCG@")) or c == "RR"
        ]
        if not metrics:
            raise ValueError(f"evaluate_one({seed}) returned no Success@k / nDCG@k / RR column")
        rows.append({"seed": seed, **{str(c): float(frame[c].mean()) for c in metrics}})
    return pd.DataFrame(rows)


def three_way_check(
    rows: Sequence[tuple[np.ndarray, np.ndarray]],
    k: int | Sequence[int],
    evaluate: Callable[..., pd.DataFrame],
    n_draws: int,
    seed: int = 0,
) -> pd.DataFrame:
    """Check the closed form against enumeration, Monte Carlo and scikit-learn, row by row.

    ``k`` is one cutoff for every row, or one cutoff per row (a sequence as long as ``rows``,
    e.g. drawn from ``1..len(row)`` so that the cutoff falls inside the rows and HR@k and the
    discount cutoff are exercised). With one ``k`` the metrics are named ``Success@<k>``,
    ``nDCG@<k>`` and ``RR``; with per-row cutoffs ``Success@k``, ``nDCG@k`` and ``RR``, and the
    column ``k`` holds each row's cutoff in both cases.

    For each small row and metric (``Success@k``, ``nDCG@k``, ``RR``) the output holds

    - ``expected`` and ``variance``: ``evaluate(..., ties="expected", return_variance=True)``;
    - ``enumeration``: the mean over all tie orders
      (:func:`rankaudit.ties.bruteforce.brute_force_moments`) and ``enumeration_variance``;
    - ``monte_carlo`` and ``mc_se``: mean and standard error over ``n_draws`` random tie
      orders (:func:`random_tie_draws`), ``mc_z = (monte_carlo - expected) / max(mc_se, 1e-12)``;
    - ``sklearn`` (NDCG only): ``sklearn.metrics.ndcg_score(..., k=k, ignore_ties=False)``,
      the tie-averaged DCG of McSherry & Najork (2008); NaN for the other metrics.

    Rows are grouped by length so that each call is rectangular.
    """
    from sklearn.metrics import ndcg_score

    per_row = not isinstance(k, int | np.integer)
    if per_row:
        ks = [check_int(v, f"k[{i}]", lo=1) for i, v in enumerate(k)]
        if len(ks) != len(rows):
            raise ValueError(f"k has {len(ks)} cutoffs for {len(rows)} rows")
    else:
        ks = [check_int(k, "k", lo=1)] * len(rows)
    groups = sorted({(len(s), ks[i]) for i, (s, _) in enumerate(rows)})
    records = []
    for n, k in groups:
        idx = [i for i, (s, _) in enumerate(rows) if len(s) == n and ks[i] == k]
        scores = np.stack([rows[i][0] for i in idx]).astype(np.float64)
        labels = np.stack([rows[i][1] for i in idx]).astype(np.float64)
        exact = evaluate(scores, labels, k=k, ties="expected", return_variance=True)
        draws = random_tie_draws(scores, labels, k, n_draws, seed=seed + n + 1000 * k * per_row)
        for j, i in enumerate(idx):
            means, variances = brute_force_moments(scores[j], labels[j], k)
            sk = float(ndcg_score(labels[j : j + 1], scores[j : j + 1], k=k, ignore_ties=False))
            for metric in (f"Success@{k}", f"nDCG@{k}", "RR"):
                x = draws[metric][:, j]
                se = float(x.std(ddof=1) / math.sqrt(x.size)) if x.size > 1 else 0.0
                e = float(exact[metric].iloc[j])
                mc = float(x.mean())
                records.append(
                    {
                        "row": i,
                        "n_candidates": n,
                        "k": k,
                        "n_relevant": int((labels[j] > 0).sum()),
                        "metric": metric.replace(f"@{k}", "@k") if per_row else metric,
                        "expected": e,
                        "variance": float(exact[f"{metric}_var"].iloc[j]),
                        "enumeration": means[metric],
                        "enumeration_variance": variances[metric],
                        "monte_carlo": mc,
                        "mc_se": se,
                        "mc_z": (mc - e) / max(se, 1e-12),  # floor: rounding when Var = 0
                        "sklearn": sk if metric == f"nDCG@{k}" else float("nan"),
                    }
                )
    return pd.DataFrame.from_records(records).sort_values(["row", "metric"], ignore_index=True)
