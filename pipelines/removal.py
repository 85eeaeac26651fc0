"""Taking a filing back out: the `remove_filing` job (launch it from the UI with the filing id)
and what `filings-graph remove` runs. The core removal (graphrag_core.operations.removal) drops
its rows, verdicts, documents and catalog entry; here its partition leaves the instance, and a
snapshot without it is published (the CLI runs the corpus job; after a UI run, the
`publish_after_removal` sensor requests it)."""

import dagster as dg

from assets.partitions import FILINGS_PARTITION_SET
from assets.resources import DataRootResource
from graphrag_core.operations.removal import Removal, remove_filing
from graphrag_core.store.publish import SnapshotStore
from pipelines.dagster_private import UnresolvedAssetJobDefinition

REMOVE_JOB = "remove_filing"


def take_back(instance: dg.DagsterInstance, data: DataRootResource, filing_id: str) -> Removal:
    """Remove the filing from every table and from the `filings` partitions (the id and every
    path are checked first, in the core). A filing that only the current snapshot still serves
    (a removal killed before it published) is no error: the publish that follows leaves it out."""
    removal = remove_filing(data.store(), data.catalog(), filing_id, SnapshotStore(data.data_root))
    if instance.has_dynamic_partition(FILINGS_PARTITION_SET, filing_id):
        instance.delete_dynamic_partition(FILINGS_PARTITION_SET, filing_id)
    return removal


class RemoveFilingConfig(dg.Config):
    filing_id: str


@dg.op(
    description="Removes one filing: its rows from every working table, its check verdicts, "
    "documents, text and catalog entry, and its partition. A snapshot without it is published "
    "next (publish_after_removal)."
)
def remove_filing_op(
    context: dg.OpExecutionContext,
    config: RemoveFilingConfig,
    data: dg.ResourceParam[DataRootResource],
) -> dg.Output[str]:
    removal = take_back(context.instance, data, config.filing_id)
    context.log.info(removal.describe())
    return dg.Output(
        removal.filing_id,
        metadata={
            "rows_removed": dg.MetadataValue.json(removal.rows),
            "check_verdicts_removed": removal.checks,
            "files_removed": len(removal.files),
            "catalog_entry_removed": removal.catalog,
        },
    )


@dg.job(
    name=REMOVE_JOB,
    description="Take a filing back: remove it from every table and its partition, then "
    "(publish_after_removal) publish a snapshot without it. Launch with "
    "`ops: {remove_filing_op: {config: {filing_id: ...}}}`.",
    tags={"graphrag/stage": "corpus"},
)
def remove_filing_job() -> None:
    remove_filing_op()


def build_publish_after_removal(corpus_job: UnresolvedAssetJobDefinition) -> dg.SensorDefinition:
    @dg.run_status_sensor(
        name="publish_after_removal",
        run_status=dg.DagsterRunStatus.SUCCESS,
        monitored_jobs=[remove_filing_job],
        request_job=corpus_job,
        default_status=dg.DefaultSensorStatus.RUNNING,
        description="After a filing is removed, publish a snapshot without it.",
    )
    def publish_after_removal(context: dg.RunStatusSensorContext) -> dg.RunRequest:
        return dg.RunRequest(
            run_key=f"after-removal-{context.dagster_run.run_id}",
            tags={"graphrag/stage": "corpus", "graphrag/after_removal": context.dagster_run.run_id},
        )

    return publish_after_removal
