"""Sentence vectors of the indexed prose chunks, stored beside the chunk index (issue 24, item 1).

A hit's passage is the whole-sentence span of its chunk that best answers the query
(`retrieval.passages`). Words alone miss an answer worded unlike its question ("who makes the
cells" for "Panasonic ... supplies"), and embedding a chunk's sentences when a query comes costs
most of a second on a small CPU. So every prose chunk's sentences are embedded once, when the
chunk is indexed, and a query's passage pick is a dot product with vectors read by chunk key.

    <chunk index folder>/sentences.lance   one row per chunk: its key, the sentences' offsets
                                           in the chunk's text and their vectors (int8)

With settings.table_row_vectors (off by default: design notes, issue 24 third round), a table
chunk's row holds its body rows instead (`text.markdown_tables.table_row_units`: each row's
line offsets, and the vector of its label under its group label, caption and section, without
the figures), so a table hit's rows can be picked by meaning too. Its chunk id is left empty:
the sentence re-rank reads by chunk id and keeps giving tables the pool's mean.

Rows are keyed by the chunk's index `key` (a hash of its text, heading, model and windowing),
so a row read by key always belongs to exactly the text that chunk holds, whichever table
version is read; a chunk without a row (indexed before this table existed, or pruned) falls
back to the word score. The offsets come from the same sentence splitter the passage pick
uses (`text.sentences.sentence_spans`, line breaks ending sentences), so the two agree.
Vectors are stored as int8 (unit vectors times 127): a quarter of float32's size, and the
rounding moves a cosine by well under 0.01.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterable, Sequence

import numpy as np
import polars as pl
import pyarrow as pa

from graphrag_core.retrieval.embedding_model import Embedder
from graphrag_core.retrieval.rerank import SentenceStats
from graphrag_core.text.sentences import sentence_spans

log = logging.getLogger(__name__)

SENTENCE_TABLE = "sentences"
_SCALE = 127.0
# A "sentence" this short is a heading, a bullet mark or a page label: embedded it only adds
# noise to the pick, and the word score still sees it.
_MIN_CHARS = 12
_BATCH = 2048  # sentences per embedding call and per written batch
_DELETE_BATCH = 500


def _schema(dimensions: int) -> pa.Schema:
    return pa.schema(
        [
            ("key", pa.string()),
            ("chunk_id", pa.string()),
            ("starts", pa.list_(pa.int32())),
            ("ends", pa.list_(pa.int32())),
            # the int8 matrix, len(starts) x dimensions, row-major, as raw bytes
            ("vectors", pa.binary()),
        ]
    )


def chunk_sentences(text: str) -> list[tuple[int, int]]:
    """The spans of `text` that get a vector: its sentences (as the passage pick splits them),
    without the very short ones."""
    return [(a, b) for a, b in sentence_spans(text, split_lines=True) if b - a >= _MIN_CHARS]


def quantize(vectors: np.ndarray) -> np.ndarray:
    return np.clip(np.rint(vectors * _SCALE), -127, 127).astype(np.int8)


def dequantize(values: np.ndarray, dimensions: int) -> np.ndarray:
    return values.astype(np.float32).reshape(-1, dimensions) / _SCALE


def missing_keys(table, wanted: Iterable[str]) -> set[str]:
    """Keys of `wanted` with no row in the sentence table (`table` None: all of them)."""
    wanted = set(wanted)
    if table is None:
        return wanted
    rows = table.count_rows()
    if not rows:
        return wanted
    have = table.search().select(["key"]).limit(rows).to_arrow().column("key").to_pylist()
    return wanted - set(have)


def _units(row: dict, table_rows: bool) -> tuple[list[tuple[int, int]], list[str]]:
    """A chunk's spans that get a vector and the text embedded for each: a prose chunk's
    sentences as they read; a table's rows as their label under the table's caption and the
    chunk's section (`text.markdown_tables.table_row_units`), without figures."""
    text = row["text"] or ""
    if row["kind"] != "table":
        spans = chunk_sentences(text)
        return spans, [text[a:b] for a, b in spans]
    if not table_rows:
        return [], []
    from graphrag_core.retrieval.sections import section_title
    from graphrag_core.text.markdown_tables import table_row_units

    units = table_row_units(text, section_title(row.get("section")))
    return [(a, b) for a, b, _ in units], [e for _, _, e in units]


