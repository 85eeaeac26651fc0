"""Streamable HTTP exposure: loopback by default with Host/Origin checks against DNS
rebinding; any other interface only with a bearer token (`GRAPHRAG_MCP_TOKEN`: see
`token_problem` for what is refused).

The transport is stateless: every tool answers from its arguments and the snapshot alone, so
no connection outlives its request and nothing a client abandons stays behind (a flood of
`initialize` calls used to pile up sessions until every new client got `503 Too many open
sessions`). What a client's session does keep is its evidence numbers (`mcp_server.evidence`):
`ClientIds` gives each client an id — the `Mcp-Session-Id` it sends back (handshake versions:
assigned on `initialize`), else a cookie (the per-request protocol has no session) — and the
tools keep one bounded ledger per id. Each request must arrive whole within
`McpSettings.read_timeout_s` (`TimedH11Protocol`): uvicorn itself never times out a client that
is slow to send its headers or body (slowloris)."""

from __future__ import annotations

import asyncio
import hmac
import ipaddress
import json
import logging
import re
import secrets
from http.cookies import CookieError, SimpleCookie

import h11
from mcp.server.mcpserver import MCPServer
from mcp.server.transport_security import TransportSecuritySettings
from mcp_types.version import HANDSHAKE_PROTOCOL_VERSIONS
from starlette.types import ASGIApp, Message, Receive, Scope, Send
from uvicorn.protocols.http.h11_impl import H11Protocol

from graphrag_core.common.errors import ConfigurationError
from mcp_server.evidence import CLIENT_ID_HEADER

TOKEN_ENV = "GRAPHRAG_MCP_TOKEN"
# A bearer token is the only guard beyond loopback: short ones can be guessed.
MIN_TOKEN_CHARS = 32
# A token has to be typed into clients' headers: only the characters RFC 6750 allows a bearer
# token (no whitespace: clients and this server trim it, so such a token never matches).
_TOKEN_CHARS = re.compile(r"[A-Za-z0-9._~+/-]+=*")
MIN_TOKEN_DISTINCT = 8  # a random 32-character hex token has about 14; "a" * 32 has 1
MAKE_TOKEN = 'python -c "import secrets; print(secrets.token_urlsafe(32))"'

log = logging.getLogger(__name__)


class HttpExposureError(ConfigurationError):
    """The HTTP settings would expose the server unsafely; the message says how to fix it."""


def token_problem(token: str) -> str | None:
    """Why `token` cannot be a bearer token, or None. Refused: characters a bearer token may
    not hold (whitespace anywhere, control characters, quotes…), fewer than `MIN_TOKEN_CHARS`,
    fewer than `MIN_TOKEN_DISTINCT` distinct characters, or a shorter string repeated
    ("abcd" * 8). A guard against mistakes, not a strength meter: use a random secret."""
    if not _TOKEN_CHARS.fullmatch(token):
        odd = sorted({c for c in token if not _TOKEN_CHARS.fullmatch(c)} - {"="})
        shown = ", ".join("space" if c == " " else repr(c) for c in odd) or "'=' before the end"
        return (
            f"holds characters a bearer token may not ({shown}; letters, digits and "
            "- . _ ~ + / only, '=' at the end); clients could never send it as set"
        )
    if len(token) < MIN_TOKEN_CHARS:
        return f"is {len(token)} characters; use at least {MIN_TOKEN_CHARS} random characters"
    if len(set(token)) < MIN_TOKEN_DISTINCT:
        return (
            f"has only {len(set(token))} distinct characters; use at least "
            f"{MIN_TOKEN_CHARS} random characters"
        )
    if token in (token + token)[1:-1]:
        return "is a shorter string repeated; use random characters"
    return None


def is_loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


def check_exposure(host: str, token: str | None) -> None:
    """Refuse to listen beyond loopback without a token (a read-only server still leaks data),
    and refuse a token that cannot work or be a secret (`token_problem`), wherever it listens."""
    if not is_loopback(host) and not token:
        raise HttpExposureError(
            f"refusing to serve on {host}: only loopback (127.0.0.1, ::1, localhost) is served "
            f"without authentication. Set {TOKEN_ENV} to a long random secret (clients send "
            "'Authorization: Bearer <token>'), or listen on 127.0.0.1"
        )
    problem = token_problem(token) if token is not None else None
    if problem is not None:
        raise HttpExposureError(
            f"{TOKEN_ENV} {problem}. Set it to a long random secret, e.g. the output of: "
            f"{MAKE_TOKEN}"
        )


