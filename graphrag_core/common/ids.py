"""Identifiers: content hashes, CIKs, accession numbers, company keys.

Ids come from content, never from enumeration order, so they are stable across runs and
snapshots and a citation stays valid after a rebuild. Every stage makes its ids here.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Iterable
from pathlib import Path

from graphrag_core.common.errors import FilingError

# ASCII digits only and no trailing newline (`\d` takes any script's digits, `$` a final "\n"):
# a filing id becomes a file name.
ACCESSION_RE = re.compile(r"^[0-9]{10}-[0-9]{2}-[0-9]{6}\Z")
SHA_FILING_ID_RE = re.compile(r"^sha-[0-9a-f]{16}\Z")
CIK_RE = re.compile(r"^\d{10}$")

# Parts of a content key are joined with the ASCII unit separator, which no part contains.
_SEPARATOR = "\x1f"


def sha256_bytes(data: bytes) -> str:
    """Hex SHA-256 of `data`."""
    return hashlib.sha256(data).hexdigest()


def sha256_text(text: str) -> str:
    """Hex SHA-256 of `text` encoded as UTF-8."""
    return sha256_bytes(text.encode("utf-8"))


def sha256_stream(parts: Iterable[bytes | str]) -> str:
    """Hex SHA-256 over a stream of parts (str as UTF-8), without joining them in memory."""
    h = hashlib.sha256()
    for part in parts:
        h.update(part.encode("utf-8") if isinstance(part, str) else part)
    return h.hexdigest()


def file_sha256(path: Path | str, chunk: int = 1 << 20) -> str:
    """Hex SHA-256 of a file, read in chunks."""
    with open(path, "rb") as fh:
        return sha256_stream(iter(lambda: fh.read(chunk), b""))


def content_hash(*parts: object, length: int = 16) -> str:
    """The first `length` hex digits of SHA-256 over the parts (as `str`), unit-separated.

    16 digits (64 bits) for row ids inside one filing's namespace, 24 where ids span the
    corpus; the length is part of an id's format, so it never changes for an existing id."""
    if not 1 <= length <= 64:
        raise ValueError(f"length must be 1..64 hex digits, not {length}")
    key = _SEPARATOR.join(str(p) for p in parts)
    return sha256_text(key)[:length]


def normalize_cik(value: str | int | None) -> str | None:
    """Zero-padded 10-digit CIK, or None. Accepts `320193`, `0000320193`, `CIK-0000320193`."""
    if value is None:
        return None
    digits = re.sub(r"\D", "", str(value))
    if not digits or len(digits) > 10:
        return None
    return digits.zfill(10)


def require_cik(value: str | int) -> str:
    """`normalize_cik`, raising a ValueError that shows the expected form."""
    cik = normalize_cik(value)
    if cik is None:
        raise ValueError(f"not a CIK: {value!r} (want up to 10 digits, e.g. 320193 or 0000320193)")
    return cik


def company_key(cik: str | int) -> str:
    """Canonical company entity id, e.g. `CIK-0001045810`."""
    return f"CIK-{require_cik(cik)}"


def normalize_accession(accession: str) -> str:
    """`0001045810-25-000023` from itself or from the 18 digits EDGAR uses in folder names."""
    digits = re.sub(r"\D", "", accession)
    candidate = f"{digits[:10]}-{digits[10:12]}-{digits[12:]}" if len(digits) == 18 else accession
    if not ACCESSION_RE.match(candidate):
        raise ValueError(
            f"not an EDGAR accession number: {accession!r} (want 0001045810-25-000023)"
        )
    return candidate


def sha_filing_id(sha256_hex: str) -> str:
    """Partition key of a local file with no accession number."""
    return f"sha-{sha256_hex[:16]}"


def is_filing_id(value: object) -> bool:
    """An EDGAR accession number or `sha-` + 16 lower-case hex digits, exactly."""
    return isinstance(value, str) and bool(
        ACCESSION_RE.match(value) or SHA_FILING_ID_RE.match(value)
    )


def require_filing_id(value: object) -> str:
    """`value` when it is a filing id (`is_filing_id`), else a FilingError showing the forms.

    Filing ids name files and folders under the data root (raw/<id>/, text/<id>.txt,
    tables/<table>/<id>.parquet, catalog/<id>.json): every path built from one is checked here
    first, so an empty id, a path or `..` never reaches the file system."""
    if is_filing_id(value):
        return str(value)
    shown = repr(value) if len(repr(value)) <= 80 else repr(value)[:77] + "..."
    raise FilingError(
        shown,
        "an empty filing id" if value == "" else "not a filing id",
        "give the partition key exactly as `filings-graph status` or the Dagster UI lists it: "
        "an EDGAR accession number like 0001045810-25-000023, or sha- plus 16 lower-case hex "
        "digits like sha-0123456789abcdef",
        field="filing_id",
    )
