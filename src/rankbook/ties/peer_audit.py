"""Audit other libraries' evaluators for row-order invariance and identify their tie rule.

The audit (Guo et al. 2026, §3.1 and §6: "report a permutation test for implementations
claimed to be input-position independent") runs each evaluator of
:data:`rankbook.ties.peers.PEERS` on the *same* tie-heavy rows in three layouts:

``relevant_first``
    the relevant item stored in column 0 (the common layout);
``relevant_last``
    the same candidates with the relevant item moved to the last column;
``ids_renamed``
    relevant first, with every item id replaced by its mirror image in the catalogue
    (``id -> n_items + 1 - id``), which reverses the order of ids but changes nothing else.

A row-order invariant evaluator gives the same value in the first two layouts; an
evaluator that orders ties by id may still change in the third. It then runs
:func:`rankaudit.audit_row_order` (random permutations of every row) for the verdict, and
compares each evaluator's per-row values with reference rankings under candidate tie
rules (:data:`TIE_HYPOTHESES`) to name the rule it was *observed* to follow: the rules
that reproduce its output on every row of every layout.

Item ids are passed as zero-padded strings (``"i0042"``) so that string order (used by
trec_eval) and integer order agree.

References
----------
.. code-block:: bibtex

    @misc{guo2026ties,
      author = {Guo, Chengkun and Chen, Han and Zhu, Yilin and Li, Yingrui},
      title  = {Tie Handling Is Part of the Evaluation Protocol: An Order-Invariance
                Audit for Tie-Heavy Recommender Scores},
      year   = {2026}, eprint = {2609.26977}, archivePrefix = {arXiv}
    }
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass

import numpy as np
import pandas as pd

from rankaudit._optional import tqdm
from rankaudit.measures.row_metrics import metrics_of_ranking
from rankaudit.ties.evaluate import evaluate
from rankaudit.ties.invariance import audit_row_order
from rankbook.ties.peers import PEERS

__all__ = [
    "LAYOUTS",
    "TIE_HYPOTHESES",
    "PeerResult",
    "audit_peers",
    "layouts",
    "observed_tie_rule",
    "peer_audit_records",
    "peer_glue_values",
    "peer_versions",
]

LAYOUTS: tuple[str, ...] = ("relevant_first", "relevant_last", "ids_renamed")

TIE_HYPOTHESES: tuple[str, ...] = (
    "tie-averaged (exact expectation)",
    "input order",
    "reverse input order",
    "item id ascending",
    "item id descending",
)


@dataclass(frozen=True)
class Layout:
    """One presentation of the rows: scores, labels, integer ids and their string form."""

    scores: np.ndarray
    labels: np.ndarray
    int_ids: np.ndarray
    str_ids: np.ndarray


def _str_ids(ids: np.ndarray, width: int) -> np.ndarray:
    return np.char.add("i", np.char.zfill(ids.astype(str), width))


def layouts(
    scores: np.ndarray, labels: np.ndarray, item_ids: np.ndarray, n_items: int
) -> dict[str, Layout]:
    """The three layouts of :data:`LAYOUTS` for rows whose relevant item is in column 0."""
    s = np.asarray(scores, dtype=np.float64)
    y = np.asarray(labels, dtype=np.float64)
    ids = np.asarray(item_ids, dtype=np.int64)
    if s.ndim != 2 or s.shape != y.shape or s.shape != ids.shape:
        raise ValueError(
            f"scores, labels, item_ids must share one 2-D shape; got "
            f"{s.shape}, {y.shape}, {ids.shape}"
        )
    not_first = np.flatnonzero(y[:, 0] <= 0)
    if not_first.size:
        raise ValueError(f"labels: row {not_first[0]} does not hold its relevant item in column 0")
    if ids.min() < 1 or ids.max() > n_items:
        raise ValueError(f"item_ids must lie in 1..n_items={n_items}")
    width = len(str(n_items))
    last = np.roll(np.arange(s.shape[1]), -1)  # column 0 moves to the end
    renamed = n_items + 1 - ids
    return {
        "relevant_first": Layout(s, y, ids, _str_ids(ids, width)),
        "relevant_last": Layout(
            s[:, last], y[:, last], ids[:, last], _str_ids(ids[:, last], width)
        ),
        "ids_renamed": Layout(s, y, renamed, _str_ids(renamed, width)),
    }


def _reference(layout: Layout, rule: str, metric: str, k: int) -> np.ndarray:
    """Per-row ``metric`` ("nDCG@k" or "Success@k") of ``layout`` under hypothesised ``rule``."""
    name = metric.replace("@k", f"@{k}")
    if rule == "tie-averaged (exact expectation)":
        return evaluate(layout.scores, layout.labels, k=k, ties="expected")[name].to_numpy()
    position = np.broadcast_to(np.arange(layout.scores.shape[1]), layout.scores.shape)
    secondary = {
        "input order": position,
        "reverse input order": -position,
        "item id ascending": layout.int_ids,
        "item id descending": -layout.int_ids,
    }[rule]
    order = np.lexsort((secondary, -layout.scores), axis=-1)
    return metrics_of_ranking(layout.labels, order, k)[name]


def observed_tie_rule(
    values: Mapping[str, np.ndarray],
    views: Mapping[str, Layout],
    metric: str,
    k: int,
    atol: float = 1e-6,
) -> str:
    """The hypotheses of :data:`TIE_HYPOTHESES` that reproduce ``values`` on every row of
    every layout, joined by " = "; ``"none of the tested rules"`` if there are none.

    ``atol`` is loose enough for libraries that compute in float32 (torchmetrics differs
    from the float64 expectation by ~1e-7) and far below the smallest change a different
    tie order can make (one rank step moves NDCG@10 by more than 1e-3).
    """
    matches = [
        rule
        for rule in TIE_HYPOTHESES
        if all(
            np.allclose(values[name], _reference(views[name], rule, metric, k), rtol=0, atol=atol)
            for name in values
        )
    ]
    return " = ".join(matches) if matches else "none of the tested rules"


@dataclass(frozen=True)
class PeerResult:
    """One audited evaluator (or the reason it could not be audited)."""

    name: str
    library: str
    version: str
    api: str
    metric: str
    error: str | None = None
    values: dict[str, float] | None = None
    observed_rule: str | None = None
    invariant: bool | None = None
    max_row_change: float | None = None


def audit_peers(
    scores: np.ndarray,
    labels: np.ndarray,
    item_ids: np.ndarray,
    n_items: int,
    *,
    k: int = 10,
    n_permutations: int = 20,
    seed: int = 0,
    peers: Mapping[str, Callable] | None = None,
    progress: bool = True,
) -> list[PeerResult]:
    """Run every peer on the three layouts, audit its row order, and name its tie rule.

    ``peers`` defaults to every adapter of :data:`rankbook.ties.peers.PEERS`, in its order.
    A peer whose library cannot be imported is returned with ``error`` set (and nothing
    else), never dropped, so the page can say so. ``progress`` shows a tqdm bar over peers.
    """
    if peers is None:
        peers = PEERS
    views = layouts(scores, labels, item_ids, n_items)
    out = []
    for name, peer in tqdm(peers.items(), desc="peers", leave=False, disable=not progress):
        metric = getattr(peer, "metric", "nDCG@k")
        info = dict(
            name=name,
            library=getattr(peer, "library", name),
            version=peer.version() if hasattr(peer, "version") else "unknown",
            api=getattr(peer, "api", None) or name,
            metric=metric.replace("@k", f"@{k}"),
        )
        try:
            per_row = {
                layout: np.asarray(
                    peer(v.scores, v.labels, k=k, item_ids=v.str_ids), dtype=np.float64
                )
                for layout, v in views.items()
            }
        except ImportError as err:
            out.append(PeerResult(**info, error=str(err)))  # why it could not run
            continue
        first = views["relevant_first"]
        audit = audit_row_order(
            lambda s, y, item_ids, _peer=peer: _peer(s, y, k=k, item_ids=item_ids),
            first.scores,
            first.labels,
            n_permutations=n_permutations,
            seed=seed,
            item_ids=first.str_ids,
        )
        out.append(
            PeerResult(
                **info,
                values={layout: float(v.mean()) for layout, v in per_row.items()},
                observed_rule=observed_tie_rule(per_row, views, metric, k),
                invariant=audit.is_invariant,
                max_row_change=audit.max_row_change,
            )
        )
    return out


def peer_versions(results: list[PeerResult]) -> pd.DataFrame:
    """Which evaluators were audited: library, installed version, call, and status."""
    return pd.DataFrame(
        [
            {
                "library": r.library,
                "version": r.version,
                "call": r.api,
                "status": "audited" if r.error is None else f"not audited: {r.error}",
            }
            for r in results
        ]
    )


def peer_audit_records(results: list[PeerResult]) -> tuple[pd.DataFrame, list[dict]]:
    """The page table and the ``peer_audit`` results list (audited peers only).

    Results records have exactly the keys ``library, version, metric, invariant,
    value_relevant_first, value_relevant_last`` (the value columns hold the peer's metric,
    named in ``metric``; HR@10 for ``top_k_accuracy_score``).
    """
    table, records = [], []
    for r in results:
        if r.error is not None:
            continue
        assert r.values is not None
        table.append(
            {
                "evaluator": f"{r.library}: {r.api}",
                "metric": r.metric,
                "tie rule observed": r.observed_rule,
                "relevant first": r.values["relevant_first"],
                "relevant last": r.values["relevant_last"],
                "ids renamed": r.values["ids_renamed"],
                "invariant": "yes" if r.invariant else "no",
            }
        )
        records.append(
            {
                "library": r.library,
                "version": r.version,
                "metric": f"{r.api}: {r.metric}",
                "invariant": bool(r.invariant),
                "value_relevant_first": r.values["relevant_first"],
                "value_relevant_last": r.values["relevant_last"],
            }
        )
    return pd.DataFrame(table), records


def peer_glue_values(results: list[PeerResult], names: list[str]) -> dict[str, object]:
    """Values a page quotes for each peer ``name``, keyed ``{name}_{what}``.

    ``what`` is each layout of :data:`LAYOUTS` (mean metric), ``rule`` (observed tie rule)
    and ``invariant`` (``"yes"``/``"no"``). A peer that was not audited (library missing, or
    not among ``results``) gets NaN values and ``"not audited"``, so the page still builds
    and says so.
    """
    by_name = {r.name: r for r in results if r.error is None}
    out: dict[str, object] = {}
    for name in names:
        r = by_name.get(name)
        for layout in LAYOUTS:
            out[f"{name}_{layout}"] = r.values[layout] if r and r.values else float("nan")
        out[f"{name}_rule"] = r.observed_rule if r else "not audited"
        out[f"{name}_invariant"] = ("yes" if r.invariant else "no") if r else "not audited"
    return out
