"""The checks a chapter reports, as records its results JSON lists under ``checks``.

A check is ``{name, kind, passed}``. ``kind`` says what kind of evidence it is:

* ``"test"``: it can fail, and a unit test shows that a perturbed input makes it fail
  (``unit_test`` names that test);
* ``"identity"``: it holds by construction (for example, input order *is* the optimistic bound
  when the relevant item is stored first). The page says so in words and does not present it as
  evidence; ``passed`` is what the run computed, which for an identity can only be true.

The checks several chapters share are built here: :func:`hash_agreement_checks` (the hash mean
within two standard errors of the exact expectation: a test, or an identity where no relevant
item is tied, since every tie order then gives the same metric) and
:func:`permutation_checks` (row-order invariance: an identity for every rule that never reads
a row's position, the expectation, the bounds, the hash and the seeded random draw; a test,
expected to fail, for input order).

Chapter-specific checks, each a test with the unit test that makes it fail:
:func:`closed_form_checks` (chapter 02: the closed form against enumeration, scikit-learn and
Monte Carlo), :func:`sampled_p_check` (chapter 16: sampled sign flips against enumeration),
:func:`shared_rows_check` (chapter 12: its Table 1 rows shared with chapter 11 are equal) and
:func:`early_stop_check` (chapter 12: an encoder stopped on validation before its epoch cap).

Public API: :func:`falsifiable_check`, :func:`identity_check`, :func:`validate_checks`,
:func:`hash_agreement_checks`, :func:`permutation_checks`, :func:`closed_form_checks`,
:func:`sampled_p_check`, :func:`shared_rows_check`, :func:`early_stop_check`.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any

from rankaudit.measures.rules import rule
from rankaudit.runs.decision import MATCHES_EXPECTATION, expectation_verdict

__all__ = [
    "CHECK_KINDS",
    "HASH_AGREEMENT_TEST",
    "PERMUTATION_TEST",
    "closed_form_checks",
    "early_stop_check",
    "falsifiable_check",
    "hash_agreement_checks",
    "identity_check",
    "permutation_checks",
    "sampled_p_check",
    "shared_rows_check",
    "validate_checks",
]

_CHECKS_TEST = "tests/report/test_chapter_checks.py::"
#: Floating-point agreement: two exact computations of one number differ by rounding only.
EXACT_TOL = 1e-9

#: The unit test in which shifted hash runs make the agreement check fail.
HASH_AGREEMENT_TEST = (
    "tests/audit/test_hash_agreement.py::"
    "test_within_se_fails_when_the_hash_runs_are_shifted_off_the_expectation"
)
#: The unit test in which an evaluator that reads positions fails the permutation audit.
PERMUTATION_TEST = "tests/ties/test_invariance.py::test_audit_flags_input_order_and_passes_hash"

#: The kinds of check a page may report.
CHECK_KINDS = ("test", "identity")


def falsifiable_check(name: str, passed: bool, unit_test: str) -> dict[str, Any]:
    """A check that can fail; ``unit_test`` is the test that makes it fail on a perturbed input."""
    return _record(name, "test", passed, unit_test=unit_test)


def identity_check(name: str, passed: bool, why: str) -> dict[str, Any]:
    """A check that holds by construction; ``why`` says why, as the page does in words."""
    return _record(name, "identity", passed, why=why)


def _record(name: str, kind: str, passed: object, **extra: str) -> dict[str, Any]:
    record = {"name": name, "kind": kind, "passed": passed, **extra}
    validate_checks([record])
    return record


def validate_checks(checks: Sequence[Mapping[str, Any]]) -> list[dict[str, Any]]:
    """Refuse a malformed ``checks`` list with a one-line error naming the entry; return it."""
    if isinstance(checks, (str, bytes, Mapping)) or not isinstance(checks, Sequence):
        raise ValueError(f"checks must be a list of check records, got {type(checks).__name__}")
    out = []
    names = set()
    for i, c in enumerate(checks):
        where = f"checks[{i}]"
        if not isinstance(c, Mapping):
            raise ValueError(f"{where} must be a mapping with name, kind and passed")
        name, kind, passed = c.get("name"), c.get("kind"), c.get("passed")
        if not isinstance(name, str) or not name:
            raise ValueError(f"{where}: name must be a non-empty string")
        if name in names:
            raise ValueError(f"{where}: the check name {name!r} appears twice")
        names.add(name)
        if kind not in CHECK_KINDS:
            raise ValueError(f"{where} ({name}): kind must be one of {CHECK_KINDS}, got {kind!r}")
        if not isinstance(passed, bool):
            raise ValueError(f"{where} ({name}): passed must be true or false, got {passed!r}")
        if kind == "test" and not c.get("unit_test"):
            raise ValueError(f"{where} ({name}): a test check names the unit test that fails it")
        if kind == "identity" and not c.get("why"):
            raise ValueError(f"{where} ({name}): an identity says why it holds by construction")
        out.append(dict(c))
    return out


def hash_agreement_checks(rows: Sequence[Mapping[str, Any]]) -> list[dict[str, Any]]:
    """One check per score: the ``verdict`` of :func:`rankbook.audit.tables.hash_agreement`
    (the book's one expectation rule, ``|z| <= z_agree``).

    ``rows``: records with ``score`` (optional), ``verdict``, ``z_agree`` and
    ``no_relevant_ties``.
    """
    out = []
    for r in rows:
        agrees = r["verdict"] == MATCHES_EXPECTATION
        name = (
            f"hash mean within |z| <= {float(r['z_agree']):g} of the expectation "
            f"({r.get('score', 'score')})"
        )
        if r["no_relevant_ties"]:
            out.append(
                identity_check(
                    name,
                    agrees,
                    "no relevant item is tied, so every tie order gives the same metric",
                )
            )
        else:
            out.append(falsifiable_check(name, agrees, HASH_AGREEMENT_TEST))
    return out


def permutation_checks(invariant: Mapping[str, bool]) -> list[dict[str, Any]]:
    """Row-order invariance per tie rule, its kind read off the rule's declaration
    (:data:`rankaudit.measures.rules.RULES`): a rule that never reads how the input was written
    is invariant by construction, so its check is an identity (what the permutation audit tests
    there is the implementation, not the rule); a rule that reads it (input order) is a test,
    expected to fail (its ``passed`` is false).
    """
    out = []
    for name, ok in invariant.items():
        check = f"row-order invariance ({name})"
        declared = rule(name)
        if declared.input_dependent:
            out.append(falsifiable_check(check, bool(ok), PERMUTATION_TEST))
        else:
            why = (
                f"{name} ({declared.summary}) never reads a row's position, so no row order "
                "can move it; the audit checks that the implementation follows the rule"
            )
            out.append(identity_check(check, bool(ok), why))
    return out


def closed_form_checks(
    err_enumeration: float, err_sklearn: float, max_z: float, z_chance: float
) -> list[dict[str, Any]]:
    """Chapter 02: the closed form equals enumeration and scikit-learn to :data:`EXACT_TOL`, and
    the largest Monte Carlo ``|z|`` agrees with its expectation at the family's threshold
    ``z_chance`` (:func:`rankaudit.runs.decision.family_z`; the verdict is
    :func:`rankaudit.runs.decision.expectation_verdict`'s)."""
    return [
        falsifiable_check(
            "closed form equals enumeration (mean and variance)",
            bool(err_enumeration <= EXACT_TOL),
            _CHECKS_TEST + "test_closed_form_checks_fail_for_a_shifted_formula",
        ),
        falsifiable_check(
            "closed form equals scikit-learn's tie-averaged NDCG",
            bool(err_sklearn <= EXACT_TOL),
            _CHECKS_TEST + "test_closed_form_checks_fail_for_a_shifted_formula",
        ),
        falsifiable_check(
            "Monte Carlo means within the chance bound of the formula",
            expectation_verdict(max_z, z_max=z_chance) == MATCHES_EXPECTATION,
            _CHECKS_TEST + "test_closed_form_checks_fail_for_a_shifted_formula",
        ),
    ]


def sampled_p_check(p_exact: float, p_sampled: float, n_perm: int, *, z: float = 4.0):
    """Chapter 16: the sampled sign-flip p-value lies within ``z`` binomial standard errors
    (plus the ``1/(P+1)`` of its +1 convention) of the exact p-value over every sign vector."""
    se = math.sqrt(p_exact * (1 - p_exact) / n_perm)
    ok = abs(p_sampled - p_exact) <= z * se + 1 / (n_perm + 1)
    return falsifiable_check(
        "sampled sign-flip p-value agrees with enumeration",
        bool(ok),
        _CHECKS_TEST + "test_sampled_p_check_fails_for_a_wrong_sampler",
    )


def shared_rows_check(
    ours: Sequence[Mapping[str, Any]],
    theirs: Sequence[Mapping[str, Any]],
    columns: Sequence[str] = ("lift_pct", "ci_low", "ci_high", "p_value"),
) -> tuple[float, dict[str, Any]]:
    """Chapter 12: the largest difference between its Table 1 rows and chapter 11's rows of the
    same variant, and the check that it is at most :data:`EXACT_TOL`. Refuses no shared row."""
    by = {r["variant"]: r for r in theirs}
    shared = [r for r in ours if r["variant"] in by]
    if not shared:
        raise ValueError("shared_rows_check: the two tables share no variant")
    gap = max(abs(float(r[c]) - float(by[r["variant"]][c])) for r in shared for c in columns)
    check = falsifiable_check(
        "Table 1 rows shared with chapter 11 are equal",
        bool(gap <= EXACT_TOL),
        _CHECKS_TEST + "test_shared_rows_check_fails_when_a_row_differs",
    )
    return gap, check


def early_stop_check(encoder: str, best_epoch: int, epoch_cap: int) -> dict[str, Any]:
    """Chapter 12: the encoder's kept epoch is below its epoch cap (validation stopped improving
    before the cap ended training)."""
    return falsifiable_check(
        f"{encoder} encoder stopped on validation before its epoch cap",
        bool(int(best_epoch) < int(epoch_cap)),
        _CHECKS_TEST + "test_early_stop_check_fails_at_the_cap",
    )
