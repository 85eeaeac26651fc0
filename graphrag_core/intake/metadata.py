"""Filing metadata: inline-XBRL `dei:` facts first, then the SGML header and cover page, then
what the source said. Each field records where its value came from (`meta_sources`)."""

from __future__ import annotations

import html
import re

from graphrag_core.common.dates import parse_date_loose, parse_fiscal_year_end
from graphrag_core.common.ids import normalize_cik
from graphrag_core.tables.records import FilingMeta, FilingRef

_NONNUMERIC_TAG_RE = re.compile(r"<(/?)ix:nonnumeric\b([^>]*)>", re.I)
_NAME_ATTR_RE = re.compile(r"\bname\s*=\s*[\"']([^\"']+)[\"']", re.I)
_TAG_RE = re.compile(r"<[^>]+>")


def dei_facts(markup: str) -> dict[str, str]:
    """Visible or hidden `dei:` facts of an inline-XBRL document, as displayed (first wins).

    ix:nonNumeric elements nest (NVIDIA wraps CurrentFiscalYearEndDate inside
    DocumentPeriodEndDate), so open and close tags are matched with a stack."""
    facts: dict[str, str] = {}
    stack: list[tuple[str | None, int]] = []
    for m in _NONNUMERIC_TAG_RE.finditer(markup):
        if not m.group(1):
            name = _NAME_ATTR_RE.search(m.group(2))
            qname = name.group(1) if name else None
            if m.group(2).rstrip().endswith("/"):
                continue  # self-closing: no content
            stack.append((qname, m.end()))
            continue
        if not stack:
            continue
        qname, start = stack.pop()
        if not qname or not qname.lower().startswith("dei:"):
            continue
        local = qname.split(":", 1)[1]
        if local in facts:
            continue
        value = html.unescape(_TAG_RE.sub(" ", markup[start : m.start()]))
        value = re.sub(r"\s+", " ", value).strip()
        if value:
            facts[local] = value
    return facts


_HEADER_FIELDS = {
    "CONFORMED SUBMISSION TYPE": "form",
    "CENTRAL INDEX KEY": "cik",
    "COMPANY CONFORMED NAME": "company",
    "CONFORMED PERIOD OF REPORT": "period_end",
    "FILED AS OF DATE": "filed_date",
    "ACCESSION NUMBER": "accession",
    "FISCAL YEAR END": "fiscal_year_end",
}


def header_fields(header: str | None) -> dict[str, str]:
    """Fields of an EDGAR SGML header (`<SEC-HEADER>`), first occurrence of each."""
    out: dict[str, str] = {}
    if not header:
        return out
    for line in header.splitlines():
        key, sep, value = line.partition(":")
        field = _HEADER_FIELDS.get(key.strip().upper())
        if sep and field and field not in out and value.strip():
            out[field] = value.strip()
    return out


# The form line of a cover page stands alone ("FORM 10-K"); "our Form 10-K" in prose is not it.
_COVER_FORM_RE = re.compile(
    r"(?m)^\s*FORM\s+(10-K(?:405|T)?|10-Q|8-K|20-F|40-F|6-K)(/A)?\s*$", re.I
)
_COVER_PERIOD_RE = re.compile(
    r"(?:fiscal\s+year\s+ended|quarterly\s+period\s+ended|period\s+ended|"
    r"date\s+of\s+report\s*\(date\s+of\s+earliest\s+event\s+reported\)\s*:?)\s*[:\-]?\s*"
    r"([A-Za-z]{3,9}\.?\s+\d{1,2}\s*,?\s*\d{4}|\d{1,2}/\d{1,2}/\d{4})",
    re.I,
)
_COVER_NAME_RE = re.compile(r"([^\n]{2,120}?)\s*\n+\s*\(?\s*exact\s+name\s+of\s+registrant", re.I)


def cover_fields(text: str) -> dict[str, str]:
    """Form, period and registrant name from the cover page of a plain-HTML filing."""
    head = text[:15_000]
    out: dict[str, str] = {}
    if m := _COVER_FORM_RE.search(head):
        out["form"] = m.group(1).upper() + (m.group(2) or "").upper()
    if m := _COVER_PERIOD_RE.search(head):
        out["period_end"] = m.group(1)
    if m := _COVER_NAME_RE.search(head):
        name = m.group(1).strip(" .,:;|")
        if 2 <= len(name) <= 120 and not name.lower().startswith(("commission", "(")):
            out["company"] = name
    return out


