"""Plain JSON values from numpy/pandas results: the one conversion results files go through.

Keys must be snake_case; NaN and infinite values are refused, never written.
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import numpy as np

__all__ = ["to_jsonable"]

_KEY = re.compile(r"^[a-z][a-z0-9_@]*$")


def to_jsonable(value: Any, where: str = "results") -> Any:
    """Convert numpy/pandas values to plain JSON types, refusing NaN/inf and bad keys.

    ``where`` names the value in error messages (``results.table2[3].ndcg10``).
    """
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
