"""The sensors that keep the pipeline fed: discover → catalog → partitions → runs.

- `edgar_sensor` watches EDGAR for the watchlist's new filings, with a cursor per company (the
  newest filing seen), through the same rate-limited client the runs use.
- `local_inbox` watches a folder (GRAPHRAG_DAGSTER_INBOX, default <data root>/inbox) for filing
  documents dropped into it.

Each new filing becomes a partition of `filings` and a run request of the per-filing job; the
run queue then runs them within the concurrency limits. Both are off until switched on in the UI
(or with `dagster sensor start`).
"""

from __future__ import annotations

import dagster as dg

from assets.partitions import FILINGS_PARTITION_SET, filings_partitions
from assets.resources import DataRootResource, FilingSourceResource
from graphrag_core.common.errors import GraphragError
from graphrag_core.intake.local_folder import LocalFolderSource
from graphrag_core.intake.watch import CompanyCursor, InboxCursor, register_new
from graphrag_core.settings import OperationsSettings
from graphrag_core.tables.records import FilingRef


def _requests(
    context: dg.SensorEvaluationContext, refs: list[FilingRef], cursor: str
) -> dg.SensorResult:
    existing = set(context.instance.get_dynamic_partitions(FILINGS_PARTITION_SET))
    # One request per unique key: a key twice in one request violates the partition table's
    # UNIQUE constraint and the daemon drops the whole tick.
    first: dict[str, FilingRef] = {}
    for ref in refs:
        first.setdefault(ref.filing_id, ref)
    refs = list(first.values())
    keys = [ref.filing_id for ref in refs]
    return dg.SensorResult(
        run_requests=[
            dg.RunRequest(
                partition_key=ref.filing_id,
                run_key=f"{ref.filing_id}:{ref.documents[0].sha256 or ref.filed_date}",
            )
            for ref in refs
        ],
        dynamic_partitions_requests=[
            filings_partitions.build_add_request([k for k in keys if k not in existing])
        ],
        cursor=cursor,
    )


def build_edgar_sensor(job_name: str, operations: OperationsSettings) -> dg.SensorDefinition:
    @dg.sensor(
        name="edgar_sensor",
        job_name=job_name,
        minimum_interval_seconds=operations.sensor_interval_s,
        default_status=dg.DefaultSensorStatus.STOPPED,
        description="Polls EDGAR for new filings of the watchlist (EDGAR_WATCHLIST, EDGAR_FORMS) "
        "and materializes each in its own partition. The cursor keeps, per company, the newest "
        "filing seen, so each tick reads one submissions file per company and nothing older. "
        "Requests go through the shared rate-limited client; when EDGAR fails the tick is "
        "skipped with the reason and the cursor is kept.",
    )
    def edgar_sensor(
        context: dg.SensorEvaluationContext,
        data: dg.ResourceParam[DataRootResource],
        source: dg.ResourceParam[FilingSourceResource],
    ) -> dg.SensorResult | dg.SkipReason:
        cursor = CompanyCursor.parse(context.cursor)
        try:
            edgar = source.edgar_source()
            companies, unresolved = edgar.resolve_watchlist()
            found: list[FilingRef] = []
            per_company: dict[str, list[FilingRef]] = {}
            for company in companies:
                refs = edgar.discover_company(company, since=cursor.since(company.cik))
                per_company[company.cik] = refs
                found.extend(refs)
        except (GraphragError, OSError) as exc:
            reason = f"EDGAR unavailable, tick skipped and cursor kept: {exc}"
            context.log.warning(reason)
            return dg.SkipReason(reason)
        if unresolved:
            context.log.warning(f"watchlist entries not found on EDGAR: {', '.join(unresolved)}")
        notes: list[str] = []
        new = register_new(data.catalog(), found, warnings=notes)
        for note in notes:
            context.log.warning(note)
        for cik, refs in per_company.items():
            cursor.advance(cik, refs)
        if not new:
            return dg.SensorResult(
                skip_reason=f"no new filings for {len(companies)} companies", cursor=cursor.dump()
            )
        return _requests(context, new, cursor.dump())

    return edgar_sensor


def build_inbox_sensor(job_name: str, operations: OperationsSettings) -> dg.SensorDefinition:
    @dg.sensor(
        name="local_inbox",
        job_name=job_name,
        minimum_interval_seconds=operations.inbox_interval_s,
        default_status=dg.DefaultSensorStatus.STOPPED,
        description="Watches the inbox folder (GRAPHRAG_DAGSTER_INBOX, default <data root>/inbox) "
        "for filing documents dropped into it (.htm, .html, .xhtml, .txt; a manifest.json when "
        "there is one) and materializes each new or replaced one in its own partition.",
    )
    def local_inbox(
        context: dg.SensorEvaluationContext,
        data: dg.ResourceParam[DataRootResource],
    ) -> dg.SensorResult | dg.SkipReason:
        folder = data.inbox
        if not folder.is_dir():
            return dg.SkipReason(f"inbox {folder} does not exist; create it and drop filings in")
        cursor = InboxCursor.parse(context.cursor)
        try:
            inbox = LocalFolderSource(folder)
            refs = inbox.discover()
        except (GraphragError, OSError, ValueError) as exc:
            reason = f"inbox {folder} unreadable, tick skipped: {exc}"
            context.log.warning(reason)
            return dg.SkipReason(reason)
        fresh = cursor.changed(refs, str(folder.resolve()))
        notes = list(inbox.discovery_warnings)
        new = register_new(data.catalog(), fresh, warnings=notes)
        for note in notes:
            context.log.warning(note)
        if not new:
            return dg.SensorResult(
                skip_reason=f"no new files in {folder} ({len(refs)} known)", cursor=cursor.dump()
            )
        return _requests(context, new, cursor.dump())

    return local_inbox
