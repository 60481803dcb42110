"""Chapter 11's computed words: each Table 1 row's lift, CI and p-value in words, which feature
rows exclude zero and which lose significance under Holm, the oracle's ceiling, each paper row's
verdict at its power, the measured power-design runs against the three-minute budget, the paper's
claims, and the ties of the learned ranker.

Every verdict is the decision standard's (:mod:`rankaudit.runs.decision`, stated on the page
"How this book decides" with its thresholds: ``ALPHA``, ``MIN_POWER``, and the share and size
words' :data:`rankbook.report.decision.FEW_BELOW`, ``MOST_ABOVE``, ``SMALL_RATIO``); the
chapter's own threshold is its time budget ``BUDGET_SECONDS``.

Public API: :func:`words` and :data:`DEPENDS` (see :mod:`rankbook.report.page_words`).
"""

from __future__ import annotations

import statistics
from collections.abc import Mapping
from typing import Any

from rankaudit.runs.decision import AGREES, ALPHA, CONTRADICTS, MIN_POWER, NOT_RESOLVED
from rankbook.report.decision import (
    FEW_BELOW,
    MOST_ABOVE,
    SMALL_RATIO,
    VERDICTS,
    row_claim_verdict,
    verdict_with_power,
)
from rankbook.report.prose import (
    count_phrase,
    list_phrase,
    p_value_phrase,
    share_word,
    signed_phrase,
    size_word,
)
from rankbook.report.prose_limits import best_name, covers_word, within_word

__all__ = [
    "ALPHA",
    "BUDGET_SECONDS",
    "DEPENDS",
    "MIN_POWER",
    "claim_depends",
    "claim_verdict",
    "claim_words",
    "words",
]

#: the book's time budget per chapter (three minutes on two cores).
BUDGET_SECONDS = 180.0

_INTENT_ROWS = ("P1 + NCD_Ref_txt", "P1 + CosSim_Ref_emb")
_MECHANISMS = {
    "last click": "within an intent every click reveals the same target's brand, line and "
    "attribute, so where intents persist averaging five clicks mostly averages out clicks on "
    "partial matches rather than mixing in other intents, which favours the last five over the "
    "last click",
    "embedding (last click) beats text": "titles are made of exactly the brand, line, type and "
    "attribute tokens the simulated buyer clicks on, so the text similarity (NCD) measures the "
    "very matches that drive clicks, while MiniLM's embedding blurs brand names into the product "
    "type, which favours text over embedding",
}


def _index(rows: list[Mapping[str, Any]], key: str, name: str) -> int:
    for i, r in enumerate(rows):
        if r[key] == name:
            return i
    raise KeyError(f"no row with {key} == {name!r}")


def _row(results: Mapping[str, Any], variant: str) -> Mapping[str, Any]:
    return results["table1"][_index(results["table1"], "variant", variant)]


def _features(results: Mapping[str, Any]) -> list[int]:
    oracle = results["oracle_variant"]
    return [i for i, r in enumerate(results["table1"]) if r["variant"] != oracle]


def _excludes(r: Mapping[str, Any]) -> bool:
    return covers_word(r["ci_low"], r["ci_high"]) == "excludes zero"


def _paper_power(results: Mapping[str, Any]) -> list[int]:
    """Indices of ``power`` rows that are paper rows (not the oracle) and rows of Table 1."""
    variants = {r["variant"] for r in results["table1"]}
    oracle = results["oracle_variant"]
    return [
        i
        for i, p in enumerate(results["power"])
        if p["target"] != oracle and p["target"] in variants
    ]


def _smallest(results: Mapping[str, Any]) -> int:
    rows = _paper_power(results)
    return min(rows, key=lambda i: results["power"][i]["lift_pct"])


def _p_phrase(p: float, n_boot: int) -> str:
    """A Table 1 row's p-value in words: the two-sided p-value of its ``n_boot`` paired
    bootstrap resamples (:func:`rankaudit.runs.significance.paired_bootstrap_test`), whose
    floor is ``2 / (n_boot + 1)``."""
    return p_value_phrase(p, n_boot, unit="bootstrap resamples", sides=2)


