"""Communities: detection, the reports' summarizer and the themes answer."""

from __future__ import annotations

from typing import Literal

from pydantic import Field, SecretStr
from pydantic_settings import BaseSettings, SettingsConfigDict

from graphrag_core.common.model_endpoint import ModelEndpoint
from graphrag_core.settings.endpoints import use_endpoint


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
    lock_timeout_s: float = Field(
        300.0,
        ge=0,
        description="how long opening the communities' working store waits while another "
        "process has it open (DuckDB allows one writing process), as the graph's does",
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

    # Themes from the filings' own risk-factor headings (issue 25, item 2;
    # graphrag_core/retrieval/themes.py).
    theme_similarity: float = Field(
        0.65,
        gt=0,
        lt=1,
        description="two risk factors share a theme when the average cosine similarity of "
        "their MiniLM vectors (heading + first sentence) across the two groups is at least this "
        "(average-linkage clustering); chosen on the corpus: 0.6 lumps privacy with regulation, "
        "0.7 splits cybersecurity from data security",
    )
    theme_min_companies: int = Field(
        2, ge=1, le=50, description="companies a theme must span (a theme is across companies)"
    )
    theme_max_age_days: int = Field(
        548,
        ge=1,
        le=36_500,
        description="community_themes leaves out a theme member whose filing is older than this "
        "before the answer's as_of (18 months: a 10-K and the next one), unless asked for",
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
