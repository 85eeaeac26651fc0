"""Evidence numbers and answer caps, applied to every tool's answer.

Within one client session every piece of evidence a tool returns (each `Citation` in its
answer: a metric's source fact, a search hit's chunk, an edge's quote) gets a stable number
`[n]`: the same evidence keeps its number for the whole session, so an answer drafted from
several calls can cite `[3]` and `check_citations` can resolve it. The ledger remembers, per
number, what the evidence says (the chunk it points to, a quote, and the figures the tool
reported beside it), which is what the figures of a cited sentence are checked against.

Every answer is also capped (`MAX_ANSWER_CHARS`): when its JSON would be longer, items are
dropped from the end of its longest lists until it fits, and `capped` says so and how many.
Numbers are handed out after the cap, to the citations the client receives only: a number the
client never saw cannot be cited, and the ledger holds nothing the client could not have read.
"""

from __future__ import annotations

import functools
import inspect
import threading
import typing
import weakref
from collections import OrderedDict
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from mcp.server.mcpserver import Context
from mcp_types.version import MODERN_PROTOCOL_VERSIONS
from pydantic import BaseModel

from mcp_server.models import Citation

MAX_ANSWER_CHARS = 40_000
# Fields of the model holding a citation that say what the evidence states.
_FIGURE_FIELDS = (
    "value",
    "display",
    "yoy_change_pct",
    "prior_value",
    "revenue_growth_pct",
    "margin_pct",
    "prior_margin_pct",
    "margin_trend_pp",
    "debt_to_equity",
    "quote",
    "text",
    "object",
    "subject",
    "relation",
    "unit",
)


@dataclass(frozen=True)
class EvidenceItem:
    n: int
    chunk_id: str | None
    filing_id: str
    snapshot: str
    stated: str  # figures and quotes the tool reported beside the citation
    fact_id: str | None = None  # a metric value's fact: check_citations reads its record
    value: float | None = None  # the value the tool reported with it (a fact may feed two metrics)
    fiscal_label: str | None = None


@dataclass
class EvidenceLedger:
    """Numbers handed out in one session: key → n, n → item."""

    _by_key: dict[tuple[Any, ...], int] = field(default_factory=dict)
    items: dict[int, EvidenceItem] = field(default_factory=dict)
    _lock: threading.Lock = field(default_factory=threading.Lock)

    def number(
        self, citation: Citation, stated: str, snapshot: str, parent: BaseModel | None = None
    ) -> int:
        value = _number(_field(parent, "value"))
        key = (
            citation.filing_id,
            citation.chunk_id,
            citation.fact_id,
            stated if not citation.fact_id else value,
        )
        with self._lock:
            n = self._by_key.get(key)
            if n is None:
                n = len(self.items) + 1
                self._by_key[key] = n
                label = _field(parent, "fiscal_label")
                self.items[n] = EvidenceItem(
                    n,
                    citation.chunk_id,
                    citation.filing_id,
                    snapshot,
                    stated,
                    citation.fact_id,
                    value,
                    label if isinstance(label, str) else None,
                )
            return n

    def __len__(self) -> int:
        with self._lock:
            return len(self.items)

    def get(self, n: int) -> EvidenceItem | None:
        with self._lock:
            return self.items.get(n)


# The request header through which the HTTP layer (`mcp_server.http.ClientIds`) tells the tools
# which client a request comes from; it sets it on every request, replacing any a client sent.
CLIENT_ID_HEADER = "x-filings-graph-client"
# Ledgers of HTTP clients that came back with their id at least once, and of ids seen once
# (kept apart so that a flood of requests that never return an id cannot push out the ledger of
# a client that does).
_MAX_CLIENTS = 10_000
_MAX_NEW_CLIENTS = 1_000


