"""The companies, company_aliases and registrants tables, from filings and SEC reference data.

Inputs are plain rows so that any source can feed them: `company_tickers()` rows
(`cik`, `ticker`, `title`) and `submissions(cik)` JSON documents (sic, sicDescription,
formerNames, fiscalYearEnd, tickers, exchanges, name) — the local corpus and the EDGAR client
provide the same methods. A company is in the table when the snapshot holds a filing or a
metric of it; the ticker list as a whole becomes `registrants`, so that a query for a known
company with no filings here can say so instead of "no match".
"""

from __future__ import annotations

import datetime as dt
import json
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from functools import partial

import polars as pl

from graphrag_core.common.dates import iso_date
from graphrag_core.common.errors import GraphragError
from graphrag_core.common.ids import company_key, normalize_cik
from graphrag_core.common.names import compact_name, member_label, normalize_name
from graphrag_core.tables.schemas import Schema

# Axes whose company-specific members name what a company sells or how it is organized: the
# names people use for it ("Google" for Alphabet's Google Services segment, "AWS" segments).
SEGMENT_AXES = frozenset({"us-gaap:StatementBusinessSegmentsAxis", "srt:ProductOrServiceAxis"})
# Members from standard taxonomies ("us-gaap:AllOtherSegmentsMember") name no brand.
STANDARD_PREFIXES = frozenset(
    {
        "us-gaap",
        "srt",
        "dei",
        "ifrs-full",
        "country",
        "currency",
        "exch",
        "stpr",
        "naics",
        "sic",
        "ecd",
    }
)

COMPANIES_SCHEMA: Schema = {
    "company_id": pl.String,
    "cik": pl.String,
    "name": pl.String,
    "tickers": pl.List(pl.String),
    "exchanges": pl.List(pl.String),
    "fiscal_year_end": pl.String,  # MM-DD
    "sic": pl.String,
    "sic_description": pl.String,
    "former_names": pl.List(
        pl.Struct({"name": pl.String, "date_from": pl.Date, "date_to": pl.Date})
    ),
    "filings": pl.Int32,
    "first_filed": pl.Date,
    "last_filed": pl.Date,
}

ALIASES_SCHEMA: Schema = {
    "cik": pl.String,
    "alias": pl.String,  # as written in its source
    "alias_norm": pl.String,  # normalize_name(alias); tickers upper-cased instead
    "alias_compact": pl.String,
    "kind": pl.String,  # name | registrant_name | ticker_title | ticker | former_name | segment
    "detail": pl.String,  # where it came from (axis, dates, filing)
}

REGISTRANTS_SCHEMA: Schema = {
    "cik": pl.String,
    "ticker": pl.String,
    "title": pl.String,
    "title_norm": pl.String,
}


@dataclass(frozen=True)
class CompanyReference:
    """SEC reference data for the companies of a snapshot, as plain rows."""

    tickers: list[dict] = field(default_factory=list)
    submissions: dict[str, dict] = field(default_factory=dict)


def collect_reference(
    ciks: Iterable[str],
    company_tickers: Callable[[], list[dict]],
    submissions: Callable[[str], dict | None],
    *,
    warn: Callable[[str], None] | None = None,
) -> CompanyReference:
    """Ask a source (its `company_tickers` and `submissions` methods) about these companies.

    Reference data enriches a snapshot (tickers, SIC, former names) but is not required: a
    failed lookup is reported through `warn` and the snapshot is built without it.
    """

    def attempt(what: str, call: Callable[[], object]):
        try:
            return call()
        except (GraphragError, OSError, ValueError) as exc:
            if warn:
                warn(f"{what} unavailable, snapshot built without it: {exc}")
            return None

    found: dict[str, dict] = {}
    for cik in sorted({c for c in (normalize_cik(c) for c in ciks) if c}):
        doc = attempt(f"SEC submissions of CIK {cik}", partial(submissions, cik))
        if doc:
            found[cik] = doc
    tickers = attempt("SEC company tickers", company_tickers) or []
    return CompanyReference(tickers=list(tickers), submissions=found)


