"""rankbook: the compendium's code, beside the rankaudit library it imports.

What the chapters of the book import and the library does not ship: data loaders for real
public formats and documented simulators (:mod:`rankbook.data`), the Part II score families
(:mod:`rankbook.scores`) and audits (:mod:`rankbook.audit`), other libraries' evaluators and the
Monte Carlo of Part I (:mod:`rankbook.ties`), the Part III features and sequence encoders
(:mod:`rankbook.context`), the ranking experiments (:mod:`rankbook.ranking`), chapter 14's
throughput measurement (:mod:`rankbook.throughput`), and the book itself: parameters,
provenance, results, figures, prose, the build pipeline and the slides (:mod:`rankbook.report`).

The library, :mod:`rankaudit`, never imports this package (``tests/test_import_graph.py``).
"""

__all__: list[str] = []
