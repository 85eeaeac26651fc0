"""The themes family: community_themes, the global search over the community reports written
ahead of time, whose answer a configured model may write (`ThemesAnswerWriter`, the one model
client; otherwise, or on any failure of the model, the deterministic answer stands); beside them
the themes the companies state in their own risk factors (issue 25, items 2 and 3: the question
embedded with the project's embedder, the window of filings by period and as_of, the themes found
by `graphrag_core.store.theme_search` as cited output models), and the relation themes kept to
the same window."""

from __future__ import annotations

import datetime as dt
import logging
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Annotated, Any

from mcp.server.mcpserver.exceptions import ToolError
from pydantic import Field

from graphrag_core.retrieval.global_search import (
    community_themes,
    relation_themes_in_window,
    theme_support,
)
from graphrag_core.retrieval.search import shared_embedder
from graphrag_core.retrieval.themes_answer import ThemesAnswerWriter
from graphrag_core.settings import CommunitySettings, RetrievalSettings
from graphrag_core.store.reader import (
    PeriodFilter,
    Snapshot,
    filing_themes,
    sector_match,
)
from mcp_server.context import ToolContext, stamp
from mcp_server.formatting import community_brief, theme_finding
from mcp_server.graph_models import (
    CommunityCitation,
    CommunityThemesResult,
    FilingTheme,
    ThemeMemberOut,
    short_company_name,
)
from mcp_server.graph_time import graph_time

log = logging.getLogger(__name__)

_SECTOR_COMPANIES = "SELECT company_id FROM companies WHERE list_contains($sics, sic)"


@dataclass
class ThemesFound:
    themes: list[FilingTheme]
    matched: int
    as_of: dt.date | None
    old_filings_left_out: int
    notes: list[str] = field(default_factory=list)


def period_of(text: str | None) -> PeriodFilter | None:
    """The `period` argument parsed by the graph tools' grammar (`graph_time`: a ToolError
    saying what is accepted), None for none."""
    found = graph_time(text, None)
    return found if found.kind is not None else None


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
                risk_factors=t.risk_factors,
                mdna_statements=t.mdna_statements,
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
        kind=row["kind"] or "risk_factor",
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


