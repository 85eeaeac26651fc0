"""Every SQL statement of the graph stage's working store (`graph_store.py`). All are constants
with `$named` parameters; a list of filings or keys is one list parameter (`$affected`,
`$filings`, `$keys`), never SQL text. New rows are read from the relation `fresh` (a Polars frame
registered for one INSERT: `DuckDBStore.insert`)."""

from __future__ import annotations

from graphrag_core.tables.schemas import EDGE_EVIDENCE

# -- schema and migration ----------------------------------------------------------------------
CLAIMS_TABLE_EXISTS = "SELECT count(*) FROM information_schema.tables WHERE table_name = 'claims'"
# How many of the claim columns added after a store was built (`$columns`) its claims table has.
CLAIM_COLUMNS_PRESENT = """
SELECT count(*) FROM information_schema.columns
WHERE table_name = 'claims' AND list_contains($columns, column_name)
"""
# Every filing is read again: its partitions did not change, but what its claims carry did.
FORGET_SIGNATURES = "UPDATE filings SET signature = '', digest = ''"

# -- resolved_entities: the filings and their claims -------------------------------------------
STORED_FILINGS = "SELECT filing_id, signature, digest, cik, company, filed_date FROM filings"
UPDATE_SIGNATURE = "UPDATE filings SET signature = $signature WHERE filing_id = $filing_id"
DELETE_CLAIMS_OF = "DELETE FROM claims WHERE filing_id IN (SELECT unnest($filings))"
DELETE_FILINGS_OF = "DELETE FROM filings WHERE filing_id IN (SELECT unnest($filings))"
INSERT_FILINGS = "INSERT INTO filings SELECT * FROM fresh"
INSERT_CLAIMS = "INSERT INTO claims SELECT * FROM fresh"

# -- resolved_entities: names and mentions -------------------------------------------------------
DELETE_REFERENCE_NAMES = "DELETE FROM name_index WHERE source = 'reference'"
FILER_NAMES = "SELECT entity_id, alias FROM name_index WHERE source = 'filer'"
# Filer names no longer wanted ($wanted: entity id and name joined by the unit separator).
DELETE_FILER_NAMES_NOT_IN = """
DELETE FROM name_index WHERE source = 'filer'
  AND entity_id || chr(31) || alias NOT IN (SELECT unnest($wanted))
"""
NAME_ROWS = """
SELECT entity_id, alias, kind, norm, variants FROM name_index
ORDER BY source = 'filer', position
"""
LAST_NAME_POSITION = "SELECT coalesce(max(position), 0) FROM name_index"
INSERT_NAMES = "INSERT INTO name_index SELECT * FROM fresh"
# Organizations already known by a legal-form or provisional name: the lowest text of each.
KNOWN_ORGANIZATIONS = """
SELECT entity_id, min(text) FROM mentions
WHERE (method LIKE 'legal_form%' OR method LIKE 'provisional_org%') AND entity_id LIKE 'ORG:%'
GROUP BY entity_id
"""
MENTIONS_AMONG = "SELECT mention_key FROM mentions WHERE list_contains($keys, mention_key)"
ALL_MENTIONS = "SELECT * FROM mentions"
UNRESOLVED_MENTIONS = "SELECT * FROM mentions WHERE status <> 'resolved'"
DELETE_FRESH_MENTIONS = "DELETE FROM mentions WHERE mention_key IN (SELECT mention_key FROM fresh)"
INSERT_MENTIONS = "INSERT INTO mentions SELECT * FROM fresh"
DELETE_STATIC = "DELETE FROM static_entities"
INSERT_STATIC = "INSERT INTO static_entities SELECT * FROM fresh"

