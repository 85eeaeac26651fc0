"""The SQL of the company, metric, screen, search and citation tools (the knowledge graph's is
in `mcp_server.graph_queries`). All are constants with `$named` parameters: tool arguments only
ever arrive as parameter values, never as SQL text. `bench/mcp.py` runs these same statements
straight against DuckDB to measure the floor under each tool."""

from __future__ import annotations

from mcp_server.graph_queries import HALF_OVERLAP

COMPANY_BY_CIK = """
SELECT company_id, cik, name, tickers, fiscal_year_end, sic, sic_description, filings
FROM companies WHERE cik = $cik
"""

COMPANY_BY_TICKER = """
SELECT c.company_id, c.cik, c.name, c.tickers, c.fiscal_year_end, c.sic, c.sic_description,
    c.filings
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

# A stored value that is not a finite number (NaN, ±Infinity: a snapshot published before
# facts were checked may hold them) is missing, never a figure: rows whose own value is not
# finite are filtered out where a query reads metric_values, a year-ago value or an earlier
# report that is not finite is dropped, and nothing is computed from one. (DuckDB orders NaN
# above every number, so `prior_value > 0` alone would let it through.)
_FINITE_VALUE = "isfinite(value)"

_METRIC_COLUMNS = """
    metric, value, unit, fiscal_label, fiscal_year, fiscal_period, period_type,
    calendar_start, calendar_end, observation_id, filing_id, form, filed_date, fact_id, concept,
    chunk_id, section,
    CASE WHEN isfinite(prior_value) THEN prior_value END AS prior_value,
    CASE WHEN isfinite(prior_value) THEN prior_fiscal_label END AS prior_fiscal_label,
    CASE WHEN isfinite(prior_value) AND prior_value > 0
         THEN round((value / prior_value - 1) * 100, 2) END AS yoy_change_pct,
    list_filter(superseded, lambda s: isfinite(s.value)) AS superseded, restated, source_kind,
    derived, derivation, mapping_rule,
    list_filter(derived_from, lambda o: isfinite(o.value)) AS derived_from,
    CASE WHEN isfinite(as_filed_value) THEN as_filed_value END AS as_filed_value, split_basis
"""

GET_METRICS = f"""
SELECT {_METRIC_COLUMNS},
       count(*) OVER (PARTITION BY metric) AS available
FROM metric_values
WHERE cik = $cik AND list_contains($metrics, metric) AND {_FINITE_VALUE}
  AND CASE $kind WHEN 'annual' THEN in_annual WHEN 'quarter' THEN in_quarterly
                 WHEN 'half_year' THEN in_half_year ELSE in_nine_months END
QUALIFY row_number() OVER (PARTITION BY metric ORDER BY calendar_end DESC, calendar_start DESC) <=
    $periods
ORDER BY metric, calendar_end DESC, calendar_start DESC
"""

METRIC_IDS = "SELECT metric FROM metric_catalog"

COMPANY_METRICS = f"""
SELECT metric, bool_or(in_annual) AS annual, bool_or(in_quarterly) AS quarterly,
       bool_or(in_half_year) AS half_year, bool_or(in_nine_months) AS nine_months,
       max(calendar_end) AS latest_end
