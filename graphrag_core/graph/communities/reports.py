"""Community reports, built bottom-up: a leaf from the edges inside it, a parent from its own
edges (those between its children) and its children's reports, so that re-summarizing a dirty
parent never re-reads every edge beneath it (what keeps a refresh proportional to what changed).

The structure of a report is computed, never written: members, dominant relations and risks,
counts, the impact rating and the source filings. What a summarizer writes is its title, summary
and findings. The extractive summarizer's findings are the strongest groups of edges — the
suppliers of one company, the companies reporting one risk category — each stated by a sentence
that names exactly the entities whose edges it cites (`statements`); a parent merges its
children's findings of the same theme (the companies reporting export controls in each child).
"""

from __future__ import annotations

import datetime as dt
import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

import polars as pl

from graphrag_core.common.ids import content_hash
from graphrag_core.graph.communities.statements import (
    ANCHOR_SIDE,
    RELATION_FINDING,
    RISK_FINDING,
    finding_label,
    join_names,
    render_statement,
    theme_key,
)
from graphrag_core.graph.communities.view import RISK_EDGE
from graphrag_core.tables.schemas import (
    COMMUNITY_CITATION,
    COMMUNITY_FINDINGS,
    COMMUNITY_PARTNER,
    COMMUNITY_REPORTS,
    empty,
)

MEMBER_COMPANIES_SHOWN = 25
SUMMARY_FINDINGS = 3
TITLE_NAMES = 3
EXTRACTIVE = "extractive"

# The impact rating: breadth (companies), weight of evidence, breadth of risks, breadth of
# sources, each saturating at a reference point, weighted 4:3:2:1 onto 0-10.
IMPACT_COMPANIES = 16
IMPACT_EVIDENCE = 300
IMPACT_RISKS = 10
IMPACT_FILINGS = 8


def impact(companies: int, evidence: int, risks: int, filings: int) -> tuple[int, str]:
    breadth = min(1.0, math.log2(1 + companies) / math.log2(1 + IMPACT_COMPANIES))
    weight = min(1.0, math.log10(1 + evidence) / math.log10(1 + IMPACT_EVIDENCE))
    spread = min(1.0, risks / IMPACT_RISKS)
    sources = min(1.0, filings / IMPACT_FILINGS)
    rating = int(round(10 * (0.4 * breadth + 0.3 * weight + 0.2 * spread + 0.1 * sources)))
    why = (
        f"{companies} compan{'y' if companies == 1 else 'ies'}, {evidence} citation"
        f"{'' if evidence == 1 else 's'} from {filings} filing{'' if filings == 1 else 's'}, "
        f"{risks} risk categor{'y' if risks == 1 else 'ies'}"
    )
    return rating, why


# -- what a summarizer is given and what it returns --------------------------------------------
@dataclass
class ReportContext:
    """One community, as a summarizer sees it."""

    community_id: str
    level: int
    members: list[dict[str, Any]]  # strongest first: entity_id, name, entity_type
    member_count: int
    relations: list[dict[str, Any]]
    risks: list[dict[str, Any]]
    findings: list[dict[str, Any]]  # the extractive findings (COMMUNITY_FINDINGS rows)
    evidence: list[
        dict[str, Any]
    ]  # what a model may cite: evidence of edges inside it (empty for extractive)
    children: list[dict[str, Any]]  # title and summary of each child report
    title: str
    summary: str
    summary_citations: list[dict[str, Any]]
    impact_rating: int
    impact_explanation: str


@dataclass
class Written:
    title: str
    summary: str
    summary_citations: list[dict[str, Any]]
    findings: list[dict[str, Any]]
    impact_rating: int
    impact_explanation: str
    dropped: int = 0
    summarizer: str = EXTRACTIVE


class Summarizer(Protocol):
    """Writes the title, summary and findings of communities from their contexts."""

    name: str

    def write(self, contexts: Sequence[ReportContext]) -> list[Written]: ...


class ExtractiveSummarizer:
    """The embedded default: the report as computed, every sentence a finding's statement."""

    name = EXTRACTIVE

    def write(self, contexts: Sequence[ReportContext]) -> list[Written]:
        return [
            Written(
                title=c.title,
                summary=c.summary,
                summary_citations=c.summary_citations,
                findings=c.findings,
                impact_rating=c.impact_rating,
                impact_explanation=c.impact_explanation,
            )
            for c in contexts
        ]