def _row_words(results: Mapping[str, Any], out: dict[str, str]) -> None:
    n_boot = results["params"]["n_boot"]
    for name, key in (("P1", "p1"), ("P2", "p2")):
        r = _row(results, name)
        out[f"lift_phrase_{key}"] = signed_phrase(r["lift_pct"])
        out[f"p_phrase_{key}"] = _p_phrase(r["p_value"], n_boot)
        out[f"verdict_{key}"] = str(r["verdict"])
    feats = [results["table1"][i] for i in _features(results)]
    sig = [r for r in feats if _excludes(r)]
    out["sig_rows_cap"] = count_phrase(
        len(sig), len(feats), "feature rows", verb=("has", "have")
    ).capitalize()
    out["rows_sig"] = (
        ", ".join(f"{r['variant']} vs {r['baseline']} ({r['lift_pct']:+.2f}%)" for r in sig)
        or "none"
    )
    lost = [r["variant"] for r in feats if r["p_value"] <= ALPHA < r["p_holm"]]
    out["holm_lost"] = (
        f'after Holm\'s adjustment across the feature rows (column "p (Holm)"), '
        f"{list_phrase(lost)} no longer {'stays' if len(lost) == 1 else 'stay'} at or below "
        f"{ALPHA}"
        if lost
        else 'Holm\'s adjustment across the feature rows (column "p (Holm)") leaves every row '
        f"at or below {ALPHA} that was there before"
    )
    out["intent_verdict"] = list_phrase(
        [f"{v} over P1: {_row(results, v)['verdict']}" for v in _INTENT_ROWS]
    )


def _oracle_words(results: Mapping[str, Any], out: dict[str, str]) -> None:
    oracle = results["oracle_variant"]
    if oracle is None:
        out["oracle_sentence"] = "cannot be computed: this log has no latent intent"
        out["oracle_verdict"] = "is not available: a real log has no latent intent"
        out["best_share"], out["best_share_row"] = "not computed", "no oracle"
        return
    o = _row(results, oracle)
    p = _p_phrase(o["p_value"], results["params"]["n_boot"])
    out["oracle_sentence"] = (
        f"MRR-sale {signed_phrase(o['lift_pct'])} over MLR (95% CI {o['ci_low']:.2f} to "
        f"{o['ci_high']:.2f}, {p})"
    )
    out["oracle_verdict"] = str(o["verdict"])
    shares = {
        results["table1"][i]["variant"]: results["table1"][i]["share_of_oracle"]
        for i in _features(results)
    }
    out["best_share_row"] = best_name(shares)
    out["best_share"] = f"{shares[out['best_share_row']]:.2f}"


def _power_words(results: Mapping[str, Any], out: dict[str, str]) -> None:
    power, oracle = results["power"], results["oracle_variant"]
    small = power[_smallest(results)]
    out["budget_verdict"] = (
        "more than this run has, and beyond this book's three-minute budget per chapter"
        if small["n_needed"] > small["n_queries"]
        else "no more than this run has"
    )
    o_power = None if oracle is None else power[_index(power, "target", oracle)]["power"]
    out["power_oracle"] = "not computed (no oracle row)" if o_power is None else f"{o_power:.0%}"
    strong = f"power at least {MIN_POWER}"
    if small["power"] >= MIN_POWER:
        out["sized_sentence"] = f"This run has {strong} even for the paper's smallest lift"
    elif o_power is not None and o_power >= MIN_POWER:
        out["sized_sentence"] = (
            f"This run is sized for the oracle ({strong}), not for the paper's smallest lift"
        )
    else:
        out["sized_sentence"] = (
            f"This run has less than {strong} for the paper's smallest lift and for the oracle"
        )
    verdicts = {}
    for i in _paper_power(results):
        p = power[i]
        verdicts[p["target"]] = row_claim_verdict(_row(results, p["target"]), p["power"])
    out["row_verdicts"] = "; ".join(
        f"{v}: {verdict_with_power(w, power[_index(power, 'target', v)]['power'])}"
        for v, w in verdicts.items()
    )
    null = [v for v, w in verdicts.items() if w == NOT_RESOLVED]
    n = len(verdicts)
    out["null_rows_sentence"] = (
        f"{count_phrase(len(null), n, 'paper rows').capitalize()}: {NOT_RESOLVED}; such a row "
        "is a statement about this experiment's size, not about the feature"
        if null
        else f"{count_phrase(0, n, 'paper rows').capitalize()}: {NOT_RESOLVED}"
    )


