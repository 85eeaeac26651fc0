"""What every command shares: Settings from the command line, and the message for a missing
filing source."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from graphrag_core.common.errors import ConfigurationError
from graphrag_core.settings import Settings

EDGAR_HELP = (
    "No filing source configured. Either\n"
    "  - use a local folder of filings:  FILINGS_CORPUS=../shared/corpus make demo\n"
    '  - or fetch from EDGAR live:       EDGAR_IDENTITY="Your Name you@example.com" make demo\n'
    "SEC requires a User-Agent naming you and an email address for every request to EDGAR."
)


def settings_from_args(args: argparse.Namespace) -> Settings:
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


def require_source(settings: Settings) -> None:
    if settings.corpus is None and not settings.edgar.identity:
        raise ConfigurationError(EDGAR_HELP)


def report_text(settings: Settings) -> str:
    from graphrag_core.store.layout import snapshots_root

    path = snapshots_root(settings.data_root) / "reports" / "ingestion_report.md"
    if not path.exists():
        return "no ingestion report written (the build_corpus run did not get to it)"
    return path.read_text(encoding="utf-8").rstrip() + f"\n\n(report: {path})"
