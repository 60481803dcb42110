"""The blank reporting checklist (Guo et al., 2026, §6), as Markdown to fill by hand."""

from __future__ import annotations

__all__ = ["SECTIONS", "checklist_template"]

SECTIONS = (
    ("candidate_set", "Candidate set"),
    ("presort_order", "Pre-sort candidate order"),
    ("tie_prevalence", "Tie prevalence"),
    ("tie_breaking", "Tie-breaking rule"),
    ("permutation_test", "Permutation test"),
    ("sensitivity", "Sensitivity analysis"),
)


def checklist_template() -> str:
    """A blank Markdown template of the six parts, for readers to fill in for their own work."""
    prompts = {
        "candidate_set": "sampled or full catalog? candidates per row; how negatives were sampled; "
        "exclusions; deduplication; seeds",
        "presort_order": "where is the relevant item stored before sorting? are rows shuffled? "
        "with which seed?",
        "tie_prevalence": "fraction of rows with exact ties; with a tie across the top-k boundary; "
        "with the relevant item tied",
        "tie_breaking": "rule; for a hash: key inputs, seed policy, collision fallback; for "
        "random: runs and spread",
        "permutation_test": "permute each row's candidates N times: did any result change? by how "
        "much?",
        "sensitivity": "the metric under input order, hash, expected, and the "
        "pessimistic/optimistic bounds",
    }
    lines = ["**Tie-reporting checklist** (fill in)", ""]
    for n, (key, title) in enumerate(SECTIONS, start=1):
        lines.append(f"{n}. **{title}**: _{prompts[key]}_ ...")
    return "\n".join(lines) + "\n"