def _measured_words(results: Mapping[str, Any], out: dict[str, str]) -> None:
    meta, runs = results.get("power_design_record"), results.get("power_design_measured", [])
    if meta is None:
        out["measured_note"] = "there is no record yet (run the script after `make book`)"
        out["measured_runs"] = "none"
        return
    said = []
    for r in runs:
        budget = within_word(r["wall_seconds"] / BUDGET_SECONDS, 1.0, words=("within", "beyond"))
        said.append(
            f"{r['n_sessions']:,} sessions ran in {r['wall_seconds'] / 60:.1f} minutes "
            f"({budget} the three-minute budget) and, from its own per-query spread, has power "
            f"{r['power_measured_at_this_size']:.0%} for the paper's {r['paper_lift_pct']}% "
            f"({r['target']})"
        )
    out["measured_runs"] = "; ".join(said) or "none"
    design = results["power_design"]
    same = all(
        r["which"] in design and r["n_sessions"] == design[r["which"]]["n_sessions"] for r in runs
    )
    out["measured_note"] = (
        f"recorded on {meta['date']} at commit {meta['commit'][:10]} on {meta['cores']} cores "
        f"({meta['cpu']}); "
        + (
            "its sizes are the ones this page computes"
            if same
            else "its sizes differ from the ones this page computes (other parameters or an older "
            "version), so read it as an order of magnitude"
        )
    )


def claim_verdict(c: Mapping[str, Any]) -> str:
    """A claim's verdict as its results record holds it (computed by
    :func:`rankaudit.runs.decision.claim_verdict` in
    :func:`rankbook.ranking.claims.paired_claims`)."""
    return str(c["verdict"])


def claim_words(results: Mapping[str, Any], out: dict[str, str]) -> None:
    """Counts of the paper's claims by verdict (the book's own comparisons apart)."""
    claims = [c for c in results["paired_claims"] if c["source"] == "paper"]
    verdicts = [claim_verdict(c) for c in claims]
    n = len(claims)
    out["agrees_word"], out["contradicts_word"] = AGREES, CONTRADICTS
    out["not_resolved_word"] = NOT_RESOLVED
    out["agree_phrase"] = count_phrase(verdicts.count(AGREES), n, "claims")
    contra = [c["claim"] for c, v in zip(claims, verdicts, strict=True) if v == CONTRADICTS]
    out["contra_phrase"] = count_phrase(len(contra), n) + (
        f" ({', '.join(contra)})" if contra else ""
    )
    out["holm_phrase"] = count_phrase(
        sum(c["p_holm"] <= ALPHA for c in claims), n, "p-values", verb=("stays", "stay")
    ).capitalize()
    book = [c for c in results["paired_claims"] if c["source"] == "book"]
    out["book_claims"] = "; ".join(f"{c['claim']}: {claim_verdict(c)}" for c in book) or "none"
    against = [c["claim"] for c in claims if c["test"] == "superiority" and c["diff_pct"] < 0]
    named = [text for head, text in _MECHANISMS.items() if any(a.startswith(head) for a in against)]
    mechanism = (
        " The simulator mechanism we suspect behind them (a hypothesis, not tested on this "
        "page): " + "; and ".join(named) + "."
        if named
        else ""
    )
    out["against_text"] = (
        f"The point estimate goes against the paper for: {', '.join(against)}.{mechanism}"
        if against
        else "No claim's point estimate goes against the paper on this log."
    )


def claim_depends(results: Mapping[str, Any]) -> list[tuple[str, int, Any]]:
    """The claims' values :func:`claim_words` reads: each verdict, a paper superiority claim's
    difference, and each paper claim's Holm-adjusted p-value."""
    out: list[tuple[str, int, Any]] = []
    for i, c in enumerate(results["paired_claims"]):
        out.append(("paired_claims", i, "verdict"))
        if c["source"] != "paper":
            continue
        if c["test"] == "superiority":
            out.append(("paired_claims", i, "diff_pct"))
        out.append(("paired_claims", i, "p_holm"))
    return out


def _tie_index(results: Mapping[str, Any], field: str) -> int:
    ties = results["ties"]
    return max(range(len(ties)), key=lambda i: ties[i][field])


