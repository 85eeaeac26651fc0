"""`filings-graph`: ingest, status, demo, dev — the same code paths the Dagster assets use."""

from __future__ import annotations

import argparse
import sys

from graphrag_core.common.errors import GraphragError
from pipelines.commands.entities import cmd_entities
from pipelines.commands.evaluation import (
    cmd_eval_extraction,
    cmd_eval_gates,
    cmd_train_relation_classifier,
)
from pipelines.commands.ingest import cmd_demo, cmd_ingest, cmd_remove
from pipelines.commands.services import cmd_ask, cmd_config_docs, cmd_dev, cmd_mcp
from pipelines.commands.status import cmd_status

# The commands live in pipelines/commands, a module per group; this module is only the command
# line (the parser and main), so the help text and the entry point have one home.


def _seed(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a whole number: {text!r}") from None
    if not 0 <= value < 2**63:
        raise argparse.ArgumentTypeError(f"a seed is a whole number from 0 to 2**63-1: {value}")
    return value


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
        help="skip the merge proposals by meaning (they embed every organization's name and "
        "context)",
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
        help="score an extractor on the reviewed gold set: precision/recall/F1 per relation, gate "
        "accuracy per reason",
    )
    p.add_argument(
        "--backend", choices=["rules", "openai"], help="default: the configured one (EXTRACTOR_*)"
    )
    p.add_argument(
        "--corpus",
        help="corpus folder whose SEC ticker file feeds the rules' gazetteer (default: "
        "$FILINGS_CORPUS)",
    )
    p.add_argument(
        "--cases", help="gold set JSONL (default: $EXTRACTOR_GOLD_SET or the repository's)"
    )
    p.add_argument("--split", choices=["all", "dev", "holdout", "blind", "blind2"], default="all")
    p.add_argument(
        "--learned",
        action=argparse.BooleanOptionalAction,
        default=None,
        help="rules backend: with (or without) the learned relation classifier (default: "
        "$EXTRACTOR_LEARNED)",
    )
    p.add_argument(
        "--blind-cases",
        help="frozen blind set JSONL (default: $EXTRACTOR_BLIND_SET or the repository's; "
        "not loaded with --cases unless named)",
    )
    p.add_argument(
        "--blind2-cases",
        help="second frozen blind set JSONL (default: $EXTRACTOR_BLIND2_SET or the "
        "repository's; not loaded with --cases unless named)",
    )
    p.add_argument(
        "--errors",
        "--show-errors",
        type=int,
        nargs="?",
        const=20,
        default=0,
        help="print this many false positives/negatives and gate misses of the dev and holdout "
        "splits",
    )
    p.add_argument(
        "--reveal-blind-errors",
        action="store_true",
        help="also print the blind splits' errors (blind and blind2): reading them SPENDS those "
        "sets (no rule may then be tuned on them; label a fresh one)",
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
        "train-relation-classifier",
        help="train the learned relation classifier (dev split + training file, seeded), write "
        "its weights, print its threshold curve on the holdout split",
    )
    p.add_argument("--corpus", help="corpus folder whose SEC ticker file feeds the gazetteer")
    p.add_argument("--train-cases", help="training JSONL (default: $EXTRACTOR_TRAIN_SET)")
    p.add_argument("--out", help="weights file (default: $EXTRACTOR_LEARNED_WEIGHTS, packaged)")
    p.add_argument("--seed", type=_seed, default=20261207)
    p.add_argument("--no-curve", action="store_true", help="skip the holdout threshold curve")
    p.add_argument(
        "--show-additions", action="store_true", help="list each holdout addition with its score"
    )
    p.set_defaults(func=cmd_train_relation_classifier)

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
        help="HTTP interface (default $GRAPHRAG_MCP_HOST or 127.0.0.1); beyond loopback needs "
        "$GRAPHRAG_MCP_TOKEN",
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
