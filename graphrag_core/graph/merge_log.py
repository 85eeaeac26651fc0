"""The merge log: the decisions a person made about entities, append-only and reversible.

One JSON object per line in `<data root>/graph/merge_log.jsonl`:

    {"seq": 1, "action": "merge", "source": "ORG:samsung-semiconductor",
     "target": "ORG:samsung-electronics", "reason": "...", "at": "2026-…"}
    {"seq": 2, "action": "unmerge", "undoes": 1, "reason": "...", "at": "2026-…"}

A `source` is an entity id (its edges and aliases move to `target`) or `mention:<text>`, the
exact text of a review-queue item (that mention now resolves to `target`). Nothing is ever
rewritten or deleted: an unmerge is a new line that cancels an earlier merge, so the log is the
whole history and resolution replays it (`active()`) on every build — the graph is a function
of the filings, the reference data, the curated aliases and this file.
"""

from __future__ import annotations

import datetime as dt
import json
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, ValidationError

from graphrag_core.common.errors import GraphragError
from graphrag_core.common.ids import sha256_stream

MENTION_PREFIX = "mention:"


class MergeLogError(GraphragError):
    """The merge log cannot be read, or a merge/unmerge asked for is not possible."""


class MergeEvent(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    seq: int
    action: Literal["merge", "unmerge"]
    at: dt.datetime
    source: str | None = None  # merge: an entity id or mention:<text>
    target: str | None = None  # merge: an entity id
    undoes: int | None = None  # unmerge: seq of the merge it cancels
    reason: str | None = None
    review_id: str | None = None  # the review-queue item that prompted it, when one did


@dataclass(frozen=True)
class MergeLog:
    path: Path

    @classmethod
    def under(cls, graph_dir: Path) -> MergeLog:
        return cls(graph_dir / "merge_log.jsonl")

    def events(self) -> list[MergeEvent]:
        if not self.path.exists():
            return []
        events: list[MergeEvent] = []
        for n, line in enumerate(self.path.read_text(encoding="utf-8").splitlines(), 1):
            if not line.strip():
                continue
            try:
                event = MergeEvent.model_validate_json(line)
            except ValidationError as exc:
                raise MergeLogError(
                    f"{self.path}:{n}: not a merge-log event ({exc.errors()[0]['msg']}). Fix: the "
                    "log is append-only and written by `filings-graph entities merge|unmerge`; "
                    "restore the line from a backup or delete the damaged line"
                ) from exc
            if event.seq != len(events) + 1:
                raise MergeLogError(
                    f"{self.path}:{n}: seq {event.seq}, expected {len(events) + 1}. Fix: "
                    "lines were "
                    "removed or reordered; the log must be kept whole and in order"
                )
            events.append(event)
        return events

    def active(self) -> dict[str, str]:
        """source → target of every merge not undone, in log order."""
        events = self.events()
        undone = {e.undoes for e in events if e.action == "unmerge"}
        return {
            e.source: e.target
            for e in events
            if e.action == "merge" and e.seq not in undone and e.source and e.target
        }

    def digest(self) -> str:
        """Changes with every appended line (what resolution's cache is keyed on)."""
        return sha256_stream(json.dumps(sorted(self.active().items())))

    # -- appending -------------------------------------------------------------------------
    def _append(self, event: MergeEvent) -> MergeEvent:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        with open(self.path, "a", encoding="utf-8") as handle:
            handle.write(event.model_dump_json(exclude_none=True) + "\n")
            handle.flush()
            os.fsync(handle.fileno())
        return event

    def merge(
        self, source: str, target: str, *, reason: str | None = None, review_id: str | None = None
    ) -> MergeEvent:
        """Append a merge of `source` into `target` (checked for loops and repeats here; for
        entity types and existence by the caller, who knows the entities)."""
        if source == target:
            raise MergeLogError(f"cannot merge {source} into itself")
        if target.startswith(MENTION_PREFIX):
            raise MergeLogError(f"the target of a merge is an entity id, not {target!r}")
        active = self.active()
        if source in active:
            raise MergeLogError(
                f"{source} is already merged into {active[source]}; unmerge that first"
            )
        hop, seen = target, {source}
        while hop in active:
            if hop in seen:
                break
            seen.add(hop)
            hop = active[hop]
        if hop in seen:
            raise MergeLogError(f"merging {source} into {target} would make a loop through {hop}")
        events = self.events()
        return self._append(
            MergeEvent(
                seq=len(events) + 1,
                action="merge",
                at=dt.datetime.now(dt.UTC),
                source=source,
                target=target,
                reason=reason,
                review_id=review_id,
            )
        )

    def unmerge(self, ref: str, *, reason: str | None = None) -> MergeEvent:
        """Append an unmerge of an active merge, named by its seq or its source."""
        events = self.events()
        undone = {e.undoes for e in events if e.action == "unmerge"}
        live = [e for e in events if e.action == "merge" and e.seq not in undone]
        match = [e for e in live if str(e.seq) == ref.strip() or e.source == ref.strip()]
        if not match:
            listing = ", ".join(f"{e.seq}: {e.source} → {e.target}" for e in live) or "none"
            raise MergeLogError(f"no active merge {ref!r}; active merges: {listing}")
        return self._append(
            MergeEvent(
                seq=len(events) + 1,
                action="unmerge",
                at=dt.datetime.now(dt.UTC),
                undoes=match[-1].seq,
                reason=reason,
            )
        )


def check_merge(source: str, target: str, known: set[str]) -> None:
    """Refuse merges that would make the graph wrong: two SEC registrants are two companies by
    definition; a risk is not a company; a target must be an entity of the graph (or a new
    organization id, which the merge creates). An organization may merge into a company: a name
    found with its legal form can turn out to be a registrant SEC lists under another title."""
    from graphrag_core.graph.ontology import ENTITY_ID_RE, entity_type

    if not ENTITY_ID_RE.match(target):
        raise MergeLogError(
            f"{target!r} is not an entity id (CIK-##########, ORG:name, RISK:category, METRIC:id)"
        )
    if target not in known and not target.startswith("ORG:"):
        raise MergeLogError(
            f"{target} is not an entity of the graph; see `filings-graph entities review`"
        )
    if source.startswith(MENTION_PREFIX):
        if not source[len(MENTION_PREFIX) :].strip():
            raise MergeLogError("mention: needs the mention's text, e.g. mention:Lumentum")
        return
    if not ENTITY_ID_RE.match(source) or source not in known:
        raise MergeLogError(
            f"{source!r} is neither an entity of the graph nor mention:<text> of a review item"
        )
    if source.startswith("CIK-") and target.startswith("CIK-"):
        raise MergeLogError(
            f"{source} and {target} are two SEC registrants (two CIKs): never the same company"
        )
    kinds = (entity_type(source), entity_type(target))
    if kinds[0] != kinds[1] and kinds != ("organization", "company"):
        raise MergeLogError(
            f"{source} is a {kinds[0]}, {target} a {kinds[1]}: only entities of one type merge "
            "(and an organization into the SEC registrant it turns out to be)"
        )


def redirect(entity_id: str, active: dict[str, str]) -> str:
    """Follow active merges from `entity_id` to the entity it now belongs to."""
    seen = set()
    while entity_id in active and entity_id not in seen:
        seen.add(entity_id)
        entity_id = active[entity_id]
    return entity_id
