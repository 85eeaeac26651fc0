"""`filings-graph`: ingest, status, demo, dev — the same code paths the Dagster assets use."""

from __future__ import annotations

import argparse
import datetime as dt
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

import polars as pl

from graphrag_core.common.errors import ConfigurationError, GraphragError
from graphrag_core.intake.catalog import FilingCatalog
from graphrag_core.settings import Settings, default_corpus, tables_root
from graphrag_core.store.publish import SnapshotStore
from graphrag_core.tables.table_store import TableStore

if TYPE_CHECKING:
    from graphrag_core.graph.graph_store import PublicationShare

EDGAR_HELP = (
    "No filing source configured. Either\n"
    "  - use a local folder of filings:  FILINGS_CORPUS=../shared/corpus make demo\n"
    '  - or fetch from EDGAR live:       EDGAR_IDENTITY="Your Name you@example.com" make demo\n'
    "SEC requires a User-Agent naming you and an email address for every request to EDGAR."
)


def _settings(args: argparse.Namespace) -> Settings:
    overrides: dict[str, Any] = {}
    if getattr(args, "data", None):
        overrides["data_root"] = Path(args.data)
    if getattr(args, "corpus", None):
        overrides["corpus"] = Path(args.corpus)
    settings = Settings(**overrides)  # keyword arguments win over the environment
    if getattr(args, "edgar", False):
        settings = settings.model_copy(update={"corpus": None})
    if getattr(args, "allow_shrink", None):
        snapshots = settings.snapshots.model_copy(
            update={"allow_shrink": args.allow_shrink.strip()}
        )
        settings = settings.model_copy(update={"snapshots": snapshots})
    return settings


def _require_source(settings: Settings) -> None:
    if settings.corpus is None and not settings.edgar.identity:
        raise ConfigurationError(EDGAR_HELP)


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

    settings = _settings(args)
    _require_source(settings)
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
        f"ran {len(report.outcomes)} partitions, {len(report.failed)} failed, in {report.seconds:.1f}s"
    )
    if report.corpus_success is False:
        print(f"whole-corpus stages FAILED: {report.corpus_error}")
    # The error of a filing that failed in this run is printed above: only its fix here.
    left_out = _left_out_lines(
        settings, TableStore(tables_root(settings)), reported={o.filing_id for o in report.failed}
    )
    if left_out:
        print("\n".join(left_out))
    return 1 if report.failed or report.corpus_success is False else 0


def summarize(store: TableStore) -> str:
    """What has been materialized: filings, chunks per section, newest filing."""
    filings = store.scan("raw_filings").collect()
    chunks = store.scan("section_chunks").select("filing_id", "section", "kind").collect()
    lines = [
        f"filings: {filings.height}  (companies: {filings['cik'].n_unique() if filings.height else 0})"
    ]
    if filings.height:
        by_form = filings.group_by("form").len().sort("form")
        lines.append(
            "  by form: "
            + ", ".join(f"{r['form']} {r['len']}" for r in by_form.iter_rows(named=True))
        )
        newest = filings.sort("filed_date", descending=True, nulls_last=True).row(0, named=True)
        lines.append(
            f"  newest filing: {newest['company']} {newest['form']} filed {newest['filed_date']} ({newest['filing_id']})"
        )
    lines.append(
        f"chunks: {chunks.height}  (tables: {int((chunks['kind'] == 'table').sum()) if chunks.height else 0})"
    )
    if chunks.height:
        per = chunks.group_by("section").len().sort("len", descending=True)
        lines.append("  chunks per section (top 15):")
        for r in per.head(15).iter_rows(named=True):
            lines.append(f"    {r['section']:<28} {r['len']:>6}")
    if store.partitions("xbrl_facts"):
        lines.append(f"xbrl facts: {store.scan('xbrl_facts').select(pl.len()).collect().item()}")
    if store.partitions("metric_observations"):
        lines.extend(_metrics_summary(store, filings))
    if store.partitions("validated_triples"):
        lines.extend(_triples_summary(store))
    lines.extend(_graph_summary(store.root))
    lines.extend(_communities_summary(store.root))
    return "\n".join(lines)


