"""Streamable HTTP exposure: loopback by default with Host/Origin checks against DNS
rebinding; any other interface only with a bearer token (`GRAPHRAG_MCP_TOKEN`)."""

from __future__ import annotations

import hmac
import ipaddress

from mcp.server.mcpserver import MCPServer
from mcp.server.transport_security import TransportSecuritySettings
from starlette.types import ASGIApp, Receive, Scope, Send

TOKEN_ENV = "GRAPHRAG_MCP_TOKEN"


class HttpExposureError(ValueError):
    """The HTTP settings would expose the server unsafely; the message says how to fix it."""


def is_loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


def check_exposure(host: str, token: str | None) -> None:
    """Refuse to listen beyond loopback without a token (a read-only server still leaks data)."""
    if not is_loopback(host) and not token:
        raise HttpExposureError(
            f"refusing to serve on {host}: only loopback (127.0.0.1, ::1, localhost) is served "
            f"without authentication. Set {TOKEN_ENV} to a long random secret (clients send "
            "'Authorization: Bearer <token>'), or listen on 127.0.0.1"
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
    """Every HTTP request must carry `Authorization: Bearer <token>` (constant-time compare)."""

    def __init__(self, app: ASGIApp, token: str):
        self.app = app
        self.expected = f"Bearer {token}".encode()

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        supplied = dict(scope.get("headers") or []).get(b"authorization", b"")
        if hmac.compare_digest(supplied, self.expected):
            await self.app(scope, receive, send)
            return
        body = b'{"error": "missing or wrong bearer token"}'
        await send({
            "type": "http.response.start",
            "status": 401,
            "headers": [
                (b"content-type", b"application/json"),
                (b"content-length", str(len(body)).encode()),
                (b"www-authenticate", b'Bearer realm="filings-graph"'),
            ],
        })
        await send({"type": "http.response.body", "body": body})


def http_app(server: MCPServer, *, host: str, port: int, token: str | None) -> ASGIApp:
    check_exposure(host, token)
    security = loopback_security(port) if is_loopback(host) else TransportSecuritySettings(
        # Beyond loopback the token is the guard; the names clients use for this host are
        # not known here.
        enable_dns_rebinding_protection=False
    )
    app: ASGIApp = server.streamable_http_app(host=host, transport_security=security)
    return BearerTokenMiddleware(app, token) if token else app
