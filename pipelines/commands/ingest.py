"""`filings-graph ingest`, `demo` and `remove`: filings in (and back out), with a
published snapshot after."""

from __future__ import annotations

import argparse
import datetime as dt
import sys

from graphrag_core.settings import default_corpus, tables_root
from graphrag_core.tables.table_store import TableStore
from pipelines.commands.common import EDGAR_HELP, report_text, require_source, settings_from_args
from pipelines.commands.status import left_out_lines, publish_status, snapshot_summary, summarize


def _progress(outcome, n: int, total: int) -> None:
    mark = "ok " if outcome.success else "FAILED"
    line = f"  [{n:>3}/{total}] {mark} {outcome.filing_id} ({outcome.seconds:.1f}s)"
    if outcome.error:
        line += f"\n          {outcome.error.splitlines()[0][:300]}"
    for warning in outcome.warnings:
        line += f"\n          warning: {warning.splitlines()[0][:300]}"
    print(line, flush=True)


def cmd_ingest(args: argparse.Namespace) -> int:
    from pipelines.ingest import ingest

    settings = settings_from_args(args)
    require_source(settings)
    where = f"folder {settings.corpus}" if settings.corpus else "EDGAR (live)"
    print(f"source: {where}\ndata:   {settings.data_root}", flush=True)
    mode = (
        "serially, in this process"
        if args.serial
        else (
            f"through the run queue, up to {settings.operations.max_concurrent_runs} runs at once"
        )
    )
    print(f"runs:   {mode}", flush=True)
    report = ingest(
        settings,
        only=args.filing or None,
        limit=args.limit,
        force=args.force,
        progress=_progress,
        serial=args.serial,
        publish=not getattr(args, "no_publish", False),
    )
    for warning in report.warnings:
        print(f"warning: {warning}")
    if report.abandoned_runs:
        print(
            f"marked {len(report.abandoned_runs)} run(s) failed that a killed ingest had left "
            f"unfinished: {', '.join(report.abandoned_runs)}"
        )
    print(
        f"\ndiscovered {report.discovered} filings ({report.new_or_changed} new or changed); "
        f"ran {len(report.outcomes)} partitions, {len(report.failed)} failed, in "
        f"{report.seconds:.1f}s"
    )
    if report.corpus_success is False:
        print(f"whole-corpus stages FAILED: {report.corpus_error}")
    # The error of a filing that failed in this run is printed above: only its fix here.
    left_out = left_out_lines(
        settings, TableStore(tables_root(settings)), reported={o.filing_id for o in report.failed}
    )
    if left_out:
        print("\n".join(left_out))
    return 1 if report.failed or report.corpus_success is False else 0


def cmd_demo(args: argparse.Namespace) -> int:
    settings = settings_from_args(args)
    if settings.corpus is None and not settings.edgar.identity:
        found = default_corpus()
        hint = f"\n(a corpus exists at {found}: FILINGS_CORPUS={found} make demo)" if found else ""
        print(EDGAR_HELP + hint, file=sys.stderr)
        return 2
    started = dt.datetime.now()
    code = cmd_ingest(args)
    store = TableStore(tables_root(settings))
    print("\n== ingestion report ==")
    print(report_text(settings))
    print("\n== summary ==")
    print(summarize(store))
    print(f"\ntime taken: {(dt.datetime.now() - started).total_seconds():.1f}s")
    print(
        f"\noutputs:\n  tables (Parquet): {settings.data_root / 'tables'}\n"
        f"  raw documents:    {settings.data_root / 'raw'}\n"
        f"  normalized text:  {settings.data_root / 'text'}\n"
        f"  Dagster instance: {settings.data_root / 'dagster_home'}  (browse with `make dev`)"
    )
    print(snapshot_summary(settings))
    return code


def cmd_remove(args: argparse.Namespace) -> int:
    """Take filings back out of every table and publish a snapshot without them."""
    from assets.resources import build_resources
    from graphrag_core.common.ids import require_filing_id
    from pipelines.ingest import run_corpus_job
    from pipelines.instance import get_instance
    from pipelines.removal import take_back

    for filing_id in args.filing:  # every id before the first removal: all or none start
        require_filing_id(filing_id)
    settings = settings_from_args(args)
    instance = get_instance(settings.data_root, settings.operations)
    data = build_resources(settings)["data"]
    for filing_id in args.filing:
        print(take_back(instance, data, filing_id).describe(), flush=True)
    ok, error = run_corpus_job(settings)
    if not ok:
        print(f"publish FAILED: {error}")
    print(publish_status(settings))
    return 0 if ok else 1
