"""One typed configuration object with environment overrides: the only place a default lives
and the only code that reads the environment.

Every path, URL and tunable is a field here, so nothing is buried as a literal in the code that
uses it. `Settings()` reads the environment once; Dagster resources carry their stage's section
(`settings.extraction`, `settings.snapshots`, …) and the CLI and the MCP server pass the pieces
they need down explicitly.

One module per section (intake, endpoints, extraction, graph, communities, serving, operations,
retrieval) and `root` for `Settings` itself; this package re-exports every public name, so
`from graphrag_core.settings import X` is the one import path callers use.
"""

from graphrag_core.settings.communities import CommunitySettings
from graphrag_core.settings.endpoints import (
    SHARED_ENDPOINT_FIELDS,
    ModelSettings,
    SectionT,
    inherit_shared,
    use_endpoint,
)
from graphrag_core.settings.extraction import ExtractionSettings
from graphrag_core.settings.graph import GraphSettings
from graphrag_core.settings.intake import ChunkingSettings, EdgarSettings, ParseSettings
from graphrag_core.settings.operations import OperationsSettings, ReportSettings
from graphrag_core.settings.paths import DEFAULT_WATCHLIST, GOLD_DIR, PROJECT_ROOT, default_corpus
from graphrag_core.settings.retrieval import AgentSettings, RetrievalSettings
from graphrag_core.settings.root import (
    Settings,
    inbox_dir,
    model_cache_dir,
    settings_environment,
    tables_root,
)
from graphrag_core.settings.serving import McpSettings, MetricSettings, SnapshotSettings

__all__ = [
    "AgentSettings",
    "ChunkingSettings",
    "CommunitySettings",
    "DEFAULT_WATCHLIST",
    "EdgarSettings",
    "ExtractionSettings",
    "GOLD_DIR",
    "GraphSettings",
    "McpSettings",
    "MetricSettings",
    "ModelSettings",
    "OperationsSettings",
    "PROJECT_ROOT",
    "ParseSettings",
    "ReportSettings",
    "RetrievalSettings",
    "SHARED_ENDPOINT_FIELDS",
    "SectionT",
    "Settings",
    "SnapshotSettings",
    "default_corpus",
    "inbox_dir",
    "inherit_shared",
    "model_cache_dir",
    "settings_environment",
    "tables_root",
    "use_endpoint",
]
