"""The typed records a filing crosses stages as: where its documents are (`DocumentRef`,
`FilingRef`, from discovery) and what it is (`FilingMeta`, one row of `raw_filings`)."""

from __future__ import annotations

import datetime as dt
import json
from typing import Any, Literal

import polars as pl
from pydantic import BaseModel, ConfigDict, Field, field_validator

from graphrag_core.common.ids import normalize_cik
from graphrag_core.tables.schemas import FILINGS, frame

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
    """Metadata of a fetched filing: one row of `raw_filings`, and what every later stage is
    told about the filing it works on."""

    filing_id: str
    accession: str | None = None
    cik: str | None = None
    ticker: str | None = None
    company: str | None = None
    form: str
    period_end: dt.date | None = None
    fiscal_year: int | None = None
    fiscal_period: str | None = None
    fiscal_year_end: str | None = Field(
        None, description="--MM-DD from dei:CurrentFiscalYearEndDate"
    )
    filed_date: dt.date | None = None
    source: str
    sha256: str
    bytes: int
    is_inline_xbrl: bool
    documents: int = Field(1, ge=1, description="documents kept: the primary and its exhibits")
    meta_sources: dict[str, str] = Field(default_factory=dict)
    warnings: list[str] = Field(default_factory=list)

    @property
    def display_name(self) -> str:
        """The company's name as filed, else its ticker, else the filing id."""
        return self.company or self.ticker or self.filing_id

    def frame(self) -> pl.DataFrame:
        """This record as the one-row `raw_filings` table."""
        row: dict[str, Any] = self.model_dump()
        row["meta_sources"] = json.dumps(row["meta_sources"], sort_keys=True)
        return frame([row], FILINGS)

    @classmethod
    def from_frame(cls, raw_filings: pl.DataFrame) -> FilingMeta:
        """The record a `raw_filings` partition holds (exactly one row)."""
        if raw_filings.height != 1:
            raise ValueError(
                f"a raw_filings partition holds one filing, this one {raw_filings.height} rows; "
                "re-materialize raw_filings for it"
            )
        row = raw_filings.row(0, named=True)
        row["meta_sources"] = json.loads(row.get("meta_sources") or "{}")
        row["warnings"] = list(row.get("warnings") or [])
        return cls.model_validate(row)
