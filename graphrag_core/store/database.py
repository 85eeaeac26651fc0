"""`SnapshotTables` → one DuckDB file: the stages' tables copied as they are, plus derived
tables computed once, in SQL, when the snapshot is built (a snapshot never changes afterwards,
so the server's queries stay small)."""

from __future__ import annotations

from pathlib import Path

import duckdb
import polars as pl

from graphrag_core.common.sectors import SIC_RANGES, primary_sector
from graphrag_core.store import snapshot_schema as schema
from graphrag_core.store import snapshot_vocabulary as vocab
from graphrag_core.store.fact_tables import write_company_facts
from graphrag_core.store.snapshot_tables import SnapshotTables
from graphrag_core.store.statement_lines import write_statement_lines

# -- derived tables ------------------------------------------------------------------------
# Written once here; the server reads them with small parameterized queries.

_METRIC_VALUES_SQL = """
CREATE TABLE metric_values AS
WITH obs AS (
    SELECT o.*, f.accession, c.section,
           -- Newest first, in the order xbrl.supersession links them: how final the figure
           -- is (a filing's own, derived from filings, a release's, derived from a release),
           -- then filing date (unknown dates oldest), filing id, observation id.
           row_number() OVER (
               PARTITION BY o.cik, o.metric, o.unit, o.period_type, o.calendar_start, o.calendar_end
               ORDER BY (o.source_kind IS DISTINCT FROM 'press_release')::INTEGER * 2
                        + (NOT coalesce(o.derived, false))::INTEGER DESC,
                        o.filed_date DESC NULLS LAST, o.filing_id DESC, o.observation_id DESC
           ) AS recency
    FROM metric_observations o
    LEFT JOIN filings f USING (filing_id)
    LEFT JOIN chunks c ON c.chunk_id = o.chunk_id
),
-- The same period is reported again in later filings (comparative columns); the newest
-- filing's value is the current one, and its citation is the newest statement of it.
cur AS (SELECT * FROM obs WHERE recency = 1),
-- Earlier reports of the period that gave another value (the restatements and recasts to
-- show), and every earnings-release figure a filing made final (equal or not: the release was
-- what was known first), each with why it was superseded.
old AS (
    SELECT o.cik, o.metric, o.unit, o.period_type, o.calendar_start, o.calendar_end,
           list({'value': o.value, 'fiscal_label': o.fiscal_label, 'observation_id':
               o.observation_id,
                 'filing_id': o.filing_id, 'form': o.form, 'filed_date': o.filed_date,
                 'section': o.section, 'chunk_id': o.chunk_id, 'fact_id': o.fact_id,
                 'concept': o.concept, 'source_kind': o.source_kind,
                 'derived': coalesce(o.derived, false),
                 'supersede_reason': o.supersede_reason, 'supersede_detail': o.supersede_detail}
                ORDER BY o.recency) AS superseded,
           bool_or(o.value IS DISTINCT FROM c.value) AS restated
    FROM obs o JOIN cur c USING (cik, metric, unit, period_type, calendar_start, calendar_end)
    WHERE o.recency > 1 AND (o.value IS DISTINCT FROM c.value OR o.source_kind = 'press_release')
    GROUP BY ALL
),
-- The operands of a derived value (Q4 = FY − 9M: the FY and the 9M observations), each cited.
operand_ids AS (
    SELECT observation_id, unnest(derived_from) AS operand_id,
           generate_subscripts(derived_from, 1) AS position
    FROM cur WHERE coalesce(derived, false)
),
operands AS (
    SELECT d.observation_id,
           list({'value': s.value, 'fiscal_label': s.fiscal_label, 'observation_id':
               s.observation_id,
                 'filing_id': s.filing_id, 'form': s.form, 'filed_date': s.filed_date,
                 'section': s.section, 'chunk_id': s.chunk_id, 'fact_id': s.fact_id,
                 'concept': s.concept, 'source_kind': s.source_kind}
                ORDER BY d.position) AS derived_from
    FROM operand_ids d JOIN obs s ON s.observation_id = d.operand_id
    GROUP BY d.observation_id
),
-- The like period a year earlier: same fiscal period, previous fiscal year, ending about a
-- year before (a changed fiscal year end must not pair unlike periods).
prior AS (
    SELECT c.observation_id,
           -- On the latest split basis, as the value it is compared with (xbrl.splits).
           coalesce(p.split_adjusted_value, p.value) AS prior_value, p.fiscal_label AS
               prior_fiscal_label,
           p.calendar_start AS prior_calendar_start, p.calendar_end AS prior_calendar_end,
           p.observation_id AS prior_observation_id, p.filing_id AS prior_filing_id,
           p.form AS prior_form, p.filed_date AS prior_filed_date, p.section AS prior_section,
           p.chunk_id AS prior_chunk_id
    FROM cur c JOIN cur p
      ON p.cik = c.cik AND p.metric = c.metric AND p.unit = c.unit
     AND p.period_type = c.period_type AND p.fiscal_period = c.fiscal_period
     AND p.fiscal_year = c.fiscal_year - 1
     AND p.calendar_end BETWEEN c.calendar_end - INTERVAL 400 DAY AND c.calendar_end - INTERVAL 330
         DAY
    QUALIFY row_number() OVER (
        PARTITION BY c.observation_id
        ORDER BY abs(datediff('day', p.calendar_end, c.calendar_end - INTERVAL 1 YEAR))
    ) = 1
)
-- `value` is like for like: a per-share value or share count on the latest stock split's basis
-- (`as_filed_value` is the filing's own figure, the one SEC's companyfacts holds).
SELECT 'CIK-' || cur.cik AS company_id, cur.cik, cur.metric,
       coalesce(cur.split_adjusted_value, cur.value) AS value, cur.value AS as_filed_value,
       cur.split_basis, cur.unit,
       cur.fiscal_label, cur.fiscal_year, cur.fiscal_period, cur.period_type,
       cur.calendar_start, cur.calendar_end,
       cur.fiscal_period = 'FY' AS in_annual,
       cur.fiscal_period IN ('Q1', 'Q2', 'Q3', 'Q4')
         OR (cur.period_type = 'instant' AND cur.fiscal_period = 'FY') AS in_quarterly,
       -- Year-to-date periods a 10-Q reports (half year, nine months), with the balance at
       -- their end.
       cur.fiscal_period IN ('H1', 'H2')
         OR (cur.period_type = 'instant' AND cur.fiscal_period = 'Q2') AS in_half_year,
       cur.fiscal_period = '9M'
         OR (cur.period_type = 'instant' AND cur.fiscal_period = 'Q3') AS in_nine_months,
       cur.observation_id, cur.filing_id, cur.accession, cur.form, cur.filed_date,
       cur.fact_id, cur.concept, cur.chunk_id, cur.section,
       prior.* EXCLUDE (observation_id),
       coalesce(old.superseded, []) AS superseded,
       coalesce(old.restated, false) AS restated,
       coalesce(cur.source_kind, 'xbrl') AS source_kind, coalesce(cur.derived, false) AS derived,
       cur.derivation, cur.mapping_rule, coalesce(operands.derived_from, []) AS derived_from
FROM cur
LEFT JOIN prior USING (observation_id)
LEFT JOIN old USING (cik, metric, unit, period_type, calendar_start, calendar_end)
LEFT JOIN operands USING (observation_id)
ORDER BY cur.cik, cur.metric, cur.calendar_end DESC, cur.calendar_start DESC
"""


