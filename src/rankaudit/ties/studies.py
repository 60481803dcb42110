r"""Small studies behind the Part I chapters: worked rows, sweeps, Monte Carlo, seed spread.

Nothing here defines a metric or a tie rule (those live in :mod:`rankaudit.ties.metrics`,
:mod:`~rankaudit.ties.rules` and :mod:`~rankaudit.ties.expected`); this module builds the
inputs the chapters feed to :func:`rankaudit.evaluate` and summarises what comes back.

One relevant item, closed form (Guo et al. 2026, §3.2; McSherry & Najork 2008)
    With ``g`` candidates scoring strictly higher and a tie block of ``t`` (the relevant
    item included), its rank ``R`` is uniform on ``g+1 .. g+t``.  With
    ``D(r) = 1/log2(r+1)`` for ``r <= k`` and 0 beyond:

    ``E[HR@k] = p = clip(k-g, 0, t)/t``,                ``Var = p(1-p)``;
    ``E[NDCG@k] = (1/t) sum_{r=g+1}^{g+t} D(r)``,        ``Var = E[D(R)^2] - E[D(R)]^2``;
    ``E[RR] = (1/t) sum_{r=g+1}^{g+t} 1/r``,             ``Var = E[1/R^2] - E[RR]^2``.

    :func:`single_relevant_moments` states it literally; the chapters check it against
    the library, brute-force enumeration, Monte Carlo and scikit-learn.

Monte Carlo over random tie orders
    :func:`random_tie_draws` is deliberately independent of the library's ``"random"``
    rule: each draw gives every candidate an i.i.d. uniform key and ranks by
    ``(-score, key)`` with :func:`numpy.lexsort`, which makes every ordering consistent
    with the scores equally likely.

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
from dataclasses import dataclass

import numpy as np
import pandas as pd

from rankaudit.data.source import DataSource
from rankaudit.ties.metrics import metrics_of_ranking

__all__ = [
    "TieHeavySample",
    "collision_bound",
    "ndcg_moments_by_blocks",
    "random_small_rows",
    "random_tie_draws",
    "running_mean_bands",
    "seed_spread",
    "simulate_tie_heavy_rows",
    "single_relevant_moments",
    "tie_block_rows",
    "three_way_check",
]


def _check_int(value: object, name: str, lo: int) -> int:
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < lo:
        raise ValueError(f"{name} must be an integer >= {lo}; got {value!r}")
    return int(value)


# --------------------------------------------------------------------------- closed form
def single_relevant_moments(g: int, t: int, k: int) -> pd.DataFrame:
    r"""Exact mean and variance of HR@k, NDCG@k and RR for one relevant item.

    The item has ``g`` candidates strictly above it and a tie block of ``t`` (itself
    included), so its rank ``R`` is uniform on ``g+1..g+t`` (Guo et al. 2026, §3.2).
    With ``D(r) = 1/log2(r+1)`` for ``r <= k`` (0 beyond) and IDCG = ``D(1) = 1``:
    ``E[HR@k] = clip(k-g,0,t)/t``, ``E[NDCG@k] = mean_r D(r)``, ``E[RR] = mean_r 1/r``, and
    each variance is ``E[X^2] - E[X]^2``.

    Returns a DataFrame indexed by metric (``hr@k``, ``ndcg@k``, ``rr``) with columns
    ``mean`` and ``variance``.
    """
    g = _check_int(g, "g", 0)
    t = _check_int(t, "t", 1)
    k = _check_int(k, "k", 1)
    ranks = np.arange(g + 1, g + t + 1, dtype=np.float64)
    values = {
        f"hr@{k}": (ranks <= k).astype(np.float64),
        f"ndcg@{k}": np.where(ranks <= k, 1.0 / np.log2(ranks + 1.0), 0.0),
        "rr": 1.0 / ranks,
    }
    rows = {}
    for name, x in values.items():
        mean = float(x.mean())
        rows[name] = {"mean": mean, "variance": max(float((x**2).mean()) - mean**2, 0.0)}
    hit = min(max(k - g, 0), t) / t  # the closed form, not the sample mean
    rows[f"hr@{k}"] = {"mean": hit, "variance": hit * (1.0 - hit)}
    return pd.DataFrame.from_dict(rows, orient="index")


def ndcg_moments_by_blocks(scores: np.ndarray, labels: np.ndarray, k: int) -> tuple[float, float]:
    r"""Exact mean and variance of NDCG@k of one row, block by block.

    Tie blocks ``b`` (candidates of equal score) occupy ranks ``g_b+1 .. g_b+t_b``. With
    ``D(r) = 1/log2(r+1)`` for ``r <= k`` (0 beyond), block mean discount
    ``Dbar_b = (1/t_b) sum_r D(r)`` and block gains ``y_i`` (mean ``ybar_b``):

    - mean, the tie-averaged DCG of McSherry & Najork (ECIR 2008):
      ``E[DCG@k] = sum_b (sum_{i in b} y_i) Dbar_b``;
    - variance: a block's DCG is a linear permutation statistic
      ``sum_i y_i D(g_b + pi(i))`` with ``pi`` uniform, whose variance is
      ``(1/(t_b-1)) sum_i (y_i - ybar_b)^2 sum_r (D(r) - Dbar_b)^2`` (Hoeffding, Ann. Math.
      Statist. 1951), 0 for ``t_b = 1``; blocks are independent, so variances add.

    Both are divided by IDCG@k (and its square), which depends on the labels only.
    Independent of the library's kernels; used to cross-check them.
    """
    s = np.asarray(scores, dtype=np.float64).ravel()
    y = np.asarray(labels, dtype=np.float64).ravel()
    k = _check_int(k, "k", 1)
    if s.shape != y.shape:
        raise ValueError(f"scores and labels differ in length: {s.size} and {y.size}")

    def disc(r: np.ndarray) -> np.ndarray:
        return np.where(r <= k, 1.0 / np.log2(r + 1.0), 0.0)

    ideal = np.sort(y)[::-1]
    idcg = float((ideal * disc(np.arange(1, y.size + 1, dtype=np.float64))).sum())
    if idcg <= 0:
        raise ValueError("labels: the row has no relevant item (label > 0)")
    mean = var = 0.0
    for value in np.unique(s):
        block = s == value
        g, t = int((s > value).sum()), int(block.sum())
        d = disc(np.arange(g + 1, g + t + 1, dtype=np.float64))
        gains = y[block]
        mean += gains.sum() * d.mean()
        if t > 1:
            var += ((gains - gains.mean()) ** 2).sum() * ((d - d.mean()) ** 2).sum() / (t - 1)
    return mean / idcg, var / idcg**2


# --------------------------------------------------------------------------- worked rows
def tie_block_rows(
    block_sizes: Sequence[int], n_candidates: int = 31, above: int = 0
) -> tuple[np.ndarray, np.ndarray]:
    """Rows with the relevant item first, tied with ``t - 1`` negatives, one row per ``t``.

    Row ``i`` has ``n_candidates`` candidates; column 0 holds the relevant item (label 1).
    ``above`` negatives score 2 (strictly higher), the relevant item and ``t - 1``
    negatives score 1, and the remaining negatives score 0. Negatives above are stored
    *after* the tie block, so only a score-respecting sort can move them ahead.

    Returns ``(scores, labels)``, both of shape ``(len(block_sizes), n_candidates)``.
    """
    n_candidates = _check_int(n_candidates, "n_candidates", 1)
    above = _check_int(above, "above", 0)
    sizes = [_check_int(t, "block_sizes[]", 1) for t in block_sizes]
    if not sizes:
        raise ValueError("block_sizes is empty")
    if max(sizes) + above > n_candidates:
        raise ValueError(
            f"block_sizes: a block of {max(sizes)} plus above={above} exceeds "
            f"n_candidates={n_candidates}"
        )
    scores = np.zeros((len(sizes), n_candidates))
    labels = np.zeros((len(sizes), n_candidates))
    labels[:, 0] = 1.0
    for i, t in enumerate(sizes):
        scores[i, :t] = 1.0
        scores[i, t : t + above] = 2.0
    return scores, labels


@dataclass(frozen=True)
class TieHeavySample:
    """Simulated candidate rows: ``item_ids[:, 0]`` is each row's relevant item."""

    user_ids: np.ndarray
    item_ids: np.ndarray
    scores: np.ndarray
    labels: np.ndarray
    source: DataSource