def _graph_summary(data_root: Path) -> list[str]:
    """Nodes by type, edges by relation, and the review queue of the graph stage."""
    from graphrag_core.graph.graph_store import GraphStore, graph_path

    if not graph_path(data_root).exists():
        return []
    with GraphStore.under(data_root, read_only=True) as graph:
        counts = graph.counts()
        publication = graph.publication()
    nodes = ", ".join(f"{k} {v}" for k, v in counts["nodes_by_type"].items()) or "none"
    edges = ", ".join(f"{k} {v}" for k, v in counts["edges_by_relation"].items()) or "none"
    return [
        f"knowledge graph: {sum(counts['nodes_by_type'].values())} nodes ({nodes})",
        f"  {counts['edges']} edges ({edges}); {counts['superseded_edges']} superseded by a restatement; "
        f"{counts['evidence']} citations",
        f"  review queue: {counts['review_queue']} mentions ({counts['claims_unresolved']} citations held "
        "back until resolved; `filings-graph entities review`)",
        *publication_lines(publication),
    ]


def publication_lines(rows: list[PublicationShare]) -> list[str]:
    """The relation mix of the accepted claims and the share the graph publishes (issue 22:
    every relation ≥ 95%, none withheld by the review queue)."""
    accepted = sum(r.accepted for r in rows)
    if not accepted:
        return []
    published = sum(r.published for r in rows)
    mix = ", ".join(f"{r.relation} {r.accepted / accepted:.0%}" for r in rows)
    per = ", ".join(f"{r.relation} {r.published}/{r.accepted}" for r in rows)
    return [
        f"  relation mix of accepted claims: {mix}",
        f"  published: {published} of {accepted} accepted claims ({published / accepted:.1%}): {per}; "
        f"withheld by the review queue {sum(r.withheld for r in rows)}, "
        f"kept out as no organisation {sum(r.not_org for r in rows)}",
    ]


def _communities_summary(data_root: Path, top: int = 8) -> list[str]:
    """Communities per level with their modularity, and the top reports with their titles."""
    from graphrag_core.graph.communities.store import CommunityStore, communities_path

    if not communities_path(data_root).exists():
        return []
    with CommunityStore.under(data_root, read_only=True) as store:
        counts = store.counts()
        reports = store.tables().reports
    levels = (
        ", ".join(
            f"level {lv}: {n} (modularity {counts['modularity_by_level'].get(lv, 0.0):.3f})"
            for lv, n in counts["communities_by_level"].items()
        )
        or "none"
    )
    lines = [
        f"communities: {levels}; {counts['reports']} reports, {counts['dirty']} dirty, "
        f"{counts['withheld']} withheld"
    ]
    if reports.height:
        lines.append(f"  top communities (of {reports.height} reports, by impact):")
        ranked = reports.sort(
            ["impact_rating", "evidence", "community_id"], descending=[True, True, False]
        )
        for r in ranked.head(top).iter_rows(named=True):
            stale = " [stale]" if r["stale"] else ""
            lines.append(
                f"    [{r['impact_rating']:>2}] L{r['level']} {r['members']:>3} members  {r['title'][:110]}{stale}"
            )
    return lines


def _human(value: float, unit: str | None) -> str:
    if unit == "USD" and abs(value) >= 1e6:
        return f"{value / 1e6:,.0f} million USD"
    return f"{value:,.2f} {unit or ''}".strip()


def _metrics_summary(store: TableStore, filings: pl.DataFrame) -> list[str]:
    """Per company, the latest reported revenue and net income with their fiscal labels."""
    from graphrag_core.xbrl.supersession import latest_values

    observations = store.scan("metric_observations").collect()
    latest = latest_values(observations, ("revenue", "net_income"))
    names = (
        filings.sort("filed_date", nulls_last=True)
        .group_by("cik")
        .agg(pl.col("company").last(), pl.col("ticker").drop_nulls().last())
    )
    table = latest.join(names, on="cik", how="left").sort(pl.col("company").str.to_lowercase())
    lines = [
        f"metric observations: {observations.height}; latest revenue and net income per company:"
    ]
    for (cik, company, ticker), group in table.group_by(
        ["cik", "company", "ticker"], maintain_order=True
    ):
        cells = []
        for metric in ("revenue", "net_income"):
            row = group.filter(pl.col("metric") == metric)
            if row.height:
                r = row.row(0, named=True)
                cells.append(f"{metric} {_human(r['value'], r['unit'])} ({r['fiscal_label']})")
            else:
                cells.append(f"{metric} —")
        label = f"{company or cik}" + (f" [{ticker}]" if ticker else "")
        lines.append(f"    {label[:38]:<38} " + "; ".join(cells))
    return lines


def _triples_summary(store: TableStore) -> list[str]:
    from graphrag_core.extraction.validated_triples import rejection_summary

    validated = store.scan("validated_triples").collect()
    summary = rejection_summary(validated)
    reasons = ", ".join(f"{k} {v}" for k, v in summary.rejected_by_reason.items()) or "none"
    by_relation = (
        validated.filter(pl.col("status") == "accepted").group_by("relation").len().sort("relation")
    )
    relations = ", ".join(f"{r['relation']} {r['len']}" for r in by_relation.iter_rows(named=True))
    return [
        f"triples: {summary.accepted} accepted as {summary.edges} edges ({relations}); "
        f"{summary.rejected} rejected ({reasons}); rejection rate {summary.rejection_rate:.1%}",
        *_relation_mix(validated),
    ]