_SPLIT_COLUMNS = {"split_adjusted_value": pl.Float64, "split_basis": pl.String}  # xbrl.splits


def _all_metric_columns(observations: pl.DataFrame) -> pl.DataFrame:
    """Observations gathered before a column existed (split_adjusted_value, split_basis) get
    it as nulls, so metric_values' SQL reads every column of the schema."""
    missing = [
        pl.lit(None, dtype=t).alias(c)
        for c, t in _SPLIT_COLUMNS.items()
        if c not in observations.columns
    ]
    return observations.with_columns(missing) if missing else observations


def _figure(alias: str) -> str:
    """A struct of one figure and its year-ago value, each with its citation."""
    return (
        f"{{'value': {alias}.value, 'unit': {alias}.unit, 'fiscal_label': {alias}.fiscal_label, "
        f"'calendar_end': {alias}.calendar_end, 'observation_id': {alias}.observation_id, "
        f"'filing_id': {alias}.filing_id, 'form': {alias}.form, 'filed_date': {alias}.filed_date, "
        f"'section': {alias}.section, 'chunk_id': {alias}.chunk_id, "
        f"'prior_value': {alias}.prior_value, 'prior_fiscal_label': {alias}.prior_fiscal_label, "
        f"'prior_observation_id': {alias}.prior_observation_id, "
        f"'prior_filing_id': {alias}.prior_filing_id, 'prior_form': {alias}.prior_form, "
        f"'prior_filed_date': {alias}.prior_filed_date, 'prior_section': {alias}.prior_section, "
        f"'prior_chunk_id': {alias}.prior_chunk_id, "
        f"'source_kind': {alias}.source_kind, 'derived': {alias}.derived}}"
    )


