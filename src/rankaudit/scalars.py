"""NumPy scalars as plain Python values.

Under NumPy 2 the ``repr`` of a NumPy scalar names its type (``np.int64(272)``,
``np.float64(nan)``), which reads badly in error messages, cannot be formatted as a
number once MyST-NB has stored it as text, and is not JSON.  :func:`plain` is the one
conversion the library uses for all three.
"""

from __future__ import annotations

from typing import Any

import numpy as np

__all__ = ["plain"]


def plain(value: Any) -> Any:
    """Convert NumPy scalars and 0-d arrays to the equivalent Python scalar; leave the rest.

    >>> plain(np.int64(272)), plain(np.array(0.5)), plain("u7")
    (272, 0.5, 'u7')
    """
    if isinstance(value, np.ndarray) and value.ndim == 0:
        value = value[()]
    if isinstance(value, np.generic):
        return value.item()
    return value
