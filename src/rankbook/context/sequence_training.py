"""Training and applying the sequence encoders (Sheng et al., 2024, §2.3) with a LambdaRank loss.

Data live as *indices* into embedding tables (:class:`SequenceData`), so that a SERP of ``n`` items
costs ``n`` integers, not ``n * d`` floats; mini-batches gather the ``(B, 5, d)`` / ``(B, n, d)``
tensors of :mod:`rankbook.context.sequence_models` on the fly, on the training device.

Training (:func:`train_encoder`) is seeded and deterministic on CPU (``torch.manual_seed``, a
seeded shuffling generator, ``torch.use_deterministic_algorithms``), shows a tqdm bar, evaluates
validation NDCG after every epoch and keeps the best epoch's weights. CUDA is used when present.

Leakage (paper §2.3.1: "The training data is collected from different time frames than the ranking
model's data"): :func:`time_windows` cuts queries into consecutive, disjoint time windows, and
:func:`check_disjoint_windows` verifies it.
"""

from __future__ import annotations

import contextlib
import time
from collections.abc import Iterator
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from rankaudit._optional import require, tqdm
from rankbook.context.device import default_device, device_description, resolve_device
from rankbook.context.losses import lambdarank_loss, ndcg
from rankbook.context.sequence_models import MAX_CLICKS, SequenceEncoder, make_encoder
from rankbook.context.windows import check_disjoint_windows, time_windows

torch = require("torch", purpose="rankbook.context.sequence_training")

__all__ = [
    "SequenceData",
    "TrainResult",
    "check_disjoint_windows",
    "default_device",
    "device_description",
    "resolve_device",
    "sequence_feature",
    "time_windows",
    "train_encoder",
    "validation_ndcg",
]


# ------------------------------------------------------------------------------------- data
@dataclass
class SequenceData:
    """Queries with their click history and SERP, as indices into embedding tables.

    item_embs : (n_items, d) float — embedding of every item (row = item index).
    query_embs : (n_query_texts, d) float — embedding of every query text.
    query_index : (N,) int — row of ``query_embs`` for each query.
    click_items : (N, 5) int — the last 5 clicked items before the query, chronological, -1 = pad.
    serp_items : (N, n) int — the SERP items, -1 = pad.
    labels : (N, n) int — sale 2, click 1, none 0 (0 on pads).
    """

    item_embs: np.ndarray
    query_embs: np.ndarray
    query_index: np.ndarray
    click_items: np.ndarray
    serp_items: np.ndarray
    labels: np.ndarray
    _cache: dict = field(default_factory=dict, repr=False, compare=False)

    def __post_init__(self) -> None:
        n = len(self.query_index)
        if self.item_embs.ndim != 2 or self.query_embs.ndim != 2:
            raise ValueError("item_embs and query_embs must be 2-d (rows, dim)")
        if self.item_embs.shape[1] != self.query_embs.shape[1]:
            raise ValueError(
                f"item_embs dim {self.item_embs.shape[1]} != query_embs dim "
                f"{self.query_embs.shape[1]}"
            )
        if self.click_items.shape != (n, MAX_CLICKS):
            raise ValueError(
                f"click_items must have shape ({n}, {MAX_CLICKS}); got {self.click_items.shape}"
            )
        if self.serp_items.ndim != 2 or self.serp_items.shape[0] != n:
            raise ValueError(
                f"serp_items must have shape ({n}, width); got {self.serp_items.shape}"
            )
        if self.labels.shape != self.serp_items.shape:
            raise ValueError(
                f"labels shape {self.labels.shape} != serp_items shape {self.serp_items.shape}"
            )
        n_items = len(self.item_embs)
        for name, arr in (("click_items", self.click_items), ("serp_items", self.serp_items)):
            bad = (arr < -1) | (arr >= n_items)
            if bad.any():
                row = int(np.argwhere(bad)[0][0])
                raise ValueError(f"{name} row {row} holds an item index outside [-1, {n_items})")
        if ((self.query_index < 0) | (self.query_index >= len(self.query_embs))).any():
            row = int(
                np.argmax((self.query_index < 0) | (self.query_index >= len(self.query_embs)))
            )
            raise ValueError(f"query_index row {row} is outside [0, {len(self.query_embs)})")
        if not np.isfinite(self.item_embs).all() or not np.isfinite(self.query_embs).all():
            raise ValueError("item_embs / query_embs contain NaN or inf")

    def __len__(self) -> int:
        return len(self.query_index)

    @property
    def dim(self) -> int:
        return int(self.item_embs.shape[1])

    @property
    def has_clicks(self) -> np.ndarray:
        return (self.click_items >= 0).any(axis=1)

    def subset(self, rows: np.ndarray) -> SequenceData:
        """Rows (bool mask or integer positions) of this data, sharing the embedding tables."""
        return SequenceData(
            self.item_embs,
            self.query_embs,
            self.query_index[rows],
            self.click_items[rows],
            self.serp_items[rows],
            self.labels[rows],
        )

    def with_shuffled_clicks(self, seed: int = 0) -> SequenceData:
        """The same queries, each with the click history of another query that has one.

        A seeded permutation of ``click_items`` among the rows with an earlier click, so the rows
        with context (and what :func:`validation_ndcg` averages over) are unchanged: an encoder
        that reads the clicks loses its gain on this data; one that ignores them does not.
        """
        rows = np.flatnonzero(self.has_clicks)
        clicks = self.click_items.copy()
        clicks[rows] = self.click_items[np.random.default_rng(seed).permutation(rows)]
        return SequenceData(
            self.item_embs,
            self.query_embs,
            self.query_index,
            clicks,
            self.serp_items,
            self.labels,
        )

    def tables(self, device: torch.device) -> tuple[torch.Tensor, torch.Tensor]:
        key = str(device)
        if key not in self._cache:
            self._cache[key] = (
                torch.as_tensor(self.item_embs, dtype=torch.float32, device=device),
                torch.as_tensor(self.query_embs, dtype=torch.float32, device=device),
            )
        return self._cache[key]

    def batch(self, rows: np.ndarray, device: torch.device) -> dict[str, torch.Tensor]:
        """Gather the generic tensors for ``rows`` on ``device``."""
        items, queries = self.tables(device)
        clicks = torch.as_tensor(self.click_items[rows], device=device)
        serp = torch.as_tensor(self.serp_items[rows], device=device)
        return {
            "click_embs": items[clicks.clamp_min(0)],
            "click_mask": clicks >= 0,
            "query_emb": queries[torch.as_tensor(self.query_index[rows], device=device)],
            "serp_embs": items[serp.clamp_min(0)],
            "serp_mask": serp >= 0,
            "labels": torch.as_tensor(self.labels[rows], device=device),
        }


