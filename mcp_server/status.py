"""The status family: status (what the snapshot holds and how fresh it is) and get_ontology
(the knowledge graph's vocabulary: entity types, relations, the risk taxonomy)."""

from __future__ import annotations

from graphrag_core.store.reader import GRAPH_ENTITY_TYPES, GRAPH_RELATIONS
from mcp_server import graph_queries, queries
from mcp_server.context import ToolContext, stamp
from mcp_server.graph_models import OntologyResult, RelationCount, RiskCategoryInfo, TypeCount
from mcp_server.models import MetricInfo, StatusResult, TableInfo


class StatusTools:
    """status and get_ontology over `ctx`'s reader."""

    def __init__(self, ctx: ToolContext):
        self.ctx = ctx

    def get_ontology(self) -> OntologyResult:
        """What the knowledge graph is made of: entity types and relation types with how many
        there are, and the risk taxonomy with how many entities each category covers.

        Call it before a graph question to learn the vocabulary: relation names for
        neighbors(relation=…), RISK:… ids for "who is exposed to …", and what each entity type
        means (company = SEC registrant by CIK; organization = a company that files nothing with
        the SEC; risk = a category of the curated taxonomy; metric = a reported metric).
        """
        with self.ctx.lease() as snap:
            types = {r["entity_type"]: r["n"] for r in snap.query(graph_queries.ENTITY_TYPE_COUNTS)}
            relations = {r["relation"]: r for r in snap.query(graph_queries.RELATION_COUNTS)}
            return OntologyResult(
                **stamp(snap),
                entity_types=[
                    TypeCount(name=k, description=d, count=types.get(k, 0))
                    for k, d in GRAPH_ENTITY_TYPES.items()
                ],
                relations=[
                    RelationCount(
                        relation=k,
                        description=d,
                        edges=relations.get(k, {}).get("edges", 0),
                        current=relations.get(k, {}).get("current", 0),
                        citations=relations.get(k, {}).get("citations", 0) or 0,
                    )
                    for k, d in GRAPH_RELATIONS.items()
                ],
                risk_taxonomy=[
                    RiskCategoryInfo(**r) for r in snap.query(graph_queries.RISK_TAXONOMY)
                ],
                review_queue=snap.manifest.review_queue,
            )

    def status(self) -> StatusResult:
        """What the snapshot behind these tools holds and how fresh it is.

        Returns the snapshot version, `as_of` (the date its knowledge runs to: the newest
        filing date, or the period end of a filing that carries no date; nothing later is
        known) with `as_of_basis` saying which filing it comes from, when and by which code it
        was built, how many companies and
        filings (by form) it has, what each table holds, and every metric id with its units,
        coverage and period range. Call it when the user asks how current the data is, which
        metrics exist, or before saying that something is not in the data.
        """
        with self.ctx.lease() as snap:
            info = snap.query(queries.STATUS_INFO)[0]
            manifest = snap.manifest
            forms = {r["form"]: r["filings"] for r in snap.query(queries.STATUS_FORMS)}
            return StatusResult(
                **stamp(snap),
                as_of_basis=manifest.as_of_basis,
                built_at=info["built_at"],
                code_version=info["code_version"],
                companies=manifest.counts.get("companies", 0),
                filings=manifest.counts.get("filings", 0),
                forms=forms,
                tables=[
                    TableInfo(name=name, rows=manifest.counts.get(name, 0), holds=holds)
                    for name, holds in manifest.tables.items()
                ],
                metrics=[MetricInfo(**r) for r in snap.query(queries.STATUS_METRICS)],
            )
