"""What one snapshot is built from: every published table, as frames.

The stages produce these frames (`graphrag_core.graph.snapshot_inputs` gathers them); the store
only checks that they agree with each other and writes them."""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass, replace

import polars as pl

from graphrag_core.store.chunk_index_ref import ChunkIndexRef
from graphrag_core.store.manifest import ExcludedFiling


@dataclass(frozen=True)
class CommunityTables:
    """The communities stage's tables (schemas: `graphrag_core.tables.schemas` COMMUNITIES,
    COMMUNITY_MEMBERS, COMMUNITY_LEVELS, COMMUNITY_REPORTS, COMMUNITY_FINDINGS). `reports` and
    `findings` hold the reports that may be served (current and stale);
    `communities.report_status` says why any other is not."""

    communities: pl.DataFrame
    members: pl.DataFrame
    levels: pl.DataFrame
    reports: pl.DataFrame
    findings: pl.DataFrame

    def frames(self) -> dict[str, pl.DataFrame]:
        """Name → frame, for the content digest: a report rebuilt the same but at another time
        (`built_at`), and levels timed differently, are the same content."""
        return {
            "communities": self.communities,
            "community_members": self.members,
            "community_levels": self.levels.drop("seconds", strict=False),
            "community_reports": self.reports.drop("built_at", strict=False),
            "community_findings": self.findings,
        }

    def consistent(
        self,
        filing_ids: pl.DataFrame,
        evidence_ids: pl.DataFrame,
        node_ids: pl.DataFrame | None = None,
    ) -> CommunityTables:
        """Withhold every report that rests on a filing outside the snapshot or cites evidence
        that is not in it (a citation must always resolve); list only members that are nodes of
        the snapshot (an entity that left the graph stays in its communities' working state
        until they are rebuilt, so that edges put back find their reports unchanged)."""
        if node_ids is not None and self.members.height:
            listed = replace(self, members=self.members.join(node_ids, on="entity_id", how="semi"))
            return listed.consistent(filing_ids, evidence_ids)
        if not self.reports.height:
            return self
        missing_filing = (
            self.reports.select("community_id", pl.col("source_filings").alias("filing_id"))
            .explode("filing_id")
            .drop_nulls("filing_id")
            .join(filing_ids, on="filing_id", how="anti")
            .group_by("community_id")
            .agg(pl.col("filing_id").min())
        )
        cited = (
            pl.concat(
                [
                    self.findings.select("community_id", "citations"),
                    self.reports.select(
                        "community_id", pl.col("summary_citations").alias("citations")
                    ),
                ]
            )
            .explode("citations")
            .drop_nulls("citations")
            .select("community_id", pl.col("citations").struct.field("evidence_id"))
        )
        dangling = (
            cited.join(evidence_ids, on="evidence_id", how="anti")
            .group_by("community_id")
            .agg(pl.col("evidence_id").min())
        )
        reasons = pl.concat(
            [
                missing_filing.select(
                    "community_id",
                    pl.format("source filing {} is not in this snapshot", "filing_id").alias(
                        "reason"
                    ),
                ),
                dangling.select(
                    "community_id",
                    pl.format("cited evidence {} is not in this snapshot", "evidence_id").alias(
                        "reason"
                    ),
                ),
            ]
        ).unique("community_id", keep="first", maintain_order=True)
        if not reasons.height:
            return self
        communities = (
            self.communities.join(reasons, on="community_id", how="left")
            .with_columns(
                pl.when(pl.col("reason").is_not_null())
                .then(pl.lit("withheld"))
                .otherwise("report_status")
                .alias("report_status"),
                pl.coalesce("reason", "status_reason").alias("status_reason"),
            )
            .drop("reason")
        )
        return replace(
            self,
            communities=communities,
            reports=self.reports.join(reasons, on="community_id", how="anti"),
            findings=self.findings.join(reasons, on="community_id", how="anti"),
        )


@dataclass(frozen=True)
class ThemeTables:
    """Themes from the filings' own risk factors (graphrag_core.retrieval.themes; schemas
    FILING_THEMES and FILING_THEME_MEMBERS in graphrag_core.tables.schemas): the themes, and
    every risk factor seen (theme_id null for one no theme holds)."""

    themes: pl.DataFrame
    members: pl.DataFrame

    def consistent(self, filing_ids: pl.DataFrame) -> ThemeTables:
        """Only members of the snapshot's filings, and themes that keep one (a citation must
        always resolve); counts are recomputed by the server for what it serves."""
        members = self.members.join(filing_ids, on="filing_id", how="semi")
        themes = self.themes.join(
            members.select("theme_id").drop_nulls().unique(), on="theme_id", how="semi"
        )
        return ThemeTables(themes, members)

    def frames(self) -> dict[str, pl.DataFrame]:
        return {"filing_themes": self.themes, "filing_theme_members": self.members}


