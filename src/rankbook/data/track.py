"""A simulated shared-task track: many runs with heavy score ties on one qrels, as TREC files.

Query ``q`` has ``n_docs`` documents with names drawn without replacement from
``doc-00000 ...`` (so the docno order says nothing about relevance) and graded labels
``y in {0, 1, 2}`` (``P(y = 1) = P(y = 2) = relevant_share / 2``).  System ``j`` scores a
document ``s = bin(quality_j * y + e)``, ``e ~ N(0, 1)`` drawn for each system, where ``bin``
maps the latent value to one of ``n_levels`` integer levels at the standard normal
quantiles ``Phi^-1(k / n_levels)``: few levels, many ties.  ``quality_j`` runs evenly from
``1 - spread / 2`` to ``1 + spread / 2``.

With ``tie_order_only=True`` every system starts from the *same* scores (system 0's) and then
exchanges scores among the documents of one label in one query, at random for each system: the
multiset of ``(score, label)`` pairs of every query is the same for every system, so every
measure's expectation over tie orders and its pessimistic and optimistic values are the same,
while trec_eval's docno tie-break lands on different documents.  Those systems differ only
in how their ties fall: any gap between them on a trec_eval leaderboard is luck.

Public API: :class:`Track`, :func:`simulate_track`, :func:`write_track`.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import numpy as np
from scipy.special import ndtri

from rankaudit._checks import check_int
from rankaudit.runs.trec import write_trec_qrels, write_trec_run

__all__ = ["Track", "simulate_track", "write_track"]


@dataclass(frozen=True)
class Track:
    """Long arrays of one track: ``query``, ``docno``, ``label`` per document, and
    ``scores[j]`` the score of system ``j`` for the same documents."""

    query: np.ndarray
    docno: np.ndarray
    label: np.ndarray
    scores: np.ndarray

    @property
    def n_runs(self) -> int:
        return int(self.scores.shape[0])


def simulate_track(
    n_runs: int = 20,
    n_queries: int = 50,
    n_docs: int = 30,
    *,
    n_levels: int = 4,
    spread: float = 1.0,
    relevant_share: float = 0.2,
    tie_order_only: bool = False,
    seed: int = 0,
) -> Track:
    """The track of the module docstring (``n_runs`` systems, ``n_queries * n_docs`` lines each)."""
    check_int(n_runs, "n_runs", lo=1)
    check_int(n_queries, "n_queries", lo=1)
    check_int(n_docs, "n_docs", lo=1)
    check_int(n_levels, "n_levels", lo=1)
    check_int(seed, "seed", lo=0)
    if not (np.isfinite(spread) and spread >= 0):
        raise ValueError(f"spread must be a finite number >= 0; got {spread!r}")
    if not 0 < relevant_share < 1:
        raise ValueError(f"relevant_share must lie in (0, 1); got {relevant_share!r}")
    rng = np.random.default_rng(seed)
    n = n_queries * n_docs
    query = np.repeat(np.arange(n_queries), n_docs)
    pool = max(10 * n_docs, 1000)
    names = np.argsort(rng.random((n_queries, pool)), axis=1)[:, :n_docs].reshape(-1)
    docno = np.char.add("doc-", np.char.zfill(names.astype(str), 5))
    u = rng.random(n)
    label = np.where(u < relevant_share / 2, 2, np.where(u < relevant_share, 1, 0))
    cuts = ndtri(np.arange(1, n_levels) / n_levels)
    quality = 1.0 + spread * (np.linspace(0.0, 1.0, n_runs) - 0.5) if n_runs > 1 else np.ones(1)
    scores = np.empty((n_runs, n))
    if tie_order_only:
        base = np.digitize(label + rng.standard_normal(n), cuts).astype(np.float64)
        grouped = np.lexsort((np.arange(n), label, query))
        for j in range(n_runs):
            shuffled = np.lexsort((rng.random(n), label, query))
            scores[j, grouped] = base[shuffled]
    else:
        for j in range(n_runs):
            latent = quality[j] * label + rng.standard_normal(n)
            scores[j] = np.digitize(latent, cuts)
    qid = np.char.add("q", np.char.zfill(query.astype(str), 4))
    return Track(qid, docno, label.astype(np.int64), scores)


def write_track(folder: str | Path, track: Track, *, prefix: str = "system") -> list[Path]:
    """``folder/qrels.txt`` and one run file ``folder/runs/<prefix>-NN.run`` per system.

    Returns the run paths, in system order; the qrels judge every document of the track.
    """
    folder = Path(folder)
    (folder / "runs").mkdir(parents=True, exist_ok=True)
    write_trec_qrels(folder / "qrels.txt", track.query, track.docno, track.label)
    width = max(2, len(str(track.n_runs - 1)))
    paths = []
    for j in range(track.n_runs):
        name = f"{prefix}-{j:0{width}d}"
        paths.append(
            write_trec_run(
                folder / "runs" / f"{name}.run", track.query, track.docno, track.scores[j], name
            )
        )
    return paths