def _relation_mix(validated: pl.DataFrame) -> list[str]:
    """What the accepted edges are made of: mentions per relation, what the gates rewrote, and how
    much guidance carries a range and a period."""
    accepted = validated.filter(pl.col("status") == "accepted")
    if accepted.is_empty():
        return []
    support = (
        accepted.group_by("relation").agg(pl.col("support").sum()).sort("support", descending=True)
    )
    mix = ", ".join(f"{r['relation']} {r['support']}" for r in support.iter_rows(named=True))
    adjusted = (
        accepted.filter(pl.col("adjustment").is_not_null())
        .with_columns(pl.col("adjustment").str.split(","))
        .explode("adjustment")
        .group_by("adjustment")
        .len()
        .sort("adjustment")
    )
    rewrites = (
        ", ".join(f"{r['adjustment']} {r['len']}" for r in adjusted.iter_rows(named=True)) or "none"
    )
    guides = accepted.filter(pl.col("relation") == "GUIDES")
    ranges = (
        guides.filter(pl.col("value_low").is_not_null()).height
        if "value_low" in guides.columns
        else 0
    )
    dated = guides.filter(pl.col("period").is_not_null()).height
    return [
        f"  relation mix (mentions): {mix}",
        f"  rewritten by the gates: {rewrites}; guidance: {guides.height} edges, {ranges} with a range, "
        f"{dated} with a period",
    ]


def cmd_status(args: argparse.Namespace) -> int:
    settings = _settings(args)
    store = TableStore(tables_root(settings))
    catalog = FilingCatalog(settings.data_root)
    print(f"data root: {settings.data_root}")
    print(f"catalog: {len(catalog.ids())} discovered filings")
    print(summarize(store))
    print(_publish_status(settings))
    home = settings.data_root / "dagster_home"
    if home.exists():
        from pipelines.definitions import build_definitions, per_filing_asset_keys
        from pipelines.instance import get_instance

        instance = get_instance(settings.data_root, settings.operations)
        defs = build_definitions(settings)
        for key in per_filing_asset_keys(defs):
            done = instance.get_materialized_partitions(key)
            print(f"dagster: {key.to_user_string():<22} {len(done)} partitions materialized")
    return 0


def cmd_demo(args: argparse.Namespace) -> int:
    settings = _settings(args)
    if settings.corpus is None and not settings.edgar.identity:
        found = default_corpus()
        hint = f"\n(a corpus exists at {found}: FILINGS_CORPUS={found} make demo)" if found else ""
        print(EDGAR_HELP + hint, file=sys.stderr)
        return 2
    started = dt.datetime.now()
    code = cmd_ingest(args)
    store = TableStore(tables_root(settings))
    print("\n== ingestion report ==")
    print(_report_text(settings))
    print("\n== summary ==")
    print(summarize(store))
    print(f"\ntime taken: {(dt.datetime.now() - started).total_seconds():.1f}s")
    print(
        f"\noutputs:\n  tables (Parquet): {settings.data_root / 'tables'}\n"
        f"  raw documents:    {settings.data_root / 'raw'}\n"
        f"  normalized text:  {settings.data_root / 'text'}\n"
        f"  Dagster instance: {settings.data_root / 'dagster_home'}  (browse with `make dev`)"
    )
    print(_snapshot_summary(settings))
    return code


def _publish_status(settings: Settings) -> str:
    """The current snapshot, and every filing the corpus job leaves out, with the fix."""
    store = TableStore(tables_root(settings))
    snapshots = SnapshotStore.from_settings(settings.data_root, settings.snapshots)
    version = snapshots.current_version()
    if version is None:
        lines = ["snapshot: none published yet"]
    else:
        manifest = snapshots.manifest(version)
        lines = [
            f"snapshot: {version} (as_of {manifest.as_of}, built {manifest.built_at:%Y-%m-%d %H:%M} UTC)"
        ]
    lines.extend(_left_out_lines(settings, store))
    lines.append(_shrink_status(settings))
    return "\n".join(line for line in lines if line)


def _shrink_status(settings: Settings) -> str:
    """The last build the shrink check refused, when none has passed it since."""
    from graphrag_core.intake.reference import kept_reference_dir
    from graphrag_core.store.shrink import recorded_refusal

    return recorded_refusal(settings.data_root, kept_reference_dir(settings.data_root)) or ""


