"""The chunk index: one LanceDB table whose rows are windows of the snapshot's chunks, each with
its vector, its text (under the chunk's heading) for the full-text index, and the filters a
search applies (company, form, section, kind, period).

    <data root>/chunk_index/
        chunks.lance/       the table; every change is a new, immutable Lance version
        CURRENT.json        the version last completed (vectors and full-text index written)

Incremental: a chunk's `key` hashes its text, its heading, the model and the windowing, so a
rebuild embeds only chunks that are new or changed and deletes rows of chunks that are gone;
when nothing changed no version is written. A snapshot records the version it was published
with (`ChunkIndexRef`), and the server reads the table checked out at exactly that version, so
a snapshot and its index are always one consistent pair; old versions stay readable until the
snapshots that name them are pruned.
"""

from __future__ import annotations

import datetime as dt
import json
import logging
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import polars as pl
import pyarrow as pa

from graphrag_core.common.atomic import write_atomic
from graphrag_core.common.ids import company_key, content_hash, sha256_stream
from graphrag_core.retrieval.embedding_model import Embedder
from graphrag_core.retrieval.sections import heading, section_title
from graphrag_core.settings import RetrievalSettings
from graphrag_core.store.chunk_index_ref import ChunkIndexRef
from graphrag_core.text.markdown_tables import NUMERIC_CELL

log = logging.getLogger(__name__)

TABLE = "chunks"
CURRENT_FILE = "CURRENT.json"
# Bump when the rows' text or layout changes: every key changes, so everything is re-embedded.
# 2: windows of 128 word pieces, a table one row with the vector of its digest.
INDEX_FORMAT = 2
FTS_COLUMN = "text"  # the windows' text under their chunk's heading
_DELETE_BATCH = 500
_EMBED_BATCH = 512  # windows per embedding call (progress is logged per batch)

Progress = Callable[[str], None]


def index_dir(data_root: Path, settings: RetrievalSettings) -> Path:
    return Path(data_root) / settings.index_dir


def _schema(dimensions: int) -> pa.Schema:
    return pa.schema(
        [
            ("row_id", pa.string()),
            ("key", pa.string()),
            ("chunk_id", pa.string()),
            ("window", pa.int32()),
            ("windows", pa.int32()),
            ("filing_id", pa.string()),
            ("company_id", pa.string()),
            ("company", pa.string()),
            ("ticker", pa.string()),
            ("form", pa.string()),
            ("section", pa.string()),
            ("section_title", pa.string()),
            ("kind", pa.string()),
            ("fiscal_year", pa.int32()),
            ("fiscal_period", pa.string()),
            ("period_end", pa.date32()),
            ("filed_date", pa.date32()),
            ("char_start", pa.int32()),
            ("char_end", pa.int32()),
            ("text", pa.string()),
            ("vector", pa.list_(pa.float32(), dimensions)),
        ]
    )


def index_input(chunks: pl.DataFrame, filings: pl.DataFrame) -> pl.DataFrame:
    """Chunks joined to their filing's company, form and period; chunks of filings that are not
    in `filings` are left out (as the snapshot leaves them out)."""
    cols = [
        "filing_id",
        "cik",
        "company",
        "ticker",
        "form",
        "fiscal_year",
        "fiscal_period",
        "period_end",
        "filed_date",
    ]
    meta = filings.select([c for c in cols if c in filings.columns]).unique("filing_id")
    return (
        chunks.select("chunk_id", "filing_id", "section", "kind", "text", "sha256")
        .join(meta, on="filing_id", how="inner")
        .sort("chunk_id")
    )


def chunk_key(row: dict, model_id: str, settings: RetrievalSettings) -> str:
    head = heading(row.get("company"), row.get("form"), row.get("section"), row.get("kind"))
    return content_hash(
        INDEX_FORMAT,
        model_id,
        settings.window_tokens,
        settings.window_stride,
        head,
        row.get("sha256") or content_hash(row.get("text") or ""),
        row.get("fiscal_year"),
        row.get("fiscal_period"),
        row.get("period_end"),
        row.get("filed_date"),
        # A table's vector comes from its digest: a change of digest length re-embeds tables only.
        *(
            (("table_digest", settings.table_vector_tokens),)
            if row.get("kind") == "table" and settings.table_vector_tokens
            else ()
        ),
        length=24,
    )


