"""Paired tests between models within one protocol, and which protocol swaps they resolve.

A *swap* is a pair of models that the full-catalog and the sampled protocol order oppositely by
mean NDCG@10 under the expected rule (a discordant pair of Kendall's tau).  Whether the swap is
real is a question of both orders: each comes from a finite set of rows and may be noise.
Within each protocol every pair of models is tested as ``rankaudit leaderboard`` tests a pair
(:mod:`rankaudit.runs.leaderboard`): the two-sided paired sign-flip randomisation test on the
per-row values (Fisher, 1935; Smucker, Allan & Carterette, CIKM 2007,
:func:`rankaudit.runs.significance.paired_randomisation_test`), Holm-adjusted over the pairs
of that protocol (Holm, 1979, :func:`rankaudit.runs.significance.holm_adjust`), with
``diff = mean(b) - mean(a)``.

Each protocol's difference gets its verdict from the decision standard
(:func:`rankaudit.runs.decision.direction_verdict` on its Holm-adjusted p-value at level
``alpha``, :data:`rankaudit.runs.decision.ALPHA` by default), and the pair's status is
:func:`rankaudit.runs.decision.swap_verdict` of the two: a **resolved swap** when both orders
are resolved with opposite signs; an **unresolved swap** when the signs are opposite but at
least one order is within the noise of its rows; ``"same order"`` when both protocols order the
pair the same way (or one leaves it exactly equal).

Public API: :data:`SWAP_STATUS`, :func:`row_values`, :func:`pair_tests`,
:func:`protocol_swaps`, :func:`swap_status`, :func:`above_floor`, :func:`lead_test`,
:func:`pair_results`.
"""

from __future__ import annotations

import itertools
from collections.abc import Mapping, Sequence

import numpy as np
import pandas as pd

from rankaudit.runs.decision import ALPHA, SWAP_VERDICTS, direction_verdict, swap_verdict
from rankaudit.runs.significance import holm_adjust, paired_randomisation_test
from rankaudit.ties.evaluate import evaluate
from rankbook.audit.recommender_protocols import K, RecommenderRun, protocol_frame

__all__ = [
    "SWAP_STATUS",
    "above_floor",
    "lead_test",
    "pair_results",
    "pair_tests",
    "protocol_swaps",
    "row_values",
    "swap_status",
]

#: the status of a pair between the two protocols: the decision standard's swap verdicts
SWAP_STATUS: tuple[str, ...] = SWAP_VERDICTS


def row_values(
    run: RecommenderRun, protocol: str, *, rule: str = "expected", seed: int = 42
) -> dict[str, np.ndarray]:
    """Per-row NDCG@10 of every model of ``run`` under ``protocol`` and tie rule ``rule``, rows
    in ``row_id`` order (the same rows for every model)."""
    out = {}
    for model in run.models:
        frame = protocol_frame(run, protocol, run.scores[model.name])
        values = evaluate(frame, k=K, ties=rule, seed=seed)
        out[model.name] = values.sort_values("row_id")[f"nDCG@{K}"].to_numpy(np.float64)
    return out


def pair_tests(
    values: Mapping[str, np.ndarray], *, n_perm: int = 10000, seed: int = 0
) -> list[dict]:
    """Every pair ``(a, b)`` of ``values`` (in their order): ``diff = mean(b) - mean(a)``, the
    sign-flip ``p_value`` and ``p_holm``, Holm-adjusted over all the pairs given."""
    names = list(values)
    if len(names) < 2:
        raise ValueError(f"pair_tests needs at least 2 models, got {names}")
    lengths = {n: len(values[n]) for n in names}
    if len(set(lengths.values())) != 1:
        raise ValueError(f"every model needs the same rows; row counts: {lengths}")
    rows = []
    for a, b in itertools.combinations(names, 2):
        va, vb = np.asarray(values[a], np.float64), np.asarray(values[b], np.float64)
        rows.append(
            {
                "run_a": a,
                "run_b": b,
                "diff": float(vb.mean() - va.mean()),
                "p_value": paired_randomisation_test(va, vb, n_perm=n_perm, seed=seed),
            }
        )
    for row, p in zip(rows, holm_adjust(np.array([r["p_value"] for r in rows])), strict=True):
        row["p_holm"] = float(p)
    return rows


def swap_status(
    d_full: float, p_full: float, d_sampled: float, p_sampled: float, alpha: float
) -> str:
    """The status of one pair (module docstring) from its two differences and two
    Holm-adjusted p-values at level ``alpha``: each side's verdict from
    :func:`~rankaudit.runs.decision.direction_verdict`, the pair's from
    :func:`~rankaudit.runs.decision.swap_verdict`."""
    v_full = direction_verdict(d_full, p_full, alpha=alpha)
    v_sampled = direction_verdict(d_sampled, p_sampled, alpha=alpha)
    return swap_verdict(d_full, v_full, d_sampled, v_sampled)