class Ledgers:
    """One ledger per client session, forgotten when the session object is (stdio, in-memory)
    or, over HTTP, when too many newer clients have come (least recently used first)."""

    def __init__(self) -> None:
        self._ledgers: weakref.WeakKeyDictionary[Any, EvidenceLedger] = weakref.WeakKeyDictionary()
        self._clients: OrderedDict[str, EvidenceLedger] = OrderedDict()
        self._new_clients: OrderedDict[str, EvidenceLedger] = OrderedDict()
        self._shared = EvidenceLedger()
        self._lock = threading.Lock()

    def for_context(self, ctx: Context) -> EvidenceLedger:
        """The ledger of the client session a request belongs to.

        Over HTTP (the request has headers) the server is stateless for every protocol version,
        so the transport's connection lasts one request; the client is known by the id the HTTP
        layer put in `CLIENT_ID_HEADER` (its `Mcp-Session-Id`, else its client cookie, else one
        minted for it), and a request that somehow has none gets a ledger of its own: HTTP
        clients never share numbers. Without HTTP, a handshake session (stdio, the in-memory
        legacy transport) is one connection for the client's whole session: its ledger is that
        connection's. The per-request protocol (2026-07-28) over stdio or in memory has one
        client per server process, which keeps the server's one ledger."""
        headers = _headers(ctx)
        if headers is not None:
            client = headers.get(CLIENT_ID_HEADER)
            return self.for_client(client) if client else EvidenceLedger()
        connection = getattr(ctx.session, "_connection", None)
        if (
            connection is None
            or getattr(connection, "protocol_version", None) in MODERN_PROTOCOL_VERSIONS
        ):
            return self._shared
        session_id = getattr(connection, "session_id", None)
        return self.for_client(session_id) if session_id else self.for_session(connection)

    def for_session(self, session: Any) -> EvidenceLedger:
        """The ledger of a session object (kept while the object lives)."""
        with self._lock:
            ledger = self._ledgers.get(session)
            if ledger is None:
                ledger = self._ledgers[session] = EvidenceLedger()
            return ledger

    def for_client(self, client: str) -> EvidenceLedger:
        """The ledger of an HTTP client id (a session id or a client cookie's value)."""
        with self._lock:
            ledger = self._clients.get(client)
            if ledger is not None:
                self._clients.move_to_end(client)
                return ledger
            ledger = self._new_clients.pop(client, None)
            if ledger is not None:  # came back with its id: a client that keeps it
                self._clients[client] = ledger
                if len(self._clients) > _MAX_CLIENTS:
                    self._clients.popitem(last=False)
                return ledger
            ledger = self._new_clients[client] = EvidenceLedger()
            if len(self._new_clients) > _MAX_NEW_CLIENTS:
                self._new_clients.popitem(last=False)
            return ledger


def _headers(ctx: Context) -> Mapping[str, str] | None:
    """The HTTP request's headers, or None when the request did not come over HTTP."""
    try:
        return ctx.headers
    except (AttributeError, ValueError):  # no request context (a call outside a request)
        return None


@functools.cache
def _fields_of(cls: type[BaseModel]) -> frozenset[str]:
    return frozenset(cls.model_fields)


@functools.cache
def _stated_fields(cls: type[BaseModel]) -> tuple[str, ...]:
    return tuple(n for n in _FIGURE_FIELDS if n in _fields_of(cls))


@functools.cache
def _has_markers(cls: type[BaseModel]) -> bool:
    return callable(getattr(cls, "render_markers", None))


def _field(model: BaseModel | None, name: str) -> Any:
    """`model.name`, or None when its class has no such field. Asked by class, once: a missing
    attribute takes pydantic's slow path (an exception raised and caught), which for every
    figure field of every citation was a tenth of a window screen's time."""
    return getattr(model, name) if model is not None and name in _fields_of(type(model)) else None


def _stated(parent: BaseModel) -> str:
    parts = []
    for name in _stated_fields(type(parent)):
        value = getattr(parent, name)
        if value is not None and not isinstance(value, BaseModel | list | dict):
            parts.append(str(value))
    return " | ".join(parts)


def _number(value: Any) -> float | None:
    return float(value) if isinstance(value, int | float) and not isinstance(value, bool) else None


def citations_of(result: BaseModel) -> list[tuple[BaseModel, Citation]]:
    """Every Citation in `result` with the model that holds it, in answer order."""
    found: list[tuple[BaseModel, Citation]] = []

    def walk(model: BaseModel) -> None:
        for name in type(model).model_fields:
            value = getattr(model, name, None)
            items = value if isinstance(value, list) else [value]
            for item in items:
                if isinstance(item, Citation):
                    found.append((model, item))
                elif isinstance(item, BaseModel):
                    walk(item)

    walk(result)
    return found


def number_citations(result: BaseModel, ledger: EvidenceLedger, snapshot: str) -> None:
    """Give every Citation in `result` its session number (in place)."""
    for parent, citation in citations_of(result):
        citation.evidence = ledger.number(citation, _stated(parent), snapshot, parent)


def render_markers(result: BaseModel) -> None:
    """Let every model in `result` that cites its own citations by number in its text (a
    theme's statement: `render_markers()`) write that text now, inner models first (an answer
    made of statements sees them written)."""

    def walk(model: BaseModel) -> None:
        for name in type(model).model_fields:
            value = getattr(model, name, None)
            for item in value if isinstance(value, list) else [value]:
                if isinstance(item, BaseModel):
                    walk(item)
        if _has_markers(type(model)):
            model.render_markers()  # type: ignore[attr-defined]

    walk(result)


