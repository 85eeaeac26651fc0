"""`filings-graph status`: what the working tables hold, what was published, and what the
Dagster instance materialized; the summaries `demo` and `remove` print too."""

from __future__ import annotations

import argparse
import shutil
import sys
from pathlib import Path
from typing import TYPE_CHECKING

import polars as pl

from graphrag_core.intake.catalog import FilingCatalog
from graphrag_core.settings import Settings, tables_root
from graphrag_core.store.publish import SnapshotStore
from graphrag_core.tables.table_store import TableStore
from pipelines.commands.common import settings_from_args

if TYPE_CHECKING:
    from graphrag_core.graph.graph_store import PublicationShare


def summarize(store: TableStore) -> str:
    """What has been materialized: filings, chunks per section, newest filing."""
    filings = store.scan("raw_filings").collect()
    chunks = store.scan("section_chunks").select("filing_id", "section", "kind").collect()
    lines = [
        f"filings: {filings.height}  (companies: "
        f"{filings['cik'].n_unique() if filings.height else 0})"
    ]
    if filings.height:
        by_form = filings.group_by("form").len().sort("form")
        lines.append(
            "  by form: "
            + ", ".join(f"{r['form']} {r['len']}" for r in by_form.iter_rows(named=True))
        )
        newest = filings.sort("filed_date", descending=True, nulls_last=True).row(0, named=True)
        lines.append(
            f"  newest filing: {newest['company']} {newest['form']} filed {newest['filed_date']} "
            f"({newest['filing_id']})"
        )
    lines.append(
        f"chunks: {chunks.height}  (tables: "
        f"{int((chunks['kind'] == 'table').sum()) if chunks.height else 0})"
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
    lines.extend(graph_summary(store.root))
    lines.extend(_communities_summary(store.root))
    return "\n".join(lines)


def graph_summary(data_root: Path) -> list[str]:
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
        f"  {counts['edges']} edges ({edges}); {counts['superseded_edges']} superseded by a "
        f"restatement; "
        f"{counts['evidence']} citations",
        f"  review queue: {counts['review_queue']} mentions ({counts['claims_unresolved']} "
        f"citations held "
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
        f"  published: {published} of {accepted} accepted claims ({published / accepted:.1%}): "
        f"{per}; "
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
                f"    [{r['impact_rating']:>2}] L{r['level']} {r['members']:>3} members  "
                f"{r['title'][:110]}{stale}"
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
        f"  rewritten by the gates: {rewrites}; guidance: {guides.height} edges, {ranges} with a "
        f"range, "
        f"{dated} with a period",
    ]


def cmd_status(args: argparse.Namespace) -> int:
    settings = settings_from_args(args)
    store = TableStore(tables_root(settings))
    catalog = FilingCatalog(settings.data_root)
    print(f"data root: {settings.data_root}")
    print(f"catalog: {len(catalog.ids())} discovered filings")
    print(summarize(store))
    print(publish_status(settings))
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


def publish_status(settings: Settings) -> str:
    """The current snapshot, and every filing the corpus job leaves out, with the fix."""
    store = TableStore(tables_root(settings))
    snapshots = SnapshotStore.from_settings(settings.data_root, settings.snapshots)
    version = snapshots.current_version()
    if version is None:
        lines = ["snapshot: none published yet"]
    else:
        manifest = snapshots.manifest(version)
        lines = [
            f"snapshot: {version} (as_of {manifest.as_of}, built "
            f"{manifest.built_at:%Y-%m-%d %H:%M} UTC)"
        ]
    lines.extend(left_out_lines(settings, store))
    lines.append(_shrink_status(settings))
    return "\n".join(line for line in lines if line)


def _shrink_status(settings: Settings) -> str:
    """The last build the shrink check refused, when none has passed it since."""
    from graphrag_core.intake.reference import kept_reference_dir
    from graphrag_core.store.shrink import recorded_refusal

    return recorded_refusal(settings.data_root, kept_reference_dir(settings.data_root)) or ""


def left_out_lines(
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


def snapshot_summary(settings: Settings) -> str:
    """The published snapshot and how to point an MCP client at it."""
    from mcp_server.main import connection_help

    data_root = settings.data_root
    store = SnapshotStore.from_settings(data_root, settings.snapshots)
    version = store.current_version()
    if version is None:
        return (
            "\nno snapshot published (the graph_snapshot asset did not run or failed)\n"
            + publish_status(settings)
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
