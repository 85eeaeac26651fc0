"""The SQL of the knowledge-graph tools (neighbors, graph_path, get_ontology, the graph side of
find_company and explore_company, local search and shared neighbours). Constants with `$named`
parameters, as in `mcp_server.queries`: tool arguments only ever arrive as parameter values."""

from __future__ import annotations

# -- the knowledge graph ----------------------------------------------------------------------
# Traversal reads graph_adjacency (every edge from both ends, ordered by entity, so one step is
# a pruned range scan). Relations in $hidden (REPORTS_METRIC, GUIDES: every company reports
# revenue) are skipped unless asked for by name.
ENTITY = """
SELECT entity_id, entity_type, name, cik, description, degree, tickers, adjacency_ord
FROM nodes WHERE entity_id = $entity_id
"""

# Time on the graph (issue 25; mcp_server.graph_time sets the parameters, all null for none).
# $period, a fiscal label: the edge's own period, or the period of a filing that states it.
# [$range_start, $range_end], a calendar range: the edge's calendar range, or the span of a
# filing that states it, shares at least half of the shorter of the two (NVIDIA's fiscal 2025,
# February 2024 to January 2025, is calendar 2024; its fiscal 2024 is not).
# (least/greatest skip nulls in DuckDB: an undated edge is guarded, not compared.)
# $known_by, an as-of date: the edge was first filed on or before it; a restatement filed after
# it does not yet supersede the edge (_CURRENT).
HALF_OVERLAP = """(2 * (least({e}, $range_end::DATE) - greatest({s}, $range_start::DATE) + 1)
            >= least({e} - {s} + 1, $range_end::DATE - $range_start::DATE + 1))"""
_TIME_FILTER = f"""
    (CAST($period AS VARCHAR) IS NULL OR {{a}}.period = $period
     OR list_contains({{a}}.seen_periods, $period))
    AND (CAST($range_start AS DATE) IS NULL
         OR ({{a}}.calendar_start IS NOT NULL AND {{a}}.calendar_end IS NOT NULL
             AND {HALF_OVERLAP.format(s="{a}.calendar_start", e="{a}.calendar_end")})
         OR len(list_filter(
                {{a}}.stated_spans,
                lambda x: {HALF_OVERLAP.format(s="x.span_start", e="x.span_end")})) > 0)
    AND (CAST($known_by AS DATE) IS NULL OR {{a}}.first_filed <= $known_by::DATE)
"""
_CURRENT = "(NOT {a}.superseded OR coalesce({a}.superseded_on > $known_by::DATE, false))"
_ADJACENCY_FILTER = f"""
    ((CAST($relation AS VARCHAR) IS NULL AND NOT list_contains($hidden, {{a}}.relation))
     OR {{a}}.relation = $relation)
    AND ($direction = 'both' OR {{a}}.direction = $direction)
    AND {_TIME_FILTER}
    AND ($include_superseded OR {_CURRENT})
"""
_ADJ_COLUMNS = """
    {a}.edge_id, {a}.entity_id, {a}.neighbor_id, {a}.neighbor_name, {a}.neighbor_type,
    {a}.direction, {a}.relation, {a}.period, {a}.calendar_start, {a}.calendar_end, {a}.value,
    {a}.unit, {a}.evidence_count, {a}.filing_count, {a}.first_filed, {a}.last_filed,
    {a}.seen_periods, {a}.superseded_by, {a}.value_low, {a}.value_high, {a}.bound
"""

NEIGHBORS = f"""
SELECT {_ADJ_COLUMNS.format(a="a")}
FROM graph_adjacency a
WHERE a.entity_ord = $ord AND a.entity_id = $entity_id AND {_ADJACENCY_FILTER.format(a="a")}
ORDER BY a.entity_rank
LIMIT $limit
"""