def _screen_basis_sql() -> str:
    # Built from constants of this module only (metric ids, kinds): no outside text reaches it.
    # metric_values is unique per (cik, metric, unit, period_type, calendar range), so each
    # join below finds at most one row and the result has one row per company and kind.
    flows = ",\n       ".join(
        f"{_figure(m)} AS {m}" for m in vocab.FLOW_METRICS if m != vocab.REVENUE
    )
    balances = ",\n       ".join(f"{_figure(m)} AS {m}" for m in vocab.BALANCE_METRICS)
    flow_joins = "\n".join(
        f"LEFT JOIN metric_values {m} ON {m}.cik = l.cik AND {m}.metric = '{m}' "
        f"AND {m}.period_type = 'duration' AND {m}.calendar_start = l.calendar_start AND "
        f"{m}.calendar_end = l.calendar_end "
        f"AND {m}.unit = l.unit"
        for m in vocab.FLOW_METRICS
        if m != vocab.REVENUE
    )
    balance_joins = "\n".join(
        f"LEFT JOIN metric_values {m} ON {m}.cik = l.cik AND {m}.metric = '{m}' "
        f"AND {m}.period_type = 'instant' AND {m}.calendar_end = l.calendar_end "
        f"AND {m}.unit = l.unit"
        for m in vocab.BALANCE_METRICS
    )
    quarters = ", ".join(f"'{q}'" for q in vocab.QUARTERS)
    alias = {
        m: ("l" if m == vocab.REVENUE else m) for m in (*vocab.FLOW_METRICS, *vocab.BALANCE_METRICS)
    }
    scalars = ",\n       ".join(
        [
            f"{alias[m]}.value AS {m}_value, {alias[m]}.prior_value AS {m}_prior_value"
            for m in vocab.FLOW_METRICS
        ]
        + [f"{m}.value AS {m}_value" for m in vocab.BALANCE_METRICS]
    )
    return f"""
CREATE TABLE screen_basis AS
WITH latest AS (
    SELECT CASE WHEN fiscal_period = 'FY' THEN 'annual' ELSE 'quarter' END AS period_kind, *
    FROM metric_values
    WHERE metric = '{vocab.REVENUE}' AND period_type = 'duration'
      AND (fiscal_period = 'FY' OR fiscal_period IN ({quarters}))
    QUALIFY row_number() OVER (
        PARTITION BY cik, fiscal_period = 'FY' ORDER BY calendar_end DESC, calendar_start DESC
    ) = 1
)
SELECT l.period_kind, l.company_id, l.cik, l.fiscal_label, l.fiscal_year, l.fiscal_period,
       l.calendar_start, l.calendar_end, l.prior_fiscal_label, l.unit AS revenue_unit,
       -- Plain columns of the numbers a screen computes on, so that filtering and ranking read
       -- a few doubles per company; the structs (figures with citations) are read for the hits.
       {scalars},
       {_figure("l")} AS {vocab.REVENUE},
       {flows},
       {balances}
FROM latest l
{flow_joins}
{balance_joins}
ORDER BY l.period_kind, l.cik
"""


def _window_basis_sql() -> str:
    """Per company and kind its newest periods with revenue, numbered k = 1.. (newest first),
    with the plain numbers a window screen filters on and the metric_values row ids of the
    figures it cites. The snapshot is written once, so row ids stay valid; the window screen
    then reads a few rows per company instead of ranking metric_values on every call."""
    quarters = ", ".join(f"'{q}'" for q in vocab.QUARTERS)
    incomes = (vocab.GROSS_PROFIT, vocab.OPERATING_INCOME, vocab.NET_INCOME)
    # The period just before (k + 1) is precomputed too: a sequential window compares each
    # period with it, and a window function per call was a sixth of the screen's time.
    before = "OVER (PARTITION BY r.period_kind, r.cik ORDER BY r.k)"
    income_cols = ",\n       ".join(
        f"CASE WHEN isfinite({m}.value) THEN {m}.value END AS {m}_value, "
        f"CASE WHEN isfinite({m}.prior_value) THEN {m}.prior_value END AS {m}_prior_value, "
        f"{m}.rowid AS {m}_row, "
        f"lead(CASE WHEN isfinite({m}.value) THEN {m}.value END) {before} AS {m}_before_value, "
        f"lead({m}.rowid) {before} AS {m}_before_row"
        for m in incomes
    )
    income_joins = "\n".join(
        f"LEFT JOIN metric_values {m} ON {m}.cik = r.cik AND {m}.metric = '{m}' "
        f"AND {m}.period_type = 'duration' AND {m}.unit = r.unit "
        f"AND {m}.calendar_start = r.calendar_start AND {m}.calendar_end = r.calendar_end"
        for m in incomes
    )
    # The balance at the end of the period before: the instant nearest the day before the
    # period starts, at most 8 days earlier (52/53-week calendars).
    return f"""
CREATE TABLE window_basis AS
WITH rev AS (
    SELECT CASE WHEN fiscal_period = 'FY' THEN 'annual' ELSE 'quarter' END AS period_kind,
           cik, unit, calendar_start, calendar_end, value,
           CASE WHEN isfinite(prior_value) THEN prior_value END AS prior_value, rowid AS row_id,
           row_number() OVER (
               PARTITION BY cik, fiscal_period = 'FY' ORDER BY calendar_end DESC, calendar_start
                   DESC
           ) AS k
    FROM metric_values
    WHERE metric = '{vocab.REVENUE}' AND period_type = 'duration' AND isfinite(value)
      AND (fiscal_period = 'FY' OR fiscal_period IN ({quarters}))
    QUALIFY k <= {vocab.WINDOW_PERIODS}
),
opening AS (
    SELECT r.row_id, CASE WHEN isfinite(d.value) THEN d.value END AS debt_open_value, d.rowid AS
        debt_open_row
    FROM rev r JOIN metric_values d
      ON d.cik = r.cik AND d.metric = '{vocab.TOTAL_DEBT}' AND d.period_type = 'instant'
     AND d.unit = r.unit
     AND d.calendar_end BETWEEN r.calendar_start - INTERVAL 8 DAY AND r.calendar_start - INTERVAL 1
         DAY
    QUALIFY row_number() OVER (PARTITION BY r.row_id ORDER BY d.calendar_end DESC) = 1
)
SELECT r.period_kind, r.cik, r.k, r.unit, r.calendar_start, r.calendar_end,
       lead(r.calendar_end) {before} AS prev_end,
       r.value AS revenue_value, r.prior_value AS revenue_prior_value, r.row_id AS revenue_row,
       lead(r.value) {before} AS revenue_before_value, lead(r.row_id) {before} AS
           revenue_before_row,
       {income_cols},
       CASE WHEN isfinite(de.value) THEN de.value END AS debt_end_value, de.rowid AS debt_end_row,
       CASE WHEN isfinite(eq.value) THEN eq.value END AS equity_value, eq.rowid AS equity_row,
       o.debt_open_value, o.debt_open_row
FROM rev r
{income_joins}
LEFT JOIN metric_values de ON de.cik = r.cik AND de.metric = '{vocab.TOTAL_DEBT}'
     AND de.period_type = 'instant' AND de.unit = r.unit AND de.calendar_end = r.calendar_end
LEFT JOIN metric_values eq ON eq.cik = r.cik AND eq.metric = '{vocab.STOCKHOLDERS_EQUITY}'
     AND eq.period_type = 'instant' AND eq.unit = r.unit AND eq.calendar_end = r.calendar_end
LEFT JOIN opening o ON o.row_id = r.row_id
ORDER BY r.period_kind, r.k, r.cik
"""


