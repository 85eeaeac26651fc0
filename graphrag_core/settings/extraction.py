"""Triple extraction: the backend, its model endpoint and the gold sets."""

from __future__ import annotations

from pathlib import Path
from typing import Literal

from pydantic import Field, SecretStr
from pydantic_settings import BaseSettings, SettingsConfigDict

from graphrag_core.common.model_endpoint import ModelEndpoint
from graphrag_core.settings.endpoints import use_endpoint
from graphrag_core.settings.paths import GOLD_DIR, PROJECT_ROOT

# The relation classifier's weights shipped in the package (built by
# `filings-graph train-relation-classifier`).
PACKAGED_WEIGHTS = (
    PROJECT_ROOT / "graphrag_core" / "extraction" / "models" / "relation_classifier.npz"
)


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
    blind2_set: Path = Field(
        default_factory=lambda: GOLD_DIR / "blind2_cases.jsonl",
        description="the second frozen blind split (fresh text, labelled from the guide alone, "
        "rich in company relations): scored beside the others, its errors never shown unless "
        "asked for explicitly",
    )

    learned: bool = Field(
        True,
        description="rules backend: also run the learned relation classifier (entity-marked "
        "sentence embeddings of the packaged MiniLM, a softmax layer) on the sentences the rules "
        "left unbound; its triples pass the same gates and carry method and score",
    )
    learned_threshold: float = Field(
        0.95,
        ge=0,
        le=1,
        allow_inf_nan=False,
        description="lowest class probability at which the classifier states a relation (chosen "
        "on the holdout split for precision >= 0.95 of its additions)",
    )
    learned_weights: Path = Field(
        default_factory=lambda: PACKAGED_WEIGHTS,
        description="the classifier's weights (.npz, with the embedding model id they were "
        "trained against; another model is a configuration error)",
    )
    train_set: Path = Field(
        default_factory=lambda: GOLD_DIR / "train_cases.jsonl",
        description="the classifier's training chunks besides the gold set's dev split (split "
        "`train`, no chunk of any gold file)",
    )

    def endpoint(self) -> ModelEndpoint | None:
        """The extractor's model endpoint, or None when no URL or model is configured."""
        return use_endpoint("extraction", self)

    def resolved_backend(self) -> Literal["rules", "openai"]:
        if self.backend != "auto":
            return self.backend
        return "openai" if self.endpoint() else "rules"