def _left_out_lines(
    settings: Settings, store: TableStore, reported: set[str] | frozenset[str] = frozenset()
) -> list[str]:
    """Every filing the corpus job leaves out (it failed its own checks): the reason and fix
    (`reported`: filings whose error was already printed, named without it)."""
    from assets.exclusions import corpus_standing

    instance = None
    if (settings.data_root / "dagster_home").exists():
        from pipelines.instance import get_instance

        instance = get_instance(settings.data_root, settings.operations)
    standing = corpus_standing(instance, store)
    if not standing.excluded:
        return []
    others = (
        f"the other {len(standing.included)} publish without them"
        if standing.included
        else "no other filing is left to publish, so the snapshot above stays current"
    )
    lines = [
        f"LEFT OUT of the snapshot: {len(standing.excluded)} filing(s) failed their own checks; "
        f"{others}:"
    ]
    for item in standing.excluded:
        reason = "(its error is above)" if item.filing_id in reported else item.reason
        lines += [f"  filing {item.filing_id}: {reason}", f"    fix: {item.fix}"]
    return lines


def _snapshot_summary(settings: Settings) -> str:
    """The published snapshot and how to point an MCP client at it."""
    from mcp_server.main import connection_help

    data_root = settings.data_root
    store = SnapshotStore.from_settings(data_root, settings.snapshots)
    version = store.current_version()
    if version is None:
        return (
            "\nno snapshot published (the graph_snapshot asset did not run or failed)\n"
            + _publish_status(settings)
        )
    manifest = store.manifest(version)
    counts = ", ".join(f"{k} {v}" for k, v in manifest.counts.items())
    index = manifest.chunk_index
    if index is not None:
        counts += (
            f"\n  chunk index: version {index.version}, {index.chunks} chunks in {index.rows} "
            f"windows, {index.model_id} ({index.path})"
        )
    command = (
        shutil.which("filings-graph", path=str(Path(sys.executable).parent)) or "filings-graph"
    )
    return (
        f"\nsnapshot {version} published (as_of {manifest.as_of}; {counts})\n"
        f"  {store.database_path(version)}\n\n" + connection_help(data_root, command=command)
    )


def _print_meaning_proposals(
    settings: Settings, contexts: pl.DataFrame, together: pl.DataFrame, limit: int
) -> None:
    """Merge proposals by embedding similarity of name and context (issue 22), for provisional
    organizations; proposals only, each one merge command away and reversible by unmerge."""
    from graphrag_core.graph.merge_proposals import graph_proposals
    from graphrag_core.retrieval.embedder import build_embedder

    threshold = settings.graph.embedding_merge_similarity
    proposals = graph_proposals(contexts, together, build_embedder(settings.retrieval), threshold)
    names = dict(
        zip(
            contexts.get_column("entity_id").to_list(),
            contexts.get_column("name").to_list(),
            strict=True,
        )
    )
    provisional = int(contexts.get_column("provisional").sum()) if contexts.height else 0
    print(
        f"\nmerge proposals by meaning (name and context, cosine >= {threshold:.2f}): {len(proposals)} "
        f"for {provisional} provisional organizations"
        + (f" (showing {limit})" if len(proposals) > limit else "")
    )
    for p in sorted(proposals, key=lambda p: (-p.score, p.entity_id, p.into))[:limit]:
        print(
            f"  {p.entity_id} {names.get(p.entity_id)!r} ~ {p.into} {names.get(p.into)!r} ({p.score:.2f})\n"
            f"    merge: filings-graph entities merge {p.entity_id} {p.into}"
        )


