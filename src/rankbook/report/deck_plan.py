"""A session's plan: the minute-by-minute segments, and the curated slides of each segment.

A plan is a YAML file ``book/decks/<session stem>.yml`` (a lecturer edits it; the deck, the
course guide's table and the tests read it)::

    stem: session-1-ties
    guide_label: session-ties        # the course guide's label of the session's section
    title: "Session 1: tie handling in offline evaluation"
    question: Can the order in which candidates were stored change an offline metric?
    goals: [a learning goal, ...]
    segments:
      - minutes: [5, 20]
        chapter: 01_stable_sort_bias
        sections: A relevant-first row and a sort
        slides:
          - {kind: text, title: ..., bullets: [...], notes: ...}
          - {kind: figure, name: fig-stable-sort-sweep, title: ..., notes: ...}
          - {kind: equation, label: eq-hr, title: ..., notes: ...}
          - {kind: table, key: mean_ndcg10_by_rule, title: ..., notes: ...}
          - {kind: question, text: ..., notes: ...}
    takeaways: [one line, ...]
    takeaway_notes: ...

:func:`load_plan` checks the structure and says what is wrong, naming the file and the slide.
Numbers are never typed in a plan: text may quote ``{r:key.path:.4f}`` (a results JSON value of
the segment's chapter) or ``{r:NN_chapter/key.path:.4f}`` (another chapter's), resolved by
:mod:`rankbook.report.deck_content`.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

__all__ = [
    "KINDS",
    "PlanError",
    "Segment",
    "SessionPlan",
    "SlideSpec",
    "load_plan",
]

#: Slide kinds a plan may list, and the fields each one requires besides ``notes``.
KINDS: dict[str, tuple[str, ...]] = {
    "text": ("title", "bullets"),
    "figure": ("title", "name"),
    "equation": ("title", "label"),
    "table": ("title", "key"),
    "question": ("text",),
}


class PlanError(ValueError):
    """A session plan is malformed; the message names the file and the place."""


@dataclass(frozen=True)
class SlideSpec:
    """One curated slide of a segment (fields as in the plan; unused ones are empty)."""

    kind: str
    notes: str
    title: str = ""
    bullets: tuple[str, ...] = ()
    name: str = ""
    label: str = ""
    key: str = ""
    columns: tuple[tuple[str, str], ...] = ()
    formats: tuple[tuple[str, str], ...] = ()
    labels: tuple[tuple[str, str], ...] = ()
    text: str = ""
    chapter: str = ""
    rows: tuple[int, int] | None = None


@dataclass(frozen=True)
class Segment:
    """A stretch of the session: its minutes, chapter, sections, what to do and what to skip."""

    start: int
    end: int
    chapter: str
    sections: str
    do: str
    skip: str
    slides: tuple[SlideSpec, ...]


@dataclass(frozen=True)
class SessionPlan:
    """One 90-minute session: its deck stem, title, question, goals, segments and takeaways."""

    stem: str
    guide_label: str
    title: str
    question: str
    goals: tuple[str, ...]
    segments: tuple[Segment, ...]
    takeaways: tuple[str, ...]
    takeaway_notes: str

    @property
    def chapters(self) -> tuple[str, ...]:
        """The chapters the session teaches, in teaching order, each once."""
        seen: list[str] = []
        for segment in self.segments:
            if segment.chapter and segment.chapter not in seen:
                seen.append(segment.chapter)
        return tuple(seen)

    @property
    def minutes(self) -> int:
        """The session's length: the last segment's end."""
        return self.segments[-1].end if self.segments else 0


def _need(mapping: dict, key: str, where: str, kind: type = str) -> Any:
    if key not in mapping or mapping[key] in (None, ""):
        raise PlanError(f"{where}: '{key}' is missing")
    value = mapping[key]
    if not isinstance(value, kind):
        raise PlanError(f"{where}: '{key}' should be a {kind.__name__}, got {value!r}")
    return value


def _pairs(value: Any, where: str, field: str) -> tuple[tuple[str, str], ...]:
    if value is None:
        return ()
    if not isinstance(value, dict):
        raise PlanError(f"{where}: '{field}' should map names to strings")
    return tuple((str(k), str(v)) for k, v in value.items())


def _slide(raw: Any, where: str) -> SlideSpec:
    if not isinstance(raw, dict):
        raise PlanError(f"{where}: a slide should be a mapping, got {raw!r}")
    kind = _need(raw, "kind", where)
    if kind not in KINDS:
        raise PlanError(f"{where}: kind {kind!r} is not one of {sorted(KINDS)}")
    for field in KINDS[kind]:
        _need(raw, field, where, list if field == "bullets" else str)
    notes = _need(raw, "notes", where)  # every content slide has speaker notes
    bullets = tuple(str(b) for b in raw.get("bullets", []) or [])
    rows = raw.get("rows")
    if rows is not None and not (
        isinstance(rows, list) and len(rows) == 2 and all(isinstance(r, int) for r in rows)
    ):
        raise PlanError(f"{where}: 'rows' should be [start, stop] (a slice of the records)")
    return SlideSpec(
        kind=kind,
        notes=notes.strip(),
        title=str(raw.get("title", "")),
        bullets=bullets,
        name=str(raw.get("name", "")),
        label=str(raw.get("label", "")),
        key=str(raw.get("key", "")),
        columns=_pairs(raw.get("columns"), where, "columns"),
        formats=_pairs(raw.get("formats"), where, "formats"),
        labels=_pairs(raw.get("labels"), where, "labels"),
        text=str(raw.get("text", "")),
        chapter=str(raw.get("chapter", "")),
        rows=tuple(rows) if rows is not None else None,
    )


def load_plan(path: Path) -> SessionPlan:
    """Read and check one session plan; a :class:`PlanError` names what is wrong and where."""
    import yaml

    path = Path(path)
    try:
        raw = yaml.safe_load(path.read_text(encoding="utf-8"))
    except yaml.YAMLError as err:
        raise PlanError(f"{path}: not valid YAML ({err})") from None
    if not isinstance(raw, dict):
        raise PlanError(f"{path}: a plan is a mapping with stem, title, goals and segments")
    where = str(path)
    segments = []
    previous_end = 0
    for i, seg in enumerate(_need(raw, "segments", where, list), 1):
        here = f"{path.name} segment {i}"
        if not isinstance(seg, dict):
            raise PlanError(f"{here}: should be a mapping")
        minutes = _need(seg, "minutes", here, list)
        if len(minutes) != 2 or not all(isinstance(m, int) for m in minutes):
            raise PlanError(f"{here}: minutes should be [start, end], got {minutes!r}")
        start, end = minutes
        if start != previous_end or end <= start:
            raise PlanError(f"{here}: minutes {minutes} do not follow on from {previous_end}")
        previous_end = end
        slides = tuple(
            _slide(s, f"{here} slide {j}") for j, s in enumerate(seg.get("slides", []) or [], 1)
        )
        segments.append(
            Segment(
                start=start,
                end=end,
                chapter=str(seg.get("chapter", "") or ""),
                sections=str(seg.get("sections", "") or ""),
                do=_need(seg, "do", here),
                skip=str(seg.get("skip", "") or ""),
                slides=slides,
            )
        )
    return SessionPlan(
        stem=_need(raw, "stem", where),
        guide_label=_need(raw, "guide_label", where),
        title=_need(raw, "title", where),
        question=_need(raw, "question", where),
        goals=tuple(str(g) for g in _need(raw, "goals", where, list)),
        segments=tuple(segments),
        takeaways=tuple(str(t) for t in _need(raw, "takeaways", where, list)),
        takeaway_notes=_need(raw, "takeaway_notes", where).strip(),
    )
