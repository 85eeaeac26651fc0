"""`filings-graph entities`: the entity review queue, merges and their undoing."""

from __future__ import annotations

import argparse
from typing import Any

import polars as pl

from graphrag_core.settings import Settings
from pipelines.commands.common import settings_from_args
from pipelines.commands.status import graph_summary, publish_status


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
        f"\nmerge proposals by meaning (name and context, cosine >= {threshold:.2f}): "
        f"{len(proposals)} "
        f"for {provisional} provisional organizations"
        + (f" (showing {limit})" if len(proposals) > limit else "")
    )
    for p in sorted(proposals, key=lambda p: (-p.score, p.entity_id, p.into))[:limit]:
        print(
            f"  {p.entity_id} {names.get(p.entity_id)!r} ~ {p.into} {names.get(p.into)!r} "
            f"({p.score:.2f})\n"
            f"    merge: filings-graph entities merge {p.entity_id} {p.into}"
        )


def cmd_entities(args: argparse.Namespace) -> int:
    """The review queue, and merges/unmerges appended to the merge log (then the graph is
    rebuilt from the log by the corpus job, which publishes a new snapshot)."""
    from graphrag_core.graph.graph_store import GRAPH_DIR, GraphStore
    from graphrag_core.graph.merge_log import MENTION_PREFIX, MergeLog, check_merge

    settings = settings_from_args(args)
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
                f"\n[{item['review_id'][:12]}] {item['text']!r} ({item['role']}): "
                f"{item['reason']}; "
                f"{state}; {item['claims']} citation(s)"
            )
            for c in item["candidates"] or []:
                print(f"    candidate {c['entity_id']} {c['name']!r} (similarity {c['score']:.2f})")
            for ev in (item["evidence"] or [])[:2]:
                print(
                    f"    {ev['filing_id']} {ev['chunk_id']}: {ev['subject_text']} "
                    f"{ev['relation']} "
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
            "not applied: the next corpus run (filings-graph ingest) rebuilds the graph from the "
            "log"
        )
        return 0
    from pipelines.ingest import run_corpus_job

    print("rebuilding the graph from the merge log and publishing ...", flush=True)
    ok, error = run_corpus_job(settings)
    if not ok:
        print(f"corpus job FAILED: {error}")
        return 1
    print("\n".join(graph_summary(settings.data_root)))
    print(publish_status(settings))
    return 0
