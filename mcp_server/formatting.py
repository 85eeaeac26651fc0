"""How rows read as answers: `display_value` (the one home for how a number reads) and the
row-to-model mappers every family shares (citations, metric values, screen figures, graph edges
read in their own direction, theme findings and community briefs)."""

from __future__ import annotations

from typing import Any

from mcp_server.graph_edges import entity_ref
from mcp_server.graph_models import (
    CommunityBrief,
    CommunityCitation,
    EntityRef,
    GraphCitation,
    GraphEdge,
    PathEdge,
    SectorShare,
    ThemeFinding,
)
from mcp_server.models import Citation, Figure, MetricValue, Operand, SupersededValue, finite


def display_value(value: float | None, unit: str) -> str:
    """130497000000, 'USD' → '130,497 million USD'; 2.94, 'USD/shares' → '2.94 USD/shares';
    'missing' for None, NaN or ±Infinity (never a crash on a value an older snapshot holds)."""
    number = finite(value)
    if number is None:
        return "missing"
    value = number
    if abs(value) >= 1_000_000 and "/" not in unit:
        scaled = value / 1_000_000
        text = (
            f"{scaled:,.0f}"
            if scaled == round(scaled)
            else f"{scaled:,.2f}".rstrip("0").rstrip(".")
        )
        return f"{text} million {unit}"
    text = f"{value:,.0f}" if value == round(value) else f"{value:,.4f}".rstrip("0").rstrip(".")
    return f"{text} {unit}"


def row_citation(row: dict[str, Any]) -> Citation:
    return Citation(
        filing_id=row["filing_id"],
        form=row.get("form"),
        filed_date=row.get("filed_date"),
        section=row.get("section"),
        chunk_id=row.get("chunk_id"),
        fact_id=row.get("fact_id"),
        concept=row.get("concept"),
    )


def metric_value(row: dict[str, Any]) -> MetricValue:
    superseded = [
        SupersededValue(
            value=s["value"],
            display=display_value(s["value"], row["unit"]),
            fiscal_label=s["fiscal_label"],
            citation=row_citation(s),
            source_kind=s.get("source_kind") or "xbrl",
            supersede_reason=s.get("supersede_reason"),
            supersede_detail=s.get("supersede_detail"),
        )
        for s in row["superseded"] or []
    ]
    operands = [
        Operand(
            value=o["value"],
            display=display_value(o["value"], row["unit"]),
            fiscal_label=o["fiscal_label"],
            source_kind=o.get("source_kind") or "xbrl",
            citation=row_citation(o),
        )
        for o in row.get("derived_from") or []
    ]
    return MetricValue(
        fiscal_label=row["fiscal_label"],
        fiscal_year=row["fiscal_year"],
        fiscal_period=row["fiscal_period"],
        period_type=row["period_type"],
        calendar_start=row["calendar_start"],
        calendar_end=row["calendar_end"],
        value=row["value"],
        unit=row["unit"],
        display=display_value(row["value"], row["unit"]),
        yoy_change_pct=row["yoy_change_pct"],
        prior_fiscal_label=row["prior_fiscal_label"],
        prior_value=row["prior_value"],
        citation=row_citation(row),
        restated=bool(row.get("restated", bool(superseded))),
        superseded=superseded,
        source_kind=row.get("source_kind") or "xbrl",
        derived=bool(row.get("derived")),
        derivation=row.get("derivation"),
        derived_from=operands,
        mapping_rule=row.get("mapping_rule"),
        as_filed_value=row.get("as_filed_value"),
        split_basis=row.get("split_basis"),
    )


def figure(fig: dict[str, Any] | None, prior: bool = False) -> Figure | None:
    """A figure struct of screen_basis → Figure (its year-ago half when `prior`)."""
    if fig is None:
        return None
    p = "prior_" if prior else ""
    value = finite(fig[f"{p}value"])
    if value is None:
        return None  # not reported, or not a finite number: missing
    return Figure(
        value=value,
        unit=fig["unit"],
        display=display_value(value, fig["unit"]),
        fiscal_label=fig[f"{p}fiscal_label"],
        citation=Citation(
            filing_id=fig[f"{p}filing_id"],
            form=fig[f"{p}form"],
            filed_date=fig[f"{p}filed_date"],
            section=fig[f"{p}section"],
            chunk_id=fig[f"{p}chunk_id"],
        ),
        source_kind=None if prior else fig.get("source_kind"),
        derived=None if prior else fig.get("derived"),
    )