# -- one level of communities at a time ----------------------------------------------------------
@dataclass
class LevelInputs:
    """What building the reports of one level's communities reads.

    targets:    community_id, level
    members:    community_id, entity_id, entity_type, name, weight (of the targets)
    own_edges:  community_id, edge_id, subject_id, relation, object_id, evidence_count, kind
                (edges whose home is a target: inside it and in none of its children)
    citations:  edge_id, evidence_id, filing_id, chunk_id, quote, rank (newest first)
    edge_filings: edge_id, filing_id
    children:   child_id, community_id (its parent, a target)
    child_reports / child_findings: COMMUNITY_REPORTS / COMMUNITY_FINDINGS rows of the children
    names:      entity_id, name, entity_type (every entity an edge names)
    """

    targets: pl.DataFrame
    members: pl.DataFrame
    own_edges: pl.DataFrame
    citations: pl.DataFrame
    edge_filings: pl.DataFrame
    children: pl.DataFrame
    child_reports: pl.DataFrame
    child_findings: pl.DataFrame
    names: pl.DataFrame


@dataclass
class LevelResult:
    reports: pl.DataFrame
    findings: pl.DataFrame
    no_evidence: list[str] = field(default_factory=list)
    dropped: int = 0


def _partner_rows(inputs: LevelInputs) -> pl.DataFrame:
    """One row per (community, theme, partner): the partner's strongest edge and its newest
    citation, from the targets' own edges and from their children's findings."""
    e = inputs.own_edges.filter(
        (pl.col("kind") == RISK_EDGE) | pl.col("relation").is_in(list(ANCHOR_SIDE))
    )
    anchor_is_object = (pl.col("kind") == RISK_EDGE) | pl.col("relation").replace_strict(
        {r: side == "object" for r, side in ANCHOR_SIDE.items()},
        default=False,
        return_dtype=pl.Boolean,
    )
    own = e.select(
        "community_id",
        pl.when(pl.col("kind") == RISK_EDGE)
        .then(pl.lit(RISK_FINDING))
        .otherwise(pl.lit(RELATION_FINDING))
        .alias("kind"),
        pl.when(pl.col("kind") == RISK_EDGE)
        .then(pl.lit(None, dtype=pl.String))
        .otherwise(pl.col("relation"))
        .alias("relation"),
        pl.when(anchor_is_object).then("object_id").otherwise("subject_id").alias("anchor_id"),
        pl.when(anchor_is_object).then("subject_id").otherwise("object_id").alias("partner_id"),
        "edge_id",
        pl.col("evidence_count").cast(pl.Int64).alias("evidence"),
    )
    # A partner stated by several edges (periods, values): its evidence summed, its strongest
    # edge cited.
    own = (
        own.sort(["evidence", "edge_id"], descending=[True, False])
        .group_by(
            "community_id", "kind", "relation", "anchor_id", "partner_id", maintain_order=True
        )
        .agg(pl.col("edge_id").first(), pl.col("evidence").sum())
    )
    newest = inputs.citations.filter(pl.col("rank") == 1).select(
        "edge_id", "evidence_id", "filing_id", "chunk_id", "quote"
    )
    own = own.join(newest, on="edge_id", how="inner").select(
        "community_id",
        "kind",
        "relation",
        "anchor_id",
        "partner_id",
        "edge_id",
        "evidence",
        pl.struct(
            "evidence_id",
            "edge_id",
            pl.col("partner_id").alias("entity_id"),
            "filing_id",
            "chunk_id",
            "quote",
        )
        .cast(COMMUNITY_CITATION)
        .alias("citation"),
        pl.lit(0, dtype=pl.Int64).alias("extra_partners"),
        pl.lit(0, dtype=pl.Int64).alias("extra_support"),
    )
    cf = inputs.child_findings.filter(pl.col("kind").is_in([RELATION_FINDING, RISK_FINDING]))
    if cf.height:
        cf = (
            cf.join(
                inputs.children.rename({"community_id": "parent_id"}),
                left_on="community_id",
                right_on="child_id",
            )
            .drop("community_id")
            .rename({"parent_id": "community_id"})
        )
        named = cf.explode("partners").unnest("partners", separator="__")
        kids = named.select(
            "community_id",
            "kind",
            "relation",
            "anchor_id",
            pl.col("partners__entity_id").alias("partner_id"),
            pl.col("partners__edge_id").alias("edge_id"),
            pl.col("partners__evidence").alias("evidence"),
            pl.col("partners__citation").alias("citation"),
        ).filter(pl.col("partner_id").is_not_null())
        # What a child counted but did not name carries over as counts.
        extra = cf.select(
            "community_id",
            "kind",
            "relation",
            "anchor_id",
            (pl.col("partner_count") - pl.col("partners").list.len()).alias("extra_partners"),
            (
                pl.col("support")
                - pl.col("partners").list.eval(pl.element().struct.field("evidence")).list.sum()
            ).alias("extra_support"),
        )
        kids = kids.with_columns(
            pl.lit(0, dtype=pl.Int64).alias("extra_partners"),
            pl.lit(0, dtype=pl.Int64).alias("extra_support"),
        )
        extra_rows = extra.with_columns(
            pl.lit(None, dtype=pl.String).alias("partner_id"),
            pl.lit(None, dtype=pl.String).alias("edge_id"),
            pl.lit(0, dtype=pl.Int64).alias("evidence"),
            pl.lit(None, dtype=COMMUNITY_CITATION).alias("citation"),
        ).select(own.columns)
        own = pl.concat([own, kids.select(own.columns), extra_rows], how="vertical_relaxed")
    return own