def segment_members(xbrl_facts: pl.LazyFrame) -> pl.DataFrame:
    """(cik, axis, member, label) for company-specific segment and product members.

    Only facts with exactly one dimension are read: a member on its own names a segment; in
    combination it is often a slice ("Google Services" × "United States").
    """
    dims = (
        xbrl_facts.filter(pl.col("dimension_count") == 1)
        .select("cik", "dimensions")
        .unique()
        .collect()
    )
    rows = []
    for cik, dimensions in dims.iter_rows():
        try:
            parsed = json.loads(dimensions or "{}")
        except json.JSONDecodeError:
            continue
        for axis, member in parsed.items():
            if axis not in SEGMENT_AXES or not isinstance(member, str) or ":" not in member:
                continue
            if member.split(":", 1)[0] in STANDARD_PREFIXES:
                continue
            label = member_label(member)
            if label:
                rows.append(
                    {"cik": normalize_cik(cik), "axis": axis, "member": member, "label": label}
                )
    schema = {"cik": pl.String, "axis": pl.String, "member": pl.String, "label": pl.String}
    if not rows:
        return pl.DataFrame(schema=schema)
    return pl.DataFrame(rows, schema=schema).unique().sort("cik", "member")


def _month_day(value: str | None) -> str | None:
    """'--01-26' (dei) or '0131' (submissions) → '01-26' / '01-31'."""
    if not value:
        return None
    digits = "".join(ch for ch in value if ch.isdigit())
    if len(digits) != 4:
        return None
    return f"{digits[:2]}-{digits[2:]}"


def _dedupe(values: Iterable[str | None]) -> list[str]:
    seen: dict[str, None] = {}
    for value in values:
        if value and value not in seen:
            seen[value] = None
    return list(seen)


def _company_row(
    cik: str,
    filings: list[dict],
    ticker_rows: list[dict],
    submission: dict | None,
) -> dict:
    # Newest filing first: its registrant name and fiscal year end are the current ones.
    filings = sorted(
        filings,
        key=lambda f: (f.get("filed_date") or dt.date.min, f.get("period_end") or dt.date.min),
        reverse=True,
    )
    sub = submission or {}
    name = next((f["company"] for f in filings if f.get("company")), None)
    name = (
        name or sub.get("name") or next((t["title"] for t in ticker_rows if t.get("title")), None)
    )
    fye = next(
        (_month_day(f.get("fiscal_year_end")) for f in filings if f.get("fiscal_year_end")), None
    )
    filed = [f["filed_date"] for f in filings if f.get("filed_date")]
    return {
        "company_id": company_key(cik),
        "cik": cik,
        "name": name or company_key(cik),
        "tickers": _dedupe(
            [
                *(str(t).upper() for t in sub.get("tickers") or []),
                *(t["ticker"] for t in ticker_rows),
                *((f.get("ticker") or "").upper() for f in filings),
            ]
        ),
        "exchanges": _dedupe(sub.get("exchanges") or []),
        "fiscal_year_end": fye or _month_day(sub.get("fiscalYearEnd")),
        "sic": sub.get("sic") or None,
        "sic_description": sub.get("sicDescription") or None,
        "former_names": [
            {
                "name": f.get("name"),
                "date_from": iso_date(f.get("from")),
                "date_to": iso_date(f.get("to")),
            }
            for f in sub.get("formerNames") or []
            if f.get("name")
        ],
        "filings": len(filings),
        "first_filed": min(filed) if filed else None,
        "last_filed": max(filed) if filed else None,
    }


def _alias(cik: str, alias: str, kind: str, detail: str | None = None) -> dict:
    if kind == "ticker":
        norm = alias.upper()
        return {
            "cik": cik,
            "alias": alias,
            "alias_norm": norm,
            "alias_compact": norm,
            "kind": kind,
            "detail": detail,
        }
    return {
        "cik": cik,
        "alias": alias,
        "alias_norm": normalize_name(alias),
        "alias_compact": compact_name(alias),
        "kind": kind,
        "detail": detail,
    }