def _window_spans_sql() -> str:
    """Per company, kind and window length (span 1..WINDOW_PERIODS - 1): what a window screen
    filters and ranks on, aggregated over the newest `span` rows of window_basis once here. A
    screen then reads one row per company (the rows of its kind and span lie together) instead
    of grouping a row per period on every call. Each value is the window screen's own
    expression, so the screen's answer is the same: a criterion must hold in every period, which
    is the window's lowest value passing (NULL when a period lacks the figure, which fails it);
    both period chains are kept (year over year: the oldest period needs no predecessor;
    sequential: it does)."""
    incomes = (vocab.GROSS_PROFIT, vocab.OPERATING_INCOME, vocab.NET_INCOME)
    bases = {"yoy": "prior", "seq": "before"}
    per_period = ",\n       ".join(
        [
            f"CASE WHEN revenue_{col}_value > 0 THEN (revenue_value / revenue_{col}_value - 1) "
            f"* 100 END AS growth_{b}"
            for b, col in bases.items()
        ]
        + [
            f"CASE WHEN revenue_value > 0 THEN {m}_value / revenue_value * 100 END "
            f"- CASE WHEN revenue_{col}_value > 0 THEN {m}_{col}_value / revenue_{col}_value * 100 "
            f"END AS {m}_trend_{b}"
            for m in incomes
            for b, col in bases.items()
        ]
    )
    measures = [f"growth_{b}" for b in bases] + [f"{m}_trend_{b}" for m in incomes for b in bases]
    aggregates = ",\n       ".join(
        f"CASE WHEN count({c}) = count(*) THEN min({c}) END AS {c}_floor, "
        f"any_value({c}) FILTER (WHERE k = 1) AS {c}_latest"
        for c in measures
    )
    return f"""
CREATE TABLE window_spans AS
WITH calc AS (
    SELECT *,
       {per_period},
       datediff('day', prev_end, calendar_start) BETWEEN 1 AND {vocab.WINDOW_GAP_DAYS} AS follows
    FROM window_basis
),
spans AS (SELECT range AS span FROM range(1, {vocab.WINDOW_PERIODS})),
firms AS (
    -- FILTER, not arg_min/arg_max: those skip NULL values and would take another period's figure.
    SELECT c.period_kind, c.cik, s.span,
       any_value(unit) FILTER (WHERE k = 1) AS unit,
       any_value(revenue_value) FILTER (WHERE k = 1) AS latest_rev,
       any_value(debt_end_value) FILTER (WHERE k = 1) AS debt_end,
       any_value(debt_end_row) FILTER (WHERE k = 1) AS debt_end_row,
       any_value(equity_value) FILTER (WHERE k = 1) AS equity,
       any_value(equity_row) FILTER (WHERE k = 1) AS equity_row,
       any_value(debt_open_value) FILTER (WHERE k = s.span) AS debt_start,
       any_value(debt_open_row) FILTER (WHERE k = s.span) AS debt_start_row,
       bool_and(follows OR k = s.span) AS chain_yoy,
       bool_and(follows) AS chain_seq,
       {aggregates}
    FROM calc c JOIN spans s ON c.k <= s.span
    GROUP BY c.period_kind, c.cik, s.span
    HAVING count(*) = s.span
)
SELECT *,
       CASE WHEN debt_start > 0 THEN (debt_end / debt_start - 1) * 100 END AS debt_change,
       CASE WHEN equity > 0 THEN debt_end / equity END AS dte
FROM firms
ORDER BY period_kind, span, cik
"""


