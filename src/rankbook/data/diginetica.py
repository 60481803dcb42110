"""Loader for DIGINETICA (CIKM Cup 2016, track 2: personalized e-commerce search), into a
SessionLog.

Files (``;``-separated, one header line; tokens are hashed integer ids; ``NA`` marks an anonymous
user)::

    train-queries.csv        queryId;sessionId;userId;timeframe;duration;eventdate;
                             searchstring.tokens;categoryId;items;is.test   (one line in the file)
    train-clicks.csv         queryId;timeframe;itemId
    train-item-views.csv     sessionId;userId;itemId;timeframe;eventdate
    train-purchases.csv      sessionId;userId;timeframe;eventdate;ordernumber;itemId
    products.csv             itemId;pricelog2;product.name.tokens
    product-categories.csv   itemId;categoryId

Headers are matched after lower-casing and dropping every non-alphanumeric character, so the
camelCase/dotted originals and snake_case re-exports (``query_id``, ``search_string_tokens``,
``price_log2``...) both load. ``timeframe`` is milliseconds since the session start and
``eventdate`` the session's day, so an event's time is ``eventdate + timeframe``. The SERP of a
query is its ``items`` column, in displayed order.

Mapping to the shared schema of :mod:`rankbook.data.sessions`
    items    ``item_id`` (dense 0..n-1), ``source_item_id``, ``title`` = product-name tokens
             (space-joined), ``category`` = categoryId, ``price`` = ``2 ** pricelog2``
    queries  ``query_id`` = queryId, ``session_id``, ``user_id``, ``timestamp``, ``query_text`` =
             search tokens (space-joined; empty for category browsing), ``query_category`` =
             categoryId (NaN when empty), ``query_index`` (order within the session), ``is_test``
    serp     clicked = (queryId, itemId) in train-clicks; purchased = the item was bought in the
             same session at or after the query's time; ``label`` = clicked + purchased, capped to 2
             (sale 2 > click 1 > none 0; a sold item that was not clicked from this SERP still
             counts as a sale)
    clicks   the session's item views and SERP clicks (deduplicated): the history for contextual
    features.

Malformed input raises :class:`rankaudit.errors.InputFileError` (a ``ValueError``) naming the file
and the line (``path:line: reason``; 1-based, header = line 1); a missing file raises
``FileNotFoundError``, as the other loaders do.
Licence: the dataset is distributed by DIGINETICA for research under the CIKM Cup 2016 terms; it is
not redistributed here. Put the files in ``data/external/diginetica/`` (see ``data/README.md``). A
folder written by :func:`rankbook.data.diginetica_export.write_diginetica` (it holds
``rankaudit-export.json``) loads as SIMULATED.
Titles and queries are hashed tokens, so ``SessionLog.extra["hashed_tokens"]`` is True: a pretrained
text encoder cannot read them (see :func:`rankbook.ranking.experiment.default_embedder`).

Public API: :func:`load_diginetica`, :func:`read_table`.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd

from rankaudit.errors import InputFileError
from rankbook.data.diginetica_export import EXPORT_MARKER
from rankbook.data.session_log import SessionLog
from rankbook.data.source import DataSource
from rankbook.data.textfile import first_undecodable_line

__all__ = [
    "FILES",
    "FLOAT_COLUMNS",
    "INT_COLUMNS",
    "load_diginetica",
    "read_table",
]

FILES = {
    "queries": (
        "train-queries.csv",
        [
            "queryid",
            "sessionid",
            "userid",
            "timeframe",
            "duration",
            "eventdate",
            "searchstringtokens",
            "categoryid",
            "items",
            "istest",
        ],
    ),
    "clicks": ("train-clicks.csv", ["queryid", "timeframe", "itemid"]),
    "views": ("train-item-views.csv", ["sessionid", "userid", "itemid", "timeframe", "eventdate"]),
    "purchases": (
        "train-purchases.csv",
        ["sessionid", "userid", "timeframe", "eventdate", "ordernumber", "itemid"],
    ),
    "products": ("products.csv", ["itemid", "pricelog2", "productnametokens"]),
    "categories": ("product-categories.csv", ["itemid", "categoryid"]),
}
INT_COLUMNS = {"queryid", "sessionid", "timeframe", "itemid", "duration", "ordernumber"}
FLOAT_COLUMNS = {"pricelog2"}


def _canon(name: str) -> str:
    return re.sub(r"[^a-z0-9]", "", name.lower())


def read_table(path: Path, required: list[str]) -> pd.DataFrame:
    """Read one ``;``-separated file as strings with canonical column names, validating every
    line."""
    path = Path(path)
    if not path.is_file():
        raise FileNotFoundError(f"{path}: no such file")
    try:
        df = pd.read_csv(
            path, sep=";", dtype=str, keep_default_na=False, na_filter=False, engine="c"
        )
    except pd.errors.ParserError as e:
        m = re.search(r"line (\d+)", str(e))
        line = int(m.group(1)) if m else None
        raise InputFileError(path, line, f"malformed row ({' '.join(str(e).split())})") from None
    except pd.errors.EmptyDataError:
        raise InputFileError(path, 1, "empty file, expected a header") from None
    except UnicodeDecodeError:
        line, bad = first_undecodable_line(path, "utf-8")
        raise InputFileError(path, line, f"not valid UTF-8 text (byte(s) {bad!r})") from None
    df.columns = [_canon(c) for c in df.columns]
    missing = [c for c in required if c not in df.columns]
    if missing:
        raise InputFileError(path, 1, f"header lacks column(s) {missing}; found {list(df.columns)}")
    lines = np.asarray(path.read_text(encoding="utf-8").splitlines()[1:], dtype=str)
    lines = lines[np.char.str_len(lines) > 0] if len(lines) else lines
    n_sep = np.char.count(lines, ";") if len(lines) else np.zeros(0, dtype=int)
    width = len(df.columns) - 1
    if (n_sep != width).any():
        i = int(np.flatnonzero(n_sep != width)[0])
        raise InputFileError(
            path, i + 2, f"expected {width + 1} ';'-separated fields, got {n_sep[i] + 1}"
        )
    df = df[required]
    for col in required:
        if col in INT_COLUMNS or col in FLOAT_COLUMNS:
            s = df[col].str.strip()
            num = pd.to_numeric(s, errors="coerce")
            if col in FLOAT_COLUMNS:
                num = num.where(np.isfinite(num.to_numpy(dtype=float)))  # inf is not a price
            else:  # whole integers only: 1.7 is not an id, a time or a count
                num = num.where(s.str.fullmatch(r"[+-]?\d+") & (num.abs() < 2**63))
            bad = (
                num.isna().to_numpy() & (s.to_numpy() != "")
                if col not in ("itemid", "sessionid", "queryid")
                else num.isna().to_numpy()
            )
            if bad.any():
                i = int(np.flatnonzero(bad)[0])
                kind = "a finite number" if col in FLOAT_COLUMNS else "a number (a whole integer)"
                raise InputFileError(
                    path, i + 2, f"column {col!r} is not {kind}: {df[col].iloc[i]!r}"
                )
            df[col] = num if col in FLOAT_COLUMNS else num.astype("Int64")
    return df


def _event_time(date: pd.Series, timeframe: pd.Series, path: Path) -> pd.Series:
    d = pd.to_datetime(date, format="%Y-%m-%d", errors="coerce")
    if d.isna().any():
        i = int(np.flatnonzero(d.isna().to_numpy())[0])
        raise InputFileError(path, i + 2, f"eventdate {date.iloc[i]!r} is not YYYY-MM-DD")
    return d + pd.to_timedelta(timeframe.astype("int64"), unit="ms")


@dataclass(frozen=True)
class _Files:
    """The six tables as read, their paths, and the map from DIGINETICA item ids to dense ids."""

    tables: dict[str, pd.DataFrame]
    paths: dict[str, Path]
    queries: pd.DataFrame  # the queries kept (``max_sessions``)
    dense: pd.Series  # DIGINETICA itemId -> 0..n_items-1

    def dense_ids(self, ids: pd.Series, key: str, rows: np.ndarray) -> np.ndarray:
        """Dense item ids of ``ids``; an id not in products.csv is an error naming file and line."""
        out = self.dense.reindex(ids.astype("int64").to_numpy()).to_numpy()
        bad = np.isnan(out)
        if bad.any():
            i = int(np.flatnonzero(bad)[0])
            raise InputFileError(
                self.paths[key], int(rows[i]) + 2, f"itemId {ids.iloc[i]} not in products.csv"
            )
        return out.astype(np.int64)


def _read_files(root: Path, max_sessions: int | None) -> tuple[_Files, pd.DataFrame]:
    """Read the six files, keep the first ``max_sessions`` sessions; returns the files and the
    product table (products joined with their categories, by item id)."""
    tables = {key: read_table(root / name, cols) for key, (name, cols) in FILES.items()}
    paths = {key: root / name for key, (name, _) in FILES.items()}
    q = tables["queries"]
    if max_sessions is not None:
        keep = np.sort(q.sessionid.unique())[:max_sessions]
        q = q[q.sessionid.isin(keep)]
    prod = tables["products"].merge(tables["categories"], on="itemid", how="left")
    prod = prod.sort_values("itemid", kind="stable").reset_index(drop=True)
    if prod.itemid.duplicated().any():
        i = int(np.flatnonzero(tables["products"].itemid.duplicated().to_numpy())[0])
        raise InputFileError(
            paths["products"], i + 2, f"duplicate itemId {tables['products'].itemid.iloc[i]}"
        )
    dense = pd.Series(np.arange(len(prod)), index=prod.itemid.astype("int64").to_numpy())
    return _Files(tables, paths, q, dense), prod


def _items(prod: pd.DataFrame) -> pd.DataFrame:
    """The items table: dense ids, hashed title tokens as words, category and price."""
    return pd.DataFrame(
        {
            "item_id": np.arange(len(prod), dtype=np.int64),
            "source_item_id": prod.itemid.astype("int64").to_numpy(),
            "title": prod.productnametokens.str.replace(",", " ", regex=False).to_numpy(),
            "category": prod.categoryid.replace("", np.nan).to_numpy(dtype=object),
            "price": np.exp2(prod.pricelog2.astype(float).to_numpy()),
        }
    )


def _queries(files: _Files) -> pd.DataFrame:
    """The queries table in session and time order, with each query's position in its session."""
    q = files.queries
    queries = pd.DataFrame(
        {
            "query_id": q.queryid.astype("int64").to_numpy(),
            "session_id": q.sessionid.astype("int64").to_numpy(),
            "user_id": q.userid.replace("NA", "").to_numpy(dtype=object),
            "timestamp": _event_time(q.eventdate, q.timeframe, files.paths["queries"]).to_numpy(),
            "query_text": q.searchstringtokens.str.replace(",", " ", regex=False).to_numpy(),
            "query_category": q.categoryid.replace({"": np.nan, "0": np.nan}).to_numpy(
                dtype=object
            ),
            "is_test": q.istest.str.upper().eq("TRUE").to_numpy(),
        }
    )
    if queries.query_id.duplicated().any():
        i = int(np.flatnonzero(queries.query_id.duplicated().to_numpy())[0])
        raise InputFileError(
            files.paths["queries"],
            int(q.index[i]) + 2,
            f"duplicate queryId {queries.query_id.iloc[i]}",
        )
    queries = queries.sort_values(["session_id", "timestamp", "query_id"], kind="stable")
    queries = queries.reset_index(drop=True)
    queries["query_index"] = queries.groupby("session_id").cumcount()
    return queries


