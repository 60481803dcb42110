"""Many runs on one qrels as one leaderboard, with what the tie order decides on it.

Each run is audited alone (:func:`rankaudit.runs.evaluate.audit_run`), so its numbers are
exactly those of ``rankaudit audit`` on that run: per-query values aggregated as the measure
declares (the mean over queries, the sum for the counts NumRet, NumRel, NumRelRet, as
trec_eval).  Values that differ by rounding alone
(:func:`rankaudit.measures.list_evaluate.rounding_tolerance`, one tolerance per measure) are
equal everywhere below: in the orders, the rank intervals, the tie-decided pairs and the
tests.  Then, per measure:

- the leaderboard under each rule (:func:`~rankaudit.runs.rank_agreement.leaderboard_order`)
  and Kendall's tau and tau_AP between every two rules' orders (Kendall, 1938; Yilmaz, Aslam &
  Robertson, 2008);
- each system's rank interval: the best and worst rank it can take when every system's value
  may lie anywhere in its own tie envelope ``[pessimistic, optimistic]``
  (:func:`~rankaudit.runs.rank_agreement.rank_intervals`);
- the pairs decided by ties: the order of the two systems differs between two rules, or their
  envelopes overlap (``lo_a <= hi_b`` and ``lo_b <= hi_a``, up to rounding) while their
  trec_eval values differ (by more than rounding);
- paired significance on the tie-free values: per-query ``expected`` values of the queries both
  runs were evaluated on (the judged queries only one of them answered are counted,
  ``n_queries_only_in_a`` / ``_b``, never dropped unsaid; with ``complete`` every judged query
  is evaluated for every run, an unanswered one scoring 0), ``diff`` = the aggregate of ``b``
  minus that of ``a`` over those queries (means; sums for the counts),
  the two-sided sign-flip randomisation test (Fisher, 1935; Smucker, Allan & Carterette, 2007)
  and the paired t-test (Student, 1908), each Holm-adjusted (Holm, 1979) over the pairs of one
  measure.  A pair sharing fewer than :data:`MIN_PAIRED_QUERIES` evaluated queries has no
  test: its record says ``computed=False`` and why, its p-values are ``None``, and the rest of
  the leaderboard stands.

Why this matters: Cabanac, Hubert, Boughanem & Chrisment (2010, CLEF, "Tie-breaking bias:
effect of an uncontrolled parameter on information retrieval evaluation") found that
trec_eval's docno tie-break changes measure values significantly; Lin & Yang (2019, SIGIR,
"The Impact of Score Ties on Repeatability in Document Ranking") showed that score ties make
rankings unrepeatable.

Public API: :data:`LEADERBOARD_RULES`, :data:`MIN_PAIRED_QUERIES`, :data:`TEST_KEYS`,
:func:`leaderboard_rules`, :func:`audit_run_file`, :func:`audit_run_files`, :class:`Leaderboard`,
:func:`build_leaderboard`, :func:`paired_t_pvalue`.
"""

from __future__ import annotations

import itertools
import warnings
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd

from rankaudit._checks import SIGN_FLIPS, check_count, check_int
from rankaudit.measures.aggregation import aggregate_value
from rankaudit.measures.list_evaluate import rounding_tolerance
from rankaudit.measures.registry import Measure
from rankaudit.options import DEFAULT_RESAMPLING, ResamplingOptions
from rankaudit.runs.evaluate import DEFAULT_MEASURES, RunAudit, audit_run
from rankaudit.runs.rank_agreement import kendall_tau, leaderboard_order, rank_intervals, tau_ap
from rankaudit.runs.significance import holm_adjust, paired_randomisation_test
from rankaudit.runs.tables import Qrels, Run

__all__ = [
    "LEADERBOARD_RULES",
    "MIN_PAIRED_QUERIES",
    "TEST_KEYS",
    "Leaderboard",
    "audit_run_file",
    "audit_run_files",
    "build_leaderboard",
    "leaderboard",
    "leaderboard_rules",
    "paired_t_pvalue",
]

#: the rules every leaderboard computes (added after the caller's own, when missing)
LEADERBOARD_RULES = ("trec_eval", "expected", "pessimistic", "optimistic")


def leaderboard_rules(rules: Sequence[str]) -> list[str]:
    """``rules`` followed by those of :data:`LEADERBOARD_RULES` it does not list."""
    return list(dict.fromkeys([*rules, *LEADERBOARD_RULES]))


