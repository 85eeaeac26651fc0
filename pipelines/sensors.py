"""The sensor that keeps the pipeline fed: discover → catalog → partitions → runs."""

import datetime as dt

import dagster as dg

from assets.partitions import FILINGS_PARTITION_SET, filings_partitions
from assets.resources import DataRootResource, FilingSourceResource
from graphrag_core.intake.catalog import register_discovered


def build_filings_sensor(job_name: str) -> dg.SensorDefinition:
    @dg.sensor(
        name="filings_sensor",
        job_name=job_name,
        minimum_interval_seconds=900,
        default_status=dg.DefaultSensorStatus.STOPPED,
        description="Polls the filing source (EDGAR for the watchlist, or FILINGS_CORPUS) and "
        "materializes every new or changed filing in its own partition. The cursor is the "
        "newest filing date seen, so EDGAR is asked only for what is new.",
    )
    def filings_sensor(
        context: dg.SensorEvaluationContext,
        data: dg.ResourceParam[DataRootResource],
        source: dg.ResourceParam[FilingSourceResource],
    ) -> dg.SensorResult | dg.SkipReason:
        since = dt.date.fromisoformat(context.cursor) if context.cursor else None
        notes: list[str] = []
        new = register_discovered(source.source(), data.catalog(), since=since, warnings=notes)
        for note in notes:
            context.log.warning(note)
        if not new:
            return dg.SkipReason(f"no new filings since {since or 'the beginning'}")
        existing = set(context.instance.get_dynamic_partitions(FILINGS_PARTITION_SET))
        # One request per unique key: a key twice in one request violates the partition table's
        # UNIQUE constraint and the daemon drops the whole tick.
        keys = list(dict.fromkeys(ref.filing_id for ref in new))
        dated = [ref.filed_date for ref in new if ref.filed_date]
        cursor = max(dated + ([since] if since else [])).isoformat() if dated or since else None
        return dg.SensorResult(
            run_requests=[
                dg.RunRequest(
                    partition_key=ref.filing_id,
                    run_key=f"{ref.filing_id}:{ref.documents[0].sha256 or ref.filed_date}",
                )
                for ref in new
            ],
            dynamic_partitions_requests=[
                filings_partitions.build_add_request([k for k in keys if k not in existing])
            ],
            cursor=cursor,
        )

    return filings_sensor