@dataclass(frozen=True)
class IndexUpdate:
    ref: ChunkIndexRef
    embedded_chunks: int
    embedded_windows: int
    deleted_chunks: int
    seconds: float
    embed_seconds: float  # embedding the windows
    embedded_sentences: int = 0
    sentence_seconds: float = 0.0  # embedding the prose chunks' sentences

    @property
    def changed(self) -> bool:
        return bool(self.embedded_chunks or self.deleted_chunks)

    def figures(self) -> dict[str, object]:
        return {
            "version": self.ref.version,
            "chunks": self.ref.chunks,
            "rows": self.ref.rows,
            "embedded_chunks": self.embedded_chunks,
            "embedded_windows": self.embedded_windows,
            "embedded_sentences": self.embedded_sentences,
            "deleted_chunks": self.deleted_chunks,
            "seconds": round(self.seconds, 1),
            "chunks_per_s": round(self.embedded_chunks / self.embed_seconds, 1)
            if self.embed_seconds
            else None,
        }


def _window_rows(
    frame: pl.DataFrame, embedder: Embedder, settings: RetrievalSettings
) -> tuple[list[dict], list[str]]:
    """One row per window of each chunk (without vectors) and the texts to embed.

    A table chunk is one row whatever its length (settings.table_vector_tokens > 0): its whole
    text goes to the full-text index, where its figures and row labels are found word for word,
    and its vector is made from a short digest (caption, headers, row labels; no figures), which
    is what a question about a table means. Tables are 30% of the corpus's windows and mostly
    figures, so this cuts the embedding work by about a quarter (bench/retrieval.py measures
    hit@8 either way)."""
    rows: list[dict] = []
    texts: list[str] = []
    head_tokens: dict[str, int] = {}
    count = getattr(embedder, "count_tokens", None)
    digest_tokens = settings.table_vector_tokens
    for r in frame.iter_rows(named=True):
        head = heading(r["company"], r["form"], r["section"], r["kind"])
        if head not in head_tokens:
            head_tokens[head] = count(head) + 1 if callable(count) else 16
        text = r["text"] or ""
        if not text:
            continue
        spans: list[tuple[int, int, str]]  # (start, end, text embedded)
        if r["kind"] == "table" and digest_tokens:
            digest = table_digest(text)
            cut = embedder.windows(
                digest, head_tokens[head] + max(settings.window_tokens - digest_tokens, 0)
            )
            spans = [(0, len(text), f"{head}\n{digest[: cut[0].end] if cut else digest}")]
        else:
            spans = [
                (w.start, w.end, f"{head}\n{text[w.start : w.end]}")
                for w in embedder.windows(text, head_tokens[head])
            ]
        for n, (start, end, embedded) in enumerate(spans):
            rows.append(
                {
                    "row_id": f"{r['chunk_id']}#{n}",
                    "key": r["key"],
                    "chunk_id": r["chunk_id"],
                    "window": n,
                    "windows": len(spans),
                    "filing_id": r["filing_id"],
                    "company_id": company_key(r["cik"]) if r.get("cik") else None,
                    "company": r.get("company"),
                    "ticker": r.get("ticker"),
                    "form": r.get("form"),
                    "section": r["section"],
                    "section_title": section_title(r["section"]),
                    "kind": r["kind"],
                    "fiscal_year": r.get("fiscal_year"),
                    "fiscal_period": r.get("fiscal_period"),
                    "period_end": r.get("period_end"),
                    "filed_date": r.get("filed_date"),
                    "char_start": start,
                    "char_end": end,
                    "text": f"{head}\n{text[start:end]}",
                    "embed": embedded,
                }
            )
            texts.append(embedded)
    return rows, texts