# -- knowledge_graph -----------------------------------------------------------------------------
# The evidence of the affected filings as it was (its edges are re-aggregated).
CREATE_OLD_EDGES = """
CREATE OR REPLACE TEMP TABLE old_edges AS
SELECT DISTINCT edge_id, statement_key, subject_id, object_id, filer_id
FROM edge_evidence WHERE filing_id IN (SELECT unnest($affected))
"""
DELETE_EVIDENCE_OF_AFFECTED = (
    "DELETE FROM edge_evidence WHERE filing_id IN (SELECT unnest($affected))"
)
DELETE_TOUCHED_EDGES = "DELETE FROM edges WHERE edge_id IN (SELECT edge_id FROM touched)"
NEXT_UPDATE_ID = "SELECT coalesce(max(update_id), 0) + 1 FROM graph_updates"
INSERT_CHANGES = """
INSERT INTO graph_changes SELECT $update_id, entity_id FROM (
    SELECT subject_id AS entity_id FROM touched UNION SELECT object_id FROM touched
) WHERE entity_id IS NOT NULL ORDER BY entity_id
"""
INSERT_UPDATE = "INSERT INTO graph_updates VALUES ($update_id, $filings, $edges, $entities)"
UNRESOLVED_CLAIMS = "SELECT coalesce(sum(unresolved), 0) FROM filings"

# -- reading -------------------------------------------------------------------------------------
NODES = "SELECT * FROM entities ORDER BY entity_id"
EDGES = "SELECT * FROM edges ORDER BY edge_id"
EVIDENCE = f"SELECT {', '.join(EDGE_EVIDENCE)} FROM edge_evidence ORDER BY edge_id, evidence_id"
ALIASES = "SELECT * FROM entity_aliases ORDER BY entity_id, kind, alias_norm"
MENTIONS = "SELECT * FROM mentions ORDER BY mention_key"
ENTITY_IDS = "SELECT entity_id FROM entities"
# A review-queue mention by its id, a prefix of it, or its exact text.
REVIEW_ITEM = """
SELECT mention_key, text, role, review_reason, status FROM mentions
WHERE review_reason IS NOT NULL AND (starts_with(mention_key, $ref) OR text = $ref)
"""
CHANGES_SINCE = """
SELECT * FROM graph_changes WHERE update_id > $update_id ORDER BY update_id, entity_id
"""
UPDATES_SINCE = "SELECT * FROM graph_updates WHERE update_id > $update_id ORDER BY update_id"
EDGES_WITHOUT_EVIDENCE = """
SELECT count(*) FROM edges WHERE edge_id NOT IN (SELECT edge_id FROM edge_evidence)
"""
EVIDENCE_WITHOUT_EDGE = """
SELECT count(*) FROM edge_evidence WHERE edge_id NOT IN (SELECT edge_id FROM edges)
"""
EVIDENCE_WITHOUT_FILING = """
SELECT count(*) FROM edge_evidence WHERE filing_id NOT IN (SELECT filing_id FROM filings)
"""
MISCOUNTED_EDGES = """
SELECT count(*) FROM edges e
JOIN (SELECT edge_id, count(*) AS n FROM edge_evidence GROUP BY edge_id) c USING (edge_id)
WHERE c.n <> e.evidence_count
"""
DANGLING_SUPERSESSION = """
SELECT count(*) FROM edges
WHERE superseded_by IS NOT NULL AND superseded_by NOT IN (SELECT edge_id FROM edges)
"""
EDGE_COUNT = "SELECT count(*) FROM edges"
NODES_BY_TYPE = "SELECT entity_type, count(*) FROM entities GROUP BY 1 ORDER BY 1"
EDGES_BY_RELATION = "SELECT relation, count(*) FROM edges GROUP BY 1 ORDER BY 1"
SUPERSEDED_EDGES = "SELECT count(*) FROM edges WHERE superseded_by IS NOT NULL"
EVIDENCE_COUNT = "SELECT count(*) FROM edge_evidence"
CLAIMED_MENTIONS = """
SELECT count(*) FROM (SELECT subject_key FROM claims UNION SELECT object_key FROM claims)
"""

