"""Chapter 12's computed words: whether each encoder learned (its smallest gain over epoch 0
against the seed spread and two standard errors), whether its kept epoch is the cap, whether it
reads the buyer's clicks, each Table 1 row's change and verdict at its power, the oracle's
ceiling, how the rows sit against the paper, the paper's claims, and whether differences of half
a point between rows can be resolved.

Thresholds the page states: power ``MIN_POWER`` (0.8); a difference of ``RESOLVE_PCT`` (half a
percentage point) between two rows against the median half-width of the paired 95% CIs of the
differences between rows (:func:`pair_half_width`): a difference between two rows measured on the
same queries is judged by its own paired interval, never by one row's lift interval.

Public API: :func:`words` and :data:`DEPENDS` (see :mod:`rankbook.report.page_words`).
"""

from __future__ import annotations

import statistics
from collections.abc import Mapping, Sequence
from typing import Any

from rankaudit.runs.decision import CONTRADICTS, MIN_POWER, NOT_RESOLVED, RESOLVED_ABOVE
from rankbook.report.decision import row_claim_verdict, verdict_with_power
from rankbook.report.page_words.ch11_ablation import (
    claim_depends,
    claim_verdict,
    claim_words,
)
from rankbook.report.prose import (
    count_phrase,
    difference_phrase,
    list_phrase,
    plural_phrase,
    signed_phrase,
)
from rankbook.report.prose_limits import covers_word, order_word

__all__ = ["DEPENDS", "KINDS", "RESOLVE_PCT", "pair_half_width", "words"]

#: the two encoders, in page order.
KINDS = ("trans", "perc")
#: the size of difference the precision paragraph asks about (percentage points of lift).
RESOLVE_PCT = 0.5
_PERC_CLAIM = "Perceiver beats Transformer"


def _index(rows: list[Mapping[str, Any]], key: str, name: str) -> int:
    for i, r in enumerate(rows):
        if r[key] == name:
            return i
    raise KeyError(f"no row with {key} == {name!r}")


def _superiority(claims: Sequence[Mapping[str, Any]]) -> list[int]:
    return [i for i, c in enumerate(claims) if c["test"] == "superiority"]


def pair_half_width(claims: Sequence[Mapping[str, Any]]) -> float:
    """The median half-width, in percentage points, of the paired 95% CIs of the differences
    between two rows (the superiority claims of
    :func:`rankbook.ranking.claims.paired_claims`, each resampling the same test queries for
    both rows): ``median((ci_high - ci_low) / 2)``."""
    rows = _superiority(claims)
    if not rows:
        raise ValueError("claims holds no superiority claim: no paired difference between rows")
    return statistics.median((claims[i]["ci_high"] - claims[i]["ci_low"]) / 2 for i in rows)


def _learned(enc: Mapping[str, Any]) -> bool:
    """``rankbook.context.sequence.encoder_learning``'s rule, from the stored numbers."""
    n_seeds = len(enc["best_epoch_per_seed"])
    bar = max(enc["seed_spread"], 2 * enc["gain_se"])
    return n_seeds > 1 and enc["gain_min"] > bar


def _encoder_words(results: Mapping[str, Any], out: dict[str, str]) -> None:
    for kind in KINDS:
        enc = results["encoders"][kind]
        bar = max(enc["seed_spread"], 2 * enc["gain_se"])
        if _learned(enc):
            out[f"note_{kind}"] = (
                "it learned: every seed beat the untrained encoder by more than the seed-to-seed "
                f"spread and two standard errors ({enc['gain_min']:+.4f} against {bar:.4f})"
            )
        else:
            why = (
                f"its smallest gain over epoch 0 ({enc['gain_min']:+.4f}) is not larger than the "
                f"seed-to-seed spread and two standard errors ({bar:.4f})"
                if len(enc["best_epoch_per_seed"]) > 1
                else "with one encoder seed the spread is unknown"
            )
            out[f"note_{kind}"] = (
                f"it did not learn: {why}, so its Table 1 row is labelled as not learned"
            )
        cap, best, ran = enc["epochs_cap"], enc["best_epoch"], enc["epochs"]
        h = enc["valid_ndcg_by_epoch"]
        if best == cap:
            rising = (
                order_word(h[-1], h[-2], words=("still rising", "not rising", "not rising"))
                if len(h) > 1
                else "not rising"
            )
            out[f"cap_note_{kind}"] = (
                f"its kept epoch is the last allowed (epoch {cap}, the cap), with validation "
                f"NDCG@10 {rising} at that epoch, so it is not trained to convergence and its "
                "Table 1 row is that of an under-trained encoder"
            )
        else:
            out[f"cap_note_{kind}"] = (
                f"its kept epoch is below the cap of {cap}: validation NDCG@10 did not improve "
                f"in the {plural_phrase(ran - best, 'epoch', 'epochs')} after it"
            )
        reads = results["reads_clicks"][kind]
        out[f"context_change_{kind}"] = signed_phrase(
            reads["other_clicks"] - reads["own_clicks"], unit="", digits=4
        )
    drops = [
        results["reads_clicks"][k]["own_clicks"] - results["reads_clicks"][k]["other_clicks"]
        for k in KINDS
    ]
    out["context_verdict"] = (
        "both encoders read the buyer's clicks: with another query's clicks their NDCG falls"
        if all(d > 0 for d in drops)
        else "at least one encoder does not lose NDCG with another query's clicks, so its gain "
        "does not come from this buyer's context"
    )
    learned = [_learned(results["encoders"][k]) for k in KINDS]
    out["learned_both"] = (
        "both encoders learned"
        if all(learned)
        else "at least one encoder did not learn (see above), so its side of the claim is an "
        "encoder whose training gain is inside the noise"
    )


