"""The file names and identity of Amazon Reviews 2023, Beauty_and_Personal_Care.

Hou et al., "Bridging Language and Items for Retrieval and Recommendation" (2024): one gzipped
JSON-lines file of reviews and one of item metadata per category. Shared by the loader
(:mod:`rankbook.data.amazon`) and the simulator that writes the same files
(:mod:`rankbook.data.amazon_sim`).
"""

from __future__ import annotations

__all__ = ["DATASET_NAME", "DATASET_VERSION", "META_FILE", "REVIEWS_FILE"]

REVIEWS_FILE = "Beauty_and_Personal_Care.jsonl.gz"
META_FILE = "meta_Beauty_and_Personal_Care.jsonl.gz"
DATASET_NAME = "Amazon Reviews 2023 (Beauty_and_Personal_Care)"
DATASET_VERSION = "2023"