def _alias_rows(
    company: dict,
    filings: list[dict],
    ticker_rows: list[dict],
    submission: dict | None,
    segments: list[dict],
) -> list[dict]:
    cik = company["cik"]
    rows = [_alias(cik, company["name"], "name")]
    for f in filings:
        if f.get("company"):
            rows.append(_alias(cik, f["company"], "registrant_name", f"filing {f['filing_id']}"))
    if submission and submission.get("name"):
        rows.append(_alias(cik, submission["name"], "registrant_name", "SEC submissions"))
    for t in ticker_rows:
        if t.get("title"):
            rows.append(_alias(cik, t["title"], "ticker_title", "SEC company_tickers.json"))
    for ticker in company["tickers"]:
        rows.append(_alias(cik, ticker, "ticker"))
    for former in company["former_names"]:
        span = f"{former['date_from'] or '?'} to {former['date_to'] or '?'}"
        rows.append(_alias(cik, former["name"], "former_name", span))
    for seg in segments:
        rows.append(_alias(cik, seg["label"], "segment", f"{seg['axis']} {seg['member']}"))
    # One row per (normalized alias, kind): the same name from ten filings is one alias.
    unique: dict[tuple[str, str], dict] = {}
    for row in rows:
        if row["alias_norm"]:
            unique.setdefault((row["alias_norm"], row["kind"]), row)
    return list(unique.values())


@dataclass(frozen=True)
class CompanyTables:
    companies: pl.DataFrame
    aliases: pl.DataFrame
    registrants: pl.DataFrame


def build_company_tables(
    filings: pl.DataFrame,
    reference: CompanyReference,
    *,
    extra_ciks: Iterable[str] = (),
    segments: pl.DataFrame | None = None,
) -> CompanyTables:
    """Companies of the snapshot (CIKs of `filings` plus `extra_ciks`), their aliases, and the
    registrant list. Pure: same inputs, same rows, in CIK order."""
    by_cik: dict[str, list[dict]] = {}
    for row in filings.iter_rows(named=True):
        cik = normalize_cik(row.get("cik"))
        if cik:
            by_cik.setdefault(cik, []).append(row)
    for cik in extra_ciks:
        key = normalize_cik(cik)
        if key:
            by_cik.setdefault(key, [])

    tickers_by_cik: dict[str, list[dict]] = {}
    registrants = []
    for row in reference.tickers:
        cik = normalize_cik(row.get("cik"))
        if not cik or not row.get("ticker"):
            continue
        clean = {"cik": cik, "ticker": str(row["ticker"]).upper(), "title": row.get("title")}
        tickers_by_cik.setdefault(cik, []).append(clean)
        registrants.append({**clean, "title_norm": normalize_name(clean["title"] or "")})

    segs_by_cik: dict[str, list[dict]] = {}
    if segments is not None:
        for row in segments.iter_rows(named=True):
            segs_by_cik.setdefault(row["cik"], []).append(row)

    companies, aliases = [], []
    for cik in sorted(by_cik):
        submission = reference.submissions.get(cik)
        company = _company_row(cik, by_cik[cik], tickers_by_cik.get(cik, []), submission)
        companies.append(company)
        aliases.extend(
            _alias_rows(
                company,
                by_cik[cik],
                tickers_by_cik.get(cik, []),
                submission,
                segs_by_cik.get(cik, []),
            )
        )
    return CompanyTables(
        companies=pl.DataFrame(companies, schema=COMPANIES_SCHEMA),
        aliases=pl.DataFrame(aliases, schema=ALIASES_SCHEMA),
        registrants=pl.DataFrame(registrants, schema=REGISTRANTS_SCHEMA).unique(
            subset=["cik", "ticker"], keep="first", maintain_order=True
        ),
    )