def audit_run_file(
    source: str | Run, read_run: Callable[[str], Run], qrels: Qrels, **options: object
) -> RunAudit:
    """Audit the run ``source`` (``options``: of ``audit_run``): a path, read with
    ``read_run``, or a :class:`Run` already read (a pipe read by the client of a cluster).

    The run is dropped when this returns: only its per-query values are kept, so auditing
    runs one after the other needs the memory of the largest run, not of all of them.
    """
    run = source if isinstance(source, Run) else read_run(source)
    return audit_run(run, qrels, **options)


def audit_run_files(
    paths: Sequence[str], read_run: Callable[[str], Run], qrels: Qrels, **options: object
) -> list[RunAudit]:
    """:func:`audit_run_file` of every path, in order, in this process."""
    return [audit_run_file(p, read_run, qrels, **options) for p in paths]


def paired_t_pvalue(a: np.ndarray, b: np.ndarray) -> float:
    """Two-sided paired t-test p-value of ``mean(b - a)`` (``scipy.stats.ttest_rel``).

    Differences of rounding alone (every ``|d_q|`` within
    :func:`~rankaudit.measures.list_evaluate.rounding_tolerance` of the values) are no
    difference: the p-value is 1, as when every difference is 0.  When every difference is the
    same non-zero value the statistic is ``c / 0``: the p-value is 0.
    """
    from scipy import stats

    a = np.asarray(a, dtype=np.float64)
    b = np.asarray(b, dtype=np.float64)
    d = b - a
    if len(d) < 2:
        raise ValueError(f"a paired t-test needs at least 2 queries, got {len(d)}")
    if np.all(np.abs(d) <= rounding_tolerance(a, b)):
        return 1.0
    if np.all(d == d[0]):
        return 0.0
    with warnings.catch_warnings():
        # scipy warns of precision loss when the differences are nearly equal; the p-value
        # it returns is then near 0, which is what the data say
        warnings.simplefilter("ignore", RuntimeWarning)
        return float(stats.ttest_rel(b, a).pvalue)


@dataclass(frozen=True)
class Leaderboard:
    """The tables of a leaderboard audit, each a list of records (see :func:`build_leaderboard`)."""

    names: tuple[str, ...]
    measures: tuple[str, ...]
    rules: tuple[str, ...]
    n_queries: int
    values: list[dict[str, object]]
    envelopes: list[dict[str, object]]
    rankings: list[dict[str, object]]
    kendall_tau: list[dict[str, object]]
    rank_intervals: list[dict[str, object]]
    tie_decided_pairs: list[dict[str, object]]
    pairs: list[dict[str, object]]

    def records(self) -> dict[str, object]:
        """The JSON-ready tables, keyed as the command line writes them."""
        keys = ("values", "envelopes", "rankings", "kendall_tau", "rank_intervals")
        out: dict[str, object] = {k: getattr(self, k) for k in keys}
        out.update(
            tie_decided_pairs=self.tie_decided_pairs, pairs=self.pairs, n_queries=self.n_queries
        )
        return out

    def table(self, name: str) -> pd.DataFrame:
        """One table as a DataFrame (``values``, ``envelopes``, ... ``pairs``)."""
        return pd.DataFrame(getattr(self, name))


def _per_query_expected(names: Sequence[str], audits: Sequence[RunAudit], j: int) -> pd.DataFrame:
    cols = {
        n: pd.Series(a.values["expected"][:, j], index=a.queries.astype(str))
        for n, a in zip(names, audits, strict=True)
    }
    return pd.DataFrame(cols)


#: The fewest queries two runs must share for their paired tests to be computed.
MIN_PAIRED_QUERIES = 2
#: The keys of a pair's tests, ``None`` when they are not computed.
TEST_KEYS = ("p_value", "p_ttest", "p_holm", "p_ttest_holm")


