"""Pydantic models at the boundaries between stages (what a source hands to the pipeline)."""

from __future__ import annotations

import datetime as dt
import hashlib
import re
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator

ACCESSION_RE = re.compile(r"^\d{10}-\d{2}-\d{6}$")
CIK_RE = re.compile(r"^\d{10}$")


def normalize_cik(value: str | int | None) -> str | None:
    """Zero-padded 10-digit CIK, or None. Accepts `320193`, `0000320193`, `CIK-0000320193`."""
    if value is None:
        return None
    digits = re.sub(r"\D", "", str(value))
    if not digits or len(digits) > 10:
        return None
    return digits.zfill(10)


def company_key(cik: str) -> str:
    """Canonical company entity id, e.g. `CIK-0001045810`."""
    return f"CIK-{normalize_cik(cik)}"


def sha_filing_id(sha256_hex: str) -> str:
    """Partition key of a local file with no accession number."""
    return f"sha-{sha256_hex[:16]}"


def iso_date(value) -> dt.date | None:
    """'2025-01-26' or '2025-01-26T00:00:00' (as SEC's JSON and the corpus manifest write
    dates) → date; None for empty or malformed values."""
    if not value:
        return None
    try:
        return dt.date.fromisoformat(str(value)[:10])
    except ValueError:
        return None


def sha256_bytes(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


DocumentRole = Literal["primary", "exhibit"]


class DocumentRef(BaseModel):
    """One document of a filing and where to get it."""

    model_config = ConfigDict(frozen=True)

    document_type: str = Field(description="10-K, 10-Q, 8-K, EX-99.1, EX-21, transcript, ...")
    filename: str
    location: str = Field(description="absolute path (local) or URL (EDGAR)")
    sha256: str | None = None
    bytes: int | None = None

    @property
    def role(self) -> DocumentRole:
        return "exhibit" if self.document_type.upper().startswith("EX-") else "primary"


class FilingRef(BaseModel):
    """A filing as discovered by a source, before it is fetched.

    Metadata here is what the source knows (manifest, submissions JSON); the document's own dei
    facts take precedence when raw_filings reads it.
    """

    model_config = ConfigDict(frozen=True)

    filing_id: str
    source_kind: Literal["local", "edgar"]
    cik: str | None = None
    ticker: str | None = None
    company: str | None = None
    form: str | None = None
    period_end: dt.date | None = None
    filed_date: dt.date | None = None
    accession: str | None = None
    documents: tuple[DocumentRef, ...]

    @field_validator("cik", mode="before")
    @classmethod
    def _cik(cls, value):
        return normalize_cik(value)


class FilingMeta(BaseModel):
    """Metadata of a fetched filing, one row of the `filings` table."""

    filing_id: str
    accession: str | None = None
    cik: str | None = None
    ticker: str | None = None
    company: str | None = None
    form: str
    period_end: dt.date | None = None
    fiscal_year: int | None = None
    fiscal_period: str | None = None
    fiscal_year_end: str | None = Field(None, description="--MM-DD from dei:CurrentFiscalYearEndDate")
    filed_date: dt.date | None = None
    source: str
    sha256: str
    bytes: int
    is_inline_xbrl: bool
    meta_sources: dict[str, str] = Field(default_factory=dict)
    warnings: list[str] = Field(default_factory=list)
