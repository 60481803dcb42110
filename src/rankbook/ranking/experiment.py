"""One call from a session log to time-split feature tables, and the context sweep (beyond the
paper).

``prepare_experiment(log, *, embedder, fractions, compressor, max_history, feature_windows)
-> Experiment``
    embeds items and queries, splits sessions by start time
    (:func:`rankbook.data.sessions.assign_time_windows`), builds the feature table
    (:func:`rankbook.context.features.build_feature_table`) with popularity from the ``"train"``
    window only (for the queries of ``feature_windows`` only, when given), and returns it with
    per-window views. Works unchanged on the simulator's and the
    Diginetica loader's :class:`~rankbook.data.sessions.SessionLog`. On a simulated log the table
    also holds the oracle column ``Oracle_intent`` (:mod:`rankbook.context.oracle`); a real log has
    no latent intent and no oracle.
``PART3_FRACTIONS``  the split of a real log in every Part III chapter with a ranker (chapters 11
    and 12): encoder window (sequence encoders only), ranker training, validation and test, by
    session start. Same log, same split, same seeds => the rows the two chapters share are
    identical.
``load_part3_log(data_dir, *, config, encoder_sessions, max_sessions) -> (SessionLog, fractions)``
    the log and split of chapters 11 and 12. Simulated: ``config.n_sessions`` sessions for the
    ranker's windows *plus* ``encoder_sessions`` earlier ones for the encoder window (one
    simulation of both, so the two chapters share every row); the ranker's windows split their
    share 0.35 : 0.1 : 0.3 as ``PART3_FRACTIONS`` does. Real: the DIGINETICA folder and
    ``PART3_FRACTIONS``.
``part3_fractions(n_sessions, encoder_sessions)``  those shares, without simulating.
``RANKER_WINDOWS``  ``("train", "valid", "test")``: the windows whose queries get ranker
    features.
``tune_part3_ranker(train, valid, feature_sets) -> (LambdaMARTConfig, grid records)``
    LambdaMART's learning rate and leaves tuned on the validation window with the ``"P2"`` set
    (every paper feature, no oracle or sequence column), rounds by early stopping
    (:func:`rankbook.ranking.lambdamart.tune_lambdamart`); chapters 11 and 12 both call it, so
    their shared rows use the same settings.
``table1_design(table) -> (feature_sets, rows)``  the paper's progressive sets and rows, plus the
    oracle row ``MLR + Oracle_intent`` vs MLR when the table has the oracle column.
``Experiment.window(name)``  the rows of one window (queries contiguous, SERP order).
``load_session_log(data_dir, *, config, max_sessions) -> SessionLog``
    a DIGINETICA folder when ``data_dir`` is given
    (:func:`rankbook.data.diginetica.load_diginetica`), else the simulator at ``config``: how the
    Part III chapters take a ``data_dir`` parameter.
``default_embedder(log, *, fractions) -> embedder``
    all-MiniLM-L6-v2 for readable text; for hashed tokens (DIGINETICA) a PPMI+SVD embedder fitted on
    the titles and on co-clicks of the sessions before the ``"valid"`` and ``"test"`` windows only
    (no leakage).
``context_sweep(p_switch_values, p_return_values, *, config, embedder, features, ...) -> DataFrame``
    re-simulates on the grid ``p_switch x p_return`` and runs
    :func:`rankbook.ranking.ablation.run_ablation` at each point: one row ``MLR + f`` vs MLR per
    feature ``f`` plus the oracle row, and per grid point the measured shares of later queries that
    switched intent and that returned to an earlier one (``share_switched``, ``share_returned``);
    ``added_splits``, ``added_gain``: the row's model's splits on ``f`` and their gain.
    Grid points that simulate the same log (at ``p_switch = 0`` no intent shifts, so ``p_return``
    changes nothing) are one configuration: ``config`` numbers the distinct logs in grid order,
    ``distinct`` marks the first grid point of each, and a repeat reuses its rows (no refit).
``sweep_verdicts(sweep) -> DataFrame``  each row's ``family``, Holm-adjusted ``p_holm`` and
    :func:`rankaudit.runs.decision.effect_verdict`, as chapter 11's Table 1 rows: the family is
    the feature rows of the distinct configurations (each test counted once), the oracle's rows
    their own family; a repeated grid point carries its configuration's values.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from dataclasses import dataclass, replace

import numpy as np
import pandas as pd

from rankaudit._optional import tqdm
from rankaudit.runs.decision import effect_verdict
from rankaudit.runs.significance import holm_adjust
from rankbook.context.embed import MiniLMEmbedder, PPMISVDEmbedder, embed_items_and_queries
from rankbook.context.features import (
    HEURISTIC_FEATURES,
    INTENT_FEATURES,
    MLR_FEATURES,
    build_feature_table,
    click_history,
)
from rankbook.context.oracle import ORACLE_FEATURE, has_intent, oracle_intent_feature
from rankbook.data.diginetica import load_diginetica
from rankbook.data.sessions import (
    SessionConfig,
    SessionLog,
    assign_time_windows,
    simulate_sessions,
)
from rankbook.ranking.ablation import (
    AblationRow,
    extend_feature_sets,
    progressive_feature_sets,
    run_ablation,
)
from rankbook.ranking.lambdamart import LambdaMARTConfig, tune_lambdamart

__all__ = [
    "DEFAULT_FRACTIONS",
    "ORACLE_ROW",
    "PART3_FRACTIONS",
    "RANKER_WINDOWS",
    "SWEEP_N_BOOT",
    "Experiment",
    "default_embedder",
    "load_part3_log",
    "load_session_log",
    "part3_fractions",
    "context_sweep",
    "prepare_experiment",
    "sweep_verdicts",
    "table1_design",
    "tune_part3_ranker",
]

#: Paired bootstrap resamples of each lift of :func:`context_sweep` (its CI and its two-sided
#: p-value, whose floor is ``2 / (SWEEP_N_BOOT + 1)``).
SWEEP_N_BOOT = 1000

#: The feature set the Part III ranker is tuned with (every paper feature).
TUNING_SET = "P2"


def tune_part3_ranker(
    train: pd.DataFrame, valid: pd.DataFrame, feature_sets: dict[str, list[str]], *, seed: int = 0
) -> tuple[LambdaMARTConfig, list[dict]]:
    """The ranker settings of chapters 11 and 12, tuned on ``valid`` with ``feature_sets["P2"]``
    (module docstring); every record of the grid names the set it was tuned with."""
    if TUNING_SET not in feature_sets:
        raise ValueError(f"feature_sets has no {TUNING_SET!r} set to tune the ranker with")
    config, grid = tune_lambdamart(train, valid, feature_sets[TUNING_SET], seed=seed)
    return config, [{**r, "tuned_on": TUNING_SET} for r in grid]


DEFAULT_FRACTIONS = {"train": 0.5, "valid": 0.15, "test": 0.35}
#: The split of chapters 11 and 12 (shared so that their common Table 1 rows are identical).
PART3_FRACTIONS = {"encoder": 0.25, "train": 0.35, "valid": 0.1, "test": 0.3}
#: The windows a ranker trains, stops and is tested on (every other window is the encoders').
RANKER_WINDOWS = ("train", "valid", "test")
#: The oracle's Table 1 row: the baseline plus the true current intent (simulator only).
ORACLE_ROW = f"MLR + {ORACLE_FEATURE}"


def table1_design(table: pd.DataFrame) -> tuple[dict[str, list[str]], list[AblationRow]]:
    """The paper's progressive feature sets and rows, then the oracle row if ``table`` has it."""
    sets, rows = progressive_feature_sets(MLR_FEATURES, HEURISTIC_FEATURES, INTENT_FEATURES)
    if ORACLE_FEATURE in table:
        sets, rows = extend_feature_sets(sets, rows, "MLR", [ORACLE_FEATURE])
    return sets, rows


