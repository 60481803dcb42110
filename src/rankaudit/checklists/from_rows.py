"""The six-part reporting checklist for tie-heavy evaluation, filled from an actual evaluation.

Guo et al. (2026, "Tie Handling Is Part of the Evaluation Protocol", arXiv:2609.26977, §6)
ask every offline top-k evaluation whose scores may tie to report:

1. **Candidate set**: sampled or full catalog, candidates per row, negative sampling,
   exclusions, deduplication and seeds.
2. **Pre-sort candidate order**: whether the relevant item has a fixed position and whether
   rows are shuffled.
3. **Tie prevalence**: exact ties, ties crossing the top-k boundary, relevant-item ties.
4. **Tie-breaking rule**: the rule; for hashing the key inputs, seed policy and collision
   fallback; for repeated random ties the variation across runs.
5. **Permutation test**: does permuting each row's candidates change the result?
6. **Sensitivity analysis**: the metric under other tie rules and the optimistic/pessimistic
   bounds, whenever ties affect membership or the relevant item's position.

:func:`checklist` computes every entry it can from ``scores``/``labels``/ids and the candidate
policy (e.g. a candidate builder's storage policy), and marks what the
caller did not disclose. The result renders as Markdown (:meth:`Checklist.to_markdown`) and
serialises with :meth:`Checklist.to_dict`.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from rankaudit._checks import check_not_masked
from rankaudit.checklists.presort import layout_facts, present_effect, presort_item, share_text
from rankaudit.checklists.template import SECTIONS, checklist_template
from rankaudit.measures.hashing import hash_collisions
from rankaudit.measures.rules import rule as tie_rule
from rankaudit.options import (
    CHECKLIST_KEYWORDS,
    DEFAULT_PERMUTATION,
    DEFAULT_SENSITIVITY,
    PermutationOptions,
    SensitivityOptions,
    check_option,
    moved_keywords,
)
from rankaudit.ties.evaluate import evaluate
from rankaudit.ties.invariance import audit_row_order
from rankaudit.ties.prevalence import tie_prevalence
from rankaudit.ties.validation import exact_scores

__all__ = ["Checklist", "ChecklistItem", "checklist", "checklist_template", "SECTIONS"]

#: (key, title) of the six parts, in the paper's order.
_STATUS = {"ok": "OK", "warn": "ATTENTION", "missing": "NOT DISCLOSED"}

HASH_KEY = (
    "tie_hash(seed, user_id, item_id) = splitmix64(splitmix64(splitmix64(seed) ^ id64(user)) ^ "
    "id64(item)); "
    "id64: integers as two's complement mod 2^64, strings by 8-byte BLAKE2b; ascending key within "
    "a tie "
    "block; collision fallback: ascending item id (rankaudit.measures.hashing)"
)
_CANDIDATE_FIELDS = ("evaluation", "n_negatives", "negative_sampling", "exclusion", "dedup", "seed")


@dataclass(frozen=True)
class ChecklistItem:
    """One part of the checklist: a status, one sentence of answer and the facts behind it."""

    key: str
    title: str
    status: str
    answer: str
    facts: dict[str, Any] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        return {
            "title": self.title,
            "status": self.status,
            "answer": self.answer,
            "facts": dict(self.facts),
        }


@dataclass(frozen=True)
class Checklist:
    """The filled six-part checklist (see the module docstring)."""

    items: tuple[ChecklistItem, ...]
    label: str = ""

    def __getitem__(self, key: str) -> ChecklistItem:
        for item in self.items:
            if item.key == key:
                return item
        raise KeyError(f"no checklist part {key!r}; parts: {[i.key for i in self.items]}")

    @property
    def n_attention(self) -> int:
        return sum(item.status != "ok" for item in self.items)

    def to_dict(self) -> dict[str, Any]:
        return {"label": self.label, **{item.key: item.to_dict() for item in self.items}}

    def to_frame(self):
        import pandas as pd

        return pd.DataFrame(
            [{"part": i.title, "status": _STATUS[i.status], "answer": i.answer} for i in self.items]
        )

    def to_markdown(self) -> str:
        lines = [f"**Tie-reporting checklist{': ' + self.label if self.label else ''}**", ""]
        for n, item in enumerate(self.items, start=1):
            lines.append(f"{n}. **{item.title}** ({_STATUS[item.status]}): {item.answer}")
        return "\n".join(lines) + "\n"

    def _repr_markdown_(self) -> str:
        return self.to_markdown()


def _fmt(x: float) -> str:
    return f"{x:.4f}"


def _joined(names: list[str], conjunction: str) -> str:
    """``a``, ``a and b``, ``a, b and c`` (with ``conjunction`` in place of "and")."""
    if len(names) < 3:
        return f" {conjunction} ".join(names)
    return f"{', '.join(names[:-1])} {conjunction} {names[-1]}"


def _candidate_item(policy: Mapping[str, Any] | None, n_candidates: int) -> ChecklistItem:
    policy = dict(policy or {})
    missing = [f for f in _CANDIDATE_FIELDS if policy.get(f) in (None, "")]
    facts = {
        "n_candidates": n_candidates,
        **{f: policy.get(f) for f in _CANDIDATE_FIELDS},
        "missing": missing,
    }
    if missing:
        answer = f"{n_candidates} candidates per row; not disclosed: {', '.join(missing)}."
        return ChecklistItem("candidate_set", "Candidate set", "missing", answer, facts)
    relevant = policy.get("relevant") or "1 held-out relevant item"
    facts["relevant"] = relevant
    answer = (
        f"{policy['evaluation']} evaluation, {n_candidates} candidates per row ({relevant} + "
        f"{policy['n_negatives']} negatives: {policy['negative_sampling']}); excluded: "
        f"{policy['exclusion']}; dedup: {policy['dedup']}; sampling seed: {policy['seed']}."
    )
    return ChecklistItem("candidate_set", "Candidate set", "ok", answer, facts)


def _presort_item(
    scores: np.ndarray,
    labels: np.ndarray,
    policy: Mapping[str, Any] | None,
    effect: tuple[str, str] | None,
) -> ChecklistItem:
    """The pre-sort item (:mod:`rankaudit.checklists.presort`), columns in storage order; the
    facts add the relevant item's modal stored position and the policy's ``rows_shuffled``."""
    rel = labels > 0
    has = rel.any(axis=1)
    first_pos = np.where(has, rel.argmax(axis=1), -1)
    positions, counts = np.unique(first_pos[has], return_counts=True)
    modal = int(positions[counts.argmax()]) if len(counts) else -1
    frac_modal = float(counts.max() / has.sum()) if len(counts) else 0.0
    shuffled = (policy or {}).get("rows_shuffled")
    fixed = frac_modal == 1.0
    facts = {
        "relevant_position_modal": modal,
        "frac_rows_relevant_at_modal_position": frac_modal,
        "rows_shuffled": shuffled,
    }
    facts["relevant_position_fixed"] = fixed
    n, m = scores.shape
    layout = layout_facts(np.arange(n + 1) * m, scores.reshape(-1), rel.reshape(-1))
    status, answer, facts = presort_item(layout, effect, facts)
    return ChecklistItem("presort_order", "Pre-sort candidate order", status, answer, facts)


def _prevalence_item(scores: np.ndarray, labels: np.ndarray, k: int) -> ChecklistItem:
    s = tie_prevalence(scores, labels, k=k).summary
    facts = {
        "any_tie": float(s["frac_any_tie"]),
        "boundary_tie": float(s["frac_boundary_tie"]),
        "relevant_tie": float(s["frac_relevant_tied"]),
        "relevant_boundary_tie": float(s["frac_relevant_boundary_tie"]),
        "mean_relevant_block_size": float(s["mean_relevant_block_size"]),
    }
    answer = (
        f"Rows with an exact tie: {share_text(facts['any_tie'])}; a tie block crossing the "
        f"top-{k} boundary: {share_text(facts['boundary_tie'])}; relevant item tied: "
        f"{share_text(facts['relevant_tie'])} (its block crosses the boundary in "
        f"{share_text(facts['relevant_boundary_tie'])} of rows); mean relevant tie-block size "
        f"{facts['mean_relevant_block_size']:.2f}."
    )
    status = "warn" if facts["relevant_tie"] > 0 else "ok"
    return ChecklistItem("tie_prevalence", "Tie prevalence", status, answer, facts)


def _breaking_item(ties: str, seed: int, n_repeats: int, collisions: dict | None) -> ChecklistItem:
    """The tie-breaking item: the rule's description and flags as the registry declares them
    (:mod:`rankaudit.measures.rules`); an unknown rule is a ValueError."""
    declared = tie_rule(ties)
    facts: dict[str, Any] = {"tie_rule": ties, "seed": seed}
    answer = declared.describe.format(seed=seed, n_repeats=n_repeats)
    if declared.needs_items and collisions is not None:
        facts.update(
            hash_key=HASH_KEY,
            seed_policy=f"one fixed seed ({seed}) for every row",
            **collisions,
        )
        answer += f" ({HASH_KEY}); key collisions observed: {facts.get('collisions', 0)}"
    elif declared.order == "sample":
        facts.update(
            n_repeats=n_repeats, seed_policy=f"seed {seed}, {n_repeats} independent tie orders"
        )
        answer += "; see the sd columns"
    status = "warn" if declared.input_dependent else "ok"
    answer = answer[0].upper() + answer[1:] + "."
    return ChecklistItem("tie_breaking", "Tie-breaking rule", status, answer, facts)


@moved_keywords(CHECKLIST_KEYWORDS)
def checklist(
    scores: np.ndarray,
    labels: np.ndarray,
    *,
    item_ids: np.ndarray | None = None,
    user_ids: np.ndarray | None = None,
    k: int = 10,
    ties: str = "expected",
    seed: int = 0,
    n_repeats: int = 1,
    candidates: Mapping[str, Any] | None = None,
    evaluator: Callable[..., Any] | None = None,
    permutation: PermutationOptions = DEFAULT_PERMUTATION,
    sensitivity: SensitivityOptions = DEFAULT_SENSITIVITY,
    label: str = "",
) -> Checklist:
    """Fill the six-part checklist from an evaluation of ``scores``/``labels`` (``(n, m)`` arrays).

    Parameters
    ----------
    item_ids, user_ids
        Candidate ids ``(n, m)`` and row (user) ids ``(n,)``; needed by the hash rule.
    k, ties, seed, n_repeats
        The evaluation being reported: cutoff, tie rule, its seed, random repeats.
    candidates
        The candidate policy (e.g. ``CandidateRows.policy``): ``evaluation``, ``n_negatives``,
        ``negative_sampling``, ``exclusion``, ``dedup``, ``seed``, ``rows_shuffled``. Missing
        fields are marked NOT DISCLOSED. An optional ``relevant`` names the relevant candidate
        of a row (default "1 held-out relevant item"; a logged SERP: "the sold item").
    evaluator
        The evaluator to permutation-test, called as ``evaluator(scores, labels, item_ids=...,
        user_ids=...)``; default :func:`rankaudit.evaluate` with ``k``, ``ties``, ``seed``.
    permutation
        Size and seed of the permutation test (:func:`rankaudit.audit_row_order`), a
        :class:`rankaudit.PermutationOptions` (default 50 permutations, seed 0).
    sensitivity
        The rules to compare and the tolerance, a :class:`rankaudit.SensitivityOptions`: the
        sensitivity item asks for attention when the NDCG@k range across the rules exceeds the
        tolerance.  The former ``n_permutations=``, ``permutation_seed=``,
        ``sensitivity_rules=`` and ``tolerance=`` are a TypeError naming the option.
    """
    check_option(permutation, "permutation", PermutationOptions)
    check_option(sensitivity, "sensitivity", SensitivityOptions)
    n_permutations, permutation_seed = permutation.n_permutations, permutation.seed
    sensitivity_rules, tolerance = sensitivity.rules, sensitivity.tolerance
    for name, value in (("labels", labels), ("item_ids", item_ids), ("user_ids", user_ids)):
        check_not_masked(value, name)
    scores = exact_scores(scores)  # no lossy cast: int64 beyond 2**53 ties only when equal
    labels = np.asarray(labels)
    if scores.ndim != 2 or scores.shape != labels.shape:
        raise ValueError(
            f"scores and labels must be 2-D of one shape; got {scores.shape} and {labels.shape}"
        )
    if tie_rule(ties).needs_items and item_ids is None:
        raise ValueError(f"ties={ties!r} needs item_ids (the hash key is seed, user id, item id)")
    n_candidates = scores.shape[1]

    def default_evaluator(s, lab, item_ids=None, user_ids=None):
        extra = {"n_repeats": n_repeats} if tie_rule(ties).order == "sample" else {}
        return evaluate(
            s, lab, k=k, ties=ties, seed=seed, item_ids=item_ids, user_ids=user_ids, **extra
        )

    run = evaluator or default_evaluator
    ids = {}
    if item_ids is not None:
        ids["item_ids"] = np.asarray(item_ids)
    if user_ids is not None:
        ids["user_ids"] = np.asarray(user_ids)

    collisions = None
    if ties == "hash":
        uid = ids.get("user_ids", np.arange(len(scores)))
        collisions = hash_collisions(np.asarray(uid), np.asarray(item_ids), n_seeds=1)

    audit = audit_row_order(
        run,
        scores,
        labels,
        n_permutations=n_permutations,
        seed=permutation_seed,
        progress=False,
        **ids,
    )
    # the metrics the evaluator returned, and the one that moved most (row, then mean)
    by_metric = audit.summary.set_index("metric")
    metrics = [str(m) for m in by_metric.index]
    row_metric = metrics[int(np.argmax(by_metric["max_row_change"].to_numpy()))]
    mean_metric = metrics[int(np.argmax(by_metric["max_mean_change"].to_numpy()))]
    perm_facts = {
        "is_invariant": bool(audit.is_invariant),
        "max_row_change": float(audit.max_row_change),
        "max_mean_change": float(audit.max_mean_change),
        "max_row_change_metric": row_metric,
        "max_mean_change_metric": mean_metric,
        "by_metric": [
            {
                "metric": m,
                "max_row_change": float(by_metric.loc[m, "max_row_change"]),
                "max_mean_change": float(by_metric.loc[m, "max_mean_change"]),
            }
            for m in metrics
        ],
        "n_permutations": int(n_permutations),
        "permutation_seed": int(permutation_seed),
    }
    if audit.is_invariant:
        perm = ChecklistItem(
            "permutation_test",
            "Permutation test",
            "ok",
            f"Row-order invariant: {n_permutations} random within-row permutations changed no "
            f"value of {_joined(metrics, 'or')} (largest change {audit.max_row_change:.2g}).",
            perm_facts,
        )
    else:
        among = (
            f" (the largest changes among {_joined(metrics, 'and')})" if len(metrics) > 1 else ""
        )
        perm = ChecklistItem(
            "permutation_test",
            "Permutation test",
            "warn",
            f"NOT row-order invariant: over {n_permutations} permutations a row's {row_metric} "
            f"moved by up to {audit.max_row_change:.4f} and the mean {mean_metric} by up to "
            f"{audit.max_mean_change:.4f}{among}.",
            perm_facts,
        )

    values = {}
    for rule in sensitivity_rules:
        if tie_rule(rule).needs_items and item_ids is None:
            continue
        frame = evaluate(scores, labels, k=k, ties=rule, seed=seed, **ids)
        values[rule] = {
            "ndcg": float(frame[f"nDCG@{k}"].mean()),
            "hr": float(frame[f"Success@{k}"].mean()),
        }
    ndcgs = [v["ndcg"] for v in values.values()]
    spread = max(ndcgs) - min(ndcgs)
    sens_facts = {"k": k, "by_rule": values, "ndcg_range": spread, "tolerance": tolerance}
    listing = "; ".join(f"{r} {_fmt(v['ndcg'])}" for r, v in values.items())
    if spread > tolerance:
        sens = ChecklistItem(
            "sensitivity",
            "Sensitivity analysis",
            "warn",
            f"nDCG@{k} depends on the tie rule (range {spread:.4f}): {listing}. Report the "
            f"expected value "
            "(or several rules) alongside any single ordering.",
            sens_facts,
        )
    else:
        sens = ChecklistItem(
            "sensitivity",
            "Sensitivity analysis",
            "ok",
            f"nDCG@{k} is stable across tie rules (range {spread:.2g} <= {tolerance}): {listing}.",
            sens_facts,
        )
    effect = None
    if "input_order" in values and "expected" in values:
        effect = present_effect(
            f"nDCG@{k}", values["input_order"]["ndcg"], values["expected"]["ndcg"], tolerance
        )
    items = (
        _candidate_item(candidates, n_candidates),
        _presort_item(scores, labels, candidates, effect),
        _prevalence_item(scores, labels, k),
        _breaking_item(ties, seed, n_repeats, collisions),
        perm,
        sens,
    )
    return Checklist(items=items, label=label)