# --------------------------------------------------------------------------------- training
@dataclass
class TrainResult:
    """A trained encoder, its per-epoch history and where it ran."""

    model: SequenceEncoder
    history: pd.DataFrame  # epoch, train_loss, valid_ndcg, seconds
    best_epoch: int
    device: str
    #: standard error of the paired per-query validation NDCG gain of the kept epoch over epoch 0
    gain_se: float = float("nan")
    #: epochs actually run: below the cap when validation NDCG stopped improving for ``patience``
    epochs_run: int = 0
    #: True when training stopped early (``patience`` epochs without a better validation NDCG)
    stopped_early: bool = False


@contextlib.contextmanager
def _deterministic(device: torch.device) -> Iterator[None]:
    previous = torch.are_deterministic_algorithms_enabled()
    torch.use_deterministic_algorithms(True, warn_only=device.type == "cuda")
    try:
        yield
    finally:
        torch.use_deterministic_algorithms(previous)


def _trainable_rows(data: SequenceData) -> np.ndarray:
    """Queries that can teach the encoder: an earlier click (context) and a clicked/sold item."""
    return np.flatnonzero(data.has_clicks & (data.labels > 0).any(axis=1))


def _batch_scores(
    model: SequenceEncoder, b: dict[str, torch.Tensor]
) -> tuple[torch.Tensor, torch.Tensor]:
    cos, has_context = model.scores(
        b["click_embs"], b["click_mask"], b["query_emb"], b["serp_embs"]
    )
    # zero-click rows never enter the loss: their whole list is masked out
    mask = b["serp_mask"] & has_context.unsqueeze(1)
    return cos, mask


@torch.no_grad()
def validation_ndcg(
    model: SequenceEncoder,
    data: SequenceData,
    *,
    batch_size: int = 512,
    device: torch.device | None = None,
    k: int | None = 10,
    per_query: bool = False,
) -> float | np.ndarray:
    """Mean NDCG@k of the cosine ranking over queries with context and at least one click/sale.

    With ``per_query=True`` the per-query values (in row order) instead of their mean.
    """
    device = device or next(model.parameters()).device
    rows = _trainable_rows(data)
    if len(rows) == 0:
        raise ValueError("validation data has no query with an earlier click and a positive label")
    model.eval()
    values = []
    for start in range(0, len(rows), batch_size):
        b = data.batch(rows[start : start + batch_size], device)
        cos, mask = _batch_scores(model, b)
        values.append(ndcg(cos, b["labels"], mask, k=k).double().cpu().numpy())
    per = np.concatenate(values)
    return per if per_query else float(per.sum() / len(rows))


