"""`filings-graph dev`, `mcp`, `ask` and `config-docs`: the Dagster UI, the MCP server, the
analyst agent, and the configuration page."""

from __future__ import annotations

import argparse
import os
import subprocess
import sys

from pipelines.commands.common import settings_from_args


def cmd_dev(args: argparse.Namespace) -> int:
    from pipelines.instance import PROJECT_ROOT, prepare_dagster_home

    settings = settings_from_args(args)
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

    settings = settings_from_args(args)
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


def cmd_ask(args: argparse.Namespace) -> int:
    """Answer a question with the analyst agent: the chat model at ANALYST_BASE_URL working
    through the MCP server; `--verbose` prints every model and tool call."""
    import asyncio
    import json

    from analyst.run import ask

    settings = settings_from_args(args)
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


def cmd_config_docs(args: argparse.Namespace) -> int:
    """The configuration page, generated from Settings (docs/configuration.md)."""
    from pipelines.config_docs import configuration_page

    sys.stdout.write(configuration_page())
    return 0
