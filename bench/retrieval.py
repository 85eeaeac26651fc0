"""Passage retrieval on the corpus: hit@8 of vector-only, full-text-only and hybrid search (and
the hybrid's parts switched off one at a time) on a hand-written question set with a held-out
part; indexing rate; query latency on the corpus and on a synthetic 400,000-chunk index.

    python bench/retrieval.py [--data-root DIR] [--corpus DIR] [--skip-synthetic]
    python bench/retrieval.py --compare-backends [--pool N]   # torch vs onnx-int8 side by side
    python bench/retrieval.py --small   # Apple's filings and questions, a 2,000-row synthetic index

The corpus is intaken and chunked into a cache folder once (bench/out/retrieval by default), and
its chunk index is built there incrementally: a second run embeds nothing. The question set is
bench/retrieval_questions.json (how it was made is written in it): `quote` is a verbatim piece of
the answering passage, resolved here to chunk ids, so a hit is any chunk of the ticker's filings
that contains it. Every third question is held out: the search weights were chosen on the
others, and both parts are reported.

    python bench/retrieval.py --splits   # dev / held-out: hit@8 and answer shown, with variants
    python bench/retrieval.py --blind    # the same beside the frozen blind part (measure once)
    python bench/retrieval.py --train-rerank   # the learned re-rank: CV, weights written

The blind part (bench/retrieval_questions_blind.json, 91 questions over 59 filings) was
written by a second author from bench/retrieval_blind_writing_guide.md and the filings' saved
text alone (never the index, this code, the dev set or its figures), paraphrased, across forms,
sections and tables, and frozen before any measurement; see its `about` and docs/benchmarks.md.
Only aggregate figures of it are printed (bench/_questions.py); nothing is tuned on it. It was
measured at the end of issue 24's first round; the second round was judged once on a fresh set
written the same way (`--blind --blind-file bench/retrieval_questions_blind_fresh.json`), so
both are spent for tuning. Questions 51-103 of the dev set (`part: new`) are reported apart as
`dev_new`.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import numpy as np
import polars as pl
import pyarrow as pa

from bench._chunking import chunked_store
from graphrag_core.retrieval.chunk_index import _build_indexes, _schema, index_input, update_index
from graphrag_core.retrieval.search import ChunkSearcher, Mentions, Weights, shared_embedder
from graphrag_core.settings import RetrievalSettings, default_corpus
from graphrag_core.store.chunk_index_ref import ChunkIndexRef
from graphrag_core.tables.table_store import TableStore

QUESTIONS = ROOT / "bench" / "retrieval_questions.json"
BLIND_QUESTIONS = ROOT / "bench" / "retrieval_questions_blind.json"
K = 8
SYNTHETIC_ROWS = 400_000
SMALL_TICKER = "AAPL"


def prepare(corpus: Path, data_root: Path) -> TableStore:
    """raw_filings and section_chunks for every corpus filing (once; cached in data_root)."""
    return chunked_store(corpus, data_root)


def mentions_from(filings: pl.DataFrame) -> Mentions:
    """The company matcher the server builds from the snapshot's aliases, here from the filings'
    own names and tickers (the corpus has no published snapshot in this benchmark)."""
    from graphrag_core.common.ids import company_key
    from graphrag_core.common.names import normalize_name

    m = Mentions()
    for row in filings.select("cik", "company", "ticker").unique().iter_rows(named=True):
        if not row["cik"]:
            continue
        cid = company_key(row["cik"])
        if row["ticker"]:
            m.tickers[row["ticker"].upper()] = cid
        if row["company"]:
            norm = normalize_name(row["company"])
            if len(norm) >= 4:
                m.aliases.setdefault(norm, cid)
                head = norm.split()[0]
                if len(head) >= 5:
                    m.aliases.setdefault(head, cid)
    return m


def resolve_questions(
    chunks: pl.DataFrame, filings: pl.DataFrame, tickers: set[str] | None = None
) -> list[dict]:
    from bench import _questions

    data = json.loads(QUESTIONS.read_text(encoding="utf-8"))["questions"]
    data = [q for q in data if tickers is None or q["ticker"] in tickers]
    joined = chunks.select("chunk_id", "filing_id", "text").join(
        filings.select("filing_id", "ticker"), on="filing_id"
    )
    # within the question's filing when it names one, whitespace folded
    out = _questions.resolve(data, joined)
    for q in out:
        if not q["answers"]:
            raise SystemExit(f"question {q['id']}: no chunk of {q['ticker']} contains its quote")
    return out


class CachedEmbedder:
    """The embedder with a memory of the texts it embedded (questions are embedded once)."""

    def __init__(self, inner):
        self.inner = inner
        self.model_id = inner.model_id
        self.dimensions = inner.dimensions
        self._memo: dict[str, np.ndarray] = {}

    def windows(self, text, reserved_tokens):
        return self.inner.windows(text, reserved_tokens)

    def embed(self, texts: list[str]) -> np.ndarray:
        missing = [t for t in texts if t not in self._memo]
        if missing:
            for text, vector in zip(missing, self.inner.embed(missing), strict=True):
                self._memo[text] = vector
        return np.stack([self._memo[t] for t in texts])


def hit_rates(
    searcher: ChunkSearcher,
    questions: list[dict],
    mode: str,
    weights: Weights | None = None,
    kind_of_vectors: str | None = None,
) -> dict[str, float]:
    from graphrag_core.retrieval.search import Filters

    hits = {"dev": [], "held_out": []}
    filters = Filters(kind=kind_of_vectors) if kind_of_vectors else None
    for q in questions:
        found = {
            h.chunk_id
            for h in searcher.search(q["question"], filters, k=K, mode=mode, weights=weights)
        }
        hits[q["split"]].append(bool(found & q["answers"]))
    every = hits["dev"] + hits["held_out"]
    return {
        "all": sum(every) / len(every),
        "dev": sum(hits["dev"]) / len(hits["dev"]),
        "held_out": sum(hits["held_out"]) / len(hits["held_out"]),
    }


def latencies(searcher: ChunkSearcher, queries: list[str], repeat: int = 1) -> dict[str, float]:
    times = []
    for _ in range(repeat):
        for text in queries:
            t0 = time.perf_counter()
            searcher.search(text, k=K)
            times.append((time.perf_counter() - t0) * 1000)
    times.sort()
    return {
        "p50_ms": statistics.median(times),
        "p95_ms": times[int(0.95 * (len(times) - 1))],
        "n": len(times),
    }


def stage_latencies(
    searcher: ChunkSearcher, embedder, queries: list[str]
) -> dict[str, dict[str, float]]:
    """Where a query's time goes: each step of ChunkSearcher.search timed on its own, one after
    the other (search runs the four searches side by side)."""
    from graphrag_core.retrieval.search import _CANDIDATE_COLUMNS, Filters, text_terms

    steps: dict[str, list[float]] = {}

    def timed(name, fn, *args):
        t0 = time.perf_counter()
        out = fn(*args)
        steps.setdefault(name, []).append((time.perf_counter() - t0) * 1000)
        return out

    n = searcher.settings.candidates
    for text in queries:
        vector = timed("embed the query", embedder.embed, [text])[0]
        named = searcher.mentions.find(text)
        terms = text_terms(text, searcher.mentions.name_words(text, named))
        clauses = [("all", None)] + ([("company", Filters(named).where())] if named else [])
        for tag, where in clauses:
            timed(
                f"vector search ({tag})",
                searcher.vector_ranked,
                text,
                where,
                n,
                vector,
                _CANDIDATE_COLUMNS,
            )
            timed(
                f"full-text search ({tag})",
                searcher.text_ranked,
                text,
                where,
                n,
                terms,
                _CANDIDATE_COLUMNS,
            )
        timed("whole search (vector ready)", searcher.search, text, None, K)
    out = {}
    for name, times in steps.items():
        times.sort()
        out[name] = {
            "p50_ms": statistics.median(times),
            "p95_ms": times[int(0.95 * (len(times) - 1))],
            "n": len(times),
        }
    return out


def print_stages(stages: dict[str, dict[str, float]]) -> None:
    for name, lat in stages.items():
        print(
            f"   {name:<34} p50 {lat['p50_ms']:7.1f} ms   p95 {lat['p95_ms']:7.1f} ms   "
            f"({lat['n']} calls)"
        )


def synthetic_index(
    directory: Path,
    real: pl.DataFrame,
    dims: int,
    settings: RetrievalSettings,
    size: int = SYNTHETIC_ROWS,
) -> ChunkIndexRef:
    """A 400,000-chunk table: the corpus's windows (text, sections, forms, periods) drawn at
    random with random companies and random unit vectors, with the indexes the real index gets
    at that size (full text, scalar, IVF). Latency depends on sizes, not on what the vectors
    mean. Built once and cached (delete the folder after changing how it is made)."""
    import lancedb

    db = lancedb.connect(str(directory))
    name = "synthetic"
    if name in db.list_tables().tables:
        table = db.open_table(name)
    else:
        print(f"building the synthetic {size:,}-chunk index (once) …", flush=True)
        rng = np.random.default_rng(7)
        schema = _schema(dims)
        base = real.select([c for c in schema.names if c != "vector"])
        # 5,000 companies, the corpus's own among them, so a query that names one runs its
        # company-restricted pass over about 80 rows, as it would in a large index.
        real_ids = sorted({c for c in base.get_column("company_id").to_list() if c})
        pool = real_ids + [f"CIK-{9_000_000 + i:010d}" for i in range(5000 - len(real_ids))]
        table = None
        batch_rows = min(50_000, size)
        t0 = time.perf_counter()
        for start in range(0, size, batch_rows):
            idx = rng.integers(0, base.height, batch_rows)
            part = base[idx.tolist()]
            n = np.arange(start, start + batch_rows)
            part = part.with_columns(
                pl.Series("chunk_id", [f"syn-{i:07d}" for i in n]),
                pl.Series("row_id", [f"syn-{i:07d}#0" for i in n]),
                pl.Series(
                    "company_id", [pool[int(c)] for c in rng.integers(0, len(pool), batch_rows)]
                ),
                pl.lit(0, dtype=pl.Int32).alias("window"),
                pl.lit(1, dtype=pl.Int32).alias("windows"),
            )
            vec = rng.normal(0, 1, (batch_rows, dims)).astype(np.float32)
            vec /= np.linalg.norm(vec, axis=1, keepdims=True)
            arrow = part.to_arrow().cast(pa.schema([f for f in schema if f.name != "vector"]))
            arrow = arrow.append_column(
                "vector",
                pa.FixedSizeListArray.from_arrays(
                    pa.array(vec.ravel(), pa.float32()), vec.shape[1]
                ),
            )
            if table is None:
                table = db.create_table(name, data=arrow)
            else:
                table.add(arrow)
        assert table is not None
        print(f"  rows written in {time.perf_counter() - t0:.0f}s; indexing …", flush=True)
        t1 = time.perf_counter()
        _build_indexes(table, settings)
        print(f"  full-text + scalar + ANN indexes in {time.perf_counter() - t1:.0f}s", flush=True)
    return ChunkIndexRef(
        path=str(directory),
        table=name,
        version=int(table.version),
        rows=int(table.count_rows()),
        chunks=int(table.count_rows()),
        model_id="",
        dimensions=dims,
        keys_digest="",
        built_at=__import__("datetime").datetime.now(),
    )


def synthetic_sentences(ref: ChunkIndexRef, size: int, per_chunk: int = 9) -> None:
    """The sentence table a 400,000-chunk index would have beside it: a row of `per_chunk`
    random int8 sentence vectors (the corpus's prose chunks average 9.4 sentences) for each
    synthetic chunk, so the sentence re-rank's read by chunk id runs against a table of that
    size. Built once, beside the synthetic index."""
    import lancedb
    from lancedb.index import BTree

    from graphrag_core.retrieval.sentence_index import SENTENCE_TABLE, _schema

    db = lancedb.connect(ref.path)
    if SENTENCE_TABLE in db.list_tables().tables:
        return
    print(f"building the synthetic sentence table ({size:,} rows, once) …", flush=True)
    t0 = time.perf_counter()
    keys = [f"syn-{i:07d}" for i in range(size)]  # the synthetic rows' chunk ids
    rng = np.random.default_rng(11)
    starts = [i * 100 for i in range(per_chunk)]
    table = None
    for at in range(0, len(keys), 20_000):
        part = keys[at : at + 20_000]
        vectors = rng.integers(-127, 128, (len(part), per_chunk * ref.dimensions), dtype=np.int8)
        data = pa.Table.from_pydict(
            {
                "key": part,
                "chunk_id": part,
                "starts": [starts] * len(part),
                "ends": [[a + 90 for a in starts]] * len(part),
                "vectors": [v.tobytes() for v in vectors],
            },
            schema=_schema(ref.dimensions),
        )
        if table is None:
            table = db.create_table(SENTENCE_TABLE, data=data)
        else:
            table.add(data)
    assert table is not None
    table.create_index("key", config=BTree(), replace=True)
    table.create_index("chunk_id", config=BTree(), replace=True)
    folder = Path(ref.path, f"{SENTENCE_TABLE}.lance")
    size = sum(f.stat().st_size for f in folder.rglob("*") if f.is_file())
    seconds = time.perf_counter() - t0
    print(f"  {table.count_rows():,} rows, {size / 2**20:.0f} MiB, in {seconds:.0f}s", flush=True)


def ann_copy(ref: ChunkIndexRef, settings: RetrievalSettings, data_root: Path) -> ChunkIndexRef:
    """The corpus index copied, with the ANN index the real one gets above
    settings.ann_min_rows (built here whatever the size), to measure what it costs in hit@8."""
    import shutil

    import lancedb

    target = data_root / "ann_corpus"
    stamp = target / "SOURCE"
    if not stamp.is_file() or stamp.read_text() != f"{ref.path}@{ref.version}":
        shutil.rmtree(target, ignore_errors=True)
        shutil.copytree(Path(ref.path) / f"{ref.table}.lance", target / f"{ref.table}.lance")
        table = lancedb.connect(str(target)).open_table(ref.table)
        table.restore(ref.version)
        _build_indexes(table, settings.model_copy(update={"ann_min_rows": 1}))
        stamp.write_text(f"{ref.path}@{ref.version}")
    table = lancedb.connect(str(target)).open_table(ref.table)
    return ref.model_copy(update={"path": str(target), "version": int(table.version)})


def synthetic_source_index(
    data_root: Path,
    chunks: pl.DataFrame,
    filings: pl.DataFrame,
    embedder,
    settings: RetrievalSettings,
    size: int = SYNTHETIC_ROWS,
) -> ChunkIndexRef:
    from graphrag_core.retrieval.chunk_index import _window_rows, chunk_key

    frame = index_input(chunks, filings)
    frame = frame.with_columns(
        pl.Series(
            "key", [chunk_key(r, embedder.model_id, settings) for r in frame.iter_rows(named=True)]
        )
    )
    rows, _ = _window_rows(frame, embedder, settings)
    return synthetic_index(
        data_root / "synthetic_index", pl.DataFrame(rows), embedder.dimensions, settings, size
    )


def compare_backends(args, chunks: pl.DataFrame, filings: pl.DataFrame) -> int:
    """torch vs onnx-int8 on the same windows in one run: windows/s (alternating rounds, the
    machine's load printed), cosine of the two vectors of every window, and hit@8 of each
    backend's index over a pool of chunks (every answering chunk plus `--pool` others drawn at
    random: building two full-corpus indexes on a small machine takes most of an hour)."""
    import os

    from graphrag_core.retrieval.chunk_index import _window_rows
    from graphrag_core.retrieval.embedder import build_embedder

    backends = {
        "torch": RetrievalSettings(embed_backend="local"),
        "onnx-int8": RetrievalSettings(
            embed_backend="onnx", onnx_quantize="int8", model_cache=args.data_root / "models"
        ),
    }
    print(
        f"load average at start: {os.getloadavg()[0]:.2f} {os.getloadavg()[1]:.2f} "
        f"{os.getloadavg()[2]:.2f} on {os.cpu_count()} cores",
        flush=True,
    )
    embedders = {name: build_embedder(s) for name, s in backends.items()}
    for name, e in embedders.items():
        print(
            f"   {name:<10} model {e.model_id}, threads {backends[name].embed_threads or 'cores'}"
        )
    # Timed only: int8 one window per run (batch-independent vectors) beside the default batches.
    batched = build_embedder(backends["onnx-int8"].model_copy(update={"onnx_batch_size": 1}))

    # -- speed: the same windows of real chunks, backends alternating so load swings hit both
    settings = backends["torch"]
    sample = index_input(chunks, filings).sample(args.speed_chunks, seed=11)
    sample = sample.with_columns(pl.Series("key", ["k"] * sample.height))
    _, texts = _window_rows(sample, embedders["torch"], settings)
    timed = {**embedders, "onnx-int8 b1": batched}
    for e in timed.values():
        e.embed(texts[:8])  # warm up
    rates: dict[str, list[float]] = {name: [] for name in timed}
    for _ in range(args.rounds):
        for name, e in timed.items():
            t0 = time.perf_counter()
            e.embed(texts)
            rates[name].append(len(texts) / (time.perf_counter() - t0))
    print(
        f"\n== speed: {len(texts)} windows of {sample.height} real chunks, {args.rounds} "
        "alternating rounds "
        f"(load average now {os.getloadavg()[0]:.2f})"
    )
    for name, r in rates.items():
        print(
            f"   {name:<13} windows/s per round: {', '.join(f'{x:.1f}' for x in r)}; "
            f"median {statistics.median(r):.1f}"
        )
    ratio = statistics.median(rates["onnx-int8"]) / statistics.median(rates["torch"])
    print(f"   onnx-int8 / torch: {ratio:.2f}x")

    # -- indexes over one pool of chunks, one per backend
    questions = resolve_questions(chunks, filings)
    answers = set().union(*[q["answers"] for q in questions])
    ids = chunks.get_column("chunk_id")
    others = (
        chunks.filter(~ids.is_in(list(answers))).sample(args.pool, seed=5).get_column("chunk_id")
    )
    pool = chunks.filter(ids.is_in(list(answers)) | ids.is_in(others.to_list()))
    refs = {}
    vectors = {}
    for name, e in embedders.items():
        root = args.data_root / "compare" / name
        update = update_index(root, pool, filings, e, backends[name])
        refs[name] = update.ref
        if update.embedded_windows:
            print(
                f"   {name:<10} index of {update.ref.chunks} chunks ({update.ref.rows} "
                "windows) built at "
                f"{update.embedded_windows / update.embed_seconds:.1f} windows/s",
                flush=True,
            )
        import lancedb

        table = lancedb.connect(update.ref.path).open_table(update.ref.table)
        rows = table.search().select(["row_id", "text", "vector"]).limit(update.ref.rows).to_arrow()
        vectors[name] = {
            (r, t): v
            for r, t, v in zip(
                rows.column("row_id").to_pylist(),
                rows.column("text").to_pylist(),
                rows.column("vector").to_numpy(zero_copy_only=False),
                strict=True,
            )
        }
    shared = sorted(vectors["torch"].keys() & vectors["onnx-int8"].keys())
    a = np.stack([vectors["torch"][k] for k in shared])
    b = np.stack([vectors["onnx-int8"][k] for k in shared])
    cos = (a * b).sum(axis=1) / (np.linalg.norm(a, axis=1) * np.linalg.norm(b, axis=1))
    print(
        f"\n== cosine(torch, onnx-int8) over {len(shared)} windows of {pool.height} real chunks: "
        f"mean {cos.mean():.4f}, p5 {np.percentile(cos, 5):.4f}, min {cos.min():.4f}"
    )

    n_dev = sum(q["split"] == "dev" for q in questions)
    print(
        f"\n== hit@{K} on {len(questions)} questions ({n_dev} dev) over the pool of "
        f"{pool.height} chunks "
        f"(all answering chunks + {args.pool} at random), same search, two embedders"
    )
    print(f"   {'mode':<14} " + " ".join(f"{name:>16}" for name in embedders))
    searchers = {
        name: ChunkSearcher(refs[name], CachedEmbedder(e), backends[name], mentions_from(filings))
        for name, e in embedders.items()
    }
    for mode in ("vector", "text", "hybrid"):
        cells = []
        for name in embedders:
            r = hit_rates(searchers[name], questions, mode)
            cells.append(f"{r['all']:.2f} ({r['held_out']:.2f} ho)")
        print(f"   {mode:<14} " + " ".join(f"{c:>16}" for c in cells), flush=True)
    print(f"load average at end: {os.getloadavg()[0]:.2f}")
    return 0


def embed_time_by_layout(
    chunks: pl.DataFrame,
    filings: pl.DataFrame,
    embedder,
    layouts: dict[str, RetrievalSettings],
    sample_chunks: int = 400,
    rounds: int = 3,
) -> None:
    """Seconds to embed one random sample of chunks (prose and tables as the corpus has them)
    under each layout, in alternating rounds so that the machine's load hits both alike."""
    import os

    from graphrag_core.retrieval.chunk_index import _window_rows

    sample = (
        index_input(chunks, filings)
        .sample(sample_chunks, seed=17)
        .with_columns(pl.lit("k").alias("key"))
    )
    texts = {name: _window_rows(sample, embedder, s)[1] for name, s in layouts.items()}
    for t in texts.values():
        embedder.embed(t[:8])
    seconds: dict[str, list[float]] = {name: [] for name in layouts}
    for _ in range(rounds):
        for name, t in texts.items():
            t0 = time.perf_counter()
            embedder.embed(t)
            seconds[name].append(time.perf_counter() - t0)
    print(
        f"\n== embedding {sample_chunks} random chunks by layout, {rounds} alternating rounds "
        f"(load average {os.getloadavg()[0]:.2f})"
    )
    for name, s in layouts.items():
        print(
            f"   {name:<7} {s.window_tokens}/{s.window_stride}, tables "
            f"{'digest ' + str(s.table_vector_tokens) if s.table_vector_tokens else 'in windows'}: "
            f"{len(texts[name])} texts, median {statistics.median(seconds[name]):.1f} s"
        )
    ratio = statistics.median(seconds["now"]) / statistics.median(seconds["before"])
    print(f"   now / before: {ratio:.2f}x the embedding time")


def compare_windows(
    args,
    chunks: pl.DataFrame,
    filings: pl.DataFrame,
    embedder,
    settings: RetrievalSettings,
    questions: list[dict],
    ref: ChunkIndexRef,
) -> None:
    """hit@8 of this index beside one built as before (256-piece windows, stride 224, tables
    cut into windows like prose), same search code. The other index is built once (about as
    long as the corpus index itself) and kept in <data root>/chunk_index_w256."""
    before = settings.model_copy(
        update={
            "window_tokens": 256,
            "window_stride": 224,
            "table_vector_tokens": 0,
            "index_dir": "chunk_index_w256",
        }
    )
    other = update_index(args.data_root, chunks, filings, embedder, before, progress=print).ref
    searchers = {
        f"{settings.window_tokens}/{settings.window_stride}, table digests ({ref.rows} "
        "rows)": ChunkSearcher(ref, CachedEmbedder(embedder), settings, mentions_from(filings)),
        f"256/224, tables in windows ({other.rows} rows)": ChunkSearcher(
            other, CachedEmbedder(embedder), before, mentions_from(filings)
        ),
    }
    embed_time_by_layout(chunks, filings, embedder, {"now": settings, "before": before})
    print(f"\n== hit@{K} by index (window pieces/stride): all (dev, held-out)")
    print(f"   {'mode':<10} " + " ".join(f"{name:>44}" for name in searchers))
    for mode in ("vector", "text", "hybrid"):
        cells = []
        for searcher in searchers.values():
            r = hit_rates(searcher, questions, mode)
            cells.append(f"{r['all']:.2f} ({r['dev']:.2f}, {r['held_out']:.2f})")
        print(f"   {mode:<10} " + " ".join(f"{c:>44}" for c in cells), flush=True)


def time_synthetic(
    args, chunks: pl.DataFrame, filings: pl.DataFrame, embedder, settings: RetrievalSettings
) -> None:
    import os

    syn_ref = synthetic_source_index(
        args.data_root, chunks, filings, embedder, settings, args.synthetic_rows
    )
    syn_ref = syn_ref.model_copy(update={"model_id": embedder.model_id})
    if settings.sentence_rerank:
        synthetic_sentences(syn_ref, args.synthetic_rows)
    questions = [
        q["question"] for q in json.loads(QUESTIONS.read_text(encoding="utf-8"))["questions"]
    ]
    syn = ChunkSearcher(syn_ref, embedder, settings, mentions_from(filings))
    print(
        f"\n== query latency, synthetic {syn_ref.rows:,}-chunk index (load average "
        f"{os.getloadavg()[0]:.2f}; IVF_FLAT, {settings.ann_nprobes} probes; embedding the "
        f"query included; sentence re-rank {settings.sentence_rerank:g} of the top "
        f"{settings.sentence_rerank_pool}"
        f"{' reading ' + str(syn.sentences.table.count_rows()) + ' rows' if syn.sentences else ''})"
    )
    lat = latencies(syn, questions)
    print(
        f"   first pass after opening (IVF partitions read from disk as first probed): "
        f"p50 {lat['p50_ms']:.1f} ms, p95 {lat['p95_ms']:.1f} ms over {lat['n']} queries"
    )
    lat = latencies(syn, questions, repeat=2)
    print(
        f"   steady state (a server's): p50 {lat['p50_ms']:.1f} ms, p95 {lat['p95_ms']:.1f} ms "
        f"over {lat['n']} queries"
    )
    cached = ChunkSearcher(syn_ref, CachedEmbedder(embedder), settings, mentions_from(filings))
    latencies(cached, questions)  # embeds each question once
    lat = latencies(cached, questions, repeat=2)
    print(
        f"   search alone (query vectors ready): p50 {lat['p50_ms']:.1f} ms, p95 "
        f"{lat['p95_ms']:.1f} ms"
    )
    # Each part's cost, both ways in alternating rounds so the machine's load hits both.
    others: dict[str, dict[str, object]] = {
        "without query expansion and table routing": {
            "query_expansion": False,
            "table_route": 0.0,
        },
        "learned re-rank" if settings.rerank == "hand" else "hand-set re-rank": {
            "rerank": "learned" if settings.rerank == "hand" else "hand"
        },
    }
    if settings.rerank == "hand":  # the learned path has no sentence re-rank to switch off
        others["without the sentence re-rank"] = {"sentence_rerank": 0.0}
    searchers = [("with every part", cached)] + [
        (
            name,
            ChunkSearcher(
                syn_ref,
                cached.embedder,
                settings.model_copy(update=update),
                mentions_from(filings),
            ),
        )
        for name, update in others.items()
    ]
    times: dict[str, list[float]] = {name: [] for name, _ in searchers}
    for _ in range(3):
        for name, s in searchers:
            for text in questions:
                t0 = time.perf_counter()
                s.search(text, k=K)
                times[name].append((time.perf_counter() - t0) * 1000)
    for name, t in times.items():
        t.sort()
        print(
            f"   search alone, {name} (alternating rounds, load "
            f"{os.getloadavg()[0]:.2f}): p50 {statistics.median(t):.1f} ms, "
            f"p95 {t[int(0.95 * (len(t) - 1))]:.1f} ms over {len(t)} queries"
        )
    print("   steps, one at a time:")
    print_stages(stage_latencies(cached, embedder, questions))


def split_figures(
    args: argparse.Namespace,
    chunks: pl.DataFrame,
    filings: pl.DataFrame,
    embedder,
    settings: RetrievalSettings,
    ref: ChunkIndexRef,
) -> None:
    """hit@8 and answer shown, dev / held-out (and with --blind, the frozen blind part) side by
    side: aggregates only (bench/_questions.py). Without --blind, the passage pick's variants
    too (chosen on dev)."""
    import os

    from bench import _questions
    from graphrag_core.retrieval.chunk_index import chunk_key
    from graphrag_core.retrieval.passages import hit_passage

    frame = index_input(chunks, filings)
    keys = {
        r["chunk_id"]: chunk_key(r, embedder.model_id, settings)
        for r in frame.iter_rows(named=True)
    }
    rows = {
        r["chunk_id"]: r
        for r in chunks.select("chunk_id", "text", "kind", "scale_header").iter_rows(named=True)
    }
    joined = chunks.select("chunk_id", "filing_id", "text").join(
        filings.select("filing_id", "ticker"), on="filing_id"
    )
    questions = _questions.load(QUESTIONS)
    if args.tickers is not None:
        questions = [q for q in questions if q["ticker"] in args.tickers]
    if args.blind:
        questions += _questions.load(args.blind_file, split="blind")
    else:  # the learned re-rank trains on them, and they are shown beside dev
        questions += [q for f in _questions.SPENT for q in _questions.load(f, split="spent")]
    questions = _questions.resolve(questions, joined)
    searcher = ChunkSearcher(ref, CachedEmbedder(embedder), settings, mentions_from(filings))
    if not args.blind:  # the learned re-rank's choice, on dev + spent (bench/_rerank.py)
        from bench import _rerank
        from graphrag_core.retrieval.rerank import WEIGHTS_FILE, embedding_family

        print("\n== learned re-rank: leave-companies-out CV on dev + spent blind sets", flush=True)
        size, _, lines = _rerank.choose(
            _rerank.collect(searcher, questions),
            WEIGHTS_FILE if args.train_rerank else None,
            embedding_family(ref.model_id),
        )
        print("\n".join(lines))
        if size != settings.learned_rerank_pool:
            print(f"   note: settings.learned_rerank_pool is {settings.learned_rerank_pool}")
        if args.train_rerank:
            searcher = ChunkSearcher(
                ref, CachedEmbedder(embedder), settings, mentions_from(filings)
            )  # reads the weights just written
    found: dict[tuple[str, Weights | None], list] = {}

    def search_with(weights: Weights | None):
        def search(question: str) -> list:
            if (question, weights) not in found:
                found[question, weights] = searcher.search(question, k=K, weights=weights)
            return found[question, weights]

        return search

    def passage_with(weight: float, row_weight: float | None = None):
        row_weight = settings.passage_row_vector_weight if row_weight is None else row_weight

        def passage(question: str, chunk_id: str, key: str | None) -> str:
            row = rows[chunk_id]
            key = key or keys.get(chunk_id)
            wanted = weight if row["kind"] != "table" else row_weight
            sims = searcher.sentence_similarities(question, [key]) if wanted > 0 else {}
            return hit_passage(
                row["text"] or "",
                row["kind"],
                question,
                settings.passage_chars,
                settings.passage_table_rows,
                row["scale_header"],
                sims.get(key or ""),
                weight,
                row_weight,
            ).text

        return passage

    print(
        f"\n== hit@{K} and answer shown by split (load average {os.getloadavg()[0]:.2f}; "
        f"sentence vectors {'stored' if searcher.sentences else 'absent'})"
    )
    default = settings.passage_vector_weight
    rows_default = settings.passage_row_vector_weight
    # A variant's passage weights: the prose pick's, or (prose, table rows) when both are given.
    variants: list[tuple[str, Weights | None, float | tuple[float, float]]] = [
        (f"default (re-rank: {settings.rerank})", None, default),
        ("hand-set re-rank", Weights(learned=False), default),
        ("learned re-rank", Weights(learned=True), default),
    ]
    if args.splits and not args.blind:  # the variants, for choosing on dev
        variants += [
            (f"table row pick: row vector weight {x:g}", None, (default, x))
            for x in (0.0, 0.5, 1.0, 2.0, 4.0, 8.0)
            if x != rows_default
        ]
        variants += [
            (f"passage vector weight {w:g}", None, w)
            for w in (0.0, 0.5, 1.0, 2.0, 4.0, 8.0, 16.0)
            if w != default
        ]
        variants.append(
            ("without the sentence re-rank", Weights(sentences=0.0, learned=False), default)
        )
        variants.append(("without query expansion", Weights(expand=False), default))
        variants += [
            (f"amount questions: tables + {x:g}", Weights(tables=x), default)
            for x in (0.0, 0.003, 0.01, 0.015)
        ]
        variants.append(
            ("neither (issue 24's first round)", Weights(expand=False, tables=0.0), default)
        )
        variants += [
            (
                f"sentence re-rank {x:g} of the top {pool}",
                Weights(sentences=x, sentence_pool=pool, learned=False),
                default,
            )
            for x in (0.01, 0.02, 0.03, 0.05)
            for pool in (30, 60)
        ]
    # The variants are for choosing on dev: the spent sets' 447 questions are asked of the
    # three paths only (the learned one trains on them).
    unspent = [q for q in questions if q["split"] != "spent"]
    for i, (label, weights, weight) in enumerate(variants):
        pick = passage_with(*weight) if isinstance(weight, tuple) else passage_with(weight)
        counts = _questions.tally(questions if i < 3 else unspent, search_with(weights), pick)
        print("\n".join(_questions.report(counts, label)), flush=True)
    if not args.blind:
        row_pick_figures(questions, rows, keys, searcher, settings)


def row_pick_figures(questions, rows, keys, searcher: ChunkSearcher, settings) -> None:
    """The table row pick on the dev questions answered by a table, on the answering chunk
    itself: is the quote shown, and how many rows are (more rows show more answers, so "shown"
    alone would favour a pick that shows more). Aggregates only, dev parts only."""
    from bench import _questions
    from graphrag_core.retrieval.passages import table_rows

    cases = []
    for q in questions:
        if q["split"] in _questions.DEV_SPLITS and q["answers"]:
            first = sorted(q["answers"])[0]
            if rows[first]["kind"] == "table":
                cases.append((q, rows[first], keys.get(first) or ""))
    stored = sum(bool(searcher.sentence_similarities("x", [k])) for _, _, k in cases)
    print(
        f"\n== table row pick, {len(cases)} dev questions answered by a table ({stored} with "
        "row vectors stored)"
    )
    for weight in (0.0, 1.0, 2.0, 4.0, 8.0):
        shown = shown_rows = 0
        for q, row, key in cases:
            sims = searcher.sentence_similarities(q["question"], [key]).get(key) if weight else None
            pick = table_rows(
                row["text"] or "",
                q["question"],
                settings.passage_table_rows,
                row["scale_header"],
                True,
                sims,
                weight,
            )
            shown += pick is not None and _questions.norm(q["quote"]) in _questions.norm(pick.text)
            shown_rows += len(pick.rows) if pick is not None else 0
        print(
            f"   row vector weight {weight:g}: quote shown {shown}/{len(cases)}, "
            f"{shown_rows / max(len(cases), 1):.2f} rows shown per table"
        )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--corpus", type=Path, default=default_corpus())
    parser.add_argument("--data-root", type=Path, default=ROOT / "bench" / "out" / "retrieval")
    parser.add_argument("--skip-synthetic", action="store_true")
    parser.add_argument(
        "--synthetic-only",
        action="store_true",
        help="build (or reuse) the synthetic index and time it",
    )
    parser.add_argument(
        "--compare-windows",
        action="store_true",
        help="hit@8 beside an index built as before (256-piece windows, tables in windows)",
    )
    parser.add_argument(
        "--compare-backends",
        action="store_true",
        help="torch vs onnx-int8: windows/s, cosine and hit@8 side by side",
    )
    parser.add_argument(
        "--pool",
        type=int,
        default=1000,
        help="--compare-backends: random chunks indexed beside the answering ones",
    )
    parser.add_argument(
        "--speed-chunks", type=int, default=40, help="--compare-backends: chunks timed"
    )
    parser.add_argument(
        "--rounds", type=int, default=3, help="--compare-backends: alternating rounds"
    )
    parser.add_argument(
        "--synthetic-rows", type=int, default=SYNTHETIC_ROWS, help="rows of the synthetic index"
    )
    parser.add_argument(
        "--small", action="store_true", help="Apple's filings and questions only (seconds)"
    )
    parser.add_argument(
        "--splits",
        action="store_true",
        help="only hit@8 and answer shown on dev / held-out (with the passage pick's variants)",
    )
    parser.add_argument(
        "--blind",
        action="store_true",
        help="only hit@8 and answer shown on dev / held-out / the frozen blind part, aggregates "
        "only; measure it once, never tune on it",
    )
    parser.add_argument(
        "--blind-file", type=Path, default=BLIND_QUESTIONS, help="the blind questions (--blind)"
    )
    parser.add_argument(
        "--train-rerank",
        action="store_true",
        help="cross-validate the learned re-rank on dev + spent blind sets (by company), write "
        "its weights (graphrag_core/retrieval/rerank_weights.json) and print the three paths",
    )
    args = parser.parse_args(argv)
    args.tickers = None  # every question's company
    if args.small:
        from bench._small import corpus, corpus_subset, work_folder

        source = corpus(args.corpus)
        records = json.loads((source / "manifest.json").read_text(encoding="utf-8"))
        paths = tuple(r["path"] for r in records if r.get("ticker") == SMALL_TICKER)
        with work_folder("retrieval") as tmp:
            small = {
                "corpus": corpus_subset(source, tmp / "corpus", paths),
                "data_root": tmp / "data",
                "synthetic_rows": 2_000,
                "tickers": {SMALL_TICKER},
            }
            return measure(argparse.Namespace(**{**vars(args), **small}))
    return measure(args)


def measure(args: argparse.Namespace) -> int:
    if args.corpus is None:
        raise SystemExit("no corpus: pass --corpus or set FILINGS_CORPUS")
    settings = RetrievalSettings()
    if settings.model_cache is None:  # the exported model lives with the bench's data
        settings = settings.model_copy(update={"model_cache": args.data_root / "models"})
    store = prepare(args.corpus, args.data_root)
    chunks = store.scan("section_chunks").collect()
    filings = store.scan("raw_filings").collect()
    if args.compare_backends:
        return compare_backends(args, chunks, filings)
    embedder = shared_embedder(settings)
    if args.synthetic_only:
        time_synthetic(args, chunks, filings, embedder, settings)
        return 0

    update = update_index(args.data_root, chunks, filings, embedder, settings, progress=print)
    again = update_index(args.data_root, chunks, filings, embedder, settings)
    ref = update.ref
    print(
        f"\n== index: {ref.chunks} chunks, {ref.rows} windows ({ref.rows / ref.chunks:.2f} "
        "per chunk), "
        f"model {ref.model_id}"
    )
    if update.embedded_chunks:
        print(
            f"   built now: {update.embedded_chunks} chunks in {update.embed_seconds:.0f}s "
            "of embedding = "
            f"{update.embedded_chunks / update.embed_seconds:.1f} chunks/s "
            f"({update.embedded_windows / update.embed_seconds:.1f} windows/s)"
        )
    if update.embedded_sentences:
        print(
            f"   sentence vectors built now: {update.embedded_sentences} sentences in "
            f"{update.sentence_seconds:.0f}s = "
            f"{update.embedded_sentences / max(update.sentence_seconds, 1e-9):.1f}/s"
        )
    sizes = {
        p.name: sum(f.stat().st_size for f in p.rglob("*") if f.is_file())
        for p in Path(ref.path).glob("*.lance")
    }
    print(
        "   on disk: "
        + ", ".join(f"{name} {size / 2**20:.1f} MiB" for name, size in sorted(sizes.items()))
        + " (every version kept)"
    )
    sample = index_input(chunks, filings).sample(80, seed=3)
    from graphrag_core.retrieval.chunk_index import _window_rows, chunk_key

    sample = sample.with_columns(
        pl.Series(
            "key", [chunk_key(r, embedder.model_id, settings) for r in sample.iter_rows(named=True)]
        )
    )
    rows, texts = _window_rows(sample, embedder, settings)
    t0 = time.perf_counter()
    embedder.embed(texts)
    rate = sample.height / (time.perf_counter() - t0)
    print(
        f"   indexing rate now (80 chunks, {len(texts)} windows): {rate:.1f} chunks/s; "
        f"whole corpus at that rate: {ref.chunks / rate / 60:.1f} min"
    )
    print(
        f"   re-run: {again.embedded_chunks} chunks embedded, version {again.ref.version} "
        f"(was {ref.version}), {again.seconds:.1f}s"
    )
    if args.splits or args.blind or args.train_rerank:
        split_figures(args, chunks, filings, embedder, settings, ref)
        return 0

    questions = resolve_questions(chunks, filings, args.tickers)
    n_dev = sum(q["split"] == "dev" for q in questions)
    # Hit rates embed each question once (the latency figures below embed every query afresh).
    searcher = ChunkSearcher(ref, CachedEmbedder(embedder), settings, mentions_from(filings))
    print(
        f"\n== hit@{K} on {len(questions)} questions ({n_dev} dev, {len(questions) - n_dev} "
        "held out)"
    )
    print(f"   {'variant':<44} {'all':>6} {'dev':>6} {'held-out':>9}")
    variants = [
        ("vector only", "vector", None),
        ("full text only", "text", None),
        (
            "hybrid: plain rank fusion",
            "hybrid",
            Weights(company=0, company_pass=False, strip_company=False),
        ),
        ("hybrid without the company pass/bonus", "hybrid", Weights(company=0, company_pass=False)),
        ("hybrid, company words kept in full text", "hybrid", Weights(strip_company=False)),
        ("hybrid, company pass ranked on its own", "hybrid", Weights(rank_union=False)),
        ("hybrid, tables by full text only", "hybrid", Weights(table_vectors=False)),
        ("hybrid + word-overlap re-rank 0.05 (old)", "hybrid", Weights(overlap=0.05)),
        ("hybrid (default)", "hybrid", None),
    ]
    for label, mode, weights in variants:
        r = hit_rates(searcher, questions, mode, weights)
        print(f"   {label:<44} {r['all']:>6.2f} {r['dev']:>6.2f} {r['held_out']:>9.2f}", flush=True)

    r = hit_rates(searcher, questions, "vector", kind_of_vectors="prose")
    print(
        f"   {'vector only, prose windows alone':<44} {r['all']:>6.2f} {r['dev']:>6.2f} "
        f"{r['held_out']:>9.2f}"
    )
    if args.compare_windows:
        compare_windows(args, chunks, filings, embedder, settings, questions, ref)

    ann_settings = settings.model_copy(update={"ann_min_rows": 1})
    ann = ChunkSearcher(
        ann_copy(ref, settings, args.data_root),
        CachedEmbedder(embedder),
        ann_settings,
        mentions_from(filings),
    )
    print(
        f"   with an ANN index (IVF, {settings.ann_nprobes} probes; the real index gets one above "
        f"{settings.ann_min_rows:,} rows):"
    )
    for label, mode in (("vector only", "vector"), ("hybrid (default)", "hybrid")):
        r = hit_rates(ann, questions, mode)
        print(
            f"   {'  ' + label:<44} {r['all']:>6.2f} {r['dev']:>6.2f} {r['held_out']:>9.2f}",
            flush=True,
        )

    searcher = ChunkSearcher(ref, embedder, settings, mentions_from(filings))
    lat = latencies(searcher, [q["question"] for q in questions], repeat=2)
    print(
        f"\n== query latency, corpus ({ref.rows} windows): p50 {lat['p50_ms']:.1f} ms, "
        f"p95 {lat['p95_ms']:.1f} ms over {lat['n']} queries (embedding the query included)"
    )

    print("   steps, one at a time:")
    cached = ChunkSearcher(ref, CachedEmbedder(embedder), settings, mentions_from(filings))
    latencies(cached, [q["question"] for q in questions])  # embeds each question once
    print_stages(stage_latencies(cached, embedder, [q["question"] for q in questions]))
    if not args.skip_synthetic:
        time_synthetic(args, chunks, filings, embedder, settings)
    return 0


if __name__ == "__main__":
    sys.exit(main())
