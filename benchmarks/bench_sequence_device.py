"""Per-epoch wall time of the two sequence encoders on CPU and, when present, on CUDA.

The prepared script for a GPU check (issue: Part III (b)). It trains the Transformer and the
Perceiver-like encoder of :mod:`rankbook.context.sequence_training` with the LambdaRank loss on a
synthetic click/SERP set with a planted intent signal, at a size chosen by flags, on every
available device in the same run, and prints seconds per epoch and the CPU/GPU ratio.

    python benchmarks/bench_sequence_device.py                       # small, CPU (+ CUDA if any)
    python benchmarks/bench_sequence_device.py --queries 200000 --d-model 256 --epochs 3

Synthetic data: ``n_items`` unit vectors in ``dim`` dimensions; each query has a latent intent
vector; its five clicks are the items nearest a noisy copy of the intent; its SERP of ``serp``
items gets label 2/1/0 by similarity to the intent (top 1 / next 3 / rest).
"""

from __future__ import annotations

import argparse
import time

import numpy as np
import torch

from rankbook.context.sequence_training import SequenceData, device_description, train_encoder


def synthetic(n_queries: int, n_items: int, dim: int, serp: int, seed: int) -> SequenceData:
    rng = np.random.default_rng(seed)
    items = rng.standard_normal((n_items, dim)).astype(np.float32)
    items /= np.linalg.norm(items, axis=1, keepdims=True)
    intent = items[rng.integers(0, n_items, n_queries)] + 0.5 * rng.standard_normal(
        (n_queries, dim)
    ).astype(np.float32)
    clicks = np.empty((n_queries, 5), np.int64)
    serp_items = rng.integers(0, n_items, (n_queries, serp))
    for start in range(0, n_queries, 4096):  # chunks keep memory flat
        block = intent[start : start + 4096]
        noisy = block + 0.5 * rng.standard_normal(block.shape).astype(np.float32)
        clicks[start : start + 4096] = np.argsort(-(noisy @ items.T), axis=1)[:, :5]
    sim = np.einsum("qd,qsd->qs", intent, items[serp_items])
    order = np.argsort(-sim, axis=1)
    labels = np.zeros((n_queries, serp), np.int64)
    rows = np.arange(n_queries)[:, None]
    labels[rows, order[:, 1:4]] = 1
    labels[rows, order[:, :1]] = 2
    queries = intent.astype(np.float32)
    return SequenceData(items, queries, np.arange(n_queries), clicks, serp_items, labels)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--queries", type=int, default=20_000)
    parser.add_argument("--items", type=int, default=5_000)
    parser.add_argument("--dim", type=int, default=384, help="item embedding size (MiniLM: 384)")
    parser.add_argument("--serp", type=int, default=40)
    parser.add_argument("--d-model", type=int, default=64)
    parser.add_argument("--epochs", type=int, default=2)
    parser.add_argument("--batch-size", type=int, default=512)
    parser.add_argument("--skip-cpu", action="store_true", help="time CUDA only")
    args = parser.parse_args()

    data = synthetic(args.queries, args.items, args.dim, args.serp, seed=0)
    cut = int(0.9 * len(data))
    train, valid = data.subset(np.arange(cut)), data.subset(np.arange(cut, len(data)))
    devices = [] if args.skip_cpu else ["cpu"]
    if torch.cuda.is_available():
        devices.append("cuda")
    print(
        f"{len(train):,} training queries, SERP {args.serp}, dim {args.dim}, "
        f"d_model {args.d_model}, {args.epochs} epochs"
    )
    rows = []
    for kind in ("trans", "perc"):
        for device in devices:
            start = time.perf_counter()
            result = train_encoder(
                kind,
                train,
                valid,
                d_model=args.d_model,
                epochs=args.epochs,
                batch_size=args.batch_size,
                device=device,
                progress=False,
            )
            per_epoch = float(result.history["seconds"].iloc[1:].mean())
            rows.append(
                (
                    kind,
                    device_description(device),
                    per_epoch,
                    float(result.history["valid_ndcg"].max()),
                    time.perf_counter() - start,
                )
            )
    print(f"\n{'encoder':8} {'s/epoch':>9} {'best valid NDCG@10':>19}  device")
    for kind, device, per_epoch, best, _ in rows:
        print(f"{kind:8} {per_epoch:9.2f} {best:19.4f}  {device}")
    if len(devices) == 2:
        for kind in ("trans", "perc"):
            cpu, gpu = (r[2] for r in rows if r[0] == kind)
            print(f"{kind}: CPU / GPU time per epoch = {cpu / gpu:.1f}x")


if __name__ == "__main__":
    main()
