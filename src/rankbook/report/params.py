"""Validation of papermill parameters, run in the cell right after each chapter's
parameters cell.

A chapter declares a spec for every parameter; :func:`check_params` checks the values
that papermill injected and fails with a message naming the offending parameter, so a
bad ``-p k -1`` stops the chapter in its first cell instead of producing a wrong page.

The range checks (:class:`Int`, :class:`Float`, :class:`IntList`) go through the library's
validators in :mod:`rankaudit._checks`, so a chapter parameter is what a library argument is
(``10.0`` and ``True`` are not integers) and the messages read the same:
``Parameter 'k' must be an integer >= 1; got 10.0 (float)``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from rankaudit._checks import check_int, check_number
from rankaudit.scalars import plain

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
        # the message style of rankaudit._checks
        return ValueError(
            f"{_label(name)} must be {self.describe()}; got {plain(value)!r} "
            f"({type(value).__name__})"
        )


def _label(name: str) -> str:
    """How a message names a parameter: ``Parameter 'k'``."""
    return f"Parameter {name!r}"


def _bounds(lo: float | None, hi: float | None) -> str:
    """A range as the messages of rankaudit._checks state it."""
    if lo is not None and hi is not None:
        return f"in [{lo}, {hi}]"
    return f">= {lo}" if lo is not None else f"<= {hi}"


@dataclass(frozen=True)
class Int(ParamSpec):
    """An integer in ``[lo, hi]``, checked by :func:`rankaudit._checks.check_int` (bools and
    floats such as ``10.0`` are refused); ``special`` lists extra accepted literals such as
    ``"all"``."""

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
        if any(type(value) is type(s) and value == s for s in self.special):
            return value  # a literal such as "all" (True is not 1 here)
        try:
            return check_int(value, _label(name), lo=self.lo, hi=self.hi)
        except ValueError as err:
            if not self.special:
                raise
            also = ", ".join(repr(s) for s in self.special)
            raise ValueError(f"{err}; it may also be one of {also}") from None


@dataclass(frozen=True)
class Float(ParamSpec):
    """A finite real number in ``[lo, hi]``, checked by :func:`rankaudit._checks.check_number`
    (bools are refused)."""

    lo: float | None = None
    hi: float | None = None

    def describe(self) -> str:
        text = "a finite number"
        if self.lo is not None or self.hi is not None:
            text += " " + _bounds(self.lo, self.hi)
        return text

    def check(self, name: str, value: Any) -> float:
        return check_number(value, _label(name), lo=self.lo, hi=self.hi)


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
    """A non-empty list of integers, each in ``[lo, hi]`` and checked as :class:`Int` is; the
    message names the first bad item (``Parameter 'seeds'[1]``)."""

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
        return [
            check_int(v, f"{_label(name)}[{i}]", lo=self.lo, hi=self.hi)
            for i, v in enumerate(value)
        ]


def check_params(values: Mapping[str, Any], **specs: ParamSpec) -> dict[str, Any]:
    """Validate a chapter's parameters against ``specs`` and return the normalised values.

    Every value needs a spec and every spec a value, so a typo in ``-p`` is caught too.

    >>> check_params(dict(k=10), k=Int(lo=1))
    {'k': 10}
    """
    missing = sorted(set(specs) - set(values))
    unknown = sorted(set(values) - set(specs))
    if missing:
        noun, verb = ("Parameter", "has") if len(missing) == 1 else ("Parameters", "have")
        raise ValueError(f"{noun} {', '.join(missing)} {verb} a spec but no value.")
    if unknown:
        noun, verb = ("Parameter", "is") if len(unknown) == 1 else ("Parameters", "are")
        raise ValueError(
            f"{noun} {', '.join(unknown)} {verb} not declared; known: "
            f"{', '.join(sorted(specs))}."
        )
    return {name: specs[name].check(name, values[name]) for name in values}