_METRIC_CATALOG_SQL = """
CREATE TABLE metric_catalog AS
SELECT metric, list(DISTINCT unit ORDER BY unit) AS units,
       count(DISTINCT cik)::INTEGER AS companies, count(*)::BIGINT AS "values",
       count(*) FILTER (in_annual)::BIGINT AS annual_values,
       count(*) FILTER (in_quarterly)::BIGINT AS quarterly_values,
       min(calendar_end) AS first_period_end, max(calendar_end) AS last_period_end
FROM metric_values
GROUP BY metric
ORDER BY metric
"""

_FILING_SECTIONS_SQL = """
CREATE TABLE filing_sections AS
SELECT cik, filing_id, section, count(*)::INTEGER AS chunks,
       list(DISTINCT kind ORDER BY kind) AS kinds, min(char_start) AS char_start
FROM chunks
GROUP BY cik, filing_id, section
-- By company first: explore_company reads one company's rows (min/max pruning on cik).
ORDER BY cik, filing_id, char_start, section
"""


# -- the knowledge graph ---------------------------------------------------------------------
# Edges ordered by subject (neighbors of a company prune row groups by min/max); evidence by
# edge id, with the section and filing date of its chunk; adjacency holds each edge from both
# ends, ordered by entity, so a traversal step is one pruned range scan.
# superseded_on: the date the superseding edge was first filed. Before it, the edge was current:
# a question asked as of an earlier date reads it as current (issue 25, time on the graph).
# stated_spans: the calendar spans of the filings that state the edge (a 10-K's fiscal year, a
# 10-Q's quarter), what a calendar period matches a relation with no period of its own against.
_EDGES_SQL = """
CREATE TABLE edges AS
WITH spans AS (
    SELECT filing_id, period_end,
           CASE WHEN fiscal_period = 'FY' OR (fiscal_period IS NULL AND form LIKE '10-K%') THEN 12
                WHEN fiscal_period IN ('H1', 'H2') THEN 6 WHEN fiscal_period = '9M' THEN 9
                WHEN fiscal_period IN ('Q1', 'Q2', 'Q3', 'Q4')
                     OR (fiscal_period IS NULL AND form LIKE '10-Q%') THEN 3 END AS months
    FROM in_filings WHERE period_end IS NOT NULL
),
stated AS (
    SELECT v.edge_id,
           list(DISTINCT {'span_start': (p.period_end - to_months(p.months) + INTERVAL 1 DAY)::DATE,
                          'span_end': p.period_end}) AS stated_spans
    FROM in_evidence v JOIN spans p USING (filing_id)
    WHERE p.months IS NOT NULL
    GROUP BY v.edge_id
)
SELECT e.*, s.first_filed AS superseded_on, st.stated_spans
FROM in_edges e LEFT JOIN in_edges s ON s.edge_id = e.superseded_by
LEFT JOIN stated st ON st.edge_id = e.edge_id
ORDER BY e.subject_id, e.relation, e.object_id, e.edge_id
"""
# citation_rank: 1 = the newest citation of its edge (what a tool shows first), so that showing
# the first few is a filter, not a window, at query time.
_EDGE_EVIDENCE_SQL = """
CREATE TABLE edge_evidence AS
SELECT e.*, c.section, f.form, f.filed_date,
       row_number() OVER (
           PARTITION BY e.edge_id ORDER BY f.filed_date DESC NULLS LAST, e.filing_id, e.char_start,
               e.evidence_id
       )::INTEGER AS citation_rank
FROM in_evidence e
LEFT JOIN in_chunks c USING (chunk_id)
LEFT JOIN in_filings f ON f.filing_id = e.filing_id
ORDER BY e.edge_id, citation_rank
"""
# entity_ord / neighbor_ord: the entity's position in entity_id order, an integer whose row-group
# min/max is exact (DuckDB keeps only the first 8 bytes of a string's, and every "CIK-000…" id
# shares them): a traversal step filters on it and reads only the row groups of the entities it
# visits. nodes.adjacency_ord gives it for the entity a tool starts from.
# entity_rank: the row's position among its entity's rows in the order tools rank them (current
# first, most cited, edge id), which is the order rows are stored in; edge_ord: the edge id's
# position among all edge ids. Integer sort keys: a two-hop step ranks tens of thousands of rows
# per call, and ordering on them instead of (superseded, evidence_count, edge_id) lets DuckDB
# keep the top rows per middle node without sorting strings (same order, same answer).
_ADJACENCY_SQL = """
CREATE TABLE graph_adjacency AS
WITH sides AS (
    SELECT subject_id AS entity_id, object_id AS neighbor_id, 'out' AS direction, * EXCLUDE
        (subject_id, object_id)
    FROM edges
    UNION ALL
    SELECT object_id AS entity_id, subject_id AS neighbor_id, 'in' AS direction, * EXCLUDE
        (subject_id, object_id)
    FROM edges
),
ords AS (
    SELECT entity_id, (row_number() OVER (ORDER BY entity_id))::INTEGER AS ord
    FROM (SELECT DISTINCT entity_id FROM sides)
)
SELECT s.entity_id, s.neighbor_id, n.name AS neighbor_name, n.entity_type AS neighbor_type,
       s.direction, s.edge_id, s.relation, s.period, s.calendar_start, s.calendar_end,
       s.value, s.unit, s.source, s.evidence_count, s.filing_count, s.first_filed, s.last_filing_id,
       s.last_filed, s.seen_periods, s.phrases, s.superseded_by IS NOT NULL AS superseded,
           s.superseded_by,
       s.value_low, s.value_high, s.bound, s.superseded_on, s.stated_spans,
       e.ord AS entity_ord, o.ord AS neighbor_ord,
       (row_number() OVER (PARTITION BY s.entity_id
                           ORDER BY s.superseded_by IS NOT NULL, s.evidence_count DESC,
                               s.edge_id))::INTEGER AS entity_rank,
       (dense_rank() OVER (ORDER BY s.edge_id))::INTEGER AS edge_ord
FROM sides s LEFT JOIN in_nodes n ON n.entity_id = s.neighbor_id
-- every neighbor is an entity of sides too (each edge is listed from both ends): inner joins
JOIN ords e ON e.entity_id = s.entity_id
JOIN ords o ON o.entity_id = s.neighbor_id
ORDER BY s.entity_id, superseded, s.evidence_count DESC, s.edge_id
"""
_NODES_SQL = f"""
CREATE TABLE nodes AS
SELECT n.*, coalesce(d.degree, 0)::INTEGER AS degree, coalesce(d.evidence, 0)::BIGINT AS evidence,
       c.tickers, o.adjacency_ord
FROM in_nodes n
LEFT JOIN (
    SELECT entity_id, count(*) AS degree, sum(evidence_count) AS evidence
    FROM graph_adjacency
    WHERE NOT superseded AND relation NOT IN ({", ".join(f"'{r}'" for r in vocab.METRIC_RELATIONS)})
    GROUP BY entity_id
) d USING (entity_id)
LEFT JOIN in_companies c ON c.company_id = n.entity_id
LEFT JOIN (SELECT entity_id, any_value(entity_ord) AS adjacency_ord FROM graph_adjacency GROUP BY
    entity_id) o
    USING (entity_id)
ORDER BY n.entity_id
"""