@dataclass
class Experiment:
    log: SessionLog
    table: pd.DataFrame
    windows: pd.Series  # per query (aligned with log.queries)
    item_vectors: np.ndarray
    query_vectors: np.ndarray
    history: np.ndarray  # click_history(log.queries, log.clicks, max_history)

    def window(self, name: str) -> pd.DataFrame:
        win = self.windows.to_numpy()[self.table.qpos.to_numpy()]
        if name not in set(self.windows.cat.categories):
            raise ValueError(
                f"unknown window {name!r}; windows are {list(self.windows.cat.categories)}"
            )
        return self.table[win == name].reset_index(drop=True)


def load_session_log(
    data_dir: str | None,
    *,
    config: SessionConfig,
    max_sessions: int | None = None,
    progress: bool = True,
) -> SessionLog:
    """DIGINETICA files from ``data_dir`` (first ``max_sessions`` sessions; all when None), else
    the simulator."""
    if data_dir:
        return load_diginetica(data_dir, max_sessions=max_sessions)
    return simulate_sessions(config, progress=progress)


def load_part3_log(
    data_dir: str | None,
    *,
    config: SessionConfig,
    encoder_sessions: int,
    max_sessions: int | None = None,
    progress: bool = True,
) -> tuple[SessionLog, dict[str, float]]:
    """The log and the time split of chapters 11 and 12 (module docstring).

    Simulated (``data_dir`` None): one simulation of ``n + encoder_sessions`` sessions, ``n =
    config.n_sessions``. Windows take shares of the sessions ordered by start time
    (:func:`~rankbook.data.sessions.assign_time_windows`), so the encoder window, share ``e =
    encoder_sessions / (n + encoder_sessions)``, holds the first ``encoder_sessions`` sessions (up
    to rounding) and the ranker's windows split the last ``n`` in the proportions of
    ``PART3_FRACTIONS``. Real: :func:`load_session_log` and ``PART3_FRACTIONS``
    (``encoder_sessions`` does not apply).
    """
    if data_dir:
        return load_session_log(data_dir, config=config, max_sessions=max_sessions), dict(
            PART3_FRACTIONS
        )
    fractions = part3_fractions(config.n_sessions, encoder_sessions)
    log = simulate_sessions(
        replace(config, n_sessions=config.n_sessions + encoder_sessions), progress=progress
    )
    return log, fractions


