"""The companies-and-metrics family, one company at a time: find_company (a name, ticker or CIK
to a company_id), get_metrics (reported values over periods, with ratio series) and
explore_company (a first look: identity, filings, key metrics, strongest relations, peers).
Screens over many companies are in `mcp_server.screens`."""

from __future__ import annotations

from typing import Annotated, Any, Literal

from mcp.server.mcpserver.exceptions import ToolError
from pydantic import Field

from graphrag_core.store.reader import (
    BALANCE_METRICS,
    FLOW_METRICS,
    compact_name,
    normalize_cik,
    normalize_name,
)
from mcp_server import graph_queries, queries, windows
from mcp_server.context import (
    CIK_QUERY_RE,
    HIDDEN_RELATIONS,
    CompanyId,
    MetricId,
    ToolContext,
    resolve_company,
    stamp,
    suggestions,
)
from mcp_server.formatting import metric_value
from mcp_server.graph_edges import CITATIONS_PER_EDGE, edges_by_id, entity_ref
from mcp_server.graph_models import ExploreResult, Peer, RiskExposure
from mcp_server.graph_time import (
    AsOfArg,
    PeriodArg,
    as_known,
    graph_time,
    key_metric_rows,
    latest_filings,
    time_filter,
    time_params,
)
from mcp_server.models import (
    CompanyMatch,
    CompanyProfile,
    FilingSummary,
    FindCompanyResult,
    GetMetricsResult,
    KeyMetric,
    MetricSeries,
    SectionSummary,
)

KEY_METRICS = (*FLOW_METRICS, *BALANCE_METRICS)
LATEST_FILINGS_SHOWN = 8
SECTIONS_PER_FILING = 40
RELATIONS_SHOWN = 10
RISKS_SHOWN = 12
PEERS_SHOWN = 8


