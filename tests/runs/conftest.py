"""Shared helpers of the rankaudit.runs tests: random small runs and their files."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "trec"


def random_run_and_qrels(seed: int, n_queries: int = 25, n_docs: int = 50):
    """Nested dicts ``run[q][doc] = score`` (heavy ties) and ``qrels[q][doc] = label``."""
    rng = np.random.default_rng(seed)
    run: dict[str, dict[str, float]] = {}
    qrels: dict[str, dict[str, int]] = {}
    for q in range(n_queries):
        qid = f"q{q:03d}"
        docs = list(
            dict.fromkeys(f"d{rng.integers(0, n_docs)}" for _ in range(rng.integers(1, 40)))
        )
        run[qid] = {d: float(rng.integers(0, 6)) / 4 for d in docs}
        if q % 6 == 5:
            continue  # a run query without judgments
        judged = dict.fromkeys(f"d{rng.integers(0, n_docs)}" for _ in range(rng.integers(1, 20)))
        qrels[qid] = {d: int(rng.integers(-1, 4)) for d in judged}
    qrels["only_in_qrels"] = {"d1": 1, "d2": 0}
    return run, qrels


def write_trec(run: dict, qrels: dict, directory: Path, sep: str = " ") -> tuple[Path, Path]:
    run_path, qrels_path = directory / "run.txt", directory / "qrels.txt"
    lines = [
        sep.join([q, "Q0", d, str(i + 1), repr(s), "tag"])
        for q, docs in run.items()
        for i, (d, s) in enumerate(docs.items())
    ]
    run_path.write_text("\n".join(lines) + "\n")
    lines = [sep.join([q, "0", d, str(r)]) for q, docs in qrels.items() for d, r in docs.items()]
    qrels_path.write_text("\n".join(lines) + "\n")
    return run_path, qrels_path


@pytest.fixture
def fixtures_dir() -> Path:
    return FIXTURES
