"""Time windows for training without leakage: split rows by time into named, disjoint windows
(the encoder data come from an earlier time frame than the ranker's, Sheng et al., §2.3.1).
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np
import pandas as pd

__all__ = ["check_disjoint_windows", "time_windows"]


# ----------------------------------------------------------------------------- time windows
def time_windows(timestamps: np.ndarray, fractions: Mapping[str, float]) -> dict[str, np.ndarray]:
    """Cut queries into consecutive, disjoint time windows, in the order of ``fractions``.

    ``fractions`` e.g. ``{"encoder": 0.3, "train": 0.45, "valid": 0.1, "test": 0.15}`` (sum 1):
    the first 30% of queries by time train the sequence encoders, the next 45% the ranker, and so
    on. Cut points are timestamps; all queries sharing a timestamp fall in the same window, so each
    window ends strictly before the next begins (:func:`check_disjoint_windows`). Returns a boolean
    mask per window.
    """
    ts = np.asarray(timestamps)
    if ts.ndim != 1 or len(ts) == 0:
        raise ValueError("timestamps must be a non-empty 1-d array")
    if pd.isna(ts).any():
        raise ValueError(f"timestamps row {int(np.argmax(pd.isna(ts)))} is missing")
    fr = np.array(list(fractions.values()), dtype=float)
    if (fr <= 0).any() or not np.isclose(fr.sum(), 1.0):
        raise ValueError(f"fractions must be positive and sum to 1; got {dict(fractions)}")
    order = np.sort(ts)
    cuts = [order[min(int(round(c * len(ts))), len(ts) - 1)] for c in np.cumsum(fr)[:-1]]
    windows, lo = {}, None
    names = list(fractions)
    for i, name in enumerate(names):
        hi = cuts[i] if i < len(cuts) else None
        m = np.ones(len(ts), dtype=bool)
        if lo is not None:
            m &= ts >= lo
        if hi is not None:
            m &= ts < hi
        windows[name] = m
        lo = hi
    check_disjoint_windows(ts, windows)
    for name, m in windows.items():
        if not m.any():
            raise ValueError(f"time window {name!r} is empty; use larger fractions or more data")
    return windows


def check_disjoint_windows(timestamps: np.ndarray, windows: Mapping[str, np.ndarray]) -> None:
    """Raise ValueError unless the windows are disjoint and each ends before the next starts."""
    ts = np.asarray(timestamps)
    names = list(windows)
    total = np.zeros(len(ts), dtype=int)
    for name in names:
        total += np.asarray(windows[name], dtype=int)
    if (total > 1).any():
        raise ValueError(f"time windows overlap at row {int(np.argmax(total > 1))}")
    for a, b in zip(names, names[1:], strict=False):
        ta, tb = ts[windows[a]], ts[windows[b]]
        if len(ta) and len(tb) and not ta.max() < tb.min():
            raise ValueError(
                f"time window {a!r} ends at {ta.max()}, not before {b!r} starts at {tb.min()}"
            )