def part3_fractions(n_sessions: int, encoder_sessions: int) -> dict[str, float]:
    """Window shares when ``encoder_sessions`` earlier sessions precede ``n_sessions`` ranker
    sessions: ``encoder = e / (n + e)``, and each ranker window ``w`` gets
    ``PART3_FRACTIONS[w] / (1 - PART3_FRACTIONS["encoder"]) * n / (n + e)``."""
    if n_sessions < 1 or encoder_sessions < 1:
        raise ValueError(
            f"n_sessions and encoder_sessions must be >= 1, got {n_sessions}, {encoder_sessions}"
        )
    encoder = encoder_sessions / (n_sessions + encoder_sessions)
    ranker = 1 - PART3_FRACTIONS["encoder"]
    fractions = {"encoder": encoder}
    fractions.update({w: PART3_FRACTIONS[w] / ranker * (1 - encoder) for w in RANKER_WINDOWS})
    return fractions


def default_embedder(
    log: SessionLog, *, fractions: dict[str, float] | None = None, progress: bool = True
):
    """MiniLM for readable titles; PPMI+SVD fitted before the validation window for hashed tokens
    (module doc)."""
    if not log.extra.get("hashed_tokens"):
        return MiniLMEmbedder(progress=progress)
    windows = assign_time_windows(log.queries, fractions or DEFAULT_FRACTIONS)
    early = ~np.isin(windows.to_numpy(), ["valid", "test"])  # e.g. "encoder" and "train"
    co_clicks = log.clicks[log.clicks.session_id.isin(log.queries.session_id[early].unique())]
    return PPMISVDEmbedder().fit(log.items.title.tolist(), co_clicks)


def prepare_experiment(
    log: SessionLog,
    *,
    embedder,
    fractions: dict[str, float] | None = None,
    compressor: str = "zlib",
    max_history: int = 5,
    feature_windows: Sequence[str] | None = None,
    progress: bool = True,
) -> Experiment:
    """Embeddings, time windows and the feature table for ``log`` (module docstring).

    ``feature_windows`` (e.g. :data:`RANKER_WINDOWS`): build the feature table for the queries of
    these windows only; None builds it for every query.
    """
    fractions = fractions or DEFAULT_FRACTIONS
    if "train" not in fractions:
        raise ValueError(f"fractions must include a 'train' window, got {list(fractions)}")
    windows = assign_time_windows(log.queries, fractions)
    query_mask = None
    if feature_windows is not None:
        unknown = sorted(set(feature_windows) - set(fractions))
        if unknown:
            raise ValueError(
                f"feature_windows {unknown} are not windows of fractions {list(fractions)}"
            )
        query_mask = np.isin(windows.to_numpy(), list(feature_windows))
    item_vecs, query_vecs = embed_items_and_queries(log.items, log.queries, embedder)
    pop_ids = log.queries.query_id.to_numpy()[windows.to_numpy() == "train"]
    table = build_feature_table(
        log,
        item_vectors=item_vecs,
        query_vectors=query_vecs,
        popularity_query_ids=pop_ids,
        compressor=compressor,
        max_history=max_history,
        query_mask=query_mask,
        progress=progress,
    )
    if has_intent(log.queries):
        table[ORACLE_FEATURE] = oracle_intent_feature(log.queries, table, item_vecs)
    history = click_history(log.queries, log.clicks, max_history)
    return Experiment(
        log=log,
        table=table,
        windows=windows,
        item_vectors=item_vecs,
        query_vectors=query_vecs,
        history=history,
    )