FROM metric_values WHERE cik = $cik AND {_FINITE_VALUE}
GROUP BY metric ORDER BY metric
"""

LATEST_KEY_METRICS = f"""
SELECT 'annual' AS kind, {_METRIC_COLUMNS}
FROM metric_values
WHERE cik = $cik AND list_contains($metrics, metric) AND in_annual AND {_FINITE_VALUE}
QUALIFY row_number() OVER (PARTITION BY metric ORDER BY calendar_end DESC, calendar_start DESC) = 1
UNION ALL
SELECT 'quarter' AS kind, {_METRIC_COLUMNS}
FROM metric_values
WHERE cik = $cik AND list_contains($metrics, metric) AND in_quarterly AND {_FINITE_VALUE}
QUALIFY row_number() OVER (PARTITION BY metric ORDER BY calendar_end DESC, calendar_start DESC) = 1
"""

# -- explore_company and local_search for a period or as of a date (issue 25, item 3) --------
# The same rules as the edges' (graph_queries' time filter; $period, $range_start/$range_end,
# $known_by, all null for none). A filing is for a fiscal label when its own fiscal year and
# part make that label; for a calendar range when its span (a 10-K's twelve months, a 10-Q's
# three, ending at its period end) shares at least half of the shorter of the two; known by a
# date when filed on or before it (a filing with no filing date is left out, as an undated edge).
_FILING_LABEL = """CASE WHEN fiscal_year IS NULL THEN NULL
            WHEN fiscal_period IS NULL OR upper(fiscal_period) = 'FY' THEN 'FY' || fiscal_year
            ELSE upper(fiscal_period) || '-FY' || fiscal_year END"""
_FILING_MONTHS = """CASE WHEN fiscal_period = 'FY' OR (fiscal_period IS NULL AND form LIKE '10-K%')
                 THEN 12
            WHEN fiscal_period IN ('H1', 'H2') THEN 6 WHEN fiscal_period = '9M' THEN 9
            WHEN fiscal_period IN ('Q1', 'Q2', 'Q3', 'Q4')
                 OR (fiscal_period IS NULL AND form LIKE '10-Q%') THEN 3 END"""
_OVERLAP_FILING = HALF_OVERLAP.format(
    s="(period_end - to_months(months) + INTERVAL 1 DAY)::DATE", e="period_end"
)
LATEST_FILINGS_IN_TIME = f"""
WITH f AS (
    SELECT filing_id, form, period_end, fiscal_year, fiscal_period, filed_date,
           {_FILING_LABEL} AS fiscal_label, {_FILING_MONTHS} AS months
    FROM filings WHERE cik = $cik
)
SELECT filing_id, form, period_end, fiscal_year, fiscal_period, filed_date
FROM f
WHERE (CAST($period AS VARCHAR) IS NULL OR fiscal_label = $period)
  AND (CAST($range_start AS DATE) IS NULL
       OR (period_end IS NOT NULL AND months IS NOT NULL AND {_OVERLAP_FILING})
       OR (period_end IS NOT NULL AND months IS NULL
           AND period_end BETWEEN $range_start::DATE AND $range_end::DATE))
  AND (CAST($known_by AS DATE) IS NULL OR filed_date <= $known_by::DATE)
ORDER BY filed_date DESC NULLS LAST, period_end DESC NULLS LAST, filing_id
LIMIT $limit
"""

# A value is for the period when its fiscal label is the label, or its calendar span (an
# instant: its date) shares at least half of the shorter of it and the range.
_VALUE_IN_PERIOD = f"""
    (CAST($period AS VARCHAR) IS NULL OR {{a}}fiscal_label = $period)
    AND (CAST($range_start AS DATE) IS NULL
         OR ({{a}}calendar_end IS NOT NULL AND {
    HALF_OVERLAP.format(s="coalesce({a}calendar_start, {a}calendar_end)", e="{a}calendar_end")
}))"""
_KIND_FILTER = {
    "annual": "{a}fiscal_period = 'FY'",
    "quarter": "({a}fiscal_period IN ('Q1', 'Q2', 'Q3', 'Q4') "
    "OR ({a}period_type = 'instant' AND {a}fiscal_period = 'FY'))",
}

# For a period only: the snapshot's current values (restatements and splits applied), the
# latest in the period per metric and kind.
_LATEST_PER_METRIC = (
    "QUALIFY row_number() OVER (PARTITION BY metric "
    "ORDER BY calendar_end DESC, calendar_start DESC) = 1"
)
LATEST_KEY_METRICS_IN_PERIOD = "\nUNION ALL\n".join(
    f"""SELECT '{kind}' AS kind, {_METRIC_COLUMNS}
FROM metric_values
WHERE cik = $cik AND list_contains($metrics, metric) AND {_FINITE_VALUE}
  AND {cond.format(a="")} AND {_VALUE_IN_PERIOD.format(a="")}
{_LATEST_PER_METRIC}"""
    for kind, cond in _KIND_FILTER.items()
)

# As of a date: what the filings filed by then reported, chosen as metric_values chooses the
# current value (a filing's own over a release's, reported over derived, then the newest filing)
# among them only; the value as filed (a stock split announced later is not yet applied), a
# later restatement not yet applied, the earlier reports of the period that differ as its
# superseded values, the like period a year earlier as known then.
_PICKED = "\nUNION ALL\n".join(
    f"""SELECT '{kind}' AS kind, * FROM cur
