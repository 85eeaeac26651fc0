"""Whether a local file may take the accession number its name claims.

A file named `0001045810-25-000023.htm` says it is that EDGAR filing, but a name is only a
claim: a copy renamed by hand, or a hostile file, would take another company's filing id and
overwrite or shadow that filing's partition. The claim is accepted only when the content
agrees; otherwise the file is keyed by its content (`sha-…`) and the caller warns.

What counts as agreement, strongest first:
1. The document's own SGML header names an accession: it must be this one.
2. SEC's submissions of the document's CIK are at hand (`reference/submissions`): they must
   list this accession, with the document's form and period.
3. Neither: the accession must not belong to another registrant (its first ten digits are the
   filer's CIK; a filing agent's CIK is no registrant in SEC's ticker list), and its two-digit
   year must be the period's year or the next (a report is filed after its period ends).
A document that names neither a CIK nor a period confirms nothing.
"""

from __future__ import annotations

import datetime as dt
import html
import re
from collections.abc import Callable
from dataclasses import dataclass

from graphrag_core.common.dates import parse_date_loose
from graphrag_core.common.errors import FilingError
from graphrag_core.common.ids import normalize_cik
from graphrag_core.intake.edgar.edgar_source import submission_rows
from graphrag_core.intake.metadata import cover_fields, dei_facts, header_fields
from graphrag_core.text.documents import decode_document

_TAG_RE = re.compile(r"<[^>]+>")
# The cover page is near the top; reading its first part keeps discovery cheap.
_COVER_MARKUP_CHARS = 300_000


@dataclass(frozen=True)
class ContentFacts:
    """What a document says about itself: CIK, form, period and (SGML) accession."""

    cik: str | None
    form: str | None
    period: dt.date | None
    accession: str | None


def content_facts(data: bytes, source: str) -> ContentFacts | None:
    """The identity a document's content states, or None when it cannot be read at all (empty
    or binary: its partition will fail with the reason later)."""
    try:
        doc = decode_document(data, source)
    except FilingError:
        return None
    dei = dei_facts(doc.markup) if doc.is_inline_xbrl else {}
    header = header_fields(doc.sgml_header)
    head = doc.markup[:_COVER_MARKUP_CHARS]
    cover = cover_fields(html.unescape(_TAG_RE.sub("\n", head)) if doc.is_html else head)
    form = dei.get("DocumentType") or header.get("form") or cover.get("form")
    period = (
        parse_date_loose(dei.get("DocumentPeriodEndDate"))
        or parse_date_loose(header.get("period_end"))
        or parse_date_loose(cover.get("period_end"))
    )
    return ContentFacts(
        cik=normalize_cik(dei.get("EntityCentralIndexKey")) or normalize_cik(header.get("cik")),
        form=form.strip().upper() if form else None,
        period=period,
        accession=header.get("accession"),
    )


def accession_disagreement(
    accession: str,
    facts: ContentFacts | None,
    *,
    submissions: Callable[[str], dict | None],
    registrants: Callable[[], dict[str, str]],
) -> str | None:
    """None when the content confirms `accession`; otherwise why it does not.

    `submissions(cik)` is SEC's submissions JSON of a company when known; `registrants()` maps
    CIKs of known registrants to their names (SEC's ticker list)."""
    if facts is None:
        return "the document cannot be read to confirm it"
    if facts.accession:
        if facts.accession.strip() != accession:
            return f"its SGML header names accession {facts.accession.strip()}"
        return None
    if facts.cik is None and facts.period is None:
        return "the document names neither a CIK nor a period to confirm it"
    if facts.cik is not None and (known := submissions(facts.cik)) is not None:
        recent = (known.get("filings") or {}).get("recent") or {}
        row = next((r for r in submission_rows(recent) if r.accession == accession), None)
        if row is None:
            return f"SEC's submissions of CIK {facts.cik} do not list it"
        if facts.form and row.form.upper() != facts.form:
            return f"SEC lists it as a {row.form}, the document is a {facts.form}"
        if facts.period and row.report and row.report != facts.period:
            return f"SEC lists it for period {row.report}, the document's period is {facts.period}"
        return None
    filer = accession[:10]
    if facts.cik is not None and filer != facts.cik:
        other = registrants().get(filer)
        if other is not None:
            return f"it was filed by CIK {filer} ({other}), the document is CIK {facts.cik}'s"
    if facts.period is not None:
        year = 1900 + int(accession[11:13])
        year += 100 if year < 1993 else 0  # EDGAR began in 1993: '25' is 2025, '99' is 1999
        if year not in (facts.period.year, facts.period.year + 1):
            return f"its year ({year}) does not fit the document's period ({facts.period})"
    elif facts.cik is not None and filer != facts.cik:
        return f"it was filed by CIK {filer} and the document (CIK {facts.cik}) names no period"
    return None