def context_sweep(
    p_switch_values: Sequence[float],
    p_return_values: Sequence[float],
    *,
    config: SessionConfig,
    embedder,
    features: Sequence[str],
    seeds: Sequence[int] = (0,),
    lgb_config: LambdaMARTConfig | None = None,
    fractions: dict[str, float] | None = None,
    n_boot: int = SWEEP_N_BOOT,
    progress: bool = True,
) -> pd.DataFrame:
    """Lift of ``MLR + f`` over MLR for each feature and the oracle, on the ``p_switch x p_return``
    grid.

    Each grid point re-simulates with the same seed and every other knob of ``config`` fixed.
    A grid point whose simulated log is identical to an earlier one's (same tables, see
    :func:`_log_fingerprint`) is the same configuration: its rows are that point's, with
    ``distinct`` False, and it is not refitted.
    """
    if len(p_switch_values) == 0 or len(p_return_values) == 0:
        raise ValueError("p_switch_values and p_return_values must each hold at least one value")
    out: list[pd.DataFrame] = []
    seen: dict[str, int] = {}
    grid = [(float(s), float(r)) for s in p_switch_values for r in p_return_values]
    for p_switch, p_return in tqdm(grid, desc="context sweep", disable=not progress, leave=False):
        log = simulate_sessions(
            replace(config, p_switch=p_switch, p_return=p_return), progress=False
        )
        key = _log_fingerprint(log)
        if key in seen:
            first = out[seen[key]]
            out.append(first.assign(p_switch=p_switch, p_return=p_return, distinct=False))
            continue
        seen[key] = len(out)
        exp = prepare_experiment(log, embedder=embedder, fractions=fractions, progress=False)
        extra = [*features, ORACLE_FEATURE]
        sets = {"MLR": list(MLR_FEATURES), **{f"MLR + {f}": [*MLR_FEATURES, f] for f in extra}}
        rows = [AblationRow(f"MLR + {f}", "MLR") for f in extra]
        res = run_ablation(
            exp.window("train"),
            exp.window("valid"),
            exp.window("test"),
            sets,
            rows,
            seeds=seeds,
            config=lgb_config,
            n_boot=n_boot,
            progress=False,
        )
        later = log.queries[log.queries.query_index > 0]
        out.append(
            res.table.assign(
                p_switch=p_switch,
                p_return=p_return,
                share_switched=float(later.intent_switched.mean()) if len(later) else 0.0,
                share_returned=float(later.intent_returned.mean()) if len(later) else 0.0,
                config=len(seen) - 1,
                distinct=True,
            )
        )
    return pd.concat(out, ignore_index=True)


def _log_fingerprint(log) -> str:
    """SHA-256 of a session log's tables (items, queries, SERP rows, clicks; values and
    index), not of its config: two grid points with the same fingerprint simulated the same
    log."""
    digest = hashlib.sha256()
    for frame in (log.items, log.queries, log.serp, log.clicks):
        digest.update(pd.util.hash_pandas_object(frame, index=True).to_numpy().tobytes())
        digest.update(",".join(map(str, frame.columns)).encode())
    return digest.hexdigest()


def sweep_verdicts(sweep: pd.DataFrame, *, oracle: str = ORACLE_FEATURE) -> pd.DataFrame:
    """``sweep`` (:func:`context_sweep`) with ``family``, ``p_holm`` and ``verdict`` per row.

    The standard of chapter 11's rows (:meth:`rankbook.ranking.ablation.AblationResult.table1`):
    the p-values of the ``"features"`` family, every ``MLR + f`` row of a distinct configuration
    (``distinct``) other than the oracle's, are adjusted together by Holm's step-down procedure
    (Holm, 1979; :func:`rankaudit.runs.significance.holm_adjust`), the oracle's rows
    (``"oracle"``) likewise among themselves; ``verdict`` is
    :func:`rankaudit.runs.decision.effect_verdict` at ``p_holm``. A repeated grid point is the
    same test as its configuration's: it gets that row's values and is not counted again.
    """
    need = ("variant", "lift_pct", "ci_low", "ci_high", "p_value", "config", "distinct")
    missing = [c for c in need if c not in sweep]
    if missing:
        raise ValueError(f"sweep has no column {missing[0]!r} (context_sweep's output)")
    out = sweep.copy()
    out["family"] = np.where(out.variant == f"MLR + {oracle}", "oracle", "features")
    first = out[out.distinct.astype(bool)]
    p_holm = pd.Series(np.nan, index=first.index)
    for _, part in first.groupby("family", sort=False):
        p_holm[part.index] = holm_adjust(part.p_value.to_numpy(dtype=np.float64))
    verdict = pd.Series(
        [
            effect_verdict(r.lift_pct, r.ci_low, r.ci_high, r.p_value, p_holm[i])
            for i, r in zip(first.index, first.itertuples(), strict=True)
        ],
        index=first.index,
        dtype=object,
    )
    by_test = pd.DataFrame({"p_holm": p_holm, "verdict": verdict}).set_index(
        pd.MultiIndex.from_frame(first[["config", "variant"]])
    )
    keys = pd.MultiIndex.from_frame(out[["config", "variant"]])
    out["p_holm"] = by_test.p_holm.reindex(keys).to_numpy()
    out["verdict"] = by_test.verdict.reindex(keys).to_numpy()
    return out
