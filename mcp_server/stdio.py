"""stdio where every line gets an answer.

The SDK's stdio transport drops a line that is not a JSON-RPC message (it logs it at debug
level), so a client that sent malformed JSON waits for ever. JSON-RPC 2.0 asks for an error
instead: -32700 (parse error) for text that is not JSON, -32600 (invalid request) for JSON that
is no message, with `id` null unless the request's id can be read.

The SDK's own transport (`MCPServer.run_stdio_async`) is kept, with its guard that points fd 0
and fd 1 away from the protocol while serving; what changes is what sits behind those
descriptors. fd 0 and fd 1 become pipes, and two threads relay between them and the real
stdin and stdout: lines from stdin are checked and either passed on or answered with the
error, and the server's lines and those errors are written to stdout one whole line at a time.
"""

from __future__ import annotations

import json
import os
import threading

import anyio
from mcp.server.mcpserver import MCPServer
from mcp_types import INVALID_REQUEST, PARSE_ERROR, ErrorData, JSONRPCError, jsonrpc_message_adapter
from pydantic import ValidationError

# Written to the server's side of stdout once it has stopped: everything before it is relayed.
_END = b"\x00end-of-server-output\n"


def error_reply(line: bytes) -> bytes | None:
    """The JSON-RPC error answering `line`, or None when `line` is a JSON-RPC message."""
    try:
        jsonrpc_message_adapter.validate_json(line, by_name=False)
        return None
    except ValidationError:
        pass
    try:
        payload = json.loads(line)
    except ValueError as exc:
        code, message, request_id = PARSE_ERROR, f"Parse error: {exc}", None
    else:
        found = payload.get("id") if isinstance(payload, dict) else None
        valid_id = isinstance(found, str) or (
            isinstance(found, int) and not isinstance(found, bool)
        )
        request_id = found if valid_id else None
        code, message = INVALID_REQUEST, "Invalid Request: not a JSON-RPC 2.0 message"
    error = JSONRPCError(jsonrpc="2.0", id=request_id, error=ErrorData(code=code, message=message))
    return (error.model_dump_json(by_alias=True, exclude_unset=True) + "\n").encode()


class _StdioRelay:
    """fd 0 and fd 1 swapped for pipes, and the threads that relay them to the real streams."""

    def __init__(self) -> None:
        self._stdout = os.fdopen(os.dup(1), "wb")
        self._stdin = os.fdopen(os.dup(0), "rb")
        self._saved = (os.dup(0), os.dup(1))
        self._write_lock = threading.Lock()
        server_in, self._to_server = os.pipe()
        self._from_server, server_out = os.pipe()
        os.dup2(server_in, 0)
        os.dup2(server_out, 1)
        os.close(server_in)
        os.close(server_out)
        self._threads = [
            threading.Thread(target=self._relay_stdin, name="stdio-in", daemon=True),
            threading.Thread(target=self._relay_stdout, name="stdio-out", daemon=True),
        ]
        for thread in self._threads:
            thread.start()

    def _emit(self, line: bytes) -> None:
        with self._write_lock:
            self._stdout.write(line)
            self._stdout.flush()

    def _relay_stdin(self) -> None:
        with os.fdopen(self._to_server, "wb") as to_server:
            try:
                for line in self._stdin:
                    if not line.strip():
                        continue
                    reply = error_reply(line)
                    if reply is not None:
                        self._emit(reply)
                        continue
                    to_server.write(line if line.endswith(b"\n") else line + b"\n")
                    to_server.flush()
            except (BrokenPipeError, ValueError):  # the server stopped reading
                return

    def _relay_stdout(self) -> None:
        with os.fdopen(self._from_server, "rb") as from_server:
            for line in from_server:
                if line == _END:
                    return
                try:
                    self._emit(line)
                except (BrokenPipeError, ValueError):  # the client is gone
                    return

    def close(self) -> None:
        """After the server stopped: relay what it wrote, then give fd 0 and fd 1 back."""
        try:
            os.write(1, _END)
        except OSError:
            pass
        self._threads[1].join(timeout=10)
        os.dup2(self._saved[0], 0)
        os.dup2(self._saved[1], 1)
        for fd in self._saved:
            os.close(fd)
        self._stdout.flush()


def run_stdio(server: MCPServer) -> None:
    """Serve `server` over this process's stdin and stdout until the client closes stdin."""
    relay = _StdioRelay()
    try:
        anyio.run(server.run_stdio_async)
    finally:
        relay.close()
