"""arelle, offline: one controller per process that loads inline-XBRL documents without
downloading a taxonomy, with SEC's transforms registered and its error log kept per load."""

from __future__ import annotations

import logging
import re
import threading
import time
from collections import Counter
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from graphrag_core.xbrl.sec_transforms import SEC_TRANSFORMS, SEC_TRANSFORMS_NS


class _LoadLog(logging.Handler):
    """Keeps the codes and first messages of arelle's errors during one load.

    Without a taxonomy every fact raises `missingReferences`; that one is expected noise."""

    _IGNORED = ("missingReferences",)

    def __init__(self) -> None:
        super().__init__(level=logging.ERROR)
        self.codes: Counter[str] = Counter()
        self.first: list[str] = []

    def reset(self) -> None:
        self.codes = Counter()
        self.first = []

    def emit(self, record: logging.LogRecord) -> None:
        code = str(getattr(record, "messageCode", "") or "")
        if code.endswith(self._IGNORED):
            return
        self.codes[code] += 1
        if len(self.first) < 5:
            try:
                self.first.append(f"[{code}] {record.getMessage()[:300]}")
            except Exception:  # a message whose arguments do not format is still counted
                self.first.append(f"[{code}]")


class _Arelle:
    """One arelle controller per process; loads are serialized because arelle's model manager
    and the `arelle` logger are shared state."""

    def __init__(self) -> None:
        from arelle import Cntlr
        from arelle.ModelValue import qname

        self.log = _LoadLog()
        # No persistent config: arelle would otherwise write its settings under the user's home.
        self.cntlr = Cntlr.Cntlr(logFileName=None, disable_persistent_config=True)
        self.cntlr.startLogging(logHandler=self.log, logPropagate=False)
        self.cntlr.webCache.workOffline = True
        self.cntlr.modelManager.customTransforms = {
            qname(SEC_TRANSFORMS_NS, name): fn for name, fn in SEC_TRANSFORMS.items()
        }
        self.lock = threading.Lock()

    @contextmanager
    def load(self, path: Path) -> Iterator[Any]:
        with self.lock:
            self.log.reset()
            model = self.cntlr.modelManager.load(str(path))
            try:
                yield model
            finally:
                if model is not None:
                    model.close()


_ARELLE: _Arelle | None = None
_ARELLE_INIT = threading.Lock()


def arelle() -> _Arelle:
    """The process's arelle controller, created on first use. arelle keeps process-wide state
    (its model manager, the `arelle` logger), so one controller per process is all it allows."""
    global _ARELLE
    with _ARELLE_INIT:
        if _ARELLE is None:
            _ARELLE = _Arelle()
        return _ARELLE


def bare_load_seconds(path: Path | str) -> tuple[float, int]:
    """arelle's own cost for a document: load it offline and count its facts, nothing else.

    The baseline `bench/xbrl.py` compares the whole stage against."""
    loader = arelle()
    start = time.perf_counter()
    with loader.load(Path(path)) as model:
        count = len(model.facts) if model is not None else 0
    return time.perf_counter() - start, count


@dataclass(frozen=True, slots=True)
class XbrlDocument:
    """One document of a filing: its bytes, and its path when arelle may read the file as is."""

    source: str
    data: bytes
    path: Path | None = None


def loadable_path(doc: XbrlDocument, markup: str, tmp: Path) -> Path:
    """arelle parses XHTML from a file. The original file is used when it is exactly the decoded
    markup; otherwise (SGML envelope, leading blank line before `<?xml`, another encoding)
    the clean markup goes to a temporary UTF-8 file."""
    clean = markup.lstrip()
    if doc.path is not None and clean is markup:
        try:
            if doc.data.decode("utf-8") == markup:
                return doc.path
        except UnicodeDecodeError:
            pass
    clean = re.sub(
        r"^<\?xml([^>]*?)encoding\s*=\s*[\"'][^\"']*[\"']",
        r'<?xml\1encoding="utf-8"',
        clean,
        count=1,
    )
    name = Path(doc.path.name if doc.path else Path(doc.source).name or "document").stem + ".htm"
    target = tmp / name
    target.write_text(clean, encoding="utf-8")
    return target
