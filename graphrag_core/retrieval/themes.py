"""Themes from what the filings say (issue 25, item 2): risk factors of different companies that
state the same risk, grouped by meaning, labelled by the words they share, each member cited.

    members    every risk factor of every filing's Item 1A (`changes.risk_factors`: a heading
               the company emphasized and the text up to the next one), with the filing's
               fiscal label and dates; the heading is a verbatim span of its chunk (the quote)
    vectors    the packaged MiniLM over heading + the body's first sentence (the project's
               embedder); a vector is kept while its text is unchanged, so a rebuild embeds
               only new factors
    clusters   average-linkage agglomerative clustering on cosine distance, cut at
               `theme_similarity` (deterministic: members sorted by id, no seed); a cluster is a
               theme when it spans at least `theme_min_companies` companies
    label      the words most of a theme's headings share, weighted by how rare they are among
               all headings ("privacy, data, security")

The relation communities (graph/communities) see only edges; most risk headings never become
one (they sit in the review queue), so a sector-wide theme such as export controls or an
inventory correction could not appear. These themes are built from the text itself.

Staying current, as the communities do: `apply` (every corpus run) adds a new filing's factors
to the nearest theme (centroid cosine at least `theme_similarity`, else unassigned) and drops a
removed filing's; every theme touched is dirty (served, marked stale). `refresh` (the daily
schedule) re-clusters when anything is dirty or unassigned; `recluster` always does.
"""

from __future__ import annotations

import datetime as dt
import math
import re
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import polars as pl

from graphrag_core.common.atomic import write_atomic
from graphrag_core.common.ids import content_hash, sha256_text
from graphrag_core.retrieval.changes import risk_factors
from graphrag_core.settings import CommunitySettings
from graphrag_core.store.snapshot_tables import ThemeTables
from graphrag_core.store.theme_search import filing_label
from graphrag_core.tables.schemas import FILING_THEME_MEMBERS, FILING_THEMES, empty, frame

Embed = Callable[[list[str]], np.ndarray]
MODES = ("apply", "refresh", "recluster")
# Characters of a body's first sentence embedded with its heading (MiniLM reads ~256 pieces).
OPENING_CHARS = 300
LABEL_WORDS = 3
_WORD = re.compile(r"[a-z][a-z0-9\-]+")
# Words every risk heading uses: they say nothing about which risk it is.
_LABEL_STOP = frozenset(
    "a an and as at be by for from in into is it its of on or our that the their these this to "
    "we with could may can will would us such any not other including result results adversely "
    "adverse affect affects affected business operations financial condition harm harmed "
    "materially material company company's companies significant significantly negatively "
    "negative impact impacts risks risk subject exposed also have has been are were if".split()
)
_SENTENCE_END = re.compile(r"(?<=[.;])\s+(?=[A-Z(“\"])")


@dataclass(frozen=True)
class ThemesOutcome:
    tables: ThemeTables
    action: str  # clustered | applied
    why: str
    embedded: int  # texts sent to the embedder
    added: int  # members new since the last run
    removed: int
    dirty: int  # themes dirty after the run

    def metadata(self) -> dict[str, Any]:
        return {
            "action": self.action,
            "why": self.why,
            "themes": self.tables.themes.height,
            "members": self.tables.members.height,
            "unassigned": self.tables.members.filter(pl.col("theme_id").is_null()).height,
            "embedded": self.embedded,
            "added": self.added,
            "removed": self.removed,
            "dirty": self.dirty,
        }


# -- members ------------------------------------------------------------------------------------


def first_sentence(body: str) -> str:
    """The body's opening sentence, at most OPENING_CHARS characters."""
    text = " ".join(body.split())
    head = _SENTENCE_END.split(text, maxsplit=1)[0]
    return head[:OPENING_CHARS]