def table_digest(text: str) -> str:
    """What a table is about, without its figures: caption lines as they are, then each row's
    cells that hold words (headers, row labels, units), one row per line."""
    lines: list[str] = []
    seen: set[str] = set()
    for line in text.split("\n"):
        stripped = line.strip()
        if not stripped.startswith("|"):
            if stripped:
                lines.append(stripped)
            continue
        cells = [c.strip() for c in stripped.strip("|").split("|")]
        words = [c for c in cells if c and not NUMERIC_CELL.match(c)]
        row = " · ".join(dict.fromkeys(words))
        if row and row not in seen:
            seen.add(row)
            lines.append(row)
    return "\n".join(lines)


def read_current(directory: Path) -> ChunkIndexRef | None:
    try:
        return ChunkIndexRef.model_validate_json(
            (directory / CURRENT_FILE).read_text(encoding="utf-8")
        )
    except FileNotFoundError:
        return None


def update_index(
    data_root: Path,
    chunks: pl.DataFrame,
    filings: pl.DataFrame,
    embedder: Embedder,
    settings: RetrievalSettings,
    *,
    progress: Progress | None = None,
) -> IndexUpdate:
    """Bring the index in line with `chunks`: embed new or changed chunks, delete gone ones,
    rebuild the full-text index when anything changed, and record the version in CURRENT.json."""
    import lancedb

    say = progress or log.info
    started = time.perf_counter()
    directory = index_dir(data_root, settings)
    directory.mkdir(parents=True, exist_ok=True)
    frame = index_input(chunks, filings)
    keys = [chunk_key(r, embedder.model_id, settings) for r in frame.iter_rows(named=True)]
    frame = frame.with_columns(pl.Series("key", keys, dtype=pl.String))
    db = lancedb.connect(str(directory))
    table = db.open_table(TABLE) if TABLE in db.list_tables().tables else None
    existing: set[str] = set()
    if table is not None:
        rows_now = table.count_rows()
        if rows_now:
            keys_now = table.search().select(["key"]).limit(rows_now).to_arrow().column("key")
            existing = set(keys_now.to_pylist())
    wanted = set(keys)
    stale = sorted(existing - wanted)
    todo = frame.filter(~pl.col("key").is_in(list(existing)))
    rows, texts = _window_rows(todo, embedder, settings)
    say(
        f"chunk index: {frame.height} chunks, {todo.height} to embed ({len(texts)} windows), "
        f"{len(stale)} stale keys to delete"
    )
    embed_started = time.perf_counter()
    # Batches end at chunk boundaries and are written as they are embedded: a build that is
    # stopped half-way keeps what it embedded (those chunks' keys are in the table), and the
    # next run embeds only the rest.
    written = 0
    for part in _chunk_batches(rows, _EMBED_BATCH):
        vectors = embedder.embed([r["embed"] for r in part])
        batch = pa.Table.from_batches([_batch(part, vectors)])
        if table is None:
            table = db.create_table(TABLE, data=batch)
        else:
            table.add(batch)
        written += len(part)
        rate = written / max(time.perf_counter() - embed_started, 1e-9)
        say(f"  embedded {written}/{len(texts)} windows ({rate:.1f}/s)")
    embed_seconds = time.perf_counter() - embed_started if texts else 0.0
    changed = bool(written or stale)
    if table is not None and stale:
        for i in range(0, len(stale), _DELETE_BATCH):
            quoted = ", ".join(
                "'" + k.replace("'", "''") + "'" for k in stale[i : i + _DELETE_BATCH]
            )
            table.delete(f"key IN ({quoted})")
    sentences, sentence_seconds = 0, 0.0
    if settings.sentence_vectors:
        from graphrag_core.retrieval.sentence_index import update_sentences

        sentences, sentence_seconds = update_sentences(
            db, frame, embedder, stale, say, settings.table_row_vectors
        )
    current = read_current(directory)
    if table is None:
        table = db.create_table(TABLE, schema=_schema(max(embedder.dimensions, 1)))
        changed = True
    if changed or current is None or current.version != table.version:
        _build_indexes(table, settings)
        ref = _ref(directory, table, frame, embedder)
        write_atomic(directory / CURRENT_FILE, ref.model_dump_json(indent=2).encode())
    elif Path(current.path).resolve() != directory.resolve():
        # A copied index folder still names the folder it was built in; left so, searches
        # would read that one (and not the sentence vectors added here).
        ref = current.model_copy(update={"path": str(directory.resolve())})
        write_atomic(directory / CURRENT_FILE, ref.model_dump_json(indent=2).encode())
    else:
        ref = current
    return IndexUpdate(
        ref=ref,
        embedded_chunks=todo.height,
        embedded_windows=len(texts),
        embedded_sentences=sentences,
        sentence_seconds=sentence_seconds,
        deleted_chunks=len(stale),
        seconds=time.perf_counter() - started,
        embed_seconds=embed_seconds,
    )


