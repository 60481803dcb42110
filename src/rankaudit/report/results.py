"""The machine-readable record of a chapter run: ``book/_build/results/<stem>.json``.

Results are stable and diffable: snake_case keys, sorted, full-precision floats, and
always ``params``, ``data_source`` and ``rankaudit_version``. Two runs with the same
parameters write byte-identical files. NaN or infinite values are refused, never written.
"""

from __future__ import annotations

import json
import math
import os
import re
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import numpy as np

__all__ = ["find_project_root", "results_dir", "to_jsonable", "write_results", "read_results"]

_KEY = re.compile(r"^[a-z][a-z0-9_@]*$")


def find_project_root(start: Path | None = None) -> Path:
    """The nearest ancestor of ``start`` (default: cwd) holding rankaudit's ``pyproject.toml``."""
    here = (start or Path.cwd()).resolve()
    for candidate in (here, *here.parents):
        toml = candidate / "pyproject.toml"
        if toml.is_file() and re.search(  # the distribution is named rankaudit-book since issue 16
            r'^name = "rankaudit(-book)?"$', toml.read_text(encoding="utf-8"), re.M
        ):
            return candidate
    raise FileNotFoundError(f"No rankaudit project root above {here}.")


def results_dir() -> Path:
    """Where chapters write results: ``$RANKAUDIT_RESULTS_DIR`` or ``<root>/book/_build/results``."""
    env = os.environ.get("RANKAUDIT_RESULTS_DIR")
    path = Path(env) if env else find_project_root() / "book" / "_build" / "results"
    path.mkdir(parents=True, exist_ok=True)
    return path


def to_jsonable(value: Any, where: str = "results") -> Any:
    """Convert numpy/pandas values to plain JSON types, refusing NaN/inf and bad keys."""
    if hasattr(value, "to_dict") and not isinstance(value, Mapping):
        import pandas as pd

        if isinstance(value, pd.DataFrame):
            value = value.to_dict(orient="records")
        else:
            value = value.to_dict()
    if isinstance(value, Mapping):
        out = {}
        for key, item in value.items():
            key = str(key)
            if not _KEY.match(key):
                raise ValueError(f"{where}: key {key!r} is not snake_case.")
            out[key] = to_jsonable(item, f"{where}.{key}")
        return out
    if isinstance(value, (list, tuple, np.ndarray)):
        return [to_jsonable(v, f"{where}[{i}]") for i, v in enumerate(value)]
    if isinstance(value, (bool, np.bool_)):
        return bool(value)
    if isinstance(value, (int, np.integer)):
        return int(value)
    if isinstance(value, (float, np.floating)):
        value = float(value)
        if not math.isfinite(value):
            raise ValueError(f"{where} is {value}; results must be finite numbers.")
        return value
    if value is None or isinstance(value, str):
        return value
    if isinstance(value, Path):
        return str(value)
    raise TypeError(f"{where}: cannot write {type(value).__name__} to results JSON.")


def write_results(
    stem: str,
    *,
    params: Mapping[str, Any],
    data_source: Any,
    results: Mapping[str, Any],
) -> Path:
    """Write ``<results_dir>/<stem>.json`` and return its path.

    ``data_source`` is a :class:`rankaudit.data.DataSource` (or a mapping of them for
    chapters that use several sources).
    """
    from rankaudit import __version__

    if isinstance(data_source, Mapping):
        source = {name: to_jsonable(src.to_dict()) for name, src in data_source.items()}
    else:
        source = to_jsonable(data_source.to_dict())
    clash = {"params", "data_source", "rankaudit_version"} & set(results)
    if clash:
        raise ValueError(f"results must not use the reserved key(s) {sorted(clash)}.")
    record = {
        "params": to_jsonable(params, "params"),
        "data_source": source,
        "rankaudit_version": __version__,
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