def adjacent_edge(
    me: EntityRef, row: dict[str, Any], citations: dict[str, list[GraphCitation]], prefix: str = ""
) -> GraphEdge:
    """An edge from a graph_adjacency row (`prefix` first_ for a two-hop row's first edge),
    read in its own direction: 'out' rows have `me` as subject."""
    p = prefix
    other = entity_ref(
        row["neighbor_id"] if not p else row["entity_id"],
        row[f"{'via' if p else 'neighbor'}_type"],
        row[f"{'via' if p else 'neighbor'}_name"],
    )
    outgoing = row[f"{p}direction"] == "out"
    shown = citations.get(row[f"{p}edge_id"], [])
    return GraphEdge(
        edge_id=row[f"{p}edge_id"],
        subject=me if outgoing else other,
        relation=row[f"{p}relation"],
        object=other if outgoing else me,
        period=row[f"{p}period"],
        calendar_start=row[f"{p}calendar_start"],
        calendar_end=row[f"{p}calendar_end"],
        value=row[f"{p}value"],
        value_low=row[f"{p}value_low"],
        value_high=row[f"{p}value_high"],
        bound=row[f"{p}bound"],
        unit=row[f"{p}unit"],
        evidence_count=row[f"{p}evidence_count"],
        filing_count=row[f"{p}filing_count"],
        first_filed=row[f"{p}first_filed"],
        last_filed=row[f"{p}last_filed"],
        seen_periods=row[f"{p}seen_periods"] or [],
        superseded_by=row[f"{p}superseded_by"],
        citations=shown,
        more_citations=max(row[f"{p}evidence_count"] - len(shown), 0),
    )


def path_edge(me: str, row: dict[str, Any], citations: dict[str, list[GraphCitation]]) -> PathEdge:
    """The second edge of a two-hop row (from `me`, the middle node), in its own direction."""
    outgoing = row["direction"] == "out"
    shown = citations.get(row["edge_id"], [])
    return PathEdge(
        edge_id=row["edge_id"],
        subject_id=me if outgoing else row["neighbor_id"],
        relation=row["relation"],
        object_id=row["neighbor_id"] if outgoing else me,
        period=row["period"],
        value=row["value"],
        unit=row["unit"],
        evidence_count=row["evidence_count"],
        last_filed=row["last_filed"],
        superseded_by=row["superseded_by"],
        citation=shown[0] if shown else None,
    )


def entity_type(entity_id: str) -> str | None:
    for prefix, kind in (
        ("CIK-", "company"),
        ("ORG:", "organization"),
        ("RISK:", "risk"),
        ("METRIC:", "metric"),
        ("PRODUCT:", "product"),
        ("SEGMENT:", "segment"),
    ):
        if entity_id.startswith(prefix):
            return kind
    return None


def theme_finding(t: dict[str, Any], support: dict[str, Any]) -> ThemeFinding:
    """A relation theme as served; `support` is its companies, filings and fiscal periods
    (`global_search.theme_support`). The statement is written again with evidence numbers once
    the server gives them (`ThemeFinding.render_markers`)."""
    finding = ThemeFinding(
        theme=t["theme"],
        kind=t["kind"],
        label=t["label"],
        statement=t["statement"],
        entities=[
            entity_ref(p["entity_id"], entity_type(p["entity_id"]), p["name"])
            for p in t["partners"]
        ],
        entities_total=t["companies"],
        support=t["support"],
        companies=support["companies"],
        filings=support["filings"],
        fiscal_periods=support["fiscal_periods"],
        communities=list(dict.fromkeys(t["communities"])),
        citations=[
            CommunityCitation(
                filing_id=c["filing_id"],
                form=c.get("form"),
                filed_date=c.get("filed_date"),
                section=c.get("section"),
                chunk_id=c["chunk_id"],
                quote=c["quote"],
                entity_id=c["entity_id"],
            )
            for c in t["citations"]
        ],
    ).written_from(t["relation"], t["anchor_name"])
    finding.render_markers()  # without numbers until the server gives them
    return finding


def community_brief(row: dict[str, Any], relevance: float) -> CommunityBrief:
    return CommunityBrief(
        community_id=row["community_id"],
        level=row["level"],
        title=row["title"],
        summary=row["summary"],
        impact_rating=row["impact_rating"],
        impact_explanation=row["impact_explanation"],
        members=row["members"],
        companies=row["companies"],
        member_companies=[
            entity_ref(m["entity_id"], m["entity_type"], m["name"])
            for m in (row["member_companies"] or [])[:10]
        ],
        top_risks=[r["label"] for r in (row["risks"] or [])[:5]],
        sector_mix=[SectorShare(**m) for m in row["sector_mix"] or []],
        relevance=round(relevance, 4),
        stale=bool(row["stale"]),
        as_of=row["as_of"],
        graph_version=row["graph_version"],
    )
