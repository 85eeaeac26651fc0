"""The two listings EDGAR keeps in every filing folder, parsed.

`{accession}-index.htm` is the page people see: its "Document Format Files" table has one row per
document with the EDGAR document type (`10-K`, `EX-99.1`, `GRAPHIC`, ...), which is the only place
the type of an exhibit is given; a second "Data Files" table lists XBRL files (`EX-101.INS`, ...).
`index.json` is a plain directory listing (name, size, last-modified); its `type` field is the
name of an icon (`text.gif`), not a document type, so it cannot tell an exhibit from a graphic.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Literal
from urllib.parse import parse_qs, urljoin, urlsplit

import lxml.etree
import lxml.html

from graphrag_core.common.errors import FilingError
from graphrag_core.common.numbers import to_int

IndexTable = Literal["document", "data"]

# Table summaries on the index page, mapped to which table a row came from.
_TABLES: dict[str, IndexTable] = {"Document Format Files": "document", "Data Files": "data"}


@dataclass(frozen=True)
class IndexDocument:
    """One row of a filing's index page."""

    seq: int | None
    description: str
    filename: str
    document_type: str
    size: int | None
    url: str
    table: IndexTable


@dataclass(frozen=True)
class FilingIndex:
    """The documents of one filing, in the order EDGAR lists them (primary document first)."""

    cik: str
    accession: str
    url: str
    documents: tuple[IndexDocument, ...]

    def by_type(self, document_type: str) -> list[IndexDocument]:
        wanted = document_type.upper()
        return [d for d in self.documents if d.document_type.upper() == wanted]

    def by_filename(self, filename: str) -> IndexDocument | None:
        return next((d for d in self.documents if d.filename == filename), None)


@dataclass(frozen=True)
class DirectoryItem:
    """One entry of a filing folder's `index.json`."""

    name: str
    size: int | None
    last_modified: str | None
    url: str


def _document_href(href: str) -> str:
    """The Archives path behind a link; inline XBRL documents link through the viewer
    (`/ix?doc=/Archives/...`), whose `doc` parameter is the document itself."""
    parts = urlsplit(href)
    doc = parse_qs(parts.query).get("doc")
    return doc[0] if doc else href


def _cell_text(cell) -> str:
    return " ".join(cell.text_content().split())


def parse_index_page(
    body: bytes, *, page_url: str, folder_url: str, cik: str, accession: str
) -> FilingIndex:
    """Rows of the document tables of an `-index.htm` page.

    Only links inside the filing's own folder are kept: the page is SEC's, but a row pointing
    elsewhere would make us fetch a document of another filing under this one's id.
    """
    try:
        tree = lxml.html.fromstring(body)
    except (ValueError, lxml.etree.ParserError) as exc:
        raise FilingError(
            page_url,
            f"filing index page is not HTML ({exc})",
            "re-run; if it persists, open the page in a browser to see what SEC serves",
        ) from exc
    folder_path = urlsplit(folder_url).path.rstrip("/") + "/"
    documents: list[IndexDocument] = []
    for table in tree.xpath("//table[@summary]"):
        kind = _TABLES.get(table.get("summary", "").strip())
        if kind is None:
            continue
        for row in table.xpath(".//tr[td]"):
            cells = row.xpath("./td")
            links = cells[2].xpath(".//a[@href]") if len(cells) >= 5 else []
            if not links:
                continue
            url = urljoin(page_url, _document_href(links[0].get("href")))
            path = urlsplit(url).path
            if not path.startswith(folder_path):
                continue
            documents.append(
                IndexDocument(
                    seq=to_int(_cell_text(cells[0])),
                    description=_cell_text(cells[1]),
                    filename=path.rsplit("/", 1)[-1],
                    document_type=_cell_text(cells[3]),
                    size=to_int(_cell_text(cells[4])),
                    url=url,
                    table=kind,
                )
            )
    if not documents:
        raise FilingError(
            page_url,
            "filing index page has no 'Document Format Files' table with document links",
            "open the page in a browser: if SEC changed its layout, update "
            "graphrag_core/edgar/index.py; if the filing is a paper filing, it has no documents",
            field="Document Format Files",
        )
    return FilingIndex(cik=cik, accession=accession, url=page_url, documents=tuple(documents))


def parse_directory_listing(
    body: bytes, *, listing_url: str, folder_url: str
) -> list[DirectoryItem]:
    """Entries of a filing folder's `index.json` (`{"directory": {"item": [...]}}`)."""
    try:
        items = json.loads(body)["directory"]["item"]
    except (ValueError, KeyError, TypeError) as exc:
        raise FilingError(
            listing_url,
            f"not an EDGAR directory listing ({exc.__class__.__name__}: {exc})",
            "check EDGAR_ARCHIVES_BASE_URL points at www.sec.gov or a faithful mirror",
            field="directory.item",
        ) from exc
    base = folder_url.rstrip("/") + "/"
    return [
        DirectoryItem(
            name=item["name"],
            size=to_int(str(item.get("size") or "")),
            last_modified=item.get("last-modified"),
            url=urljoin(base, item["name"]),
        )
        for item in items
        if item.get("name")
    ]