WHERE {cond.format(a="")} AND {_VALUE_IN_PERIOD.format(a="")}
{_LATEST_PER_METRIC}"""
    for kind, cond in _KIND_FILTER.items()
)
LATEST_KEY_METRICS_AS_OF = f"""
WITH obs AS (
    SELECT o.*, c.section,
           row_number() OVER (
               PARTITION BY o.metric, o.unit, o.period_type, o.calendar_start, o.calendar_end
               ORDER BY (o.source_kind IS DISTINCT FROM 'press_release')::INTEGER * 2
                        + (NOT coalesce(o.derived, false))::INTEGER DESC,
                        o.filed_date DESC, o.filing_id DESC, o.observation_id DESC
           ) AS recency
    FROM metric_observations o LEFT JOIN chunks c ON c.chunk_id = o.chunk_id
    WHERE o.cik = $cik AND list_contains($metrics, o.metric) AND isfinite(o.value)
      AND o.filed_date <= $known_by::DATE
),
cur AS (SELECT * FROM obs WHERE recency = 1),
old AS (
    SELECT o.metric, o.unit, o.period_type, o.calendar_start, o.calendar_end,
           list({{'value': o.value, 'fiscal_label': o.fiscal_label, 'filing_id': o.filing_id,
                 'form': o.form, 'filed_date': o.filed_date, 'section': o.section,
                 'chunk_id': o.chunk_id, 'fact_id': o.fact_id, 'concept': o.concept,
                 'source_kind': o.source_kind, 'supersede_reason': o.supersede_reason,
                 'supersede_detail': o.supersede_detail}} ORDER BY o.recency) AS superseded
    FROM obs o JOIN cur c USING (metric, unit, period_type, calendar_start, calendar_end)
    WHERE o.recency > 1 AND o.value IS DISTINCT FROM c.value
    GROUP BY ALL
),
picked AS (
{_PICKED}
),
-- The operands of a derived value (Q4 = FY − 9M), each cited, as the current values carry them.
operand_ids AS (
    SELECT observation_id, unnest(derived_from) AS operand_id,
           generate_subscripts(derived_from, 1) AS position
    FROM (SELECT DISTINCT observation_id, derived_from FROM picked WHERE coalesce(derived, false))
),
operands AS (
    SELECT d.observation_id,
           list({{'value': s.value, 'fiscal_label': s.fiscal_label, 'observation_id':
                 s.observation_id, 'filing_id': s.filing_id, 'form': s.form,
                 'filed_date': s.filed_date, 'section': s.section, 'chunk_id': s.chunk_id,
                 'fact_id': s.fact_id, 'concept': s.concept, 'source_kind': s.source_kind}}
                ORDER BY d.position) AS derived_from
    FROM operand_ids d JOIN obs s ON s.observation_id = d.operand_id
    GROUP BY d.observation_id
)
SELECT p.kind, p.metric, p.value, p.unit, p.fiscal_label, p.fiscal_year, p.fiscal_period,
       p.period_type, p.calendar_start, p.calendar_end, p.observation_id, p.filing_id, p.form,
       p.filed_date, p.fact_id, p.concept, p.chunk_id, p.section,
       CASE WHEN isfinite(y.value) THEN y.value END AS prior_value,
       CASE WHEN isfinite(y.value) THEN y.fiscal_label END AS prior_fiscal_label,
       CASE WHEN isfinite(y.value) AND y.value > 0
            THEN round((p.value / y.value - 1) * 100, 2) END AS yoy_change_pct,
       coalesce(old.superseded, []) AS superseded, old.superseded IS NOT NULL AS restated,
       coalesce(p.source_kind, 'xbrl') AS source_kind, coalesce(p.derived, false) AS derived,
       p.derivation, p.mapping_rule, coalesce(ops.derived_from, []) AS derived_from,
       p.value AS as_filed_value, NULL AS split_basis
FROM picked p
LEFT JOIN old USING (metric, unit, period_type, calendar_start, calendar_end)
LEFT JOIN operands ops ON ops.observation_id = p.observation_id
LEFT JOIN cur y
  ON y.metric = p.metric AND y.unit = p.unit AND y.period_type = p.period_type
 AND y.fiscal_period = p.fiscal_period AND y.fiscal_year = p.fiscal_year - 1
 AND y.calendar_end BETWEEN p.calendar_end - INTERVAL 400 DAY AND p.calendar_end - INTERVAL 330 DAY
