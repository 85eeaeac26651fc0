"""graph_snapshot: every materialized table, published as one immutable DuckDB snapshot that the
MCP server picks up on its next call. The work is `graphrag_core.store`; this module wires it."""

import dagster as dg

from graphrag_core.errors import GraphragError
from graphrag_core.store.builder import load_tables
from graphrag_core.store.companies import CompanyReference, collect_reference
from graphrag_core.store.manifest import file_sha256
from graphrag_core.store.reader import SnapshotReader
from pipelines.resources import DataRootResource, FilingSourceResource, SnapshotStoreResource

# Every partition of these is read; the snapshot is whole-corpus, hence unpartitioned.
UPSTREAM = ("raw_filings", "section_chunks", "xbrl_facts", "metric_observations")


@dg.asset(
    deps=[dg.AssetDep(key, partition_mapping=dg.AllPartitionMapping()) for key in UPSTREAM],
    group_name="serving",
    kinds={"duckdb"},
    check_specs=[
        dg.AssetCheckSpec(
            "current_snapshot_opens",
            asset="graph_snapshot",
            description="LATEST opens read-only, its file matches the manifest's sha256, and every "
            "table has the row count the manifest records",
        )
    ],
    description="The published snapshot: companies, filings, chunks and metrics in one DuckDB "
    "file with a manifest (version, as_of, counts, inputs with sha256, code version); LATEST is "
    "swapped atomically once it is complete. Serve it with `filings-graph mcp`.",
)
def graph_snapshot(
    context: dg.AssetExecutionContext,
    data: DataRootResource,
    source: FilingSourceResource,
    snapshots: SnapshotStoreResource,
) -> dg.MaterializeResult:
    warn = context.log.warning

    def reference(ciks: list[str]) -> CompanyReference:
        try:
            src = source.source(data.data_root)
        except GraphragError as exc:  # no source configured: names come from the filings alone
            warn(f"no filing source for reference data ({exc}); tickers and SIC codes left out")
            return CompanyReference()
        return collect_reference(ciks, src.company_tickers, src.submissions, warn=warn)

    tables = load_tables(data.store(), reference)
    manifest = snapshots.store().publish(
        tables, progress=lambda stage, path: context.log.debug(f"snapshot {stage}: {path}")
    )
    return dg.MaterializeResult(
        check_results=[check_current_snapshot(data.data_root)],
        metadata={
            "version": manifest.version,
            "as_of": str(manifest.as_of or ""),
            "code_version": manifest.code_version,
            "path": dg.MetadataValue.path(str(snapshots.store().database_path(manifest.version))),
            **{f"rows_{name}": count for name, count in manifest.counts.items()},
        }
    )


def check_current_snapshot(data_root: str) -> dg.AssetCheckResult:
    """Open what LATEST names the way the MCP server does and compare it with its manifest."""
    reader = SnapshotReader(data_root)
    try:
        with reader.lease() as snap:
            digest_ok = file_sha256(snap.path) == snap.manifest.database.sha256
            # Table names come from the manifest this project wrote, never from outside input.
            actual = {
                name: snap.query(f'SELECT count(*) AS n FROM "{name}"')[0]["n"]
                for name in snap.manifest.counts
            }
            mismatched = {
                name: (expected, actual[name])
                for name, expected in snap.manifest.counts.items()
                if actual[name] != expected
            }
            version = snap.version
    finally:
        reader.close()
    return dg.AssetCheckResult(
        check_name="current_snapshot_opens",
        passed=digest_ok and not mismatched,
        metadata={"version": version, "sha256_matches": digest_ok, "count_mismatches": str(mismatched)},
    )
