"""Which chunk index a snapshot was published with: the LanceDB table and the version of it
that holds exactly the snapshot's chunks. The manifest carries it (and the snapshot's
`chunk_index` table repeats it), so the server reads one consistent snapshot-and-index pair.

A published snapshot records the index folder relative to the data root (`relative_to`), so a
data root copied or moved elsewhere searches its own index; `location` finds the folder under
the data root the snapshot is read from, also for snapshots that recorded an absolute path."""

from __future__ import annotations

import datetime as dt
from pathlib import Path, PurePosixPath

from pydantic import BaseModel, ConfigDict, Field


class ChunkIndexRef(BaseModel):
    model_config = ConfigDict(frozen=True)

    path: str = Field(
        description="folder of the LanceDB database: relative to the data root "
        "in a published snapshot (older ones: absolute)"
    )
    table: str
    version: int = Field(description="Lance table version: immutable once written")
    rows: int = Field(description="windows (each with its vector)")
    chunks: int
    model_id: str = Field(description="embedding model; queries must use the same one")
    dimensions: int
    keys_digest: str = Field(description="sha256 over the indexed chunks' keys")
    built_at: dt.datetime

    def relative_to(self, data_root: Path) -> ChunkIndexRef:
        """This ref with its folder relative to `data_root` (when the folder is under it)."""
        path = Path(self.path)
        if not path.is_absolute():
            return self
        try:
            relative = path.resolve().relative_to(Path(data_root).resolve())
        except ValueError:  # an index kept outside the data root stays where it is
            return self
        return self.model_copy(update={"path": relative.as_posix() or "."})

    def location(self, data_root: Path) -> Path:
        """The index folder of a snapshot read from `data_root`. A relative path is taken under
        `data_root` (and must stay inside it). An absolute one (snapshots published before
        paths were relative) is looked for under `data_root` first, by its trailing parts
        (`/old/root/chunk_index` → `<data root>/chunk_index`), so a copied data root searches
        its own copy; only when none is there is the recorded folder used."""
        root = Path(data_root).resolve()
        path = Path(self.path)
        if not path.is_absolute():
            inside = (root / PurePosixPath(self.path)).resolve()
            if not inside.is_relative_to(root):
                raise ValueError(
                    f"the snapshot's chunk index path {self.path!r} leads outside the data root "
                    f"{root}; publish a new snapshot (materialize chunk_index and graph_snapshot)"
                )
            return inside
        parts = path.parts[1:]
        for n in range(1, len(parts) + 1):
            candidate = root.joinpath(*parts[-n:])
            if (candidate / f"{self.table}.lance").is_dir():
                return candidate
        return path
