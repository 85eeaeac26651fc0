"""A folder of filing documents as a filing source, with the corpus `manifest.json` when there
is one (`FILINGS_CORPUS`)."""

from __future__ import annotations

import datetime as dt
import json
from pathlib import Path

from graphrag_core.common.dates import iso_date
from graphrag_core.common.errors import ConfigurationError, FilingError
from graphrag_core.common.ids import ACCESSION_RE, sha256_bytes, sha_filing_id
from graphrag_core.intake.discovery import unique_filings
from graphrag_core.intake.file_identity import accession_disagreement, content_facts
from graphrag_core.intake.reference import REFERENCE_DIR, ReferenceFolder
from graphrag_core.intake.sources import DOCUMENT_SUFFIXES
from graphrag_core.tables.records import DocumentRef, FilingRef


def read_local_document(doc: DocumentRef) -> bytes:
    path = Path(doc.location)
    try:
        return path.read_bytes()
    except FileNotFoundError as exc:
        raise FilingError(
            str(path),
            "document listed for this filing no longer exists",
            "restore the file or re-run discovery (`filings-graph ingest`) to refresh the catalog",
            field="location",
        ) from exc
    except IsADirectoryError as exc:
        raise FilingError(
            str(path), "path is a directory, not a document", "list files only"
        ) from exc


class LocalFolderSource:
    """A folder of filing documents, with the corpus `manifest.json` when there is one.

    With a manifest, exhibits listed with `exhibit_of` join their primary document's filing and
    the manifest's accession, CIK, ticker and dates seed the metadata. Without one, every
    document is a filing of its own and its metadata is read from the document itself; a file
    named like an accession takes it only when its content agrees (`file_identity`). A filing
    found twice (same filing id, or same bytes under another name) is offered once, and
    `discovery_warnings` says which file was skipped.
    """

    kind = "local"

    def __init__(self, root: Path | str):
        self.root = Path(root).expanduser().resolve()
        if not self.root.is_dir():
            raise ConfigurationError(
                f"FILINGS_CORPUS={root}: not a folder. Point it at a folder of filing documents "
                "(e.g. ../shared/corpus) or unset it to fetch from EDGAR"
            )
        self.discovery_warnings: list[str] = []

    # -- discovery ---------------------------------------------------------------------------
    def discover(self, since: dt.date | None = None) -> list[FilingRef]:
        self.discovery_warnings = []
        manifest = self.root / "manifest.json"
        if manifest.exists():
            refs = self._from_manifest(json.loads(manifest.read_text(encoding="utf-8")))
        else:
            refs = self._from_files()
        found = unique_filings(refs, root=self.root)
        self.discovery_warnings.extend(found.warnings)
        refs = found.refs
        if since is not None:
            # Local documents without a filing date are always offered (their date is unknown).
            refs = [r for r in refs if r.filed_date is None or r.filed_date >= since]
        return refs

    def _from_manifest(self, records: list[dict]) -> list[FilingRef]:
        by_path = {r["path"]: r for r in records}
        children: dict[str, list[dict]] = {}
        primaries: list[dict] = []
        for r in records:
            parent = r.get("exhibit_of")
            if parent and parent in by_path:
                children.setdefault(parent, []).append(r)
            else:
                primaries.append(r)
        refs = []
        for r in primaries:
            docs = [r, *sorted(children.get(r["path"], []), key=lambda c: c["path"])]
            refs.append(self._ref_from_records(docs))
        return sorted(refs, key=lambda ref: ref.filing_id)

    def _doc_ref(self, r: dict) -> DocumentRef:
        path = self.root / r["path"]
        return DocumentRef(
            document_type=r.get("document_type") or r.get("form") or "UNKNOWN",
            filename=path.name,
            location=str(path),
            sha256=r.get("sha256"),
            bytes=r.get("bytes"),
        )

    def _ref_from_records(self, docs: list[dict]) -> FilingRef:
        primary = docs[0]
        accession = primary.get("accession")
        if accession and not ACCESSION_RE.match(accession):
            accession = None
        sha = primary.get("sha256") or sha256_bytes((self.root / primary["path"]).read_bytes())
        return FilingRef(
            filing_id=accession or sha_filing_id(sha),
            source_kind="local",
            cik=primary.get("cik"),
            ticker=primary.get("ticker"),
            company=primary.get("company_name"),
            form=primary.get("form") or primary.get("document_type"),
            period_end=iso_date(primary.get("period_end")),
            filed_date=iso_date(primary.get("filed_date")),
            accession=accession,
            documents=tuple(self._doc_ref(d) for d in docs),
        )

    def _from_files(self) -> list[FilingRef]:
        refs = []
        registrants: dict[str, str] | None = None

        def known_registrants() -> dict[str, str]:
            nonlocal registrants
            if registrants is None:
                registrants = {
                    r["cik"]: r.get("title") or r["ticker"] for r in self.company_tickers()
                }
            return registrants

        for path in sorted(self.root.rglob("*")):
            if not path.is_file() or path.suffix.lower() not in DOCUMENT_SUFFIXES:
                continue
            if any(part.startswith(".") for part in path.relative_to(self.root).parts):
                continue
            data = path.read_bytes()
            sha = sha256_bytes(data)
            accession = path.stem if ACCESSION_RE.match(path.stem) else None
            if accession is not None:
                doubt = accession_disagreement(
                    accession,
                    content_facts(data, str(path)),
                    submissions=self.submissions,
                    registrants=known_registrants,
                )
                if doubt is not None:
                    self.discovery_warnings.append(
                        f"{path.relative_to(self.root)}: named like accession {accession}, but "
                        f"{doubt}; filed under its content key {sha_filing_id(sha)} instead "
                        "(list it in a manifest.json with its accession to override)"
                    )
                    accession = None
            refs.append(
                FilingRef(
                    filing_id=accession or sha_filing_id(sha),
                    source_kind="local",
                    accession=accession,
                    documents=(
                        DocumentRef(
                            document_type="UNKNOWN",
                            filename=path.name,
                            location=str(path),
                            sha256=sha,
                            bytes=len(data),
                        ),
                    ),
                )
            )
        return refs

    # -- fetching ----------------------------------------------------------------------------
    def fetch(self, ref: FilingRef) -> list[tuple[DocumentRef, bytes]]:
        return [(doc, read_local_document(doc)) for doc in ref.documents]

    # -- reference data ----------------------------------------------------------------------
    @property
    def reference(self) -> ReferenceFolder:
        """SEC's reference files of this corpus, in its `reference/` folder (when it has one)."""
        return ReferenceFolder(self.root / REFERENCE_DIR)

    def company_tickers(self) -> list[dict]:
        return self.reference.company_tickers()

    def submissions(self, cik: str) -> dict | None:
        return self.reference.submissions(cik)

    def reference_files(self, ciks: list[str]) -> list[Path]:
        """The files `company_tickers()` and `submissions(cik)` of these CIKs read (those that
        exist): what identifies the reference data they return (`reference_source`)."""
        return self.reference.files(ciks)

    def companyfacts(self, cik: str) -> dict | None:
        """SEC companyfacts JSON of a company from `reference/companyfacts/`, if the folder has
        it."""
        return self.reference.companyfacts(cik)
