"""What every tool family shares: the snapshot lease, the stamp every answer carries, company
and entity resolution (with "did you mean" suggestions), sector names, and the argument types
several families take.

Every call leases the current snapshot from the `SnapshotReader` for its whole duration, so a
snapshot published mid-call is picked up by the next call while this one finishes on its own.
Misses are raised as `ToolError`s whose text tells the model what to do next.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Annotated, Any, Literal

from mcp.server.mcpserver.exceptions import ToolError
from pydantic import Field

from graphrag_core.settings import MetricSettings
from graphrag_core.store.reader import (
    METRIC_RELATIONS,
    SectorMatch,
    Snapshot,
    SnapshotReader,
    SnapshotUnavailable,
    company_key,
    is_stale,
    normalize_cik,
    normalize_name,
    sector_choices,
    sector_match,
)
from mcp_server import graph_queries, queries
from mcp_server.evidence import MAX_ANSWER_CHARS

SUGGESTION_THRESHOLD = 0.85
# "1045810", "0001045810", "CIK-0001045810", "cik 1045810": a CIK, not a name.
CIK_QUERY_RE = re.compile(r"^\s*(?:cik[\s:-]*)?\d{1,10}\s*$", re.I)
# Metric relations (every company reports revenue) are left to get_metrics unless asked for.
HIDDEN_RELATIONS = list(METRIC_RELATIONS)

Relation = Literal[
    "SUPPLIES",
    "CUSTOMER_OF",
    "COMPETES_WITH",
    "SUBSIDIARY_OF",
    "EXPOSED_TO_RISK",
    "GUIDES",
    "REPORTS_METRIC",
]
EntityId = Annotated[
    str,
    Field(
        min_length=1,
        max_length=128,
        description="an entity id from find_company or another graph answer: CIK-0001045810, "
        "ORG:samsung-electronics, RISK:export-controls, METRIC:revenue (a ticker or CIK "
        "also works)",
    ),
]

CompanyId = Annotated[
    str,
    Field(
        min_length=1,
        max_length=64,
        description="company_id from find_company (CIK-0001045810); a CIK or exact ticker also "
        "works",
    ),
]
MetricId = Annotated[str, Field(pattern=r"^[a-z][a-z0-9_]{0,63}$")]
CompanyIdArg = Annotated[
    str | None,
    Field(
        None,
        min_length=1,
        max_length=64,
        description="only this company's filings: company_id from find_company (a CIK or ticker "
        "works)",
    ),
]


class ToolContext:
    """The reader every family's tools read through, and the settings they share."""

    def __init__(self, reader: SnapshotReader, metric_settings: MetricSettings | None = None):
        self.reader = reader
        # When a company's latest period is too old to pass as current (`stale`).
        self.metric_settings = metric_settings or MetricSettings()
        # The answer cap the server applies (evidence.cap_answer): long lists are cut to it.
        self.answer_chars = MAX_ANSWER_CHARS

    @contextmanager
    def lease(self) -> Iterator[Snapshot]:
        try:
            with self.reader.lease() as snap:
                yield snap
        except SnapshotUnavailable as exc:
            raise ToolError(str(exc)) from exc

    def freshness(self, snap: Snapshot, cik: str) -> dict[str, Any]:
        """The end of the company's latest period (filings and metrics), and whether it is stale."""
        rows = snap.query(queries.COMPANY_LATEST_PERIOD, {"cik": cik})
        latest = rows[0]["latest_end"] if rows else None
        return {
            "latest_period_end": latest,
            "stale": is_stale(latest, snap.as_of, self.metric_settings.stale_after_days),
        }


def stamp(snap: Snapshot) -> dict[str, Any]:
    return {"snapshot": snap.version, "as_of": snap.as_of}


# -- company resolution --------------------------------------------------------------------
def suggestions(snap: Snapshot, text: str) -> str:
    rows = snap.query(
        queries.SUGGEST_COMPANY,
        {
            "norm": normalize_name(text),
            "ticker": text.strip().upper(),
            "threshold": SUGGESTION_THRESHOLD,
            "limit": 3,
        },
    )
    if rows:
        names = " or ".join(f"{r['name']} ({r['company_id']})" for r in rows)
        return f"did you mean {names}?"
    known = snap.query(
        queries.KNOWN_REGISTRANT, {"ticker": text.strip().upper(), "norm": normalize_name(text)}
    )
    if known:
        names = ", ".join(f"{r['title']} ({r['ticker']}, {company_key(r['cik'])})" for r in known)
        return (
            f"SEC lists {names}, but this snapshot holds no filings of it; its filings must be "
            "ingested (add it to the watchlist) before it can be queried"
        )
    return "try another spelling, a ticker or a CIK, or call status to see what the snapshot covers"


def resolve_company(snap: Snapshot, company_id: str) -> dict[str, Any]:
    text = company_id.strip()
    rows: list[dict[str, Any]] = []
    cik = normalize_cik(text) if CIK_QUERY_RE.match(text) else None
    if cik:
        rows = snap.query(queries.COMPANY_BY_CIK, {"cik": cik})
    if not rows:
        rows = snap.query(queries.COMPANY_BY_TICKER, {"ticker": text.upper()})
    if not rows:
        raise ToolError(
            f"no company with id {text[:80]!r} in snapshot {snap.version}; "
            f"{suggestions(snap, text[:200])} Use find_company to get a company_id."
        )
    return rows[0]


def resolve_entity(snap: Snapshot, entity_id: str) -> dict[str, Any]:
    """A node by its id; a company also by CIK or ticker."""
    text = entity_id.strip()
    rows = snap.query(graph_queries.ENTITY, {"entity_id": text})
    if rows:
        return rows[0]
    try:
        company = resolve_company(snap, text)
    except ToolError:
        company = None
    if company is not None:
        rows = snap.query(graph_queries.ENTITY, {"entity_id": company["company_id"]})
        if rows:
            return rows[0]
        raise ToolError(
            f"{company['name']} ({company['company_id']}) has no relations in the knowledge "
            f"graph of snapshot {snap.version}; use get_metrics or explore_company instead"
        )
    near = snap.query(
        graph_queries.SUGGEST_ENTITY,
        {"norm": normalize_name(text), "threshold": SUGGESTION_THRESHOLD, "limit": 3},
    )
    hint = (
        "did you mean " + " or ".join(f"{r['name']} ({r['entity_id']})" for r in near) + "?"
        if near
        else "use find_company to get an entity id"
    )
    raise ToolError(
        f"no entity {text[:80]!r} in the knowledge graph of snapshot {snap.version}; {hint}"
    )


def resolve_sector(snap: Snapshot, text: str) -> SectorMatch:
    """A `sector` argument → the snapshot's SIC codes it names (`sector_match`, the resolver
    every tool's `sector` goes through), or a ToolError listing the names it takes."""
    match = sector_match(snap, text)
    if match.sector is None and not match.sic_codes:
        raise ToolError(f"unknown sector {text[:40]!r}; {sector_choices()}")
    return match