def cmd_entities(args: argparse.Namespace) -> int:
    """The review queue, and merges/unmerges appended to the merge log (then the graph is
    rebuilt from the log by the corpus job, which publishes a new snapshot)."""
    from graphrag_core.graph.graph_store import GRAPH_DIR, GraphStore
    from graphrag_core.graph.merge_log import MENTION_PREFIX, MergeLog, check_merge

    settings = _settings(args)
    log = MergeLog.under(settings.data_root / GRAPH_DIR)
    if args.entities_command == "review":
        with GraphStore.under(settings.data_root, read_only=True) as graph:
            queue = graph.review_queue()
            contexts, together = (
                (graph.organisation_contexts(), graph.named_together())
                if args.by_meaning
                else (None, None)
            )
        print(
            f"review queue: {queue.height} mentions"
            + (f" (showing {args.limit})" if queue.height > args.limit else "")
        )
        for item in queue.head(args.limit).iter_rows(named=True):
            state = (
                "in the graph, possible duplicate" if item["in_graph"] else "left out of the graph"
            )
            print(
                f"\n[{item['review_id'][:12]}] {item['text']!r} ({item['role']}): {item['reason']}; "
                f"{state}; {item['claims']} citation(s)"
            )
            for c in item["candidates"] or []:
                print(f"    candidate {c['entity_id']} {c['name']!r} (similarity {c['score']:.2f})")
            for ev in (item["evidence"] or [])[:2]:
                print(
                    f"    {ev['filing_id']} {ev['chunk_id']}: {ev['subject_text']} {ev['relation']} "
                    f'{ev["object_text"]}\n      "{(ev["quote"] or "")[:200]}"'
                )
            target = (item["candidates"] or [{}])[0].get("entity_id", "<entity id>")
            source = item["entity_id"] if item["in_graph"] else f"{MENTION_PREFIX}{item['text']}"
            print(f"    merge: filings-graph entities merge {source!r} {target}")
        if contexts is not None and together is not None:
            _print_meaning_proposals(settings, contexts, together, args.limit)
        actives = log.active()
        if actives:
            print(f"\nactive merges ({len(actives)}):")
            for event in log.events():
                if (
                    event.action == "merge"
                    and event.source in actives
                    and actives[event.source] == event.target
                ):
                    print(
                        f"  {event.seq}: {event.source} → {event.target}"
                        + (f" ({event.reason})" if event.reason else "")
                    )
        return 0
    if args.entities_command == "merge":
        source = args.source
        review: dict[str, Any] | None = None
        with GraphStore.under(settings.data_root, read_only=True) as graph:
            if not (
                source.startswith(MENTION_PREFIX) or ":" in source or source.startswith("CIK-")
            ):
                review = graph.review_item(source)  # a review id (or the mention's exact text)
            if review is not None:
                source = f"{MENTION_PREFIX}{review['text']}"
            check_merge(source, args.target, graph.entity_ids())
        event = log.merge(
            source,
            args.target,
            reason=args.reason,
            review_id=review["review_id"] if review else None,
        )
        print(f"merge {event.seq} logged: {event.source} → {event.target} ({log.path})")
    elif args.entities_command == "unmerge":
        event = log.unmerge(args.merge, reason=args.reason)
        print(f"unmerge {event.seq} logged: merge {event.undoes} undone ({log.path})")
    if args.no_apply:
        print(
            "not applied: the next corpus run (filings-graph ingest) rebuilds the graph from the log"
        )
        return 0
    from pipelines.ingest import run_corpus_job

    print("rebuilding the graph from the merge log and publishing ...", flush=True)
    ok, error = run_corpus_job(settings)
    if not ok:
        print(f"corpus job FAILED: {error}")
        return 1
    print("\n".join(_graph_summary(settings.data_root)))
    print(_publish_status(settings))
    return 0


def cmd_remove(args: argparse.Namespace) -> int:
    """Take filings back out of every table and publish a snapshot without them."""
    from assets.resources import build_resources
    from graphrag_core.common.ids import require_filing_id
    from pipelines.ingest import run_corpus_job
    from pipelines.instance import get_instance
    from pipelines.removal import take_back

    for filing_id in args.filing:  # every id before the first removal: all or none start
        require_filing_id(filing_id)
    settings = _settings(args)
    instance = get_instance(settings.data_root, settings.operations)
    data = build_resources(settings)["data"]
    for filing_id in args.filing:
        print(take_back(instance, data, filing_id).describe(), flush=True)
    ok, error = run_corpus_job(settings)
    if not ok:
        print(f"publish FAILED: {error}")
    print(_publish_status(settings))
    return 0 if ok else 1


def _report_text(settings: Settings) -> str:
    from graphrag_core.store.layout import snapshots_root

    path = snapshots_root(settings.data_root) / "reports" / "ingestion_report.md"
    if not path.exists():
        return "no ingestion report written (the build_corpus run did not get to it)"
    return path.read_text(encoding="utf-8").rstrip() + f"\n\n(report: {path})"


def cmd_dev(args: argparse.Namespace) -> int:
    from pipelines.instance import PROJECT_ROOT, prepare_dagster_home

    settings = _settings(args)
    prepare_dagster_home(settings.data_root, settings.operations)
    os.environ["GRAPHRAG_DATA"] = str(settings.data_root)
    if settings.corpus:
        os.environ["FILINGS_CORPUS"] = str(settings.corpus)
    if getattr(args, "edgar", False):
        os.environ.pop("FILINGS_CORPUS", None)
    # This interpreter's Dagster, whatever `dagster` is first on PATH.
    cmd = [
        sys.executable,
        "-m",
        "dagster",
        "dev",
        "-w",
        str(PROJECT_ROOT / "workspace.yaml"),
        "-h",
        args.host,
        "-p",
        str(args.port),
    ]
    print(" ".join(cmd), flush=True)
    return subprocess.call(cmd, cwd=PROJECT_ROOT)


