"""Every SQL statement the server runs. All are constants with `$named` parameters: tool
arguments only ever arrive as parameter values, never as SQL text. `bench/mcp.py` runs these
same statements straight against DuckDB to measure the floor under each tool."""

from __future__ import annotations

COMPANY_BY_CIK = """
SELECT company_id, cik, name, tickers, fiscal_year_end, sic, sic_description, filings
FROM companies WHERE cik = $cik
"""

COMPANY_BY_TICKER = """
SELECT c.company_id, c.cik, c.name, c.tickers, c.fiscal_year_end, c.sic, c.sic_description, c.filings
FROM company_aliases a JOIN companies c USING (cik)
WHERE a.kind = 'ticker' AND a.alias_norm = $ticker
ORDER BY c.filings DESC, c.cik
"""

# Ranked matches. Scores: exact ticker 1.0; exact name 0.97 (registrant 0.96, SEC title 0.95,
# former name 0.90, segment 0.80); a name starting with the query 0.85 (former 0.75, segment
# 0.70); the query as whole words inside a name 0.65 (segment 0.60).
FIND_COMPANY = """
WITH hits AS (
    SELECT cik, alias, kind,
        CASE
            WHEN kind = 'ticker' THEN CASE WHEN alias_norm = $ticker THEN 1.0 END
            WHEN alias_norm = $norm OR alias_compact = $compact THEN
                CASE kind WHEN 'name' THEN 0.97 WHEN 'registrant_name' THEN 0.96
                          WHEN 'ticker_title' THEN 0.95 WHEN 'former_name' THEN 0.90 ELSE 0.80 END
            WHEN length($norm) >= 3
                 AND (starts_with(alias_norm, $norm) OR starts_with(alias_compact, $compact)) THEN
                CASE kind WHEN 'segment' THEN 0.70 WHEN 'former_name' THEN 0.75 ELSE 0.85 END
            WHEN length($norm) >= 3 AND contains(' ' || alias_norm || ' ', ' ' || $norm || ' ') THEN
                CASE kind WHEN 'segment' THEN 0.60 ELSE 0.65 END
        END AS score
    FROM company_aliases
)
SELECT c.company_id, c.cik, c.name, c.tickers, c.fiscal_year_end, c.sic, c.sic_description,
       c.filings, max(h.score) AS score,
       arg_max(h.alias, h.score) AS matched_alias, arg_max(h.kind, h.score) AS matched_kind
FROM hits h JOIN companies c USING (cik)
WHERE h.score IS NOT NULL
GROUP BY ALL
ORDER BY score DESC, c.filings DESC, c.cik
LIMIT $limit
"""

# Near misses for a "did you mean": Jaro-Winkler similarity over names and tickers.
SUGGEST_COMPANY = """
SELECT c.company_id, c.cik, c.name, c.tickers,
       max(CASE WHEN a.kind = 'ticker' THEN jaro_winkler_similarity(a.alias_norm, $ticker)
                ELSE jaro_winkler_similarity(a.alias_norm, $norm) END) AS similarity
FROM company_aliases a JOIN companies c USING (cik)
GROUP BY ALL
HAVING similarity >= $threshold
ORDER BY similarity DESC, c.cik
LIMIT $limit
"""

# Known to SEC, absent from this snapshot: a miss that says what to do.
KNOWN_REGISTRANT = """
SELECT r.cik, r.ticker, r.title
FROM registrants r ANTI JOIN companies c USING (cik)
WHERE r.ticker = $ticker OR r.title_norm = $norm
ORDER BY r.cik
LIMIT 3
"""

_METRIC_COLUMNS = """
    metric, value, unit, fiscal_label, fiscal_year, fiscal_period, period_type,
    calendar_start, calendar_end, observation_id, filing_id, form, filed_date, fact_id, concept,
    chunk_id, section, prior_value, prior_fiscal_label,
    CASE WHEN prior_value > 0 THEN round((value / prior_value - 1) * 100, 2) END AS yoy_change_pct,
    superseded
"""

GET_METRICS = f"""
SELECT {_METRIC_COLUMNS},
       count(*) OVER (PARTITION BY metric) AS available
FROM metric_values
WHERE cik = $cik AND list_contains($metrics, metric)
  AND CASE WHEN $annual THEN in_annual ELSE in_quarterly END
QUALIFY row_number() OVER (PARTITION BY metric ORDER BY calendar_end DESC, calendar_start DESC) <= $periods
ORDER BY metric, calendar_end DESC, calendar_start DESC
"""

METRIC_IDS = "SELECT metric FROM metric_catalog"

COMPANY_METRICS = """
SELECT metric, bool_or(in_annual) AS annual, bool_or(in_quarterly) AS quarterly
FROM metric_values WHERE cik = $cik
GROUP BY metric ORDER BY metric
"""

