"""Run the peers on runs and qrels, in a child process (pytrec_eval has been seen to hang).

Reads one JSON job a line on stdin, ``{"run": {q: {d: s}}, "qrels": {q: {d: l}}, "level": int,
"asks": [[provider, name, key], ...]}``, and answers each with one line ``{key: {query:
value}}`` on stdout, until stdin ends (one process answers a test run's jobs: the peers' imports,
ranx's above all, cost seconds each time a process makes them): ``pytrec_eval`` takes a
trec_eval measure name, ``ir_measures`` an ir_measures measure string (computed alone, one
call each: with several measures in one call ir_measures 0.4.3 has been seen to mix up
``nDCG`` and ``nDCG(gains=...)``), ``ir_measures_aggregate`` the same, aggregated by
ir_measures' own aggregator (``{"all": value}``), ``ranx`` a ranx metric name.
"""

from __future__ import annotations

import json
import sys


def main() -> None:
    for line in sys.stdin:
        sys.stdout.write(json.dumps(answer(json.loads(line))) + "\n")
        sys.stdout.flush()


def answer(job: dict) -> dict[str, dict[str, float]]:
    """The peers' values for one job."""
    run, qrels, level = job["run"], job["qrels"], job["level"]
    out: dict[str, dict[str, float]] = {}
    for provider, name, key in job["asks"]:
        if provider == "pytrec_eval":
            import pytrec_eval

            ev = pytrec_eval.RelevanceEvaluator(qrels, {name}, relevance_level=level)
            res = ev.evaluate(run)
            field = name.replace(".", "_")
            out[key] = {q: v[field] for q, v in res.items()}
        elif provider == "ir_measures":
            import ir_measures

            measure = ir_measures.parse_measure(name)
            values = ir_measures.iter_calc([measure], qrels, run)
            out[key] = {m.query_id: float(m.value) for m in values}
        elif provider == "ir_measures_aggregate":
            import ir_measures

            measure = ir_measures.parse_measure(name)
            out[key] = {"all": float(ir_measures.calc_aggregate([measure], qrels, run)[measure])}
        elif provider == "ranx":
            from ranx import Qrels, Run, evaluate

            common = sorted(set(run) & set(qrels))
            q = Qrels({k: qrels[k] for k in common})
            r = Run({k: run[k] for k in common})
            evaluate(q, r, name, return_mean=False, save_results_in_run=True)
            out[key] = {k: float(v) for k, v in r.scores[name].items()}
        else:
            raise ValueError(provider)
    return out


if __name__ == "__main__":
    main()