def _graph_tables(con: duckdb.DuckDBPyConnection) -> None:
    con.execute(_EDGES_SQL)
    con.execute(_EDGE_EVIDENCE_SQL)
    con.execute(_ADJACENCY_SQL)
    con.execute(_NODES_SQL)
    con.execute(
        "CREATE TABLE entity_aliases AS SELECT a.*, n.entity_type FROM in_entity_aliases a "
        "JOIN in_nodes n USING (entity_id) ORDER BY a.alias_norm, a.entity_id, a.kind"
    )


_COMPANY_SECTORS_SQL = """
CREATE TABLE company_sectors AS
SELECT c.cik, c.company_id, c.sic,
       CASE WHEN TRY_CAST(c.sic AS INTEGER) IS NULL THEN NULL
            ELSE coalesce(arg_min(s.sector, s.sic_to - s.sic_from), 'Other') END AS sector
FROM companies c
LEFT JOIN sic_sectors s ON TRY_CAST(c.sic AS INTEGER) BETWEEN s.sic_from AND s.sic_to
GROUP BY c.cik, c.company_id, c.sic
ORDER BY c.cik
"""


def _write_retrieval_tables(con: duckdb.DuckDBPyConnection, tables: SnapshotTables) -> None:
    """The sector mapping (SIC ranges → plain names, per company) and the chunk index reference."""
    con.execute("CREATE TABLE sic_sectors (sic_from INTEGER, sic_to INTEGER, sector VARCHAR)")
    con.executemany("INSERT INTO sic_sectors VALUES (?, ?, ?)", [list(r) for r in SIC_RANGES])
    con.execute(_COMPANY_SECTORS_SQL)
    con.execute(
        "CREATE TABLE chunk_index (path VARCHAR, table_name VARCHAR, version BIGINT, "
        "rows BIGINT, chunks BIGINT, model_id VARCHAR, dimensions INTEGER, keys_digest VARCHAR)"
    )
    ref = tables.chunk_index
    if ref is not None:
        con.execute(
            "INSERT INTO chunk_index VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
            [
                ref.path,
                ref.table,
                ref.version,
                ref.rows,
                ref.chunks,
                ref.model_id,
                ref.dimensions,
                ref.keys_digest,
            ],
        )


