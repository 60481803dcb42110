"""Write a :class:`~rankbook.data.sessions.SessionLog` as DIGINETICA (CIKM Cup 2016 track 2) files.

The inverse of :func:`rankbook.data.diginetica.load_diginetica`, for two uses:

- testing the real-data path of the Part III chapters end to end on data of realistic size and in
  the real format (the hand-written fixtures have four queries; the original is not
  redistributable);
- handing a simulated log to tools written for DIGINETICA.

The files mimic the original: ``;``-separated with its camelCase/dotted headers, words of titles
and queries replaced by hashed integer tokens (``blake2b`` of the lower-cased word, 4 bytes, as
the original hashes its tokens), ``eventdate`` the session's first day and ``timeframe``
milliseconds after that day's midnight, ``NA`` for anonymous users, category names as integer
ids. A ``rankaudit-export.json`` file records the generator, so that the loader labels what it
reads as SIMULATED rather than real.

What does not survive the round trip: the simulator's latent columns (intents, quality); a
purchase is written at its click's time, and the loader's rule (an item bought in the session at
or after the query) can also mark the same item sold in a later query of that session.
"""

from __future__ import annotations

import hashlib
import json
import re
from pathlib import Path

import numpy as np
import pandas as pd

from rankbook.data.session_log import SessionLog

__all__ = ["EXPORT_MARKER", "hash_tokens", "write_diginetica"]

EXPORT_MARKER = "rankaudit-export.json"
_WORD = re.compile(r"[a-z0-9]+")


def _token(word: str) -> int:
    return (
        int.from_bytes(hashlib.blake2b(word.encode(), digest_size=4).digest(), "little") % 1_000_000
    )


def hash_tokens(texts: pd.Series) -> pd.Series:
    """Comma-joined hashed tokens of each text (lower-cased alphanumeric words); '' for empty
    text."""
    vocab: dict[str, int] = {}

    def one(text: object) -> str:
        words = _WORD.findall(str(text).lower()) if isinstance(text, str) else []
        return ",".join(str(vocab.setdefault(w, _token(w))) for w in words)

    return texts.map(one)


def write_diginetica(log: SessionLog, out_dir: str | Path) -> Path:
    """Write the six DIGINETICA files (and the export marker) for ``log`` into ``out_dir``."""
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    items, q, serp, clicks = log.items, log.queries, log.serp, log.clicks
    item_code = items.item_id.to_numpy() + 1  # DIGINETICA ids start at 1
    cat_codes = {
        c: i + 1000 for i, c in enumerate(sorted(items.category.dropna().astype(str).unique()))
    }

    pd.DataFrame(
        {
            "itemId": item_code,
            "pricelog2": np.round(np.log2(items.price.to_numpy(float)), 6),
            "product.name.tokens": hash_tokens(items.title).to_numpy(),
        }
    ).to_csv(out / "products.csv", sep=";", index=False)
    pd.DataFrame(
        {"itemId": item_code, "categoryId": items.category.astype(str).map(cat_codes)}
    ).to_csv(out / "product-categories.csv", sep=";", index=False)

    start = q.groupby("session_id").timestamp.transform("min").dt.normalize()
    day = dict(zip(q.session_id, start.dt.strftime("%Y-%m-%d"), strict=False))
    midnight = dict(zip(q.session_id, start, strict=False))

    def ms_after(session: pd.Series, ts: pd.Series) -> np.ndarray:
        return ((ts - session.map(midnight)) // pd.Timedelta(milliseconds=1)).to_numpy(np.int64)

    users = q.user_id.map(lambda u: "NA" if u is None or u == "" or pd.isna(u) else str(u))
    ordered = serp.sort_values(["query_id", "rank"], kind="stable")
    lists = (ordered.item_id + 1).astype(str).groupby(ordered.query_id).agg(",".join)
    qcat = q.query_category.map(lambda c: "" if pd.isna(c) else str(cat_codes.get(str(c), "")))
    pd.DataFrame(
        {
            "queryId": q.query_id,
            "sessionId": q.session_id,
            "userId": users,
            "timeframe": ms_after(q.session_id, q.timestamp),
            "duration": 0,
            "eventdate": q.session_id.map(day),
            "searchstring.tokens": hash_tokens(q.query_text).to_numpy(),
            "categoryId": qcat,
            "items": q.query_id.map(lists).fillna(""),
            "is.test": "FALSE",
        }
    ).to_csv(out / "train-queries.csv", sep=";", index=False)

    user_of = dict(zip(q.session_id, users, strict=False))
    session_of = dict(zip(q.query_id, q.session_id, strict=False))
    from_serp = clicks[clicks.query_id.notna()]
    c_session = from_serp.query_id.astype("int64").map(session_of)
    pd.DataFrame(
        {
            "queryId": from_serp.query_id.astype("int64"),
            "timeframe": ms_after(c_session, from_serp.timestamp),
            "itemId": from_serp.item_id.to_numpy() + 1,
        }
    ).to_csv(out / "train-clicks.csv", sep=";", index=False)
    pd.DataFrame(
        {
            "sessionId": clicks.session_id,
            "userId": clicks.session_id.map(user_of),
            "itemId": clicks.item_id.to_numpy() + 1,
            "timeframe": ms_after(clicks.session_id, clicks.timestamp),
            "eventdate": clicks.session_id.map(day),
        }
    ).to_csv(out / "train-item-views.csv", sep=";", index=False)

    # a purchase happens when its item is clicked from the SERP it was sold from
    sold = serp[serp.purchased][["query_id", "item_id"]]
    bought = sold.merge(
        from_serp.assign(query_id=from_serp.query_id.astype("int64")),
        on=["query_id", "item_id"],
        how="left",
    )
    bought["session_id"] = bought.query_id.map(session_of)
    q_ts = dict(zip(q.query_id, q.timestamp, strict=False))
    bought["timestamp"] = bought.timestamp.fillna(bought.query_id.map(q_ts))
    pd.DataFrame(
        {
            "sessionId": bought.session_id,
            "userId": bought.session_id.map(user_of),
            "timeframe": ms_after(bought.session_id, bought.timestamp),
            "eventdate": bought.session_id.map(day),
            "ordernumber": np.arange(1, len(bought) + 1),
            "itemId": bought.item_id.to_numpy() + 1,
        }
    ).to_csv(out / "train-purchases.csv", sep=";", index=False)

    (out / EXPORT_MARKER).write_text(
        json.dumps(
            {
                "generator": log.source.generator,
                "source": log.source.to_dict(),
                "note": "simulated sessions written in the DIGINETICA format by "
                "rankbook.data.diginetica_export",
            },
            indent=2,
            default=str,
        )
    )
    return out