def _power(results: Mapping[str, Any], variant: str) -> float | None:
    for p in results["power"]:
        if p["target"] == variant:
            return p["power"]
    return None


def _paper_lift(results: Mapping[str, Any], variant: str) -> float | None:
    for p in results["paper_comparison"]:
        if p["variant"] == variant:
            return p["paper_lift_pct"]
    return None


def _row_key(variant: str) -> str:
    return variant.replace(" + ", "_").replace(":", "_").lower()


def _row_words(results: Mapping[str, Any], out: dict[str, str]) -> None:
    learned = {
        f"P2 + {results['encoders'][k]['feature']}": _learned(results["encoders"][k]) for k in KINDS
    }
    row_verdicts = {}
    for r in results["table1"]:
        key, paper = _row_key(r["variant"]), _paper_lift(results, r["variant"])
        out[f"change_{key}"] = signed_phrase(r["lift_pct"])
        power = _power(results, r["variant"])
        if paper is not None:
            row_verdicts[r["variant"]] = row_claim_verdict(r, power)
            verdict = verdict_with_power(row_verdicts[r["variant"]], power)
        else:
            verdict = verdict_with_power(str(r["verdict"]), power)
        if learned.get(r["variant"]) is False:
            verdict += "; its encoder did not learn: its training gain is inside the noise"
        out[f"verdict_{key}"] = verdict
    listed = results["paper_comparison"]
    n = len(listed)
    up = [r for r in listed if r["ci_low"] > 0]
    down = [r for r in listed if r["ci_high"] < 0]
    inside = [
        r
        for r in listed
        if covers_word(r["ci_low"], r["ci_high"], r["paper_lift_pct"]) == "includes zero"
    ]
    out["positive_phrase"] = count_phrase(
        sum(r["lift_pct"] > 0 for r in listed), n, "paper rows", verb=("has", "have")
    ).capitalize()
    out["up_phrase"] = count_phrase(len(up), n)
    out["down_phrase"] = count_phrase(len(down), n)
    out["rows_sig_down"] = ", ".join(r["variant"] for r in down) or "none"
    out["in_ci_phrase"] = count_phrase(len(inside), n, "rows")
    out["resolvable"] = (
        "can be resolved at this size"
        if pair_half_width(results["paired_claims"]) < RESOLVE_PCT
        else "cannot be resolved at this size"
    )
    _oracle_words(results, row_verdicts, out)


def _oracle_words(
    results: Mapping[str, Any], row_verdicts: Mapping[str, str], out: dict[str, str]
) -> None:
    oracle = results["oracle_variant"]
    powers = [_power(results, v) for v in row_verdicts]
    strong = [p for p in powers if p is not None and p >= MIN_POWER]
    out["null_reading"] = (
        "A null paper row on this page is first of all a statement about the experiment's size "
        f"(no paper row has power of at least {MIN_POWER})"
        if not strong
        else f"A paper row with power of at least {MIN_POWER} that stays null is evidence against "
        "the paper's lift; a null row at lower power is a statement about the experiment's size"
    )
    if oracle is None:
        out["oracle_sentence"] = "no oracle on a real log (it has no latent intent)."
        out["power_oracle"] = "not computed (no oracle row)"
        return
    o = results["table1"][_index(results["table1"], "variant", oracle)]
    o_power = _power(results, oracle)
    out["power_oracle"] = "not computed (no oracle row)" if o_power is None else f"{o_power:.0%}"
    null = [
        f"{v} (power {_power(results, v):.2f})"
        for v, w in row_verdicts.items()
        if w == NOT_RESOLVED
    ]
    failed = [v for v, w in row_verdicts.items() if w == CONTRADICTS]
    sees = (
        f"Its verdict: {RESOLVED_ABOVE}, so the experiment can see context. "
        if o["verdict"] == RESOLVED_ABOVE
        else f"Its verdict: {verdict_with_power(str(o['verdict']), o_power)}; at this size the "
        "experiment cannot see even perfect context. "
    )
    null_count = count_phrase(len(null), len(row_verdicts), "paper rows", verb=("is", "are"))
    nulls = (
        f"{null_count.capitalize()} {NOT_RESOLVED}: "
        + "; ".join(null)
        + "; a null at low power is not a failure of the feature. "
        if null
        else f"{count_phrase(0, len(row_verdicts), 'paper rows').capitalize()}: {NOT_RESOLVED}. "
    )
    fails = (
        f"{count_phrase(len(failed), len(row_verdicts), 'paper rows').capitalize()}: "
        f"{CONTRADICTS} ({', '.join(failed)})."
        if failed
        else f"No paper row {CONTRADICTS}."
    )
    out["oracle_sentence"] = (
        f"with the oracle that knows the buyer's intent, MRR-sale {signed_phrase(o['lift_pct'])} "
        f"over MLR (95% CI {o['ci_low']:.2f} to {o['ci_high']:.2f}). {sees}{nulls}{fails}"
    )


