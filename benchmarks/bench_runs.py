"""Speed and memory of ``rankaudit audit`` on a large TREC run, as ratios to peers in one run.

Workload (issue 13): a simulated TREC run of ``--queries`` x ``--docs`` lines (default
10,000 x 1,000 = 10,000,000 lines) with heavy ties (scores drawn from 40 values, about 25
documents per tied score in each query) and its qrels (60 judged documents per query, 50 of
them retrieved, labels 0..3).  Every contender runs as its own process (interpreter start-up
included), one after the other, and is timed by wall clock:

- ``rankaudit audit QRELS RUN -m nDCG@10 P@10 AP RR --ties
  trec_eval,expected,pessimistic,optimistic --format json`` (the numba cache warmed first on a
  small file, as after any first use);
- ``pandas.read_csv(RUN, sep=" ", header=None, engine="pyarrow")``: goal ``audit`` within 2x;
- pytrec_eval (reading with pandas, building its nested dicts, evaluating ``ndcg_cut.10``,
  ``P.10``, ``map``, ``recip_rank`` under its one rule): goal ``audit`` faster;
- ir_measures 0.4.3 ``calc_aggregate([nDCG@10, P@10, AP, RR], qrels, run)`` on DataFrames
  read with pandas: goal ``audit`` faster.

``audit`` and ``read_csv`` run ``--repeats`` times (default 5), alternating; each reports the
wall time of its fastest run, as ``bench_ties.py`` reports the best of its repeats (on this
shared 2-core VM the same process moves by up to 60% between runs, every phase at once: noise
from outside, which the minimum filters), and the peak memory of its largest; the peers run
once.  Peak memory is each process's maximum resident set size (``ru_maxrss``); goal for
``audit``: < 3 GB.  The audit's aggregate under ``trec_eval`` is checked against pytrec_eval's.

Usage::

    python benchmarks/bench_runs.py                          # full size (several minutes)
    python benchmarks/bench_runs.py --queries 500 --docs 200  # quick run
    python benchmarks/bench_runs.py --rows 200000             # as run_all passes it
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.csv as pacsv

ROOT = Path(__file__).resolve().parents[1]

_READ = "import pandas as pd, sys; pd.read_csv(sys.argv[1], sep=' ', header=None, engine='pyarrow')"
_PYTREC = """
import json, sys, pandas as pd, pytrec_eval
run = pd.read_csv(sys.argv[1], sep=' ', header=None, engine='pyarrow', dtype={0: str, 2: str})
qrels = pd.read_csv(sys.argv[2], sep=' ', header=None, engine='pyarrow', dtype={0: str, 2: str})
r = {}
for q, d, s in zip(run[0].to_numpy(), run[2].to_numpy(), run[4].to_numpy()):
    r.setdefault(q, {})[d] = float(s)
j = {}
for q, d, v in zip(qrels[0].to_numpy(), qrels[2].to_numpy(), qrels[3].to_numpy()):
    j.setdefault(q, {})[d] = int(v)