def _fiscal_year(value: str | None) -> int | None:
    if value and re.fullmatch(r"\s*\d{4}\s*", value):
        return int(value)
    return None


def resolve_meta(
    ref: FilingRef,
    primary_markup: str,
    sgml_header: str | None,
    cover_text: str,
    *,
    sha256: str,
    total_bytes: int,
    documents: int,
    is_inline_xbrl: bool,
    warnings: list[str],
) -> FilingMeta:
    """Merge dei facts > SGML header > cover page > source reference, recording provenance."""
    dei = dei_facts(primary_markup) if is_inline_xbrl else {}
    header = header_fields(sgml_header)
    cover = cover_fields(cover_text)
    sources: dict[str, str] = {}

    def pick(field: str, *options: tuple[str, object]):
        for origin, value in options:
            if value not in (None, ""):
                sources[field] = origin
                return value
        return None

    form = pick(
        "form",
        ("dei:DocumentType", dei.get("DocumentType")),
        ("sgml header", header.get("form")),
        ("source", ref.form if ref.form and ref.form.upper() != "UNKNOWN" else None),
        ("cover page", cover.get("form")),
    )
    cik = pick(
        "cik",
        ("dei:EntityCentralIndexKey", normalize_cik(dei.get("EntityCentralIndexKey"))),
        ("sgml header", normalize_cik(header.get("cik"))),
        ("source", ref.cik),
    )
    company = pick(
        "company",
        ("dei:EntityRegistrantName", dei.get("EntityRegistrantName")),
        ("sgml header", header.get("company")),
        ("source", ref.company),
        ("cover page", cover.get("company")),
    )
    period_end = pick(
        "period_end",
        ("dei:DocumentPeriodEndDate", parse_date_loose(dei.get("DocumentPeriodEndDate"))),
        ("sgml header", parse_date_loose(header.get("period_end"))),
        ("source", ref.period_end),
        ("cover page", parse_date_loose(cover.get("period_end"))),
    )
    ticker = pick(
        "ticker",
        ("dei:TradingSymbol", (dei.get("TradingSymbol") or "").split(" ")[0].upper() or None),
        ("source", ref.ticker),
    )
    filed = pick(
        "filed_date",
        ("source", ref.filed_date),
        ("sgml header", parse_date_loose(header.get("filed_date"))),
    )
    fye = pick(
        "fiscal_year_end",
        (
            "dei:CurrentFiscalYearEndDate",
            parse_fiscal_year_end(dei.get("CurrentFiscalYearEndDate")),
        ),
        ("sgml header", parse_fiscal_year_end(header.get("fiscal_year_end"))),
    )
    fiscal_year = pick(
        "fiscal_year",
        ("dei:DocumentFiscalYearFocus", _fiscal_year(dei.get("DocumentFiscalYearFocus"))),
    )
    fiscal_period = pick(
        "fiscal_period",
        (
            "dei:DocumentFiscalPeriodFocus",
            (dei.get("DocumentFiscalPeriodFocus") or "").upper() or None,
        ),
    )
    accession = ref.accession or header.get("accession")
    if not form:
        form = "UNKNOWN"
        warnings.append(
            "form type not found in dei facts, SGML header, source or cover page; sections "
            "cannot be recognized (set `form` in the manifest for this document)"
        )
    if not cik:
        warnings.append("no CIK in dei facts, SGML header or source; company cannot be resolved")
    return FilingMeta(
        filing_id=ref.filing_id,
        accession=accession,
        cik=cik,
        ticker=ticker,
        company=company,
        form=str(form).upper() if str(form).upper() != "TRANSCRIPT" else "TRANSCRIPT",
        period_end=period_end,
        fiscal_year=fiscal_year,
        fiscal_period=fiscal_period,
        fiscal_year_end=fye,
        filed_date=filed,
        source=ref.documents[0].location,
        sha256=sha256,
        bytes=total_bytes,
        is_inline_xbrl=is_inline_xbrl,
        documents=documents,
        meta_sources=sources,
        warnings=warnings,
    )