def _displayed(files: _Files) -> pd.DataFrame:
    """One line per displayed item: the queries' ``items`` column exploded, display order kept."""
    q = files.queries
    lists = q["items"].str.split(",")
    lens = lists.str.len().to_numpy()
    flat = pd.Series(np.concatenate(lists.to_numpy()) if len(lists) else np.array([], dtype=str))
    rows_of = np.repeat(np.arange(len(q)), lens)
    bad = ~flat.str.fullmatch(r"\d+").to_numpy()
    if bad.any():
        i = int(rows_of[np.flatnonzero(bad)[0]])
        raise InputFileError(
            files.paths["queries"],
            int(q.index[i]) + 2,
            f"items column has a non-integer id {q['items'].iloc[i]!r}",
        )
    starts = np.repeat(np.cumsum(lens) - lens, lens)
    serp = pd.DataFrame(
        {
            "query_id": np.repeat(q.queryid.astype("int64").to_numpy(), lens),
            "item_id": files.dense_ids(flat, "queries", q.index.to_numpy()[rows_of]),
            "rank": np.arange(len(flat)) - starts + 1,
        }
    )
    return serp.drop_duplicates(["query_id", "item_id"], keep="first")


def _serp(files: _Files, queries: pd.DataFrame) -> pd.DataFrame:
    """Displayed items with their labels: clicked (clicks file), purchased (a purchase of the
    item later in the session), label = min(click + 2 * purchase, 2)."""
    q = files.queries
    c = files.tables["clicks"]
    c = c[c.queryid.isin(q.queryid)]
    clicked = pd.DataFrame(
        {
            "query_id": c.queryid.astype("int64").to_numpy(),
            "item_id": files.dense_ids(c.itemid, "clicks", c.index.to_numpy()),
        }
    ).drop_duplicates()
    serp = _displayed(files).merge(
        clicked.assign(clicked=True), on=["query_id", "item_id"], how="left"
    )
    serp["clicked"] = serp.clicked.astype("boolean").fillna(False).astype(bool)
    p = files.tables["purchases"]
    p = p[p.sessionid.isin(q.sessionid)]
    buys = pd.DataFrame(
        {
            "session_id": p.sessionid.astype("int64").to_numpy(),
            "item_id": files.dense_ids(p.itemid, "purchases", p.index.to_numpy()),
            "buy_ts": _event_time(p.eventdate, p.timeframe, files.paths["purchases"]).to_numpy(),
        }
    )
    when = queries.set_index("query_id")[["session_id", "timestamp"]]
    joined = serp.join(when, on="query_id").merge(buys, on=["session_id", "item_id"], how="left")
    joined["purchased"] = joined.buy_ts.notna() & (joined.buy_ts >= joined.timestamp)
    serp = joined.groupby(
        ["query_id", "item_id", "rank", "clicked"], sort=False, as_index=False
    ).purchased.any()
    serp["label"] = np.minimum(
        serp.clicked.astype(np.int8) + serp.purchased.astype(np.int8) * 2, 2
    ).astype(np.int8)
    position = queries.reset_index().set_index("query_id")["index"]
    serp = serp.join(position, on="query_id")
    return (
        serp.sort_values(["index", "rank"], kind="stable")
        .drop(columns="index")
        .reset_index(drop=True)
    )