res = pytrec_eval.RelevanceEvaluator(j, {'ndcg_cut.10', 'P.10', 'map', 'recip_rank'}).evaluate(r)
keys = ['ndcg_cut_10', 'P_10', 'map', 'recip_rank']
print(json.dumps({k: sum(v[k] for v in res.values()) / len(res) for k in keys}))
"""
_IRM = """
import json, sys, pandas as pd, ir_measures
from ir_measures import nDCG, P, AP, RR
run = pd.read_csv(sys.argv[1], sep=' ', header=None, engine='pyarrow', dtype={0: str, 2: str})
run = pd.DataFrame({'query_id': run[0], 'doc_id': run[2], 'score': run[4]})
qrels = pd.read_csv(sys.argv[2], sep=' ', header=None, engine='pyarrow', dtype={0: str, 2: str})
qrels = pd.DataFrame({'query_id': qrels[0], 'doc_id': qrels[2], 'relevance': qrels[3]})
agg = ir_measures.calc_aggregate([nDCG@10, P@10, AP, RR], qrels, run)
print(json.dumps({str(k): v for k, v in agg.items()}))
"""


def write_workload(
    directory: Path, n_queries: int, n_docs: int, seed: int = 0
) -> tuple[Path, Path]:
    """Write the simulated run and qrels (space-separated TREC files)."""
    rng = np.random.default_rng(seed)
    n = n_queries * n_docs
    qid = np.repeat(np.arange(n_queries), n_docs)
    pool = max(10 * n_docs, 100_000)
    doc = np.empty(n, dtype=np.int64)
    for q in range(n_queries):  # distinct documents within a query
        doc[q * n_docs : (q + 1) * n_docs] = rng.choice(pool, size=n_docs, replace=False)
    score = rng.integers(0, 40, size=n) / 8.0
    order = np.lexsort((-score, qid))  # a run file lists each query best first
    qs = pa.array(np.char.add("Q", qid[order].astype(str)))
    ds = pa.array(np.char.add("D", doc[order].astype(str)))
    rank = np.tile(np.arange(1, n_docs + 1), n_queries)
    table = pa.table(
        {
            "q": qs,
            "z": pa.array(np.full(n, "Q0")),
            "d": ds,
            "r": rank,
            "s": score[order],
            "t": pa.array(np.full(n, "sim")),
        }
    )
    run_path = directory / "run.txt"
    opts = pacsv.WriteOptions(include_header=False, delimiter=" ", quoting_style="none")
    pacsv.write_csv(table, run_path, opts)
    # qrels: 50 retrieved + 10 unretrieved judged documents per query
    jq, jd, jl = [], [], []
    for q in range(n_queries):
        picked = rng.choice(n_docs, size=min(50, n_docs), replace=False)
        docs = doc[q * n_docs + picked]
        extra = pool + rng.choice(pool, size=10, replace=False)
        all_docs = np.concatenate([docs, extra])
        jq.append(np.full(len(all_docs), q))
        jd.append(all_docs)
        jl.append(rng.choice([0, 0, 1, 1, 2, 3], size=len(all_docs)))
    qrels = pa.table(
        {
            "q": pa.array(np.char.add("Q", np.concatenate(jq).astype(str))),
            "i": pa.array(np.zeros(sum(map(len, jq)), dtype=np.int64)),
            "d": pa.array(np.char.add("D", np.concatenate(jd).astype(str))),
            "l": pa.array(np.concatenate(jl)),
        }
    )
    qrels_path = directory / "qrels.txt"
    pacsv.write_csv(qrels, qrels_path, opts)
    return run_path, qrels_path


def write_workloads(directory: Path, n_queries: int, n_docs: int) -> tuple[Path, Path, Path, Path]:
    """The timed run and qrels (printing their size and writing time) and a small pair in
    ``directory/small`` to warm numba's cache before timing: ``(run, qrels, warm_run,
    warm_qrels)``."""
    t0 = time.perf_counter()
    run_path, qrels_path = write_workload(directory, n_queries, n_docs)
    print(
        f"workload: {n_queries} queries x {n_docs} docs = {n_queries * n_docs:,} lines, "
        f"{run_path.stat().st_size / 1e6:.0f} MB (written in {time.perf_counter() - t0:.1f} s)",
        flush=True,
    )
    small = directory / "small"
    small.mkdir()
    warm_run, warm_qrels = write_workload(small, 20, 50, seed=1)
    return run_path, qrels_path, warm_run, warm_qrels


def timed(cmd: list[str]) -> tuple[float, float, str]:
    """Wall seconds, peak RSS (GB) and stdout of one child process."""
    env = dict(os.environ, PYTHONPATH=str(ROOT / "src"))
    wrapper = (
        "import resource, subprocess, sys, time, json\n"
        "t = time.perf_counter()\n"
        "p = subprocess.run(sys.argv[1:], capture_output=True, text=True)\n"
        "w = time.perf_counter() - t\n"
        "rss = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss\n"
        "print(json.dumps({'rc': p.returncode, 'wall': w, 'rss_kb': rss, 'out': p.stdout,"
        " 'err': p.stderr[-2000:]}))\n"
    )
    proc = subprocess.run(
        [sys.executable, "-c", wrapper, *cmd], capture_output=True, text=True, env=env, check=True
    )
    doc = json.loads(proc.stdout)
    if doc["rc"] != 0:
        raise RuntimeError(f"{cmd[:4]} failed: {doc['err']}")
    return doc["wall"], doc["rss_kb"] / 1024**2, doc["out"]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--queries", type=int, default=10_000)
    parser.add_argument("--docs", type=int, default=1_000, help="documents per query")
    parser.add_argument(
        "--rows",
        type=int,
        default=None,
        help="total lines (sets --queries = rows // docs; run_all passes it)",
    )
    parser.add_argument("--skip-peers", action="store_true", help="time rankaudit and pandas only")
    parser.add_argument(
        "--repeats", type=int, default=5, help="alternating runs of audit and read_csv (best)"
    )
    parser.add_argument("--strict", action="store_true", help="exit 1 when a goal is missed")
    args, _ = parser.parse_known_args(argv)
    if args.repeats < 1:
        parser.error(f"--repeats must be at least 1; got {args.repeats}")
    if args.rows is not None:
        args.queries = max(args.rows // args.docs, 1)
    py = sys.executable
    with tempfile.TemporaryDirectory() as tmp:
        d = Path(tmp)
        run_path, qrels_path, warm_run, warm_qrels = write_workloads(d, args.queries, args.docs)
        audit = [
            py,
            "-m",
            "rankaudit",
            "audit",
            "-m",
            "nDCG@10",
            "P@10",
            "AP",
            "RR",
            "--ties",
            "trec_eval,expected,pessimistic,optimistic",
            "--format",
            "json",
        ]
        timed([*audit, str(warm_qrels), str(warm_run)])  # numba cache
        # audit and read_csv alternate --repeats times; each is reported by its fastest run
        trials: dict[str, list[tuple[float, float, str]]] = {"audit": [], "read_csv": []}
        for _ in range(args.repeats):
            trials["audit"].append(timed([*audit, str(qrels_path), str(run_path)]))
            trials["read_csv"].append(timed([py, "-c", _READ, str(run_path)]))
        results = {}
        for name, runs in trials.items():
            # wall time of the fastest trial; peak memory of the largest (not the fastest's)
            fastest = min(runs, key=lambda r: r[0])
            results[name] = (fastest[0], max(r[1] for r in runs), fastest[2])
            walls = ", ".join(f"{r[0]:.2f}" for r in runs)
            print(f"{name}: best {results[name][0]:.2f} s of [{walls}]", flush=True)
        print(
            f"rankaudit audit (4 measures x 4 rules): {results['audit'][0]:.2f} s, "
            f"peak {results['audit'][1]:.2f} GB",
            flush=True,
        )
        print(f"pandas.read_csv(engine='pyarrow'): {results['read_csv'][0]:.2f} s", flush=True)
        if not args.skip_peers:
            results["pytrec_eval"] = timed([py, "-c", _PYTREC, str(run_path), str(qrels_path)])
            print(f"pytrec_eval (1 rule): {results['pytrec_eval'][0]:.2f} s", flush=True)
            results["ir_measures"] = timed([py, "-c", _IRM, str(run_path), str(qrels_path)])
            print(f"ir_measures (1 rule): {results['ir_measures'][0]:.2f} s", flush=True)
    ours = json.loads(results["audit"][2])
    agg = {(r["measure"], r["ties"]): r["value"] for r in ours["aggregate"]}
    ok = True
    rows = [("audit / read_csv", results["audit"][0] / results["read_csv"][0], "<= 2")]
    if not args.skip_peers:
        ref = json.loads(results["pytrec_eval"][2])
        for m, k in (
            ("nDCG@10", "ndcg_cut_10"),
            ("P@10", "P_10"),
            ("AP", "map"),
            ("RR", "recip_rank"),
        ):
            gap = abs(agg[(m, "trec_eval")] - ref[k])
            print(
                f"check {m}: rankaudit trec_eval {agg[(m, 'trec_eval')]:.6f} vs pytrec_eval "
                f"{ref[k]:.6f} (|diff| {gap:.1e})"
            )
            ok &= gap < 1e-9
        rows += [
            ("pytrec_eval / audit", results["pytrec_eval"][0] / results["audit"][0], ">= 1"),
            ("ir_measures / audit", results["ir_measures"][0] / results["audit"][0], ">= 1"),
        ]
    print(f"\n{'ratio':<24}{'value':>8}  goal")
    for name, value, goal in rows:
        met = value <= 2 if goal == "<= 2" else value >= 1
        ok &= met
        print(f"{name:<24}{value:>8.2f}  {goal} {'met' if met else 'MISSED'}")
    peak = results["audit"][1]
    ok &= peak < 3
    print(f"{'audit peak RSS (GB)':<24}{peak:>8.2f}  < 3 {'met' if peak < 3 else 'MISSED'}")
    print(
        json.dumps(
            {
                "machine": platform.processor() or platform.machine(),
                "cpus": os.cpu_count(),
                "lines": args.queries * args.docs,
                "seconds": {k: v[0] for k, v in results.items()},
                "trials_seconds": {k: [r[0] for r in v] for k, v in trials.items()},
                "peak_rss_gb": {k: v[1] for k, v in results.items()},
            }
        )
    )
    return 1 if (args.strict and not ok) else 0


if __name__ == "__main__":
    raise SystemExit(main())