def _perc_words(results: Mapping[str, Any], out: dict[str, str]) -> None:
    claims = results["paired_claims"]
    perc = claims[_index(claims, "claim", _PERC_CLAIM)]
    out["perc_verdict"] = claim_verdict(perc)
    enc, overlap = results["encoders"], results["within_query_overlap"]
    if perc["diff_pct"] > 0:
        out["perc_mechanism"] = (
            "The Perceiver's point estimate exceeds the Transformer's, the paper's direction."
        )
        return
    gained_more = enc["perc"]["gain_min"] > enc["trans"]["gain_min"]
    r_gap = overlap["perc"]["r2_p2"] - overlap["trans"]["r2_p2"]
    text = (
        "The Perceiver's point estimate does not exceed the Transformer's here"
        + (", although its encoder gained more on its own objective" if gained_more else "")
        + ". "
    )
    text += (
        f"P2 explains more of its feature (within-query R² {100 * r_gap:.1f} points higher): the "
        "redundancy that P2's BM25 and query-aware CosSim_Ref_emb create for a query-aware "
        "encoder (a hypothesis)."
        if r_gap > 0
        else "P2 does not explain more of its feature than of the Transformer's, so redundancy "
        "does not account for it; what the Perceiver's feature adds beyond P2 may be noise to "
        "the ranker (a hypothesis this page does not test)."
    )
    out["perc_mechanism"] = text


def _shared_words(results: Mapping[str, Any], out: dict[str, str]) -> None:
    shared = results["shared_rows"]
    if shared["status"] == "missing":
        out["shared_note"] = (
            "Chapter 11's results file is not there yet (run Chapter 11 first to compare)"
        )
    elif shared["status"] == "other_params":
        out["shared_note"] = (
            "Chapter 11's results file was made with other parameters, so not compared"
        )
    else:
        gap = shared["max_gap"]
        out["shared_note"] = (
            f"compared with Chapter 11's results file, the {shared['n_shared']:,} shared rows "
            + difference_phrase(gap)
            + " in lift, CI and p-value"
        )


def words(results: Mapping[str, Any]) -> dict[str, str]:
    """The words chapter 12 glues, from its results dict alone."""
    out: dict[str, str] = {
        "data_caveat": "These are simulated data: the numbers below say what the method does "
        "under the simulator's generative story, not what it does on eBay's logs."
        if results["data_source"]["kind"] != "real"
        else "These are real logs, but not eBay's: the numbers below say what the method does "
        "on them."
    }
    _encoder_words(results, out)
    _row_words(results, out)
    claim_words(results, out)
    _perc_words(results, out)
    _shared_words(results, out)
    out["online_lifts"] = list_phrase(
        [f"{r['variant']} ({r['lift_pct']:+.2f}%)" for r in results["paper_online_lifts"]]
    )
    # what the run read and used, as its results file records it
    out["data_label"] = str(results["table1"][0]["data_source"])
    out["embedder_name"] = str(results["embedder"])
    out["hardware"] = str(results["hardware"])
    return out


def DEPENDS(results: Mapping[str, Any]) -> list[tuple[str, Any, Any]]:  # noqa: N802
    """The results values the words above read, each one that can flip a word as it stands."""
    ci = ("ci_low", "ci_high")
    out: list[tuple[str, Any, Any]] = []
    for kind in KINDS:
        out += [("encoders", kind, f) for f in ("gain_min", "best_epoch", "epochs_cap")]
        out += [("reads_clicks", kind, "own_clicks"), ("reads_clicks", kind, "other_clicks")]
        if len(results["encoders"][kind]["best_epoch_per_seed"]) > 1:
            out += [("encoders", kind, "seed_spread"), ("encoders", kind, "gain_se")]
    oracle = results["oracle_variant"]
    for i, r in enumerate(results["table1"]):
        out += [("table1", i, "lift_pct"), ("table1", i, "verdict")]
        if r["variant"] == oracle:  # the oracle sentence prints its CI
            out.append(("table1", i, ci))
    for i in range(len(results["paper_comparison"])):
        out += [("paper_comparison", i, ci), ("paper_comparison", i, "lift_pct")]
    for i in range(len(results["power"])):
        out.append(("power", i, "power"))
    out += claim_depends(results)
    claims = results["paired_claims"]
    if claims[_index(claims, "claim", _PERC_CLAIM)]["diff_pct"] <= 0:
        out += [("within_query_overlap", kind, "r2_p2") for kind in KINDS]
    if results["shared_rows"]["status"] == "compared":
        out.append(("shared_rows", None, "max_gap"))
    return out
