"""The manifest of a snapshot: what it holds, how fresh it is, what it was built from."""

from __future__ import annotations

import datetime as dt
import subprocess
from functools import lru_cache
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

import graphrag_core
from graphrag_core.common.ids import sha256_stream
from graphrag_core.store.chunk_index_ref import ChunkIndexRef

MANIFEST_FORMAT = 1


class InputFiling(BaseModel):
    model_config = ConfigDict(frozen=True)

    filing_id: str
    sha256: str | None


class InputsFile(BaseModel):
    """The filings a snapshot was built from, listed in their own file next to the manifest: at
    EDGAR scale the list runs to megabytes, and the manifest is read on every hot reload."""

    model_config = ConfigDict(frozen=True)

    file: str
    count: int
    digest: str = Field(description="sha256 over the sorted (filing_id, sha256) pairs")
    sha256: str = Field(description="of the file itself")


class ExcludedFiling(BaseModel):
    """A filing the corpus job left out because it failed its own checks (a failed blocking
    check, or a stage of its own that failed or never finished): the other filings publish
    without it, and it comes back in once it is fixed and ingested again."""

    model_config = ConfigDict(frozen=True)

    filing_id: str
    reason: str = Field(description="the failed check with its figures, or the failed stage")
    fix: str = Field(description="what gets it back in (or out of the corpus for good)")

    def describe(self) -> str:
        return f"filing {self.filing_id}: {self.reason}. Fix: {self.fix}"


class DatabaseFile(BaseModel):
    model_config = ConfigDict(frozen=True)

    file: str
    bytes: int
    sha256: str


class SnapshotManifest(BaseModel):
    model_config = ConfigDict(frozen=True)

    format: int = MANIFEST_FORMAT
    version: str
    as_of: dt.date | None = Field(
        description="the date the snapshot's knowledge runs to: its newest "
        "filing date, or a dateless filing's period end when later"
    )
    as_of_basis: str | None = Field(
        None,
        description="how as_of was derived: which filing, and "
        "whether by its filing date or its period end",
    )
    built_at: dt.datetime
    code_version: str
    content_digest: str | None = Field(
        None,
        description="sha256 over the code version and every table's content: equal "
        "digests mean a rebuild would publish the same snapshot",
    )
    counts: dict[str, int]
    tables: dict[str, str] = Field(description="table → what it holds")
    inputs: InputsFile = Field(description="input filing ids with their sha256")
    database: DatabaseFile
    review_queue: int | None = Field(
        None,
        description="mentions in the graph stage's review queue when this was built: "
        "unresolved ones are left out of the graph (`filings-graph entities review`)",
    )
    chunk_index: ChunkIndexRef | None = Field(
        None, description="the chunk index version published with this snapshot (passage search)"
    )
    allowed_shrink: dict[str, Any] | None = Field(
        None,
        description="the operator's reason (--allow-shrink, GRAPHRAG_SNAPSHOT_ALLOW_SHRINK) "
        "that let this snapshot publish markedly fewer registrants, company nodes or edges than "
        "the one before, with what it lost; null when no reason was needed",
    )
    excluded: list[ExcludedFiling] = Field(
        default_factory=list,
        description="filings known to the store but left out of this "
        "snapshot because they failed their own checks, each with the reason and the fix",
    )


def inputs_digest(inputs: list[InputFiling]) -> str:
    return sha256_stream(
        f"{item.filing_id}\t{item.sha256 or ''}\n"
        for item in sorted(inputs, key=lambda i: i.filing_id)
    )


@lru_cache(maxsize=1)
def code_version() -> str:
    """Package version, plus the git commit (and `.dirty`) when running from a checkout.

    A snapshot must say which code built it; outside a checkout (an installed wheel) the
    package version is all there is.
    """
    base = graphrag_core.__version__
    repo = Path(__file__).resolve().parents[2]
    try:
        sha = subprocess.run(
            ["git", "-C", str(repo), "rev-parse", "--short=12", "HEAD"],
            capture_output=True,
            text=True,
            timeout=5,
            check=True,
        ).stdout.strip()
        dirty = subprocess.run(
            [
                "git",
                "-C",
                str(repo),
                "status",
                "--porcelain",
                "--untracked-files=no",
                "--",
                "graphrag_core",
                "assets",
                "pipelines",
            ],
            capture_output=True,
            text=True,
            timeout=5,
            check=True,
        ).stdout.strip()
    except (OSError, subprocess.SubprocessError):
        return base
    return f"{base}+g{sha}{'.dirty' if dirty else ''}" if sha else base