@dataclass(frozen=True)
class SnapshotTables:
    """Everything one snapshot holds. Rows of chunks, metrics, edges and evidence whose filing
    is not in `filings` are dropped by `consistent()`: a citation must always resolve (an edge
    whose evidence all goes is dropped with it; superseded_by links to a dropped edge are
    cleared)."""

    filings: pl.DataFrame
    chunks: pl.DataFrame
    metric_observations: pl.DataFrame
    companies: pl.DataFrame
    company_aliases: pl.DataFrame
    registrants: pl.DataFrame
    edges: pl.DataFrame
    edge_evidence: pl.DataFrame
    # The resolved entities every edge points at, and every name they are found under.
    nodes: pl.DataFrame
    entity_aliases: pl.DataFrame
    # Mentions waiting in the graph stage's review queue (recorded in the manifest).
    review_queue_size: int = 0
    # The chunk index version holding these chunks (None: published without passage search).
    chunk_index: ChunkIndexRef | None = None
    # Communities and their reports (None: a snapshot built without them publishes none).
    communities: CommunityTables | None = None
    # Filings left out because they failed their own checks (recorded in the manifest).
    excluded: tuple[ExcludedFiling, ...] = ()
    # Every numeric XBRL fact, searchable (graphrag_core.xbrl.segments.company_facts; None:
    # published with the table empty).
    company_facts: pl.DataFrame | None = None
    # The primary statements' lines as filed (graphrag_core.xbrl.statements; None: none built).
    statement_lines: pl.DataFrame | None = None
    # Themes from the filings' own risk factors (None: published without them).
    filing_themes: ThemeTables | None = None

    def consistent(self) -> SnapshotTables:
        ids = self.filings.select("filing_id")
        evidence = self.edge_evidence.join(ids, on="filing_id", how="semi")
        # An edge with no evidence left cites nothing: it is not published.
        edges = self.edges.join(evidence.select("edge_id").unique(), on="edge_id", how="semi")
        if "superseded_by" in edges.columns and edges.height < self.edges.height:
            kept = edges.get_column("edge_id")
            edges = edges.with_columns(
                superseded_by=pl.when(pl.col("superseded_by").is_in(kept.implode())).then(
                    pl.col("superseded_by")
                )
            )
        communities = self.communities
        if communities is not None:
            communities = communities.consistent(
                ids, evidence.select("evidence_id"), self.nodes.select("entity_id")
            )
        statement_lines = self.statement_lines
        if statement_lines is not None:
            statement_lines = statement_lines.join(ids, on="filing_id", how="semi")
        return replace(
            self,
            filing_themes=None
            if self.filing_themes is None
            else self.filing_themes.consistent(ids),
            statement_lines=statement_lines,
            chunks=self.chunks.join(ids, on="filing_id", how="semi"),
            metric_observations=self.metric_observations.join(ids, on="filing_id", how="semi"),
            edge_evidence=evidence,
            edges=edges,
            communities=communities,
            company_facts=None
            if self.company_facts is None
            else self.company_facts.join(ids, on="filing_id", how="semi"),
        )

    def frames(self) -> dict[str, pl.DataFrame]:
        """Name → frame, in a fixed order (what the content digest is computed over)."""
        return {
            "filings": self.filings,
            "chunks": self.chunks,
            "metric_observations": self.metric_observations,
            "companies": self.companies,
            "company_aliases": self.company_aliases,
            "registrants": self.registrants,
            "edges": self.edges,
            "edge_evidence": self.edge_evidence,
            "nodes": self.nodes,
            "entity_aliases": self.entity_aliases,
            **(self.communities.frames() if self.communities is not None else {}),
            **({"company_facts": self.company_facts} if self.company_facts is not None else {}),
            **(
                {"statement_lines": self.statement_lines}
                if self.statement_lines is not None
                else {}
            ),
            **(self.filing_themes.frames() if self.filing_themes is not None else {}),
        }

    def as_of(self) -> dt.date | None:
        """The date the snapshot's knowledge runs to (see `as_of_basis`)."""
        return as_of_basis(self.filings)[0]


def as_of_basis(filings: pl.DataFrame) -> tuple[dt.date | None, str | None]:
    """The date the snapshot's knowledge runs to, and how it was derived: the newest date a
    filing of it is known by — its filing date, or, for a filing that carries none (a local
    file without EDGAR's index), the end of the period it reports, since it was filed after
    that. The newest filing date alone misstated it: local 10-Ks of fiscal 2023 beside two 8-Ks
    of 2022 gave an as_of in 2022 (issue 25). (None, None) when no filing has either date."""
    if filings.is_empty():
        return None, None
    cols = set(filings.columns)
    rows = (
        filings.select(
            pl.col("filing_id"),
            pl.col("form") if "form" in cols else pl.lit(None, pl.String).alias("form"),
            pl.col("company") if "company" in cols else pl.lit(None, pl.String).alias("company"),
            pl.col("filed_date").cast(pl.Date),
            (pl.col("period_end") if "period_end" in cols else pl.lit(None))
            .cast(pl.Date)
            .alias("period_end"),
        )
        .with_columns(
            known=pl.coalesce("filed_date", "period_end"),
            by_filing=pl.col("filed_date").is_not_null(),
        )
        .filter(pl.col("known").is_not_null())
    )
    if rows.is_empty():
        return None, None
    # The newest date; a filing date beats a period end on the same day (it is the stronger fact).
    best = rows.sort(["known", "by_filing", "filing_id"], descending=[True, True, False]).row(
        0, named=True
    )
    what = " ".join(str(x) for x in (best["form"], best["filing_id"]) if x) + (
        f" ({best['company']})" if best["company"] else ""
    )
    if best["by_filing"]:
        return best["known"], f"filing date of {what}"
    return best[
        "known"
    ], f"end of the period reported by {what}, which carries no filing date (it was filed after)"
