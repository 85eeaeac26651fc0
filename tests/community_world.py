"""A small world of filings for the communities tests: semiconductor companies tied by supply and
competition, banks tied by competition and ownership, each reporting risks; written as real
table-store partitions (raw_filings, section_chunks, validated_triples, metric_observations) so
that the graph stage, the communities stage and the snapshot run on it as on the corpus.
"""

from __future__ import annotations

import datetime as dt
import hashlib
from pathlib import Path

import polars as pl

from graphrag_core.graph.companies import CompanyReference
from graphrag_core.graph.graph_store import FrameInputs, Reference
from graphrag_core.tables.schemas import (
    CHUNKS,
    FILINGS,
    METRIC_OBSERVATIONS,
    VALIDATED_TRIPLES,
    frame,
)
from graphrag_core.tables.table_store import TableStore

NVDA, AMD, MU, TSM, INTC = "0001045810", "0000002488", "0000723125", "0001046179", "0000050863"
JPM, WFC, C = "0000019617", "0000072971", "0000831001"
SEMIS = "3674"
COMPANIES = {
    NVDA: ("NVDA", "NVIDIA CORP", SEMIS, "SEMICONDUCTORS & RELATED DEVICES"),
    AMD: ("AMD", "ADVANCED MICRO DEVICES INC", SEMIS, "SEMICONDUCTORS & RELATED DEVICES"),
    MU: ("MU", "MICRON TECHNOLOGY INC", SEMIS, "SEMICONDUCTORS & RELATED DEVICES"),
    INTC: ("INTC", "INTEL CORP", SEMIS, "SEMICONDUCTORS & RELATED DEVICES"),
    TSM: ("TSM", "TAIWAN SEMICONDUCTOR MANUFACTURING CO LTD", None, None),
    JPM: ("JPM", "JPMORGAN CHASE & CO", "6021", "NATIONAL COMMERCIAL BANKS"),
    WFC: ("WFC", "WELLS FARGO & COMPANY/MN", "6021", "NATIONAL COMMERCIAL BANKS"),
    C: ("C", "CITIGROUP INC", "6021", "NATIONAL COMMERCIAL BANKS"),
}


def h(*parts: object) -> str:
    return hashlib.sha256("|".join(map(str, parts)).encode()).hexdigest()[:24]


def accession(cik: str, year: int, n: int = 1) -> str:
    return f"{cik}-{year % 100:02d}-{n:06d}"


def filing_row(fid: str, cik: str, filed: str, fy: int, form: str = "10-K") -> dict:
    ticker, name, _, _ = COMPANIES[cik]
    return {
        "filing_id": fid,
        "accession": fid,
        "cik": cik,
        "ticker": ticker,
        "company": name,
        "form": form,
        "period_end": None,
        "fiscal_year": fy,
        "fiscal_period": "FY",
        "fiscal_year_end": "--12-31",
        "filed_date": dt.date.fromisoformat(filed),
        "source": "test",
        "sha256": h(fid, form),
        "bytes": 1,
        "documents": 1,
        "is_inline_xbrl": True,
        "meta_sources": "{}",
        "warnings": [],
    }


def triple_row(fid: str, subject: str, relation: str, obj: str, quote: str, chunk: int) -> dict:
    return {
        "triple_id": h(fid, subject, relation, obj),
        "filing_id": fid,
        "status": "accepted",
        "reason": None,
        "detail": None,
        "adjustment": None,
        "subject": subject,
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
                "chunk_id": f"{fid}:{chunk:04d}",
                "quote": quote,
                "char_start": 0,
                "char_end": len(quote),
            }
        ],
        "extraction_ids": [],
        "backend": "rules",
        "model": "test",
        "prompt_version": "t",
    }


