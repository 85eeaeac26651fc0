"""Every SQL statement of the communities stage's working store (`store.py`). All are constants
with `$named` parameters. A list of ids goes in as a relation of a fixed name, registered for the
statements that read it (`DuckDBStore.relation`): `wanted` (one column `id`), `kids` (the same,
for the children of `wanted`), `fresh` (rows an INSERT adds), `filings_now` and `amended` (the
withholding check). Never SQL built from values."""

from __future__ import annotations

# -- the schema's tables, cleared before a clustering replaces them -----------------------------
FILINGS_SEEN_DDL = "CREATE TABLE IF NOT EXISTS filings_seen (filing_id VARCHAR, digest VARCHAR)"
CLEAR_COMMUNITIES = "DELETE FROM communities"
CLEAR_MEMBERS = "DELETE FROM members"
CLEAR_LEVELS = "DELETE FROM levels"
CLEAR_EDGE_HOME = "DELETE FROM edge_home"
CLEAR_FILINGS_SEEN = "DELETE FROM filings_seen"

INSERT_COMMUNITIES = "INSERT INTO communities BY NAME SELECT * FROM fresh"
INSERT_MEMBERS = "INSERT INTO members BY NAME SELECT * FROM fresh"
INSERT_LEVELS = "INSERT INTO levels BY NAME SELECT * FROM fresh"
INSERT_EDGE_HOME = "INSERT INTO edge_home BY NAME SELECT * FROM fresh"
INSERT_REPORTS = "INSERT INTO reports BY NAME SELECT * FROM fresh"
INSERT_FINDINGS = "INSERT INTO findings BY NAME SELECT * FROM fresh"
INSERT_FILINGS_SEEN = "INSERT INTO filings_seen BY NAME SELECT * FROM fresh"

# -- clustering ---------------------------------------------------------------------------------
# Built reports with what decides whether one is kept: its marks and its children.
BUILT_REPORTS = """
SELECT c.community_id, c.dirty_since, c.withheld_reason,
       list(k.community_id ORDER BY k.community_id)
           FILTER (WHERE k.community_id IS NOT NULL) AS kids
FROM communities c LEFT JOIN communities k ON k.parent_id = c.community_id
WHERE c.report_state = 'built' GROUP BY ALL
"""
DELETE_REPORTS_NOT_WANTED = "DELETE FROM reports WHERE community_id NOT IN (SELECT id FROM wanted)"
DELETE_FINDINGS_NOT_WANTED = (
    "DELETE FROM findings WHERE community_id NOT IN (SELECT id FROM wanted)"
)

