"""Measure the run time of chapter 11 at the sizes its power section asks for (no peer here).

Chapter 11 (``notebooks/11_ablation.md``) computes, from its own per-query differences, how many
ranker sessions give 80% power for the paper's smallest and largest Table 1 lifts (results key
``power_design``). This script reruns the chapter at those sizes, each in a folder of its own
(``pipeline run 11_ablation -p n_sessions N --out DIR``, so the site is untouched), and records
what each run measured: wall time, test queries with a sale, and the power and 95% CI of the
targeted row. The record, ``benchmarks/power_design.json``, is what chapter 11 shows as the
measured run time of those designs, with the commit, date and machine it came from.

    python benchmarks/power_design.py                      # both designs, from the book's results
    python benchmarks/power_design.py --which largest      # the quick one only

Run it after ``make book`` (it reads ``book/_build/results/11_ablation.json``) on an otherwise
idle machine: the wall time is the figure it exists for.
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import os
import platform
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from rankbook.report.environment import git_state

__all__ = ["main", "measure"]

ROOT = Path(__file__).resolve().parent.parent
RESULTS = ROOT / "book" / "_build" / "results" / "11_ablation.json"
RECORD = ROOT / "benchmarks" / "power_design.json"


def _cpu() -> str:
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown"


def measure(design: dict, params: dict, out_dir: Path) -> dict:
    """Run chapter 11 at ``design["n_sessions"]`` (other parameters as in ``params``)."""
    args = ["-p", "n_sessions", str(design["n_sessions"])]
    for key in ("seed", "encoder_sessions", "n_seeds", "n_boot"):
        args += ["-p", key, str(params[key])]
    cmd = [sys.executable, "-m", "rankbook.report.pipeline", "run", "11_ablation", *args]
    t0 = time.perf_counter()
    subprocess.run([*cmd, "--out", str(out_dir)], cwd=ROOT, check=True)
    wall = time.perf_counter() - t0
    result = json.loads((out_dir / "11_ablation.json").read_text())
    row = next(r for r in result["power"] if r["target"] == design["target"])
    lift = next(r for r in result["table1"] if r["variant"] == design["target"])
    return {
        **design,
        "wall_seconds": wall,
        "ranker_fit_seconds": result["ranker_fit_seconds"],
        "n_test_queries_with_sale": result["n_test_queries_with_sale"],
        "power_measured_at_this_size": row["power"],
        "lift_pct": lift["lift_pct"],
        "ci_low": lift["ci_low"],
        "ci_high": lift["ci_high"],
    }


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--results", type=Path, default=RESULTS, help="chapter 11's results JSON")
    ap.add_argument(
        "--which",
        nargs="+",
        default=["largest", "smallest"],
        choices=["largest", "smallest"],
        help="which designs to run",
    )
    ap.add_argument("--record", type=Path, default=RECORD, help="where to write the record")
    a = ap.parse_args(argv)
    if not a.results.is_file():
        ap.error(f"--results {a.results} does not exist: run `make book` (or chapter 11) first")
    source = json.loads(a.results.read_text())
    if "power_design" not in source:
        ap.error(f"--results {a.results} has no key 'power_design' (an older chapter 11?)")
    params = source["params"]
    if params.get("data_dir"):
        ap.error("the results come from a real log (data_dir); the designs are for the simulator")
    runs = {}
    with tempfile.TemporaryDirectory() as tmp:
        for which in a.which:
            design = source["power_design"][which]
            print(
                f"chapter 11 at n_sessions={design['n_sessions']:,} ({which} paper lift)...",
                flush=True,
            )
            runs[which] = measure(design, params, Path(tmp) / which)
            print(f"  {runs[which]['wall_seconds']:.0f} s", flush=True)
    if a.record.is_file():  # keep the other design of an earlier run with the same parameters
        old = json.loads(a.record.read_text())
        if old.get("from_results_of", {}).get("params") == params:
            runs = {**old.get("runs", {}), **runs}
    state = git_state(ROOT)
    record = {
        "what": "chapter 11 rerun at the sizes its power section gives for 80% power",
        "from_results_of": {"params": params, "rankaudit_version": source["rankaudit_version"]},
        "runs": runs,
        "commit": state["commit"] or "unknown",
        "dirty": state["dirty"],
        "date": dt.date.today().isoformat(),
        "machine": {"cpu": _cpu(), "cores": os.cpu_count()},
    }
    a.record.write_text(json.dumps(record, indent=2, sort_keys=True) + "\n")
    print(f"wrote {a.record}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