# (subject, relation, object, quote) per filer; "we" is the filer.
STATEMENTS: dict[str, list[tuple[str, str, str, str]]] = {
    NVDA: [
        (
            "Taiwan Semiconductor Manufacturing Company Limited",
            "SUPPLIES",
            "we",
            "We utilize Taiwan Semiconductor Manufacturing Company Limited to produce our wafers.",
        ),
        (
            "Samsung Electronics Co., Ltd.",
            "SUPPLIES",
            "we",
            "Samsung Electronics Co., Ltd. supplies memory to us.",
        ),
        ("SK hynix Inc.", "SUPPLIES", "we", "SK hynix Inc. supplies high-bandwidth memory to us."),
        (
            "we",
            "COMPETES_WITH",
            "Advanced Micro Devices, Inc.",
            "We compete with Advanced Micro Devices, Inc.",
        ),
        ("we", "COMPETES_WITH", "Intel Corporation", "We compete with Intel Corporation."),
        (
            "we",
            "EXPOSED_TO_RISK",
            "export controls",
            "New export controls could limit our sales to China.",
        ),
        (
            "we",
            "EXPOSED_TO_RISK",
            "supplier concentration",
            "We depend on a limited number of suppliers.",
        ),
    ],
    AMD: [
        (
            "Taiwan Semiconductor Manufacturing Company Limited",
            "SUPPLIES",
            "we",
            "Taiwan Semiconductor Manufacturing Company Limited manufactures our processors.",
        ),
        (
            "we",
            "COMPETES_WITH",
            "NVIDIA Corporation",
            "We compete with NVIDIA Corporation in GPUs.",
        ),
        ("we", "COMPETES_WITH", "Intel Corporation", "We compete with Intel Corporation in CPUs."),
        (
            "we",
            "EXPOSED_TO_RISK",
            "export controls",
            "Export controls restrict our shipments of accelerators.",
        ),
        (
            "we",
            "EXPOSED_TO_RISK",
            "cybersecurity",
            "A cybersecurity breach could disrupt our operations.",
        ),
    ],
    MU: [
        (
            "we",
            "COMPETES_WITH",
            "Samsung Electronics Co., Ltd.",
            "We compete with Samsung Electronics Co., Ltd. in DRAM.",
        ),
        ("we", "COMPETES_WITH", "SK hynix Inc.", "We compete with SK hynix Inc. in memory."),
        (
            "we",
            "EXPOSED_TO_RISK",
            "export controls",
            "Export controls may affect our business in China.",
        ),
        ("we", "EXPOSED_TO_RISK", "tariffs", "Tariffs on memory products could raise our costs."),
    ],
    JPM: [
        (
            "we",
            "COMPETES_WITH",
            "Wells Fargo & Company",
            "We compete with Wells Fargo & Company for deposits.",
        ),
        (
            "we",
            "COMPETES_WITH",
            "Citigroup Inc.",
            "We compete with Citigroup Inc. in card services.",
        ),
        (
            "JPMorgan Chase Bank, N.A.",
            "SUBSIDIARY_OF",
            "we",
            "JPMorgan Chase Bank, N.A. is our principal bank subsidiary.",
        ),
        (
            "we",
            "EXPOSED_TO_RISK",
            "interest rates",
            "Changes in interest rates affect our net interest income.",
        ),
        ("we", "EXPOSED_TO_RISK", "cybersecurity", "Cybersecurity attacks could harm our clients."),
    ],
    WFC: [
        (
            "we",
            "COMPETES_WITH",
            "JPMorgan Chase & Co.",
            "We compete with JPMorgan Chase & Co. for clients.",
        ),
        ("we", "COMPETES_WITH", "Citigroup Inc.", "We compete with Citigroup Inc. in lending."),
        (
            "Wells Fargo Bank, N.A.",
            "SUBSIDIARY_OF",
            "we",
            "Wells Fargo Bank, N.A. is our principal subsidiary.",
        ),
        ("we", "EXPOSED_TO_RISK", "interest rates", "Interest rates could reduce our margins."),
        ("we", "EXPOSED_TO_RISK", "regulation", "Banking regulation limits our activities."),
    ],
}
FILED = {
    NVDA: "2025-02-26",
    AMD: "2025-02-05",
    MU: "2024-10-04",
    JPM: "2025-02-14",
    WFC: "2025-02-25",
}


