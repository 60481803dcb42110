"""A chapter's results with every computed float moved by a random ±5%, for the tests' switch.

The page tests must pass wherever a run's numbers fall, not only where one machine's run put
them. With ``RANKBOOK_PERTURB_RESULTS=<seed>`` in the environment, the ``smoke_book`` fixture
(``tests/conftest.py``) passes each executed chapter's results file through :func:`perturb_file`
before any test reads it: every float ``x`` of the chapter's own numbers becomes
``x * (1 + u)``, ``u`` uniform in ``[-SPREAD, SPREAD]``, drawn from a generator seeded by the
seed and the value's key path (BLAKE2b of both, never Python's salted ``hash()``), so one seed
gives the same file on every machine and in every process.

What is not moved, and why:

- the provenance keys (:data:`KEPT`): the parameters a test compares with the front matter, the
  data source, the versions, the software and hardware record, the checks;
- a value stored under the name of one of the chapter's parameters (``p_switch`` in a sweep's
  row, ``alpha``): a parameter, or a grid point of one, echoed beside the numbers it produced;
- bools (flags), strings (names, verdicts, ids) and None;
- ints: a JSON int is a count or an index (rows, queries, trees, a rank), and a count is a
  whole number by definition (``count_phrase`` refuses 2.7 rows); a count that a real run
  computes differently shows up through the floats derived from it (shares, means, rates);
- a float outside ``[0, 1]`` after the move that was inside ``[0, 1]`` before is clipped back
  to ``[0, 1]``: a probability, a p-value, a share or a power stays one (the prose and decision
  functions rightly refuse ``p = 1.03``);
- an interval ``(<x>_low, <x>_high)`` (or ``ci_low``/``ci_high``, ``lo``/``hi``) in one record
  keeps ``low <= high``: the two ends are moved and then put back in order.

The unmoved file is kept beside the moved one, in the results folder's ``unperturbed/`` (see
:func:`unperturbed_path`): the check that the executed page glued its words function's words
compares the page with the values the page was computed from.

Public API: :data:`ENV`, :data:`SPREAD`, :data:`KEPT`, :func:`seed_from_env`,
:func:`perturb`, :func:`perturb_file`, :func:`unperturbed_path`.
"""

from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path
from typing import Any

import numpy as np

__all__ = [
    "ENV",
    "KEPT",
    "SPREAD",
    "perturb",
    "perturb_file",
    "seed_from_env",
    "unperturbed_path",
]

#: The environment variable that switches the perturbation on; its value is the seed.
ENV = "RANKBOOK_PERTURB_RESULTS"
#: The largest relative move of a float: ``u`` is uniform in ``[-SPREAD, SPREAD]``.
SPREAD = 0.05
#: Top-level keys of a results file that are not the chapter's numbers (provenance).
KEPT = frozenset(
    {"params", "data_source", "rankaudit_version", "software", "checks", "hardware"}
)
#: Interval end names, as pairs (low suffix, high suffix) of one record's keys.
_ENDS = (("_low", "_high"), ("_lo", "_hi"))


def seed_from_env(environ: dict[str, str] | None = None) -> int | None:
    """The perturbation seed from :data:`ENV` (None when unset or empty); a value that is not
    an integer is an error naming the variable."""
    raw = (os.environ if environ is None else environ).get(ENV, "").strip()
    if not raw:
        return None
    try:
        return int(raw)
    except ValueError:
        raise ValueError(f"{ENV} must be an integer seed, got {raw!r}") from None


def _factor(seed: int, path: tuple[Any, ...]) -> float:
    """``1 + u`` for the value at ``path``: a generator seeded by BLAKE2b of the seed and the
    path's JSON text (stable across processes and machines)."""
    key = json.dumps([seed, [str(p) for p in path]]).encode()
    digest = hashlib.blake2b(key, digest_size=8).digest()
    rng = np.random.default_rng(int.from_bytes(digest, "little"))
    return 1.0 + float(rng.uniform(-SPREAD, SPREAD))


def _move(value: float, seed: int, path: tuple[Any, ...]) -> float:
    moved = value * _factor(seed, path)
    if 0.0 <= value <= 1.0:  # a probability, a p-value, a share stays in [0, 1]
        moved = min(1.0, max(0.0, moved))
    return moved


def _interval_pairs(record: dict[str, Any]) -> list[tuple[str, str]]:
    pairs = [("lo", "hi")] if {"lo", "hi"} <= set(record) else []
    for low, high in _ENDS:
        pairs += [
            (k, k[: -len(low)] + high)
            for k in record
            if k.endswith(low) and k[: -len(low)] + high in record
        ]
    return pairs


def _walk(value: Any, seed: int, path: tuple[Any, ...], params: frozenset[str]) -> Any:
    if isinstance(value, bool) or value is None or isinstance(value, (int, str)):
        return value
    if isinstance(value, float):
        return value if path[-1] in params else _move(value, seed, path)
    if isinstance(value, list):
        return [_walk(v, seed, (*path, i), params) for i, v in enumerate(value)]
    if isinstance(value, dict):
        out = {k: _walk(v, seed, (*path, k), params) for k, v in value.items()}
        for low, high in _interval_pairs(out):
            lo, hi = out[low], out[high]
            if isinstance(lo, float) and isinstance(hi, float) and lo > hi:
                out[low], out[high] = hi, lo
        return out
    return value


def perturb(results: dict[str, Any], seed: int) -> dict[str, Any]:
    """A copy of ``results`` with every float of the chapter's own numbers moved by a factor
    ``1 + u``, ``u ~ U[-SPREAD, SPREAD]`` seeded per key path (see the module docstring for
    what is kept and why)."""
    params = frozenset(results.get("params", {}))
    return {k: v if k in KEPT else _walk(v, seed, (k,), params) for k, v in results.items()}


def unperturbed_path(path: Path) -> Path:
    """Where :func:`perturb_file` keeps the unmoved results: ``unperturbed/<name>`` beside it
    (a folder of its own, so nothing that lists the results folder's files meets it)."""
    return path.parent / "unperturbed" / path.name


def perturb_file(path: Path, seed: int) -> Path:
    """Move the numbers of the results file ``path`` in place, keeping the unmoved file beside
    it (:func:`unperturbed_path`, returned). Idempotent: a file already moved is read back from
    its unmoved copy, so a second call gives the same file."""
    kept = unperturbed_path(path)
    if not kept.exists():
        kept.parent.mkdir(exist_ok=True)
        kept.write_text(path.read_text(encoding="utf-8"), encoding="utf-8")
    results = json.loads(kept.read_text(encoding="utf-8"))
    path.write_text(json.dumps(perturb(results, seed), indent=2), encoding="utf-8")
    return kept