LATEST_KEY_METRICS = f"""
SELECT 'annual' AS kind, {_METRIC_COLUMNS}
FROM metric_values
WHERE cik = $cik AND list_contains($metrics, metric) AND in_annual
QUALIFY row_number() OVER (PARTITION BY metric ORDER BY calendar_end DESC, calendar_start DESC) = 1
UNION ALL
SELECT 'quarter' AS kind, {_METRIC_COLUMNS}
FROM metric_values
WHERE cik = $cik AND list_contains($metrics, metric) AND in_quarterly
QUALIFY row_number() OVER (PARTITION BY metric ORDER BY calendar_end DESC, calendar_start DESC) = 1
"""

# Arithmetic here, in SQL: growth, margins and leverage from the reported figures that
# screen_basis selected (the latest period per company and the same period a year earlier).
# Filtering and ranking read screen_basis's plain number columns; the figure structs (values
# with citations) are read for the hits only.
SCREEN = """
WITH scored AS (
    SELECT cik, revenue_value, revenue_unit,
        CASE WHEN revenue_prior_value > 0
             THEN (revenue_value / revenue_prior_value - 1) * 100 END AS revenue_growth_pct,
        CASE WHEN revenue_value > 0 THEN
             CASE $margin WHEN 'gross' THEN gross_profit_value WHEN 'net' THEN net_income_value
                  ELSE operating_income_value END / revenue_value * 100 END AS margin_pct,
        CASE WHEN revenue_prior_value > 0 THEN
             CASE $margin WHEN 'gross' THEN gross_profit_prior_value WHEN 'net' THEN net_income_prior_value
                  ELSE operating_income_prior_value END / revenue_prior_value * 100 END AS prior_margin_pct,
        CASE WHEN stockholders_equity_value > 0
             THEN total_debt_value / stockholders_equity_value END AS debt_to_equity
    FROM screen_basis
    WHERE period_kind = $period_kind
),
passed AS (
    SELECT *, margin_pct - prior_margin_pct AS margin_trend_pp, count(*) OVER () AS matched,
           CASE $sort_by
               WHEN 'revenue' THEN revenue_value
               WHEN 'margin_trend' THEN margin_pct - prior_margin_pct
               WHEN 'debt_to_equity' THEN -debt_to_equity
               ELSE revenue_growth_pct END AS rank_key
    FROM scored
    WHERE ($min_revenue_growth IS NULL OR revenue_growth_pct >= $min_revenue_growth)
      AND ($max_debt_to_equity IS NULL OR debt_to_equity <= $max_debt_to_equity)
      AND ($min_margin_trend IS NULL OR margin_pct - prior_margin_pct >= $min_margin_trend)
      AND ($min_revenue IS NULL OR (revenue_unit = 'USD' AND revenue_value >= $min_revenue))
      AND ($sector IS NULL OR cik IN (SELECT cik FROM company_sectors WHERE sector = $sector))
),
top AS (SELECT * FROM passed ORDER BY rank_key DESC NULLS LAST, cik LIMIT $limit)
SELECT c.company_id, t.cik, c.name, c.tickers, b.fiscal_label, b.calendar_end, b.prior_fiscal_label,
       b.revenue, b.gross_profit, b.operating_income, b.net_income, b.total_debt, b.stockholders_equity,
       round(t.revenue_growth_pct, 2) AS revenue_growth_pct, round(t.margin_pct, 2) AS margin_pct,
       round(t.prior_margin_pct, 2) AS prior_margin_pct, round(t.margin_trend_pp, 2) AS margin_trend_pp,
       round(t.debt_to_equity, 4) AS debt_to_equity, t.matched
FROM top t
JOIN screen_basis b ON b.cik = t.cik AND b.period_kind = $period_kind
JOIN companies c ON c.cik = t.cik
ORDER BY t.rank_key DESC NULLS LAST, t.cik
"""

GET_CHUNK = """
SELECT c.chunk_id, c.filing_id, f.form, f.company_id, f.company, f.filed_date, c.section, c.kind,
       c.char_start, c.char_end, c.scale_header,
       substr(c.text, $offset + 1, $max_chars) AS text, length(c.text) AS total_chars
FROM chunks c LEFT JOIN filings f USING (filing_id)
WHERE c.chunk_id = $chunk_id
"""

COMPANY_PROFILE = """
SELECT company_id, cik, name, tickers, exchanges, fiscal_year_end, sic, sic_description,
       [f.name FOR f IN former_names] AS former_names, filings, first_filed, last_filed
FROM companies WHERE cik = $cik
"""

LATEST_FILINGS = """
SELECT filing_id, form, period_end, fiscal_year, fiscal_period, filed_date
FROM filings WHERE cik = $cik
ORDER BY filed_date DESC NULLS LAST, period_end DESC NULLS LAST, filing_id
LIMIT $limit
"""

FILING_SECTIONS = """
SELECT filing_id, section, chunks, kinds
FROM filing_sections WHERE cik = $cik AND list_contains($filing_ids, filing_id)
ORDER BY filing_id, char_start, section
"""

STATUS_INFO = "SELECT version, as_of, built_at, code_version FROM snapshot_info"
STATUS_FORMS = "SELECT form, count(*) AS filings FROM filings GROUP BY form ORDER BY form"
STATUS_METRICS = """
SELECT metric, units, companies, annual_values, quarterly_values, first_period_end, last_period_end
FROM metric_catalog ORDER BY metric
"""


