#!/usr/bin/env python
"""Section labels of every primary document of the corpus, as JSON, to compare two checkouts.

Runs what `chunk_filing` runs to choose a primary document's sections (`decode_document` →
`parse_markup` → `detect_sections`, then the inferred-sections fallback where this checkout has
one) and prints `{filing: [[label, first_block, last_block], ...]}`. Diff the output of two
checkouts to see which filings' sections a change to the section finder moved.

    FILINGS_CORPUS=../shared/corpus .venv/bin/python bench/section_labels.py > labels.json

`--small`: the same on a few small filings (bench/_small.py), for the test suite.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
if str(REPO) not in sys.path:
    sys.path.insert(0, str(REPO))

from graphrag_core.intake.local_folder import LocalFolderSource
from graphrag_core.settings import ParseSettings
from graphrag_core.text.documents import decode_document
from graphrag_core.text.parsing import parse_markup
from graphrag_core.text.sections import detect_sections

try:  # absent in checkouts older than issue 22
    from graphrag_core.text.inferred_sections import with_inferred_sections
except ImportError:  # pragma: no cover - only when measuring an older checkout
    with_inferred_sections = None


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--small", action="store_true", help="a few small filings (seconds)")
    args = parser.parse_args(argv)
    root = Path(os.environ.get("FILINGS_CORPUS") or REPO.parent / "shared" / "corpus")
    if args.small:
        from bench._small import corpus_subset, work_folder

        with work_folder("section-labels") as tmp:
            labels(corpus_subset(root, tmp / "corpus"))
    else:
        labels(root)


def labels(root: Path) -> None:
    parse = ParseSettings()
    out: dict[str, list[list[object]]] = {}
    for ref in LocalFolderSource(root).discover():
        first = ref.documents[0]
        doc_type = first.document_type or ref.form or "UNKNOWN"
        if doc_type.upper().startswith("EX-") or (ref.form or "").upper() == "TRANSCRIPT":
            continue
        decoded = decode_document(Path(first.location).read_bytes(), first.location, parse)
        blocks = parse_markup(decoded.markup, decoded.is_html).blocks
        sections, _w = detect_sections(blocks, ref.form)
        if with_inferred_sections is not None:
            sections, _w = with_inferred_sections(blocks, ref.form, sections)
        key = f"{ref.ticker} {ref.form} {first.filename}"
        out[key] = [[s.label, s.first, s.last] for s in sections]
    json.dump(out, sys.stdout, indent=1, sort_keys=True)


if __name__ == "__main__":
    main()
