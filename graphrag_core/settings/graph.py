"""The knowledge graph's working store."""

from __future__ import annotations

from pydantic import Field
from pydantic_settings import BaseSettings, SettingsConfigDict


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
