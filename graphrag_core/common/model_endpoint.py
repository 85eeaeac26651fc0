"""What one use of a model endpoint needs to reach it, resolved from `Settings`.

Kept apart from the client (model_client.py) so that Settings, which every process loads,
describes endpoints without loading the OpenAI SDK; only a process that calls a model does.
"""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field, SecretStr


class ModelEndpoint(BaseModel):
    """One use's endpoint, resolved: where it is, which model, and how hard to push it."""

    model_config = ConfigDict(frozen=True)

    use: str = Field(description="what calls it (extraction, summaries, themes, ...)")
    base_url: str = Field(min_length=1, description="OpenAI-compatible base URL, ending in /v1")
    model: str = Field(min_length=1, description="model name the endpoint serves")
    api_key: SecretStr | None = None
    timeout_s: float = Field(gt=0, allow_inf_nan=False, description="per-request timeout")
    concurrency: int = Field(ge=1, description="requests in flight at once per client")
    max_retries: int = Field(ge=0, description="retries after a retryable failure")
    backoff_base_s: float = Field(0.5, gt=0, allow_inf_nan=False)
    backoff_max_s: float = Field(20.0, gt=0, allow_inf_nan=False)
    settings_prefix: str = Field(
        "", description="environment prefix of this use's settings, named in errors"
    )