def simulate_tie_heavy_rows(
    n_rows: int,
    *,
    n_negatives: int = 30,
    n_levels: int = 4,
    p_relevant: float = 0.6,
    p_negative: float = 0.3,
    n_items: int = 1682,
    seed: int = 0,
) -> TieHeavySample:
    """A tie-heavy sample in the paper's row layout: one relevant item first, then negatives.

    Generator (one ``numpy.random.default_rng(seed)``):

    - user ids ``1..n_rows``; per row, ``1 + n_negatives`` distinct item ids drawn
      uniformly from ``1..n_items`` (the relevant item is the first draw);
    - integer scores, like a count of shared attributes: the relevant item's score is
      ``Binomial(n_levels - 1, p_relevant)``, each negative's ``Binomial(n_levels - 1,
      p_negative)``, so the score is informative but coarse and exact ties are the rule;
    - labels 1 for the relevant item (column 0) and 0 for the negatives.
    """
    n_rows = _check_int(n_rows, "n_rows", 1)
    n_negatives = _check_int(n_negatives, "n_negatives", 1)
    n_levels = _check_int(n_levels, "n_levels", 2)
    n_items = _check_int(n_items, "n_items", n_negatives + 1)
    for name, p in (("p_relevant", p_relevant), ("p_negative", p_negative)):
        if not 0.0 <= float(p) <= 1.0:
            raise ValueError(f"{name} must lie in [0, 1]; got {p!r}")
    rng = np.random.default_rng(_check_int(seed, "seed", 0))
    n = 1 + n_negatives
    keys = rng.random((n_rows, n_items))
    item_ids = np.argpartition(keys, n - 1, axis=1)[:, :n]
    item_ids = np.take_along_axis(item_ids, np.argsort(np.take_along_axis(keys, item_ids, 1), 1), 1)
    item_ids = item_ids.astype(np.int64) + 1
    scores = np.empty((n_rows, n))
    scores[:, 0] = rng.binomial(n_levels - 1, p_relevant, size=n_rows)
    scores[:, 1:] = rng.binomial(n_levels - 1, p_negative, size=(n_rows, n_negatives))
    labels = np.zeros((n_rows, n))
    labels[:, 0] = 1.0
    params = dict(n_rows=n_rows, n_negatives=n_negatives, n_levels=n_levels,
                  p_relevant=float(p_relevant), p_negative=float(p_negative),
                  n_items=n_items, seed=int(seed))
    source = DataSource(
        name="Tie-heavy candidate rows",
        kind="simulated",
        version="1",
        generator="rankaudit.ties.studies.simulate_tie_heavy_rows",
        details=params,
    )
    users = np.arange(1, n_rows + 1, dtype=np.int64)
    return TieHeavySample(users, item_ids, scores, labels, source)


