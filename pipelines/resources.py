"""Typed resources: thin, configurable handles on the core's store, source and settings.

Defaults come from `graphrag_core.settings.Settings` (environment overrides) where the
Definitions are built; nothing here reads the environment by itself.
"""

from __future__ import annotations

from pathlib import Path

import dagster as dg
import polars as pl

from graphrag_core.catalog import FilingCatalog
from graphrag_core.extraction import ExtractorBackend, build_backend
from graphrag_core.models import DocumentRef, FilingRef
from graphrag_core.settings import (
    ChunkingSettings,
    EdgarSettings,
    ExtractionSettings,
    ParseSettings,
)
from graphrag_core.sources import FilingSource, LocalFolderSource, read_local_document
from graphrag_core.store.publish import SnapshotStore
from graphrag_core.tables import TableStore


class DataRootResource(dg.ConfigurableResource):
    """Where every table, raw document, cache and snapshot lives (GRAPHRAG_DATA)."""

    data_root: str

    def store(self) -> TableStore:
        return TableStore(Path(self.data_root))

    def catalog(self) -> FilingCatalog:
        return FilingCatalog(Path(self.data_root))


class ParsingResource(dg.ConfigurableResource):
    """Chunk budget and document size limits (GRAPHRAG_CHUNK_*, GRAPHRAG_MAX_DOCUMENT_MB)."""

    max_tokens: int = 512
    overlap_tokens: int = 0
    table_max_tokens: int = 1536
    max_document_mb: float = 150.0
    large_document_mb: float = 25.0

    def chunking(self) -> ChunkingSettings:
        return ChunkingSettings(
            max_tokens=self.max_tokens,
            overlap_tokens=self.overlap_tokens,
            table_max_tokens=self.table_max_tokens,
        )

    def parse(self) -> ParseSettings:
        return ParseSettings(max_document_mb=self.max_document_mb, large_document_mb=self.large_document_mb)


class FilingSourceResource(dg.ConfigurableResource):
    """A local folder (FILINGS_CORPUS) when set, else EDGAR live for the watchlist."""

    corpus: str | None = None
    edgar_identity: str | None = None
    edgar_data_base_url: str = EdgarSettings.model_fields["data_base_url"].default
    edgar_archives_base_url: str = EdgarSettings.model_fields["archives_base_url"].default
    edgar_tickers_url: str = EdgarSettings.model_fields["tickers_url"].default
    watchlist: list[str] = list(EdgarSettings.model_fields["watchlist"].default)
    forms: list[str] = list(EdgarSettings.model_fields["forms"].default)
    max_filings_per_company: int = 4

    @property
    def kind(self) -> str:
        return "local" if self.corpus else "edgar"

    def edgar_settings(self) -> EdgarSettings:
        return EdgarSettings(
            identity=self.edgar_identity,
            data_base_url=self.edgar_data_base_url,
            archives_base_url=self.edgar_archives_base_url,
            tickers_url=self.edgar_tickers_url,
            watchlist=tuple(self.watchlist),
            forms=tuple(self.forms),
            max_filings_per_company=self.max_filings_per_company,
        )

    def source(self, data_root: str | Path) -> FilingSource:
        if self.corpus:
            return LocalFolderSource(self.corpus)
        from graphrag_core.edgar import EdgarClient, EdgarSource

        client = EdgarClient(self.edgar_settings(), Path(data_root) / "cache" / "edgar")
        return EdgarSource(client, self.edgar_settings())

    def fetch(self, ref: FilingRef, data_root: str | Path) -> list[tuple[DocumentRef, bytes]]:
        # Local documents are read where discovery found them, whatever the current source is.
        if ref.source_kind == "local":
            return [(doc, read_local_document(doc)) for doc in ref.documents]
        return self.source(data_root).fetch(ref)

    def ticker_map(self, data_root: str | Path) -> dict[str, str]:
        try:
            rows = self.source(data_root).company_tickers()
        except Exception:  # reference data is a convenience for transcripts, never a blocker
            return {}
        return {r["ticker"]: r["cik"] for r in rows}


class ParquetTablesIOManager(dg.ConfigurableIOManager):
    """Per-asset Parquet tables in the TableStore, one file per partition."""

    data_root: str

    def _store(self) -> TableStore:
        return TableStore(Path(self.data_root))

    def handle_output(self, context: dg.OutputContext, obj: pl.DataFrame) -> None:
        if obj is None:
            return
        table = context.asset_key.path[-1]
        partition = context.partition_key if context.has_partition_key else None
        path = self._store().write(table, obj, partition)
        context.add_output_metadata({"path": dg.MetadataValue.path(str(path)), "rows": obj.height})

    def load_input(self, context: dg.InputContext) -> pl.DataFrame:
        table = context.upstream_output.asset_key.path[-1] if context.upstream_output else context.asset_key.path[-1]
        partition = context.partition_key if context.has_partition_key else None
        return self._store().read(table, partition)


class SnapshotStoreResource(dg.ConfigurableResource):
    """Published snapshots under `<data root>/snapshots` and how many versions to keep."""

    data_root: str
    retain: int = 5

    def store(self) -> SnapshotStore:
        return SnapshotStore(Path(self.data_root), retain=self.retain)


class ExtractorResource(dg.ConfigurableResource):
    """The triple extractor (EXTRACTOR_*): `rules` by default, `openai` when EXTRACTOR_BASE_URL
    and EXTRACTOR_MODEL are set; plus the rejection-rate check's threshold."""

    backend: str = "auto"
    base_url: str | None = None
    model: str | None = None
    api_key: str | None = None
    prompt: str = ExtractionSettings.model_fields["prompt"].default
    concurrency: int = ExtractionSettings.model_fields["concurrency"].default
    timeout_s: float = ExtractionSettings.model_fields["timeout_s"].default
    max_retries: int = ExtractionSettings.model_fields["max_retries"].default
    max_tokens: int = ExtractionSettings.model_fields["max_tokens"].default
    guided_field: str = ExtractionSettings.model_fields["guided_field"].default
    rejection_rate_threshold: float = ExtractionSettings.model_fields["rejection_rate_threshold"].default
    rejection_check_min_triples: int = ExtractionSettings.model_fields["rejection_check_min_triples"].default

    def settings(self) -> ExtractionSettings:
        return ExtractionSettings(
            backend=self.backend,
            base_url=self.base_url,
            model=self.model,
            api_key=self.api_key,
            prompt=self.prompt,
            concurrency=self.concurrency,
            timeout_s=self.timeout_s,
            max_retries=self.max_retries,
            max_tokens=self.max_tokens,
            guided_field=self.guided_field,
            rejection_rate_threshold=self.rejection_rate_threshold,
            rejection_check_min_triples=self.rejection_check_min_triples,
        )

    def resolved_backend(self) -> str:
        return self.settings().resolved_backend()

    def build(self, tickers: list[dict] | None = None) -> ExtractorBackend:
        """The configured backend; `tickers` (SEC ticker rows) feed the rules gazetteer."""
        return build_backend(self.settings(), tickers=tickers or [])