def _click_history(files: _Files) -> pd.DataFrame:
    """Every session's click history in time order: item views plus clicks on SERPs."""
    q = files.queries
    v = files.tables["views"]
    v = v[v.sessionid.isin(q.sessionid)]
    views = pd.DataFrame(
        {
            "session_id": v.sessionid.astype("int64").to_numpy(),
            "timestamp": _event_time(v.eventdate, v.timeframe, files.paths["views"]).to_numpy(),
            "item_id": files.dense_ids(v.itemid, "views", v.index.to_numpy()),
        }
    )
    views["query_id"] = pd.array([pd.NA] * len(views), dtype="Int64")
    c = files.tables["clicks"]
    c = c[c.queryid.isin(q.queryid)]
    cq = c.merge(q[["queryid", "sessionid", "eventdate"]], on="queryid")
    serp_clicks = pd.DataFrame(
        {
            "session_id": cq.sessionid.astype("int64").to_numpy(),
            "timestamp": _event_time(cq.eventdate, cq.timeframe, files.paths["clicks"]).to_numpy(),
            "item_id": files.dense_ids(cq.itemid, "clicks", cq.index.to_numpy()),
            "query_id": pd.array(cq.queryid.astype("int64").to_numpy(), dtype="Int64"),
        }
    )
    clicks = pd.concat([serp_clicks, views], ignore_index=True)
    clicks = clicks.drop_duplicates(["session_id", "timestamp", "item_id"], keep="first")
    return clicks.sort_values(["session_id", "timestamp"], kind="stable").reset_index(drop=True)