def _significance(
    measure: Measure,
    frame: pd.DataFrame,
    pair_list: list[tuple[str, str]],
    n_perm: int,
    seed: int,
) -> list[dict[str, object]]:
    """One record a pair: its paired tests, or, when the two runs share fewer than
    :data:`MIN_PAIRED_QUERIES` evaluated queries, ``computed=False`` with the reason and the
    tests ``None`` (the rest of the leaderboard does not depend on them).  Holm's adjustment
    runs over the pairs whose tests were computed."""
    rows = []
    for a, b in pair_list:
        both = frame[[a, b]].dropna()
        answered_a, answered_b = frame[a].notna(), frame[b].notna()
        va, vb = both[a].to_numpy(), both[b].to_numpy()
        row: dict[str, object] = {
            "measure": str(measure),
            "run_a": a,
            "run_b": b,
            "n_queries": len(both),
            "n_queries_only_in_a": int((answered_a & ~answered_b).sum()),
            "n_queries_only_in_b": int((answered_b & ~answered_a).sum()),
            "diff": (
                aggregate_value(measure, vb) - aggregate_value(measure, va) if len(both) else None
            ),
            **dict.fromkeys(TEST_KEYS),
            "computed": len(both) >= MIN_PAIRED_QUERIES,
            "reason": None,
        }
        if row["computed"]:
            row["p_value"] = paired_randomisation_test(va, vb, n_perm=n_perm, seed=seed)
            row["p_ttest"] = paired_t_pvalue(va, vb)
        else:
            row["reason"] = (
                f"runs {a!r} and {b!r} share {len(both)} evaluated "
                f"{'query' if len(both) == 1 else 'queries'}: a paired test needs at least "
                f"{MIN_PAIRED_QUERIES}"
            )
        rows.append(row)
    tested = [r for r in rows if r["computed"]]
    if tested:
        p_holm = holm_adjust(np.array([r["p_value"] for r in tested]))
        t_holm = holm_adjust(np.array([r["p_ttest"] for r in tested]))
        for r, ph, th in zip(tested, p_holm, t_holm, strict=True):
            r["p_holm"] = float(ph)
            r["p_ttest_holm"] = float(th)
    return rows


def _tie_decided(
    measure: str,
    names: Sequence[str],
    means: pd.DataFrame,
    orders: dict[str, list[str]],
    tol: float,
) -> list[dict[str, object]]:
    pos = {rule: {n: k for k, n in enumerate(order)} for rule, order in orders.items()}
    lo, hi, te = (means[r].to_numpy() for r in ("pessimistic", "optimistic", "trec_eval"))
    rows = []
    for i, j in itertools.combinations(range(len(names)), 2):
        a, b = names[i], names[j]
        reasons = [
            f"order differs between {r1} and {r2}"
            for r1, r2 in itertools.combinations(orders, 2)
            if (pos[r1][a] < pos[r1][b]) != (pos[r2][a] < pos[r2][b])
        ]
        if lo[i] <= hi[j] + tol and lo[j] <= hi[i] + tol and abs(te[i] - te[j]) > tol:
            reasons.append("envelopes overlap while trec_eval values differ")
        if reasons:
            rows.append({"measure": measure, "run_a": a, "run_b": b, "reason": "; ".join(reasons)})
    return rows


def leaderboard(
    runs: Mapping[str, Run],
    qrels: Qrels,
    measures: Sequence[str | Measure] = DEFAULT_MEASURES,
    *,
    baseline: str | None = None,
    relevance_level: int = 1,
    complete: bool = False,
    resampling: ResamplingOptions = DEFAULT_RESAMPLING,
) -> Leaderboard:
    """The leaderboard of the runs ``runs`` (name to run, as read by ``read_trec_run``) on
    ``qrels``: each run audited under :data:`LEADERBOARD_RULES` (``audit_run``), then ranked
    and tested pairwise by :func:`build_leaderboard` with ``resampling.n_perm`` sign flips and
    ``resampling.seed`` (the bootstrap count is not used by the leaderboard's tests).

    The one call the command line's ``rankaudit leaderboard QRELS RUN...`` makes per run and
    for the board; ``Mapping`` order is the order of ``names`` (it orients the pairs).
    """
    if not isinstance(resampling, ResamplingOptions):
        raise TypeError(f"resampling must be a ResamplingOptions, got {type(resampling).__name__}")
    names = [str(name) for name in runs]
    audits = [
        audit_run(
            run,
            qrels,
            measures,
            ties=LEADERBOARD_RULES,
            relevance_level=relevance_level,
            complete=complete,
            seed=resampling.seed,
        )
        for run in runs.values()
    ]
    return build_leaderboard(
        names, audits, baseline=baseline, n_perm=resampling.n_perm, seed=resampling.seed
    )