# -- staleness ----------------------------------------------------------------------------------
EDGE_HOMES_OF_WANTED = """
SELECT community_id, edge_id FROM edge_home SEMI JOIN wanted ON community_id = id
"""
CHILD_BASES_OF_WANTED = """
SELECT c.parent_id, c.community_id, r.basis FROM communities c
LEFT JOIN reports r USING (community_id) SEMI JOIN wanted ON c.parent_id = id
"""
LEVELS_OF_WANTED = (
    "SELECT community_id, level FROM communities SEMI JOIN wanted ON community_id = id"
)
# Dirty reports (not withheld) that know what they were built from.
DIRTY_BASES = """
SELECT r.community_id, r.basis FROM reports r JOIN communities c USING (community_id)
WHERE c.dirty_since IS NOT NULL AND c.withheld_reason IS NULL AND r.basis IS NOT NULL
"""
DIRTY_COMMUNITIES = "SELECT community_id FROM communities WHERE dirty_since IS NOT NULL"
CLEAN_WANTED = (
    "UPDATE communities SET dirty_since = NULL WHERE community_id IN (SELECT id FROM wanted)"
)
MEMBERSHIPS = "SELECT entity_id, level, community_id FROM members"
MEMBERSHIPS_OF_WANTED = (
    "SELECT entity_id, level, community_id FROM members SEMI JOIN wanted ON entity_id = id"
)
# Each entity's deepest community.
LEAF_OF_ENTITY = (
    "SELECT entity_id, arg_max(community_id, level) AS leaf FROM members GROUP BY entity_id"
)
HIERARCHY = "SELECT community_id, level, parent_id FROM communities"
RECOUNT_SIZES = """
UPDATE communities SET size = s.n, companies = s.k
FROM (
    SELECT community_id, count(*) AS n, count(*) FILTER (WHERE entity_type = 'company') AS k
    FROM members GROUP BY community_id
) s
WHERE communities.community_id = s.community_id
"""
# Dirty since `$update_id` (unless dirty already): the communities holding a wanted entity.
MARK_DIRTY_HOLDING_WANTED = """
UPDATE communities SET dirty_since = coalesce(dirty_since, $update_id)
WHERE community_id IN (SELECT community_id FROM members SEMI JOIN wanted ON entity_id = id)
"""
# ... and the wanted communities themselves.
MARK_DIRTY_WANTED = """
UPDATE communities SET dirty_since = coalesce(dirty_since, $update_id)
WHERE community_id IN (SELECT id FROM wanted)
"""
DELETE_EDGE_HOME_OF_WANTED = """
DELETE FROM edge_home
WHERE subject_id IN (SELECT id FROM wanted) OR object_id IN (SELECT id FROM wanted)
"""
FILINGS_SEEN = "SELECT filing_id, digest FROM filings_seen"
# The reports whose sources fail now (`filings_now`: every filing and its digest; `amended`: a
# filing and the later filing that amends it), the first failing filing by id naming the reason.
# Looked at: every report the first time ($everything), else those resting on a filing that
# changed since the last check ($changed) and those withheld already (which may lift).
CREATE_WITHHELD = """
CREATE OR REPLACE TEMP TABLE withheld AS
WITH scope AS (
    SELECT community_id FROM reports
    WHERE $everything OR list_has_any(source_filings, $changed)
    UNION SELECT community_id FROM communities WHERE withheld_reason IS NOT NULL
), sources AS (
    SELECT community_id, unnest(source_digests, recursive := true) FROM reports
    WHERE community_id IN (SELECT community_id FROM scope)
), failing AS (
    SELECT s.community_id, s.filing_id,
           CASE WHEN f.filing_id IS NULL THEN 'source filing ' || s.filing_id || ' was removed'
                WHEN f.digest IS DISTINCT FROM s.digest
                    THEN 'source filing ' || s.filing_id || ' changed since the report was built'
                WHEN a.by IS NOT NULL
                    THEN 'source filing ' || s.filing_id || ' was amended by ' || a.by
           END AS reason
    FROM sources s
    LEFT JOIN filings_now f ON f.filing_id = s.filing_id
    LEFT JOIN amended a ON a.filing_id = s.filing_id
)
SELECT community_id, arg_min(reason, filing_id) AS reason
FROM failing WHERE reason IS NOT NULL GROUP BY community_id
"""
WITHHOLD = """
UPDATE communities SET withheld_reason = w.reason,
       dirty_since = coalesce(dirty_since, $update_id)
FROM withheld w
WHERE communities.community_id = w.community_id
  AND communities.withheld_reason IS DISTINCT FROM w.reason
"""
# A report whose sources are again exactly those it was built from (a filing put back, its
# claims as they were) is no longer withheld; whether it is stale is then up to its edges.
LIFT_WITHHELD = """
UPDATE communities SET withheld_reason = NULL
WHERE withheld_reason IS NOT NULL AND community_id NOT IN (SELECT community_id FROM withheld)
"""
WITHHELD_COUNT = "SELECT count(*) FROM communities WHERE withheld_reason IS NOT NULL"
DROP_WITHHELD = "DROP TABLE withheld"
DIRTY_FRACTION = """
SELECT count(*) FILTER (WHERE dirty_since IS NOT NULL OR withheld_reason IS NOT NULL), count(*)
FROM communities
"""