# -- the statements of an update, and the views ------------------------------------------------
# Ids are hashes of their parts joined by the unit separator (as common.ids.content_hash does);
# values enter as '%.15g' text so that an id never depends on float formatting of a version.
_EDGE_KEY = (
    "concat_ws(chr(31), s.entity_id, c.relation, o.entity_id, "
    "coalesce(c.period, '') || CASE WHEN c.source = 'xbrl' "
    "THEN '|' || coalesce(c.calendar_start::VARCHAR, '') "
    "|| '|' || coalesce(c.calendar_end::VARCHAR, '') ELSE '' END"
)
# A range's ends and a bound are part of what an edge states ("between $151.0 and $155.5
# billion" is not "between $150 and $160 billion"; "exceed $11 billion" is not "$11 billion"):
# empty for a plain figure, so the id of every edge without them is what it always was.
_FIGURE_SHAPE = (
    "CASE WHEN c.value_low IS NULL AND c.value_high IS NULL THEN '' ELSE '|' || "
    "coalesce(printf('%.15g', c.value_low), '') || '|' || "
    "coalesce(printf('%.15g', c.value_high), '') END "
    "|| CASE WHEN c.bound IS NULL THEN '' ELSE '|' || c.bound END"
)
EVIDENCE_OF_AFFECTED = f"""
SELECT substr(sha256(concat_ws(chr(31), edge_id, claim_id)), 1, 24) AS evidence_id,
       * EXCLUDE (claim_id)
FROM (
    SELECT
        substr(sha256({_EDGE_KEY},
               CASE WHEN c.value IS NULL THEN '' ELSE printf('%.15g', c.value) END
               || '|' || coalesce(c.unit, '') || {_FIGURE_SHAPE})), 1, 24) AS edge_id,
        c.claim_id, c.filing_id, c.filer_id, c.chunk_id, c.quote, c.char_start, c.char_end,
        c.subject_text, c.object_text, c.observation_id, c.fact_id, c.concept,
        s.entity_id AS subject_id, c.relation, o.entity_id AS object_id, c.period,
        c.calendar_start, c.calendar_end, c.value, c.unit, c.source,
        substr(sha256({_EDGE_KEY}, coalesce(c.unit, ''))), 1, 24) AS statement_key,
        c.adjustment, c.value_low, c.value_high, c.bound, c.method, c.confidence
    FROM claims c
    JOIN mentions s ON s.mention_key = c.subject_key AND s.status = 'resolved'
    JOIN mentions o ON o.mention_key = c.object_key AND o.status = 'resolved'
    WHERE c.filing_id IN (SELECT unnest($affected))
      -- a relation of an entity with itself says nothing ("NVIDIA competes with NVIDIA")
      AND s.entity_id <> o.entity_id
)
"""

# The filings whose evidence an update re-derives: those whose claims changed since the last
# graph update ($graph_seq), those gone (evidence left, filing not), and those whose claims name a
# mention whose resolution changed. One statement: a check first and an insert after cost more.
# The statements after it take these filings as the list parameter $affected.
AFFECTED_FILINGS = """
SELECT filing_id FROM filings WHERE seq > $graph_seq
UNION SELECT filing_id FROM edge_evidence WHERE filing_id NOT IN (SELECT filing_id FROM filings)
-- as semi joins against the changed mentions: when there are none (most updates), DuckDB
-- skips the scan of the claims (an OR of two IN subqueries scanned them: 30 ms at 1.6M claims)
UNION SELECT c.filing_id FROM claims c
SEMI JOIN (SELECT mention_key FROM mentions WHERE changed_seq > $graph_seq) m
    ON m.mention_key = c.subject_key
UNION SELECT c.filing_id FROM claims c
SEMI JOIN (SELECT mention_key FROM mentions WHERE changed_seq > $graph_seq) m
    ON m.mention_key = c.object_key
"""

# The scratch tables of one graph update, dropped in one statement (each is a round trip).
DROP_SCRATCH = "; ".join(f"DROP TABLE IF EXISTS temp.{name}" for name in ("old_edges", "touched"))