class CompanyTools:
    """find_company, get_metrics and explore_company over `ctx`'s reader."""

    def __init__(self, ctx: ToolContext):
        self.ctx = ctx

    def find_company(
        self,
        query: Annotated[
            str,
            Field(
                min_length=1,
                max_length=200,
                description="a name, ticker, former name, brand/segment name or CIK",
            ),
        ],
        limit: Annotated[int, Field(ge=1, le=25, description="most matches to return")] = 5,
    ) -> FindCompanyResult:
        """Find a company and get its `company_id` (e.g. CIK-0001045810) for the other tools.

        Call this first whenever the user names a company; every other tool takes the
        `company_id` it returns. It also finds companies that file nothing with the SEC
        ("Samsung" → ORG:samsung-electronics, entity_type organization) and risk categories
        ("export controls" → RISK:export-controls, entity_type risk): pass those ids to
        neighbors and graph_path. Matching ignores case, punctuation and legal suffixes, so
        "nvidia", "NVIDIA Corp", "NVDA", "1045810" and "CIK-0001045810" all find NVIDIA; former
        names and reporting segments find the company too ("Google" finds Alphabet Inc. through
        its Google Services segment). Matches are ranked (`score`, 1.0 = exact ticker or CIK)
        and `matched_on` says why each one matched — check it before assuming a loose match is
        the company meant.

        A miss is an error that names the closest companies ("did you mean …?") or says SEC
        knows the company but this snapshot holds none of its filings; retry with a suggested
        name rather than guessing an id.
        """
        with self.ctx.lease() as snap:
            text = query.strip()
            cik = normalize_cik(text) if CIK_QUERY_RE.match(text) else None
            if cik:
                rows = [
                    {**r, "score": 1.0, "matched_alias": r["cik"], "matched_kind": "cik"}
                    for r in snap.query(queries.COMPANY_BY_CIK, {"cik": cik})
                ]
            else:
                if not text:
                    raise ToolError("the query is blank; pass a name, ticker or CIK")
                norm = normalize_name(text)
                rows = snap.query(
                    queries.FIND_COMPANY,
                    {
                        "norm": norm,
                        "compact": compact_name(text),
                        "ticker": text.upper(),
                        "limit": limit + 1,
                    },
                )
                # Every graph node by name or alias (issue 22): organizations that file nothing
                # with the SEC (provisional ones included), companies the graph names without
                # their filings ("TSMC"), risks and metrics. A company the first query found
                # is not listed twice.
                found = {r["company_id"] for r in rows}
                entities = [
                    e
                    for e in snap.query(
                        graph_queries.FIND_ENTITY,
                        {
                            "norm": norm,
                            "compact": compact_name(text),
                            "limit": limit + 1 + len(found),
                        },
                    )
                    if e["entity_id"] not in found
                ]
                rows = sorted(
                    [
                        *rows,
                        *(
                            {
                                **e,
                                "company_id": e["entity_id"],
                                "cik": None,
                                "tickers": [],
                                "fiscal_year_end": None,
                                "sic": None,
                                "sic_description": None,
                                "filings": 0,
                            }
                            for e in entities
                        ),
                    ],
                    key=lambda r: (-r["score"], -(r["filings"] or 0), r["company_id"]),
                )
            if not rows:
                raise ToolError(
                    f"no company matches {text[:80]!r} in snapshot {snap.version}; "
                    f"{suggestions(snap, text)}"
                )
            matches = [
                CompanyMatch(
                    company_id=r["company_id"],
                    name=r["name"],
                    entity_type=r.get("entity_type") or "company",
                    tickers=r["tickers"] or [],
                    cik=r["cik"],
                    fiscal_year_end=r["fiscal_year_end"],
                    sic=r["sic"],
                    sic_description=r["sic_description"],
                    score=r["score"],
                    matched_on=f"{r['matched_kind'].replace('_', ' ')} {r['matched_alias']!r}",
                )
                for r in rows[:limit]
            ]
            return FindCompanyResult(
                **stamp(snap), query=text, matches=matches, truncated=len(rows) > limit
            )

    def get_metrics(
        self,
        company_id: CompanyId,
        metrics: Annotated[
            list[MetricId] | None,
            Field(
                max_length=10,
                description=(
                    "canonical metric ids, e.g. revenue, gross_profit, operating_income, "
                    "net_income, total_debt, stockholders_equity (status lists all); "
                    "omit for the four income-statement metrics"
                ),
            ),
        ] = None,
        periods: Annotated[int, Field(ge=1, le=40, description="newest periods per metric")] = 4,
        period_type: Annotated[
            Literal["annual", "quarter", "half_year", "nine_months"],
            Field(
                description=(
                    "annual = fiscal years; quarter = three-month fiscal quarters; half_year = "
                    "the first (and second) six months (H1); nine_months = nine months to date (9M)"
                )
            ),
        ] = "annual",
        ratios: Annotated[
            list[windows.RatioId] | None,
            Field(
                None,
                max_length=len(windows.RATIO_IDS),
                description=(
                    "ratio series to add, computed by the server: gross_margin, operating_margin, "
                    "net_margin, revenue_growth (percent), debt_to_equity (ratio), revenue_ttm, "
                    "operating_income_ttm, net_income_ttm (sum of four quarters; "
                    "period_type quarter)"
                ),
            ),
        ] = None,
    ) -> GetMetricsResult:
        """Reported values of a company's financial metrics, newest period first, each cited.

        Use for "what was X's revenue / income / debt" and for trends over several periods.
        Values come from the company's filings, never from a model: `value` is in full units
        (USD, not millions) and `display` is the human form ("130,497 million USD"). Every
        value carries its fiscal label (the company's own: FY2025, Q2-FY2026), the calendar
        range it covers, and a citation (filing, form, section, chunk_id); pass the chunk_id to
        get_chunk to quote the filing. `yoy_change_pct` compares with the like period a year
        earlier and is computed by the server — quote it instead of doing the arithmetic
        yourself.

        `source_kind` says where a number comes from: `xbrl` (a 10-K/10-Q's tagged fact) or
        `press_release` (an 8-K earnings release's table or sentence: unaudited, weeks before the
        10-Q; say so when you quote it). `derived` values are computed, not reported — a fourth
        quarter as FY − 9M, any quarter from year-to-date differences, gross profit as revenue −
        cost of revenue — with `derivation` and every operand cited in `derived_from`. When a
        later filing replaced a figure, `superseded` lists the earlier ones with their
        citations and `supersede_reason`: restatement, recast (e.g. a stock split — not an
        accounting error), press_release_final (the release's figure made final by the
        10-Q/10-K; any difference is in `supersede_detail`), or unknown; `restated` is true
        when an earlier report gave another value.

        Per-share values and share counts are like for like: a figure filed before a later
        stock split is re-based to the latest split (`as_filed_value` keeps the filing's own
        figure, `split_basis` says which split was applied), so `yoy_change_pct` never compares
        a pre-split EPS with a post-split one.

        Quarterly values are three-month quarters; a fourth quarter is usually derived from the
        annual figure, a missing first quarter from the half year (Q1 = H1 − Q2). `half_year`
        and `nine_months` serve the year-to-date periods a 10-Q reports (H1, 9M). `stale` is
        true when the company's latest period ended long before the snapshot's `as_of` (it
        stopped filing, or the corpus has only old filings): never present its figures as
        current. Unknown metric ids and companies are errors that list what is available.

        `ratios` adds series computed in SQL from these reported values, newest first, each
        value with its formula and cited operands: margins and revenue_growth in PERCENT (25.3
        means 25.3%), debt_to_equity a plain ratio, TTM sums in the metric's unit. Quote them
        rather than dividing yourself. For many companies at once use screen_companies.
        """
        with self.ctx.lease() as snap:
            company = resolve_company(snap, company_id)
            wanted = list(dict.fromkeys(metrics or FLOW_METRICS))
            known = {r["metric"] for r in snap.query(queries.METRIC_IDS)}
            if unknown := [m for m in wanted if m not in known]:
                raise ToolError(
                    f"unknown metric id(s) {', '.join(unknown)}; metrics in snapshot "
                    f"{snap.version}: {', '.join(sorted(known)) or 'none'}"
                )
            available = snap.query(queries.COMPANY_METRICS, {"cik": company["cik"]})
            freshness = self.ctx.freshness(snap, company["cik"])
            kind_key = {"annual": "annual", "quarter": "quarterly"}.get(period_type, period_type)
            if not {r["metric"] for r in available if r[kind_key]} & set(wanted):
                listing = (
                    "; ".join(
                        f"{r['metric']} ("
                        + "/".join(
                            k for k in ("annual", "quarterly", "half_year", "nine_months") if r[k]
                        )
                        + ")"
                        for r in available
                    )
                    or "none"
                )
                stale = (
                    f" Its latest period ended {freshness['latest_period_end']}: stale, "
                    "long before "
                    f"as_of {snap.as_of}."
                    if freshness["stale"]
                    else ""
                )
                raise ToolError(
                    f"{company['name']} ({company['company_id']}) has no {period_type} values for "
                    f"{', '.join(wanted)} in snapshot {snap.version}. Metrics it has: "
                    f"{listing}.{stale}"
                )
            rows = snap.query(
                queries.GET_METRICS,
                {"cik": company["cik"], "metrics": wanted, "kind": period_type, "periods": periods},
            )
            by_metric: dict[str, list[dict[str, Any]]] = {}
            for row in rows:
                by_metric.setdefault(row["metric"], []).append(row)
            series = [
                MetricSeries(
                    metric=m,
                    values=[metric_value(r) for r in by_metric[m]],
                    more_periods_available=by_metric[m][0]["available"] > len(by_metric[m]),
                )
                for m in wanted
                if m in by_metric
            ]
            ratio_series = (
                windows.ratio_series(
                    snap,
                    [company["cik"]],
                    list(dict.fromkeys(ratios)),
                    annual=period_type == "annual",
                    periods=periods,
                ).get(company["cik"], [])
                if ratios
                else []
            )
            return GetMetricsResult(
                **stamp(snap),
                company_id=company["company_id"],
                name=company["name"],
                period_type=period_type,
                series=series,
                missing=[m for m in wanted if m not in by_metric],
                ratios=ratio_series,
                **freshness,
            )

    def explore_company(
        self, company_id: CompanyId, period: PeriodArg = None, as_of: AsOfArg = None
    ) -> ExploreResult:
        """A first look at one company in a single call.

        `company.stale` is true when its latest period (filing or metric) ended long before the
        snapshot's `as_of`: say so before quoting any of its figures as current.

        Returns its identity (names, tickers, SIC industry, fiscal year end, former names), its
        latest filings with the sections each contains, the latest annual and quarterly value
        of the key metrics (revenue, gross profit, operating income, net income, total debt,
        stockholders' equity) with the change vs a year earlier and citations, and every metric
        id it has. From the knowledge graph: its strongest relations (suppliers, customers,
        competitors, subsidiaries; most cited first, each with the sentence that states it), the
        risk categories it reports with its own phrases, and peers that share its suppliers,
        customers or risks. Use it when asked about a company in general or before choosing
        what to look up; then get_metrics for longer histories, neighbors for every relation,
        and get_chunk to quote text. `period` / `as_of` restrict everything to that period or
        date: relations, risks and peers stated for the period or known by the date (as in
        neighbors); filings for the period (its fiscal label, or a span sharing at least half
        of a calendar range) and filed by the date; key metrics of the period, and as of a
        date the values the filings filed by then reported (as filed: a later restatement or
        stock split not yet applied). `time_filter` says which.
        """
        when = graph_time(period, as_of)
        with self.ctx.lease() as snap:
            company = resolve_company(snap, company_id)
            cik = company["cik"]
            profile = snap.query(queries.COMPANY_PROFILE, {"cik": cik})[0]
            filings = latest_filings(snap, cik, when, LATEST_FILINGS_SHOWN + 1)
            shown = filings[:LATEST_FILINGS_SHOWN]
            sections: dict[str, list[SectionSummary]] = {}
            for row in snap.query(
                queries.FILING_SECTIONS, {"cik": cik, "filing_ids": [f["filing_id"] for f in shown]}
            ):
                listed = sections.setdefault(row["filing_id"], [])
                if len(listed) < SECTIONS_PER_FILING:
                    listed.append(
                        SectionSummary(
                            section=row["section"], chunks=row["chunks"], kinds=row["kinds"]
                        )
                    )
            latest = key_metric_rows(snap, cik, list(KEY_METRICS), when)
            by_kind = {(r["metric"], r["kind"]): metric_value(r) for r in latest}
            available = snap.query(queries.COMPANY_METRICS, {"cik": cik})
            node = snap.query(graph_queries.ENTITY, {"entity_id": company["company_id"]})
            # Its rows in graph_adjacency by its ordinal (None: no edges, and the queries find
            # none).
            entity = {
                "entity_id": company["company_id"],
                "ord": node[0]["adjacency_ord"] if node else None,
                **time_params(when),
            }
            strongest = [
                r["edge_id"]
                for r in snap.query(
                    graph_queries.COMPANY_RELATIONS,
                    {**entity, "hidden": HIDDEN_RELATIONS, "limit": RELATIONS_SHOWN},
                )
            ]
            edges = edges_by_id(snap, strongest)
            risks = [
                RiskExposure(
                    risk=entity_ref(r["neighbor_id"], "risk", r["name"]),
                    evidence_count=r["evidence_count"],
                    phrases=r["phrases"] or [],
                    last_filed=r["last_filed"],
                    edge_id=r["edge_id"],
                )
                for r in snap.query(graph_queries.COMPANY_RISKS, {**entity, "limit": RISKS_SHOWN})
            ]
            links = (
                snap.query(graph_queries.PEER_LINKS, entity) if entity["ord"] is not None else []
            )
            peer_rows = (
                snap.query(
                    graph_queries.COMPANY_PEERS,
                    {
                        "entity_id": entity["entity_id"],
                        **time_params(when),
                        "links": links,
                        "limit": PEERS_SHOWN,
                        "shared": sorted({r["shared_ord"] for r in links}),
                    },
                )
                if links
                else []
            )
            shared_ids = {
                i
                for r in peer_rows
                for k in ("suppliers", "customers", "risks")
                for i in r[k] or []
            }
            names = {
                n["entity_id"]: entity_ref(n["entity_id"], n["entity_type"], n["name"])
                for n in (
                    snap.query(graph_queries.NODE_NAMES, {"ids": sorted(shared_ids)})
                    if shared_ids
                    else []
                )
            }
            peers = [
                Peer(
                    company=entity_ref(r["peer_id"], r["peer_type"], r["peer_name"]),
                    score=r["score"],
                    shared_suppliers=[names[i] for i in sorted(r["suppliers"] or []) if i in names],
                    shared_customers=[names[i] for i in sorted(r["customers"] or []) if i in names],
                    shared_risks=[names[i] for i in sorted(r["risks"] or []) if i in names],
                )
                for r in peer_rows
            ]
            return ExploreResult(
                **stamp(snap),
                company=CompanyProfile(**profile, **self.ctx.freshness(snap, cik)),
                latest_filings=[
                    FilingSummary(**f, sections=sections.get(f["filing_id"], [])) for f in shown
                ],
                filings_truncated=len(filings) > LATEST_FILINGS_SHOWN,
                key_metrics=[
                    KeyMetric(
                        metric=m,
                        latest_annual=by_kind.get((m, "annual")),
                        latest_quarter=by_kind.get((m, "quarter")),
                    )
                    for m in KEY_METRICS
                    if (m, "annual") in by_kind or (m, "quarter") in by_kind
                ],
                metrics_available=[r["metric"] for r in available],
                relations=as_known(
                    snap, when, [edges[i] for i in strongest if i in edges], CITATIONS_PER_EDGE
                ),
                risks=risks,
                peers=peers,
                time_filter=time_filter(when),
            )
