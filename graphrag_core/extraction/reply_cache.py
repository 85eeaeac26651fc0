"""On-disk cache of raw extractor replies, so no chunk is paid for twice.

Key: chunk sha256 + backend + model + prompt version + the backend's context key (the filer
name and section that go into the request beside the chunk text: the same text filed by another
company must not get this company's answer). One small JSON file per entry under

    <data root>/cache/extraction/<backend>/<model>/<prompt version>/<kk>/<key>.json

written atomically, so concurrent partitions and interrupted runs never leave a torn entry. Only
replies are cached, parse errors included (the model was paid and would answer the same at
temperature 0); transport failures are not, so the next run tries them again.
"""

from __future__ import annotations

import json
import re
from dataclasses import asdict
from pathlib import Path

from graphrag_core.common.atomic import write_atomic
from graphrag_core.common.ids import content_hash
from graphrag_core.extraction.backends.base import RawResult

_UNSAFE = re.compile(r"[^A-Za-z0-9._@-]+")


def _safe(part: str) -> str:
    return _UNSAFE.sub("_", part)[:120] or "_"


class ExtractionCache:
    """Raw replies keyed by what produced them."""

    def __init__(self, root: Path | str):
        self.root = Path(root)

    @classmethod
    def under(cls, data_root: Path | str) -> ExtractionCache:
        return cls(Path(data_root) / "cache" / "extraction")

    def path(
        self, *, backend: str, model: str, prompt_version: str, chunk_sha256: str, context: str
    ) -> Path:
        key = content_hash(chunk_sha256, context, length=64)
        return (
            self.root
            / _safe(backend)
            / _safe(model)
            / _safe(prompt_version)
            / key[:2]
            / f"{key}.json"
        )

    def get(self, **key: str) -> RawResult | None:
        path = self.path(**key)
        try:
            payload = json.loads(path.read_text(encoding="utf-8"))
        except FileNotFoundError:
            return None
        except (json.JSONDecodeError, UnicodeDecodeError):
            # A damaged entry is a miss, not an error: the reply is fetched again and rewritten.
            return None
        return RawResult(**payload)

    def put(self, result: RawResult, **key: str) -> None:
        if result.status == "failed" or result.raw_output is None:
            return
        path = self.path(**key)
        write_atomic(path, json.dumps(asdict(result), ensure_ascii=False).encode("utf-8"))