# -- passages, citations, peers (retrieval) ---------------------------------------------------
# Names a query or an answer may mention: companies' own names and SEC titles (and former
# names and segments for queries), normalized; short ones are too ambiguous to match in text.
MENTION_ALIASES = """
SELECT a.alias_norm, a.kind, c.company_id, c.name
FROM company_aliases a JOIN companies c USING (cik)
WHERE (a.kind IN ('name', 'registrant_name', 'ticker_title', 'former_name', 'segment')
       AND length(a.alias_norm) >= 4)
   OR a.kind = 'ticker'
ORDER BY c.cik, a.kind, a.alias_norm
"""

SEARCH_HIT_DETAILS = """
SELECT c.chunk_id, length(c.text) AS chunk_chars, f.filed_date, f.fiscal_year, f.fiscal_period
FROM chunks c LEFT JOIN filings f USING (filing_id)
WHERE list_contains($chunk_ids, c.chunk_id)
"""

CHUNK_EVIDENCE = """
SELECT c.chunk_id, c.filing_id, c.text, c.scale_header
FROM chunks c WHERE c.chunk_id = $chunk_id
"""

# The one query graph expansion goes through: edges stated in filings of these companies (the
# filer), or naming one of them as subject or object, with up to $quotes verbatim quotes each.
GRAPH_EDGES_FOR_COMPANIES = """
WITH picked AS (
    SELECT e.*
    FROM edges e
    WHERE list_contains($company_ids, e.filer_id)
       OR list_contains($names, lower(e.subject)) OR list_contains($names, lower(e.object))
    ORDER BY e.support DESC NULLS LAST, e.edge_id
    LIMIT $limit
)
SELECT p.edge_id, p.subject, p.relation, p.object, p.value, p.unit, p.period, p.filer_id, p.support,
       (SELECT list({'quote': ev.quote, 'filing_id': ev.filing_id, 'chunk_id': ev.chunk_id,
                     'section': ev.section, 'form': f.form, 'filed_date': f.filed_date}
                    ORDER BY ev.filing_id, ev.char_start)[1:$quotes]
        FROM edge_evidence ev LEFT JOIN filings f ON f.filing_id = ev.filing_id
        WHERE ev.edge_id = p.edge_id) AS evidence,
       count(*) OVER () AS shown
FROM picked p
ORDER BY p.support DESC NULLS LAST, p.edge_id
"""

SECTOR_NAMES = "SELECT DISTINCT sector FROM sic_sectors ORDER BY sector"

SECTOR_COMPANIES = """
SELECT c.company_id, c.cik, c.name, c.tickers, c.fiscal_year_end, s.sector
FROM company_sectors s JOIN companies c USING (cik)
WHERE s.sector = $sector
ORDER BY c.filings DESC, c.cik
"""

COMPANY_SECTOR = "SELECT sector FROM company_sectors WHERE cik = $cik"

# Each company's period that best covers the calendar range [$start, $end]: for flows the
# period sharing the most days with it (at least half the range), for balances the period end
# closest to $end within the range (or up to a quarter after it).
COMPARE_PEERS = """
WITH candidates AS (
    SELECT v.*,
        CASE WHEN v.period_type = 'duration' THEN
            greatest(0, datediff('day', greatest(v.calendar_start, $start::DATE),
                                        least(v.calendar_end, $end::DATE)) + 1)
        ELSE CASE WHEN v.calendar_end BETWEEN $start::DATE AND $end::DATE + INTERVAL 92 DAY
                  THEN 1 ELSE 0 END END AS overlap_days,
        CASE WHEN v.period_type = 'duration' THEN 0
             ELSE abs(datediff('day', v.calendar_end, $end::DATE)) END AS distance
    FROM metric_values v
    WHERE list_contains($ciks, v.cik) AND list_contains($metrics, v.metric)
      AND CASE WHEN $annual THEN v.in_annual ELSE v.in_quarterly END
)
SELECT cik, metric, value, unit, fiscal_label, calendar_start, calendar_end, overlap_days,
       filing_id, form, filed_date, section, chunk_id, fact_id, concept,
       CASE WHEN prior_value > 0 THEN round((value / prior_value - 1) * 100, 2) END AS yoy_change_pct
FROM candidates
WHERE (period_type = 'duration' AND overlap_days * 2 >= datediff('day', $start::DATE, $end::DATE) + 1)
   OR (period_type <> 'duration' AND overlap_days > 0)
QUALIFY row_number() OVER (
    PARTITION BY cik, metric ORDER BY overlap_days DESC, distance, calendar_end DESC) = 1
ORDER BY cik, metric
"""

LATEST_PERIOD_ENDS = """
SELECT cik, max(calendar_end) AS latest_end
FROM metric_values
WHERE list_contains($ciks, cik) AND metric = $metric AND period_type = 'duration'
  AND CASE WHEN $annual THEN in_annual ELSE in_quarterly END
GROUP BY cik
"""