# Two hops: the strongest first hops (at most $fanout middle nodes), then from each middle node
# its strongest edges (at most $per_middle), never back to where it started. The filters apply
# to both hops. Rows carry both edges: first_* the hop to the middle node, the rest the second.
# Scans filter on entity_ord ($ord: nodes.adjacency_ord of the entity), whose row-group min/max
# is exact, so they read only the row groups of the entity and its middle nodes. Ranking and
# joining carry only rowid and integer sort keys: entity_rank orders an entity's rows as
# (superseded, evidence_count DESC, edge_id) does, edge_ord orders edge ids, and neighbor_ord
# names the neighbor; so the top $per_middle rows per middle node are kept by a top-n aggregate
# (DuckDB rewrites the row_number filter on one integer key) rather than a window sort over
# strings. The wide columns (names, lists) are fetched by rowid for the rows returned.
NEIGHBORS_2 = f"""
WITH h1 AS (
    SELECT a.rowid AS rid, a.edge_ord, a.neighbor_ord, a.evidence_count
    FROM graph_adjacency a
    WHERE a.entity_ord = $ord AND a.entity_id = $entity_id AND {_ADJACENCY_FILTER.format(a="a")}
    ORDER BY a.entity_rank
    LIMIT $fanout
),
h2 AS (
    SELECT b.rowid AS rid, b.entity_ord, b.edge_ord, b.evidence_count
    FROM graph_adjacency b
    WHERE b.entity_ord IN (SELECT neighbor_ord FROM h1) AND b.neighbor_ord <> $ord
      AND {_ADJACENCY_FILTER.format(a="b")}
    QUALIFY row_number() OVER (PARTITION BY b.entity_ord ORDER BY b.entity_rank) <= $per_middle
),
top AS (
    SELECT h1.rid AS rid1, h2.rid AS rid2,
           row_number() OVER (ORDER BY least(h1.evidence_count, h2.evidence_count) DESC,
                                       h1.evidence_count DESC, h1.edge_ord, h2.edge_ord) AS k
    FROM h1 JOIN h2 ON h2.entity_ord = h1.neighbor_ord AND h2.edge_ord <> h1.edge_ord
    ORDER BY k
    LIMIT $limit
)
SELECT a.edge_id AS first_edge_id, a.neighbor_name AS via_name, a.neighbor_type AS via_type,
       a.direction AS first_direction, a.relation AS first_relation, a.period AS first_period,
       a.calendar_start AS first_calendar_start, a.calendar_end AS first_calendar_end,
       a.value AS first_value, a.unit AS first_unit, a.evidence_count AS first_evidence_count,
       a.filing_count AS first_filing_count, a.first_filed AS first_first_filed,
       a.last_filed AS first_last_filed, a.seen_periods AS first_seen_periods,
       a.superseded_by AS first_superseded_by, a.value_low AS first_value_low,
       a.value_high AS first_value_high, a.bound AS first_bound, {_ADJ_COLUMNS.format(a="b")}
FROM top JOIN graph_adjacency a ON a.rowid = top.rid1 JOIN graph_adjacency b ON b.rowid = top.rid2
ORDER BY top.k
"""

EDGES_BY_ID = """
SELECT e.edge_id, e.subject_id, s.name AS subject_name, s.entity_type AS subject_type, e.relation,
       e.object_id, o.name AS object_name, o.entity_type AS object_type, e.period,
       e.calendar_start, e.calendar_end, e.value, e.unit, e.evidence_count, e.filing_count,
       e.first_filed, e.last_filed, e.seen_periods, e.superseded_by, e.value_low, e.value_high,
       e.bound
FROM edges e JOIN nodes s ON s.entity_id = e.subject_id JOIN nodes o ON o.entity_id = e.object_id
WHERE e.edge_id IN (SELECT unnest($edge_ids))
"""

# list_contains on a parameter list becomes an IN filter of the scan, checked against each row
# group's min/max (a semi join on unnest() prunes only by the ids' overall min/max).
EDGE_CITATIONS = """
SELECT edge_id, filing_id, form, filed_date, section, chunk_id, quote, subject_text, object_text,
       fact_id, concept, method, confidence
FROM edge_evidence
WHERE list_contains($edge_ids, edge_id) AND citation_rank <= $per_edge
ORDER BY edge_id, citation_rank
"""

# One breadth-first step of graph_path: the strongest current edges of each frontier node.
# The frontier comes as entity ordinals (a parameter list is an IN filter checked against each
# row group's exact min/max: only the frontier's row groups are read); among current rows,
# entity_rank orders as (evidence_count DESC, edge_id) does.
PATH_STEP = f"""
SELECT a.entity_id, a.neighbor_id, a.neighbor_ord, a.edge_id
FROM graph_adjacency a
WHERE list_contains($frontier, a.entity_ord) AND {_CURRENT.format(a="a")}
  AND {_TIME_FILTER.format(a="a")}
  AND NOT list_contains($hidden, a.relation)
  AND ($through_risks OR a.neighbor_type <> 'risk')
QUALIFY row_number() OVER (PARTITION BY a.entity_ord ORDER BY a.entity_rank) <= $fanout
"""

ENTITY_TYPE_COUNTS = "SELECT entity_type, count(*)::BIGINT AS n FROM nodes GROUP BY 1 ORDER BY 1"
RELATION_COUNTS = """
SELECT relation, count(*)::BIGINT AS edges,
       count(*) FILTER (WHERE superseded_by IS NULL)::BIGINT AS current,
       sum(evidence_count)::BIGINT AS citations
FROM edges GROUP BY relation ORDER BY relation
"""
RISK_TAXONOMY = """
SELECT n.entity_id, n.name AS label, n.description,
       (SELECT count(DISTINCT a.neighbor_id) FROM graph_adjacency a
        WHERE a.entity_id = n.entity_id AND a.relation = 'EXPOSED_TO_RISK'
          AND a.direction = 'in') AS companies
FROM nodes n WHERE n.entity_type = 'risk' ORDER BY n.entity_id
"""