def loopback_security(port: int) -> TransportSecuritySettings:
    """Only the loopback names on this port, so a page on another origin that rebinds its DNS
    name to 127.0.0.1 is refused (its Host header names that other site)."""
    hosts = ["127.0.0.1", "localhost", "[::1]"]
    return TransportSecuritySettings(
        enable_dns_rebinding_protection=True,
        allowed_hosts=[f"{h}:{port}" for h in hosts],
        allowed_origins=[f"http://{h}:{port}" for h in hosts],
    )


class BearerTokenMiddleware:
    """Every HTTP request must carry `Authorization: Bearer <token>` (constant-time compare of
    the token; the scheme is case-insensitive, as RFC 9110 says auth schemes are)."""

    def __init__(self, app: ASGIApp, token: str):
        self.app = app
        self.expected = token.encode()

    def _authorized(self, header: bytes) -> bool:
        scheme, _, credentials = header.strip().partition(b" ")
        return scheme.lower() == b"bearer" and hmac.compare_digest(
            credentials.strip(), self.expected
        )

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        supplied = dict(scope.get("headers") or []).get(b"authorization", b"")
        if self._authorized(supplied):
            await self.app(scope, receive, send)
            return
        body = b'{"error": "missing or wrong bearer token"}'
        await send(
            {
                "type": "http.response.start",
                "status": 401,
                "headers": [
                    (b"content-type", b"application/json"),
                    (b"content-length", str(len(body)).encode()),
                    (b"www-authenticate", b'Bearer realm="filings-graph"'),
                ],
            }
        )
        await send({"type": "http.response.body", "body": body})


SESSION_ID_HEADER = b"mcp-session-id"
PROTOCOL_VERSION_HEADER = b"mcp-protocol-version"
CLIENT_COOKIE = "filings_graph_client"
# What MCP allows in a session id (visible ASCII), bounded; anything else is not taken as an id.
_CLIENT_ID = re.compile(r"[\x21-\x7E]{1,128}")
_INITIALIZE_PROBE_BYTES = 64 * 1024  # an initialize request is a few hundred bytes


def _header(headers: list[tuple[bytes, bytes]], name: bytes) -> str | None:
    value = next((v for k, v in headers if k == name), None)
    return value.decode("latin-1") if value is not None else None


def _cookie(headers: list[tuple[bytes, bytes]], name: str) -> str | None:
    for key, value in headers:
        if key == b"cookie":
            try:
                jar: SimpleCookie = SimpleCookie(value.decode("latin-1"))
            except CookieError:
                continue
            if name in jar:
                return jar[name].value
    return None


def _is_initialize(body: bytes) -> bool:
    try:
        message = json.loads(body)
    except (ValueError, RecursionError):
        return False
    return isinstance(message, dict) and message.get("method") == "initialize"


