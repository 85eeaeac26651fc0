"""The Parquet store every stage reads and writes its working tables through.

The root is a local folder (the data root) or an fsspec URL (`s3://bucket/prefix`,
`gs://…`, `memory://…`, set with GRAPHRAG_TABLES_URL): a local root writes through a temporary
file and a rename; an object store replaces an object in one PUT, which is atomic too.

Layout under the root:

    tables/<table>/<partition>.parquet   per-filing tables (partition = filing id)
    tables/<table>/_all.parquet          whole-corpus tables
    raw/<filing id>/<filename>           documents as fetched
    text/<filing id>.txt                 the filing's normalized text (chunk spans index into it)

Every path is guarded where it is made (graphrag_core.common.paths): a filing id must be one
(`require_filing_id`), a table or partition name one path component, and what is written or
deleted must resolve, links included, to a place inside the root.
"""

from __future__ import annotations

import io
import os
import tempfile
from collections.abc import Iterable
from pathlib import Path
from typing import cast

import polars as pl
from upath import UPath

from graphrag_core.common.atomic import write_atomic
from graphrag_core.common.ids import require_filing_id
from graphrag_core.common.paths import confine, safe_name
from graphrag_core.tables.schemas import ADDED_COLUMNS, SCHEMAS, conform, empty, with_added_columns

UNPARTITIONED = "_all"


def storage_path(root: Path | str) -> Path:
    """A local `Path`, or a `UPath` for an fsspec URL (anything with a scheme but file://)."""
    text = str(root)
    if "://" in text and not text.startswith("file://"):
        # UPath implements pathlib's API over fsspec; everything here uses only that API.
        return cast(Path, UPath(text))
    return Path(text.removeprefix("file://"))


class TableStore:
    """Parquet tables under one root; writes are atomic (temp file + rename, or one PUT)."""

    def __init__(self, root: Path | str):
        self.root = storage_path(root)
        self.local = not isinstance(self.root, UPath)

    # -- paths -------------------------------------------------------------------------------
    def table_dir(self, table: str) -> Path:
        return self.root / "tables" / safe_name(table, "table")

    def partition_path(self, table: str, partition: str | None) -> Path:
        """None is the whole-corpus partition; a name is never empty (an empty filing id must
        not mean `_all`)."""
        name = UNPARTITIONED if partition is None else safe_name(partition, "partition")
        return self.table_dir(table) / f"{name}.parquet"

    def raw_dir(self, filing_id: str) -> Path:
        return self.root / "raw" / require_filing_id(filing_id)

    def text_path(self, filing_id: str) -> Path:
        return self.root / "text" / f"{require_filing_id(filing_id)}.txt"

    def confine(self, path: Path) -> Path:
        """`path` when it lies inside the root (links resolved), else UnsafePathError."""
        return confine(self.root, path, local=self.local)

    # -- writes ------------------------------------------------------------------------------
    def write(self, table: str, df: pl.DataFrame, partition: str | None = None) -> Path:
        schema = SCHEMAS.get(table)
        if schema is not None:
            df = conform(df, schema)
        path = self.confine(self.partition_path(table, partition))
        path.parent.mkdir(parents=True, exist_ok=True)
        if not self.local:
            buffer = io.BytesIO()
            df.write_parquet(buffer, compression="zstd", statistics=True)
            path.write_bytes(buffer.getvalue())
            return path
        fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=".tmp-", suffix=".parquet")
        os.close(fd)
        try:
            df.write_parquet(tmp, compression="zstd", statistics=True)
            os.replace(tmp, path)
        except BaseException:
            Path(tmp).unlink(missing_ok=True)
            raise
        return path

    def write_bytes(self, path: Path, data: bytes) -> Path:
        path = self.confine(path)
        if not self.local:
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_bytes(data)
            return path
        return write_atomic(path, data)

    def write_text(self, filing_id: str, text: str) -> Path:
        return self.write_bytes(self.text_path(filing_id), text.encode("utf-8"))

    def delete_partition(self, table: str, partition: str) -> None:
        self.confine(self.partition_path(table, partition)).unlink(missing_ok=True)

    def filing_files(self, filing_id: str) -> list[Path]:
        """A filing's raw documents (with their folders, deepest first) and normalized text:
        what `delete_filing_files` removes. Each is checked to lie inside the root with its
        links resolved, all before anything is removed, so a link that leads out of the root
        refuses the whole removal instead of its second half."""
        raw, text = self.raw_dir(filing_id), self.text_path(filing_id)
        found: list[Path] = []
        if self.local:
            if raw.is_symlink() or raw.exists():
                # Bottom-up without following links: a linked folder is one entry, checked (and
                # refused when it leads out) rather than walked into.
                for folder, dirs, files in os.walk(raw, topdown=False, followlinks=False):
                    found.extend(Path(folder) / name for name in (*files, *dirs))
                found.append(raw)
            if text.is_symlink() or text.exists():
                found.append(text)
        else:
            if raw.exists():
                found.extend(p for p in sorted(raw.rglob("*"), reverse=True) if p.is_file())
            if text.exists():
                found.append(text)
        return [self.confine(path) for path in found]

    def delete_filing_files(self, filing_id: str) -> list[str]:
        """Remove a filing's raw documents and normalized text (`filing_files`, all checked
        first); returns the files removed."""
        removed = []
        for path in self.filing_files(filing_id):
            if self.local and path.is_dir() and not path.is_symlink():
                path.rmdir()
            else:
                removed.append(str(path))
                path.unlink()
        return removed

    # -- reads -------------------------------------------------------------------------------
    def exists(self, table: str, partition: str | None = None) -> bool:
        return self.partition_path(table, partition).exists()

    def read(self, table: str, partition: str | None = None) -> pl.DataFrame:
        path = self.partition_path(table, partition)
        if not path.exists():
            raise FileNotFoundError(
                f"{path}: table {table!r} has no partition {partition or UNPARTITIONED!r}; "
                "materialize the upstream asset first"
            )
        frame = pl.read_parquet(path if self.local else path.read_bytes())
        return with_added_columns(frame, table, SCHEMAS.get(table, {}))

    def tables(self) -> list[str]:
        """Every table with a folder in the store."""
        directory = self.root / "tables"
        if not directory.is_dir():
            return []
        return sorted(
            p.name for p in directory.iterdir() if p.is_dir() and not p.name.startswith(".")
        )

    def partitions(self, table: str) -> list[str]:
        directory = self.table_dir(table)
        if not directory.is_dir():
            return []
        return sorted(p.stem for p in directory.glob("*.parquet") if not p.name.startswith("."))

    def scan(self, table: str, partitions: Iterable[str] | None = None) -> pl.LazyFrame:
        """All partitions of a table as one lazy frame (empty frame with the schema if none)."""
        keys = self.partitions(table) if partitions is None else list(partitions)
        paths = [self.partition_path(table, k) for k in keys]
        paths = [p for p in paths if p.exists()]
        if not paths:
            return empty(SCHEMAS.get(table, {})).lazy()
        if not self.local:
            frames = [pl.read_parquet(p.read_bytes()) for p in paths]
            schema = SCHEMAS.get(table, {})
            return pl.concat(
                [with_added_columns(f, table, schema) for f in frames], how="diagonal_relaxed"
            ).lazy()
        if table in ADDED_COLUMNS:
            # Partitions written before a column was appended read it as null.
            return pl.scan_parquet(paths, schema=dict(SCHEMAS[table]), missing_columns="insert")
        return pl.scan_parquet(paths)

    def read_text(self, filing_id: str) -> str:
        return self.text_path(filing_id).read_text(encoding="utf-8")
