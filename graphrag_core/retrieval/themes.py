"""Themes from what the filings say (issue 25, item 2): risk factors and MD&A statements of
different companies that state the same risk or trend, grouped by meaning, labelled by the words
they share, each member cited.

    members    kind `risk_factor`: every risk factor of every filing's Item 1A
               (`changes.risk_factors`: a heading the company emphasized and the text up to the
               next one); the heading is a verbatim span of its chunk (the quote).
               kind `mdna`: the MD&A's (a 10-K's Item 7, a 10-Q's Part I Item 2) statements of
               a trend and its driver — a sentence of its prose that says something changed
               (increased, declined, grew...) and why (due to, driven by, reflecting...), not
               hedged (may, could...), at most MDNA_PER_FILING per filing; the sentence is the
               quote (`heading`), the MD&A subheading above it its context (`opening`).
               Each with the filing's fiscal label and dates.
    vectors    the packaged MiniLM over heading + the body's first sentence (the project's
               embedder); a vector is kept while its text is unchanged, so a rebuild embeds
               only new factors
    clusters   average-linkage agglomerative clustering on cosine distance, cut at
               `theme_similarity` (deterministic: members sorted by id, no seed); a cluster is a
               theme when it spans at least `theme_min_companies` companies. The risk factors
               are clustered first (the cut was chosen on them); an MD&A statement then joins
               the nearest of their themes when as close as `apply` asks a new member to be
               (centroid cosine at least `theme_similarity`), and the rest are clustered among
               themselves by the same rule, so a trend stated only in MD&As (an inventory
               correction) is a theme too, while the risk themes stay as they were.
    label      the words most of a theme's risk headings (an MD&A-only theme: its statements)
               share, weighted by how rare they are among all of that kind ("privacy, data,
               security")

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
from graphrag_core.extraction.headings import spans_of
from graphrag_core.retrieval.changes import risk_factors
from graphrag_core.settings import CommunitySettings
from graphrag_core.store.snapshot_tables import ThemeTables
from graphrag_core.store.theme_search import filing_label
from graphrag_core.tables.schemas import FILING_THEME_MEMBERS, FILING_THEMES, empty, frame
from graphrag_core.text.sentences import sentence_spans

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
# Words every MD&A trend statement uses: they say nothing about which trend it is.
_MDNA_STOP = frozenset(
    "increased decreased increase decrease increases decreases primarily due driven compared "
    "year years period periods quarter quarters months ended million billion higher lower "
    "growth grew declined decline net fiscal partially offset reflects reflected reflecting "
    "mainly largely lead led attributable was this".split()
)
_SENTENCE_END = re.compile(r"(?<=[.;])\s+(?=[A-Z(“\"])")
RISK_FACTOR, MDNA = "risk_factor", "mdna"
# An MD&A statement of a trend and its driver (see the module). The cap bounds what one long
# MD&A adds to the build (the corpus's 10-Ks and 10-Qs state 14-28 each).
MDNA_PER_FILING = 40
MDNA_MIN_CHARS, MDNA_MAX_CHARS = 60, 400
_MDNA_SECTION = re.compile(r"^10-K[^/]*/Item 7$|^10-Q[^/]*/Part I/Item 2$")
_TREND = re.compile(
    r"\b(?:increased|decreased|grew|declined|rose|fell|improved|expanded|contracted|"
    r"increase|decrease|growth|decline|higher|lower)\b",
    re.I,
)
_DRIVER = re.compile(
    r"\b(?:due (?:primarily |mainly |largely )?to|driven (?:primarily |mainly |largely )?by|"
    r"as a result of|attributable to|reflect(?:s|ed|ing)?|led by|resulting from|"
    r"because of|offset by)\b",
    re.I,
)
_HEDGED = re.compile(r"\b(?:may|might|could|would|if)\b", re.I)


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
            "mdna_statements": self.tables.members.filter(pl.col("kind") == MDNA).height,
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


def is_theme_section(section: str | None) -> bool:
    """A section whose text themes are built from: Item 1A, or the MD&A."""
    return bool(section) and (
        str(section).endswith("Item 1A") or _MDNA_SECTION.match(str(section)) is not None
    )


def theme_sections() -> pl.Expr:
    """`is_theme_section` as a Polars filter on `section` (what the asset and bench read)."""
    return pl.col("section").str.ends_with("Item 1A") | pl.col("section").str.contains(
        _MDNA_SECTION.pattern
    )


@dataclass(frozen=True)
class MdnaStatement:
    chunk_id: str
    section: str
    char_start: int
    char_end: int
    text: str  # verbatim: the chunk's text[char_start:char_end]
    context: str  # the MD&A subheading above it ("" when none)


def mdna_statements(chunks: Sequence[dict[str, Any]], filing_id: str) -> list[MdnaStatement]:
    """A filing's MD&A statements of a trend and its driver, in order (see the module)."""
    rows = sorted(
        (
            r
            for r in chunks
            if r["filing_id"] == filing_id
            and _MDNA_SECTION.match(r["section"] or "")
            and (r.get("kind") or "prose") == "prose"
        ),
        key=lambda r: (r["section"], r["ordinal"]),
    )
    out: list[MdnaStatement] = []
    for row in rows:
        text = row["text"] or ""
        heads = spans_of(row.get("headings"))
        for start, end in sentence_spans(text, split_lines=True):
            sentence = text[start:end]
            if not MDNA_MIN_CHARS <= len(sentence) <= MDNA_MAX_CHARS:
                continue
            if not (_TREND.search(sentence) and _DRIVER.search(sentence)):
                continue
            if _HEDGED.search(sentence):
                continue
            above = [text[h0:h1] for h0, h1 in heads if h1 <= start]
            context = " ".join(above[-1].split())[:OPENING_CHARS] if above else ""
            out.append(
                MdnaStatement(row["chunk_id"], row["section"], start, end, sentence, context)
            )
            if len(out) >= MDNA_PER_FILING:
                return out
    return out