def theme_members(chunks: pl.DataFrame, filings: pl.DataFrame) -> pl.DataFrame:
    """Every risk factor of the filings' Item 1A sections, as FILING_THEME_MEMBERS rows (no
    vector or theme yet)."""
    risk = chunks.filter(pl.col("section").str.ends_with("Item 1A"))
    if risk.is_empty():
        return empty(FILING_THEME_MEMBERS)
    cols = ["chunk_id", "filing_id", "section", "ordinal", "text", "headings"]
    rows = risk.select([c for c in cols if c in risk.columns]).to_dicts()
    meta = {r["filing_id"]: r for r in filings.to_dicts()}
    out: list[dict[str, Any]] = []
    for fid in sorted({r["filing_id"] for r in rows}):
        filing = meta.get(fid)
        if filing is None:
            continue
        label = filing_label(filing.get("fiscal_period"), filing.get("fiscal_year"))
        for f in risk_factors(rows, fid):
            opening = first_sentence(f.body)
            out.append(
                {
                    "member_id": content_hash(fid, f.chunk_id, f.char_start, f.heading, length=24),
                    "theme_id": None,
                    "filing_id": fid,
                    "cik": filing.get("cik"),
                    "company": filing.get("company"),
                    "form": filing.get("form"),
                    "fiscal_label": label,
                    "period_end": filing.get("period_end"),
                    "filed_date": filing.get("filed_date"),
                    "chunk_id": f.chunk_id,
                    "section": f.section,
                    "char_start": f.char_start,
                    "char_end": f.char_end,
                    "heading": f.heading,
                    "opening": opening,
                    "text_sha": sha256_text(_embedded_text(f.heading, opening))[:24],
                    "vector": None,
                    "similarity": None,
                }
            )
    return frame(out, FILING_THEME_MEMBERS).unique("member_id", keep="first", maintain_order=True)


def _embedded_text(heading: str, opening: str) -> str:
    return f"{heading} {opening}".strip()


def embed_members(
    members: pl.DataFrame, embed: Embed, known: pl.DataFrame | None = None
) -> tuple[pl.DataFrame, int]:
    """Members with their vectors: reused from `known` (a previous run's members) where the
    embedded text is the same, embedded otherwise; and how many texts were embedded."""
    reuse: dict[str, list[float]] = {}
    if known is not None and known.height:
        for sha, vec in known.select("text_sha", "vector").iter_rows():
            if vec is not None:
                reuse[sha] = vec
    todo = sorted(
        {
            sha: _embedded_text(h, o)
            for sha, h, o in members.select("text_sha", "heading", "opening").iter_rows()
            if sha not in reuse
        }.items()
    )
    if todo:
        vectors = np.asarray(embed([t for _, t in todo]), dtype=np.float32)
        vectors /= np.maximum(np.linalg.norm(vectors, axis=1, keepdims=True), 1e-12)
        for (sha, _), vec in zip(todo, vectors, strict=True):
            reuse[sha] = vec.tolist()
    vectors_col = pl.Series(
        "vector", [reuse[s] for s in members.get_column("text_sha")], dtype=pl.List(pl.Float32)
    )
    return members.with_columns(vectors_col), len(todo)


# -- clustering ---------------------------------------------------------------------------------


def _matrix(members: pl.DataFrame) -> np.ndarray:
    if members.is_empty():
        return np.zeros((0, 1), dtype=np.float32)
    return np.asarray(members.get_column("vector").to_list(), dtype=np.float32)


def cluster_labels(vectors: np.ndarray, similarity: float) -> list[int]:
    """Average-linkage clusters of unit vectors, cut where the average cosine similarity
    between two groups falls below `similarity`; one label per row."""
    n = len(vectors)
    if n < 2:
        return list(range(n))
    from scipy.cluster.hierarchy import fcluster, linkage
    from scipy.spatial.distance import pdist

    distances = np.clip(pdist(vectors.astype(np.float64), "cosine"), 0.0, 2.0)
    tree = linkage(distances, method="average")
    return [int(x) for x in fcluster(tree, t=1.0 - similarity, criterion="distance")]


def _words(heading: str) -> set[str]:
    return {w for w in _WORD.findall(heading.lower()) if w not in _LABEL_STOP}


def theme_terms(headings: Sequence[str], document_frequency: Counter[str], total: int) -> list[str]:
    """The words a theme's headings share, strongest first: the share of its headings that use
    a word times how rare the word is among all headings; a word needs two headings."""
    counts = Counter(w for h in headings for w in _words(h))
    score = {
        w: (n / len(headings)) * math.log((1 + total) / (1 + document_frequency[w]))
        for w, n in counts.items()
        if n >= 2
    }
    return sorted(score, key=lambda w: (-score[w], w))[:LABEL_WORDS]


