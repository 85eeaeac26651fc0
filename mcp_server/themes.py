"""The themes family: community_themes, the global search over the community reports written
ahead of time, whose answer a configured model may write (`ThemesAnswerWriter`, the one model
client; otherwise, or on any failure of the model, the deterministic answer stands)."""

from __future__ import annotations

from typing import Annotated

from mcp.server.mcpserver.exceptions import ToolError
from pydantic import Field

from graphrag_core.retrieval.global_search import community_themes
from graphrag_core.retrieval.themes_answer import ThemesAnswerWriter
from graphrag_core.settings import CommunitySettings
from graphrag_core.store.reader import sector_match
from mcp_server.context import ToolContext, stamp
from mcp_server.formatting import community_brief, theme_finding
from mcp_server.graph_models import CommunityThemesResult


class ThemeTools:
    """community_themes over `ctx`'s reader, answered by `community_settings`' model when one is
    configured."""

    def __init__(self, ctx: ToolContext, community_settings: CommunitySettings | None = None):
        self.ctx = ctx
        # The model community_themes may write its answer with (none: deterministic).
        self.themes_writer = ThemesAnswerWriter.from_settings(community_settings)

    def calls_a_model(self) -> bool:
        """Whether community_themes may send themes to the configured answer model (an endpoint
        outside the snapshot: the tool's open-world annotation says so)."""
        return self.themes_writer is not None

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
        """
        with self.ctx.lease() as snap:
            if "community_reports" not in snap.manifest.counts:
                raise ToolError(
                    f"snapshot {snap.version} has no community reports (it was built without the "
                    "communities stage); publish a new snapshot (materialize graph_snapshot)"
                )
            match = sector_match(snap, sector) if sector else None
            found = community_themes(snap, sector=match, query=query, level=level, limit=limit)
            answer, answer_by, note = found.answer, found.answer_by, found.note
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
                themes=[theme_finding(t) for t in found.themes],
                communities=[community_brief(s.row, s.relevance) for s in found.communities],
                stale_reports=found.stale,
                withheld_reports=found.withheld,
                truncated=found.truncated,
                note=note,
            )
