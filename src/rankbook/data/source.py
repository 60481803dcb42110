"""Provenance of the data behind every rendered number.

Every chapter states which data produced its numbers: a real public dataset (name,
version, where it came from, checksum) or a simulator (generator and its parameters).
:class:`DataSource` carries that statement into the page and the results JSON.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from rankbook.paths import project_root_or_none

__all__ = ["DataSource"]

Kind = Literal["real", "simulated", "fixture"]
_KINDS = ("real", "simulated", "fixture")


@dataclass(frozen=True)
class DataSource:
    """Where a chapter's data came from.

    ``kind`` is ``"real"`` (a public dataset), ``"simulated"`` (a documented generator)
    or ``"fixture"`` (small hand-written test files in a real public schema).
    """

    name: str
    kind: Kind
    version: str
    path: str | None = None
    generator: str | None = None
    details: dict[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        if self.kind not in _KINDS:
            raise ValueError(f"DataSource kind must be one of {_KINDS}; got {self.kind!r}.")
        if self.kind == "simulated" and not self.generator:
            raise ValueError("A simulated DataSource must name its generator.")

    @property
    def is_simulated(self) -> bool:
        return self.kind == "simulated"

    def label(self) -> str:
        """One line for captions and tables, e.g. ``MovieLens 100K (real, ml-100k)``."""
        if self.kind == "simulated":
            return f"{self.name} (SIMULATED by {self.generator})"
        return f"{self.name} ({self.kind}, {self.version})"

    def portable_path(self) -> str | None:
        """``path`` relative to the project root when it lies inside it, so results are portable."""
        if self.path is None:
            return None
        root = project_root_or_none()
        try:
            return (
                Path(self.path).resolve().relative_to(root).as_posix() if root else str(self.path)
            )
        except ValueError:
            return str(self.path)

    def to_dict(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "kind": self.kind,
            "version": self.version,
            "path": self.portable_path(),
            "generator": self.generator,
            "details": dict(self.details),
        }
