"""Intake: how filings are fetched from EDGAR, parsed and cut into chunks."""

from __future__ import annotations

from typing import Annotated

from pydantic import Field, field_validator
from pydantic_settings import BaseSettings, NoDecode, SettingsConfigDict

from graphrag_core.settings.paths import DEFAULT_WATCHLIST


class ChunkingSettings(BaseSettings):
    """How sections are cut into chunks."""

    model_config = SettingsConfigDict(env_prefix="GRAPHRAG_CHUNK_", extra="ignore")

    max_tokens: int = Field(512, ge=32, le=8192, description="token budget of a prose chunk")
    overlap_tokens: int = Field(
        0, ge=0, le=2048, description="tokens repeated from the previous chunk"
    )
    table_max_tokens: int = Field(
        1536, ge=64, description="a table above this many tokens is split by row groups"
    )


class ParseSettings(BaseSettings):
    """Limits on what a document may be before it is refused or flagged."""

    model_config = SettingsConfigDict(env_prefix="GRAPHRAG_", extra="ignore")

    max_document_mb: float = Field(
        150.0, gt=0, description="documents above this size are refused (their partition fails)"
    )
    large_document_mb: float = Field(
        25.0, gt=0, description="documents above this size are parsed with a warning"
    )
    min_text_coverage: float = Field(
        0.75,
        ge=0,
        le=1,
        description="a document whose parsed text holds a smaller share of the words its markup "
        "shows fails its partition (the parser lost text); complete parses are 0.97-1.0",
    )
    warn_text_coverage: float = Field(
        0.9, ge=0, le=1, description="below this share the document is parsed with a warning"
    )
    inferred_min_chars: int = Field(
        3_000,
        ge=0,
        description="a 10-K/10-Q without recognizable narrative items gets sections inferred from "
        "its text only when it holds this many characters of prose (a letter or a cut-off "
        "download stays one unextracted section and fails the annual-report items check)",
    )
    inferred_window_chars: int = Field(
        4_000, gt=0, description="characters of text per window whose topic the fallback infers"
    )
    giant_section_share: float = Field(
        0.8,
        gt=0,
        le=1,
        description="an item section holding this share of a 10-K/10-Q's prose, with no narrative "
        "item found, is a misread layout: its sections are inferred from the text",
    )


class EdgarSettings(BaseSettings):
    """SEC EDGAR endpoints and politeness limits. Base URLs are overridable for tests and
    mirrors."""

    model_config = SettingsConfigDict(env_prefix="EDGAR_", extra="ignore")

    identity: str | None = Field(
        None, description='"Name email" sent as User-Agent; SEC refuses anonymous requests'
    )
    data_base_url: str = Field(
        "https://data.sec.gov",
        description="SEC's JSON API (submissions, companyfacts); a mirror or a test server here",
    )
    archives_base_url: str = Field(
        "https://www.sec.gov", description="SEC's Archives, where filing documents are fetched"
    )
    tickers_url: str = Field(
        "https://www.sec.gov/files/company_tickers.json",
        description="SEC's ticker file, which resolves watchlist tickers and names to CIKs",
    )
    max_requests_per_second: float = Field(
        10.0, gt=0, le=10.0, description="requests/s to SEC, one budget for every process"
    )
    rate_headroom: float = Field(
        # 5% (9.5/s) let a late request followed by punctual ones put 11 arrivals in one second
        # on a loaded machine (tests/test_edgar_client.py, a clean-clone run): 10% needs twice
        # the bunching for that.
        0.10,
        ge=0,
        lt=0.5,
        description="fraction kept below max_requests_per_second so network jitter cannot bunch "
        "more than the limit into one second as SEC counts them",
    )
    max_retries: int = Field(
        5, ge=0, le=20, description="retries of an EDGAR download after a transient failure"
    )
    timeout_s: float = Field(30.0, gt=0, description="per-request timeout of an EDGAR download")
    backoff_base_s: float = Field(
        0.5, gt=0, description="first wait before retrying EDGAR, doubled at each attempt"
    )
    backoff_max_s: float = Field(
        30.0,
        gt=0,
        description="longest wait between EDGAR attempts; a longer Retry-After fails the "
        "request with the advice to wait",
    )
    live_max_age_s: float = Field(
        600.0,
        ge=0,
        description="cached submissions/companyfacts JSON older than this is fetched again "
        "(Archives documents never change and are cached forever)",
    )
    tickers_max_age_s: float = Field(
        86400.0, ge=0, description="cached company_tickers.json older than this is fetched again"
    )
    # NoDecode: EDGAR_WATCHLIST="AAPL,MSFT" (commas) as well as a JSON list.
    watchlist: Annotated[tuple[str, ...], NoDecode] = Field(
        DEFAULT_WATCHLIST,
        description="companies (tickers or CIKs) whose filings `ingest --edgar` and the "
        "edgar_sensor fetch; commas or a JSON list",
    )
    forms: Annotated[tuple[str, ...], NoDecode] = Field(
        ("10-K", "10-Q", "8-K"),
        description="form types fetched from EDGAR, matched exactly (an amendment such as "
        "10-K/A only when listed); commas or a JSON list",
    )
    max_filings_per_company: int = Field(
        4, ge=1, description="newest filings of each form kept per watchlist company"
    )

    @field_validator("watchlist", "forms", mode="before")
    @classmethod
    def _split_list(cls, value: object) -> object:
        if isinstance(value, str):
            text = value.strip()
            if text.startswith("["):
                import json

                return tuple(json.loads(text))
            return tuple(part.strip() for part in text.split(",") if part.strip())
        return value