def _themes(
    partners: pl.DataFrame, names: dict[str, str], per_finding: int, keep: int
) -> pl.DataFrame:
    """Partner rows → candidate findings per community: partners strongest first, counts; the
    2×`keep` strongest themes of each community (the final choice mixes kinds)."""
    if not partners.height:
        return pl.DataFrame()
    named = partners.filter(pl.col("partner_id").is_not_null()).with_columns(
        pl.col("partner_id")
        .replace_strict(names, default=pl.col("partner_id"), return_dtype=pl.String)
        .alias("name")
    )
    grouped = (
        named.sort(["evidence", "name", "partner_id"], descending=[True, False, False])
        .group_by("community_id", "kind", "relation", "anchor_id", maintain_order=True)
        .agg(
            pl.struct(
                pl.col("partner_id").alias("entity_id"),
                "name",
                "edge_id",
                "evidence",
                "citation",
            )
            .cast(COMMUNITY_PARTNER)
            .alias("partners"),
            pl.col("partner_id").n_unique().alias("named"),
            pl.col("evidence").sum().alias("named_support"),
        )
    )
    extra = partners.group_by("community_id", "kind", "relation", "anchor_id").agg(
        pl.col("extra_partners").sum(), pl.col("extra_support").sum()
    )
    themes = grouped.join(
        extra, on=["community_id", "kind", "relation", "anchor_id"], how="left", nulls_equal=True
    )
    themes = themes.with_columns(
        (pl.col("named") + pl.col("extra_partners").fill_null(0))
        .cast(pl.Int64)
        .alias("partner_count"),
        (pl.col("named_support") + pl.col("extra_support").fill_null(0))
        .cast(pl.Int64)
        .alias("support"),
        pl.col("partners").list.head(per_finding),
    )
    return (
        themes.sort(
            ["community_id", "support", "partner_count", "anchor_id"],
            descending=[False, True, True, False],
        )
        .with_columns(pl.int_range(pl.len()).over("community_id").alias("_r"))
        .filter(pl.col("_r") < 2 * keep)
        .drop("_r", "named", "named_support", "extra_partners", "extra_support")
    )


