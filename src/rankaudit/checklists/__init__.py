"""The reporting checklist for tie-heavy evaluation (Guo et al., 2026, §6).

- :mod:`~rankaudit.checklists.template`: the blank checklist, as Markdown to fill by hand;
- :mod:`~rankaudit.checklists.from_rows`: filled from an evaluation of rectangular rows
  (``rankaudit.checklist``);
- :mod:`~rankaudit.checklists.from_run`: filled from a TREC run and its qrels
  (``rankaudit checklist``).
"""

__all__: list[str] = []