def reserve_numbers(result: BaseModel, ledger: EvidenceLedger) -> None:
    """Put a stand-in number in every citation as wide as any number it may get, so that the cap
    measures the answer as the client will receive it (numbers are given after the cap)."""
    found = citations_of(result)
    # Ten times the count: other requests of the session may take numbers meanwhile.
    widest = 10 * (len(ledger) + len(found))
    for _parent, citation in found:
        citation.evidence = widest


def _longest_list(model: BaseModel) -> tuple[BaseModel, str, int] | None:
    """The (owner, field, JSON length) of the longest non-empty list anywhere in `model`, lists
    of several items first."""
    best: tuple[BaseModel, str, int] | None = None
    best_rank: tuple[bool, int] = (False, 0)

    def walk(m: BaseModel) -> None:
        nonlocal best, best_rank
        for name in type(m).model_fields:
            value = getattr(m, name, None)
            if isinstance(value, list) and value:
                size = sum(
                    len(v.model_dump_json()) if isinstance(v, BaseModel) else len(str(v))
                    for v in value
                )
                # A list of one item that holds a longer list (one metric's series of 400
                # values) is not cut whole while an inner list can be cut instead.
                rank = (len(value) > 1, size)
                if best is None or rank > best_rank:
                    best, best_rank = (m, name, size), rank
                for item in value:
                    if isinstance(item, BaseModel):
                        walk(item)
            elif isinstance(value, BaseModel):
                walk(value)

    walk(model)
    return best


def cap_answer(result: BaseModel, limit: int = MAX_ANSWER_CHARS) -> BaseModel:
    """Cut `result` to at most `limit` characters of JSON by dropping items from the end of its
    longest lists; records what was dropped in `capped` (when the model has that field)."""
    size = len(result.model_dump_json())
    if size <= limit:
        return result
    dropped: dict[str, int] = {}
    while size > limit:
        found = _longest_list(result)
        if found is None:
            break
        owner, name, _ = found
        items = getattr(owner, name)
        # Drop about the share that is over, at least one item.
        cut = max(1, int(len(items) * (size - limit) / size) + 1)
        cut = min(cut, len(items))
        setattr(owner, name, items[: len(items) - cut])
        path = f"{type(owner).__name__}.{name}"
        dropped[path] = dropped.get(path, 0) + cut
        size = len(result.model_dump_json())
    if "capped" in type(result).model_fields:
        note = ", ".join(f"{n} from {p}" for p, n in dropped.items())
        # setattr: any Stamped answer; not every model has the field, so mypy cannot see it.
        setattr(  # noqa: B010
            result,
            "capped",
            (
                f"answer cut to {limit:,} characters (dropped {note}); narrow the request "
                "(fewer items, a filter, a smaller limit) to see the rest"
            ),
        )
    return result


def with_evidence(fn: Callable[..., Any], ledgers: Ledgers) -> Callable[..., Any]:
    """`fn` as a tool whose answer gets session evidence numbers and the size cap. The wrapper
    asks the server for the request `Context` (to know the session) unless `fn` does already;
    the tool's arguments and schema are `fn`'s own."""
    signature = inspect.signature(fn, eval_str=True)
    hints = typing.get_type_hints(fn, include_extras=True)
    own_ctx = next((name for name, hint in hints.items() if hint is Context), None)

    @functools.wraps(fn)
    def tool(*args: Any, **kwargs: Any) -> Any:
        ctx = kwargs[own_ctx] if own_ctx else kwargs.pop("ctx")
        result = fn(*args, **kwargs)
        if isinstance(result, BaseModel):
            ledger = ledgers.for_context(ctx)
            reserve_numbers(result, ledger)
            render_markers(result)  # at the numbers' widest, so the cap measures the real text
            result = cap_answer(result)
            number_citations(result, ledger, str(getattr(result, "snapshot", "")))
            render_markers(result)
        return result

    if own_ctx is None:
        ctx_param = inspect.Parameter("ctx", inspect.Parameter.KEYWORD_ONLY, annotation=Context)
        signature = signature.replace(parameters=[*signature.parameters.values(), ctx_param])
        hints = {**hints, "ctx": Context}
    tool.__signature__ = signature  # type: ignore[attr-defined]
    tool.__annotations__ = hints
    return tool
