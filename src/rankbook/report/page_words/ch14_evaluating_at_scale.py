"""Chapter 14's computed words: whether the distributed per-row results and means are
identical to the single-machine ones, which Dask layout was fastest, and the speed-up from the
smallest to the largest cluster per layout.

The timings are read from the results' ``timing`` key, the one part of chapter 14's results
that changes from run to run (the full table is written next to the results file).

Public API: :func:`words` and :data:`DEPENDS` (see :mod:`rankbook.report.page_words`).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from rankbook.report.prose import flag_word, gap_phrase, list_phrase

__all__ = ["DEPENDS", "words"]

_ONE = "one machine"  # the engine name of the single-machine run in the timing table


def _dask(results: Mapping[str, Any]) -> list[int]:
    """Indices of the Dask runs in ``timing.runs``."""
    return [i for i, r in enumerate(results["timing"]["runs"]) if r["engine"] != _ONE]


def _speedup(results: Mapping[str, Any]) -> str:
    """Per layout (alphabetical), seconds on the smallest cluster over seconds on the largest:
    "1.52x (full shuffle by row id), ..."; a single cluster size measures none."""
    runs = [results["timing"]["runs"][i] for i in _dask(results)]
    sizes = sorted({int(r["n_workers"]) for r in runs})
    if len(sizes) < 2:
        return "not measured (one cluster size)"
    seconds = {(r["layout"], int(r["n_workers"])): float(r["seconds"]) for r in runs}
    layouts = sorted({r["layout"] for r in runs})
    return list_phrase(
        [f"{seconds[(lay, sizes[0])] / seconds[(lay, sizes[-1])]:.2f}x ({lay})" for lay in layouts]
    )


def words(results: Mapping[str, Any]) -> dict[str, str]:
    """The words chapter 14 glues, from its results dict alone."""
    runs = results["timing"]["runs"]
    best = min(_dask(results), key=lambda i: float(runs[i]["seconds"]))
    return {
        "identical": flag_word(
            results["identical_per_row"] and results["identical_means"],
            ("identical", "NOT identical"),
        ),
        "max_diff_words": gap_phrase(results["max_abs_diff"]),
        "best_dask_layout": str(runs[best]["layout"]),
        "speedup_text": _speedup(results),
    }


def DEPENDS(results: Mapping[str, Any]) -> list[tuple[Any, Any, str]]:  # noqa: N802
    """Each identity flag while the other holds (both must hold for "identical"), and the
    seconds of every Dask run."""
    flags = ("identical_per_row", "identical_means")
    return [
        *[(None, None, f) for f, other in zip(flags, flags[::-1], strict=True) if results[other]],
        *[("timing", ("runs", i), "seconds") for i in _dask(results)],
    ]