# -- communities ---------------------------------------------------------------------------------
# Sector mix per community from its member companies' SIC codes (the companies table); the
# search index (terms) is computed in Python with the tokenizer questions are read with.
_COMMUNITY_SECTORS_SQL = """
CREATE TABLE community_sectors AS
SELECT m.community_id, co.sic, any_value(co.sic_description) AS sic_description,
       any_value(s.sector) AS sector, count(*)::BIGINT AS companies,
       (count(*) / greatest(any_value(c.companies), 1))::DOUBLE AS share
FROM in_c_members m
JOIN in_companies co ON co.company_id = m.entity_id
JOIN in_c_communities c USING (community_id)
LEFT JOIN in_c_sector_names s ON s.sic = co.sic
WHERE m.entity_type = 'company' AND co.sic IS NOT NULL
GROUP BY m.community_id, co.sic
ORDER BY co.sic, m.community_id
"""
_COMMUNITY_REPORTS_SQL = """
CREATE TABLE community_reports AS
WITH mix AS (
    SELECT community_id, sic, sic_description, sector, companies, share FROM community_sectors
    UNION ALL
    -- member companies SEC gives no SIC code for (or that are not in the companies table)
    SELECT c.community_id, NULL, NULL, NULL, (c.companies - coalesce(k.known, 0))::BIGINT,
           ((c.companies - coalesce(k.known, 0)) / greatest(c.companies, 1))::DOUBLE
    FROM in_c_communities c
    LEFT JOIN (SELECT community_id, sum(companies) AS known FROM community_sectors GROUP BY 1) k
        USING (community_id)
    WHERE c.companies > coalesce(k.known, 0)
)
SELECT r.*, coalesce(x.sector_mix, []) AS sector_mix
FROM in_c_reports r
LEFT JOIN (
    SELECT community_id,
           list({'sic': sic, 'sic_description': sic_description, 'sector': sector,
                 'companies': companies, 'share': share} ORDER BY sic IS NULL, companies DESC, sic)
                     AS sector_mix
    FROM mix GROUP BY community_id
) x USING (community_id)
ORDER BY r.community_id
"""


def _community_tables(con: duckdb.DuckDBPyConnection, tables: SnapshotTables) -> list[str]:
    """The communities, their reports and findings, the sector mix and the search index; the
    names of the frames registered (unregistered by the caller)."""
    ct = tables.communities
    if ct is None:
        return []
    from graphrag_core.store.community_index import term_rows

    sics = (
        tables.companies.select("sic").drop_nulls().unique()
        if "sic" in tables.companies.columns
        else pl.DataFrame({"sic": pl.Series([], dtype=pl.String)})
    )
    sector_names = sics.with_columns(
        pl.col("sic").map_elements(primary_sector, return_dtype=pl.String).alias("sector")
    )
    frames = {
        "in_c_communities": ct.communities,
        "in_c_members": ct.members,
        "in_c_levels": ct.levels,
        "in_c_reports": ct.reports,
        "in_c_findings": ct.findings,
        "in_c_sector_names": sector_names,
        "in_c_terms": term_rows(ct.reports, ct.findings, ct.members),
    }
    for name, frame in frames.items():
        con.register(name, frame.to_arrow())
    con.execute(
        "CREATE TABLE communities AS SELECT * FROM in_c_communities ORDER BY level, community_id"
    )
    con.execute(
        "CREATE TABLE community_members AS SELECT * FROM in_c_members ORDER BY "
        "community_id, weight DESC, entity_id"
    )
    con.execute("CREATE TABLE community_levels AS SELECT * FROM in_c_levels ORDER BY level")
    con.execute(_COMMUNITY_SECTORS_SQL)
    con.execute(_COMMUNITY_REPORTS_SQL)
    con.execute(
        "CREATE TABLE community_findings AS SELECT * FROM in_c_findings ORDER BY community_id, rank"
    )
    con.execute(
        "CREATE TABLE community_terms AS SELECT * FROM in_c_terms ORDER BY term, community_id"
    )
    return list(frames)


def _theme_tables(con: duckdb.DuckDBPyConnection, tables: SnapshotTables) -> list[str]:
    """The themes of the filings' own risk factors, and their members (what community_themes
    serves beside the relation communities); the frames registered (unregistered by the caller).
    A theme is `stale` while a filing that joined or left it waits for the daily refresh."""
    themes = tables.filing_themes
    if themes is None:
        return []
    frames = {"in_t_themes": themes.themes, "in_t_members": themes.members}
    for name, frame in frames.items():
        con.register(name, frame.to_arrow())
    con.execute(
        "CREATE TABLE filing_themes AS SELECT *, dirty_since IS NOT NULL AS stale "
        "FROM in_t_themes ORDER BY theme_id"
    )
    con.execute(
        "CREATE TABLE filing_theme_members AS SELECT 'CIK-' || cik AS company_id, * "
        "FROM in_t_members ORDER BY theme_id NULLS LAST, similarity DESC NULLS LAST, member_id"
    )
    return list(frames)