class ThemeTools:
    """community_themes over `ctx`'s reader, answered by `community_settings`' model when one is
    configured."""

    def __init__(
        self,
        ctx: ToolContext,
        community_settings: CommunitySettings | None = None,
        retrieval: RetrievalSettings | None = None,
    ):
        self.ctx = ctx
        # The model community_themes may write its answer with (none: deterministic).
        self.themes_writer = ThemesAnswerWriter.from_settings(community_settings)
        # The themes from the filings' own risk factors (embeds the question).
        self.filing_themes = FilingThemeSearch(
            retrieval or RetrievalSettings(), community_settings or CommunitySettings()
        )

    def calls_a_model(self) -> bool:
        """Whether community_themes may send text to an endpoint outside the snapshot: themes to
        the configured answer model, or the question to an embeddings endpoint (the filing
        themes' match by meaning, `embed_backend=openai`). The open-world annotation says so."""
        embeds_outside = self.filing_themes.retrieval.embed_backend == "openai"
        return self.themes_writer is not None or embeds_outside

    def community_themes(
        self,
        sector: Annotated[
            str | None,
            Field(
                max_length=80,
                description="an industry as analysts say it ('semiconductors', "
                "'banks', 'software', 'pharmaceuticals', 'retail'), a SIC-based sector "
                "('Information Technology', 'Energy') or a SIC code ('3674'); the answer then "
                "names only that sector's companies",
            ),
        ] = None,
        query: Annotated[
            str | None,
            Field(
                max_length=300,
                description="what the question is about, in words: 'export "
                "controls', 'supplier concentration', 'competition', 'cybersecurity'",
            ),
        ] = None,
        level: Annotated[
            int | None,
            Field(
                ge=0,
                le=12,
                description="hierarchy level to answer from (0 = broadest "
                "communities); omit to let the tool choose the level that fits the question",
            ),
        ] = None,
        limit: Annotated[int, Field(ge=1, le=30, description="most themes to return")] = 10,
        period: Annotated[
            str | None,
            Field(
                max_length=40,
                description="only filings for this period: a fiscal label ('FY2024', "
                "'Q2-FY2026', each company's own fiscal calendar) or a calendar year, quarter "
                "or range ('2024', '2024-Q3', '2024-01-01..2024-06-30': the period end falls "
                "in it)",
            ),
        ] = None,
        as_of: Annotated[
            dt.date | None,
            Field(
                description="ISO date: answer from the filings known on that date (filed on or "
                "before it); default the snapshot's as_of"
            ),
        ] = None,
        include_old: Annotated[
            bool,
            Field(
                description="also count filings older than the age limit before as_of "
                "(GRAPHRAG_COMMUNITIES_THEME_MAX_AGE_DAYS, 548 days); without a period "
                "they are left out and counted in old_filings_left_out"
            ),
        ] = False,
    ) -> CommunityThemesResult:
        """The global search: themes across many companies at once, from the reports written
        ahead of time on communities of the knowledge graph (groups of companies and the
        organizations they name, tied by supply, customer, competition and ownership).

        Use it for questions that start from no single company: "what are the dominant risk
        themes among semiconductor companies?" (sector="semiconductors"), "which supply chains
        are exposed to export controls?" (query="export controls"), "what are the main themes
        in this data?" (no arguments). For one company's relations use neighbors or
        explore_company instead.

        Returns `themes`: findings merged across the communities read and de-duplicated, each a
        sentence naming only entities whose evidence it cites (`citations`: filing, section,
        chunk_id for get_chunk, the verbatim quote), strongest first; `answer`: the top themes
        in a few sentences; `communities`: the reports read (title, summary, impact 0-10 with
        why, member companies, sector mix by SIC). The level is chosen for the question
        (`selection` says how). A report built before its companies' latest filings is served
        with `stale: true` and its `as_of`; one whose source filing was removed or amended is
        withheld (`withheld_reports`) until it is rebuilt. Sectors come from SEC SIC codes, which
        SEC gives only some companies here: `sector_mix` shows how many are unknown.

        Every theme `statement` names each entity with its evidence number [n] and says how many
        companies and filings state it and in which fiscal periods (quote it as is: it passes
        check_citations).

        Also `filing_themes`: what the companies state in their own risk factors (Item 1A) and
        MD&A (statements of a trend and its driver: "revenue declined due to export
        restrictions"), grouped by meaning across companies, matched to `query` by words and by
        meaning. Each `statement` says how many companies and filings state it, how many risk
        factors and MD&A statements, and in which fiscal periods, naming companies each with
        its evidence number [n]; `members` give each company's risk-factor heading or MD&A
        sentence (`kind`), verbatim, cited.
        `period` ('FY2024', '2024-Q3') reads only filings for that period; `as_of` only filings
        known by that date. Without a period, filings more than ~18 months older than as_of are
        left out (`old_filings_left_out`) unless include_old=true.
        """
        with self.ctx.lease() as snap:
            if "community_reports" not in snap.manifest.counts:
                raise ToolError(
                    f"snapshot {snap.version} has no community reports (it was built without the "
                    "communities stage); publish a new snapshot (materialize graph_snapshot)"
                )
            window = period_of(period)
            match = sector_match(snap, sector) if sector else None
            found = community_themes(snap, sector=match, query=query, level=level, limit=limit)
            if window is not None or as_of is not None:
                found.themes = relation_themes_in_window(snap, found.themes, window, as_of)
                found.answer = " ".join(t["statement"] for t in found.themes[:5])
            texts = self.filing_themes.answer(
                snap,
                query=query,
                sics=match.sic_codes if match else None,
                period=window,
                as_of=as_of,
                include_old=include_old,
                limit=limit,
            )
            answer, answer_by, note = found.answer, found.answer_by, found.note
            if texts.notes:
                note = " ".join([*([note] if note else []), *texts.notes])
            writer = self.themes_writer
            if found.themes and writer is not None:
                written = writer.write(sector, query, found.themes)
                if written is not None:
                    answer, answer_by = written, f"model:{writer.model}"
                else:
                    note = (
                        (note + " " if note else "") + "the model's answer was unavailable or "
                        "cited no theme; the deterministic answer is shown"
                    )
            return CommunityThemesResult(
                **stamp(snap),
                sector=sector,
                sector_matched=match.sector if match else None,
                sic_codes=list(match.sic_codes) if match else [],
                query=query,
                terms=found.terms,
                level=found.level,
                levels_used=found.levels_used,
                selection=found.selection,
                answer=answer,
                answer_by=answer_by,
                themes=[
                    theme_finding(t, n)
                    for t, n in zip(
                        found.themes,
                        theme_support(snap, found.themes, window, as_of),
                        strict=True,
                    )
                ],
                communities=[community_brief(s.row, s.relevance) for s in found.communities],
                filing_themes=texts.themes,
                filing_themes_matched=texts.matched,
                period=period,
                as_of_asked=as_of,
                old_filings_left_out=texts.old_filings_left_out,
                stale_reports=found.stale,
                withheld_reports=found.withheld,
                truncated=found.truncated,
                note=note,
            )