EDGES_OF_TOUCHED = """
WITH ev AS (
    SELECT e.*, f.filed_date, f.fiscal_label,
           coalesce(f.filed_date::VARCHAR, '0000-00-00') || e.filing_id AS ord
    FROM edge_evidence e LEFT JOIN filings f USING (filing_id)
    WHERE e.edge_id IN (SELECT edge_id FROM touched)
),
agg AS (
    SELECT edge_id, any_value(subject_id) AS subject_id, any_value(relation) AS relation,
           any_value(object_id) AS object_id, any_value(period) AS period,
           min(calendar_start) AS x_start, max(calendar_end) AS x_end,
           any_value(value) AS value, any_value(unit) AS unit, any_value(source) AS source,
           any_value(statement_key) AS statement_key,
           -- len(list_distinct(list(x))), not count(DISTINCT x): a distinct aggregate splits the
           -- grouping in two over a materialized copy of its input, a third of the cost here.
           count(*) AS evidence_count, len(list_distinct(list(filing_id))) AS filing_count,
           arg_min(filing_id, ord) AS first_filing_id, min(filed_date) AS first_filed,
           arg_max(filing_id, ord) AS last_filing_id, max(filed_date) AS last_filed,
           -- list_sort(list_distinct(list(x))): the distinct non-null values in order, as
           -- list(DISTINCT x ORDER BY x) FILTER (x IS NOT NULL) gives them, at half the cost
           -- (an ordered aggregate's setup was most of what re-aggregating a few edges cost).
           list_sort(list_distinct(list(fiscal_label))) AS seen_periods,
           list_sort(list_distinct(list(filer_id))) AS stated_by,
           list_sort(list_distinct(list(object_text))) AS phrases,
           max(adjustment) AS adjustment,
           arg_min(filer_id, ord) AS first_filer,
           -- part of the edge id: one value per edge
           any_value(value_low) AS value_low, any_value(value_high) AS value_high,
           any_value(bound) AS bound
    FROM ev GROUP BY edge_id
)
SELECT a.edge_id, a.subject_id, a.relation, a.object_id, a.period,
       CASE WHEN a.source = 'xbrl' THEN a.x_start ELSE k.calendar_start END,
       CASE WHEN a.source = 'xbrl' THEN a.x_end ELSE k.calendar_end END,
       a.value, a.unit, a.source, a.statement_key, a.evidence_count, a.filing_count,
       a.first_filing_id, a.first_filed, a.last_filing_id, a.last_filed,
       coalesce(a.seen_periods, []), coalesce(a.stated_by, []), a.phrases[1:5], a.adjustment,
       NULL AS superseded_by, a.value_low, a.value_high, a.bound
FROM agg a
LEFT JOIN filer_calendar k
    ON k.filer_id = a.first_filer AND k.period = a.period AND a.source = 'text'
"""

# The edges an update re-aggregates: those of the evidence it removed and added (an edge id fixes
# its statement, subject and object: one row per edge), and every dated text edge its filers
# state, whose calendar range comes from the filer's XBRL durations (`filer_calendar`), which
# these filings may have brought or taken away.
CREATE_TOUCHED = """
CREATE OR REPLACE TEMP TABLE touched AS
SELECT edge_id, statement_key, subject_id, object_id FROM old_edges
UNION SELECT edge_id, statement_key, subject_id, object_id FROM edge_evidence
      WHERE filing_id IN (SELECT unnest($affected))
UNION SELECT edge_id, statement_key, subject_id, object_id FROM edge_evidence
WHERE source = 'text' AND period IS NOT NULL
  AND filer_id IN (SELECT filer_id FROM old_edges
                   UNION SELECT filer_id FROM edge_evidence
                         WHERE filing_id IN (SELECT unnest($affected)))
"""

# Within one statement (subject, relation, object, period, unit), an edge is superseded by the
# edge of the next later filing date that states another value; values stated by the same
# latest filing are all current. Only the statements touched are looked at, and only edges whose
# link changes are written.
RELINK_SUPERSEDED = """
UPDATE edges SET superseded_by = n.next_id
FROM (
    WITH grp AS (
        SELECT edge_id, statement_key, coalesce(last_filed, DATE '0001-01-01') AS d
        FROM edges WHERE statement_key IN (SELECT statement_key FROM touched)
    )
    SELECT g.edge_id, x.next_id
    FROM grp g LEFT JOIN (
        SELECT e.edge_id, arg_min(f.edge_id, f.d::VARCHAR || f.edge_id) AS next_id
        FROM grp e JOIN grp f ON f.statement_key = e.statement_key AND f.d > e.d
        GROUP BY e.edge_id
    ) x USING (edge_id)
) n
WHERE edges.edge_id = n.edge_id AND edges.superseded_by IS DISTINCT FROM n.next_id
"""