def _chunk_batches(rows: list[dict], size: int) -> list[list[dict]]:
    """Rows (windows in chunk order) in batches of about `size` that never split a chunk."""
    batches: list[list[dict]] = []
    current: list[dict] = []
    for row in rows:
        if len(current) >= size and row["window"] == 0:
            batches.append(current)
            current = []
        current.append(row)
    if current:
        batches.append(current)
    return batches


def _batch(rows: list[dict], vectors: np.ndarray) -> pa.RecordBatch:
    dimensions = int(vectors.shape[1])
    schema = _schema(dimensions)
    flat = np.ascontiguousarray(vectors, dtype=np.float32).ravel()
    vector = pa.FixedSizeListArray.from_arrays(pa.array(flat, type=pa.float32()), dimensions)
    arrays = [
        vector
        if name == "vector"
        else pa.array([r[name] for r in rows], type=schema.field(name).type)
        for name in schema.names
    ]
    return pa.RecordBatch.from_arrays(arrays, schema=schema)


def _build_indexes(table, settings: RetrievalSettings) -> None:
    """Full-text index over the windows' text (with the heading), scalar indexes for the
    filters, and an ANN index on the vectors once the table is large enough for exact search
    to be slow."""
    rows = table.count_rows()
    if rows == 0:
        return
    from lancedb.index import FTS, BTree, IvfFlat

    table.create_index(FTS_COLUMN, config=FTS(with_position=False), replace=True)
    for column in ("company_id", "form", "chunk_id"):
        table.create_index(column, config=BTree(), replace=True)
    if rows >= settings.ann_min_rows:
        partitions = max(int(np.sqrt(rows)), 16)
        # IVF_FLAT: exact distances inside the probed partitions, and the cheapest index to
        # build on a small machine (bench/retrieval.py measures its latency at 400,000 chunks).
        table.create_index(
            "vector",
            config=IvfFlat(distance_type="cosine", num_partitions=partitions),
            replace=True,
        )


def _ref(directory: Path, table, frame: pl.DataFrame, embedder: Embedder) -> ChunkIndexRef:
    keys = frame.get_column("key").sort().to_list()
    return ChunkIndexRef(
        path=str(directory.resolve()),
        table=TABLE,
        version=int(table.version),
        rows=int(table.count_rows()),
        chunks=frame.height,
        model_id=embedder.model_id,
        dimensions=int(embedder.dimensions),
        keys_digest=sha256_stream(k + "\n" for k in keys),
        built_at=dt.datetime.now(dt.UTC),
    )


def prune_versions(directory: Path, keep_from: int) -> None:
    """Remove table versions older than `keep_from` (the oldest version a retained snapshot
    names); the current one is never removed."""
    import lancedb

    db = lancedb.connect(str(directory))
    if TABLE not in db.list_tables().tables:
        return
    table = db.open_table(TABLE)
    versions = {v["version"]: v["timestamp"] for v in table.list_versions()}
    if keep_from not in versions:
        return
    stamp = versions[keep_from]
    now = dt.datetime.now(stamp.tzinfo) if getattr(stamp, "tzinfo", None) else dt.datetime.now()
    age = now - stamp
    if age.total_seconds() > 1:
        table.cleanup_old_versions(older_than=age - dt.timedelta(seconds=1))


def describe(ref: ChunkIndexRef) -> str:
    return json.dumps(ref.model_dump(mode="json"))
