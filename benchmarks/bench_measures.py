"""Cost of adding measures and rules, side by side with the C trec_eval, in one run.

Workload: the simulated TREC run of ``bench_runs.py`` (its generator, same seed: ``--queries``
x ``--docs`` lines, default 10,000 x 1,000 = 10,000,000; scores from 40 values, so about 25
documents tie on each score in a query; qrels with 60 judgments per query, labels 0..3), and
the 2,073,945 x 31 rectangular case of ``bench_ties.py`` (its generator, tie-heavy scores 0..3
and continuous scores, one relevant item per row).  Every contender on the run is its own
process, timed by wall clock (interpreter start-up included):

(a) ``rankaudit audit QRELS RUN --format json``: the 4 default measures under the 4 default
    rules;
(b) ``rankaudit audit QRELS RUN -m <--measures> --ties <--ties> --format json``: by default 10
    measures x 4 rules;
(c) the C trec_eval (``--trec-eval PATH``; default ``$TREC_EVAL`` or ``trec_eval`` on PATH)
    computing the measures of (b) that it has, under its one rule (``trec_eval -m ndcg_cut.10
    -m P.10 ...  QRELS RUN``); skipped with a note when no binary is found (nothing is ever
    downloaded);
(d) ``rankaudit.evaluate(scores, labels, k=10, ties="expected")`` in this process against one
    read of its inputs, defined as ``scores.sum() + labels.sum()`` (NumPy's reduction over
    every element of each array, once); a load of both arrays from ``.npy`` files in the page
    cache (``np.load``) is reported beside it for reference.

(a), (b) and (c) alternate ``--repeats`` times (default 3) and each is reported by its fastest
trial (the minimum filters noise from other jobs on a shared machine) and by the largest peak
memory over its trials (maximum resident set size, from ``/usr/bin/time -v`` when present,
else ``getrusage(RUSAGE_CHILDREN)`` of a wrapper process).  (d) and its floor alternate
``max(--repeats, 7)`` times, best of each.

Ratios and goals: (b)/(a) <= 1.5; (b)/(c) < 1; peak(b)/peak(c) <= 1; (d)/read <= 2.

Correctness cross-check, printed with the timings: rankaudit's aggregate under the
``trec_eval`` rule against the C trec_eval's (which prints 4 decimals, so agreement means a
difference <= 5e-5) and against pytrec_eval's (full precision; agreement means <= 1e-9), for
every measure the peer has.

Usage::

    python benchmarks/bench_measures.py                         # full size (several minutes)
    python benchmarks/bench_measures.py --rows 2000000          # reduced run file
    python benchmarks/bench_measures.py --trec-eval /tmp/trec_eval_O2/trec_eval
    python benchmarks/bench_measures.py --measures nDCG@10 P@10 R@100 AP RR Success@10
    python benchmarks/bench_measures.py --json benchmarks/bench_measures.json  # summary
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import re
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np
from bench_runs import timed as timed_rusage
from bench_runs import write_workloads
from bench_ties import FULL_ROWS, best_times_interleaved, make_data

__all__ = ["DEFAULT_MEASURES", "DEFAULT_RULES", "trec_eval_spec", "trec_eval_flags", "main"]

ROOT = Path(__file__).resolve().parents[1]
OUT_DIR = Path(__file__).resolve().parent / "_out"
DEFAULT_MEASURES = [
    "nDCG@10",
    "P@10",
    "R@100",
    "AP",
    "RR",
    "Success@10",
    "Rprec",
    "AP@100",
    "RR@10",
    "bpref",
]
DEFAULT_RULES = ["trec_eval", "expected", "pessimistic", "optimistic"]
GNU_TIME = Path("/usr/bin/time")

# rankaudit measure (ir_measures spelling) -> trec_eval measure family; cutoff families take k
_CUT = {"nDCG": "ndcg_cut", "P": "P", "R": "recall", "AP": "map_cut", "Success": "success"}
_PLAIN = {
    "AP": "map",
    "RR": "recip_rank",
    "Rprec": "Rprec",
    "bpref": "bpref",
    "Bpref": "bpref",
    "NumRet": "num_ret",
    "NumRel": "num_rel",
    "NumRelRet": "num_rel_ret",
}

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
res = pytrec_eval.RelevanceEvaluator(j, set(sys.argv[3:])).evaluate(r)
keys = sorted({k for v in res.values() for k in v})
print(json.dumps({k: sum(v[k] for v in res.values()) / len(res) for k in keys}))
"""


