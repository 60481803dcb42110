"""The reporting checklist (Guo et al., 2026, §6) filled from a TREC run and its qrels: what
``rankaudit checklist QRELS RUN`` prints.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from rankaudit.checklists.from_rows import Checklist, ChecklistItem
from rankaudit.checklists.presort import (
    layout_facts,
    present_effect,
    presort_item,
    share_text,
)
from rankaudit.measures.registry import parse_measures
from rankaudit.measures.rules import check_rules, rule
from rankaudit.options import (
    CHECKLIST_KEYWORDS,
    DEFAULT_SENSITIVITY,
    PermutationOptions,
    SensitivityOptions,
    check_option,
    moved_keywords,
)
from rankaudit.runs.evaluate import audit_run
from rankaudit.runs.layout import join_run_qrels
from rankaudit.runs.tables import Qrels, Run

__all__ = ["RUN_PERMUTATION", "run_checklist"]


#: The run checklist's permutation test: 5 shuffles of the run's lines (each audits the whole
#: run again, so fewer than the rows checklist's 50), drawn from seed 0.
RUN_PERMUTATION = PermutationOptions(n_permutations=5)


# --------------------------------------------------------------------------- checklist
@moved_keywords(CHECKLIST_KEYWORDS)
def run_checklist(
    run: Run,
    qrels: Qrels,
    *,
    measure: str = "nDCG@10",
    ties: str | Sequence[str] = "trec_eval",
    relevance_level: int = 1,
    complete: bool = False,
    seed: int = 0,
    permutation: PermutationOptions = RUN_PERMUTATION,
    sensitivity: SensitivityOptions = DEFAULT_SENSITIVITY,
    label: str = "",
) -> Checklist:
    """Fill the six-part reporting checklist (:mod:`rankaudit.checklists.from_rows`) from a run.

    The options are grouped as :func:`rankaudit.checklist` groups them
    (:mod:`rankaudit.options`); the former ``n_permutations=`` and ``tolerance=`` are a
    TypeError naming their new place.

    ``seed`` is the seed of the reported rule (and of every rule audited), as in
    :func:`rankaudit.checklist`.  ``permutation`` (:class:`rankaudit.PermutationOptions`,
    default :data:`RUN_PERMUTATION`): ``n_permutations`` shuffles of the run's lines
    (``1 <= n_permutations <= RERUNS.most``: each audits the whole run again) drawn from its
    ``seed`` make the permutation test.  ``sensitivity`` (:class:`rankaudit.SensitivityOptions`):
    its ``tolerance``; the pre-sort item (:mod:`rankaudit.checklists.presort`) asks for
    attention when the file stores relevant documents systematically first or last where a
    stable sort reads the order, or when its sentence says the file order moves the measure
    beyond ``tolerance``, and the sensitivity item when the rules' range exceeds it.  The rules
    a run is compared under are the reported ones with ``trec_eval``, ``input_order``,
    ``expected``, ``pessimistic`` and ``optimistic`` (rules of runs); ``sensitivity.rules``,
    rules of rows, does not apply here and must be left at its default (name another rule in
    ``ties``).

    ``ties`` is the rule the reported number used, or several (a sequence, or names separated
    by commas or blanks) when the paper reports the measure under several rules: the
    tie-breaking item then discloses each (attention if any depends on the input), the
    permutation test shuffles the lines under each (its worst change over them), and the
    sensitivity item lists them beside the usual five.
    """
    (m,) = parse_measures([measure])
    reported = check_rules(ties, api="runs")
    permutation = check_option(permutation, "permutation", PermutationOptions)
    sensitivity = check_option(sensitivity, "sensitivity", SensitivityOptions)
    if sensitivity.rules != DEFAULT_SENSITIVITY.rules:
        raise ValueError(
            "sensitivity.rules does not apply to run_checklist (it compares the reported rules "
            "with trec_eval, input_order, expected, pessimistic and optimistic); name another "
            "rule in ties="
        )
    n_permutations, tolerance = permutation.n_permutations, sensitivity.tolerance
    rules = list(
        dict.fromkeys(
            [*reported, "trec_eval", "input_order", "expected", "pessimistic", "optimistic"]
        )
    )
    audit = audit_run(
        run, qrels, [m], ties=rules, relevance_level=relevance_level, complete=complete, seed=seed
    )
    if audit.n_queries == 0:  # what audit and compare refuse: no number to fill a checklist with
        raise ValueError("no query is in both the run and the qrels: nothing to report")
    batch = join_run_qrels(run, qrels, relevance_level=relevance_level, complete=complete)
    depth = np.diff(batch.offsets)
    judged_share = float((batch.gains > 0).mean()) if len(batch.gains) else 0.0
    facts1 = {
        "n_queries": audit.n_queries,
        "depth_min": int(depth.min()) if len(depth) else 0,
        "depth_median": float(np.median(depth)) if len(depth) else 0.0,
        "depth_max": int(depth.max(initial=0)),
        "share_retrieved_with_gain": judged_share,
        "missing": ["retrieval depth policy", "filters", "deduplication"],
    }
    depth_text = (
        f"{facts1['depth_max']:,} documents per query (every query)"
        if facts1["depth_min"] == facts1["depth_max"]
        else f"{facts1['depth_median']:,g} documents per query (median; from "
        f"{facts1['depth_min']:,} to {facts1['depth_max']:,})"
    )
    item1 = ChecklistItem(
        "candidate_set",
        "Candidate set",
        "missing",
        f"A retrieval run over {audit.n_queries:,} judged queries, {depth_text}; "
        f"{judged_share:.1%} of retrieved documents have a positive label. Not disclosed by a run "
        "file: how the candidates were formed (depth cut-off, filters, deduplication).",
        facts1,
    )
    vals = {rule: float(audit.aggregated(rule)[0]) for rule in audit.values}
    layout = layout_facts(batch.offsets, batch.scores, batch.relevant)
    status2, answer2, facts2 = presort_item(
        layout,
        present_effect(str(m), vals["input_order"], vals["expected"], tolerance),
        {
            "input_order": vals["input_order"],
            "expected": vals["expected"],
            "difference": vals["input_order"] - vals["expected"],
            "tolerance": tolerance,
        },
    )
    item2 = ChecklistItem("presort_order", "Pre-sort candidate order", status2, answer2, facts2)
    moved, any_tie = audit.moved_share()[str(m)], audit.any_tie_share()
    item3 = ChecklistItem(
        "tie_prevalence",
        "Tie prevalence",
        "warn" if moved > 0 else "ok",
        f"Queries with tied scores: {share_text(any_tie)}; with a tie that moves {m}: "
        f"{share_text(moved)}.",
        {"any_tie": any_tie, "measure_moving_tie": moved},
    )
    declared = [rule(t) for t in reported]
    answer4 = "; ".join(
        f"Reported rule '{d.name}': {d.describe.format(seed=seed, n_repeats=1)}" for d in declared
    )
    item4 = ChecklistItem(
        "tie_breaking",
        "Tie-breaking rule",
        "warn" if any(d.input_dependent for d in declared) else "ok",
        answer4 + ".",
        {"tie_rule": reported[0], "tie_rules": reported, "seed": seed},
    )
    rng = np.random.default_rng(permutation.seed)
    changes = []
    for _ in range(n_permutations):
        perm = rng.permutation(len(run))
        shuffled = Run(run.query.take(perm), run.docno.take(perm), run.score[perm], run.source)
        other = audit_run(
            shuffled,
            qrels,
            [m],
            ties=reported,
            relevance_level=relevance_level,
            complete=complete,
            seed=seed,
        )
        changes += [abs(float(other.aggregated(t)[0]) - vals[t]) for t in reported]
    worst = max(changes, default=0.0)
    item5 = ChecklistItem(
        "permutation_test",
        "Permutation test",
        "ok" if worst <= 1e-12 else "warn",
        (
            f"Row-order invariant: {n_permutations} shuffles of the run's lines changed no result."
            if worst <= 1e-12
            else f"NOT order invariant: shuffling the lines moved {m} by up to {worst:.4f}."
        ),
        {
            "n_permutations": n_permutations,
            "permutation_seed": permutation.seed,
            "max_mean_change": worst,
        },
    )
    spread = vals["optimistic"] - vals["pessimistic"]
    listing = "; ".join(f"{r} {v:.4f}" for r, v in vals.items())
    item6 = ChecklistItem(
        "sensitivity",
        "Sensitivity analysis",
        "warn" if spread > tolerance else "ok",
        f"{m} by tie rule: {listing} (envelope {spread:.4f}).",
        {"by_rule": vals, "envelope": spread, "tolerance": tolerance},
    )
    return Checklist(items=(item1, item2, item3, item4, item5, item6), label=label)