def world_filings() -> dict[str, tuple[dict, list[dict]]]:
    """filing id → (raw_filings row, validated triples) for each filer's 10-K."""
    out = {}
    for cik, statements in STATEMENTS.items():
        year = int(FILED[cik][:4])
        fid = accession(cik, year)
        name = COMPANIES[cik][1]
        triples = [
            triple_row(fid, name if s == "we" else s, rel, name if o == "we" else o, quote, i + 1)
            for i, (s, rel, o, quote) in enumerate(statements)
        ]
        out[fid] = (filing_row(fid, cik, FILED[cik], year - 1), triples)
    return out


def extra_filing(
    cik: str,
    statements: list[tuple[str, str, str, str]],
    *,
    year: int = 2025,
    n: int = 2,
    filed: str = "2025-06-01",
    form: str = "10-K",
    fiscal_year: int | None = None,
) -> tuple[str, tuple[dict, list[dict]]]:
    fid = accession(cik, year, n)
    name = COMPANIES[cik][1]
    triples = [
        triple_row(fid, name if s == "we" else s, rel, name if o == "we" else o, quote, i + 1)
        for i, (s, rel, o, quote) in enumerate(statements)
    ]
    return fid, (filing_row(fid, cik, filed, fiscal_year or year - 1, form), triples)


def ticker_rows() -> list[dict]:
    return [{"cik": cik, "ticker": t, "title": name} for cik, (t, name, _, _) in COMPANIES.items()]


def submissions() -> dict[str, dict]:
    return {
        cik: {"name": name, "tickers": [t], "sic": sic, "sicDescription": desc}
        for cik, (t, name, sic, desc) in COMPANIES.items()
        if sic
    }


def reference() -> Reference:
    return Reference(ticker_rows(), submissions())


def company_reference() -> CompanyReference:
    return CompanyReference(ticker_rows(), submissions())


def frame_inputs(filings: dict[str, tuple[dict, list[dict]]]) -> FrameInputs:
    return FrameInputs(
        frame([f for f, _ in filings.values()], FILINGS),
        frame([t for _, ts in filings.values() for t in ts], VALIDATED_TRIPLES),
        frame([], METRIC_OBSERVATIONS),
    )


def chunk_rows(filings: dict[str, tuple[dict, list[dict]]]) -> list[dict]:
    rows = []
    for fid, (_, triples) in filings.items():
        for t in triples:
            ev = t["evidence"][0]
            rows.append(
                {
                    "chunk_id": ev["chunk_id"],
                    "filing_id": fid,
                    "document_type": "10-K",
                    "section": "10-K/Item 1A"
                    if t["relation"] == "EXPOSED_TO_RISK"
                    else "10-K/Item 1",
                    "kind": "prose",
                    "ordinal": int(ev["chunk_id"][-4:]),
                    "text": ev["quote"],
                    "char_start": 0,
                    "char_end": len(ev["quote"]),
                    "scale_header": None,
                    "token_count": len(ev["quote"].split()),
                    "sha256": h(ev["chunk_id"]),
                    "ix_ids": [],
                }
            )
    return rows


def write_store(data_root: Path, filings: dict[str, tuple[dict, list[dict]]]) -> TableStore:
    """The world as table-store partitions (what the per-filing assets write)."""
    store = TableStore(data_root)
    chunks = frame(chunk_rows(filings), {**CHUNKS})
    for fid, (row, triples) in filings.items():
        store.write("raw_filings", frame([row], FILINGS), fid)
        store.write("validated_triples", frame(triples, VALIDATED_TRIPLES), fid)
        store.write("metric_observations", frame([], METRIC_OBSERVATIONS), fid)
        store.write("section_chunks", chunks.filter(pl.col("filing_id") == fid), fid)
    return store