def _shift_index(results: Mapping[str, Any]) -> int:
    """The feature row (the oracle left out) whose lift moves most in input order."""
    t1 = results["table1"]
    return max(
        _features(results), key=lambda i: abs(t1[i]["lift_pct_input_order"] - t1[i]["lift_pct"])
    )


def _tie_words(results: Mapping[str, Any], out: dict[str, str]) -> None:
    ties, t1 = results["ties"], results["table1"]
    tied = ties[_tie_index(results, "frac_relevant_tied")]["frac_relevant_tied"]
    out["tied_share_word"] = share_word(tied, few_below=FEW_BELOW, most_above=MOST_ABOVE)
    trees = ties[_tie_index(results, "best_iteration")]["best_iteration"]
    cap = results["ranker_tuning"]["chosen"]["num_boost_round_cap"]
    out["trees_phrase"] = (
        f"{trees:.0f} trees, a number {size_word(trees, cap, ratio=SMALL_RATIO)} against the "
        f"{cap:,} boosting rounds allowed"
    )
    inflation = ties[_tie_index(results, "input_order_inflation_pct")]["input_order_inflation_pct"]
    out["inflation_phrase"] = (
        f"inflates MRR by at most {inflation:.2f}%"
        if inflation >= 0
        else f"lowers MRR in every feature set, by at least {-inflation:.2f}%"
    )
    r = t1[_shift_index(results)]
    shift = abs(r["lift_pct_input_order"] - r["lift_pct"])
    median = statistics.median(abs(t1[i]["lift_pct"]) for i in _features(results))
    out["shift_size_word"] = size_word(shift, median, ratio=SMALL_RATIO)
    out["shift_row"] = str(r["variant"])


def words(results: Mapping[str, Any]) -> dict[str, str]:
    """The words chapter 11 glues, from its results dict alone."""
    out: dict[str, str] = {}
    _row_words(results, out)
    _oracle_words(results, out)
    _power_words(results, out)
    _measured_words(results, out)
    claim_words(results, out)
    _tie_words(results, out)
    # what the run read and used, as its results file records it
    out["data_label"] = str(results["table1"][0]["data_source"])
    out["embedder_name"] = str(results["embedder"])
    # the decision standard's verdicts, which the page "How this book decides" pastes from here
    out.update({f"decide_verdict_{i}": v for i, v in enumerate(VERDICTS)})
    return out


def DEPENDS(results: Mapping[str, Any]) -> list[tuple[str, Any, Any]]:  # noqa: N802
    """The results values the words above read, each one that can flip a word as it stands."""
    t1, ci = "table1", ("ci_low", "ci_high")
    out: list[tuple[str, Any, Any]] = []
    for name in ("P1", "P2"):
        i = _index(results[t1], "variant", name)
        out += [(t1, i, "lift_pct"), (t1, i, "p_value")]
    for i in _features(results):
        r = results[t1][i]
        out.append((t1, i, ci))
        out.append((t1, i, "p_holm" if r["p_value"] <= ALPHA else "p_value"))
        out.append((t1, i, "verdict"))
        if results["oracle_variant"] is not None:
            out.append((t1, i, "share_of_oracle"))
    if results["oracle_variant"] is not None:
        i = _index(results[t1], "variant", results["oracle_variant"])
        out += [(t1, i, "lift_pct"), (t1, i, ci), (t1, i, "p_value"), (t1, i, "verdict")]
        out.append(
            ("power", _index(results["power"], "target", results["oracle_variant"]), "power")
        )
    small = _smallest(results)
    out += [("power", small, "power"), ("power", small, "n_needed")]
    for i in _paper_power(results):
        out.append(("power", i, "power"))
    for i in range(len(results.get("power_design_measured", []))):
        out += [("power_design_measured", i, "wall_seconds")]
        out += [("power_design_measured", i, "n_sessions")]
    out += claim_depends(results)
    out += [
        ("ties", _tie_index(results, "frac_relevant_tied"), "frac_relevant_tied"),
        ("ties", _tie_index(results, "best_iteration"), "best_iteration"),
        ("ties", _tie_index(results, "input_order_inflation_pct"), "input_order_inflation_pct"),
        ("ranker_tuning", "chosen", "num_boost_round_cap"),
        (t1, _shift_index(results), "lift_pct_input_order"),
    ]
    return out