def random_small_rows(
    n_rows: int,
    *,
    max_candidates: int = 7,
    n_levels: int = 3,
    max_label: int = 3,
    seed: int = 0,
) -> list[tuple[np.ndarray, np.ndarray]]:
    """Small ragged rows for exact checks: heavy ties, several relevant items, graded labels.

    Each row has ``2..max_candidates`` candidates, integer scores in ``0..n_levels-1`` and
    labels in ``0..max_label`` with at least one label > 0.
    """
    n_rows = _check_int(n_rows, "n_rows", 1)
    max_candidates = _check_int(max_candidates, "max_candidates", 2)
    rng = np.random.default_rng(_check_int(seed, "seed", 0))
    rows = []
    for _ in range(n_rows):
        n = int(rng.integers(2, max_candidates + 1))
        scores = rng.integers(0, n_levels, size=n).astype(np.float64)
        labels = rng.integers(0, max_label + 1, size=n).astype(np.float64)
        if not (labels > 0).any():
            labels[rng.integers(n)] = float(rng.integers(1, max_label + 1))
        rows.append((scores, labels))
    return rows


# --------------------------------------------------------------------------- Monte Carlo
def random_tie_draws(
    scores: np.ndarray, labels: np.ndarray, k: int, n_draws: int, seed: int = 0,
    chunk: int = 256,
) -> dict[str, np.ndarray]:
    """HR@k, NDCG@k and RR under ``n_draws`` independent uniform random tie orders.

    Each draw ranks every row by ``(-score, u)`` with ``u`` i.i.d. uniform, so every
    ordering consistent with the scores is equally likely. Returns, per metric, an
    array of shape ``(n_draws, rows)``. Draws are processed ``chunk`` at a time.
    """
    s = np.asarray(scores, dtype=np.float64)
    y = np.asarray(labels, dtype=np.float64)
    if s.ndim != 2 or s.shape != y.shape:
        raise ValueError(f"scores and labels must be 2-D of one shape; got {s.shape} and {y.shape}")
    n_draws = _check_int(n_draws, "n_draws", 1)
    k = _check_int(k, "k", 1)
    rng = np.random.default_rng(_check_int(seed, "seed", 0))
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