ENTITIES_VIEW_BODY = """
WITH used AS (
    SELECT subject_key AS mention_key FROM claims UNION SELECT object_key FROM claims
),
resolved AS (
    SELECT m.entity_id, any_value(m.entity_type) AS entity_type, min(m.entity_name) AS name
    FROM mentions m SEMI JOIN used USING (mention_key)
    WHERE m.status = 'resolved' AND m.entity_id IS NOT NULL
    GROUP BY m.entity_id
),
filers AS (
    -- the name of the latest filing, the filing id breaking ties (as _filer_names does)
    SELECT filer_id AS entity_id,
           arg_max(company, (coalesce(filed_date, DATE '0001-01-01'), filing_id)) AS name
    FROM filings WHERE filer_id IS NOT NULL GROUP BY filer_id
),
static AS (
    SELECT entity_id, any_value(entity_type) AS entity_type, any_value(name) AS name,
           any_value(description) AS description, bool_or(always) AS always
    FROM static_entities GROUP BY entity_id
),
ids AS (
    SELECT entity_id FROM resolved UNION SELECT entity_id FROM filers
    UNION SELECT entity_id FROM static WHERE always
)
SELECT i.entity_id,
       coalesce(r.entity_type, s.entity_type,
                CASE WHEN f.entity_id IS NOT NULL THEN 'company' END) AS entity_type,
       coalesce(f.name, s.name, r.name, i.entity_id) AS name,
       CASE WHEN i.entity_id LIKE 'CIK-%' THEN substr(i.entity_id, 5) END AS cik,
       s.description,
       f.entity_id IS NOT NULL AS is_filer
FROM ids i
LEFT JOIN resolved r USING (entity_id)
LEFT JOIN filers f USING (entity_id)
LEFT JOIN static s USING (entity_id)
ORDER BY i.entity_id
"""

ENTITY_ALIASES_VIEW_BODY = """
SELECT entity_id, alias, alias_norm, alias_compact, kind
FROM (
    SELECT n.entity_id, x.alias, x.norm AS alias_norm,
           CASE WHEN x.kind = 'ticker' THEN x.norm ELSE replace(x.norm, ' ', '') END
               AS alias_compact,
           x.kind
    FROM name_index x JOIN entities n USING (entity_id)
    UNION ALL
    SELECT n.entity_id, s.alias, s.alias_norm, replace(s.alias_norm, ' ', ''), s.alias_kind
    FROM static_entities s JOIN entities n USING (entity_id)
    WHERE s.alias IS NOT NULL
    UNION ALL
    SELECT n.entity_id, m.text, m.text_norm, replace(m.text_norm, ' ', ''), 'mention'
    FROM mentions m JOIN entities n USING (entity_id)
    WHERE m.status = 'resolved' AND m.role = 'party' AND m.text_norm IS NOT NULL
      -- as the entities view: only what a current claim says (a removed filing's mentions
      -- stay resolved in the store, but are no one's alias once no claim makes them)
      AND m.mention_key IN (SELECT subject_key FROM claims UNION SELECT object_key FROM claims)
)
WHERE alias_norm IS NOT NULL AND alias_norm <> ''
QUALIFY row_number() OVER (PARTITION BY entity_id, alias_norm, kind ORDER BY alias) = 1
ORDER BY entity_id, kind, alias_norm
"""

ORGANISATION_CONTEXTS = """
WITH named AS (
    SELECT subject_id AS entity_id, quote, evidence_id FROM edge_evidence WHERE quote IS NOT NULL
    UNION ALL
    SELECT object_id, quote, evidence_id FROM edge_evidence WHERE quote IS NOT NULL
),
provisional AS (
    SELECT DISTINCT entity_id FROM mentions
    WHERE status = 'resolved' AND (starts_with(method, 'provisional_org') OR method = 'legal_form')
)
SELECT e.entity_id, e.entity_type, e.name, arg_min(n.quote, n.evidence_id) AS context,
       e.entity_id IN (SELECT entity_id FROM provisional) AS provisional
FROM entities e JOIN named n USING (entity_id)
WHERE e.entity_type IN ('company', 'organization')
GROUP BY ALL ORDER BY e.entity_id
"""

