"""Grade a student's reruns against an exercise sheet.

A sheet's exercise names the chapter to rerun, its parameters and its ``--out`` folder
(``~/rerun/s1-2``); the student's ``FOLDER`` stands for ``~/rerun``. For each exercise the
grader reads ``FOLDER/<out>/<chapter>.json`` and checks, each check right or wrong with what was
expected:

* the results file is there and the run used the sheet's parameters (read from the sheet, so a
  sheet's edit is graded as written);
* every key the exercise's ``**Read:**`` line names is in the results;
* the exercise's answer (:data:`ANSWERS`): values the library computes from the same functions
  and parameters the sheet asks about (a closed form, a multiple-testing adjustment, the grid of
  a sweep), and the relations the solution states (a bound, an equality between two folders).

A code exercise (a Python block, no results file) is reported as not graded.
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from rankaudit.measures.row_reference import single_relevant_moments
from rankaudit.runs.significance import bh_adjust, holm_adjust
from rankbook.course.sheets import SheetItem, parse_sheet
from rankbook.report.chapter_source import parse_cli_value

__all__ = ["ANSWERS", "Check", "format_report", "grade_sheet", "out_folder"]

_TOL = 1e-9


@dataclass(frozen=True)
class Check:
    """One graded check of one exercise."""

    label: str
    what: str
    ok: bool | None  # None: not graded
    expected: str
    found: str


Record = Mapping[str, Any]
Answer = Callable[[Record, Callable[[str], Record | None]], list[Check]]


def _close(a: float, b: float) -> bool:
    return math.isclose(float(a), float(b), rel_tol=_TOL, abs_tol=_TOL)


def _value(label: str, what: str, found: Any, expected: float) -> Check:
    ok = found is not None and _close(found, expected)
    return Check(label, what, ok, repr(float(expected)), f"{found!r}")


def _relation(label: str, what: str, ok: bool, expected: str, found: Any) -> Check:
    return Check(label, what, bool(ok), expected, f"{found!r}")


def _s1_1(rec: Record, _other) -> list[Check]:
    k, n = rec["params"]["k"], rec["params"]["n_negatives"] + 1
    moments = single_relevant_moments(g=0, t=n, k=k)
    return [
        _value("s1-1", f"all_tied_expected_ndcg{k} (the closed form, t = {n})",
               rec.get(f"all_tied_expected_ndcg{k}"), moments.loc[f"nDCG@{k}", "mean"]),
        _value("s1-1", f"all_tied_input_order_ndcg{k} (the stable sort)",
               rec.get(f"all_tied_input_order_ndcg{k}"), 1.0),
    ]  # fmt: skip


def _s1_2(rec: Record, _other) -> list[Check]:
    k, t = rec["params"]["k"], rec["params"]["n_negatives"] + 1
    moments = single_relevant_moments(g=0, t=t, k=k)
    return [
        _value("s1-2", f"all_tied_expected_{name}{k} (eq-hr / eq-ndcg, g = 0, t = {t})",
               rec.get(f"all_tied_expected_{name}{k}"), moments.loc[f"{measure}@{k}", "mean"])
        for name, measure in (("hr", "Success"), ("ndcg", "nDCG"))
    ]  # fmt: skip


def _s1_3(rec: Record, _other) -> list[Check]:
    rules = rec.get("mean_ndcg10_by_rule") or {}
    low, high = rules.get("pessimistic", math.nan), rules.get("optimistic", math.nan)
    inside = all(low - _TOL <= v <= high + _TOL for v in rules.values())
    return [
        _relation("s1-3", "every rule between pessimistic and optimistic", inside and rules,
                  "pessimistic <= each rule <= optimistic", rules),
        _relation("s1-3", "input order equals the optimistic rule (relevant stored first)",
                  _close(rules.get("input_order", math.nan), high), f"{high!r}",
                  rules.get("input_order")),
    ]  # fmt: skip


def _s1_4(rec: Record, other) -> list[Check]:
    key = "hash_seed_spread_theory_ndcg10"
    before = other("s1-3")
    if before is None:
        return [Check("s1-4", f"{key} as in s1-3", None, "the s1-3 folder", "missing")]
    return [_value("s1-4", f"{key} equals s1-3's (a property of the rows, not of the seeds)",
                   rec.get(key), before[key])]  # fmt: skip


def _s2_1(rec: Record, _other) -> list[Check]:
    ret, sw = rec.get("share_later_queries_returned"), rec.get("share_later_queries_switched")
    return [_relation("s2-1", "returned share at most the switched share",
                      ret is not None and sw is not None and ret <= sw, f"<= {sw!r}", ret)]


def _s2_2(rec: Record, _other) -> list[Check]:
    mrr = rec.get("single_feature_mrr_sale") or {}
    return [
        _value("s2-2", f"single_feature_mrr_sale.{kind}_l5c equals {kind}_lc (one click)",
               mrr.get(f"{kind}_l5c"), mrr.get(f"{kind}_lc", math.nan))
        for kind in ("ncd", "cossim")
    ]  # fmt: skip


def _s2_3(rec: Record, _other) -> list[Check]:
    p = rec["params"]
    grid = np.linspace(0.0, p["sweep_max"], p["sweep_points"])
    found = sorted({row["p_switch"] for row in rec.get("context_sweep", [])})
    ok = len(found) == len(grid) and np.allclose(found, grid)
    return [_relation("s2-3", "context_sweep's p_switch grid", ok, f"{grid.tolist()}", found)]


def _s2_6(rec: Record, _other) -> list[Check]:
    epochs = rec["params"]["epochs"]
    best = {name: enc.get("best_epoch") for name, enc in (rec.get("encoders") or {}).items()}
    ok = bool(best) and all(b is not None and b <= epochs for b in best.values())
    return [_relation("s2-6", "every encoder's best_epoch within the epochs run", ok,
                      f"<= {epochs}", best)]  # fmt: skip


def _adjusted(label: str) -> Answer:
    def answer(rec: Record, _other) -> list[Check]:
        table = rec.get("table") or []
        p = np.array([row["p_value"] for row in table], dtype=float)
        checks = [_relation(label, "one row per variant", len(table) == rec["params"]["n_variants"],
                            f"{rec['params']['n_variants']} rows", len(table))]
        for column, adjust in (("p_holm", holm_adjust), ("p_bh", bh_adjust)):
            want = adjust(p) if len(p) else p
            got = np.array([row.get(column, math.nan) for row in table], dtype=float)
            checks.append(_relation(label, f"{column} = {adjust.__name__}(p_value)",
                                    len(got) and np.allclose(got, want, rtol=0, atol=_TOL),
                                    f"{np.round(want, 6).tolist()}", np.round(got, 6).tolist()))
        return checks  # fmt: skip

    return answer


def _s3_4(rec: Record, _other) -> list[Check]:
    return [_relation("s3-4", "n_queries equals n_users", rec.get("n_queries") ==
                      rec["params"]["n_users"], f"{rec['params']['n_users']}",
                      rec.get("n_queries"))]  # fmt: skip


def _s3_5(rec: Record, _other) -> list[Check]:
    rows = rec.get("table1") or []
    seeds = rec["params"]["n_seeds"]
    ok = bool(rows) and all(
        row.get("n_seeds") == seeds
        and row["lift_seed_min"] - _TOL <= row["lift_seed_mean"] <= row["lift_seed_max"] + _TOL
        for row in rows
    )
    return [_relation("s3-5", f"every table1 row averages {seeds} ranker seeds, mean within "
                      "[lift_seed_min, lift_seed_max]", ok, f"n_seeds = {seeds}",
                      [row.get("n_seeds") for row in rows])]  # fmt: skip


#: Each exercise's answer checks, by label, beyond the parameters and keys every run is checked
#: for.
ANSWERS: dict[str, Answer] = {
    "s1-1": _s1_1, "s1-2": _s1_2, "s1-3": _s1_3, "s1-4": _s1_4,
    "s2-1": _s2_1, "s2-2": _s2_2, "s2-3": _s2_3, "s2-6": _s2_6,
    "s3-1": _adjusted("s3-1"), "s3-2": _adjusted("s3-2"), "s3-4": _s3_4, "s3-5": _s3_5,
}  # fmt: skip


def out_folder(folder: Path, out: str) -> Path:
    """The student's folder for a sheet's ``--out ~/rerun/s1-2``: ``FOLDER/s1-2``."""
    parts = Path(out.replace("\\", "/")).parts
    return Path(folder).joinpath(*parts[2:] if parts[:1] == ("~",) else parts[-1:])


def _read(item: SheetItem, folder: Path) -> Record | None:
    if not item.runs:
        return None
    chapter, _, out = item.runs[-1]
    path = out_folder(folder, out) / f"{chapter}.json"
    return json.loads(path.read_text(encoding="utf-8")) if path.is_file() else None


def _grade_item(item: SheetItem, folder: Path, other) -> list[Check]:
    if not item.runs:
        return [Check(item.label, "a code exercise", None, "its printed output", "not graded")]
    chapter, params, out = item.runs[-1]
    path = out_folder(folder, out) / f"{chapter}.json"
    record = _read(item, folder)
    if record is None:
        return [Check(item.label, "results file", False, str(path), "missing")]
    used = record.get("params", {})
    checks = [
        _relation(item.label, f"parameter {key}", used.get(key) == parse_cli_value(value),
                  f"{parse_cli_value(value)!r}", used.get(key))
        for key, value in params.items()
    ]  # fmt: skip
    missing = [key for key in item.keys if key not in record]
    checks.append(_relation(item.label, "keys named on the Read line", not missing,
                            "all present", f"missing {missing}" if missing else "all present"))
    if item.label in ANSWERS and not missing:
        # What the sheet asks for: its parameters over the run's others (the chapter's defaults).
        asked = {**used, **{key: parse_cli_value(value) for key, value in params.items()}}
        checks += ANSWERS[item.label]({**record, "params": asked}, other)
    return checks


def grade_sheet(sheet: Path, folder: Path) -> list[Check]:
    """Every check of every exercise of ``sheet`` on the reruns under ``folder``."""
    folder = Path(folder).expanduser()
    if not folder.is_dir():
        raise ValueError(f"{folder} is not a folder (the student's ~/rerun)")
    items = parse_sheet(Path(sheet).read_text(encoding="utf-8"))
    if not items:
        raise ValueError(f"{sheet} has no exercises")
    by_label = {item.label: item for item in items}

    def other(label: str) -> Record | None:
        return _read(by_label[label], folder) if label in by_label else None

    return [check for item in items for check in _grade_item(item, folder, other)]


def format_report(checks: list[Check]) -> str:
    """One line per check: RIGHT, WRONG or NOT GRADED, what, expected and found; a summary."""
    word = {True: "RIGHT", False: "WRONG", None: "NOT GRADED"}
    lines = [
        f"{check.label:6} {word[check.ok]:10} {check.what}: expected {check.expected}, "
        f"found {check.found}"
        for check in checks
    ]
    right = sum(check.ok is True for check in checks)
    graded = sum(check.ok is not None for check in checks)
    lines.append(f"{right} of {graded} checks right")
    return "\n".join(lines)