def cmd_mcp(args: argparse.Namespace) -> int:
    # stdio mode: stdout is the MCP protocol's, so nothing here may print to it.
    from mcp_server.main import run

    settings = _settings(args)
    mcp = settings.mcp.model_copy(
        update={k: v for k, v in (("host", args.host), ("port", args.port)) if v is not None}
    )
    return run(
        settings.data_root,
        mcp,
        http=args.http,
        retrieval=settings.retrieval,
        communities=settings.communities,
    )


def _gold_tickers(settings: Settings) -> list[dict]:
    """SEC ticker rows for the rules gazetteer: the corpus's reference file when there is one
    (EDGAR is never called for an evaluation)."""
    from graphrag_core.intake.local_folder import LocalFolderSource

    corpus = settings.corpus or default_corpus()
    if corpus is None:
        return []
    try:
        return LocalFolderSource(corpus).company_tickers()
    except (GraphragError, OSError, ValueError):
        return []


def cmd_eval_extraction(args: argparse.Namespace) -> int:
    """Score a backend on the reviewed gold set: P/R/F1 per relation, gate accuracy per reason."""
    import json

    from graphrag_core.extraction.agreement import agreement, format_agreement
    from graphrag_core.extraction.backends import OpenAIBackend, RulesBackend
    from graphrag_core.extraction.backends.base import ExtractorBackend
    from graphrag_core.extraction.evaluation import (
        BLIND_WARNING,
        evaluate,
        format_report,
        load_gold_sets,
    )

    settings = _settings(args)
    path = Path(args.cases) if args.cases else settings.extraction.gold_set
    # A file of one's own (--cases) is the whole set unless a blind file is named with it.
    blind_path = (
        Path(args.blind_cases)
        if args.blind_cases
        else None
        if args.cases
        else settings.extraction.blind_set
    )
    if args.reveal_blind_errors:
        print(BLIND_WARNING, file=sys.stderr)
    cases = load_gold_sets(path, blind_path)
    if args.split != "all":
        cases = [c for c in cases if c.split == args.split]
    backend_name = args.backend or settings.extraction.resolved_backend()
    backend: ExtractorBackend
    if backend_name == "openai":
        if settings.extraction.endpoint() is None:
            raise ConfigurationError(
                "--backend openai needs EXTRACTOR_BASE_URL and EXTRACTOR_MODEL, or the shared "
                "GRAPHRAG_MODEL_BASE_URL and GRAPHRAG_MODEL_MODEL (an OpenAI-compatible endpoint)"
            )
        backend = OpenAIBackend.from_settings(settings.extraction)
    else:
        backend = RulesBackend.from_rows(_gold_tickers(settings))
    report = evaluate(cases, backend)
    print(
        f"gold set: {path}"
        + (f" + blind set: {blind_path}" if blind_path else "")
        + f" ({len(cases)} cases)"
    )
    print(
        format_report(report, show_errors=args.errors, reveal_blind_errors=args.reveal_blind_errors)
    )
    print("\n" + format_agreement(agreement(cases)))
    if args.json:
        Path(args.json).write_text(json.dumps(report.as_dict(), indent=2), encoding="utf-8")
        print(f"\nfigures written to {args.json}")
    return 0


def cmd_config_docs(args: argparse.Namespace) -> int:
    """The configuration page, generated from Settings (docs/configuration.md)."""
    from pipelines.config_docs import configuration_page

    sys.stdout.write(configuration_page())
    return 0


def cmd_eval_gates(args: argparse.Namespace) -> int:
    """The gates alone on proposed triples (one JSON object a line) → one outcome a line."""
    import json

    from graphrag_core.extraction.evaluation import load_audit_cases, verdict_code, verdict_row
    from graphrag_core.extraction.gates import judge

    cases = load_audit_cases(Path(args.cases))
    lines = []
    right = expected = 0
    for number, case in enumerate(cases, start=1):
        verdict = judge(case.triple.candidate(), case.context())
        row = verdict_row(verdict, case.id or str(number))
        if case.expect is not None:
            expected += 1
            row["expected"] = case.expect.code
            row["as_expected"] = case.expect.code == verdict_code(verdict)
            right += row["as_expected"]
        lines.append(json.dumps(row, ensure_ascii=False))
    text = "\n".join(lines) + ("\n" if lines else "")
    if args.out:
        Path(args.out).write_text(text, encoding="utf-8")
        print(f"{len(lines)} outcomes written to {args.out}", file=sys.stderr)
    else:
        sys.stdout.write(text)
    if expected:
        print(f"{right}/{expected} as expected", file=sys.stderr)
    return 0