NAMED_TOGETHER = """
WITH sides AS (
    SELECT chunk_id, subject_id AS entity_id FROM edge_evidence WHERE quote IS NOT NULL
    UNION SELECT chunk_id, object_id FROM edge_evidence WHERE quote IS NOT NULL
)
SELECT DISTINCT x.entity_id AS a, y.entity_id AS b
FROM sides x JOIN sides y ON x.chunk_id = y.chunk_id AND x.entity_id < y.entity_id
UNION
SELECT least(subject_id, object_id), greatest(subject_id, object_id) FROM edge_evidence
WHERE quote IS NOT NULL AND subject_id <> object_id
UNION
-- siblings: one filing states the same relation to the same party for both (the subsidiaries
-- of its Exhibit 21, its competitors), however far apart in the filing
SELECT DISTINCT x.subject_id, y.subject_id FROM edge_evidence x JOIN edge_evidence y
  ON x.filing_id = y.filing_id AND x.relation = y.relation AND x.object_id = y.object_id
 AND x.subject_id < y.subject_id
WHERE x.quote IS NOT NULL AND y.quote IS NOT NULL
UNION
SELECT DISTINCT x.object_id, y.object_id FROM edge_evidence x JOIN edge_evidence y
  ON x.filing_id = y.filing_id AND x.relation = y.relation AND x.subject_id = y.subject_id
 AND x.object_id < y.object_id
WHERE x.quote IS NOT NULL AND y.quote IS NOT NULL AND x.relation <> 'EXPOSED_TO_RISK'
"""

# Claims per relation: accepted, published (both sides resolved), kept out by the organisation
# check (a side's reason is `not_org:…`), withheld otherwise.
PUBLICATION = """
SELECT c.relation, count(*) AS accepted,
       count(*) FILTER (WHERE s.status = 'resolved' AND o.status = 'resolved') AS published,
       count(*) FILTER (WHERE NOT (s.status = 'resolved' AND o.status = 'resolved')
                        AND (starts_with(coalesce(s.review_reason, ''), 'not_org:')
                             OR starts_with(coalesce(o.review_reason, ''), 'not_org:'))) AS not_org,
       count(*) FILTER (WHERE NOT (s.status = 'resolved' AND o.status = 'resolved')
                        AND NOT starts_with(coalesce(s.review_reason, ''), 'not_org:')
                        AND NOT starts_with(coalesce(o.review_reason, ''), 'not_org:')) AS withheld
FROM claims c
LEFT JOIN mentions s ON s.mention_key = c.subject_key
LEFT JOIN mentions o ON o.mention_key = c.object_key
GROUP BY c.relation ORDER BY c.relation
"""

# Per filing re-derived: its claims whose subject or object did not resolve (left out, queued).
COUNT_UNRESOLVED_OF_AFFECTED = """
UPDATE filings SET unresolved = coalesce(u.n, 0)
FROM (
    SELECT a.filing_id, n.n FROM filings a LEFT JOIN (
        -- equality joins (hashed at any size), not IN subqueries under an OR
        SELECT c.filing_id,
               count(*) FILTER (WHERE s.status <> 'resolved' OR o.status <> 'resolved') AS n
        FROM claims c
        LEFT JOIN mentions s ON s.mention_key = c.subject_key
        LEFT JOIN mentions o ON o.mention_key = c.object_key
        WHERE c.filing_id IN (SELECT unnest($affected))
        GROUP BY c.filing_id
    ) n USING (filing_id)
    WHERE a.filing_id IN (SELECT unnest($affected))
) u
WHERE filings.filing_id = u.filing_id
"""
# claims and their filers, minus those of every other filing; taxonomy categories always exist.
NEW_ENTITIES = """
WITH named AS (
    SELECT c.filing_id, m.entity_id, m.entity_type FROM claims c
    JOIN mentions m ON m.mention_key = c.subject_key
    WHERE m.status = 'resolved' AND m.entity_id IS NOT NULL
    UNION ALL
    SELECT c.filing_id, m.entity_id, m.entity_type FROM claims c
    JOIN mentions m ON m.mention_key = c.object_key
    WHERE m.status = 'resolved' AND m.entity_id IS NOT NULL
    UNION ALL
    SELECT filing_id, filer_id, 'company' FROM filings WHERE filer_id IS NOT NULL
),
theirs AS (
    SELECT DISTINCT entity_id, entity_type FROM named WHERE list_contains($filings, filing_id)
),
others AS (SELECT DISTINCT entity_id FROM named WHERE NOT list_contains($filings, filing_id))
SELECT entity_type, count(*) FROM theirs
WHERE entity_id NOT IN (SELECT entity_id FROM others)
  AND entity_id NOT IN (SELECT entity_id FROM static_entities WHERE always)
GROUP BY entity_type
"""
# Mentions of a set of filings ($filings) waiting in the review queue, by reason.
QUEUED_MENTIONS = """
WITH theirs AS (
    SELECT subject_key AS mention_key FROM claims WHERE list_contains($filings, filing_id)
    UNION SELECT object_key FROM claims WHERE list_contains($filings, filing_id)
)
SELECT m.review_reason, count(*) FROM mentions m SEMI JOIN theirs USING (mention_key)
WHERE m.review_reason IS NOT NULL
GROUP BY m.review_reason
"""
REVIEW_COUNT = """
SELECT count(*) FROM mentions m
SEMI JOIN (SELECT subject_key AS k FROM claims UNION ALL SELECT object_key FROM claims) u
    ON u.k = m.mention_key
WHERE m.review_reason IS NOT NULL
"""