def update_sentences(
    db,
    frame: pl.DataFrame,
    embedder: Embedder,
    stale_keys: Sequence[str],
    say: Callable[[str], None],
    table_rows: bool = False,
) -> tuple[int, float]:
    """Embed the sentences of the prose chunks of `frame` (columns key, chunk_id, kind, text,
    section), and the rows of its tables (`table_rows`), that have no row yet, delete rows of
    `stale_keys`, index the key column. Returns (spans embedded, seconds embedding).

    An index built before table rows were stored has no row for its table chunks, so the next
    update embeds just those: the upgrade is incremental, like every other change."""
    import time

    table = db.open_table(SENTENCE_TABLE) if SENTENCE_TABLE in db.list_tables().tables else None
    chosen = frame if table_rows else frame.filter(pl.col("kind") != "table")
    todo_keys = missing_keys(table, chosen.get_column("key").to_list())
    todo = chosen.filter(pl.col("key").is_in(list(todo_keys)))
    chunks: list[tuple[str, str | None, list[tuple[int, int]], list[str]]] = []
    total = 0
    for r in todo.iter_rows(named=True):
        spans, texts = _units(r, table_rows)
        # A table's rows are stored without its chunk id: the re-rank reads rows by chunk id,
        # and a table's best row cosine there cost hit@8 on the dev questions (design notes,
        # issue 24 third round); the row pick reads them by key.
        chunk_id = None if r["kind"] == "table" else r["chunk_id"]
        chunks.append((r["key"], chunk_id, spans, texts))
        total += len(spans)
    if chunks:
        tables = sum(1 for r in todo.get_column("kind").to_list() if r == "table")
        say(
            f"sentence vectors: {len(chunks) - tables} prose chunks and {tables} tables, "
            f"{total} sentences and rows to embed"
        )
    started = time.perf_counter()
    done = 0
    batch: list[tuple[str, str | None, list[tuple[int, int]], list[str]]] = []
    pending = 0
    for item in [*chunks, None]:
        if item is not None:
            batch.append(item)
            pending += len(item[2])
            if pending < _BATCH:
                continue
        if not batch:
            break
        table = _write(db, table, batch, embedder)
        done += pending
        say(f"  embedded {done}/{total} sentences ({done / (time.perf_counter() - started):.1f}/s)")
        batch, pending = [], 0
    seconds = time.perf_counter() - started if chunks else 0.0
    if table is not None and stale_keys:
        for i in range(0, len(stale_keys), _DELETE_BATCH):
            quoted = ", ".join(
                "'" + k.replace("'", "''") + "'" for k in stale_keys[i : i + _DELETE_BATCH]
            )
            table.delete(f"key IN ({quoted})")
    if table is not None:
        from lancedb.index import BTree

        indexed = {tuple(ix.columns) for ix in table.list_indices()}
        for column in ("key", "chunk_id"):
            if chunks or stale_keys or (column,) not in indexed:
                table.create_index(column, config=BTree(), replace=True)
    return total, seconds


def _write(db, table, batch, embedder: Embedder):
    texts = [t for _, _, _, embedded in batch for t in embedded]
    # Each distinct sentence is embedded once: filings repeat boilerplate (and a pathological
    # document repeats one paragraph thousands of times), and the vector depends on the text only.
    distinct = list(dict.fromkeys(texts))
    if texts:
        at_row = {t: i for i, t in enumerate(distinct)}
        vectors = quantize(embedder.embed(distinct))[[at_row[t] for t in texts]]
    else:
        vectors = np.zeros((0, 0), np.int8)
    dims = int(embedder.dimensions)
    rows: dict[str, list] = {"key": [], "chunk_id": [], "starts": [], "ends": [], "vectors": []}
    at = 0
    for key, chunk_id, spans, _ in batch:
        rows["key"].append(key)
        rows["chunk_id"].append(chunk_id)
        rows["starts"].append([a for a, _ in spans])
        rows["ends"].append([b for _, b in spans])
        rows["vectors"].append(vectors[at : at + len(spans)].tobytes() if spans else b"")
        at += len(spans)
    data = pa.Table.from_pydict(rows, schema=_schema(dims))
    if table is None:
        return db.create_table(SENTENCE_TABLE, data=data)
    table.add(data)
    return table