QUALIFY row_number() OVER (
    PARTITION BY p.kind, p.metric
    ORDER BY abs(datediff('day', y.calendar_end, p.calendar_end - INTERVAL 1 YEAR)) NULLS LAST
) = 1
"""

# Arithmetic here, in SQL: growth, margins and leverage from the reported figures that
# screen_basis selected (the latest period per company and the same period a year earlier).
# Filtering and ranking read screen_basis's plain number columns; the figure structs (values
# with citations) are read for the hits only.
# Figures that are not finite numbers are missing (NULL) before any arithmetic; a company whose
# latest revenue is not a number has no revenue to screen on, as one without revenue.
_SCREEN_NUMBERS = (
    "revenue_prior_value",
    "gross_profit_value",
    "gross_profit_prior_value",
    "operating_income_value",
    "operating_income_prior_value",
    "net_income_value",
    "net_income_prior_value",
    "total_debt_value",
    "stockholders_equity_value",
)
_SCREEN_FINITE = ",\n           ".join(
    f"CASE WHEN isfinite({c}) THEN {c} END AS {c}" for c in _SCREEN_NUMBERS
)

SCREEN = f"""
WITH basis AS (
    SELECT cik, revenue_unit, revenue_value, {_SCREEN_FINITE}
    FROM screen_basis
    WHERE period_kind = $period_kind AND isfinite(revenue_value)
),
scored AS (
    SELECT cik, revenue_value, revenue_unit,
        CASE WHEN revenue_prior_value > 0
             THEN (revenue_value / revenue_prior_value - 1) * 100 END AS revenue_growth_pct,
        CASE WHEN revenue_value > 0 THEN
             CASE $margin WHEN 'gross' THEN gross_profit_value WHEN 'net' THEN net_income_value
                  ELSE operating_income_value END / revenue_value * 100 END AS margin_pct,
        CASE WHEN revenue_prior_value > 0 THEN
             CASE $margin WHEN 'gross' THEN gross_profit_prior_value WHEN 'net' THEN
                 net_income_prior_value
                  ELSE operating_income_prior_value END / revenue_prior_value * 100 END AS
                      prior_margin_pct,
        CASE WHEN stockholders_equity_value > 0
             THEN total_debt_value / stockholders_equity_value END AS debt_to_equity
    FROM basis
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
      AND ($sics IS NULL
           OR cik IN (SELECT cik FROM company_sectors WHERE list_contains($sics, sic)))
),
top AS (SELECT * FROM passed ORDER BY rank_key DESC NULLS LAST, cik LIMIT $limit)
SELECT c.company_id, t.cik, c.name, c.tickers, b.fiscal_label, b.calendar_end, b.prior_fiscal_label,
       b.revenue, b.gross_profit, b.operating_income, b.net_income, b.total_debt,
           b.stockholders_equity,
       round(t.revenue_growth_pct, 2) AS revenue_growth_pct, round(t.margin_pct, 2) AS margin_pct,
       round(t.prior_margin_pct, 2) AS prior_margin_pct, round(t.margin_trend_pp, 2) AS
           margin_trend_pp,
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

SECTOR_COMPANIES = """
SELECT c.company_id, c.cik, c.name, c.tickers, c.fiscal_year_end, s.sector
FROM company_sectors s JOIN companies c USING (cik)
WHERE list_contains($sics, s.sic)
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
    WHERE list_contains($ciks, v.cik) AND list_contains($metrics, v.metric) AND isfinite(v.value)
      AND CASE WHEN $annual THEN v.in_annual ELSE v.in_quarterly END
)
SELECT cik, metric, value, unit, fiscal_label, calendar_start, calendar_end, overlap_days,
       filing_id, form, filed_date, section, chunk_id, fact_id, concept,
       CASE WHEN isfinite(prior_value) AND prior_value > 0
            THEN round((value / prior_value - 1) * 100, 2) END AS yoy_change_pct
FROM candidates
WHERE (period_type = 'duration' AND overlap_days * 2 >= datediff('day', $start::DATE, $end::DATE) +
    1)
   OR (period_type <> 'duration' AND overlap_days > 0)
QUALIFY row_number() OVER (
    PARTITION BY cik, metric ORDER BY overlap_days DESC, distance, calendar_end DESC) = 1
ORDER BY cik, metric
"""

LATEST_PERIOD_ENDS = f"""
SELECT cik, max(calendar_end) AS latest_end
FROM metric_values
WHERE list_contains($ciks, cik) AND metric = $metric AND period_type = 'duration' AND
    {_FINITE_VALUE}
  AND CASE WHEN $annual THEN in_annual ELSE in_quarterly END
GROUP BY cik
"""

