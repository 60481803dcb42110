"""Chapter 04's computed words: each quoted evaluator's observed tie rule and invariance verdict
(its largest row change under permutation against the audit's ``atol``, stated on the page), how
many evaluators are invariant, how many could be audited at all, and which way ``np.argsort``'s
unstable order leans (relevant-first against relevant-last); the two tolerances in powers of ten
("10⁻¹²", :func:`rankbook.report.prose.power_of_ten`).

An evaluator the page quotes but could not audit (its library missing) reads "not audited".

Public API: :data:`PEER_NAMES`, :func:`words` and :data:`DEPENDS` (see
:mod:`rankbook.report.page_words`).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from rankbook.report.prose import (
    count_phrase,
    difference_phrase,
    direction_word,
    flag_word,
    power_of_ten,
)
from rankbook.report.prose_rules import threshold_word

__all__ = ["DEPENDS", "PEER_NAMES", "words"]

#: The evaluators chapter 04's prose quotes by name (``rankbook.ties.peers`` and
#: ``rankbook.ties.recsys_peers`` keys).
PEER_NAMES = (
    "sklearn_ndcg",
    "sklearn_ndcg_ignore_ties",
    "sklearn_top_k_accuracy",
    "ranx",
    "pytrec_eval",
    "torchmetrics",
    "recbole_topk",
    "python_sorted",
    "numpy_argsort",
    "numpy_argsort_stable",
    "cornac",
    "implicit",
    "recbole",
)


def _invariant(detail: Mapping[str, Any]) -> str:
    return threshold_word(
        detail["max_row_change"], detail["atol"], inclusive=True, words=("yes", "no")
    )


def words(results: Mapping[str, Any]) -> dict[str, str]:
    """The words chapter 04 glues, from its results dict alone."""
    details = results["peer_audit_details"]
    by_name = {d["name"]: d for d in details}
    out: dict[str, str] = {}
    for name in PEER_NAMES:
        d = by_name.get(name)
        out[f"{name}_rule"] = str(d["tie_rule_observed"]) if d else "not audited"
        out[f"{name}_invariant"] = _invariant(d) if d else "not audited"
    argsort = by_name.get("numpy_argsort")
    out["numpy_argsort_lean"] = (
        direction_word(
            argsort["relevant_first"] - argsort["relevant_last"],
            words=(
                "leans towards the input order",
                "leans against the input order",
                "leans neither way",
            ),
        )
        if argsort
        else "was not audited"
    )
    n_audited = len(details)
    n_invariant = sum(_invariant(d) == "yes" for d in details)
    verb = flag_word(n_invariant == 1 and n_audited == 1, words=("is", "are"))
    out["invariant_phrase"] = f"{count_phrase(n_invariant, n_audited)} {verb}"
    out["audited_phrase"] = count_phrase(
        n_audited, n_audited + len(results["peers_missing"]), "evaluators"
    )
    dev = results.get("torchmetrics_max_deviation")
    out["torch_dev_words"] = (
        difference_phrase(dev, "the float64 expectation")
        if dev is not None
        else "were not computed (torchmetrics is not installed)"
    )
    out["observed_atol_text"] = power_of_ten(results["observed_rule_atol"], 0)
    out["invariance_atol_text"] = power_of_ten(results["invariance_atol"], 0)
    return out


def DEPENDS(results: Mapping[str, Any]) -> list[tuple[str, int | None, str]]:  # noqa: N802
    """Every audited evaluator's largest row change (its verdict and the invariant count), and
    the two layouts of ``np.argsort`` (which way it leans)."""
    lean = [
        ("peer_audit_details", i, f)
        for i, d in enumerate(results["peer_audit_details"])
        if d["name"] == "numpy_argsort"
        for f in ("relevant_first", "relevant_last")
    ]
    return lean + [
        ("peer_audit_details", i, "max_row_change")
        for i in range(len(results["peer_audit_details"]))
    ]