class ClientIds:
    """Tell the tools which client each HTTP request comes from (`CLIENT_ID_HEADER`), so that a
    client's evidence numbers last its session whatever protocol version it speaks.

    The id is the request's `Mcp-Session-Id`, else its `filings_graph_client` cookie, else a new
    random one (128 bits): the answer sets it as that cookie, and an `initialize` answer also
    names it as the session id, which handshake clients (2024-11-05 … 2025-11-25) must send back
    on every later request. The per-request protocol (2026-07-28) has no session: a client that
    keeps cookies keeps its id, one that does not gets fresh numbers per request — never another
    client's. Nothing is held per id here; the ledgers are bounded (`mcp_server.evidence`).
    An id only picks a ledger of evidence numbers, so a client that sends another's id gains
    nothing it could not ask for itself. A GET (the stream for unprompted server messages) is
    answered 405, as the protocol allows: this server never sends any."""

    def __init__(self, app: ASGIApp):
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        if scope["method"] == "GET":
            await send(
                {
                    "type": "http.response.start",
                    "status": 405,
                    "headers": [(b"allow", b"POST, DELETE"), (b"content-length", b"0")],
                }
            )
            await send({"type": "http.response.body", "body": b""})
            return
        header = CLIENT_ID_HEADER.encode()
        headers = [(k, v) for k, v in scope.get("headers") or [] if k != header]
        session = _header(headers, SESSION_ID_HEADER)
        version = _header(headers, PROTOCOL_VERSION_HEADER)
        handshake = version is None or version in HANDSHAKE_PROTOCOL_VERSIONS
        client = next(
            (
                c
                for c in (session, _cookie(headers, CLIENT_COOKIE))
                if c and _CLIENT_ID.fullmatch(c)
            ),
            None,
        )
        minted = client is None
        if client is None:
            client = secrets.token_hex(16)
        headers.append((header, client.encode()))
        body = bytearray()

        async def receive_body() -> Message:
            message = await receive()
            if message["type"] == "http.request" and len(body) <= _INITIALIZE_PROBE_BYTES:
                body.extend(message.get("body", b""))
            return message

        async def send_with_id(message: Message) -> None:
            if message["type"] == "http.response.start" and message["status"] < 400:
                extra = []
                if minted:
                    extra.append(
                        (
                            b"set-cookie",
                            f"{CLIENT_COOKIE}={client}; Path=/; HttpOnly; SameSite=Strict".encode(),
                        )
                    )
                if handshake and session is None and _is_initialize(bytes(body)):
                    extra.append((SESSION_ID_HEADER, client.encode()))
                message = {**message, "headers": [*message.get("headers", []), *extra]}
            await send(message)

        await self.app({**scope, "headers": headers}, receive_body, send_with_id)


def http_app(server: MCPServer, *, host: str, port: int, token: str | None) -> ASGIApp:
    check_exposure(host, token)
    security = (
        loopback_security(port)
        if is_loopback(host)
        else TransportSecuritySettings(
            # Beyond loopback the token is the guard; the names clients use for this host are
            # not known here.
            enable_dns_rebinding_protection=False
        )
    )
    # Stateless, with plain JSON answers: no connection outlives its request; a client's
    # evidence numbers are kept by its id (ClientIds).
    app: ASGIApp = ClientIds(
        server.streamable_http_app(
            host=host, transport_security=security, stateless_http=True, json_response=True
        )
    )
    return BearerTokenMiddleware(app, token) if token else app


class TimedH11Protocol(H11Protocol):
    """uvicorn's h11 protocol with a deadline for reading each request: its headers must
    arrive within `read_timeout_s` of the connection opening (or of the previous response),
    and its body within `read_timeout_s` of its headers; past it the connection is closed.
    Build a configured class with `timed_h11(read_timeout_s)`."""

    read_timeout_s: float = 10.0
    _read_deadline: asyncio.TimerHandle | None = None
    _read_phase: str | None = None

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        super().connection_made(transport)
        self._watch_read("headers")

    def data_received(self, data: bytes) -> None:
        super().data_received(data)
        self._watch_read()

    def on_response_complete(self) -> None:
        super().on_response_complete()
        self._watch_read("headers")

    def connection_lost(self, exc: Exception | None) -> None:
        self._stop_watch()
        super().connection_lost(exc)

    def _watch_read(self, phase: str | None = None) -> None:
        """(Re)arm the deadline when the phase of reading changes; stop it once read."""
        if self.transport is None or self.transport.is_closing():
            self._stop_watch()
            return
        state = self.conn.their_state
        current = {h11.IDLE: "headers", h11.SEND_BODY: "body"}.get(state)
        if current is None:  # the request is in (DONE), or the connection is ending
            self._stop_watch()
            return
        if phase is None and current == self._read_phase:
            return
        self._stop_watch()
        self._read_phase = current
        self._read_deadline = self.loop.call_later(self.read_timeout_s, self._read_timed_out)

    def _stop_watch(self) -> None:
        if self._read_deadline is not None:
            self._read_deadline.cancel()
        self._read_deadline = None
        self._read_phase = None

    def _read_timed_out(self) -> None:
        log.info(
            "closing connection from %s: request %s not received within %gs",
            self.client,
            self._read_phase,
            self.read_timeout_s,
        )
        self._read_deadline = None
        self.transport.close()


def timed_h11(read_timeout_s: float) -> type[TimedH11Protocol]:
    """A `TimedH11Protocol` class with this deadline, for uvicorn's `http=` option."""
    return type("TimedH11Protocol", (TimedH11Protocol,), {"read_timeout_s": read_timeout_s})
