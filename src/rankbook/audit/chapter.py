"""One runner for the Part II audit chapters (Table 2 and Table 3), and its replay.

:func:`run_audit_chapter` prepares the data (:mod:`~rankbook.audit.prepare`), saves the
row-level parquet (:mod:`~rankbook.audit.rowfiles`) and computes every aggregate from those
arrays alone (:mod:`~rankbook.audit.tables`). The results it returns record *how* they were
computed under ``audit_spec`` (function and arguments); :func:`recompute_results` replays that
spec on the parquet file, so each number of a results file can be checked exactly (the paper
could do this for Amazon but not for MovieLens, Guo et al. 2026, §4.3).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Literal

from rankaudit._json import to_jsonable
from rankbook.audit.prepare import AuditRun, prepare_audit
from rankbook.audit.rowfiles import load_rows, save_rows
from rankbook.audit.tables import audit_results, table3_results
from rankbook.paths import results_dir
from rankbook.scores import FAMILIES

__all__ = ["recompute_results", "run_audit_chapter"]


def run_audit_chapter(
    stem: str,
    dataset: str,
    *,
    table: Literal["table2", "table3"] = "table2",
    score: str | None = None,
    data_dir: str | Path | None,
    n_rows: int | str | None,
    n_negatives: int,
    seed: int,
    k: int,
    n_hash_seeds: int,
    n_permutations: int = 0,
    n_boot: int = 1000,
    simulate: dict | None = None,
) -> tuple[AuditRun, dict[str, Any]]:
    """Prepare the audit, save its row-level parquet and compute every aggregate from the arrays.

    ``table="table2"``: every score family, Table 2 (:func:`~rankbook.audit.tables.audit_results`).
    ``table="table3"``: one ``score``, hash seeds vs the exact expectation with row-order audits
    (:func:`~rankbook.audit.tables.table3_results`).

    ``n_boot``: row-bootstrap resamples of the CIs on every cell and Δ from input order.

    The returned results dict is ready for :func:`rankbook.report.write_results`: the aggregates
    plus ``rows_file``, ``candidate_policy`` and the ``audit_spec`` that
    :func:`recompute_results` replays on the parquet file.
    """
    if table not in ("table2", "table3"):
        raise ValueError(f"table must be 'table2' or 'table3', got {table!r}")
    if table == "table3" and score not in FAMILIES:
        raise ValueError(f"score must be one of {list(FAMILIES)}, got {score!r}")
    run = prepare_audit(
        dataset,
        data_dir=data_dir,
        n_rows=n_rows,
        n_negatives=n_negatives,
        seed=seed,
        families=[score] if table == "table3" else None,
        simulate=simulate,
    )
    path = save_rows(stem, run.rows, run.scores)
    if table == "table2":
        args = {
            "k": k,
            "seed": seed,
            "n_hash_seeds": n_hash_seeds,
            "dataset": dataset,
            "data_source": run.source.label(),
            "n_boot": n_boot,
        }
        spec = {"function": "audit_results", "args": {**args, "scores": list(run.scores)}}
    else:
        args = {
            "k": k,
            "seed": seed,
            "n_hash_seeds": n_hash_seeds,
            "n_permutations": n_permutations,
            "score_name": score,
            "dataset": dataset,
            "n_boot": n_boot,
        }
        spec = {"function": "table3_results", "args": args}
    results = _replay(spec, run.rows, run.scores)
    results.update(rows_file=path.name, candidate_policy=run.rows.policy, audit_spec=spec)
    return run, results


def _replay(spec: dict[str, Any], rows, scores) -> dict[str, Any]:
    args = dict(spec["args"])
    if spec["function"] == "audit_results":
        return audit_results(rows, {n: scores[n] for n in args.pop("scores")}, **args)
    if spec["function"] == "table3_results":
        return table3_results(rows, scores[args["score_name"]], **args)
    raise ValueError(f"unknown audit_spec function {spec['function']!r}")


def recompute_results(stem: str, directory: Path | None = None) -> dict[str, Any]:
    """Recompute every aggregate of ``<stem>.json`` from ``<stem>_rows.parquet``.

    Returns the recomputed entries (JSON-ready), to compare with the stored ones.
    """
    directory = directory or results_dir()
    stored = json.loads((directory / f"{stem}.json").read_text(encoding="utf-8"))
    spec = stored.get("audit_spec")
    if not spec:
        raise ValueError(f"{stem}.json has no 'audit_spec': it was not written by an audit chapter")
    rows, scores = load_rows(directory / stored["rows_file"])
    return to_jsonable(_replay(spec, rows, scores))