def _choose(candidates: list[dict[str, Any]], keep: int) -> list[dict[str, Any]]:
    """The strongest `keep`, with at least a third of each kind when the community has them
    (a global question asks about risks as often as about relations)."""
    by_kind: dict[str, list[dict[str, Any]]] = {}
    for c in candidates:
        by_kind.setdefault(c["kind"], []).append(c)
    floor = max(1, keep // 3)
    chosen: list[dict[str, Any]] = []
    for kind in (RISK_FINDING, RELATION_FINDING):
        chosen.extend(by_kind.get(kind, [])[:floor])
    for c in candidates:
        if len(chosen) >= keep:
            break
        if c not in chosen:
            chosen.append(c)
    chosen = chosen[:keep]
    chosen.sort(key=lambda c: (-c["support"], -c["partner_count"], c["theme"]))
    return chosen


def _finding(
    row: dict[str, Any], community_id: str, rank: int, names: dict[str, str]
) -> dict[str, Any]:
    anchor_name = names.get(row["anchor_id"], row["anchor_id"])
    partners = row["partners"]
    statement = render_statement(
        row["kind"], row["relation"], anchor_name, [p["name"] for p in partners]
    )
    theme = theme_key(row["kind"], row["relation"], row["anchor_id"])
    return {
        "finding_id": content_hash(community_id, theme, length=24),
        "community_id": community_id,
        "rank": rank,
        "kind": row["kind"],
        "theme": theme,
        "label": finding_label(row["kind"], row["relation"], anchor_name),
        "relation": row["relation"] if row["kind"] == RELATION_FINDING else "EXPOSED_TO_RISK",
        "anchor_id": row["anchor_id"],
        "anchor_name": anchor_name,
        "statement": statement,
        "partners": partners,
        "partner_count": row["partner_count"],
        "support": row["support"],
        "citations": [p["citation"] for p in partners if p["citation"] is not None],
    }


def _sum_lists(
    own: pl.DataFrame, child_lists: pl.DataFrame, key: str, values: Sequence[str]
) -> pl.DataFrame:
    """Per community: own rows + children's exploded rows, summed by `key`."""
    frames = [f for f in (own, child_lists) if f.height]
    if not frames:
        return pl.DataFrame()
    both = pl.concat(frames, how="vertical_relaxed")
    return both.group_by("community_id", key).agg(*(pl.col(v).sum() for v in values))


def build_level(
    inputs: LevelInputs,
    *,
    findings_per_report: int,
    names_per_finding: int,
    summarizer: Summarizer,
    graph_version: int,
    as_of: dt.date | None,
    evidence_in_prompt: int = 60,
) -> LevelResult:
    """The reports and findings of `inputs.targets` (communities of one level)."""
    names = dict(
        zip(
            inputs.names.get_column("entity_id").to_list(),
            inputs.names.get_column("name").fill_null("").to_list(),
            strict=True,
        )
    )
    names = {k: (v or k) for k, v in names.items()}
    targets = inputs.targets.get_column("community_id").to_list()
    levels = dict(zip(targets, inputs.targets.get_column("level").to_list(), strict=True))
    children_of = inputs.children

    # -- counts: own edges + the children's reports ----------------------------------------
    e = inputs.own_edges
    own_rel = e.group_by("community_id", "relation").agg(
        pl.len().cast(pl.Int64).alias("edges"),
        pl.col("evidence_count").sum().cast(pl.Int64).alias("evidence"),
    )
    cr = (
        inputs.child_reports.join(children_of, left_on="community_id", right_on="child_id")
        .drop("community_id")
        .rename({"community_id_right": "community_id"})
        if inputs.child_reports.height
        else pl.DataFrame()
    )
    kid_rel = (
        cr.select("community_id", "relations")
        .explode("relations")
        .unnest("relations")
        .filter(pl.col("relation").is_not_null())
        if cr.height
        else pl.DataFrame()
    )
    relations = _sum_lists(own_rel, kid_rel, "relation", ("edges", "evidence"))
    risk_edges = e.filter(pl.col("kind") == RISK_EDGE)
    own_risk = risk_edges.group_by("community_id", pl.col("object_id").alias("risk_id")).agg(
        pl.col("subject_id").n_unique().cast(pl.Int64).alias("companies"),
        pl.col("evidence_count").sum().cast(pl.Int64).alias("evidence"),
    )
    kid_risk = (
        cr.select("community_id", "risks")
        .explode("risks")
        .unnest("risks")
        .filter(pl.col("risk_id").is_not_null())
        .drop("label")
        if cr.height
        else pl.DataFrame()
    )
    risks = _sum_lists(own_risk, kid_risk, "risk_id", ("companies", "evidence"))
    own_tot = e.group_by("community_id").agg(
        pl.len().cast(pl.Int64).alias("edges"),
        pl.col("evidence_count").sum().cast(pl.Int64).alias("evidence"),
    )
    kid_tot = cr.select("community_id", "edges", "evidence") if cr.height else pl.DataFrame()
    totals = (
        {
            r["community_id"]: r
            for r in _sum_lists(
                own_tot.with_columns(pl.lit("all").alias("k")),
                kid_tot.with_columns(pl.lit("all").alias("k")) if kid_tot.height else kid_tot,
                "k",
                ("edges", "evidence"),
            ).iter_rows(named=True)
        }
        if (own_tot.height or kid_tot.height)
        else {}
    )
    own_sources = (
        e.select("community_id", "edge_id")
        .join(inputs.edge_filings, on="edge_id")
        .select("community_id", "filing_id")
    )
    kid_sources = (
        cr.select("community_id", pl.col("source_filings").alias("filing_id"))
        .explode("filing_id")
        .filter(pl.col("filing_id").is_not_null())
        if cr.height
        else pl.DataFrame()
    )
    sources_frame = (
        pl.concat([f for f in (own_sources, kid_sources) if f.height])
        if (own_sources.height or kid_sources.height)
        else pl.DataFrame()
    )
    sources: dict[str, list[str]] = {}
    if sources_frame.height:
        for cid, group in (
            sources_frame.unique().sort("filing_id").group_by("community_id", maintain_order=True)
        ):
            sources[str(cid[0])] = group.get_column("filing_id").to_list()
    rel_by = (
        _by_community(
            relations.sort(["evidence", "edges", "relation"], descending=[True, True, False])
        )
        if relations.height
        else {}
    )
    risk_by = (
        _by_community(
            risks.sort(["companies", "evidence", "risk_id"], descending=[True, True, False])
        )
        if risks.height
        else {}
    )

    # -- findings --------------------------------------------------------------------------
    keep = findings_per_report
    themes = _themes(_partner_rows(inputs), names, names_per_finding, keep)
    candidates: dict[str, list[dict[str, Any]]] = {}
    if themes.height:
        for row in themes.iter_rows(named=True):
            row["theme"] = theme_key(row["kind"], row["relation"], row["anchor_id"])
            candidates.setdefault(row["community_id"], []).append(row)
    members = inputs.members.sort(
        [pl.col("entity_type") != "company", pl.col("weight"), pl.col("name"), pl.col("entity_id")],
        descending=[False, True, False, False],
    )
    members_by = {str(k[0]): g for k, g in members.group_by("community_id", maintain_order=True)}
    child_summaries: dict[str, list[dict[str, Any]]] = {}
    if cr.height:
        for row in (
            cr.sort("impact_rating", descending=True)
            .select("community_id", "title", "summary")
            .iter_rows(named=True)
        ):
            child_summaries.setdefault(row["community_id"], []).append(
                {"title": row["title"], "summary": row["summary"]}
            )
    # The evidence a model may cite; the extractive summarizer cites its findings' own.
    pool = (
        _evidence_pool(inputs, names, evidence_in_prompt) if summarizer.name != EXTRACTIVE else {}
    )

    contexts: list[ReportContext] = []
    no_evidence: list[str] = []
    for cid in targets:
        tot = totals.get(cid)
        if not tot or not tot["edges"]:
            no_evidence.append(cid)
            continue
        member_frame = members_by.get(cid)
        mem = (
            member_frame.select("entity_id", "name", "entity_type").to_dicts()
            if member_frame is not None
            else []
        )
        for m in mem:
            m["name"] = m["name"] or names.get(m["entity_id"], m["entity_id"])
        chosen = _choose(candidates.get(cid, []), keep)
        found = [_finding(row, cid, i + 1, names) for i, row in enumerate(chosen)]
        rels = rel_by.get(cid, [])
        rsk = [{**r, "label": names.get(r["risk_id"], r["risk_id"])} for r in risk_by.get(cid, [])]
        company_count = sum(1 for m in mem if m["entity_type"] == "company")
        rating, why = impact(
            company_count, int(tot["evidence"]), len(rsk), len(sources.get(cid, []))
        )
        lead_names = [m["name"] for m in mem[:TITLE_NAMES]]
        lead = join_names(lead_names)
        if len(mem) > TITLE_NAMES:
            rest = len(mem) - TITLE_NAMES
            lead = f"{', '.join(lead_names)} and {rest} other{'s' if rest > 1 else ''}"
        labels = "; ".join(dict.fromkeys(f["label"] for f in found[:2]))
        title = f"{lead}: {labels}" if labels else lead
        top = found[:SUMMARY_FINDINGS]
        summary_cites = _dedupe([c for f in top for c in f["citations"]])
        contexts.append(
            ReportContext(
                community_id=cid,
                level=levels[cid],
                members=mem[:50],
                member_count=len(mem),
                relations=rels,
                risks=rsk,
                findings=found,
                evidence=pool.get(cid, []),
                children=child_summaries.get(cid, [])[:12],
                title=title,
                summary=" ".join(f["statement"] for f in top),
                summary_citations=summary_cites,
                impact_rating=rating,
                impact_explanation=why,
            )
        )
    written = summarizer.write(contexts) if contexts else []
    built_at = dt.datetime.now(dt.UTC)
    report_rows, finding_rows, dropped = [], [], 0
    for ctx, w in zip(contexts, written, strict=True):
        tot = totals[ctx.community_id]
        member_companies = [m for m in ctx.members if m["entity_type"] == "company"]
        dropped += w.dropped
        report_rows.append(
            {
                "community_id": ctx.community_id,
                "level": ctx.level,
                "title": w.title,
                "summary": w.summary,
                "summary_citations": w.summary_citations,
                "member_companies": member_companies[:MEMBER_COMPANIES_SHOWN],
                "members": ctx.member_count,
                "companies": int(
                    (members_by[ctx.community_id].get_column("entity_type") == "company").sum()
                ),
                "relations": ctx.relations,
                "risks": ctx.risks,
                "edges": int(tot["edges"]),
                "evidence": int(tot["evidence"]),
                "impact_rating": w.impact_rating,
                "impact_explanation": w.impact_explanation,
                "findings": len(w.findings),
                "findings_dropped": w.dropped,
                "source_filings": sources.get(ctx.community_id, []),
                "summarizer": w.summarizer,
                "graph_version": graph_version,
                "as_of": as_of,
                "built_at": built_at,
                "stale": False,
            }
        )
        for i, f in enumerate(w.findings):
            finding_rows.append({**f, "rank": i + 1, "community_id": ctx.community_id})
    reports = (
        pl.DataFrame(report_rows, schema=COMMUNITY_REPORTS)
        if report_rows
        else empty(COMMUNITY_REPORTS)
    )
    findings = (
        pl.DataFrame(finding_rows, schema=COMMUNITY_FINDINGS)
        if finding_rows
        else empty(COMMUNITY_FINDINGS)
    )
    return LevelResult(reports=reports, findings=findings, no_evidence=no_evidence, dropped=dropped)


def _by_community(frame: pl.DataFrame) -> dict[str, list[dict[str, Any]]]:
    out: dict[str, list[dict[str, Any]]] = {}
    for row in frame.iter_rows(named=True):
        cid = row.pop("community_id")
        out.setdefault(cid, []).append(row)
    return out


def _dedupe(citations: list[dict[str, Any]]) -> list[dict[str, Any]]:
    seen: set[str] = set()
    out = []
    for c in citations:
        if c and c["evidence_id"] not in seen:
            seen.add(c["evidence_id"])
            out.append(c)
    return out


def _evidence_pool(
    inputs: LevelInputs, names: dict[str, str], limit: int
) -> dict[str, list[dict[str, Any]]]:
    """Per community, the evidence a model may cite: its own edges' citations (strongest edges
    first) and its children's findings' citations, at most `limit`."""
    pool: dict[str, list[dict[str, Any]]] = {}
    # Cut to `limit` per community before any row reaches Python: a root's own edges (those
    # between its children) can number in the tens of thousands.
    e = (
        inputs.own_edges.join(inputs.citations, on="edge_id")
        .sort(
            ["community_id", "evidence_count", "edge_id", "rank"],
            descending=[False, True, False, False],
        )
        .filter(pl.int_range(pl.len()).over("community_id") < limit)
    )
    for row in e.iter_rows(named=True):
        items = pool.setdefault(row["community_id"], [])
        items.append(
            {
                "evidence_id": row["evidence_id"],
                "edge_id": row["edge_id"],
                "entity_id": row["subject_id"],
                "filing_id": row["filing_id"],
                "chunk_id": row["chunk_id"],
                "quote": row["quote"],
                "statement": f"{names.get(row['subject_id'], row['subject_id'])} {row['relation']} "
                f"{names.get(row['object_id'], row['object_id'])}",
            }
        )
    if inputs.child_findings.height:
        kids = inputs.child_findings.join(
            inputs.children.rename({"community_id": "parent_id"}),
            left_on="community_id",
            right_on="child_id",
        )
        for row in kids.sort(["parent_id", "support"], descending=[False, True]).iter_rows(
            named=True
        ):
            items = pool.setdefault(row["parent_id"], [])
            for c in row["citations"] or []:
                if len(items) >= limit:
                    break
                items.append({**c, "statement": row["statement"]})
    return pool
