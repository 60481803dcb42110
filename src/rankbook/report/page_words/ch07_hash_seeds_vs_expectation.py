"""Chapter 07's computed words: whether the hash-seed mean agrees with the exact expectation
by the book's one expectation rule (``|z| <= z_agree``, :mod:`rankaudit.runs.decision`),
whether each rule's permutation check moved a row by more than ``1e-12``, whether any key
collided, how the run relates to the paper's setting, how the audit's rows relate to the eligible
users and the requested ``n_rows`` (:func:`rows_choice`), and the expected collisions and the
tolerance in powers of ten ("3.8 × 10⁻¹⁴", "10⁻¹²": :func:`rankbook.report.prose.power_of_ten`).

Public API: :func:`words` and :data:`DEPENDS` (see :mod:`rankbook.report.page_words`).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from rankaudit.runs.decision import MATCHES_EXPECTATION
from rankbook.report.prose import direction_word, power_of_ten
from rankbook.report.prose_limits import within_word

__all__ = ["ATOL", "DEPENDS", "rows_choice", "words"]

#: the largest per-row change the permutation check counts as "no change" (ties/invariance).
ATOL = 1e-12


def _perm(results: Mapping[str, Any], rule: str) -> Mapping[str, Any]:
    for row in results["permutation"]:
        if row["tie_rule"] == rule:
            return row
    raise KeyError(f"results['permutation'] has no tie rule {rule!r}")


def rows_choice(policy: Mapping[str, Any], param: str = "n_rows") -> str:
    """How the rows were chosen from the eligible users of a candidate policy
    (:func:`rankbook.data.candidates.build_candidate_rows`): every one of them when the
    parameter ``param`` asks for all, or for as many or more than there are (saying whether that
    is fewer than asked), or a random sample of that many. One whole clause."""
    requested, eligible = policy["n_rows_requested"], int(policy["n_eligible"])
    if requested is None:
        return f'the audit takes every one of them (parameter {param} is "all")'
    if int(requested) < eligible:
        return f"the audit draws as many as parameter {param} asks for, at random"
    if int(requested) == eligible:
        return f"the audit takes every one of them, exactly as many as parameter {param} asks for"
    return f"the audit takes every one of them, fewer rows than parameter {param} asks for"


def _setting(results: Mapping[str, Any]) -> str:
    params, simulated = results["params"], results["data_source"]["kind"] != "real"
    if params["dataset"] != "amazon" or params["score"] != "weighted":
        return (
            "not the paper's Table 3 setting, so the paper's Table 2 column is for orientation "
            "only"
        )
    if not simulated:
        return "the paper's Table 3 configuration (Amazon, weighted overlap) on real Amazon rows"
    return (
        "the paper's Table 3 configuration (Amazon, weighted overlap) on SIMULATED rows, not the "
        "paper's data, so the paper's Table 2 column is a target for the simulator, not a "
        "replication"
    )


def words(results: Mapping[str, Any]) -> dict[str, str]:
    """The words chapter 07 glues, from its results dict alone."""
    verdict = str(results["table3"]["verdict"])  # hash_agreement's, by the one rule
    hash_inv = within_word(_perm(results, "hash")["max_row_change"], ATOL)
    exp_inv = within_word(_perm(results, "expected")["max_row_change"], ATOL)
    io_change = _perm(results, "input_order")["max_mean_change"]
    kind = "simulated" if results["data_source"]["kind"] != "real" else "real"
    return {
        "verdict": verdict,
        "z_supports": "supports" if verdict == MATCHES_EXPECTATION else "does not support",
        "hash_inv": hash_inv,
        "exp_inv": exp_inv,
        "inv_sentence": "neither moved at all"
        if hash_inv == exp_inv == "yes"
        else "at least one of them moved, which contradicts its design: inspect the table",
        "io_moves": direction_word(io_change, tol=ATOL, words=("moves", "moves", "does not move")),
        "collision_words": direction_word(
            results["collisions"]["collisions"],
            words=("occurred", "occurred", "did not occur"),
        ),
        "dataset_label": f"{results['params']['dataset']} ({kind})",
        "expected_collisions_text": power_of_ten(results["collisions"]["expected_collisions"], 1),
        "atol_text": power_of_ten(ATOL, 0),
        "paper_comparable": _setting(results),
        "rows_choice": rows_choice(results["candidate_policy"]),
    }


def DEPENDS(results: Mapping[str, Any]) -> list[tuple[str, int | None, str]]:  # noqa: N802
    """The hash-mean verdict, the collision count and its expectation, input order's largest
    mean change, the hash's and the expectation's largest row change and the requested rows."""
    rules = [row["tie_rule"] for row in results["permutation"]]
    return [
        ("table3", None, "verdict"),
        ("collisions", None, "collisions"),
        ("collisions", None, "expected_collisions"),
        ("permutation", rules.index("input_order"), "max_mean_change"),
        ("permutation", rules.index("hash"), "max_row_change"),
        ("permutation", rules.index("expected"), "max_row_change"),
        ("candidate_policy", None, "n_rows_requested"),
    ]
