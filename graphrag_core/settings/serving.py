"""Publishing and serving: snapshots, the MCP server and how it qualifies metrics."""

from __future__ import annotations

from typing import Literal

from pydantic import Field, SecretStr, field_validator
from pydantic_settings import BaseSettings, SettingsConfigDict


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
