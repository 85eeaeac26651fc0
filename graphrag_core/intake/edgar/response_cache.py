"""On-disk cache of EDGAR responses, keyed by URL, so a re-run makes no request twice.

One entry is two files named by the SHA-256 of the URL: the body, and a small JSON sidecar (url,
status, fetched_at, content type, size, SHA-256 of the body). Both are written to a temporary file
and renamed into place, body first, so the sidecar's presence marks a complete entry; a reader
also re-checks the body against the sidecar's size and digest, so a body damaged after the fact
(a crash, a disk error, a hand edit) is dropped and fetched again instead of served.

Freshness is the caller's choice per read (`max_age_s`): Archives documents never change once
filed and are read with no age limit, while submissions JSON grows with every new filing.
"""

from __future__ import annotations

import json
import time
from dataclasses import dataclass
from pathlib import Path

from graphrag_core.common.atomic import write_atomic
from graphrag_core.common.ids import sha256_bytes, sha256_text

BODY_SUFFIX = ".body"
META_SUFFIX = ".json"


@dataclass(frozen=True)
class CachedResponse:
    url: str
    status: int
    fetched_at: float
    content_type: str | None
    body: bytes

    def age_s(self, now: float | None = None) -> float:
        return (time.time() if now is None else now) - self.fetched_at


def url_key(url: str) -> str:
    return sha256_text(url)


class ResponseCache:
    """Complete 200 responses on disk under `root`, safe for concurrent readers and writers."""

    def __init__(self, root: Path | str):
        self.root = Path(root).expanduser()
        self.root.mkdir(parents=True, exist_ok=True)

    def paths(self, url: str) -> tuple[Path, Path]:
        """(body, sidecar) paths of a URL's entry; spread over 256 folders to keep listings
        short."""
        key = url_key(url)
        folder = self.root / key[:2]
        return folder / f"{key}{BODY_SUFFIX}", folder / f"{key}{META_SUFFIX}"

    def get(self, url: str, max_age_s: float | None = None) -> CachedResponse | None:
        """The cached response, or None when absent, older than `max_age_s`, or damaged."""
        body_path, meta_path = self.paths(url)
        meta = self._read_meta(meta_path)
        if meta is None or meta.get("url") != url or meta.get("status") != 200:
            return None
        fetched_at = float(meta.get("fetched_at", 0.0))
        if max_age_s is not None and time.time() - fetched_at > max_age_s:
            return None
        try:
            body = body_path.read_bytes()
        except FileNotFoundError:
            self.invalidate(url)
            return None
        if len(body) != meta.get("bytes") or sha256_bytes(body) != meta.get("sha256"):
            self.invalidate(url)
            return None
        return CachedResponse(
            url=url,
            status=200,
            fetched_at=fetched_at,
            content_type=meta.get("content_type"),
            body=body,
        )

    def put(self, url: str, body: bytes, content_type: str | None) -> CachedResponse:
        """Store a complete 200 response (the client never calls this for anything else)."""
        body_path, meta_path = self.paths(url)
        body_path.parent.mkdir(parents=True, exist_ok=True)
        fetched_at = time.time()
        meta = {
            "url": url,
            "status": 200,
            "fetched_at": fetched_at,
            "content_type": content_type,
            "bytes": len(body),
            "sha256": sha256_bytes(body),
        }
        write_atomic(body_path, body)
        write_atomic(meta_path, json.dumps(meta, indent=1).encode("utf-8"))
        return CachedResponse(url, 200, fetched_at, content_type, body)

    def invalidate(self, url: str) -> None:
        """Forget a URL's entry (sidecar first, so no reader ever sees a sidecar without body)."""
        body_path, meta_path = self.paths(url)
        meta_path.unlink(missing_ok=True)
        body_path.unlink(missing_ok=True)

    @staticmethod
    def _read_meta(path: Path) -> dict | None:
        try:
            meta = json.loads(path.read_text(encoding="utf-8"))
        except (FileNotFoundError, ValueError, UnicodeDecodeError):
            return None
        return meta if isinstance(meta, dict) else None
