"""The corpus plus the NVIDIA earnings-release fixture (tests/fixtures/releases), as one folder.

The corpus has no earnings release whose 10-Q is also in it (Buckle's EX-99.1 has no Buckle
10-Q beside it), so the fixture supplies one: an 8-K and its EX-99.1 in Buckle's real layout
carrying NVIDIA's figures for the quarter of the corpus's NVIDIA 10-Q. The overlay folder links
the corpus's own folders (nothing is copied) and extends its manifest with the two documents."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from graphrag_core.common.ids import sha256_bytes

RELEASES = Path(__file__).resolve().parent / "fixtures" / "releases"
NVDA_8K = "fixtures/NVDA/8-K/nvda-8k-2025-08-27.htm"
NVDA_EX99 = "fixtures/NVDA/8-K/nvda-ex99-1-2025-08-27.htm"


def _record(path: str, document_type: str, data: bytes, exhibit_of: str | None) -> dict:
    return {
        "path": path,
        "ticker": "NVDA",
        "cik": "0001045810",
        "company_name": "NVIDIA CORP",
        "form": "8-K",
        "document_type": document_type,
        "period_end": "2025-08-27",
        "fiscal_year_focus": None,
        "fiscal_period_focus": None,
        "filed_date": "2025-08-27",
        "accession": None,
        "is_inline_xbrl": False,
        "bytes": len(data),
        "sha256": sha256_bytes(data),
        "exhibit_of": exhibit_of,
        "notes": ["test fixture: Buckle's release layout, NVIDIA's 10-Q figures"],
    }


def overlay_corpus(corpus: Path, folder: Path) -> Path:
    """`folder` with the corpus's filings and reference data linked, the fixture release added,
    and a manifest listing both."""
    folder.mkdir(parents=True, exist_ok=True)
    for name in ("filings", "reference"):
        link = folder / name
        if not link.exists():
            link.symlink_to((corpus / name).resolve(), target_is_directory=True)
    records = json.loads((corpus / "manifest.json").read_text(encoding="utf-8"))
    for path, source, kind, parent in (
        (NVDA_8K, "nvda-8k-2025-08-27.htm", "8-K", None),
        (NVDA_EX99, "nvda-ex99-1-2025-08-27.htm", "EX-99.1", NVDA_8K),
    ):
        target = folder / path
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(RELEASES / source, target)
        records.append(_record(path, kind, target.read_bytes(), parent))
    (folder / "manifest.json").write_text(json.dumps(records, indent=1), encoding="utf-8")
    return folder
