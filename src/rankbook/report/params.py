"""Validation of papermill parameters, run in each chapter's first code cell.

A chapter declares a spec for every parameter; :func:`check_params` checks the values
that papermill injected and fails with a message naming the offending parameter, so a
bad ``-p k -1`` stops the chapter in its first cell instead of producing a wrong page.
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

__all__ = [
    "Bool",
    "Choice",
    "Float",
    "Int",
    "IntList",
    "OptionalDir",
    "ParamSpec",
    "Str",
    "check_params",
]


class ParamSpec:
    """Base class: ``check(name, value)`` returns the normalised value or raises ValueError."""

    def describe(self) -> str:  # pragma: no cover - overridden
        raise NotImplementedError

    def check(self, name: str, value: Any) -> Any:  # pragma: no cover - overridden
        raise NotImplementedError

    def _fail(self, name: str, value: Any) -> ValueError:
        return ValueError(
            f"Parameter {name!r} must be {self.describe()}; got {value!r} ({type(value).__name__})."
        )


def _bounds(lo: float | None, hi: float | None) -> str:
    parts = []
    if lo is not None:
        parts.append(f">= {lo}")
    if hi is not None:
        parts.append(f"<= {hi}")
    return " and ".join(parts)


@dataclass(frozen=True)
class Int(ParamSpec):
    """An integer in ``[lo, hi]``; ``special`` lists extra accepted literals such as ``"all"``."""

    lo: int | None = None
    hi: int | None = None
    special: tuple[Any, ...] = ()

    def describe(self) -> str:
        text = "an integer"
        if self.lo is not None or self.hi is not None:
            text += " " + _bounds(self.lo, self.hi)
        if self.special:
            text += " or one of " + ", ".join(repr(s) for s in self.special)
        return text

    def check(self, name: str, value: Any) -> Any:
        if value in self.special and not isinstance(value, bool):
            return value
        if isinstance(value, bool) or not isinstance(value, numbers.Integral):
            if isinstance(value, float) and value.is_integer():
                value = int(value)
            else:
                raise self._fail(name, value)
        value = int(value)
        if (self.lo is not None and value < self.lo) or (self.hi is not None and value > self.hi):
            raise self._fail(name, value)
        return value


@dataclass(frozen=True)
class Float(ParamSpec):
    """A finite real number in ``[lo, hi]``."""

    lo: float | None = None
    hi: float | None = None

    def describe(self) -> str:
        text = "a finite number"
        if self.lo is not None or self.hi is not None:
            text += " " + _bounds(self.lo, self.hi)
        return text

    def check(self, name: str, value: Any) -> float:
        if isinstance(value, bool) or not isinstance(value, numbers.Real):
            raise self._fail(name, value)
        value = float(value)
        if not math.isfinite(value):
            raise self._fail(name, value)
        if (self.lo is not None and value < self.lo) or (self.hi is not None and value > self.hi):
            raise self._fail(name, value)
        return value


@dataclass(frozen=True)
class Choice(ParamSpec):
    """One of a fixed set of values."""

    options: tuple[Any, ...] = field(default_factory=tuple)

    def __init__(self, *options: Any) -> None:
        object.__setattr__(self, "options", tuple(options))

    def describe(self) -> str:
        return "one of " + ", ".join(repr(o) for o in self.options)

    def check(self, name: str, value: Any) -> Any:
        if value not in self.options:
            raise self._fail(name, value)
        return value


@dataclass(frozen=True)
class Bool(ParamSpec):
    """``True`` or ``False`` (papermill passes booleans as Python literals)."""

    def describe(self) -> str:
        return "True or False"

    def check(self, name: str, value: Any) -> bool:
        if not isinstance(value, bool):
            raise self._fail(name, value)
        return value


@dataclass(frozen=True)
class Str(ParamSpec):
    """A non-empty string."""

    def describe(self) -> str:
        return "a non-empty string"

    def check(self, name: str, value: Any) -> str:
        if not isinstance(value, str) or not value.strip():
            raise self._fail(name, value)
        return value


@dataclass(frozen=True)
class OptionalDir(ParamSpec):
    """``None`` (use the embedded default data) or the path of an existing directory."""

    def describe(self) -> str:
        return "None (embedded data) or the path of an existing directory"

    def check(self, name: str, value: Any) -> str | None:
        if value is None or value == "" or value == "None":
            return None
        if not isinstance(value, (str, Path)):
            raise self._fail(name, value)
        path = Path(value).expanduser()
        if not path.is_dir():
            raise ValueError(f"Parameter {name!r}: directory {str(path)!r} does not exist.")
        return str(path.resolve())


@dataclass(frozen=True)
class IntList(ParamSpec):
    """A non-empty list of integers, each in ``[lo, hi]``."""

    lo: int | None = None
    hi: int | None = None

    def describe(self) -> str:
        text = "a non-empty list of integers"
        if self.lo is not None or self.hi is not None:
            text += " each " + _bounds(self.lo, self.hi)
        return text

    def check(self, name: str, value: Any) -> list[int]:
        if isinstance(value, (str, bytes)) or not isinstance(value, Sequence) or not value:
            raise self._fail(name, value)
        item = Int(self.lo, self.hi)
        try:
            return [item.check(name, v) for v in value]
        except ValueError:
            raise self._fail(name, value) from None


def check_params(values: Mapping[str, Any], **specs: ParamSpec) -> dict[str, Any]:
    """Validate a chapter's parameters against ``specs`` and return the normalised values.

    Every value needs a spec and every spec a value, so a typo in ``-p`` is caught too.

    >>> check_params(dict(k=10), k=Int(lo=1))
    {'k': 10}
    """
    missing = sorted(set(specs) - set(values))
    unknown = sorted(set(values) - set(specs))
    if missing:
        raise ValueError(f"Parameter(s) {', '.join(missing)} have a spec but no value.")
    if unknown:
        raise ValueError(
            f"Parameter(s) {', '.join(unknown)} are not declared; known: "
            f"{', '.join(sorted(specs))}."
        )
    return {name: specs[name].check(name, values[name]) for name in values}