# -- claim checks (check_citations reads what a cited record is about) -------------------------
# A cited fact as a claim record: whose value, which metric and period, the year-ago value. The
# current value first; a superseded observation (cited from `superseded`) has no year-ago pair.
CLAIM_FACT = """
SELECT * FROM (
    SELECT 0 AS rank, c.name AS company, m.metric, m.value, m.unit, m.fiscal_label, m.fiscal_year,
           m.fiscal_period, m.calendar_start, m.calendar_end,
           CASE WHEN isfinite(m.prior_value) THEN m.prior_value END AS prior_value,
           m.prior_fiscal_label, m.prior_calendar_start, m.prior_calendar_end, ch.scale_header
    FROM metric_values m JOIN companies c USING (cik) LEFT JOIN chunks ch USING (chunk_id)
    WHERE m.fact_id = $fact_id AND isfinite(m.value)
    UNION ALL
    SELECT 1, c.name, o.metric, o.value, o.unit, o.fiscal_label, o.fiscal_year, o.fiscal_period,
           o.calendar_start, o.calendar_end, NULL, NULL, NULL, NULL, ch.scale_header
    FROM metric_observations o JOIN companies c USING (cik) LEFT JOIN chunks ch USING (chunk_id)
    WHERE o.fact_id = $fact_id AND isfinite(o.value)
) ORDER BY rank
"""

# A cited chunk with whose filing it is and the period the filing reports.
CLAIM_CHUNK = """
SELECT c.chunk_id, c.text, c.scale_header, co.name AS company, f.fiscal_year, f.fiscal_period,
       f.period_end
FROM chunks c LEFT JOIN filings f USING (filing_id) LEFT JOIN companies co ON co.cik = f.cik
WHERE c.chunk_id = $chunk_id
"""

# search_facts (issue 23, item 2): one company's newest copy of each fact whose concept words,
# row label and member names contain every query word (as word prefixes), narrowed by period
# and dimension; consolidated facts first, then one member, segment metrics first among those.
SEARCH_FACTS = """
SELECT f.concept, f.row_label, f.value, f.unit, f.decimals, f.period_type, f.period_start,
       f.period_end, f.fiscal_label, f.fiscal_year, f.fiscal_period, f.dimensions, f.members,
       f.breakdown, f.member_name, f.segment_metric, f.filing_id, f.form, f.filed_date,
       f.chunk_id, f.fact_id, f.conflict, c.section, count(*) OVER () AS matched
FROM company_facts f
LEFT JOIN chunks c ON c.chunk_id = f.chunk_id
WHERE f.cik = $cik AND f.is_latest AND isfinite(f.value)
  AND len(list_filter($words, lambda w: NOT contains(' ' || f.search_text, ' ' || w))) = 0
  AND ($fiscal_label IS NULL OR f.fiscal_label = $fiscal_label)
  AND ($fiscal_year IS NULL OR f.fiscal_year = $fiscal_year)
  AND CASE $dimension_mode
        WHEN 'none' THEN len(f.members) = 0
        WHEN 'any' THEN len(f.members) > 0
        WHEN 'breakdown' THEN f.breakdown = $breakdown
        WHEN 'member' THEN len(list_filter($member_words, lambda w: NOT contains(
            ' ' || lower(array_to_string(f.members, ' ')), ' ' || w))) = 0 AND len(f.members) > 0
        ELSE TRUE END
ORDER BY len(f.members), f.segment_metric IS NULL, f.period_end DESC, f.concept, f.member_name,
    f.fact_id
LIMIT $limit
"""
SEARCH_FACTS_PERIODS = """
SELECT fiscal_label, max(period_end) AS period_end FROM company_facts
WHERE cik = $cik AND is_latest AND fiscal_period IN ('FY', 'Q1', 'Q2', 'Q3', 'Q4', 'H1', '9M')
GROUP BY fiscal_label ORDER BY period_end DESC, fiscal_label LIMIT 12
"""

# The end of a company's latest period: of a filing it filed or of a metric value it reported
# (a filing without XBRL has no metric, and its period still dates the company).
COMPANY_LATEST_PERIOD = """
SELECT max(latest_end) AS latest_end FROM (
    SELECT max(period_end) AS latest_end FROM filings WHERE cik = $cik
    UNION ALL
    -- Durations only: a cover page's share count is dated weeks after the period it closes.
    SELECT max(calendar_end) FROM metric_values WHERE cik = $cik AND period_type = 'duration'
)
"""

