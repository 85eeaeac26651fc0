"""The resources the assets use: typed handles on the core's stores, source and extractor, each
built from its section of `Settings` (the one home of configuration; nothing here has a default
or reads the environment).

They are plain objects handed to Dagster as resources (`dg.ResourceParam[...]` in an asset's
signature): configuration is set through `Settings`' environment variables, the same for the
CLI, the UI and every run worker, rather than per run in the launchpad.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import dagster as dg
import polars as pl

from graphrag_core.common.errors import GraphragError
from graphrag_core.extraction import ExtractorBackend, build_backend
from graphrag_core.extraction.reply_cache import ExtractionCache
from graphrag_core.graph.communities.store import CommunityStore
from graphrag_core.graph.graph_store import GRAPH_DIR, GraphStore
from graphrag_core.graph.merge_log import MergeLog
from graphrag_core.intake.catalog import FilingCatalog
from graphrag_core.intake.local_folder import LocalFolderSource, read_local_document
from graphrag_core.intake.reference import ReferenceFolder, keep_reference, kept_reference_dir
from graphrag_core.intake.sources import FilingSource
from graphrag_core.settings import (
    ChunkingSettings,
    CommunitySettings,
    EdgarSettings,
    ExtractionSettings,
    GraphSettings,
    ParseSettings,
    ReportSettings,
    RetrievalSettings,
    Settings,
    SnapshotSettings,
    inbox_dir,
    tables_root,
)
from graphrag_core.store.publish import SnapshotStore
from graphrag_core.tables.records import DocumentRef, FilingRef
from graphrag_core.tables.table_store import TableStore

if TYPE_CHECKING:
    from graphrag_core.intake.edgar import EdgarSource


@dataclass(frozen=True)
class DataRootResource:
    """Where every table, raw document, cache and snapshot lives (GRAPHRAG_DATA), and the
    folder the local_inbox sensor watches."""

    data_root: Path
    inbox_folder: Path | None = None
    tables: str | Path | None = None  # GRAPHRAG_TABLES_URL: a folder or an fsspec URL

    def store(self) -> TableStore:
        return TableStore(self.tables or self.data_root)

    @property
    def inbox(self) -> Path:
        return self.inbox_folder or self.data_root / "inbox"

    def catalog(self) -> FilingCatalog:
        return FilingCatalog(self.data_root)

    def extraction_cache(self) -> ExtractionCache:
        return ExtractionCache.under(self.data_root)


@dataclass(frozen=True)
class ParsingResource:
    """Chunk budget and document size limits (GRAPHRAG_CHUNK_*, GRAPHRAG_MAX_DOCUMENT_MB)."""

    chunking: ChunkingSettings
    parse: ParseSettings


@dataclass(frozen=True)
class FilingSourceResource:
    """A local folder (FILINGS_CORPUS) when set, else EDGAR live for the watchlist (EDGAR_*)."""

    data_root: Path
    corpus: Path | None
    edgar: EdgarSettings

    @property
    def kind(self) -> str:
        return "local" if self.corpus else "edgar"

    def source(self) -> FilingSource:
        if self.corpus:
            return LocalFolderSource(self.corpus)
        from graphrag_core.intake.edgar import EdgarClient, EdgarSource

        client = EdgarClient(self.edgar, self.data_root / "cache" / "edgar")
        return EdgarSource(client, self.edgar)

    def edgar_source(self) -> EdgarSource:
        """EDGAR for the watchlist, whatever FILINGS_CORPUS says (the EDGAR sensor's source)."""
        from graphrag_core.intake.edgar import EdgarClient, EdgarSource

        return EdgarSource(EdgarClient(self.edgar, self.data_root / "cache" / "edgar"), self.edgar)

    def companyfacts(self, cik: str) -> dict[str, Any] | None:
        """SEC's companyfacts JSON of a company from the source (the corpus's reference folder,
        or EDGAR); None when the source has none or cannot be reached."""
        try:
            src = self.source()
            get = getattr(src, "companyfacts", None)
            return get(cik) if get is not None else None
        except (GraphragError, OSError, ValueError):
            return None

    def fetch(self, ref: FilingRef) -> list[tuple[DocumentRef, bytes]]:
        # Local documents are read where discovery found them, whatever the current source is.
        if ref.source_kind == "local":
            return [(doc, read_local_document(doc)) for doc in ref.documents]
        return self.source().fetch(ref)

    def company_tickers(self) -> list[dict[str, Any]]:
        """SEC's ticker rows: the source's, else those the data root keeps; empty (never an
        error) when neither has any: reference data is a convenience for transcripts and the
        gazetteer, never a blocker."""
        try:
            rows = self.source().company_tickers()
        except (GraphragError, OSError, ValueError):
            rows = []
        return rows or self.kept_reference().company_tickers()

    def kept_reference(self) -> ReferenceFolder:
        """The SEC reference this data root keeps (`graphrag_core.intake.reference`)."""
        return ReferenceFolder(kept_reference_dir(self.data_root))

    def reference(self, ciks: list[str], warn: Callable[[str], None]) -> ReferenceFolder:
        """The SEC reference of the graph stage and the snapshot: the data root's kept copy,
        first brought up to date with what the configured source has of these companies. A
        command that names no source with reference data reuses what the store was built with."""
        kept = self.kept_reference()
        try:
            src = self.source()
        except GraphragError as exc:
            warn(
                f"no filing source for SEC reference data ({exc}); the data root's kept "
                "copy is used"
            )
            return kept
        keep_reference(kept, src, ciks, warn=warn)
        return kept

    def ticker_map(self) -> dict[str, str]:
        return {r["ticker"]: r["cik"] for r in self.company_tickers()}


@dataclass(frozen=True)
class ExtractorResource:
    """The triple extractor (EXTRACTOR_*): `rules` by default, `openai` when EXTRACTOR_BASE_URL
    and EXTRACTOR_MODEL are set; plus the rejection-rate check's threshold."""

    settings: ExtractionSettings
    retrieval: RetrievalSettings | None = None  # the packaged model, for the learned classifier

    def resolved_backend(self) -> str:
        return self.settings.resolved_backend()

    def build(self, tickers: list[dict[str, Any]] | None = None) -> ExtractorBackend:
        """The configured backend; `tickers` (SEC ticker rows) feed the rules gazetteer. With
        EXTRACTOR_LEARNED the packaged model (ONNX) embeds the classifier's candidates."""
        encoder = None
        if self.settings.learned and self.settings.resolved_backend() == "rules":
            from graphrag_core.retrieval.onnx_embedder import OnnxEmbedder

            encoder = OnnxEmbedder(self.retrieval or RetrievalSettings())
        return build_backend(self.settings, tickers=tickers or [], encoder=encoder)


@dataclass(frozen=True)
class ReportsResource:
    """The ingestion report and the baseline checks (GRAPHRAG_REPORT_*)."""

    settings: ReportSettings


@dataclass(frozen=True)
class SnapshotStoreResource:
    """Published snapshots under `<data root>/snapshots` (GRAPHRAG_SNAPSHOT_*)."""

    data_root: Path
    settings: SnapshotSettings

    def store(self) -> SnapshotStore:
        return SnapshotStore.from_settings(self.data_root, self.settings)


@dataclass(frozen=True)
class GraphResource:
    """The graph stage's working store and merge log under `<data root>/graph`, the resolution
    thresholds and the store's memory limit (GRAPHRAG_GRAPH_*)."""

    data_root: Path
    settings: GraphSettings

    def store(self) -> GraphStore:
        return GraphStore.under(
            self.data_root,
            memory_limit_mb=self.settings.memory_limit_mb,
            single_thread_below_mb=self.settings.single_thread_below_mb,
            lock_timeout_s=self.settings.lock_timeout_s,
        )

    def merge_log(self) -> MergeLog:
        return MergeLog.under(self.data_root / GRAPH_DIR)


@dataclass(frozen=True)
class RetrievalResource:
    """The chunk index under the data root and the model that embeds it (GRAPHRAG_RETRIEVAL_*)."""

    data_root: Path
    settings: RetrievalSettings

    def update(self, chunks: pl.DataFrame, filings: pl.DataFrame, progress=None):
        from graphrag_core.retrieval.chunk_index import update_index
        from graphrag_core.retrieval.search import shared_embedder

        return update_index(
            self.data_root,
            chunks,
            filings,
            shared_embedder(self.settings),
            self.settings,
            progress=progress,
        )

    def current(self):
        """The index version last completed (None before the first build)."""
        from graphrag_core.retrieval.chunk_index import index_dir, read_current

        return read_current(index_dir(self.data_root, self.settings))


@dataclass(frozen=True)
class CommunityResource:
    """The communities stage's working store under `<data root>/graph`, with its clustering,
    refresh and summarizer settings (GRAPHRAG_COMMUNITIES_*)."""

    data_root: Path
    settings: CommunitySettings

    def store(self) -> CommunityStore:
        return CommunityStore.under(self.data_root, lock_timeout_s=self.settings.lock_timeout_s)


class ParquetTablesIOManager(dg.IOManager):
    """Per-asset Parquet tables in the TableStore, one file per partition."""

    def __init__(self, root: Path | str):
        self.store = TableStore(root)

    def handle_output(self, context: dg.OutputContext, obj: pl.DataFrame | None) -> None:
        if obj is None:
            return
        table = context.asset_key.path[-1]
        partition = context.partition_key if context.has_partition_key else None
        path = self.store.write(table, obj, partition)
        context.add_output_metadata({"path": dg.MetadataValue.path(str(path)), "rows": obj.height})

    def load_input(self, context: dg.InputContext) -> pl.DataFrame:
        upstream = context.upstream_output
        table = upstream.asset_key.path[-1] if upstream else context.asset_key.path[-1]
        partition = context.partition_key if context.has_partition_key else None
        return self.store.read(table, partition)


def build_resources(settings: Settings) -> dict[str, Any]:
    """Every resource the assets use, from one `Settings`."""
    root = settings.data_root
    return {
        "data": DataRootResource(root, inbox_dir(settings), settings.tables_url),
        "tables_io": dg.IOManagerDefinition.hardcoded_io_manager(
            ParquetTablesIOManager(tables_root(settings))
        ),
        "parsing": ParsingResource(settings.chunking, settings.parse),
        "source": FilingSourceResource(root, settings.corpus, settings.edgar),
        "extractor": ExtractorResource(settings.extraction, settings.retrieval),
        "snapshots": SnapshotStoreResource(root, settings.snapshots),
        "graph": GraphResource(root, settings.graph),
        "reports": ReportsResource(settings.reports),
        "retrieval": RetrievalResource(root, settings.retrieval),
        "community": CommunityResource(root, settings.communities),
    }