def theme_members(chunks: pl.DataFrame, filings: pl.DataFrame) -> pl.DataFrame:
    """Every risk factor of the filings' Item 1A sections and every MD&A statement of a trend
    and its driver, as FILING_THEME_MEMBERS rows (no vector or theme yet)."""
    if chunks.is_empty() or "section" not in chunks.columns:
        return empty(FILING_THEME_MEMBERS)
    read = chunks.filter(theme_sections())
    if read.is_empty():
        return empty(FILING_THEME_MEMBERS)
    cols = ["chunk_id", "filing_id", "section", "kind", "ordinal", "text", "headings"]
    rows = read.select([c for c in cols if c in read.columns]).to_dicts()
    meta = {r["filing_id"]: r for r in filings.to_dicts()}
    out: list[dict[str, Any]] = []
    for fid in sorted({r["filing_id"] for r in rows}):
        filing = meta.get(fid)
        if filing is None:
            continue
        label = filing_label(filing.get("fiscal_period"), filing.get("fiscal_year"))
        base = {
            "theme_id": None,
            "filing_id": fid,
            "cik": filing.get("cik"),
            "company": filing.get("company"),
            "form": filing.get("form"),
            "fiscal_label": label,
            "period_end": filing.get("period_end"),
            "filed_date": filing.get("filed_date"),
            "vector": None,
            "similarity": None,
        }
        risk_rows = [r for r in rows if r["section"].endswith("Item 1A")]
        for f in risk_factors(risk_rows, fid) if risk_rows else []:
            opening = first_sentence(f.body)
            out.append(
                base
                | {
                    "member_id": content_hash(fid, f.chunk_id, f.char_start, f.heading, length=24),
                    "kind": RISK_FACTOR,
                    "chunk_id": f.chunk_id,
                    "section": f.section,
                    "char_start": f.char_start,
                    "char_end": f.char_end,
                    "heading": f.heading,
                    "opening": opening,
                    "text_sha": sha256_text(_embedded_text(f.heading, opening))[:24],
                }
            )
        for m in mdna_statements(rows, fid):
            out.append(
                base
                | {
                    "member_id": content_hash(fid, m.chunk_id, m.char_start, m.text, length=24),
                    "kind": MDNA,
                    "chunk_id": m.chunk_id,
                    "section": m.section,
                    "char_start": m.char_start,
                    "char_end": m.char_end,
                    "heading": m.text,
                    "opening": m.context,
                    "text_sha": sha256_text(_embedded_text(m.text, m.context))[:24],
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


def _words(heading: str, kind: str = RISK_FACTOR) -> set[str]:
    stop = _LABEL_STOP | _MDNA_STOP if kind == MDNA else _LABEL_STOP
    return {w for w in _WORD.findall(heading.lower()) if w not in stop}


def theme_terms(
    headings: Sequence[str],
    document_frequency: Counter[str],
    total: int,
    kind: str = RISK_FACTOR,
) -> list[str]:
    """The words a theme's headings (or MD&A statements) share, strongest first: the share of
    them that use a word times how rare the word is among all of their kind; a word needs two."""
    counts = Counter(w for h in headings for w in _words(h, kind))
    score = {
        w: (n / len(headings)) * math.log((1 + total) / (1 + document_frequency[w]))
        for w, n in counts.items()
        if n >= 2
    }
    return sorted(score, key=lambda w: (-score[w], w))[:LABEL_WORDS]


def _themes_of(
    labels: list[int], ciks: list[Any], ids: list[str], min_companies: int
) -> list[str | None]:
    """Cluster labels → theme ids: a cluster spanning `min_companies` companies is a theme,
    named by the hash of its members' ids; the rest are in none."""
    groups: dict[int, list[int]] = {}
    for i, label in enumerate(labels):
        groups.setdefault(label, []).append(i)
    theme_of: list[str | None] = [None] * len(labels)
    for rows in groups.values():
        if len({ciks[i] for i in rows}) < min_companies:
            continue
        theme_id = "THEME-" + content_hash(*sorted(ids[i] for i in rows), length=16)
        for i in rows:
            theme_of[i] = theme_id
    return theme_of


def cluster_members(
    members: pl.DataFrame, settings: CommunitySettings, now: dt.datetime
) -> ThemeTables:
    """Every member clustered afresh (see the module): the risk factors, then the MD&A
    statements joining the nearest of their themes or clustered among themselves."""
    members = members.sort("member_id")
    kinds = members.get_column("kind").to_list()
    ciks = members.get_column("cik").to_list()
    ids = members.get_column("member_id").to_list()
    vectors = _matrix(members)
    theme_of: list[str | None] = [None] * members.height
    risk = [i for i, k in enumerate(kinds) if k != MDNA]
    mdna = [i for i, k in enumerate(kinds) if k == MDNA]
    risk_themes = _themes_of(
        cluster_labels(vectors[risk], settings.theme_similarity) if risk else [],
        [ciks[i] for i in risk],
        [ids[i] for i in risk],
        settings.theme_min_companies,
    )
    for i, theme_id in zip(risk, risk_themes, strict=True):
        theme_of[i] = theme_id
    left = mdna
    themed = sorted({t for t in risk_themes if t is not None})
    if mdna and themed:
        centroids = np.stack(
            [vectors[[i for i in risk if theme_of[i] == t]].mean(axis=0) for t in themed]
        )
        centroids /= np.maximum(np.linalg.norm(centroids, axis=1, keepdims=True), 1e-12)
        sims = vectors[mdna] @ centroids.T
        best = sims.argmax(axis=1)
        left = []
        for row, i in enumerate(mdna):
            if sims[row, best[row]] >= settings.theme_similarity:
                theme_of[i] = themed[int(best[row])]
            else:
                left.append(i)
    if left:
        for i, theme_id in zip(
            left,
            _themes_of(
                cluster_labels(vectors[left], settings.theme_similarity),
                [ciks[i] for i in left],
                [ids[i] for i in left],
                settings.theme_min_companies,
            ),
            strict=True,
        ):
            theme_of[i] = theme_id
    members = members.with_columns(pl.Series("theme_id", theme_of, dtype=pl.String))
    return _with_aggregates(members, None, now)


def _with_aggregates(
    members: pl.DataFrame, previous: pl.DataFrame | None, now: dt.datetime
) -> ThemeTables:
    """Themes from their members: counts, periods, dates, centroid, label, similarity; a theme
    in `previous` keeps its label, centroid, built_at and dirty mark (set by the caller)."""
    headings = members.get_column("heading").to_list()
    kinds = members.get_column("kind").to_list()
    # Document frequencies per kind: a label's words are weighed against texts of their kind.
    df = {
        kind: Counter(
            w for h, k in zip(headings, kinds, strict=True) if k == kind for w in _words(h, k)
        )
        for kind in (RISK_FACTOR, MDNA)
    }
    totals = {kind: sum(1 for k in kinds if k == kind) for kind in (RISK_FACTOR, MDNA)}
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
            # Labelled by its risk headings when it has any (the words a company chose to
            # name a risk), else by its MD&A statements.
            kind = RISK_FACTOR if any(kinds[i] != MDNA for i in idx) else MDNA
            named = [headings[i] for i in idx if (kinds[i] == MDNA) == (kind == MDNA)]
            terms = theme_terms(named, df[kind], totals[kind], kind)
        similarity[idx] = vectors[idx] @ centroid
        group = [rows[i] for i in idx]
        ends = [r["period_end"] for r in group if r["period_end"] is not None]
        known = [r["filed_date"] or r["period_end"] for r in group]
        mdna = sum(1 for r in group if r["kind"] == MDNA)
        themes.append(
            {
                "theme_id": theme_id,
                "label": ", ".join(terms) or group[0]["heading"][:80],
                "terms": terms,
                "companies": len({r["cik"] for r in group}),
                "filings": len({r["filing_id"] for r in group}),
                "members": len(group),
                "risk_factors": len(group) - mdna,
                "mdna_statements": mdna,
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
        why = f"{dirty} dirty theme(s), {added} member(s) added, {removed} removed"
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
    # A state written before MD&A members holds risk factors only (and no per-kind counts,
    # recounted by the next run from the members).
    theme_frame = pl.read_parquet(themes)
    for name in ("risk_factors", "mdna_statements"):
        if name not in theme_frame.columns:
            theme_frame = theme_frame.with_columns(
                (pl.col("members") if name == "risk_factors" else pl.lit(0)).alias(name)
            )
    member_frame = pl.read_parquet(members)
    if "kind" not in member_frame.columns:
        member_frame = member_frame.with_columns(pl.lit(RISK_FACTOR).alias("kind"))
    return ThemeTables(
        theme_frame.select(FILING_THEMES.keys()).cast(FILING_THEMES),  # type: ignore[arg-type]
        member_frame.select(FILING_THEME_MEMBERS.keys()).cast(FILING_THEME_MEMBERS),  # type: ignore[arg-type]
    )