# -- reports ------------------------------------------------------------------------------------
# The communities a summary builds: those without a report and, on a refresh, the dirty and the
# withheld; deepest level first.
TO_SUMMARIZE = """
SELECT community_id, level FROM communities
WHERE report_state = 'none'
   OR ($refresh AND (dirty_since IS NOT NULL OR withheld_reason IS NOT NULL))
ORDER BY level DESC, community_id
"""
DELETE_REPORTS_OF_WANTED = "DELETE FROM reports WHERE community_id IN (SELECT id FROM wanted)"
DELETE_FINDINGS_OF_WANTED = "DELETE FROM findings WHERE community_id IN (SELECT id FROM wanted)"
RESET_WANTED = """
UPDATE communities SET report_state = 'none', dirty_since = NULL, withheld_reason = NULL
WHERE community_id IN (SELECT id FROM wanted)
"""
# `$state`: built | no_evidence.
SET_STATE_OF_WANTED = (
    "UPDATE communities SET report_state = $state WHERE community_id IN (SELECT id FROM wanted)"
)
EDGES_HOMED_IN_WANTED = """
SELECT edge_id, community_id FROM edge_home SEMI JOIN wanted ON community_id = id
"""
MEMBER_IDS_OF_WANTED = (
    "SELECT DISTINCT entity_id FROM members SEMI JOIN wanted ON community_id = id"
)
# Read from the graph (GraphView): the risk categories, which any report may name.
RISK_NAMES = "SELECT entity_id, name, entity_type FROM entities WHERE entity_id LIKE 'RISK:%'"
MEMBERS_OF_WANTED = """
SELECT community_id, entity_id, entity_type, name, weight FROM members
SEMI JOIN wanted ON community_id = id
"""
CHILDREN_OF_WANTED = """
SELECT community_id AS child_id, parent_id AS community_id FROM communities
SEMI JOIN wanted ON parent_id = id
"""
REPORTS_OF_KIDS = (
    "SELECT * EXCLUDE (source_digests, basis) FROM reports SEMI JOIN kids ON community_id = id"
)
FINDINGS_OF_KIDS = "SELECT * FROM findings SEMI JOIN kids ON community_id = id"

# -- reading ------------------------------------------------------------------------------------
# A report is served when built and not withheld; stale when dirty.
_SERVED = """
SELECT community_id, dirty_since IS NOT NULL AS stale FROM communities
WHERE report_state = 'built' AND withheld_reason IS NULL
"""
COMMUNITIES_AS_PUBLISHED = """
SELECT * EXCLUDE (report_state, dirty_since, withheld_reason),
       CASE WHEN report_state = 'no_evidence' THEN 'no_evidence'
            WHEN report_state = 'none' THEN 'missing'
            WHEN withheld_reason IS NOT NULL THEN 'withheld'
            WHEN dirty_since IS NOT NULL THEN 'stale' ELSE 'current' END AS report_status,
       CASE WHEN withheld_reason IS NOT NULL THEN withheld_reason
            WHEN dirty_since IS NOT NULL AND report_state = 'built' THEN
                'members gained or lost edges in graph update ' || dirty_since || ' and later'
       END AS status_reason
FROM communities ORDER BY level, size DESC, community_id
"""
REPORTS_AS_PUBLISHED = f"""
SELECT r.* EXCLUDE (source_digests, basis), s.stale
FROM reports r JOIN ({_SERVED}) s USING (community_id)
ORDER BY r.level, r.impact_rating DESC, r.community_id
"""
FINDINGS_AS_PUBLISHED = f"""
SELECT f.* FROM findings f SEMI JOIN ({_SERVED}) s USING (community_id)
ORDER BY community_id, rank
"""
MEMBERS_AS_PUBLISHED = "SELECT * FROM members ORDER BY community_id, weight DESC, entity_id"
LEVELS_AS_PUBLISHED = "SELECT * FROM levels ORDER BY level"
COUNTS_BY_LEVEL = """
SELECT level, count(*), count(*) FILTER (WHERE dirty_since IS NOT NULL),
       count(*) FILTER (WHERE withheld_reason IS NOT NULL)
FROM communities GROUP BY level ORDER BY level
"""
MODULARITY_BY_LEVEL = "SELECT level, modularity FROM levels ORDER BY level"
REPORT_COUNT = "SELECT count(*) FROM reports"

# -- the citations check (stage.citations_inside) --------------------------------------------------
# Every citation of a current report (findings and summary), with its community.
CURRENT_CITATIONS = """
SELECT f.community_id, unnest(f.citations, recursive := true) FROM findings f
JOIN communities c USING (community_id)
WHERE c.dirty_since IS NULL AND c.withheld_reason IS NULL
UNION ALL
SELECT r.community_id, unnest(r.summary_citations, recursive := true) FROM reports r
JOIN communities c USING (community_id)
WHERE c.dirty_since IS NULL AND c.withheld_reason IS NULL
"""
MEMBER_PAIRS = "SELECT community_id, entity_id FROM members"
