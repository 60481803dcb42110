"""NCD features for (SERP item, click) pairs: rankaudit's cached, deduplicated NCD vs naive npc_gzip
style.

Workload: ``--pairs`` (default 1,000,000) (SERP item title, earlier click title) pairs taken from
simulated shopping sessions (every shown item against each of its query's last <= 5 clicks, in log
order).

* naive   for each pair, ``gzip.compress`` three times (x, y, x + " " + y) and the NCD formula, as
          in npc_gzip (Jiang et al., 2023). Timed on a random subsample of ``--naive-pairs`` pairs
          and scaled to the full workload per pair (running it on a million pairs would take
          minutes).
* rankaudit  ``NCD("zlib").pairs(x, y)`` on all pairs with a fresh cache: C(x) per unique text, the
          concatenation compressed once per unique pair, raw DEFLATE with a 4 KiB window, numpy
          bookkeeping.
Goal (issue 6): rankaudit at least 4x faster than naive on the same pairs. Also checked:
``NCD("gzip")`` reproduces the naive values exactly on the subsample (same definition, different
speed).

Both a single-process run and an ``n_jobs=--jobs`` run (forked processes, default 2 = this machine's
cores) are timed; the goal is checked on the parallel one, and both values must be identical.

Usage: ``python benchmarks/bench_ncd.py [--pairs N] [--naive-pairs M] [--jobs J] [--seed S]``
"""

from __future__ import annotations

import argparse
import gzip
import time

import numpy as np


def workload(n_pairs: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    from rankbook.context.features import click_history, serp_frame
    from rankbook.data.sessions import simulate_sessions

    n_sessions = 6000
    xs, ys, total = [], [], 0
    while total < n_pairs:
        log = simulate_sessions(progress=False, n_sessions=n_sessions, seed=seed)
        frame = serp_frame(log)
        hist = click_history(log.queries, log.clicks, 5)[frame.qpos.to_numpy()]
        titles = log.items.title.to_numpy(dtype=object)
        for j in range(5):
            ok = hist[:, j] >= 0
            xs.append(titles[frame.item_id.to_numpy()[ok]])
            ys.append(titles[hist[ok, j]])
            total += int(ok.sum())
        seed += 1
    return np.concatenate(xs)[:n_pairs], np.concatenate(ys)[:n_pairs]


def naive_ncd(x: str, y: str) -> float:
    cx = len(gzip.compress(x.encode()))
    cy = len(gzip.compress(y.encode()))
    cxy = len(gzip.compress((x + " " + y).encode()))
    return (cxy - min(cx, cy)) / max(cx, cy)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--pairs", type=int, default=1_000_000)
    ap.add_argument("--naive-pairs", type=int, default=20_000)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument(
        "--jobs",
        type=int,
        default=2,
        help="processes for the parallel run (the machine has 2 cores)",
    )
    args = ap.parse_args()
    from rankbook.context.ncd import NCD

    t0 = time.perf_counter()
    x, y = workload(args.pairs, args.seed)
    t_build = time.perf_counter() - t0
    n = len(x)
    key = np.unique(np.char.add(x.astype(str), np.char.add("\0", y.astype(str))))
    print(
        f"workload: {n:,} pairs, {len(set(x)) + len(set(y)):,} texts, {len(key):,} unique pairs "
        f"(built in {t_build:.1f} s)"
    )

    rng = np.random.default_rng(args.seed)
    sub = rng.choice(n, size=min(args.naive_pairs, n), replace=False)
    t0 = time.perf_counter()
    naive = np.array([naive_ncd(x[i], y[i]) for i in sub])
    t_naive_sub = time.perf_counter() - t0
    t_naive = t_naive_sub / len(sub) * n

    t0 = time.perf_counter()
    fast = NCD("zlib").pairs(x, y)
    t_fast = time.perf_counter() - t0
    t0 = time.perf_counter()
    fast2 = NCD("zlib", n_jobs=args.jobs).pairs(x, y)
    t_par = time.perf_counter() - t0
    if not np.array_equal(fast, fast2, equal_nan=True):
        raise AssertionError("parallel NCD differs from serial NCD")
    same = np.array_equal(NCD("gzip").pairs(x[sub], y[sub]), naive)
    corr = float(np.corrcoef(fast[sub], naive)[0, 1])

    ratio_serial = t_naive / t_fast
    ratio = t_naive / t_par
    print()
    print(
        "| method | pairs timed | seconds | seconds for all pairs | us / pair | speed-up vs naive |"
    )
    print("| --- | --- | --- | --- | --- | --- |")
    print(
        f"| naive gzip x3 per pair | {len(sub):,} | {t_naive_sub:.2f} | {t_naive:.1f} (scaled) | "
        f"{1e6 * t_naive / n:.2f} | 1.0x |"
    )
    print(
        f"| rankaudit NCD('zlib').pairs, 1 process | {n:,} | {t_fast:.2f} | {t_fast:.1f} | "
        f"{1e6 * t_fast / n:.2f} | {ratio_serial:.1f}x |"
    )
    print(
        f"| rankaudit NCD('zlib', n_jobs={args.jobs}).pairs | {n:,} | {t_par:.2f} | {t_par:.1f} | "
        f"{1e6 * t_par / n:.2f} | {ratio:.1f}x |"
    )
    print()
    print(
        f"speed-up (n_jobs={args.jobs}): {ratio:.1f}x (goal >= 4x): "
        f"{'PASS' if ratio >= 4 else 'FAIL'}"
    )
    print(
        f"NCD('gzip') equals the naive values on the subsample: {same}; corr(zlib NCD, gzip NCD) = "
        f"{corr:.4f}"
    )
    return 0 if ratio >= 4 and same else 1


if __name__ == "__main__":
    raise SystemExit(main())
