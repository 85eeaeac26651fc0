"""Which chunk index a snapshot was published with: the LanceDB table and the version of it
that holds exactly the snapshot's chunks. The manifest carries it (and the snapshot's
`chunk_index` table repeats it), so the server reads one consistent snapshot-and-index pair."""

from __future__ import annotations

import datetime as dt

from pydantic import BaseModel, ConfigDict, Field


class ChunkIndexRef(BaseModel):
    model_config = ConfigDict(frozen=True)

    path: str = Field(description="folder of the LanceDB database (under the data root)")
    table: str
    version: int = Field(description="Lance table version: immutable once written")
    rows: int = Field(description="windows (each with its vector)")
    chunks: int
    model_id: str = Field(description="embedding model; queries must use the same one")
    dimensions: int
    keys_digest: str = Field(description="sha256 over the indexed chunks' keys")
    built_at: dt.datetime
