"""A synthetic long-format evaluation table, generated block by block.

The table has the shape of a sampled-candidate evaluation log: every row (a
user's held-out interaction) has one relevant candidate (label 1) among
``n_candidates`` (or a ragged number between ``min_candidates`` and
``n_candidates``), with scores that are either small integers (``score_levels``
distinct values, the tie-heavy case of popularity-like scores) or continuous
(``score_levels=0``).  The relevant candidate's score is drawn from the upper
levels (integer case) or as the square root of a uniform (continuous case), so
it tends to rank high, as a useful model's would.

Rows are generated in blocks of ``block_rows`` rows; block ``b`` uses
``numpy.random.default_rng([seed, b])``.  The pandas table is the
concatenation of the blocks and the Dask table has one block per partition
(each generated on a worker), so both hold exactly the same lines in the same
order, and a cluster never needs the whole table on the client.

Columns: ``row_id`` (int64), ``item_id`` (int32, distinct within a row),
``score`` (float32), ``label`` (int8).
"""

from __future__ import annotations

from dataclasses import asdict, dataclass

import numpy as np
import pandas as pd

from rankaudit._optional import require

__all__ = ["GENERATOR", "NAME", "SyntheticTable", "synthetic_long_dask", "synthetic_long_table"]

GENERATOR = "rankaudit.distributed.synthetic.synthetic_long_table"
NAME = "Synthetic long-format evaluation table"
_N_ITEMS = 100_003  # prime: (base + position * _STEP) % _N_ITEMS is distinct within a row
_STEP = 7_919


@dataclass(frozen=True)
class SyntheticTable:
    """Parameters of a synthetic long-format table (see the module docstring)."""

    n_rows: int
    n_candidates: int = 31
    min_candidates: int | None = None
    score_levels: int = 4
    seed: int = 0
    block_rows: int = 50_000

    def __post_init__(self) -> None:
        if self.n_rows < 1:
            raise ValueError(f"n_rows must be >= 1; got {self.n_rows}")
        if not 1 <= self.n_candidates < _N_ITEMS:
            raise ValueError(f"n_candidates must be in 1..{_N_ITEMS - 1}; got {self.n_candidates}")
        if self.min_candidates is not None and not 1 <= self.min_candidates <= self.n_candidates:
            raise ValueError(
                f"min_candidates must be in 1..n_candidates={self.n_candidates}; "
                f"got {self.min_candidates}"
            )
        if self.score_levels == 1 or self.score_levels < 0:
            raise ValueError(
                f"score_levels must be 0 (continuous) or >= 2; got {self.score_levels}"
            )
        if self.block_rows < 1:
            raise ValueError(f"block_rows must be >= 1; got {self.block_rows}")

    @property
    def n_blocks(self) -> int:
        return -(-self.n_rows // self.block_rows)

    def block(self, index: int) -> pd.DataFrame:
        """Lines of block ``index`` (rows ``index * block_rows`` onwards)."""
        if not 0 <= index < self.n_blocks:
            raise ValueError(f"block index must be in 0..{self.n_blocks - 1}; got {index}")
        start = index * self.block_rows
        n = min(self.block_rows, self.n_rows - start)
        rng = np.random.default_rng([self.seed, index])
        if self.min_candidates is None:
            lengths = np.full(n, self.n_candidates, dtype=np.int64)
        else:
            lengths = rng.integers(self.min_candidates, self.n_candidates + 1, size=n)
        total = int(lengths.sum())
        offsets = np.concatenate(([0], np.cumsum(lengths)[:-1]))
        row = np.repeat(np.arange(n), lengths)
        position = np.arange(total) - offsets[row]
        base = rng.integers(0, _N_ITEMS, size=n)
        items = ((base[row] + position * _STEP) % _N_ITEMS).astype(np.int32)
        relevant_at = offsets + (rng.random(n) * lengths).astype(np.int64)
        if self.score_levels:
            scores = rng.integers(0, self.score_levels, size=total).astype(np.float32)
            scores[relevant_at] = rng.integers(self.score_levels // 2, self.score_levels, size=n)
        else:
            scores = rng.random(total, dtype=np.float32)
            scores[relevant_at] = np.sqrt(rng.random(n, dtype=np.float32))
        labels = np.zeros(total, dtype=np.int8)
        labels[relevant_at] = 1
        return pd.DataFrame(
            {
                "row_id": (start + row).astype(np.int64),
                "item_id": items,
                "score": scores,
                "label": labels,
            }
        )

    def details(self) -> dict[str, int]:
        """The table's parameters, for a provenance record."""
        return asdict(self)

    def label(self) -> str:
        """One line naming the table and its generator (the data are simulated)."""
        return f"{NAME} (SIMULATED by {GENERATOR})"


def synthetic_long_table(table: SyntheticTable) -> pd.DataFrame:
    """The whole table as one pandas DataFrame (blocks concatenated, index 0..lines-1)."""
    return pd.concat([table.block(b) for b in range(table.n_blocks)], ignore_index=True)


def _straddled_partition(table: SyntheticTable, index: int, lines: int) -> pd.DataFrame:
    """Block ``index`` without its last ``lines`` lines, after the last ``lines`` of the block
    before."""
    own = table.block(index)
    keep = len(own) if index == table.n_blocks - 1 else max(len(own) - lines, 0)
    if index == 0:
        return own.iloc[:keep]
    before = table.block(index - 1)
    head = before.iloc[max(len(before) - lines, 0) :]
    return pd.concat([head, own.iloc[:keep]], ignore_index=True)


def synthetic_long_dask(table: SyntheticTable, *, straddle_lines: int = 0):
    """The same table as a Dask DataFrame, generated lazily on the workers.

    With ``straddle_lines=0`` each partition is one block, so every row lies in
    one partition.  With ``straddle_lines=s > 0`` the last ``s`` lines of each
    block are moved to the start of the next partition (same lines, same
    order), so rows straddle partition boundaries, as in a file cut into
    row groups of a fixed size.
    """
    dd = require("dask.dataframe", purpose="rankaudit.distributed")

    meta = table.block(0).iloc[:0]
    if straddle_lines < 0:
        raise ValueError(f"straddle_lines must be >= 0; got {straddle_lines}")
    if straddle_lines == 0:
        return dd.from_map(
            table.block, list(range(table.n_blocks)), meta=meta, label="synthetic-long"
        )
    return dd.from_map(
        _straddled_partition,
        [table] * table.n_blocks,
        list(range(table.n_blocks)),
        args=[straddle_lines],
        meta=meta,
        label="synthetic-long-straddled",
    )
