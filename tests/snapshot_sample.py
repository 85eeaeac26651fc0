"""A small, realistic set of snapshot input tables, built in code (no pipeline needed).

Figures are the ones the companies reported (in millions of USD, as their statements show
them); ids follow the pipeline's conventions (accession numbers, content-hash chunk ids).
"Restated Widgets Inc." is made up: it restates a prior year, which the real companies here
do not, so that restatements are exercised.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import json

import polars as pl

from graphrag_core.graph.companies import CompanyReference, build_company_tables, segment_members
from graphrag_core.graph.graph_store import FrameInputs
from graphrag_core.graph.snapshot_inputs import build_communities_of, build_graph
from graphrag_core.store.snapshot_tables import SnapshotTables
from graphrag_core.tables.schemas import (
    CHUNKS,
    FILINGS,
    METRIC_OBSERVATIONS,
    VALIDATED_TRIPLES,
    XBRL_FACTS,
    frame,
)

D = dt.date.fromisoformat
M = 1_000_000

NVDA, GOOGL, AAPL, RSTD = "0001045810", "0001652044", "0000320193", "0009999901"
NVDA_10K = "0001045810-25-000023"
NVDA_10Q = "0001045810-25-000209"
GOOGL_10K = "0001652044-25-000014"
AAPL_10K = "0000320193-24-000123"
RSTD_10K_23 = "0009999901-24-000003"
RSTD_10K_24 = "0009999901-25-000004"


def _hash(*parts: str) -> str:
    return hashlib.sha256("\x1f".join(parts).encode()).hexdigest()[:24]


def filing(filing_id, cik, ticker, company, form, period_end, fy, fp, fye, filed) -> dict:
    return {
        "filing_id": filing_id,
        "accession": filing_id,
        "cik": cik,
        "ticker": ticker,
        "company": company,
        "form": form,
        "period_end": D(period_end),
        "fiscal_year": fy,
        "fiscal_period": fp,
        "fiscal_year_end": fye,
        "filed_date": D(filed),
        "source": f"https://www.sec.gov/Archives/edgar/data/{int(cik)}/"
        f"{filing_id.replace('-', '')}/",
        "sha256": hashlib.sha256(filing_id.encode()).hexdigest(),
        "bytes": 2_000_000,
        "documents": 1,
        "is_inline_xbrl": True,
        "meta_sources": "{}",
        "warnings": [],
    }


FILING_ROWS = [
    filing(
        NVDA_10K,
        NVDA,
        "NVDA",
        "NVIDIA CORPORATION",
        "10-K",
        "2025-01-26",
        2025,
        "FY",
        "--01-26",
        "2025-02-26",
    ),
    filing(
        NVDA_10Q,
        NVDA,
        "NVDA",
        "NVIDIA CORPORATION",
        "10-Q",
        "2025-07-27",
        2026,
        "Q2",
        "--01-25",
        "2025-08-27",
    ),
    filing(
        GOOGL_10K,
        GOOGL,
        "GOOGL",
        "Alphabet Inc.",
        "10-K",
        "2024-12-31",
        2024,
        "FY",
        "--12-31",
        "2025-02-05",
    ),
    filing(
        AAPL_10K,
        AAPL,
        "AAPL",
        "Apple Inc.",
        "10-K",
        "2024-09-28",
        2024,
        "FY",
        "--09-28",
        "2024-11-01",
    ),
    filing(
        RSTD_10K_23,
        RSTD,
        None,
        "Restated Widgets Inc.",
        "10-K",
        "2023-12-31",
        2023,
        "FY",
        "--12-31",
        "2024-03-01",
    ),
    filing(
        RSTD_10K_24,
        RSTD,
        None,
        "Restated Widgets Inc.",
        "10-K",
        "2024-12-31",
        2024,
        "FY",
        "--12-31",
        "2025-03-03",
    ),
]


def chunk(filing_id, section, kind, ordinal, text, start, scale=None) -> dict:
    return {
        "chunk_id": _hash(filing_id, section, text),
        "filing_id": filing_id,
        "document_type": section.split("/")[0],
        "section": section,
        "kind": kind,
        "ordinal": ordinal,
        "text": text,
        "char_start": start,
        "char_end": start + len(text),
        "scale_header": scale,
        "token_count": len(text.split()),
        "sha256": hashlib.sha256(text.encode()).hexdigest(),
        "ix_ids": [],
    }


MILLIONS = "(In millions, except per share data)"
NVDA_IS = chunk(
    NVDA_10K,
    "10-K/Item 8",
    "table",
    3,
    "NVIDIA Corporation and Subsidiaries\nConsolidated Statements of Income\n" + MILLIONS + "\n"
    "| | Jan 26, 2025 | Jan 28, 2024 | Jan 29, 2023 |\n|---|---|---|---|\n"
    "| Revenue | $ 130,497 | $ 60,922 | $ 26,974 |\n"
    "| Cost of revenue | 32,639 | 16,621 | 11,618 |\n"
    "| Gross profit | 97,858 | 44,301 | 15,356 |\n"
    "| Operating income | 81,453 | 32,972 | 4,224 |\n"
    "| Net income | $ 72,880 | $ 29,760 | $ 4,368 |",
    812_400,
    "in millions, except per share data",
)
NVDA_BS = chunk(
    NVDA_10K,
    "10-K/Item 8",
    "table",
    4,
    "Consolidated Balance Sheets\n(In millions)\n| | Jan 26, 2025 | Jan 28, 2024 |\n|---|---|---|\n"
    "| Long-term debt | 8,463 | 8,459 |\n| Total shareholders' equity | 79,327 | 42,978 |",
    815_900,
    "in millions",
)
NVDA_RISK = chunk(
    NVDA_10K,
    "10-K/Item 1A",
    "prose",
    0,
    "Failure to meet the evolving needs of our industry and markets may adversely impact our "
    "financial results. Our accelerated computing platforms experience rapid changes in "
    "technology.",
    120_044,
)
NVDA_Q_IS = chunk(
    NVDA_10Q,
    "10-Q/Part I/Item 1",
    "table",
    1,
    "Condensed Consolidated Statements of Income\n" + MILLIONS + "\n"
    "| | Three Months Ended Jul 27, 2025 | Jul 28, 2024 |\n|---|---|---|\n"
    "| Revenue | $ 46,743 | $ 30,040 |\n| Operating income | 28,440 | 18,642 |",
    40_210,
    "in millions, except per share data",
)
GOOGL_IS = chunk(
    GOOGL_10K,
    "10-K/Item 8",
    "table",
    2,
    "CONSOLIDATED STATEMENTS OF INCOME\n" + MILLIONS + "\n| | 2023 | 2024 |\n|---|---|---|\n"
    "| Revenues | $ 307,394 | $ 350,018 |\n| Income from operations | 84,293 | 112,390 |\n"
    "| Net income | $ 73,795 | $ 100,118 |",
    701_200,
    "in millions, except per share data",
)
GOOGL_BS = chunk(
    GOOGL_10K,
    "10-K/Item 8",
    "table",
    1,
    "CONSOLIDATED BALANCE SHEETS\n(In millions)\n| | Dec 31, 2023 | Dec 31, 2024 |\n|---|---|---|\n"
    "| Long-term debt | 13,253 | 10,883 |\n| Total stockholders' equity | 283,379 | 325,084 |",
    698_000,
    "in millions",
)
GOOGL_BIZ = chunk(
    GOOGL_10K,
    "10-K/Item 1",
    "prose",
    0,
    "Alphabet is a collection of businesses — the largest of which is Google. We report Google "
    "in two segments, Google Services and Google Cloud.",
    9_800,
)
AAPL_IS = chunk(
    AAPL_10K,
    "10-K/Item 8",
    "table",
    1,
    "CONSOLIDATED STATEMENTS OF OPERATIONS\n" + MILLIONS + "\n| | 2024 | 2023 |\n|---|---|---|\n"
    "| Total net sales | 391,035 | 383,285 |\n| Operating income | 123,216 | 114,301 |\n"
    "| Net income | $ 93,736 | $ 96,995 |",
    455_100,
    "in millions, except per share data",
)
RSTD_23 = chunk(
    RSTD_10K_23,
    "10-K/Item 8",
    "table",
    0,
    "STATEMENTS OF OPERATIONS\n(In millions)\n| | 2023 |\n|---|---|\n| Revenue | 1,000 |\n"
    "| Operating income | 100 |\n| Total debt | 700 |\n| Total equity | 400 |",
    50_000,
    "in millions",
)
RSTD_24 = chunk(
    RSTD_10K_24,
    "10-K/Item 8",
    "table",
    0,
    "STATEMENTS OF OPERATIONS\n(In millions)\n| | 2024 | 2023 (as restated) |\n|---|---|---|\n"
    "| Revenue | 1,200 | 950 |\n| Operating income | 60 | 95 |\n| Total debt | 900 | 700 |\n"
    "| Total equity | 300 | 400 |",
    52_000,
    "in millions",
)
CHUNK_ROWS = [
    NVDA_IS,
    NVDA_BS,
    NVDA_RISK,
    NVDA_Q_IS,
    GOOGL_IS,
    GOOGL_BS,
    GOOGL_BIZ,
    AAPL_IS,
    RSTD_23,
    RSTD_24,
]

CONCEPTS = {
    "revenue": "us-gaap:RevenueFromContractWithCustomerExcludingAssessedTax",
    "gross_profit": "us-gaap:GrossProfit",
    "operating_income": "us-gaap:OperatingIncomeLoss",
    "net_income": "us-gaap:NetIncomeLoss",
    "total_debt": "us-gaap:LongTermDebt",
    "stockholders_equity": "us-gaap:StockholdersEquity",
}
FORMS = {f["filing_id"]: (f["form"], f["filed_date"], f["cik"]) for f in FILING_ROWS}


def obs(
    filing_id, chunk_row, metric, millions, label, fy, fp, start, end, superseded_by=None
) -> dict:
    form, filed, cik = FORMS[filing_id]
    instant = metric in ("total_debt", "stockholders_equity")
    fact_id = _hash(filing_id, CONCEPTS[metric], start or end, end)
    return {
        "observation_id": _hash("obs", fact_id, metric),
        "cik": cik,
        "metric": metric,
        "value": float(millions * M),
        "unit": "USD",
        "fiscal_label": label,
        "fiscal_year": fy,
        "fiscal_period": fp,
        "period_type": "instant" if instant else "duration",
        "calendar_start": D(end if instant else start),
        "calendar_end": D(end),
        "filing_id": filing_id,
        "form": form,
        "filed_date": filed,
        "fact_id": fact_id,
        "concept": CONCEPTS[metric],
        "chunk_id": chunk_row["chunk_id"],
        "superseded_by": superseded_by,
    }


def _observations() -> list[dict]:
    rows = []
    nv_years = {
        2025: ("2024-01-29", "2025-01-26"),
        2024: ("2023-01-30", "2024-01-28"),
        2023: ("2022-01-31", "2023-01-29"),
    }
    nv = {
        "revenue": {2025: 130_497, 2024: 60_922, 2023: 26_974},
        "gross_profit": {2025: 97_858, 2024: 44_301, 2023: 15_356},
        "operating_income": {2025: 81_453, 2024: 32_972, 2023: 4_224},
        "net_income": {2025: 72_880, 2024: 29_760, 2023: 4_368},
    }
    for metric, years in nv.items():
        for fy, value in years.items():
            start, end = nv_years[fy]
            rows.append(obs(NVDA_10K, NVDA_IS, metric, value, f"FY{fy}", fy, "FY", start, end))
    for metric, years in {
        "total_debt": {2025: 8_463, 2024: 8_459},
        "stockholders_equity": {2025: 79_327, 2024: 42_978},
    }.items():
        for fy, value in years.items():
            rows.append(
                obs(NVDA_10K, NVDA_BS, metric, value, f"FY{fy}", fy, "FY", None, nv_years[fy][1])
            )
    for fy, (start, end), rev, op in (
        (2026, ("2025-04-28", "2025-07-27"), 46_743, 28_440),
        (2025, ("2024-04-29", "2024-07-28"), 30_040, 18_642),
    ):
        rows.append(obs(NVDA_10Q, NVDA_Q_IS, "revenue", rev, f"Q2-FY{fy}", fy, "Q2", start, end))
        rows.append(
            obs(NVDA_10Q, NVDA_Q_IS, "operating_income", op, f"Q2-FY{fy}", fy, "Q2", start, end)
        )

    for metric, values in {
        "revenue": (307_394, 350_018),
        "operating_income": (84_293, 112_390),
        "net_income": (73_795, 100_118),
    }.items():
        for fy, value in zip((2023, 2024), values, strict=True):
            rows.append(
                obs(
                    GOOGL_10K,
                    GOOGL_IS,
                    metric,
                    value,
                    f"FY{fy}",
                    fy,
                    "FY",
                    f"{fy}-01-01",
                    f"{fy}-12-31",
                )
            )
    for metric, values in {
        "total_debt": (13_253, 10_883),
        "stockholders_equity": (283_379, 325_084),
    }.items():
        for fy, value in zip((2023, 2024), values, strict=True):
            rows.append(
                obs(GOOGL_10K, GOOGL_BS, metric, value, f"FY{fy}", fy, "FY", None, f"{fy}-12-31")
            )

    ap_years = {2024: ("2023-10-01", "2024-09-28"), 2023: ("2022-09-25", "2023-09-30")}
    for metric, years in {
        "revenue": {2024: 391_035, 2023: 383_285},
        "operating_income": {2024: 123_216, 2023: 114_301},
        "net_income": {2024: 93_736, 2023: 96_995},
    }.items():
        for fy, value in years.items():
            rows.append(obs(AAPL_10K, AAPL_IS, metric, value, f"FY{fy}", fy, "FY", *ap_years[fy]))

    # Restated Widgets: FY2023 revenue and operating income restated in the FY2024 10-K.
    new_rev = obs(
        RSTD_10K_24, RSTD_24, "revenue", 950, "FY2023", 2023, "FY", "2023-01-01", "2023-12-31"
    )
    new_op = obs(
        RSTD_10K_24,
        RSTD_24,
        "operating_income",
        95,
        "FY2023",
        2023,
        "FY",
        "2023-01-01",
        "2023-12-31",
    )
    rows += [
        obs(
            RSTD_10K_23,
            RSTD_23,
            "revenue",
            1_000,
            "FY2023",
            2023,
            "FY",
            "2023-01-01",
            "2023-12-31",
            superseded_by=new_rev["observation_id"],
        ),
        obs(
            RSTD_10K_23,
            RSTD_23,
            "operating_income",
            100,
            "FY2023",
            2023,
            "FY",
            "2023-01-01",
            "2023-12-31",
            superseded_by=new_op["observation_id"],
        ),
        obs(RSTD_10K_23, RSTD_23, "total_debt", 700, "FY2023", 2023, "FY", None, "2023-12-31"),
        obs(
            RSTD_10K_23,
            RSTD_23,
            "stockholders_equity",
            400,
            "FY2023",
            2023,
            "FY",
            None,
            "2023-12-31",
        ),
        new_rev,
        new_op,
        obs(
            RSTD_10K_24, RSTD_24, "revenue", 1_200, "FY2024", 2024, "FY", "2024-01-01", "2024-12-31"
        ),
        obs(
            RSTD_10K_24,
            RSTD_24,
            "operating_income",
            60,
            "FY2024",
            2024,
            "FY",
            "2024-01-01",
            "2024-12-31",
        ),
        obs(RSTD_10K_24, RSTD_24, "total_debt", 900, "FY2024", 2024, "FY", None, "2024-12-31"),
        obs(
            RSTD_10K_24,
            RSTD_24,
            "stockholders_equity",
            300,
            "FY2024",
            2024,
            "FY",
            None,
            "2024-12-31",
        ),
        # Reported again, unchanged, in the FY2024 10-K's comparative column: not a restatement.
        obs(RSTD_10K_24, RSTD_24, "total_debt", 700, "FY2023", 2023, "FY", None, "2023-12-31"),
    ]
    return rows


def xbrl_segment_facts() -> pl.LazyFrame:
    def fact(cik, filing_id, member, axis="us-gaap:StatementBusinessSegmentsAxis", n=1):
        dims = json.dumps({axis: member}) if member else "{}"
        return {
            "fact_id": _hash(filing_id, member or "", axis),
            "filing_id": filing_id,
            "cik": cik,
            "concept": "us-gaap:Revenues",
            "value": 1.0,
            "unit": "USD",
            "period_type": "duration",
            "dimensions": dims,
            "dimension_count": n if member else 0,
        }

    rows = [
        fact(GOOGL, GOOGL_10K, "goog:GoogleServicesMember"),
        fact(GOOGL, GOOGL_10K, "goog:GoogleCloudMember"),
        fact(GOOGL, GOOGL_10K, "us-gaap:AllOtherSegmentsMember"),
        fact(GOOGL, GOOGL_10K, "goog:YouTubeAdsMember", axis="srt:ProductOrServiceAxis"),
        fact(AAPL, AAPL_10K, "aapl:IPhoneMember", axis="srt:ProductOrServiceAxis"),
        fact(NVDA, NVDA_10K, None),
    ]
    return frame(rows, XBRL_FACTS).lazy()


TICKER_ROWS = [
    {"cik": NVDA, "ticker": "NVDA", "title": "NVIDIA CORP"},
    {"cik": GOOGL, "ticker": "GOOGL", "title": "Alphabet Inc."},
    {"cik": GOOGL, "ticker": "GOOG", "title": "Alphabet Inc."},
    {"cik": AAPL, "ticker": "AAPL", "title": "Apple Inc."},
    {"cik": "0000789019", "ticker": "MSFT", "title": "MICROSOFT CORP"},
]
NVDA_SUBMISSIONS = {
    "cik": NVDA,
    "name": "NVIDIA CORP",
    "sic": "3674",
    "sicDescription": "Semiconductors & Related Devices",
    "tickers": ["NVDA"],
    "exchanges": ["Nasdaq"],
    "fiscalYearEnd": "0126",
    "formerNames": [
        {
            "name": "NVIDIA CORP/CA",
            "from": "1998-05-07T00:00:00.000Z",
            "to": "2002-06-04T00:00:00.000Z",
        }
    ],
}


def reference() -> CompanyReference:
    return CompanyReference(tickers=list(TICKER_ROWS), submissions={NVDA: NVDA_SUBMISSIONS})


RISK_QUOTE = "Our accelerated computing platforms experience rapid changes in technology."


def _triple(status: str, relation: str, obj: str, quote: str, reason: str | None = None) -> dict:
    start = NVDA_RISK["text"].find(quote)
    return {
        "triple_id": _hash("triple", NVDA_10K, relation, obj),
        "filing_id": NVDA_10K,
        "status": status,
        "reason": reason,
        "detail": None,
        "adjustment": None,
        "subject": "NVIDIA CORPORATION",
        "relation": relation,
        "object": obj,
        "proposed_relation": relation,
        "value": None,
        "unit": None,
        "period": None,
        "value_conflict": False,
        "support": 1,
        "evidence": [
            {
                "chunk_id": NVDA_RISK["chunk_id"],
                "quote": quote,
                "char_start": NVDA_RISK["char_start"] + start if start >= 0 else None,
                "char_end": NVDA_RISK["char_start"] + start + len(quote) if start >= 0 else None,
            }
        ],
        "extraction_ids": [_hash("extraction", NVDA_RISK["chunk_id"])],
        "backend": "rules",
        "model": "rules-sample",
        "prompt_version": "rules-sample@0",
        "method": "rule:risks",
        "confidence": None,
    }


TRIPLE_ROWS = [
    _triple("accepted", "EXPOSED_TO_RISK", "rapid changes in technology", RISK_QUOTE),
    _triple("rejected", "SUPPLIES", "TSMC", "TSMC supplies our wafers.", "evidence_not_in_chunk"),
]


def sample_tables(*, without: tuple[str, ...] = ()) -> SnapshotTables:
    """The sample; `without` drops filings by id (to publish an older state of the world)."""
    filings = frame([f for f in FILING_ROWS if f["filing_id"] not in without], FILINGS)
    chunks = frame([c for c in CHUNK_ROWS if c["filing_id"] not in without], CHUNKS)
    metrics = frame(
        [o for o in _observations() if o["filing_id"] not in without], METRIC_OBSERVATIONS
    )
    companies = build_company_tables(
        filings,
        reference(),
        extra_ciks=metrics.get_column("cik").to_list(),
        segments=segment_members(xbrl_segment_facts()),
    )
    triples = frame([t for t in TRIPLE_ROWS if t["filing_id"] not in without], VALIDATED_TRIPLES)
    graph = build_graph(FrameInputs(filings, triples, metrics), reference())
    return SnapshotTables(
        filings=filings,
        chunks=chunks,
        metric_observations=metrics,
        companies=companies.companies,
        company_aliases=companies.aliases,
        registrants=companies.registrants,
        edges=graph.edges,
        edge_evidence=graph.edge_evidence,
        nodes=graph.nodes,
        entity_aliases=graph.entity_aliases,
        review_queue_size=graph.review_queue.height,
        communities=build_communities_of(graph, filings),
    )
