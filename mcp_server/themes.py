"""community_themes' themes from the filings' own risk factors, and its period and as_of (issue
25, items 2 and 3): the question embedded with the project's embedder, the window of filings,
the themes found (`graphrag_core.store.theme_search`) as cited output models, and the relation
themes kept to the same window. tools.community_themes calls `FilingThemeSearch.answer`."""

from __future__ import annotations

import datetime as dt
import logging
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from mcp.server.mcpserver.exceptions import ToolError

from graphrag_core.retrieval.search import shared_embedder
from graphrag_core.settings import CommunitySettings, RetrievalSettings
from graphrag_core.store.reader import (
    MODEL_FINDING,
    PeriodFilter,
    Snapshot,
    filing_label,
    filing_themes,
    parse_period_filter,
    render_statement,
)
from mcp_server.models import CommunityCitation, FilingTheme, ThemeMemberOut, short_company_name

log = logging.getLogger(__name__)

_FILING_DATES = """
SELECT filing_id, fiscal_year, fiscal_period, period_end,
       coalesce(filed_date, period_end) AS known
FROM filings WHERE list_contains($ids, filing_id)
"""
_SECTOR_COMPANIES = "SELECT company_id FROM companies WHERE list_contains($sics, sic)"


@dataclass
class ThemesFound:
    themes: list[FilingTheme]
    matched: int
    as_of: dt.date | None
    old_filings_left_out: int
    notes: list[str] = field(default_factory=list)


def period_of(text: str | None) -> PeriodFilter | None:
    """The `period` argument parsed (the graph tools' grammar), None for none; a ToolError
    saying what is accepted."""
    try:
        found = parse_period_filter(text)
    except ValueError as exc:
        raise ToolError(str(exc)) from exc
    return found if found.kind is not None else None


def in_period(period: PeriodFilter, label: str | None, period_end: dt.date | None) -> bool:
    """A filing of this fiscal label and period end is for the period: the same fiscal label,
    or a period end inside the calendar range."""
    if period.label is not None:
        return label == period.label
    return (
        period_end is not None
        and period.start is not None
        and period.end is not None
        and (period.start <= period_end <= period.end)
    )


class FilingThemeSearch:
    """The filing themes of a snapshot for one question."""

    def __init__(self, retrieval: RetrievalSettings, settings: CommunitySettings):
        self.retrieval = retrieval
        self.settings = settings

    def _vector(self, query: str | None, notes: list[str]) -> list[float] | None:
        if not query or not query.strip():
            return None
        try:
            vector = shared_embedder(self.retrieval).embed([query])[0]
        except Exception as exc:  # any failure of the model: answer by words, and say so
            log.warning("community_themes matches filing themes by words only: %s", exc)
            notes.append("the embedding model was unavailable: filing themes matched by words")
            return None
        norm = float((vector * vector).sum()) ** 0.5
        return [float(x) / norm for x in vector] if norm > 0 else None

    def answer(
        self,
        snap: Snapshot,
        *,
        query: str | None,
        sics: Sequence[str] | None,
        period: PeriodFilter | None,
        as_of: dt.date | None,
        include_old: bool,
        limit: int,
    ) -> ThemesFound:
        if "filing_themes" not in snap.manifest.counts:
            return ThemesFound(
                [],
                0,
                as_of,
                0,
                ["this snapshot has no filing themes (built before them); publish a new one"],
            )
        notes: list[str] = []
        companies = None
        if sics is not None:
            companies = [
                r["company_id"] for r in snap.query(_SECTOR_COMPANIES, {"sics": list(sics)})
            ]
        window = filing_themes(
            snap,
            query=query,
            query_vector=self._vector(query, notes),
            period=period,
            as_of=as_of or snap.as_of,
            include_old=include_old,
            max_age_days=self.settings.theme_max_age_days,
            companies=companies,
            limit=limit,
            min_companies=self.settings.theme_min_companies,
        )
        themes = [
            FilingTheme(
                theme_id=t.theme_id,
                label=t.label,
                statement="",
                companies=t.companies,
                filings=t.filings,
                fiscal_periods=t.fiscal_periods,
                first_period_end=t.first_period_end,
                last_period_end=t.last_period_end,
                newest_filing=t.newest,
                stale=t.stale,
                matched_by=t.matched_by,
                relevance=t.relevance,
                members=[_member(m) for m in t.members],
                members_total=t.members_total,
            )
            for t in window.themes
        ]
        for theme in themes:
            theme.render_markers()  # without numbers until the server gives them
        return ThemesFound(
            themes, window.matched, window.as_of, window.old_filings_left_out, notes + window.notes
        )


def _member(row: dict[str, Any]) -> ThemeMemberOut:
    return ThemeMemberOut(
        company_id=row["company_id"],
        company=short_company_name(row["company"] or row["company_id"]),
        fiscal_label=row["fiscal_label"],
        form=row["form"],
        quote=row["heading"],
        opening=row["opening"],
        relevance=round(float(row["score"]), 4),
        citation=CommunityCitation(
            filing_id=row["filing_id"],
            form=row["form"],
            filed_date=row["filed_date"],
            section=row["section"],
            chunk_id=row["chunk_id"],
            quote=row["heading"],
            entity_id=row["company_id"],
        ),
    )


def relation_themes_in_window(
    snap: Snapshot, themes: list[dict[str, Any]], period: PeriodFilter | None, as_of: dt.date | None
) -> list[dict[str, Any]]:
    """The relation communities' themes with only the citations of filings in the window (for
    the period, known by as_of); a theme left with none is dropped. Reports are built over the
    whole graph, so this is what a period or date can do to them without a rebuild."""
    if period is None and as_of is None:
        return themes
    ids = sorted({c["filing_id"] for t in themes for c in t["citations"] if c.get("filing_id")})
    dates = {r["filing_id"]: r for r in snap.query(_FILING_DATES, {"ids": ids})} if ids else {}

    def inside(filing_id: str | None) -> bool:
        row = dates.get(filing_id or "")
        if row is None:
            return False
        if as_of is not None and (row["known"] is None or row["known"] > as_of):
            return False
        label = filing_label(row["fiscal_period"], row["fiscal_year"])
        return period is None or in_period(period, label, row["period_end"])

    kept = []
    for t in themes:
        if t["kind"] == MODEL_FINDING:
            cites = [c for c in t["citations"] if inside(c.get("filing_id"))]
            if cites:
                kept.append({**t, "citations": cites})
            continue
        # A relation or risk finding names its partners, each by its own citation: only the
        # partners cited inside the window are named, and the sentence is restated for them.
        partners = [
            p for p in t["partners"] if p.get("citation") and inside(p["citation"]["filing_id"])
        ]
        if partners:
            names = [p["name"] for p in partners]
            kept.append(
                {
                    **t,
                    "partners": partners,
                    "citations": [c for c in t["citations"] if inside(c.get("filing_id"))],
                    "statement": render_statement(
                        t["kind"], t["relation"], t["anchor_name"], names
                    ),
                }
            )
    return kept