def cluster_members(
    members: pl.DataFrame, settings: CommunitySettings, now: dt.datetime
) -> ThemeTables:
    """Every member clustered afresh (see the module); members with vectors."""
    members = members.sort("member_id")
    labels = cluster_labels(_matrix(members), settings.theme_similarity)
    groups: dict[int, list[int]] = {}
    for i, label in enumerate(labels):
        groups.setdefault(label, []).append(i)
    ciks = members.get_column("cik").to_list()
    ids = members.get_column("member_id").to_list()
    theme_of: list[str | None] = [None] * members.height
    for rows in groups.values():
        if len({ciks[i] for i in rows}) < settings.theme_min_companies:
            continue
        theme_id = "THEME-" + content_hash(*sorted(ids[i] for i in rows), length=16)
        for i in rows:
            theme_of[i] = theme_id
    members = members.with_columns(pl.Series("theme_id", theme_of, dtype=pl.String))
    return _with_aggregates(members, None, now)


def _with_aggregates(
    members: pl.DataFrame, previous: pl.DataFrame | None, now: dt.datetime
) -> ThemeTables:
    """Themes from their members: counts, periods, dates, centroid, label, similarity; a theme
    in `previous` keeps its label, centroid, built_at and dirty mark (set by the caller)."""
    headings = members.get_column("heading").to_list()
    df = Counter(w for h in headings for w in _words(h))
    kept = {r["theme_id"]: r for r in previous.to_dicts()} if previous is not None else {}
    vectors = _matrix(members)
    themes: list[dict[str, Any]] = []
    similarity = np.full(members.height, np.nan, dtype=np.float32)
    theme_ids = members.get_column("theme_id").to_list()
    by_theme: dict[str, list[int]] = {}
    for i, t in enumerate(theme_ids):
        if t is not None:
            by_theme.setdefault(t, []).append(i)
    rows = members.to_dicts()
    for theme_id in sorted(by_theme):
        idx = by_theme[theme_id]
        old = kept.get(theme_id)
        if old is not None:
            centroid = np.asarray(old["centroid"], dtype=np.float32)
            terms = list(old["terms"])
        else:
            centroid = vectors[idx].mean(axis=0)
            centroid /= max(float(np.linalg.norm(centroid)), 1e-12)
            terms = theme_terms([headings[i] for i in idx], df, len(headings))
        similarity[idx] = vectors[idx] @ centroid
        group = [rows[i] for i in idx]
        ends = [r["period_end"] for r in group if r["period_end"] is not None]
        known = [r["filed_date"] or r["period_end"] for r in group]
        themes.append(
            {
                "theme_id": theme_id,
                "label": ", ".join(terms) or group[0]["heading"][:80],
                "terms": terms,
                "companies": len({r["cik"] for r in group}),
                "filings": len({r["filing_id"] for r in group}),
                "members": len(group),
                "fiscal_periods": sorted({r["fiscal_label"] for r in group if r["fiscal_label"]}),
                "first_period_end": min(ends) if ends else None,
                "last_period_end": max(ends) if ends else None,
                "last_known": max((k for k in known if k is not None), default=None),
                "centroid": centroid.astype(np.float32).tolist(),
                "dirty_since": old["dirty_since"] if old is not None else None,
                "built_at": old["built_at"] if old is not None else now,
            }
        )
    members = members.with_columns(
        pl.Series("similarity", similarity, dtype=pl.Float32).fill_nan(None)
    )
    return ThemeTables(frame(themes, FILING_THEMES), members)