# -- issue 23: screens over windows of periods, ratio series ------------------------------------
# The window screen. Per company, its newest $window periods of the kind (fiscal years or
# three-month quarters) with reported revenue, one after another; each trend criterion must hold
# in EVERY period of the window, against the like period a year earlier (year over year) or the
# period just before (sequential, which must itself follow on). Debt at the window's start is
# total_debt at the end of the period before the window (the opening balance of its oldest
# period), at its end total_debt at the newest period's end. A missing or non-finite figure fails
# every criterion that needs it. Filtering and ranking read window_spans, one row per company
# computed at publish for each window length (a criterion holds in every period when the
# window's lowest value passes it); the shown hits' periods come from window_basis (k = 1
# newest) in the same statement, one row per hit and period, and their cited figures are fetched
# by metric_values row id (WINDOW_FIGURES).
# One statement per trend basis and margin, each naming its own columns: DuckDB parses and binds
# every call (its Python API keeps no prepared statement), and that cost grows with the text:
# the columns chosen by `CASE $param` branches made the statement twice as long and were most of
# a screen's time. The keys are the tool's Literal arguments; no argument enters the text.
_WINDOW_STATEMENT = """
WITH hits AS (
    SELECT cik, latest_rev, debt_start_row, debt_end_row, equity_row, debt_change, dte,
           growth_{b}_latest AS latest_growth, {m}_trend_{b}_latest AS latest_trend,
           count(*) OVER () AS matched
    FROM window_spans
    WHERE period_kind = CASE WHEN $annual THEN 'annual' ELSE 'quarter' END
      AND span = $window AND chain_{b}
      AND ($sics IS NULL
           OR cik IN (SELECT cik FROM company_sectors WHERE list_contains($sics, sic)))
      AND ($min_revenue_growth IS NULL OR growth_{b}_floor >= $min_revenue_growth)
      AND ($min_margin_trend IS NULL OR {m}_trend_{b}_floor >= $min_margin_trend)
      AND ($max_debt_change IS NULL OR debt_change <= $max_debt_change)
      AND ($max_debt_to_equity IS NULL OR dte <= $max_debt_to_equity)
      AND ($min_revenue IS NULL OR (unit = 'USD' AND latest_rev >= $min_revenue))
),
top AS (
    SELECT *, CASE $sort_by WHEN 'revenue' THEN latest_rev WHEN 'margin_trend' THEN latest_trend
               WHEN 'debt_to_equity' THEN -dte WHEN 'debt_change' THEN -debt_change
               ELSE latest_growth END AS rank_key
    FROM hits ORDER BY rank_key DESC NULLS LAST, cik LIMIT $limit
)
SELECT c.company_id, t.cik, c.name, c.tickers, t.matched, t.rank_key,
       round(t.latest_growth, 2) AS revenue_growth_pct, round(t.debt_change, 2) AS debt_change_pct,
       round(t.dte, 4) AS debt_to_equity, t.debt_start_row, t.debt_end_row, t.equity_row, p.k,
       round(CASE WHEN p.revenue_{c}_value > 0
             THEN (p.revenue_value / p.revenue_{c}_value - 1) * 100 END, 2) AS growth,
       round(CASE WHEN p.revenue_value > 0 THEN p.{m}_value / p.revenue_value * 100 END, 2)
           AS margin,
       round(CASE WHEN p.revenue_{c}_value > 0
             THEN p.{m}_{c}_value / p.revenue_{c}_value * 100 END, 2) AS base_margin,
       round(CASE WHEN p.revenue_value > 0 THEN p.{m}_value / p.revenue_value * 100 END
             - CASE WHEN p.revenue_{c}_value > 0
               THEN p.{m}_{c}_value / p.revenue_{c}_value * 100 END, 2) AS trend,
       p.revenue_row AS rev_row, p.{m}_row AS inc_row, p.revenue_before_row AS prev_rev_row,
       p.{m}_before_row AS prev_inc_row
FROM top t JOIN companies c ON c.cik = t.cik
JOIN window_basis p ON p.cik = t.cik
 AND p.period_kind = CASE WHEN $annual THEN 'annual' ELSE 'quarter' END AND p.k <= $window
ORDER BY t.rank_key DESC NULLS LAST, t.cik, p.k
"""
WINDOW_SCREENS = {
    (sequential, metric): _WINDOW_STATEMENT.format(
        b="seq" if sequential else "yoy", c="before" if sequential else "prior", m=metric
    )
    for sequential in (False, True)
    for metric in ("gross_profit", "operating_income", "net_income")
}