def build_leaderboard(
    names: Sequence[str],
    audits: Sequence[RunAudit],
    *,
    baseline: str | None = None,
    n_perm: int = 10000,
    seed: int = 0,
) -> Leaderboard:
    """The leaderboard of the audited runs ``audits`` (named ``names``; module docstring).

    Every audit must hold the rules of :data:`LEADERBOARD_RULES` and the same measures.
    ``baseline`` (a name) tests every other run against it; without it every pair is tested
    (``N (N - 1) / 2`` tests, in the order of ``names``), each with ``n_perm`` sign flips
    (``1 <= n_perm <= SIGN_FLIPS.most``).  A pair sharing fewer than
    :data:`MIN_PAIRED_QUERIES` evaluated queries is listed with ``computed=False``, its reason
    and ``None`` p-values, never refused.  Orders break values equal up to rounding by name, so
    the result does not depend on the order of ``names``, except the orientation of pairs
    (``run_a`` comes first in ``names``).
    """
    names = [str(n) for n in names]
    if len(names) != len(audits):
        raise ValueError(f"{len(names)} names for {len(audits)} audits")
    if len(names) < 2:
        raise ValueError(f"a leaderboard needs at least 2 runs, got {len(names)}")
    if len(set(names)) != len(names):
        dup = next(n for n in names if names.count(n) > 1)
        raise ValueError(f"two runs are named {dup!r}: run names must be unique")
    check_count(n_perm, "n_perm", SIGN_FLIPS)
    check_int(seed, "seed", lo=0)
    if baseline is not None and baseline not in names:
        raise ValueError(f"--baseline {baseline!r} is not one of the runs: {', '.join(names)}")
    rules = tuple(audits[0].values)
    measures = tuple(str(m) for m in audits[0].measures)
    for n, a in zip(names, audits, strict=True):
        if tuple(a.values) != rules or tuple(str(m) for m in a.measures) != measures:
            raise ValueError(f"run {n!r} was audited with other rules or measures")
    missing = [r for r in LEADERBOARD_RULES if r not in rules]
    if missing:
        raise ValueError(f"a leaderboard needs the rules {', '.join(missing)}")
    if baseline is None:
        pair_list = list(itertools.combinations(names, 2))
    else:
        pair_list = [(baseline, n) for n in names if n != baseline]

    values, envelopes, rankings, taus, intervals, decided, pairs = [], [], [], [], [], [], []
    aggregates = {}
    for n, a in zip(names, audits, strict=True):
        agg = a.aggregate()
        aggregates[n] = agg.pivot(index="measure", columns="ties", values="value")
        values += [{"run": n, **rec} for rec in agg.to_dict(orient="records")]
        env = a.envelope()
        envelopes += [
            {
                "run": n,
                "measure": rec["measure"],
                "pessimistic": rec["pessimistic"],
                "expected": rec["expected"],
                "optimistic": rec["optimistic"],
                "moved_share": rec["moved_share"],
            }
            for rec in env.to_dict(orient="records")
        ]
    for j, m in enumerate(measures):
        means = pd.DataFrame([aggregates[n].loc[m, list(rules)] for n in names], index=names)
        tol = rounding_tolerance(means.to_numpy())
        higher = audits[0].measures[j].higher_is_better  # the measure's declared direction
        orders = {
            r: leaderboard_order(names, means[r].to_numpy(), tol, higher_is_better=higher)
            for r in rules
        }
        rankings += [{"measure": m, "ties": r, "order": o} for r, o in orders.items()]
        taus += [
            {
                "measure": m,
                "rule_a": r1,
                "rule_b": r2,
                "tau": kendall_tau(orders[r1], orders[r2]),
                "tau_ap": tau_ap(orders[r1], orders[r2]),
            }
            for r1, r2 in itertools.combinations(rules, 2)
        ]
        best, worst = rank_intervals(
            means["pessimistic"], means["optimistic"], tol, higher_is_better=higher
        )
        intervals += [
            {"run": n, "measure": m, "best": int(b), "worst": int(w)}
            for n, b, w in zip(names, best, worst, strict=True)
        ]
        decided += _tie_decided(m, names, means, orders, tol)
        frame = _per_query_expected(names, audits, j)
        pairs += _significance(audits[0].measures[j], frame, pair_list, n_perm, seed)
    n_queries = len(set().union(*(set(a.queries.astype(str)) for a in audits)))
    return Leaderboard(
        tuple(names),
        measures,
        rules,
        n_queries,
        values,
        envelopes,
        rankings,
        taus,
        intervals,
        decided,
        pairs,
    )