def apply_changes(
    state: ThemeTables, current: pl.DataFrame, settings: CommunitySettings, now: dt.datetime
) -> tuple[ThemeTables, int, int]:
    """`current` (every member now, with vectors) against `state`: a removed filing's members
    leave their themes, a new one's join the nearest theme when close enough; every theme
    touched is marked dirty. Returns the tables, members added and removed."""
    before = state.members.select("member_id", "theme_id")
    gone = before.join(current.select("member_id"), on="member_id", how="anti")
    new = current.join(before, on="member_id", how="anti").sort("member_id")
    stay = current.drop("theme_id").join(before, on="member_id", how="inner")
    touched = set(gone.get_column("theme_id").drop_nulls())
    assigned: list[str | None] = []
    if new.height and state.themes.height:
        centroids = np.asarray(state.themes.get_column("centroid").to_list(), dtype=np.float32)
        theme_ids = state.themes.get_column("theme_id").to_list()
        sims = _matrix(new) @ centroids.T
        for row in sims:
            best = int(np.argmax(row))
            assigned.append(theme_ids[best] if row[best] >= settings.theme_similarity else None)
    else:
        assigned = [None] * new.height
    touched |= {t for t in assigned if t is not None}
    new = new.with_columns(pl.Series("theme_id", assigned, dtype=pl.String))
    members = pl.concat(
        [stay.select(FILING_THEME_MEMBERS.keys()), new.select(FILING_THEME_MEMBERS.keys())]
    ).sort("member_id")
    previous = state.themes.with_columns(
        pl.when(pl.col("theme_id").is_in(sorted(touched)) & pl.col("dirty_since").is_null())
        .then(pl.lit(now, dtype=pl.Datetime("us", "UTC")))
        .otherwise(pl.col("dirty_since"))
        .alias("dirty_since")
    )
    return _with_aggregates(members, previous, now), new.height, gone.height


def update_themes(
    state: ThemeTables | None,
    chunks: pl.DataFrame,
    filings: pl.DataFrame,
    embed: Embed,
    settings: CommunitySettings,
    mode: str = "apply",
    now: dt.datetime | None = None,
) -> ThemesOutcome:
    """One run of the themes stage (see the module for the modes)."""
    if mode not in MODES:
        raise ValueError(f"mode {mode!r}: expected one of {', '.join(MODES)}")
    now = now or dt.datetime.now(dt.UTC)
    current, embedded = embed_members(
        theme_members(chunks, filings), embed, state.members if state is not None else None
    )
    if state is None or (state.members.is_empty() and state.themes.is_empty()):
        tables = cluster_members(current, settings, now)
        return ThemesOutcome(tables, "clustered", "no themes yet", embedded, current.height, 0, 0)
    if mode == "recluster":
        tables = cluster_members(current, settings, now)
        return ThemesOutcome(tables, "clustered", "a full re-clustering", embedded, 0, 0, 0)
    applied, added, removed = apply_changes(state, current, settings, now)
    dirty = applied.themes.filter(pl.col("dirty_since").is_not_null()).height
    if mode == "refresh" and (dirty or added or removed):
        tables = cluster_members(current, settings, now)
        why = f"{dirty} dirty theme(s), {added} factor(s) added, {removed} removed"
        return ThemesOutcome(tables, "clustered", why, embedded, added, removed, 0)
    why = "filings applied" if added or removed else "nothing changed"
    return ThemesOutcome(applied, "applied", why, embedded, added, removed, dirty)


# -- the working state ----------------------------------------------------------------------------


def themes_dir(data_root: Path) -> Path:
    return data_root / "graph" / "filing_themes"


def save_themes(folder: Path, tables: ThemeTables) -> None:
    """Both tables, each written atomically (members first: a crash between leaves themes that
    the next run recomputes from the members)."""
    for name, df in (("members", tables.members), ("themes", tables.themes)):
        path = folder / f"{name}.parquet"
        buffer = _parquet_bytes(df)
        write_atomic(path, buffer)


def _parquet_bytes(df: pl.DataFrame) -> bytes:
    import io

    sink = io.BytesIO()
    df.write_parquet(sink)
    return sink.getvalue()


def load_themes(folder: Path) -> ThemeTables | None:
    """The last run's tables, None before the first run."""
    members, themes = folder / "members.parquet", folder / "themes.parquet"
    if not (members.exists() and themes.exists()):
        return None
    return ThemeTables(
        pl.read_parquet(themes).cast(FILING_THEMES),  # type: ignore[arg-type]
        pl.read_parquet(members).cast(FILING_THEME_MEMBERS),  # type: ignore[arg-type]
    )