# The cited figures of a window screen's hits, by metric_values row id (a parameter list: an
# IN filter on the row id, so only the vectors holding them are read), each with the like period
# a year earlier that metric_values pairs with it (`prior_*`). Plain columns: building them into
# structs here took longer to plan than the fetch.
WINDOW_FIGURES = """
SELECT rowid AS row_id, value, unit, fiscal_label, calendar_start, calendar_end, filing_id, form,
       filed_date, section, chunk_id, fact_id, concept, source_kind, derived, prior_value,
       prior_fiscal_label, prior_filing_id, prior_form, prior_filed_date, prior_section,
       prior_chunk_id
FROM metric_values
WHERE list_contains($rows, rowid)
"""

# Ratio series, computed here from the reported values of metric_values (never by the model).
# Each ratio: how it is computed and which figures it divides; margins and growth are in
# percent, debt_to_equity a plain ratio, a TTM the sum of four consecutive three-month quarters
# (quarter series only; their span must be a year: a missing quarter leaves no TTM).
RATIO_MARGINS = {
    "gross_margin": "gross_profit",
    "operating_margin": "operating_income",
    "net_margin": "net_income",
}
RATIO_TTM = {
    "revenue_ttm": "revenue",
    "operating_income_ttm": "operating_income",
    "net_income_ttm": "net_income",
}
RATIO_IDS = (*RATIO_MARGINS, "debt_to_equity", "revenue_growth", *RATIO_TTM)

_OP = """{{'metric': {a}.metric, 'value': {a}.value, 'unit': {a}.unit,
    'fiscal_label': {a}.fiscal_label,
    'calendar_end': {a}.calendar_end, 'filing_id': {a}.filing_id, 'form': {a}.form,
    'filed_date': {a}.filed_date, 'section': {a}.section, 'chunk_id': {a}.chunk_id,
    'fact_id': {a}.fact_id, 'concept': {a}.concept, 'source_kind': {a}.source_kind}}"""
_PRIOR_OP = """{{'metric': {a}.metric, 'value': {a}.prior_value, 'unit': {a}.unit,
    'fiscal_label': {a}.prior_fiscal_label, 'calendar_end': {a}.prior_calendar_end,
    'filing_id': {a}.prior_filing_id, 'form': {a}.prior_form, 'filed_date': {a}.prior_filed_date,
    'section': {a}.prior_section, 'chunk_id': {a}.prior_chunk_id, 'fact_id': NULL::VARCHAR,
    'concept': NULL::VARCHAR, 'source_kind': NULL::VARCHAR}}"""