def _exists(con: duckdb.DuckDBPyConnection, table: str) -> bool:
    row = con.execute(
        "SELECT count(*) FROM duckdb_tables() WHERE database_name = current_database() "
        "AND table_name = ?",
        [table],
    ).fetchone()
    return bool(row and row[0])


def _columns(df: pl.DataFrame, wanted: tuple[str, ...]) -> pl.DataFrame:
    missing = [c for c in wanted if c not in df.columns]
    if missing:
        raise ValueError(f"input table lacks columns {missing}")
    return df.select(list(wanted))


def _count(con: duckdb.DuckDBPyConnection, table: str) -> int:
    # Table names are this module's own (snapshot_schema.TABLES), never outside input.
    row = con.execute(f'SELECT count(*) FROM "{table}"').fetchone()
    return int(row[0]) if row else 0


def build_database(
    tables: SnapshotTables,
    path: Path,
    *,
    info: dict[str, object],
    threads: int | None = None,
) -> dict[str, int]:
    """Write the snapshot database at `path` (a new file) and return row counts per table.

    `info` (version, as_of, built_at, code_version, inputs_digest) is stored in the one-row
    table `snapshot_info`, so the file describes itself even without its manifest.
    """
    if path.exists():
        raise FileExistsError(f"{path}: a snapshot database is built into a new file only")
    con = duckdb.connect()
    try:
        # Row groups of ROW_GROUP_SIZE rows (not DuckDB's 122,880): the server's lookups (an
        # entity's edges, a handful of edges' citations) read one small group instead of a large
        # one's wide columns; scans lose little. The path is the store's own staging file.
        con.execute(
            f"ATTACH '{str(path).replace(chr(39), chr(39) * 2)}' AS snapshot "
            f"(ROW_GROUP_SIZE {schema.ROW_GROUP_SIZE})"
        )
        con.execute("USE snapshot")
        if threads:
            con.execute(f"SET threads = {int(threads)}")
        frames = {
            "in_companies": tables.companies,
            "in_aliases": tables.company_aliases,
            "in_registrants": tables.registrants,
            "in_filings": _columns(tables.filings, schema.FILING_COLUMNS),
            "in_chunks": _columns(tables.chunks, schema.CHUNK_COLUMNS),
            "in_metrics": _all_metric_columns(tables.metric_observations),
            "in_edges": _columns(tables.edges, schema.EDGE_COLUMNS),
            "in_evidence": _columns(tables.edge_evidence, schema.EDGE_EVIDENCE_COLUMNS),
            "in_nodes": _columns(tables.nodes, schema.NODE_COLUMNS),
            "in_entity_aliases": _columns(tables.entity_aliases, schema.ENTITY_ALIAS_COLUMNS),
        }
        for name, frame in frames.items():
            con.register(name, frame.to_arrow())
        con.execute("CREATE TABLE companies AS SELECT * FROM in_companies ORDER BY cik")
        con.execute(
            "CREATE TABLE company_aliases AS SELECT * FROM in_aliases ORDER BY cik, kind, "
            "alias_norm"
        )
        con.execute("CREATE TABLE registrants AS SELECT * FROM in_registrants ORDER BY cik, ticker")
        con.execute(
            "CREATE TABLE filings AS SELECT 'CIK-' || cik AS company_id, * FROM in_filings "
            "ORDER BY cik, filed_date DESC NULLS LAST, filing_id"
        )
        # Ordered by id: point lookups prune row groups by min/max without an index.
        con.execute(
            "CREATE TABLE chunks AS SELECT c.*, f.cik FROM in_chunks c "
            "LEFT JOIN in_filings f USING (filing_id) ORDER BY c.chunk_id"
        )
        con.execute(
            "CREATE TABLE metric_observations AS SELECT 'CIK-' || cik AS company_id, * "
            "FROM in_metrics ORDER BY cik, metric, calendar_end DESC, observation_id"
        )
        _graph_tables(con)
        community_frames = _community_tables(con, tables)
        theme_frames = _theme_tables(con, tables)
        for name in [*frames, *community_frames, *theme_frames]:
            con.unregister(name)
        con.execute(_METRIC_VALUES_SQL)
        con.execute(_screen_basis_sql())
        con.execute(_window_basis_sql())
        con.execute(_window_spans_sql())
        con.execute(_METRIC_CATALOG_SQL)
        con.execute(_FILING_SECTIONS_SQL)
        _write_retrieval_tables(con, tables)
        write_company_facts(con, tables.company_facts)
        write_statement_lines(con, tables.statement_lines)
        con.execute(
            "CREATE TABLE snapshot_info AS SELECT $version AS version, $as_of::DATE AS as_of, "
            "$built_at::TIMESTAMPTZ AS built_at, $code_version AS code_version, "
            "$inputs_digest AS inputs_digest",
            {
                k: info.get(k)
                for k in ("version", "as_of", "built_at", "code_version", "inputs_digest")
            },
        )
        # A snapshot built without communities has none of their tables.
        counts = {name: _count(con, name) for name in schema.TABLES if _exists(con, name)}
        con.execute("CHECKPOINT")
    finally:
        con.close()
    return counts
