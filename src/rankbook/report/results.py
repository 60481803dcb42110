"""The machine-readable record of a chapter run: ``book/_build/results/<stem>.json``.

Results are stable and diffable: snake_case keys, sorted, full-precision floats, and
always ``params``, ``data_source``, ``rankaudit_version``, ``software`` (the git commit and
the package versions that produced them, :mod:`rankbook.report.environment`) and ``checks``
(every check the page reports, with its kind: :mod:`rankbook.report.checks`). Two runs with
the same parameters in the same checkout write byte-identical files. NaN or infinite values
are refused, never written. ``results.schema.json`` beside this module is the JSON Schema every
results file satisfies (:func:`results_schema`, checked by the tests).
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from rankaudit._json import to_jsonable
from rankaudit._version import __version__
from rankbook.paths import results_dir
from rankbook.report.checks import validate_checks
from rankbook.report.environment import software_record

__all__ = [
    "RESERVED_KEYS",
    "read_results",
    "results_dir",
    "results_schema",
    "to_jsonable",
    "write_results",
]

#: Keys every results file has, which a chapter's own results must not use.
RESERVED_KEYS = ("params", "data_source", "rankaudit_version", "software", "checks")

_SCHEMA = Path(__file__).with_name("results.schema.json")


def results_schema() -> dict[str, Any]:
    """The JSON Schema (draft 2020-12) of a chapter's results file."""
    return json.loads(_SCHEMA.read_text(encoding="utf-8"))


def write_results(
    stem: str,
    *,
    params: Mapping[str, Any],
    data_source: Any,
    results: Mapping[str, Any],
    checks: Sequence[Mapping[str, Any]],
) -> Path:
    """Write ``<results_dir>/<stem>.json`` and return its path.

    ``data_source`` is a :class:`rankbook.data.DataSource` (or a mapping of them for
    chapters that use several sources). ``checks`` lists the checks the page reports
    (:func:`rankbook.report.checks.test_check`, :func:`~rankbook.report.checks.identity_check`);
    it is required, and an empty list says the page reports none. ``results`` may hold the
    page's ``params`` under ``"params"`` (the dict its words cells read, see
    :func:`rankbook.report.glue.glue_words`); they must then equal ``params``.
    """
    checked = validate_checks(checks)
    if isinstance(data_source, Mapping):
        source = {name: to_jsonable(src.to_dict()) for name, src in data_source.items()}
    else:
        source = to_jsonable(data_source.to_dict())
    results = dict(results)
    if "params" in results:  # a page's results dict may carry its params for its words cells
        if to_jsonable(results.pop("params"), "params") != to_jsonable(params, "params"):
            raise ValueError("results: its 'params' differ from params=; pass the page's params")
    clash = set(RESERVED_KEYS) & set(results)
    if clash:
        raise ValueError(f"results must not use the reserved key(s) {sorted(clash)}.")
    record = {
        "params": to_jsonable(params, "params"),
        "data_source": source,
        "rankaudit_version": __version__,
        "software": to_jsonable(software_record(), "software"),
        "checks": to_jsonable(checked, "checks"),
        **to_jsonable(results),
    }
    path = results_dir() / f"{stem}.json"
    text = json.dumps(record, indent=2, sort_keys=True, allow_nan=False) + "\n"
    path.write_text(text, encoding="utf-8")
    return path


def read_results(stem: str, directory: Path | None = None) -> dict[str, Any]:
    """Read a chapter's results JSON back."""
    path = (directory or results_dir()) / f"{stem}.json"
    return json.loads(path.read_text(encoding="utf-8"))