_RATIO_COLUMNS = (
    "cik, ratio, fiscal_label, calendar_start, calendar_end, value, unit, formula, operands, "
    "instant"
)
_RATIO_BRANCHES = (
    [
        f"""SELECT r.cik, '{ratio}' AS ratio, r.fiscal_label, r.calendar_start, r.calendar_end,
           n.value / r.value * 100 AS value, 'percent' AS unit, '{num} / revenue × 100' AS formula,
           [{_OP.format(a="n")}, {_OP.format(a="r")}] AS operands, false AS instant
    FROM v r JOIN v n ON n.cik = r.cik AND n.metric = '{num}' AND n.period_type = 'duration'
         AND n.unit = r.unit AND n.calendar_start = r.calendar_start AND n.calendar_end =
             r.calendar_end
    WHERE list_contains($ratios, '{ratio}') AND r.metric = 'revenue' AND r.period_type = 'duration'
      AND r.value > 0"""
        for ratio, num in RATIO_MARGINS.items()
    ]
    + [
        f"""SELECT d.cik, 'debt_to_equity' AS ratio, d.fiscal_label, d.calendar_start,
            d.calendar_end,
           d.value / e.value AS value, 'ratio' AS unit, 'total_debt / stockholders_equity' AS
               formula,
           [{_OP.format(a="d")}, {_OP.format(a="e")}] AS operands, true AS instant
    FROM v d JOIN v e ON e.cik = d.cik AND e.metric = 'stockholders_equity' AND e.period_type =
        'instant'
         AND e.unit = d.unit AND e.calendar_end = d.calendar_end
    WHERE list_contains($ratios, 'debt_to_equity') AND d.metric = 'total_debt' AND d.period_type =
        'instant'
      AND e.value > 0""",
        f"""SELECT r.cik, 'revenue_growth' AS ratio, r.fiscal_label, r.calendar_start,
            r.calendar_end,
           (r.value / r.prior_value - 1) * 100 AS value, 'percent' AS unit,
           '(revenue / revenue a year earlier − 1) × 100' AS formula,
           [{_OP.format(a="r")}, {_PRIOR_OP.format(a="r")}] AS operands, false AS instant
    FROM v r
    WHERE list_contains($ratios, 'revenue_growth') AND r.metric = 'revenue' AND r.period_type =
        'duration'
      AND isfinite(r.prior_value) AND r.prior_value > 0""",
    ]
    + [
        f"""SELECT cik, '{ratio}' AS ratio, 'TTM-' || fiscal_label AS fiscal_label, span_start AS
            calendar_start,
           calendar_end, total AS value, unit, 'sum of the four quarters ending ' || fiscal_label AS
               formula,
           operands, false AS instant
    FROM (
        SELECT q.*, sum(q.value) OVER w AS total, count(*) OVER w AS quarters,
               min(q.calendar_start) OVER w AS span_start, list({_OP.format(a="q")}) OVER w AS
                   operands
        FROM v q
        WHERE list_contains($ratios, '{ratio}') AND NOT $annual AND q.metric = '{metric}'
          AND q.period_type = 'duration' AND q.fiscal_period IN ('Q1', 'Q2', 'Q3', 'Q4')
        WINDOW w AS (PARTITION BY q.cik, q.unit ORDER BY q.calendar_end ROWS BETWEEN 3 PRECEDING AND
            CURRENT ROW)
    )
    WHERE quarters = 4 AND datediff('day', span_start, calendar_end) BETWEEN 357 AND 372"""
        for ratio, metric in RATIO_TTM.items()
    ]
)
_RATIO_UNION = "\nUNION ALL\n".join(_RATIO_BRANCHES)

# $start/$end (both NULL for a plain series): keep, per company and ratio, the period that best
# covers the calendar range, as COMPARE_PEERS does for the figures themselves.
RATIO_SERIES = f"""
WITH v AS (
    SELECT * FROM metric_values
    WHERE list_contains($ciks, cik) AND {_FINITE_VALUE}
      AND CASE WHEN $annual THEN in_annual ELSE in_quarterly END
),
ratios AS (
{_RATIO_UNION}
),
scored AS (
    SELECT {_RATIO_COLUMNS},
        CASE WHEN $start IS NULL THEN 0
             WHEN NOT instant THEN greatest(0, datediff('day', greatest(calendar_start,
                 $start::DATE),
                                                       least(calendar_end, $end::DATE)) + 1)
             WHEN calendar_end BETWEEN $start::DATE AND $end::DATE + INTERVAL 92 DAY THEN 1 ELSE 0
                 END AS overlap_days
    FROM ratios WHERE isfinite(value)
)
SELECT cik, ratio, fiscal_label, calendar_start, calendar_end, round(value, 4) AS value, unit,
    formula, operands
FROM scored
WHERE $start IS NULL
   OR (NOT instant AND overlap_days * 2 >= datediff('day', $start::DATE, $end::DATE) + 1)
   OR (instant AND overlap_days > 0)
QUALIFY row_number() OVER (
    PARTITION BY cik, ratio
    ORDER BY overlap_days DESC, CASE WHEN $start IS NULL THEN 0 ELSE abs(datediff('day',
        calendar_end, $end::DATE)) END,
             calendar_end DESC, calendar_start DESC) <= $periods
ORDER BY cik, ratio, calendar_end DESC, calendar_start DESC
"""

# Why a window screen found nothing: how many companies have revenue of the kind (a span of one
# period), and how many of them have `$window` of those periods one after another (the window
# screen's own test, as window_spans keeps it).
WINDOW_COVERAGE = """
SELECT count(*) FILTER (WHERE span = 1) AS companies,
       count(*) FILTER (WHERE span = $window AND chain_yoy) AS with_window
FROM window_spans
WHERE period_kind = CASE WHEN $annual THEN 'annual' ELSE 'quarter' END
  AND (span = 1 OR span = $window)
"""

# search_chunks (issue 24, item 2): the hits' whole text, from which each passage is chosen.
SEARCH_HIT_TEXTS = """
SELECT c.chunk_id, c.text, c.scale_header
FROM chunks c WHERE list_contains($chunk_ids, c.chunk_id)
"""
