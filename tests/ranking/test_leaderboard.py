"""The leaderboard audit: each run's numbers are its own audit's, orders, intervals, the pairs
ties decide and the paired tests on expected values."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from scipy import stats

from rankaudit.runs import audit_run, read_trec_qrels, read_trec_run
from rankaudit.runs.leaderboard import (
    audit_run_files,
    build_leaderboard,
    leaderboard_rules,
    paired_t_pvalue,
)
from rankaudit.runs.rank_agreement import positions
from rankaudit.runs.significance import holm_adjust, paired_randomisation_test
from rankbook.data.track import simulate_track, write_track

MEASURES = ["nDCG@10", "AP", "P@5"]
RULES = leaderboard_rules(["trec_eval", "expected"])


@pytest.fixture(scope="module")
def track(tmp_path_factory):
    folder = tmp_path_factory.mktemp("track")
    paths = write_track(folder, simulate_track(8, 30, 20, n_levels=4, spread=0.6, seed=5))
    qrels = read_trec_qrels(folder / "qrels.txt")
    audits = audit_run_files(
        [str(p) for p in paths], read_trec_run, qrels, measures=MEASURES, ties=RULES
    )
    names = [p.name for p in paths]
    return paths, qrels, names, audits, build_leaderboard(names, audits, n_perm=500, seed=1)


def test_values_are_each_runs_own_audit(track):
    paths, qrels, names, _, board = track
    for path, name in zip(paths, names, strict=True):
        alone = audit_run(read_trec_run(path), qrels, MEASURES, ties=RULES).aggregate()
        mine = [
            (v["measure"], v["ties"], v["value"], v["aggregation"])
            for v in board.values
            if v["run"] == name
        ]
        assert mine == list(alone.itertuples(index=False, name=None))


def test_orders_taus_and_intervals(track):
    _, _, names, _, board = track
    values = board.table("values")
    intervals = board.table("rank_intervals").set_index(["measure", "run"])
    for rec in board.rankings:
        v = values[(values["measure"] == rec["measure"]) & (values["ties"] == rec["ties"])]
        v = v.set_index("run")["value"]
        assert [v[n] for n in rec["order"]] == sorted(v, reverse=True)
        for k, run in enumerate(rec["order"], start=1):
            best, worst = intervals.loc[(rec["measure"], run), ["best", "worst"]]
            assert best <= k <= worst
    orders = {(r["measure"], r["ties"]): r["order"] for r in board.rankings}
    for t in board.kendall_tau:
        a, b = orders[(t["measure"], t["rule_a"])], orders[(t["measure"], t["rule_b"])]
        assert t["tau"] == pytest.approx(
            stats.kendalltau(positions(a, names), positions(b, names)).statistic
        )
    assert len(board.kendall_tau) == len(MEASURES) * len(RULES) * (len(RULES) - 1) // 2


def test_tie_decided_pairs_are_exactly_the_flagged_ones(track):
    _, _, names, _, board = track
    env = board.table("envelopes").set_index(["measure", "run"])
    te = board.table("values").query("ties == 'trec_eval'").set_index(["measure", "run"])["value"]
    orders = {(r["measure"], r["ties"]): r["order"] for r in board.rankings}
    listed = {(p["measure"], p["run_a"], p["run_b"]) for p in board.tie_decided_pairs}
    n_flagged = 0
    for m in MEASURES:
        for a, b in itertools.combinations(names, 2):
            differs = any(
                (orders[(m, r1)].index(a) < orders[(m, r1)].index(b))
                != (orders[(m, r2)].index(a) < orders[(m, r2)].index(b))
                for r1, r2 in itertools.combinations(RULES, 2)
            )
            ea, eb = env.loc[(m, a)], env.loc[(m, b)]
            overlap = (
                ea["pessimistic"] <= eb["optimistic"] and eb["pessimistic"] <= ea["optimistic"]
            )
            flagged = differs or (overlap and te[(m, a)] != te[(m, b)])
            n_flagged += flagged
            assert ((m, a, b) in listed) == flagged
    assert n_flagged > 0


def test_pairs_are_paired_tests_on_expected_values_with_holm(track):
    _, _, names, audits, board = track
    pairs = board.table("pairs")
    assert len(pairs) == len(MEASURES) * len(names) * (len(names) - 1) // 2
    for m_index, m in enumerate(MEASURES):
        part = pairs[pairs["measure"] == m]
        assert np.allclose(part["p_holm"], holm_adjust(part["p_value"].to_numpy()))
        row = part.iloc[3]
        a = audits[names.index(row["run_a"])].values["expected"][:, m_index]
        b = audits[names.index(row["run_b"])].values["expected"][:, m_index]
        assert row["diff"] == pytest.approx(b.mean() - a.mean())
        assert row["p_value"] == paired_randomisation_test(a, b, n_perm=500, seed=1)
        assert row["p_ttest"] == pytest.approx(stats.ttest_rel(b, a).pvalue)


def test_baseline_and_errors(track):
    _, _, names, audits, _ = track
    board = build_leaderboard(names, audits, baseline=names[2], n_perm=50)
    assert {p["run_a"] for p in board.pairs} == {names[2]}
    assert len(board.pairs) == len(MEASURES) * (len(names) - 1)
    with pytest.raises(ValueError, match="not one of the runs"):
        build_leaderboard(names, audits, baseline="nope")
    with pytest.raises(ValueError, match="at least 2 runs"):
        build_leaderboard(names[:1], audits[:1])
    with pytest.raises(ValueError, match="named"):
        build_leaderboard([names[0], names[0]], audits[:2])


def test_paired_t_pvalue_degenerate_cases():
    a = np.array([0.25, 0.5, 0.75])
    assert paired_t_pvalue(a, a) == 1.0
    assert paired_t_pvalue(a, a + 0.25) == 0.0
    b = np.array([0.2, 0.1, 0.5])
    assert paired_t_pvalue(a, b) == pytest.approx(stats.ttest_rel(b, a).pvalue)
    with pytest.raises(ValueError, match="at least 2"):
        paired_t_pvalue(a[:1], b[:1])


def test_a_pair_sharing_too_few_queries_is_listed_not_computed_and_the_board_stands(tmp_path):
    """Runs a and b share one judged query (a answers q1 q2, b q2 q3), c answers all three:
    the leaderboard is built, the pair (a, b) says why it has no test, the other pairs are
    tested and Holm adjusts over those two only."""
    qrels = tmp_path / "q.qrels"
    qrels.write_text("q1 0 d1 1\nq2 0 d1 1\nq3 0 d1 1\n")
    runs = {
        "a": "q1 Q0 d1 1 1 a\nq2 Q0 d1 1 1 a\n",
        "b": "q2 Q0 d1 1 1 b\nq3 Q0 d2 1 1 b\n",
        "c": "q1 Q0 d1 1 1 c\nq2 Q0 d2 1 1 c\nq3 Q0 d1 1 1 c\n",
    }
    for name, text in runs.items():
        (tmp_path / name).write_text(text)
    audits = audit_run_files(
        [str(tmp_path / n) for n in runs],
        read_trec_run,
        read_trec_qrels(qrels),
        measures=["P@1"],
        ties=leaderboard_rules([]),
    )
    board = build_leaderboard(list(runs), audits, n_perm=50)
    pairs = {(p["run_a"], p["run_b"]): p for p in board.pairs}
    ab = pairs[("a", "b")]
    assert ab["computed"] is False and ab["n_queries"] == 1
    assert (
        ab["reason"] == "runs 'a' and 'b' share 1 evaluated query: a paired test needs at least 2"
    )
    assert all(ab[k] is None for k in ("p_value", "p_ttest", "p_holm", "p_ttest_holm"))
    assert ab["diff"] == 0.0  # both runs retrieve the relevant document of q2
    tested = [pairs[("a", "c")], pairs[("b", "c")]]
    assert all(p["computed"] and p["reason"] is None for p in tested)
    assert [p["p_holm"] for p in tested] == list(
        holm_adjust(np.array([p["p_value"] for p in tested]))
    )
    assert len(board.rankings) == 4 and len(board.rank_intervals) == 3