def train_encoder(
    kind: str,
    train: SequenceData,
    valid: SequenceData,
    *,
    d_model: int = 32,
    n_heads: int = 4,
    n_layers: int = 1,
    dropout: float = 0.1,
    correction: bool = False,
    epochs: int = 6,
    patience: int | None = None,
    batch_size: int = 128,
    lr: float = 1e-3,
    weight_decay: float = 1e-4,
    sigma: float = 1.0,
    seed: int = 0,
    device: torch.device | str | None = None,
    progress: bool = True,
) -> TrainResult:
    """Train a ``"trans"`` or ``"perc"`` encoder with
    :func:`~rankbook.context.losses.lambdarank_loss`.

    Each query's SERP is one list; the score of item ``i`` is ``scale * cos(E_item_i, E_seq)`` with
    a learnable scale (inverse temperature). Queries without an earlier click, or without any click
    or sale on the SERP, carry no training signal and are skipped. AdamW; the weights of the epoch
    with the best validation NDCG@10 are kept. Deterministic on CPU for a given ``seed``.

    ``epochs`` is a cap; with ``patience`` training stops after ``patience`` consecutive epochs
    without a better validation NDCG@10 (early stopping, Prechelt, 1998, "Early Stopping - But
    When?", Neural Networks: Tricks of the Trade), so a kept epoch below the cap means validation
    stopped improving, and one at the cap means the cap, not the data, ended training.
    """
    if epochs < 1 or batch_size < 1 or lr <= 0:
        raise ValueError(
            f"epochs, batch_size must be >= 1 and lr > 0; got {epochs}, {batch_size}, {lr}"
        )
    if patience is not None and int(patience) < 1:
        raise ValueError(f"patience must be >= 1 or None, got {patience!r}")
    device = resolve_device(device)
    rows = _trainable_rows(train)
    if len(rows) == 0:
        raise ValueError("training data has no query with an earlier click and a positive label")
    with _deterministic(device):
        torch.manual_seed(seed)
        model = make_encoder(
            kind,
            train.dim,
            d_model=d_model,
            n_heads=n_heads,
            n_layers=n_layers,
            dropout=dropout,
            correction=correction,
        ).to(device)
        opt = torch.optim.AdamW(model.parameters(), lr=lr, weight_decay=weight_decay)
        shuffle = np.random.default_rng(seed)
        n_batches = -(-len(rows) // batch_size)
        # epoch 0: the untrained encoder, i.e. the plain mean of the clicks (sequence_models
        # docstring)
        ndcg_epoch0 = validation_ndcg(model, valid, device=device, per_query=True)
        best = float(ndcg_epoch0.mean())
        history = [{"epoch": 0, "train_loss": np.nan, "valid_ndcg": best, "seconds": 0.0}]
        best_epoch, best_state = 0, {k: t.detach().clone() for k, t in model.state_dict().items()}
        bar = tqdm(
            total=epochs * n_batches, desc=f"{kind} encoder", disable=not progress, leave=False
        )
        for epoch in range(1, epochs + 1):
            t0 = time.perf_counter()
            model.train()
            perm = shuffle.permutation(rows)
            loss_sum = 0.0
            for start in range(0, len(perm), batch_size):
                b = train.batch(perm[start : start + batch_size], device)
                cos, mask = _batch_scores(model, b)
                loss = lambdarank_loss(model.scale * cos, b["labels"], mask, sigma=sigma)
                opt.zero_grad(set_to_none=True)
                loss.backward()
                opt.step()
                loss_sum += float(loss.detach())
                bar.update(1)
            v = validation_ndcg(model, valid, device=device)
            if device.type == "cuda":
                torch.cuda.synchronize()
            history.append(
                {
                    "epoch": epoch,
                    "train_loss": loss_sum / n_batches,
                    "valid_ndcg": v,
                    "seconds": time.perf_counter() - t0,
                }
            )
            bar.set_postfix(loss=f"{loss_sum / n_batches:.4f}", valid_ndcg=f"{v:.4f}")
            if v > best:
                best, best_epoch = v, epoch
                best_state = {k: t.detach().clone() for k, t in model.state_dict().items()}
            elif patience is not None and epoch - best_epoch >= int(patience):
                break
        bar.close()
        epochs_run = len(history) - 1
        model.load_state_dict(best_state)
        model.eval()
        gain = validation_ndcg(model, valid, device=device, per_query=True) - ndcg_epoch0
        gain_se = float(gain.std(ddof=1) / np.sqrt(len(gain))) if len(gain) > 1 else float("nan")
    return TrainResult(
        model,
        pd.DataFrame(history),
        best_epoch,
        str(device),
        gain_se,
        epochs_run=epochs_run,
        stopped_early=epochs_run < epochs,
    )


@torch.no_grad()
def sequence_feature(
    model: SequenceEncoder,
    data: SequenceData,
    *,
    batch_size: int = 1024,
    device: torch.device | None = None,
) -> np.ndarray:
    """The feature ``CosSim_seq`` ``(N, n)``: cos(E_item_i, E_seq) (Sheng et al., 2024, §2.3).

    NaN for queries with no earlier click in their session (missing, like the other contextual
    features; LightGBM routes missing values natively) and on padded SERP slots.
    """
    device = device or next(model.parameters()).device
    model.eval()
    out = np.full(data.serp_items.shape, np.nan, dtype=np.float64)
    for start in range(0, len(data), batch_size):
        rows = np.arange(start, min(start + batch_size, len(data)))
        b = data.batch(rows, device)
        cos, mask = _batch_scores(model, b)
        cos = cos.double().masked_fill(~mask, float("nan"))
        out[rows] = cos.cpu().numpy()
    return out