class SentenceVectors:
    """Reads the sentence vectors of chunks by their keys (thread-safe: LanceDB reads are)."""

    def __init__(self, table, dimensions: int):
        self.table = table
        self.dimensions = dimensions

    @classmethod
    def open(cls, path: str, dimensions: int) -> SentenceVectors | None:
        import lancedb

        try:
            db = lancedb.connect(path)
            if SENTENCE_TABLE not in db.list_tables().tables:
                return None
            return cls(db.open_table(SENTENCE_TABLE), dimensions)
        except (OSError, ValueError, RuntimeError) as exc:  # the word score still works
            log.debug("sentence vectors at %s: %s", path, exc)
            return None

    def best_by_chunk(self, chunk_ids: Sequence[str], query_vector: np.ndarray) -> dict[str, float]:
        """chunk_id → the best cosine of its stored sentences with the query. Read by chunk id,
        not key, so a search's candidates need not carry their keys (that column, read in every
        search, cost more than this lookup); after a re-index only the current text of a chunk
        has a row, which is what a re-rank wants."""
        return {c: s.best for c, s in self.stats_by_chunk(chunk_ids, query_vector).items()}

    def stats_by_chunk(
        self, chunk_ids: Sequence[str], query_vector: np.ndarray
    ) -> dict[str, SentenceStats]:
        """chunk_id → its stored sentences' best and second-best cosine with the query and
        their number (the learned re-rank's features), read as best_by_chunk reads."""
        wanted = [c for c in dict.fromkeys(chunk_ids) if c]
        if not wanted:
            return {}
        quoted = ", ".join("'" + c.replace("'", "''") + "'" for c in wanted)
        rows = (
            self.table.search()
            .where(f"chunk_id IN ({quoted})")
            .select(["chunk_id", "vectors"])
            .limit(len(wanted) * 4)
            .to_arrow()
        )
        q = np.asarray(query_vector, dtype=np.float32)
        out: dict[str, SentenceStats] = {}
        for chunk_id, blob in zip(
            rows.column("chunk_id").to_pylist(), rows.column("vectors").to_pylist(), strict=True
        ):
            if not blob:
                continue
            sims = dequantize(np.frombuffer(blob, np.int8), self.dimensions) @ q
            top = np.sort(sims)[::-1][:2]
            stats = SentenceStats(
                float(top[0]), float(top[1]) if len(top) > 1 else None, int(len(sims))
            )
            seen = out.get(chunk_id)
            if seen is None or stats.best > seen.best:
                out[chunk_id] = stats
        return out

    def similarities(
        self, keys: Sequence[str], query_vector: np.ndarray
    ) -> dict[str, dict[tuple[int, int], float]]:
        """key → {(start, end): cosine of that sentence with the query}, for the keys that have
        a row."""
        wanted = [k for k in dict.fromkeys(keys) if k]
        if not wanted:
            return {}
        quoted = ", ".join("'" + k.replace("'", "''") + "'" for k in wanted)
        rows = (
            self.table.search()
            .where(f"key IN ({quoted})")
            .select(["key", "starts", "ends", "vectors"])
            .limit(len(wanted) * 2)
            .to_list()
        )
        q = np.asarray(query_vector, dtype=np.float32)
        out: dict[str, dict[tuple[int, int], float]] = {}
        for row in rows:
            if not row["starts"]:
                out[row["key"]] = {}
                continue
            sims = dequantize(np.frombuffer(row["vectors"], dtype=np.int8), self.dimensions) @ q
            out[row["key"]] = {
                (int(a), int(b)): float(s)
                for a, b, s in zip(row["starts"], row["ends"], sims, strict=True)
            }
        return out