def protocol_swaps(
    full: Sequence[Mapping], sampled: Sequence[Mapping], *, alpha: float = ALPHA
) -> list[dict]:
    """One record per pair of :func:`pair_tests` (the same pairs in both protocols): the two
    differences, the two Holm-adjusted p-values and the pair's ``status`` (module docstring)."""
    by_pair = {(r["run_a"], r["run_b"]): r for r in sampled}
    missing = [(r["run_a"], r["run_b"]) for r in full if (r["run_a"], r["run_b"]) not in by_pair]
    if missing or len(by_pair) != len(full):
        raise ValueError(f"full and sampled must test the same pairs; unmatched: {missing}")
    out = []
    for f in full:
        s = by_pair[(f["run_a"], f["run_b"])]
        out.append(
            {
                "run_a": f["run_a"],
                "run_b": f["run_b"],
                "diff_full": float(f["diff"]),
                "p_holm_full": float(f["p_holm"]),
                "diff_sampled": float(s["diff"]),
                "p_holm_sampled": float(s["p_holm"]),
                "status": swap_status(f["diff"], f["p_holm"], s["diff"], s["p_holm"], float(alpha)),
            }
        )
    return out


def above_floor(tests: Sequence[Mapping], floor: str) -> pd.DataFrame:
    """Each model against the ``floor`` model (e.g. ``"random"``) from one protocol's
    :func:`pair_tests`: ``diff`` = model minus floor and its ``p_holm`` (the family is every
    pair of that protocol, as the records were adjusted)."""
    rows = []
    for r in tests:
        if floor not in (r["run_a"], r["run_b"]):
            continue
        model, sign = (r["run_a"], -1.0) if r["run_b"] == floor else (r["run_b"], 1.0)
        rows.append({"model": model, "diff": sign * float(r["diff"]), "p_holm": r["p_holm"]})
    if not rows:
        raise ValueError(f"no pair involves the floor model {floor!r}")
    return pd.DataFrame(rows).set_index("model")


def lead_test(
    tests: Sequence[Mapping],
    means: Mapping[str, float],
    *,
    alpha: float = ALPHA,
    values: Mapping[str, np.ndarray] | None = None,
) -> dict:
    """Whether the model with the highest mean leads: its pair with the runner-up (the second
    highest mean; the first in ``means``' order on a tie) from one protocol's :func:`pair_tests`,
    ``diff`` = leader minus runner-up, its ``p_holm`` (Holm over every pair of that protocol,
    ``n_pairs`` of them) and the decision standard's
    :func:`~rankaudit.runs.decision.direction_verdict`. With the per-row ``values`` the tests
    were run on, also ``n_rows`` and ``sd_diff``, the standard deviation (ddof 1) of the per-row
    differences leader minus runner-up, from which a page computes the power of the lead's
    test (:func:`rankbook.ranking.power.power_paired`, a room above this one)."""
    if len(means) < 2:
        raise ValueError(f"a lead needs at least 2 models, got {list(means)}")
    order = sorted(means, key=lambda name: -means[name])  # stable: the first on a tie
    leader, runner_up = order[0], order[1]
    for r in tests:
        if {r["run_a"], r["run_b"]} == {leader, runner_up}:
            diff = float(r["diff"]) if r["run_b"] == leader else -float(r["diff"])
            out = {
                "leader": leader,
                "runner_up": runner_up,
                "diff": diff,
                "p_holm": float(r["p_holm"]),
                "n_pairs": len(tests),
                "verdict": direction_verdict(diff, float(r["p_holm"]), alpha=alpha),
            }
            if values is not None:
                d = np.asarray(values[leader], np.float64) - np.asarray(
                    values[runner_up], np.float64
                )
                out["n_rows"] = int(len(d))
                out["sd_diff"] = float(np.std(d, ddof=1)) if len(d) > 1 else 0.0
            return out
    raise ValueError(f"no pair test of {leader!r} and {runner_up!r}")


def pair_results(
    run: RecommenderRun,
    *,
    n_perm: int = 10000,
    alpha: float = ALPHA,
    seed: int = 42,
    floor: str = "random",
) -> dict:
    """The chapter's results of this module: ``pair_tests`` per protocol (expected-rule
    NDCG@10, ``seed`` the hash rule's seed and the sign flips'), ``protocol_swaps`` and
    ``above_floor`` (each model against ``floor`` on the full catalog; empty without it) and
    ``leads`` (:func:`lead_test` per protocol, on the tested rows' means, with the spread of
    the lead's per-row differences)."""
    values = {p: row_values(run, p, seed=seed) for p in ("full", "sampled")}
    tests = {p: pair_tests(values[p], n_perm=n_perm, seed=seed) for p in values}
    names = {m.name for m in run.models}
    floor_rows = (
        above_floor(tests["full"], floor).reset_index().to_dict(orient="records")
        if floor in names
        else []
    )
    means = {p: {name: float(v.mean()) for name, v in values[p].items()} for p in values}
    return {
        "pair_tests": tests,
        "leads": {p: lead_test(tests[p], means[p], alpha=alpha, values=values[p]) for p in tests},
        "protocol_swaps": protocol_swaps(tests["full"], tests["sampled"], alpha=alpha),
        "above_floor": floor_rows,
        "floor_model": floor,
    }
