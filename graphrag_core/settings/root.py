"""The root Settings object and what is derived from a whole Settings."""

from __future__ import annotations

from pathlib import Path

from pydantic import AliasChoices, Field, SecretStr, field_validator, model_validator
from pydantic_settings import BaseSettings, SettingsConfigDict

from graphrag_core.settings.communities import CommunitySettings
from graphrag_core.settings.endpoints import ModelSettings, inherit_shared
from graphrag_core.settings.extraction import ExtractionSettings
from graphrag_core.settings.graph import GraphSettings
from graphrag_core.settings.intake import ChunkingSettings, EdgarSettings, ParseSettings
from graphrag_core.settings.operations import OperationsSettings, ReportSettings
from graphrag_core.settings.retrieval import AgentSettings, RetrievalSettings
from graphrag_core.settings.serving import McpSettings, MetricSettings, SnapshotSettings


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
