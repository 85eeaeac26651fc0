"""The themes family: community_themes, the global search over the community reports written
ahead of time, whose answer a configured model may write (`_model_answer`; otherwise, or on any
failure of the model, the deterministic answer stands)."""

from __future__ import annotations

import logging
from typing import Annotated, Any

from mcp.server.mcpserver.exceptions import ToolError
from pydantic import Field

from graphrag_core.settings import CommunitySettings
from graphrag_core.store.reader import check_model_answer, community_themes, model_prompt
from mcp_server.context import ToolContext, stamp
from mcp_server.formatting import community_brief, theme_finding
from mcp_server.graph_models import CommunityThemesResult

log = logging.getLogger(__name__)


class ThemeTools:
    """community_themes over `ctx`'s reader, answered by `community_settings`' model when one is
    configured."""

    def __init__(self, ctx: ToolContext, community_settings: CommunitySettings | None = None):
        self.ctx = ctx
        # The model endpoint community_themes may write its answer with (none: deterministic).
        self.community_settings = community_settings

    def calls_a_model(self) -> bool:
        """Whether community_themes may send themes to the configured answer model (an endpoint
        outside the snapshot: the tool's open-world annotation says so)."""
        settings = self.community_settings
        return settings is not None and settings.model_reduce()

    def community_themes(
        self,
        sector: Annotated[
            str | None,
            Field(
                max_length=80,
                description="an industry as analysts say it ('semiconductors', "
                "'banks', 'software', 'pharmaceuticals', 'oil and gas', 'retail') or a SIC code "
                "('3674'); the answer then names only that sector's companies",
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
            found = community_themes(snap, sector=sector, query=query, level=level, limit=limit)
            answer, answer_by, note = found.answer, found.answer_by, found.note
            settings = self.community_settings
            if found.themes and settings is not None and self.calls_a_model():
                written = self._model_answer(settings, sector, query, found.themes)
                if written is not None:
                    answer, answer_by = written, f"model:{settings.model}"
                else:
                    note = (
                        (note + " " if note else "") + "the model's answer was unavailable or "
                        "cited no theme; the deterministic answer is shown"
                    )
            match = found.sector
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

    @staticmethod
    def _model_answer(
        settings: CommunitySettings,
        sector: str | None,
        query: str | None,
        themes: list[dict[str, Any]],
    ) -> str | None:
        """The answer written by the configured model from the themes, or None (any failure:
        the deterministic answer stands)."""
        import httpx

        question = (query or "the main themes") + (f" among {sector} companies" if sector else "")
        body = {
            "model": settings.model,
            "messages": model_prompt(question, themes),
            "temperature": 0,
            "max_tokens": 600,
            "response_format": {"type": "json_object"},
        }
        key = settings.api_key.get_secret_value() if settings.api_key else "EMPTY"
        try:
            reply = httpx.post(
                f"{str(settings.base_url).rstrip('/')}/chat/completions",
                json=body,
                headers={"Authorization": f"Bearer {key}"},
                timeout=settings.reduce_timeout_s,
            )
            reply.raise_for_status()
            text = reply.json()["choices"][0]["message"]["content"]
        except (httpx.HTTPError, KeyError, IndexError, TypeError, ValueError) as exc:
            log.warning(
                "community_themes: the model answer failed (%s); answering deterministically", exc
            )
            return None
        return check_model_answer(str(text or ""), themes)