def trec_eval_spec(measure: str) -> tuple[str, str | None, str] | None:
    """The C trec_eval measure computing ``measure`` under its one rule, or None.

    Returns ``(family, parameter, output name)``: ``nDCG@10`` -> ``("ndcg_cut", "10",
    "ndcg_cut_10")``, ``RBP(p=0.8)`` -> ``("rbp", "p=0.8", "rbp_p=0.8")``, ``AP`` ->
    ``("map", None, "map")``.  None where trec_eval has no such measure (``RR@10``,
    ``nDCG(dcg='exp-log2')@10``, ``Judged@10``, ``ERR@20``): those are timed in (b) only.
    """
    m = re.fullmatch(r"(nDCG|P|R|AP|Success)@(\d+)", measure)
    if m:
        fam = _CUT[m.group(1)]
        return fam, m.group(2), f"{fam}_{m.group(2)}"
    if measure in _PLAIN:
        return _PLAIN[measure], None, _PLAIN[measure]
    m = re.fullmatch(r"RBP\(p=([0-9.]+)\)", measure)
    if m:
        return "rbp", f"p={m.group(1)}", f"rbp_p={m.group(1)}"
    return None


def trec_eval_flags(measures: list[str]) -> tuple[list[str], dict[str, str]]:
    """``-m`` flags for trec_eval (cutoffs of one family joined: ``-m P.10,100``) and the
    map from its output names to rankaudit's measure names."""
    params: dict[str, list[str]] = {}
    names: dict[str, str] = {}
    for measure in measures:
        spec = trec_eval_spec(measure)
        if spec is None:
            continue
        fam, param, out = spec
        params.setdefault(fam, [])
        if param is not None and param not in params[fam]:
            params[fam].append(param)
        names[out] = measure
    flags: list[str] = []
    for fam, ps in params.items():
        flags += ["-m", f"{fam}.{','.join(ps)}" if ps else fam]
    return flags, names


def resolve_trec_eval(given: str | None) -> str | None:
    """Path of the C trec_eval: ``--trec-eval``, else ``$TREC_EVAL``, else ``trec_eval`` on
    PATH; None when none is an executable file."""
    cand = given or os.environ.get("TREC_EVAL") or shutil.which("trec_eval")
    if cand and Path(cand).is_file() and os.access(cand, os.X_OK):
        return str(Path(cand).resolve())
    if given:
        raise SystemExit(f"--trec-eval {given}: not an executable file")
    return None


def trec_eval_version(path: str | None) -> str | None:
    """What ``trec_eval -v`` prints (None without a binary)."""
    if path is None:
        return None
    proc = subprocess.run([path, "-v"], capture_output=True, text=True)
    return (proc.stdout + proc.stderr).strip()


def timed(cmd: list[str]) -> tuple[float, float, str, float | None]:
    """Wall seconds, peak RSS (GB), stdout and CPU seconds (user + system) of one child.

    Peak RSS and CPU time from GNU ``/usr/bin/time -v`` ("Maximum resident set size", "User
    time", "System time") when present, else the peak from ``getrusage(RUSAGE_CHILDREN)`` in a
    wrapper process (``bench_runs.timed``) and no CPU time; both read the ``rusage`` the
    kernel reports for the child."""
    if not GNU_TIME.exists():
        return (*timed_rusage(cmd), None)
    env = dict(os.environ, PYTHONPATH=str(ROOT / "src"))
    t0 = time.perf_counter()
    proc = subprocess.run([str(GNU_TIME), "-v", *cmd], capture_output=True, text=True, env=env)
    wall = time.perf_counter() - t0
    if proc.returncode != 0:
        err = proc.stderr.split("\tCommand being timed:")[0]  # drop /usr/bin/time's report
        raise RuntimeError(f"{' '.join(cmd[:8])} ... failed (rc {proc.returncode}): {err[-2000:]}")
    kb = re.findall(r"Maximum resident set size \(kbytes\): (\d+)", proc.stderr)
    user = re.findall(r"User time \(seconds\): ([0-9.]+)", proc.stderr)
    system = re.findall(r"System time \(seconds\): ([0-9.]+)", proc.stderr)
    if not (kb and user and system):
        raise RuntimeError(f"no rusage in /usr/bin/time output: {proc.stderr[-500:]}")
    return wall, int(kb[-1]) / 1024**2, proc.stdout, float(user[-1]) + float(system[-1])