# Organizations and risks by name (companies are found by FIND_COMPANY); same scores.
FIND_ENTITY = """
WITH hits AS (
    SELECT entity_id, alias, kind,
        CASE
            WHEN alias_norm = $norm OR alias_compact = $compact THEN
                CASE kind WHEN 'name' THEN 0.97 WHEN 'curated' THEN 0.95 WHEN 'risk_label' THEN 0.95
                          ELSE 0.90 END
            WHEN length($norm) >= 3
                 AND (starts_with(alias_norm, $norm) OR starts_with(alias_compact, $compact))
                 THEN 0.80
            WHEN length($norm) >= 3 AND contains(' ' || alias_norm || ' ', ' ' || $norm || ' ')
                 THEN 0.62
        END AS score
    FROM entity_aliases
)
SELECT n.entity_id, n.entity_type, n.name, n.degree, max(h.score) AS score,
       arg_max(h.alias, h.score) AS matched_alias, arg_max(h.kind, h.score) AS matched_kind
FROM hits h JOIN nodes n USING (entity_id)
WHERE h.score IS NOT NULL
GROUP BY ALL
ORDER BY score DESC, n.degree DESC, n.entity_id
LIMIT $limit
"""

SUGGEST_ENTITY = """
SELECT n.entity_id, n.name, n.degree,
       max(jaro_winkler_similarity(a.alias_norm, $norm)) AS similarity
FROM entity_aliases a JOIN nodes n USING (entity_id)
GROUP BY ALL HAVING similarity >= $threshold
ORDER BY similarity DESC, n.degree DESC, n.entity_id LIMIT $limit
"""

# A company's own rows are read by its ordinal ($ord: nodes.adjacency_ord), as neighbors does.
COMPANY_RELATIONS = f"""
SELECT a.edge_id
FROM graph_adjacency a
WHERE a.entity_ord = $ord AND a.entity_id = $entity_id AND {_CURRENT.format(a="a")}
  AND {_TIME_FILTER.format(a="a")}
  AND NOT list_contains($hidden, a.relation) AND a.relation <> 'EXPOSED_TO_RISK'
ORDER BY a.evidence_count DESC, a.last_filed DESC NULLS LAST, a.edge_id
LIMIT $limit
"""

COMPANY_RISKS = f"""
SELECT a.edge_id, a.neighbor_id, a.neighbor_name AS name, a.evidence_count, a.phrases, a.last_filed
FROM graph_adjacency a
WHERE a.entity_ord = $ord AND a.entity_id = $entity_id AND a.relation = 'EXPOSED_TO_RISK'
  AND a.direction = 'out' AND a.neighbor_type = 'risk' AND {_CURRENT.format(a="a")}
  AND {_TIME_FILTER.format(a="a")}
ORDER BY a.evidence_count DESC, a.neighbor_id
LIMIT $limit
"""

# Peers: companies and organizations that share this company's suppliers (S SUPPLIES both),
# customers (C CUSTOMER_OF both) or risk categories (both EXPOSED_TO_RISK R). A shared supplier
# or customer counts 3, a shared risk 1. Two statements: the company's shared nodes first
# (PEER_LINKS, by its ordinal), then their rows by the shared nodes' ordinals as a parameter
# list (pruned per row group; a join on them prunes only by their overall min/max).
PEER_LINKS = f"""
SELECT DISTINCT a.neighbor_ord AS shared_ord, a.relation, a.direction
FROM graph_adjacency a
WHERE a.entity_ord = $ord AND a.entity_id = $entity_id AND {_CURRENT.format(a="a")}
  AND {_TIME_FILTER.format(a="a")}
  AND ((a.relation IN ('SUPPLIES', 'CUSTOMER_OF') AND a.direction = 'in')
       OR (a.relation = 'EXPOSED_TO_RISK' AND a.direction = 'out'))
"""
COMPANY_PEERS = f"""
WITH mine AS (
    SELECT CASE WHEN relation = 'SUPPLIES' THEN 'supplier'
                WHEN relation = 'CUSTOMER_OF' THEN 'customer'
                ELSE 'risk' END AS kind,
           shared_ord, relation, direction
    FROM (SELECT unnest($links, recursive := true))
),
shared AS (
    SELECT m.kind, b.entity_id AS shared_id, b.neighbor_id AS peer_id
    FROM mine m JOIN graph_adjacency b
      ON b.entity_ord = m.shared_ord AND b.relation = m.relation AND b.direction <> m.direction
    WHERE list_contains($shared, b.entity_ord) AND b.neighbor_id <> $entity_id
      AND {_CURRENT.format(a="b")} AND {_TIME_FILTER.format(a="b")}
)
SELECT s.peer_id, p.name AS peer_name, p.entity_type AS peer_type,
       list(DISTINCT s.shared_id) FILTER (WHERE s.kind = 'supplier') AS suppliers,
       list(DISTINCT s.shared_id) FILTER (WHERE s.kind = 'customer') AS customers,
       list(DISTINCT s.shared_id) FILTER (WHERE s.kind = 'risk') AS risks,
       (3 * count(DISTINCT s.shared_id) FILTER (WHERE s.kind <> 'risk')
        + count(DISTINCT s.shared_id) FILTER (WHERE s.kind = 'risk'))::INTEGER AS score
FROM shared s JOIN nodes p ON p.entity_id = s.peer_id
WHERE p.entity_type IN ('company', 'organization')
GROUP BY ALL
ORDER BY score DESC, s.peer_id
LIMIT $limit
"""