def running_mean_bands(draws: np.ndarray, z: float = 1.96) -> pd.DataFrame:
    """Running mean of a sequence of draws with a normal ``z`` confidence band.

    ``lower/upper = mean_n -+ z * sd_n / sqrt(n)`` with ``sd_n`` the sample standard
    deviation of the first ``n`` draws (ddof = 1; the band is 0 wide at ``n = 1``).
    """
    x = np.asarray(draws, dtype=np.float64).ravel()
    if x.size == 0:
        raise ValueError("draws is empty")
    n = np.arange(1, x.size + 1, dtype=np.float64)
    mean = np.cumsum(x) / n
    sq = np.cumsum(x**2)
    var = np.zeros_like(mean)
    var[1:] = np.maximum(sq[1:] - n[1:] * mean[1:] ** 2, 0.0) / (n[1:] - 1.0)
    half = z * np.sqrt(var / n)
    return pd.DataFrame({"draw": n.astype(np.int64), "mean": mean,
                         "lower": mean - half, "upper": mean + half})


# --------------------------------------------------------------------------- seed spread
def seed_spread(
    evaluate_one: Callable[[int], pd.DataFrame], seeds: Sequence[int], progress: bool = True
) -> pd.DataFrame:
    """The row-mean of every metric column under each seed: one output row per seed.

    ``evaluate_one(seed)`` returns per-row metrics (e.g. ``rankaudit.evaluate(...,
    ties="hash", seed=seed)``); the spread of these means across seeds is the
    seed-to-seed variation the paper asks to report (Guo et al. 2026, §6). ``progress``
    shows a tqdm bar over seeds.
    """
    seeds = [_check_int(s, "seeds[]", 0) for s in seeds]
    if not seeds:
        raise ValueError("seeds is empty")
    from tqdm.auto import tqdm

    rows = []
    for seed in tqdm(seeds, desc="seeds", leave=False, disable=not progress):
        frame = evaluate_one(seed)
        metrics = [c for c in frame.columns if str(c).startswith(("hr@", "ndcg@")) or c == "rr"]
        if not metrics:
            raise ValueError(f"evaluate_one({seed}) returned no hr@k / ndcg@k / rr column")
        rows.append({"seed": seed, **{str(c): float(frame[c].mean()) for c in metrics}})
    return pd.DataFrame(rows)


def collision_bound(block_size: int, bits: int = 64) -> float:
    """Birthday bound on the chance that two of ``block_size`` keys of ``bits`` bits collide.

    ``P(collision) <= C(t, 2) / 2**bits``.
    """
    t = _check_int(block_size, "block_size", 1)
    return math.comb(t, 2) / 2.0**bits


# --------------------------------------------------------------------------- three-way check
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
    discount cutoff are exercised). With one ``k`` the metrics are named ``hr@<k>``,
    ``ndcg@<k>`` and ``rr``; with per-row cutoffs ``hr@k``, ``ndcg@k`` and ``rr``, and the
    column ``k`` holds each row's cutoff in both cases.

    For each small row and metric (``hr@k``, ``ndcg@k``, ``rr``) the output holds

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

    from rankaudit.ties.bruteforce import brute_force_moments

    per_row = not isinstance(k, int | np.integer)
    if per_row:
        ks = [_check_int(v, f"k[{i}]", 1) for i, v in enumerate(k)]
        if len(ks) != len(rows):
            raise ValueError(f"k has {len(ks)} cutoffs for {len(rows)} rows")
    else:
        ks = [_check_int(k, "k", 1)] * len(rows)
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
            for metric in (f"hr@{k}", f"ndcg@{k}", "rr"):
                x = draws[metric][:, j]
                se = float(x.std(ddof=1) / math.sqrt(x.size)) if x.size > 1 else 0.0
                e = float(exact[metric].iloc[j])
                mc = float(x.mean())
                records.append({
                    "row": i, "n_candidates": n, "k": k,
                    "n_relevant": int((labels[j] > 0).sum()),
                    "metric": metric.replace(f"@{k}", "@k") if per_row else metric, "expected": e,
                    "variance": float(exact[f"{metric}_var"].iloc[j]),
                    "enumeration": means[metric], "enumeration_variance": variances[metric],
                    "monte_carlo": mc, "mc_se": se,
                    "mc_z": (mc - e) / max(se, 1e-12),  # floor: rounding when Var = 0
                    "sklearn": sk if metric == f"ndcg@{k}" else float("nan"),
                })
    return pd.DataFrame.from_records(records).sort_values(["row", "metric"], ignore_index=True)