REVIEW_QUEUE_BODY = """
WITH flagged AS (
    SELECT * FROM mentions WHERE review_reason IS NOT NULL
),
uses AS (
    SELECT *,
           row_number() OVER (PARTITION BY mention_key ORDER BY filing_id, char_start, claim_id)
               AS n
    FROM (
        SELECT m.mention_key, c.claim_id, c.filing_id, c.chunk_id, c.relation, c.subject_text,
               c.object_text, c.quote, c.char_start, c.char_end
        FROM flagged m JOIN claims c ON c.subject_key = m.mention_key
        UNION
        SELECT m.mention_key, c.claim_id, c.filing_id, c.chunk_id, c.relation, c.subject_text,
               c.object_text, c.quote, c.char_start, c.char_end
        FROM flagged m JOIN claims c ON c.object_key = m.mention_key
    )
)
SELECT m.mention_key AS review_id, m.text, m.role, m.filer_id, m.review_reason AS reason,
       m.status = 'resolved' AS in_graph, m.entity_id, m.candidates,
       count(*) AS claims,
       list({'filing_id': u.filing_id, 'chunk_id': u.chunk_id, 'relation': u.relation,
             'subject_text': u.subject_text, 'object_text': u.object_text, 'quote': u.quote,
             'char_start': u.char_start, 'char_end': u.char_end} ORDER BY u.n)
         FILTER (WHERE u.n <= $shown) AS evidence
FROM flagged m JOIN uses u USING (mention_key)
GROUP BY ALL
"""


# Fiscal label → calendar range per filer, from its XBRL durations: what dates a text edge's
# "FY2025". A view, read by the two statements that need it: a table refreshed per update cost
# two statements more, and missed a filer whose filing was removed while others remained.
FILER_CALENDAR_VIEW_BODY = """
SELECT filer_id, period, min(calendar_start) AS calendar_start, max(calendar_end) AS calendar_end
FROM claims
WHERE source = 'xbrl' AND period_type = 'duration' AND period IS NOT NULL
  AND calendar_start < calendar_end AND filer_id IS NOT NULL
GROUP BY filer_id, period
"""


# `$limit` NULL: every item.
REVIEW_QUEUE = f"""
SELECT * FROM ({REVIEW_QUEUE_BODY}) ORDER BY in_graph, claims DESC, text LIMIT $limit
"""

# Entities and their aliases are views: derived from the filings, the mentions and the names
# whenever they are read (a snapshot, the CLI), so an update never pays for them.
CREATE_VIEWS = (
    f"CREATE OR REPLACE VIEW entities AS {ENTITIES_VIEW_BODY}",
    f"CREATE OR REPLACE VIEW entity_aliases AS {ENTITY_ALIASES_VIEW_BODY}",
    f"CREATE OR REPLACE VIEW filer_calendar AS {FILER_CALENDAR_VIEW_BODY}",
)
INSERT_EVIDENCE = f"INSERT INTO edge_evidence {EVIDENCE_OF_AFFECTED}"
INSERT_EDGES = f"INSERT INTO edges {EDGES_OF_TOUCHED}"