# The one query graph expansion goes through: current edges with one of these entities as
# subject or object, or stated by a filing of one of these companies; strongest first.
GRAPH_EDGES_FOR_ENTITIES = f"""
SELECT e.edge_id, e.subject_id, e.object_id
FROM edges e
WHERE (e.superseded_by IS NULL OR coalesce(e.superseded_on > $known_by::DATE, false))
  AND NOT list_contains($hidden, e.relation) AND {_TIME_FILTER.format(a="e")}
  AND (list_contains($entity_ids, e.subject_id) OR list_contains($entity_ids, e.object_id)
       OR list_has_any($entity_ids, e.stated_by))
ORDER BY e.evidence_count DESC, e.edge_id
LIMIT $limit
"""

NODE_NAMES = (
    "SELECT entity_id, entity_type, name FROM nodes WHERE entity_id IN (SELECT unnest($ids))"
)


# -- time on the graph: what was known on a date (issue 25; mcp_server.graph_time) ----------
# The newest citations per edge kept under as_of, and the tallies recounted over them.
KNOWN_CITATIONS = """
WITH known AS (
    SELECT v.*, row_number() OVER (PARTITION BY v.edge_id ORDER BY v.citation_rank) AS known_rank
    FROM edge_evidence v
    WHERE list_contains($edge_ids, v.edge_id) AND v.filed_date <= $known_by::DATE
),
tally AS (
    SELECT edge_id, count(*)::INTEGER AS evidence_count,
           count(DISTINCT filing_id)::INTEGER AS filing_count, max(filed_date) AS last_filed
    FROM known GROUP BY edge_id
)
SELECT k.edge_id, k.filing_id, k.form, k.filed_date, k.section, k.chunk_id, k.quote,
       k.subject_text, k.object_text, k.fact_id, k.concept, k.method, k.confidence, k.known_rank,
       t.evidence_count, t.filing_count, t.last_filed
FROM known k JOIN tally t USING (edge_id)
ORDER BY k.edge_id, k.known_rank
"""
SUPERSEDED_ON = """
SELECT edge_id, superseded_on FROM edges WHERE list_contains($edge_ids, edge_id)
"""


# -- local search (issue 24 item 3) -------------------------------------------------------------
# The communities an entity belongs to, deepest level first (the most focused report), with the
# report's columns community_themes reads; withheld reports have no row in community_reports.
LOCAL_COMMUNITIES = """
SELECT c.community_id, c.level, c.companies, r.title, r.summary, r.impact_rating,
       r.impact_explanation, r.members, r.sector_mix, r.risks, r.member_companies, r.stale,
       r.as_of, r.graph_version, m.entity_id AS member_id, m.weight
FROM community_members m
JOIN communities c USING (community_id)
JOIN community_reports r USING (community_id)
WHERE list_contains($entity_ids, m.entity_id) AND coalesce(c.report_status, '') <> 'withheld'
ORDER BY c.level DESC, m.weight DESC, c.community_id
LIMIT $limit
"""

# The top findings of those communities with the citations they rest on.
LOCAL_COMMUNITY_FINDINGS = """
SELECT community_id, rank, statement, citations, kind, relation, anchor_name, partners
FROM community_findings
WHERE list_contains($ids, community_id) AND rank <= $per_community
ORDER BY community_id, rank
"""

# Form, section and filing date of cited chunks (community citations store only the chunk).
CITED_CHUNK_DETAILS = """
SELECT c.chunk_id, c.section, f.form, f.filed_date
FROM chunks c JOIN filings f USING (filing_id)
WHERE list_contains($chunks, c.chunk_id)
"""
