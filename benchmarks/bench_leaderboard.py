"""A whole track as one leaderboard: one process vs a ``LocalCluster`` of Dask workers.

Workload: a SIMULATED track (:func:`rankbook.data.track.simulate_track`) of ``--runs`` TREC
runs of ``--queries`` x ``--docs`` lines each (default 100 x 1,000 x 100 = 100 runs of
100,000 lines) with heavy ties (``--levels`` 3 score levels), written to a temporary folder
(not timed).  Measured (wall clock), each side in its own fresh Python process:

- one process: :func:`rankaudit.runs.leaderboard.audit_run_files` (runs read and audited
  one after the other), then :func:`~rankaudit.runs.leaderboard.build_leaderboard`;
- Dask: :func:`rankaudit.distributed.leaderboard.audit_run_files_on_cluster` on a
  ``LocalCluster`` of ``--workers`` single-threaded processes (started before the clock, so
  start-up is not timed), then the same ``build_leaderboard`` in the client.

Measures nDCG@10, AP and RR under trec_eval, expected, pessimistic and optimistic; paired
tests against the first run (``--n-perm`` sign flips).  Peak resident memory: of the one
process (``ru_maxrss``), and of each Dask worker and of the client, each also just before the
audits start (imports and, in one process, the qrels): the growth is what the runs cost.  The
two sides' leaderboards must be equal (checked).  The per-run cost ``t / runs`` of each side
gives the extrapolation to a ``--extrapolate``-run track.

Usage::

    python benchmarks/bench_leaderboard.py                      # 100 runs x 100,000 lines
    python benchmarks/bench_leaderboard.py --runs 20 --queries 200   # quick run
    python benchmarks/bench_leaderboard.py --json benchmarks/bench_leaderboard.json
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

MEASURES = ["nDCG@10", "AP", "RR"]
RULES = ["trec_eval", "expected", "pessimistic", "optimistic"]


def _peak_mb() -> float:
    """Peak resident memory of this process, MB (``ru_maxrss`` is KiB on Linux)."""
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def _side(folder: str, workers: int, n_perm: int) -> dict:
    """One side of the benchmark, in this (fresh) process; prints a JSON line."""
    from rankaudit.runs import read_trec_qrels, read_trec_run
    from rankaudit.runs.leaderboard import audit_run_files, build_leaderboard

    paths = sorted(str(p) for p in Path(folder, "runs").glob("*.run"))
    names = [Path(p).name for p in paths]
    options = dict(measures=MEASURES, ties=RULES)
    out: dict = {}
    if workers == 0:
        qrels = read_trec_qrels(Path(folder, "qrels.txt"))
        out["peak_before_audit_mb"] = _peak_mb()
        start = time.perf_counter()
        audits = audit_run_files(paths, read_trec_run, qrels, **options)
        out["audit_s"] = time.perf_counter() - start
    else:
        from rankaudit.distributed.cluster import connect
        from rankaudit.distributed.leaderboard import audit_run_files_on_cluster

        with connect("local", workers) as client:
            client.wait_for_workers(workers)
            out["worker_peak_before_audit_mb"] = sorted(client.run(_peak_mb).values())
            start = time.perf_counter()
            audits = audit_run_files_on_cluster(
                client,
                paths,
                read_trec_run,
                str(Path(folder, "qrels.txt")),
                read_trec_qrels,
                **options,
            )
            out["audit_s"] = time.perf_counter() - start
            peaks = client.run(_peak_mb)
            out["worker_peak_mb"] = sorted(peaks.values())
    start = time.perf_counter()
    board = build_leaderboard(names, audits, baseline=names[0], n_perm=n_perm)
    out["leaderboard_s"] = time.perf_counter() - start
    out["total_s"] = out["audit_s"] + out["leaderboard_s"]
    out["process_peak_mb"] = _peak_mb()
    out["records"] = json.loads(json.dumps(board.records()))
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--runs", type=int, default=100, help="runs in the track")
    parser.add_argument("--queries", type=int, default=1000, help="queries per run")
    parser.add_argument("--docs", type=int, default=100, help="documents per query")
    parser.add_argument("--levels", type=int, default=3, help="score levels (fewer: more ties)")
    parser.add_argument("--workers", type=int, default=2, help="LocalCluster worker processes")
    parser.add_argument("--n-perm", type=int, default=1000, help="sign flips per paired test")
    parser.add_argument("--extrapolate", type=int, default=500, help="runs to extrapolate to")
    parser.add_argument("--json", type=Path, default=None, help="also write the figures as JSON")
    parser.add_argument("--side", help=argparse.SUPPRESS)  # internal: FOLDER:WORKERS
    args, _ = parser.parse_known_args(argv)  # run_all.py passes every benchmark the same flags
    if args.side:
        folder, workers = args.side.rsplit(":", 1)
        print(json.dumps(_side(folder, int(workers), args.n_perm)))
        return 0

    from rankbook.data.track import simulate_track, write_track

    with tempfile.TemporaryDirectory(prefix="rankaudit-track-") as folder:
        start = time.perf_counter()
        track = simulate_track(
            args.runs, args.queries, args.docs, n_levels=args.levels, spread=1.0, seed=0
        )
        paths = write_track(folder, track)
        del track
        write_s = time.perf_counter() - start
        run_mb = [p.stat().st_size / 1e6 for p in paths]
        sides = {}
        for label, workers in (("one_process", 0), ("dask", args.workers)):
            proc = subprocess.run(
                [
                    sys.executable,
                    __file__,
                    "--side",
                    f"{folder}:{workers}",
                    "--n-perm",
                    str(args.n_perm),
                ],
                capture_output=True,
                text=True,
                check=True,
            )
            sides[label] = json.loads(proc.stdout.strip().splitlines()[-1])
    one, dask = sides["one_process"], sides["dask"]
    if one.pop("records") != dask.pop("records"):
        raise SystemExit("the one-process and Dask leaderboards differ")
    lines = args.runs * args.queries * args.docs
    result = {
        "workload": {
            "runs": args.runs,
            "lines_per_run": args.queries * args.docs,
            "queries": args.queries,
            "docs_per_query": args.docs,
            "score_levels": args.levels,
            "lines": lines,
            "run_file_mb_max": max(run_mb),
            "track_mb": sum(run_mb),
            "measures": MEASURES,
            "rules": RULES,
            "paired_tests": f"against the first run, {args.n_perm} sign flips",
            "data": "SIMULATED (rankbook.data.track.simulate_track, seed 0)",
        },
        "write_track_s": write_s,
        "one_process": one,
        "dask": {**dask, "workers": args.workers},
        "ratio_dask_to_one_process": dask["total_s"] / one["total_s"],
        "ratio_dask_to_one_process_audit_only": dask["audit_s"] / one["audit_s"],
        "per_run_s": {
            "one_process": one["audit_s"] / args.runs,
            "dask": dask["audit_s"] / args.runs,
        },
        "extrapolated_audit_s": {
            "runs": args.extrapolate,
            "one_process": one["audit_s"] / args.runs * args.extrapolate,
            "dask": dask["audit_s"] / args.runs * args.extrapolate,
        },
        "leaderboards_equal": True,
        "machine": {
            "cpus": os.cpu_count(),
            "python": platform.python_version(),
            "load_average_at_end": list(os.getloadavg()),
        },
    }
    print(json.dumps(result, indent=2))
    if args.json:
        args.json.write_text(json.dumps(result, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