def parse_trec_eval(text: str) -> dict[str, float]:
    """``name<TAB>all<TAB>value`` lines of trec_eval's summary -> {name: value}."""
    out = {}
    for line in text.splitlines():
        parts = line.split()
        if len(parts) == 3 and parts[1] == "all":
            try:
                out[parts[0]] = float(parts[2])
            except ValueError:
                continue
    return out


def _evaluate_fns(
    scores: np.ndarray, labels: np.ndarray, tmp: Path
) -> dict[str, Callable[[], object]]:
    """The three timed calls of (d): the read floor, the page-cache load, the evaluation."""
    import rankaudit

    return {
        "read_sum": lambda: scores.sum() + labels.sum(),
        "np_load": lambda: (np.load(tmp / "scores.npy"), np.load(tmp / "labels.npy")),
        "evaluate_expected": lambda: rankaudit.evaluate(scores, labels, k=10, ties="expected"),
    }


def bench_evaluate(rows: int, candidates: int, repeats: int, tmp: Path) -> dict[str, dict]:
    """(d): ``evaluate(ties="expected")`` against one read of scores and labels, both cases."""
    out = {}
    for case in ("tie-heavy", "continuous"):
        scores, labels = make_data(rows, candidates, case)
        np.save(tmp / "scores.npy", scores)
        np.save(tmp / "labels.npy", labels)
        res = best_times_interleaved(_evaluate_fns(scores, labels, tmp), max(repeats, 7))
        res["ratio_read_sum"] = res["evaluate_expected"] / res["read_sum"]
        res["ratio_np_load"] = res["evaluate_expected"] / res["np_load"]
        out[case] = res
        print(
            f"(d) {case}: evaluate(expected) {res['evaluate_expected'] * 1e3:.1f} ms, "
            f"scores.sum()+labels.sum() {res['read_sum'] * 1e3:.1f} ms, "
            f"np.load both {res['np_load'] * 1e3:.1f} ms",
            flush=True,
        )
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--queries", type=int, default=10_000)
    parser.add_argument("--docs", type=int, default=1_000, help="documents per query")
    parser.add_argument("--rows", type=int, default=None, help="run lines (sets --queries)")
    parser.add_argument(
        "--measures", nargs="+", default=DEFAULT_MEASURES, help="measures of (b) (ir_measures)"
    )
    parser.add_argument("--ties", nargs="+", default=DEFAULT_RULES, help="rules of (b)")
    parser.add_argument("--trec-eval", default=None, help="C trec_eval binary (see README)")
    parser.add_argument(
        "--trec-eval-also",
        nargs="+",
        default=[],
        metavar="PATH",
        help="other trec_eval builds, timed beside (c) for reference (e.g. the default -O0 make)",
    )
    parser.add_argument("--repeats", type=int, default=3, help="alternating trials (best)")
    parser.add_argument(
        "--eval-rows",
        type=int,
        default=None,
        help=f"rows of (d) (default {FULL_ROWS:,}, or --rows when smaller)",
    )
    parser.add_argument("--candidates", type=int, default=31, help="candidates per row of (d)")
    parser.add_argument("--skip-pytrec-eval", action="store_true", help="no pytrec_eval check")
    parser.add_argument("--json", type=Path, default=None, help="also write a summary here")
    parser.add_argument("--strict", action="store_true", help="exit 1 when a goal is missed")
    args, _ = parser.parse_known_args(argv)
    if args.repeats < 1:
        parser.error(f"--repeats must be at least 1; got {args.repeats}")
    if args.rows is not None:
        args.queries = max(args.rows // args.docs, 1)
        if args.eval_rows is None:
            args.eval_rows = min(args.rows, FULL_ROWS)
    if args.eval_rows is None:
        args.eval_rows = FULL_ROWS
    trec_eval = resolve_trec_eval(args.trec_eval)
    py = sys.executable
    audit = [py, "-m", "rankaudit", "audit"]
    many = ["-m", *args.measures, "--ties", ",".join(args.ties), "--format", "json"]
    te_flags, te_names = trec_eval_flags(args.measures)
    no_te = [m for m in args.measures if trec_eval_spec(m) is None]
    lines = args.queries * args.docs
    result: dict = {
        "workload": {
            "run_lines": lines,
            "queries": args.queries,
            "docs_per_query": args.docs,
            "data": "SIMULATED (benchmarks/bench_runs.write_workload, seed 0)",
            "measures_b": args.measures,
            "rules_b": args.ties,
            "trec_eval_flags": te_flags,
            "no_trec_eval_counterpart": no_te,
            "evaluate_shape": [args.eval_rows, args.candidates],
            "read_definition": "scores.sum() + labels.sum() (NumPy, in memory)",
            "repeats": args.repeats,
            "timing": "min over alternating trials; peak = max RSS over trials",
        }
    }
    OUT_DIR.mkdir(exist_ok=True)
    with tempfile.TemporaryDirectory() as tmp:
        d = Path(tmp)
        run_path, qrels_path, warm_run, warm_qrels = write_workloads(d, args.queries, args.docs)
        contenders = {
            "a_audit_default": [*audit, "--format", "json"],
            "b_audit_many": [*audit, *many],
        }
        for cmd in contenders.values():  # numba cache, as after any first use
            try:
                timed([*cmd, str(warm_qrels), str(warm_run)])
            except RuntimeError as exc:
                print(f"bench_measures: error: warm-up run: {exc}", file=sys.stderr)
                print(
                    "(measures not in rankaudit yet? pass --measures with the ones it has, e.g. "
                    "--measures nDCG@10 P@10 R@100 AP RR Success@10)",
                    file=sys.stderr,
                )
                return 2
        cmds = {k: [*v, str(qrels_path), str(run_path)] for k, v in contenders.items()}
        if trec_eval is None:
            print(
                "NOTE: no C trec_eval (give --trec-eval PATH or set TREC_EVAL; build steps in "
                "benchmarks/README.md): (c) skipped",
                flush=True,
            )
        elif not te_flags:
            print("NOTE: none of --measures has a trec_eval counterpart: (c) skipped")
        else:
            cmds["c_trec_eval"] = [trec_eval, *te_flags, str(qrels_path), str(run_path)]
            for i, other in enumerate(args.trec_eval_also, start=1):
                path = resolve_trec_eval(other)
                cmds[f"c_trec_eval_also_{i}"] = [path, *te_flags, str(qrels_path), str(run_path)]
            print(f"(c) {' '.join(cmds['c_trec_eval'][:-2])} QRELS RUN", flush=True)
            if no_te:
                print(f"    no trec_eval counterpart (timed in (b) only): {', '.join(no_te)}")
        trials: dict[str, list[tuple[float, float, str, float | None]]] = {k: [] for k in cmds}
        load1: list[float] = []  # 1-minute load average before each round (shared machines)
        for _ in range(args.repeats):
            load1.append(os.getloadavg()[0])
            for name, cmd in cmds.items():
                trials[name].append(timed(cmd))
        runs = {}
        for name, ts in trials.items():
            fastest = min(ts, key=lambda r: r[0])
            runs[name] = {
                "seconds": fastest[0],
                "trials_seconds": [r[0] for r in ts],
                "peak_rss_gb": max(r[1] for r in ts),
                "trials_cpu_seconds": [r[3] for r in ts],
            }
            walls = ", ".join(f"{r[0]:.2f}" for r in ts)
            peak = runs[name]["peak_rss_gb"]
            cpu = "" if ts[0][3] is None else f", CPU (user+sys) min {min(r[3] for r in ts):.2f} s"
            print(
                f"{name}: best {fastest[0]:.2f} s of [{walls}], peak {peak:.2f} GB{cpu}", flush=True
            )
        result["runs"] = runs
        result["load1_before_each_round"] = load1
        print(f"1-min load average before each round: {', '.join(f'{x:.1f}' for x in load1)}")
        # correctness cross-check of (b)'s trec_eval rule against the peers
        ours = json.loads(trials["b_audit_many"][0][2])
        # keyed case-insensitively: the audit may print its own spelling (``bpref`` -> ``Bpref``)
        agg = {
            r["measure"].casefold(): r["value"]
            for r in ours["aggregate"]
            if r["ties"] == "trec_eval"
        }

        def gaps(ref: dict[str, float]) -> dict[str, float]:
            return {
                te_names[k]: abs(agg[te_names[k].casefold()] - v)
                for k, v in ref.items()
                if k in te_names and te_names[k].casefold() in agg
            }

        checks = {}
        if "c_trec_eval" in trials:
            ref = parse_trec_eval(trials["c_trec_eval"][0][2])
            diffs = gaps(ref)
            checks["c_trec_eval"] = {"tolerance": 5e-5 + 1e-12, "abs_diff": diffs}
        if not args.skip_pytrec_eval and te_flags:
            try:
                import pytrec_eval  # noqa: F401
            except ImportError:
                print("NOTE: pytrec_eval not installed: its cross-check skipped")
            else:
                wanted = [f for f in te_flags if f != "-m"]
                wall, _, out = timed_rusage(
                    [py, "-c", _PYTREC, str(run_path), str(qrels_path)] + wanted
                )
                ref = json.loads(out)
                diffs = gaps(ref)
                checks["pytrec_eval"] = {"tolerance": 1e-9, "abs_diff": diffs, "seconds": wall}
        for peer, c in checks.items():
            missing = sorted(set(te_names.values()) - set(c["abs_diff"]))  # peer or audit lacks
            c["agree"] = bool(c["abs_diff"]) and max(c["abs_diff"].values()) <= c["tolerance"]
            c["not_computed_by_peer"] = missing
            worst = max(c["abs_diff"].values()) if c["abs_diff"] else float("nan")
            print(
                f"check vs {peer}: max |diff| {worst:.1e} over {len(c['abs_diff'])} measures "
                f"({'agree' if c['agree'] else 'DISAGREE'} at {c['tolerance']:g})"
                + (f"; peer lacks {', '.join(missing)}" if missing else ""),
                flush=True,
            )
            for m, g in c["abs_diff"].items():
                print(f"    {m:<14}{g:.1e}")
        result["cross_check"] = checks
        result["evaluate"] = bench_evaluate(args.eval_rows, args.candidates, args.repeats, d)

    rows = [
        (
            "(b)/(a) audit 10x4 / default",
            runs["b_audit_many"]["seconds"] / runs["a_audit_default"]["seconds"],
            1.5,
            "<=",
        )
    ]
    if "c_trec_eval" in runs:
        rows += [
            (
                "(b)/(c) audit / C trec_eval",
                runs["b_audit_many"]["seconds"] / runs["c_trec_eval"]["seconds"],
                1.0,
                "<",
            ),
            (
                "peak(b)/peak(c)",
                runs["b_audit_many"]["peak_rss_gb"] / runs["c_trec_eval"]["peak_rss_gb"],
                1.0,
                "<=",
            ),
        ]
    for case, res in result["evaluate"].items():
        rows.append((f"(d)/read {case}", res["ratio_read_sum"], 2.0, "<="))
    ok = True
    print(f"\n{'ratio':<32}{'value':>8}  goal")
    result["ratios"] = {}
    for name, value, goal, op in rows:
        met = value <= goal if op == "<=" else value < goal
        ok &= met
        result["ratios"][name] = {"value": value, "goal": f"{op} {goal:g}", "met": met}
        print(f"{name:<32}{value:>8.2f}  {op} {goal:g} {'met' if met else 'MISSED'}")
    for case, res in result["evaluate"].items():
        print(f"{'(d)/np.load ' + case + ' (info)':<32}{res['ratio_np_load']:>8.2f}")
    cpu = {k: v["trials_cpu_seconds"] for k, v in runs.items()}
    if all(None not in c for c in cpu.values()):
        # CPU seconds (user + sys, min over trials): less sensitive to other jobs than wall
        # time, but rankaudit runs queries on every core while trec_eval uses one
        best_cpu = {k: min(c) for k, c in cpu.items()}
        info = [("(b)/(a) CPU seconds (info)", "b_audit_many", "a_audit_default")]
        if "c_trec_eval" in best_cpu:
            info.append(("(b)/(c) CPU seconds (info)", "b_audit_many", "c_trec_eval"))
        result["cpu_ratios"] = {}
        for name, num, den in info:
            result["cpu_ratios"][name] = best_cpu[num] / best_cpu[den]
            print(f"{name:<32}{best_cpu[num] / best_cpu[den]:>8.2f}")
    result["machine"] = {
        "processor": platform.processor() or platform.machine(),
        "cpus": os.cpu_count(),
        "load_average": os.getloadavg(),
        "python": platform.python_version(),
        "numpy": np.__version__,
        "trec_eval": trec_eval,
        "trec_eval_version": trec_eval_version(trec_eval),
        "trec_eval_also": [resolve_trec_eval(p) for p in args.trec_eval_also],
    }
    text = json.dumps(result, indent=2) + "\n"
    (OUT_DIR / "bench_measures.json").write_text(text)
    print(f"wrote {OUT_DIR / 'bench_measures.json'}")
    if args.json:
        args.json.write_text(text)
        print(f"wrote {args.json}")
    return 1 if (args.strict and not ok) else 0


if __name__ == "__main__":
    raise SystemExit(main())