def cmd_ask(args: argparse.Namespace) -> int:
    """Answer a question with the analyst agent: the chat model at ANALYST_BASE_URL working
    through the MCP server; `--verbose` prints every model and tool call."""
    import asyncio
    import json

    from analyst.run import ask

    settings = _settings(args)
    if args.max_steps:
        settings = settings.model_copy(
            update={"agent": settings.agent.model_copy(update={"max_steps": args.max_steps})}
        )

    def show(step) -> None:
        if args.verbose:
            print(step.line(), file=sys.stderr, flush=True)

    result = asyncio.run(ask(settings, args.question, on_step=show))
    if args.json:
        print(
            json.dumps(
                {
                    "question": result.question,
                    "answer": result.render(),
                    "draft": result.draft,
                    "revised": result.revised,
                    "check": result.check,
                    "tokens": result.tokens,
                    "stopped": result.stopped,
                    "steps": [
                        {
                            "kind": s.kind,
                            "name": s.name,
                            "arguments": s.arguments,
                            "summary": s.summary,
                            "tokens": s.tokens,
                        }
                        for s in result.steps
                    ],
                },
                indent=2,
                default=str,
            )
        )
    else:
        print(result.render())
        if args.verbose:
            verdict = "passed" if result.check and result.check.get("ok") else "did not pass"
            print(
                f"\n[{len(result.steps)} steps, {result.tokens} tokens; citation check {verdict}"
                f"{'; revised once' if result.revised else ''}]",
                file=sys.stderr,
            )
    return 0 if result.check is None or result.check.get("ok") else 1


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="filings-graph", description=__doc__)
    parser.add_argument("--data", help="data root (default: $GRAPHRAG_DATA or ./data)")
    sub = parser.add_subparsers(dest="command", required=True)

    def shrink_arg(p: argparse.ArgumentParser) -> None:
        p.add_argument(
            "--allow-shrink",
            metavar="REASON",
            help="publish even if the graph shrinks markedly (fewer registrants, company nodes "
            "or edges than the current snapshot); the reason is recorded in the manifest",
        )

    def source_args(p: argparse.ArgumentParser) -> None:
        group = p.add_mutually_exclusive_group()
        group.add_argument("--corpus", help="local folder of filings (default: $FILINGS_CORPUS)")
        group.add_argument(
            "--edgar", action="store_true", help="fetch from EDGAR even if FILINGS_CORPUS is set"
        )

    p = sub.add_parser("ingest", help="discover filings and materialize every per-filing asset")
    source_args(p)
    p.add_argument(
        "--serial",
        action="store_true",
        help="run the filings one after another in this process instead of through the run queue",
    )
    p.add_argument("--filing", action="append", help="only this filing id (repeatable)")
    p.add_argument("--limit", type=int, help="at most this many filings")
    p.add_argument("--force", action="store_true", help="re-materialize even if up to date")
    p.add_argument(
        "--no-publish",
        action="store_true",
        help="materialize the filings only; the graph stage and the snapshot wait for the next "
        "corpus run (the nightly_snapshot schedule, or an ingest without this flag)",
    )
    shrink_arg(p)
    p.set_defaults(func=cmd_ingest)

    p = sub.add_parser("status", help="what is materialized: counts, newest filing")
    p.set_defaults(func=cmd_status)

    p = sub.add_parser("demo", help="ingest the configured source and print a summary")
    source_args(p)
    p.add_argument(
        "--serial",
        action="store_true",
        help="run the filings one after another in this process instead of through the run queue",
    )
    p.add_argument("--filing", action="append", help=argparse.SUPPRESS)
    p.add_argument("--limit", type=int, help="at most this many filings")
    p.add_argument("--force", action="store_true", help="re-materialize even if up to date")
    shrink_arg(p)
    p.set_defaults(func=cmd_demo)

    p = sub.add_parser(
        "entities", help="the entity review queue; merge or unmerge entities (append-only log)"
    )
    ent = p.add_subparsers(dest="entities_command", required=True)
    q = ent.add_parser(
        "review", help="mentions left unresolved or flagged as possible duplicates, with evidence"
    )
    q.add_argument("--limit", type=int, default=25, help="most items to show")
    q.add_argument(
        "--names-only",
        dest="by_meaning",
        action="store_false",
        help="skip the merge proposals by meaning (they embed every organization's name and context)",
    )
    q.set_defaults(func=cmd_entities)
    q = ent.add_parser(
        "merge", help="merge SOURCE (an entity id, mention:<text> or a review id) into TARGET"
    )
    q.add_argument("source")
    q.add_argument("target", help="an entity id: CIK-##########, ORG:name, RISK:category")
    q.add_argument("--reason", help="why, for the log")
    q.add_argument(
        "--no-apply", action="store_true", help="only log it; the next corpus run applies it"
    )
    shrink_arg(q)
    q.set_defaults(func=cmd_entities)
    q = ent.add_parser("unmerge", help="undo an active merge, named by its seq or its source")
    q.add_argument("merge")
    q.add_argument("--reason", help="why, for the log")
    q.add_argument(
        "--no-apply", action="store_true", help="only log it; the next corpus run applies it"
    )
    shrink_arg(q)
    q.set_defaults(func=cmd_entities)
    p = sub.add_parser(
        "remove",
        help="take filings back: remove them from every table and their partitions, "
        "then publish a snapshot without them",
    )
    p.add_argument("filing", nargs="+", help="filing id (partition key)")
    shrink_arg(p)
    p.set_defaults(func=cmd_remove)

    p = sub.add_parser("dev", help="start the Dagster UI on localhost")
    source_args(p)
    p.add_argument("--host", default="127.0.0.1")
    p.add_argument("--port", type=int, default=3000)
    p.set_defaults(func=cmd_dev)

    p = sub.add_parser(
        "eval-extraction",
        help="score an extractor on the reviewed gold set: precision/recall/F1 per relation, gate accuracy per reason",
    )
    p.add_argument(
        "--backend", choices=["rules", "openai"], help="default: the configured one (EXTRACTOR_*)"
    )
    p.add_argument(
        "--corpus",
        help="corpus folder whose SEC ticker file feeds the rules' gazetteer (default: $FILINGS_CORPUS)",
    )
    p.add_argument(
        "--cases", help="gold set JSONL (default: $EXTRACTOR_GOLD_SET or the repository's)"
    )
    p.add_argument("--split", choices=["all", "dev", "holdout", "blind"], default="all")
    p.add_argument(
        "--blind-cases",
        help="frozen blind set JSONL (default: $EXTRACTOR_BLIND_SET or the repository's; "
        "not loaded with --cases unless named)",
    )
    p.add_argument(
        "--errors",
        "--show-errors",
        type=int,
        nargs="?",
        const=20,
        default=0,
        help="print this many false positives/negatives and gate misses of the dev and holdout splits",
    )
    p.add_argument(
        "--reveal-blind-errors",
        action="store_true",
        help="also print the blind split's errors: reading them SPENDS the blind set (no rule may "
        "then be tuned on it; label a fresh one)",
    )
    p.add_argument("--json", help="also write the figures to this JSON file")
    p.set_defaults(func=cmd_eval_extraction)

    p = sub.add_parser(
        "eval-gates",
        help="run the validation gates alone on proposed triples (JSONL, see docs/extraction.md) "
        "and write each outcome",
    )
    p.add_argument(
        "cases", help="one JSON object a line: text, scale_header, filer, section, triple"
    )
    p.add_argument("--out", help="write the outcomes here (JSON lines) instead of stdout")
    p.set_defaults(func=cmd_eval_gates)

    p = sub.add_parser(
        "config-docs",
        help="print docs/configuration.md: every setting's variable, default and meaning",
    )
    p.set_defaults(func=cmd_config_docs)

    p = sub.add_parser(
        "mcp", help="serve the latest published snapshot read-only over MCP (stdio by default)"
    )
    p.add_argument("--http", action="store_true", help="streamable HTTP instead of stdio")
    p.add_argument(
        "--host",
        help="HTTP interface (default $GRAPHRAG_MCP_HOST or 127.0.0.1); beyond loopback needs $GRAPHRAG_MCP_TOKEN",
    )
    p.add_argument("--port", type=int, help="HTTP port (default $GRAPHRAG_MCP_PORT or 8765)")
    p.set_defaults(func=cmd_mcp)

    p = sub.add_parser(
        "ask",
        help="answer a question with the analyst agent (an OpenAI-compatible "
        "chat model at $ANALYST_BASE_URL using the MCP tools)",
    )
    p.add_argument("question")
    p.add_argument(
        "--verbose", "-v", action="store_true", help="print every model and tool call (stderr)"
    )
    p.add_argument("--json", action="store_true", help="the answer, check and transcript as JSON")
    p.add_argument("--max-steps", type=int, help="model calls at most (default $ANALYST_MAX_STEPS)")
    p.set_defaults(func=cmd_ask)
    return parser


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        return args.func(args)
    except (GraphragError, KeyError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
