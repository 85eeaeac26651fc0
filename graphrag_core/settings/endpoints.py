"""The shared model endpoint block and how each use takes its endpoint from it."""

from __future__ import annotations

from typing import TypeVar

from pydantic import Field, SecretStr
from pydantic_settings import BaseSettings, SettingsConfigDict

from graphrag_core.common.model_endpoint import ModelEndpoint


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