def _source(root: Path, kind: str, details: dict) -> DataSource:
    """Real DIGINETICA, or a simulated log exported by :mod:`rankbook.data.diginetica_export`
    (its marker file names the generator: the data are then labelled SIMULATED)."""
    marker = root / EXPORT_MARKER
    if marker.is_file():
        generator = json.loads(marker.read_text()).get("generator") or "unknown generator"
        return DataSource(
            name="Simulated sessions in the DIGINETICA format",
            kind="simulated",
            version="cikm2016-track2",
            path=str(root),
            generator=generator,
            details=details,
        )
    return DataSource(
        name="DIGINETICA (CIKM Cup 2016 track 2)",
        kind=kind,  # type: ignore[arg-type]
        version="cikm2016-track2",
        path=str(root),
        details=details,
    )


def load_diginetica(
    data_dir: str | Path, *, max_sessions: int | None = None, kind: str = "real"
) -> SessionLog:
    """Load the six files from ``data_dir`` into a :class:`~rankbook.data.session_log.SessionLog`.

    Steps (module docstring): read and check the files, the items table with dense ids, the
    queries, the SERPs with click and purchase labels, the click histories, the provenance.
    ``max_sessions`` keeps the first sessions by id (for quick runs on the 600k-query
    original); ``kind`` is the :class:`~rankbook.data.DataSource` kind (``"fixture"`` for the
    hand-written test files).
    """
    root = Path(data_dir)
    files, products = _read_files(root, max_sessions)
    queries = _queries(files)
    serp = _serp(files, queries)
    clicks = _click_history(files)
    details = {"max_sessions": max_sessions, "n_queries": len(queries)}
    return SessionLog(
        items=_items(products),
        queries=queries,
        serp=serp,
        clicks=clicks,
        source=_source(root, kind, details),
        extra={"hashed_tokens": True},
    )
