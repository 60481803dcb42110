"""The oracle context feature: what a contextual feature could know if it saw the buyer's intent.

Simulator only. The simulator (:mod:`rankbook.data.sessions`) records, for every query, the target
product of the buyer's *current* latent intent (``queries.intent_target_item``). The oracle feature
is the cosine between a SERP item and that target, in the same embedding space as the ``CosSim``
features (Sheng et al., 2025, section 2):

    ``Oracle_intent(i, q) = cos(E_item_i, E_target(q))``

i.e. the ``CosSim`` feature of a *perfect reference click*: as if the buyer's one earlier click had
been the very product the current intent is anchored on. It is NaN where the query has no earlier
click in its session (``n_history == 0``), like every contextual feature: context that the session
has not yet revealed is not available to any feature, so the oracle is a ceiling on what the
observed clicks could give, not on what mind-reading could give. The share of that ceiling a
feature recovers is ``share_of_oracle = lift(feature) / lift(oracle)``
(:func:`rankbook.ranking.power.share_of_oracle`).

A real log (DIGINETICA) has no latent intent: :func:`oracle_intent_feature` raises ``ValueError``.

Public API: :data:`ORACLE_FEATURE`, :func:`has_intent`, :func:`oracle_intent_feature`.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from rankbook.context.features import pair_cosine

__all__ = ["ORACLE_FEATURE", "has_intent", "oracle_intent_feature"]

#: Column name of the oracle feature in the feature table and its ablation row ``MLR +
#: Oracle_intent``.
ORACLE_FEATURE = "Oracle_intent"


def has_intent(queries: pd.DataFrame) -> bool:
    """True when ``queries`` carries the simulator's latent ``intent_target_item`` column."""
    return "intent_target_item" in queries


def oracle_intent_feature(
    queries: pd.DataFrame, frame: pd.DataFrame, item_vectors: np.ndarray
) -> np.ndarray:
    """``cos(E_item, E_target)`` per row of ``frame``; NaN where ``frame.n_history == 0``.

    ``queries``: the log's queries (row ``qpos`` of ``frame`` points into it); ``frame``: the
    feature table of :func:`rankbook.context.features.build_feature_table` (needs ``qpos``,
    ``item_id`` and ``n_history``); ``item_vectors``: L2-normalised item embeddings, rows aligned
    with item ids.
    """
    if not has_intent(queries):
        raise ValueError(
            "queries has no 'intent_target_item' column: the oracle needs the "
            "simulator's latent intent (a real log has none)"
        )
    for col in ("qpos", "item_id", "n_history"):
        if col not in frame:
            raise ValueError(
                f"frame needs a {col!r} column (rankbook.context.features.build_feature_table)"
            )
    target = queries["intent_target_item"].to_numpy(np.int64)
    qpos = frame["qpos"].to_numpy(np.int64)
    if len(qpos) and (qpos.min() < 0 or qpos.max() >= len(target)):
        raise ValueError(f"frame.qpos must lie in [0, {len(target)}), the rows of queries")
    t = np.where(frame["n_history"].to_numpy() > 0, target[qpos], -1)
    return pair_cosine(item_vectors, frame["item_id"].to_numpy(np.int64), item_vectors, t)
