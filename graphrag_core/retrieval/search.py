"""Hybrid passage search over one chunk-index version: vectors and full text, fused.

    query ─┬─ company mentions ("NVIDIA", "Google", "AAPL") → a company-restricted pass as well,
           │  and the company's own words left out of the full-text query
           ├─ vector search over windows of 128 word pieces (best window per chunk; a table by
           │  the vector of its digest)
           └─ full-text search (BM25) over the same windows, headings included
       → reciprocal-rank fusion per chunk (each search ranked once over the union of its
         passes), a small bonus for the companies the query names → top k, whose passages and
         citations are read last, by row id

Every figure behind these choices is measured by `bench/retrieval.py` (vector-only, full-text
only and hybrid hit@8, and each part switched off, on a question set with a held-out part).
Filters (company, form, section, period) are applied inside both searches (prefiltering),
never after the cut. The searches of one query run side by side on a small thread pool.
"""

from __future__ import annotations

import datetime as dt
import logging
import re
import threading
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field, replace
from functools import lru_cache
from typing import Any

import numpy as np

from graphrag_core.common.errors import GraphragError
from graphrag_core.common.names import normalize_name
from graphrag_core.retrieval.asked_period import AskedPeriod, asked_period
from graphrag_core.retrieval.embedder import build_embedder
from graphrag_core.retrieval.embedding_model import Embedder
from graphrag_core.retrieval.rerank import RerankModel, SentenceStats, load_model, pool_features
from graphrag_core.retrieval.synonyms import expand_terms
from graphrag_core.settings import RetrievalSettings
from graphrag_core.store.chunk_index_ref import ChunkIndexRef

log = logging.getLogger(__name__)
_WORD_RE = re.compile(r"[a-z0-9][a-z0-9'\-]*")
# Words that carry no topic in an analyst's question (besides English stop words).
STOP_WORDS = frozenset(
    """a an and are as at be been being but by can could did do does doing for from had has have
    how i if in into is it its it's itself me more most my no nor not of off on once only or other
    our out over own same she should so some such than that the their theirs them then there
    these they this those through to too under until up very was we were what when where which
    while who whom why will with would you your yours about against between during before after
    above below again further any both each few here all also company company's companies
    describe say said says tell discuss explain mention mentioned mentions report reported
    reports filing filings disclose disclosed disclosure according""".split()
)
_FY_RE = re.compile(r"^FY\s?(\d{4})$", re.I)
_FQ_RE = re.compile(r"^(Q[1-4])[\s-]*FY\s?(\d{4})$", re.I)
_CY_RE = re.compile(r"^(\d{4})$")
_CQ_RE = re.compile(r"^(\d{4})[\s-]*Q([1-4])$", re.I)
# A question asking for an amount: its answer is usually a table's row (a statement line, a
# segment figure, a share count), while prose around the table discusses the same words.
_QUANTITY_RE = re.compile(
    r"\bhow (much|many|large|big|profitable)\b|\bworth\b|\bwhat (share|percentage|portion|"
    r"proportion|fraction|average price|rate|amount|total|value)\b|\bwhat (was|were|is|are) "
    r"(the )?\S+(['’]s)? (total|net|diluted|basic|effective|gross)\b",
    re.I,
)
# "What were Apple's Wearables sales in the third quarter?": a question for the figure of a
# named line, asked without "how much"; a statement's or a segment table's row answers it.
_LINE_AMOUNT_RE = re.compile(
    r"\bwhat (was|were|is|are)\b[^?]{0,160}?\b(revenues?|sales|income|earnings|expenses?|costs?|"
    r"assets|liabilities|cash|debt|margins?|salary|salaries|compensation|dividends?|profits?|"
    r"loss(es)?|backlog|deposits|price|ticket|spending|borrowings|balance|outstanding)\b",
    re.I,
)
_SECTION_OK = re.compile(r"^[A-Za-z0-9 .,'&/\-]{1,80}$")
_ITEM_RE = re.compile(r"^item\s+(\d{1,2}[A-C]?(?:\.\d{2})?)$", re.I)


class SearchError(GraphragError):
    """A search that cannot run as asked (bad filter, index missing or of another model)."""


def content_words(text: str) -> list[str]:
    """The query's topic words: lower case, no stop words, crude plural folding."""
    out = []
    for word in _WORD_RE.findall(text.lower()):
        word = word.strip("'-")
        if len(word) < 2 or word in STOP_WORDS:
            continue
        out.append(_stem(word))
    return list(dict.fromkeys(out))


def asks_amount(query: str) -> bool:
    """Whether the question asks for an amount (how much, how many, what share, worth …, or
    what a named line's figure was: "What were Visa's data processing revenues in 2024?")."""
    return bool(_QUANTITY_RE.search(query) or _LINE_AMOUNT_RE.search(query))


def _stem(word: str) -> str:
    for suffix in ("ies", "es", "s"):
        if len(word) > 4 and word.endswith(suffix) and not word.endswith("ss"):
            return word[: -len(suffix)] + ("y" if suffix == "ies" else "")
    return word


def _quote(value: str) -> str:
    return "'" + value.replace("'", "''") + "'"


@dataclass(frozen=True)
class Filters:
    """What a search is restricted to. Every value is validated before it reaches a filter
    expression, and quoted there."""

    company_ids: tuple[str, ...] = ()
    section: str | None = None
    form: str | None = None
    period: str | None = None
    kind: str | None = None

    def where(self) -> str | None:
        parts: list[str] = []
        if self.company_ids:
            parts.append(f"company_id IN ({', '.join(_quote(c) for c in self.company_ids)})")
        if self.form:
            form = self.form.strip().upper()
            if not re.fullmatch(r"[0-9A-Z/\-]{1,12}", form):
                raise SearchError(f"form {self.form!r}: expected e.g. 10-K, 10-Q, 8-K")
            parts.append(f"form = {_quote(form)}")
        if self.kind:
            if self.kind not in ("prose", "table"):
                raise SearchError(f"kind {self.kind!r}: expected prose or table")
            parts.append(f"kind = {_quote(self.kind)}")
        if self.section:
            parts.append(_section_filter(self.section))
        if self.period:
            parts.append(_period_filter(self.period))
        return " AND ".join(parts) or None


def _section_filter(section: str) -> str:
    text = section.strip()
    if not _SECTION_OK.match(text):
        raise SearchError(
            f"section {section[:80]!r}: expected a label such as '10-K/Item 1A', 'Item 7' or a "
            "title such as 'Risk Factors'"
        )
    if "/" in text:
        return f"section = {_quote(text)}"
    if m := _ITEM_RE.match(text):
        item = m.group(1).upper()
        return f"(section LIKE {_quote('%/Item ' + item)})"
    return f"lower(section_title) LIKE {_quote('%' + text.lower() + '%')}"


def _period_filter(period: str) -> str:
    """FY2024 (the company's fiscal year), Q2-FY2025 (its fiscal quarter), 2024 (filings whose
    period ends in calendar 2024), 2024-Q3 (period ending in that calendar quarter)."""
    text = period.strip()
    if m := _FY_RE.match(text):
        return f"fiscal_year = {int(m.group(1))}"
    if m := _FQ_RE.match(text):
        return f"(fiscal_year = {int(m.group(2))} AND fiscal_period = {_quote(m.group(1).upper())})"
    if m := _CY_RE.match(text):
        year = int(m.group(1))
        return f"(period_end >= date '{year}-01-01' AND period_end <= date '{year}-12-31')"
    if m := _CQ_RE.match(text):
        year, q = int(m.group(1)), int(m.group(2))
        start = dt.date(year, 3 * q - 2, 1)
        end = dt.date(year + (q == 4), (3 * q) % 12 + 1, 1) - dt.timedelta(days=1)
        return f"(period_end >= date '{start}' AND period_end <= date '{end}')"
    raise SearchError(
        f"period {period[:40]!r}: expected FY2024 (fiscal year), Q2-FY2025 (fiscal quarter), "
        "2024 (calendar year of the period end) or 2024-Q3 (calendar quarter)"
    )


@dataclass
class Hit:
    chunk_id: str
    score: float
    filing_id: str
    company_id: str | None
    company: str | None
    form: str | None
    section: str | None
    section_title: str | None
    kind: str | None
    fiscal_year: int | None
    fiscal_period: str | None
    period_end: dt.date | None
    filed_date: dt.date | None
    window_text: str
    window_start: int
    window_end: int
    vector_rank: int | None = None
    text_rank: int | None = None
    matched_company: bool = False
    matched_period: bool = False  # its filing is of the period (and form) the query names
    key: str | None = None  # the chunk's index key (its sentence vectors are stored under it)
    vector_score: float | None = None  # the best window's cosine with the query
    text_score: float | None = None  # the best window's BM25 score


@dataclass(frozen=True)
class Weights:
    """How the fused score is made; bench/retrieval.py measures each part switched off, on the
    dev and the held-out questions side by side.

    - `vector`, `text`: weights of the two reciprocal ranks (settings.rrf_k).
    - `company_pass`, `company`: when the query names a company, both searches run once more
      restricted to it (its passages cannot be crowded out of the candidates), and its hits get
      a small bonus.
    - `strip_company`: the named company's own words are left out of the full-text query: the
      restricted pass already holds them, and every window of that company carries them in its
      heading, so they only favour its shortest chunks (page headers, "Not applicable.").
    - `rank_union`: each search is ranked once over the union of its passes by its own score
      (False: the company pass's hits keep their rank within that pass, which lets mediocre
      passages of the company outrank a strong one that only one search found).
    - `table_vectors`: tables take part in the vector search by their digest's vector (False:
      tables are found by full text only).
    - `overlap`: a re-rank by the share of the query's words in the passage. Chosen on the dev
      questions at 0.05, it cost 0.08 of hit@8 on the corpus (0.25 on the held-out ones), so it
      is off; kept for the benchmark's ablation.
    - `sentences`, `sentence_pool`: a re-rank of the fused top `sentence_pool` by the best
      cosine of a chunk's stored sentence vectors with the query (times `sentences`; a chunk
      without them, a table, gets the pool's mean). None: settings.sentence_rerank and
      sentence_rerank_pool (0.02 of the top 30, chosen on the dev questions: hit@8 0.85 → 0.97).
    - `tables`: added to a table chunk's fused score when the question asks for an amount
      (`asks_amount`). None: settings.table_route (0.005, chosen on the dev questions: the
      paraphrased part's hit@8 0.72 → 0.83, the first part unchanged).
    - `expand`: the full-text query also holds the filings' words for the question's
      (retrieval/synonyms.py). None: settings.query_expansion.
    - `period`: added to the fused score of a chunk whose filing is of the period (and form) the
      question names (retrieval/asked_period.py). None: settings.period_route.
    - `learned`: the fused top settings.learned_rerank_pool are ordered by the learned scorer
      (retrieval/rerank.py) instead of the sentence re-rank. None: settings.rerank.
    """

    vector: float = 1.0
    text: float = 1.0
    overlap: float = 0.0
    sentences: float | None = None
    sentence_pool: int | None = None
    company: float = 0.01
    company_pass: bool = True
    strip_company: bool = True
    table_vectors: bool = True
    rank_union: bool = True
    tables: float | None = None
    expand: bool | None = None
    learned: bool | None = None
    period: float | None = None


@dataclass
class Mentions:
    """Companies a query names, found by whole-word matches of their names and tickers."""

    aliases: dict[str, str] = field(default_factory=dict)  # normalized alias → company_id
    tickers: dict[str, str] = field(default_factory=dict)  # TICKER → company_id
    topics: set[str] = field(default_factory=set)  # aliases that are also a topic (segments)

    def find(self, query: str) -> tuple[str, ...]:
        found: list[str] = []
        for token in re.findall(r"\b[A-Z]{2,5}\b", query):
            if token in self.tickers:
                found.append(self.tickers[token])
        norm = f" {normalize_name(query)} "
        for alias, company_id in self.aliases.items():
            if f" {alias} " in norm:
                found.append(company_id)
        return tuple(dict.fromkeys(found))

    def name_words(self, query: str, company_ids: Sequence[str]) -> frozenset[str]:
        """The words by which the query names these companies (a name or ticker found in it),
        lower case; the words of `topics` aliases (segments such as "reality labs") are left
        out, since they say what the query is about as well as whose it is."""
        ids = set(company_ids)
        out: set[str] = set()
        for token in re.findall(r"\b[A-Z]{2,5}\b", query):
            if self.tickers.get(token) in ids:
                out.add(token.lower())
        norm = f" {normalize_name(query)} "
        for alias, company_id in self.aliases.items():
            if company_id in ids and alias not in self.topics and f" {alias} " in norm:
                out.update(_TERM_RE.findall(alias))
        return frozenset(out)


_TERM_RE = re.compile(r"[a-z0-9]+")
_POSSESSIVE_RE = re.compile(r"['’]s\b")


def text_terms(query: str, drop: frozenset[str] = frozenset()) -> list[str]:
    """The full-text query: the query's words, lower case, without stop words, possessives or
    the words in `drop`. Not stemmed here: the index stems both sides the same way."""
    words = _TERM_RE.findall(_POSSESSIVE_RE.sub("", query.lower()))
    return list(
        dict.fromkeys(w for w in words if len(w) > 1 and w not in STOP_WORDS and w not in drop)
    )


_COLUMNS = [
    "chunk_id",
    "filing_id",
    "company_id",
    "company",
    "form",
    "section",
    "section_title",
    "kind",
    "fiscal_year",
    "fiscal_period",
    "period_end",
    "filed_date",
    "char_start",
    "char_end",
    "text",
    "key",
]
# What fusion needs of a candidate window; the rest is read for the k hits only.
_CANDIDATE_COLUMNS = ["chunk_id", "filing_id", "company_id"]
# What the period route reads of a candidate: its filing's form and period.
_PERIOD_COLUMNS = ["form", "fiscal_year", "fiscal_period", "period_end"]


class ChunkSearcher:
    """Search one index version. Thread-safe: LanceDB tables are read concurrently."""

    def __init__(
        self,
        ref: ChunkIndexRef,
        embedder: Embedder,
        settings: RetrievalSettings,
        mentions: Mentions | None = None,
    ):
        import lancedb

        if embedder.model_id != ref.model_id:
            raise SearchError(
                f"the chunk index was built with {ref.model_id} but queries would be embedded "
                f"with {embedder.model_id}; rebuild the index (materialize chunk_index) or set "
                "GRAPHRAG_RETRIEVAL_* to the model it was built with"
            )
        self.ref = ref
        self.embedder = embedder
        self.settings = settings
        self.mentions = mentions or Mentions()
        try:
            db = lancedb.connect(ref.path)
            table: Any = db.open_table(ref.table)
            table.checkout(ref.version)
        except (OSError, ValueError, RuntimeError) as exc:
            raise SearchError(
                f"chunk index {ref.path} version {ref.version} cannot be opened ({exc}); "
                "publish a new snapshot (materialize chunk_index and graph_snapshot)"
            ) from exc
        self.table = table
        # The first queries would otherwise load the full-text and scalar indexes; the vector
        # index (hundreds of MB at 400,000 rows) loads the partitions queries probe.
        try:
            for index in table.list_indices():
                if index.index_type in ("FTS", "BTree"):
                    table.prewarm_index(index.name)
        except (OSError, ValueError, RuntimeError) as exc:  # a hint only: search works without it
            log.debug("prewarming %s: %s", ref.path, exc)
        # The searches of one query run side by side (LanceDB releases the GIL).
        self._pool = ThreadPoolExecutor(max_workers=4, thread_name_prefix="chunk-search")
        from graphrag_core.retrieval.sentence_index import SentenceVectors

        self.sentences = SentenceVectors.open(ref.path, ref.dimensions)
        # The last few queries' vectors: a search's passages reuse its vector (a handful only, so
        # a query asked again later is embedded again, as latency benchmarks assume).
        self._vectors: dict[str, Any] = {}
        self._vectors_lock = threading.Lock()
        self._rerank_model: RerankModel | None = None
        self._rerank_refused = False  # the weights were read once and refused
        self._rerank_lock = threading.Lock()

    def query_vector(self, query: str) -> Any:
        """The query's vector, embedded once for a search and its passages."""
        with self._vectors_lock:
            vector = self._vectors.get(query)
        if vector is None:
            vector = self.embedder.embed([query])[0]
            with self._vectors_lock:
                if len(self._vectors) >= 8:
                    self._vectors.pop(next(iter(self._vectors)))
                self._vectors[query] = vector
        return vector

    def sentence_similarities(
        self, query: str, keys: Sequence[str | None]
    ) -> dict[str, dict[tuple[int, int], float]]:
        """Chunk key → {(start, end): cosine with the query} of each stored sentence, for the
        chunks (by index key) whose sentence vectors are stored; empty when none are."""
        wanted = [k for k in keys if k]
        if self.sentences is None or not wanted:
            return {}
        try:
            return self.sentences.similarities(wanted, self.query_vector(query))
        except (OSError, ValueError, RuntimeError) as exc:  # the word score still picks
            log.debug("sentence vectors: %s", exc)
            return {}

    # -- the two searches ------------------------------------------------------------------
    def vector_ranked(
        self,
        query: str,
        where: str | None,
        n: int,
        vector: Sequence[float] | None = None,
        columns: Sequence[str] = tuple(_COLUMNS),
    ) -> list[dict]:
        vec = vector if vector is not None else self.embedder.embed([query])[0]
        q: Any = self.table.search(vec, vector_column_name="vector")
        q = q.distance_type("cosine")
        if where:
            q = q.where(where, prefilter=True)
        if self.ref.rows >= self.settings.ann_min_rows:
            q = q.nprobes(self.settings.ann_nprobes)
        rows = q.select([*columns, "_distance"]).with_row_id(True).limit(n * 3).to_list()
        return _best_per_chunk(rows, key=lambda r: -r["_distance"], n=n)

    def text_ranked(
        self,
        query: str,
        where: str | None,
        n: int,
        terms: Sequence[str] | None = None,
        columns: Sequence[str] = tuple(_COLUMNS),
    ) -> list[dict]:
        words = list(terms) if terms is not None else text_terms(query)
        if not words:
            return []
        q = self.table.search(" ".join(words), query_type="fts", fts_columns="text")
        if where:
            q = q.where(where, prefilter=True)
        try:
            rows = q.select([*columns, "_score"]).with_row_id(True).limit(n * 3).to_list()
        except (ValueError, RuntimeError) as exc:
            raise SearchError(f"full-text search failed: {exc}") from exc
        return _best_per_chunk(rows, key=lambda r: r["_score"], n=n)

    # -- hybrid -----------------------------------------------------------------------------
    def search(
        self,
        query: str,
        filters: Filters | None = None,
        k: int = 8,
        mode: str = "hybrid",
        weights: Weights | None = None,
    ) -> list[Hit]:
        """Top `k` chunks for `query`. mode: hybrid (default), vector or text (for measuring)."""
        filters = filters or Filters()
        w = weights or Weights()
        hybrid = mode == "hybrid"
        where = filters.where()
        n = max(self.settings.candidates, k)
        named = () if filters.company_ids else self.mentions.find(query)
        drop = (
            self.mentions.name_words(query, named)
            if hybrid and named and w.strip_company
            else frozenset()
        )
        terms = text_terms(query, drop)
        if self.settings.query_expansion if w.expand is None else w.expand:
            terms = expand_terms(terms)
        vector = self.query_vector(query) if mode != "text" else None
        wheres = [where]
        if hybrid and named and w.company_pass:
            restricted = Filters(named, filters.section, filters.form, filters.period, filters.kind)
            wheres.insert(0, restricted.where())
        table_route = self.settings.table_route if w.tables is None else w.tables
        amount = hybrid and asks_amount(query)
        route = amount and bool(table_route)
        learned = (
            hybrid
            and (self.settings.rerank == "learned" if w.learned is None else w.learned)
            and self.rerank_model() is not None
        )
        period_route = self.settings.period_route if w.period is None else w.period
        # The learned re-rank reads whether a chunk is of the asked period even when the
        # route's bonus is off.
        asked = asked_period(query) if hybrid and (period_route or learned) else AskedPeriod()
        # Candidates carry only what fusion reads (a chunk's kind only when tables are routed
        # to, its filing's form and period only when the question names one: each column costs
        # every candidate a read); the overlap re-rank reads their text.
        thin = (
            _CANDIDATE_COLUMNS + ["kind"] if route or (learned and amount) else _CANDIDATE_COLUMNS
        )
        if asked:
            thin = thin + _PERIOD_COLUMNS
        columns = _COLUMNS if w.overlap and hybrid else thin
        if w.sentences is None or w.sentence_pool is None:
            w = replace(
                w,
                sentences=self.settings.sentence_rerank if w.sentences is None else w.sentences,
                sentence_pool=w.sentence_pool or self.settings.sentence_rerank_pool,
            )
        rerank = hybrid and bool(w.sentences) and self.sentences is not None
        jobs = []
        for clause in wheres:
            if mode != "text":
                vclause = (
                    clause
                    if w.table_vectors
                    else " AND ".join(c for c in (clause, "kind = 'prose'") if c)
                )
                jobs.append(
                    ("v", self._pool.submit(self.vector_ranked, query, vclause, n, vector, columns))
                )
            if mode != "vector":
                jobs.append(
                    ("t", self._pool.submit(self.text_ranked, query, clause, n, terms, columns))
                )
        best: dict[str, Hit] = {}
        rows_by_id: dict[str, dict] = {}
        lists: dict[str, list[list[dict]]] = {"v": [], "t": []}
        for kind, job in jobs:
            lists[kind].append(job.result())
        for kind, results in lists.items():
            if w.rank_union and len(results) > 1:
                # One ranking per search over the union of its passes, by score: the company
                # pass only adds candidates, it does not give them ranks of their own.
                key = (lambda r: -r["_distance"]) if kind == "v" else (lambda r: r["_score"])
                results = [_best_per_chunk([r for rows in results for r in rows], key, 2 * n)]
            for rows in results:
                for rank, row in enumerate(rows, 1):
                    hit = best.setdefault(row["chunk_id"], _hit(row))
                    rows_by_id.setdefault(row["chunk_id"], row)
                    if kind == "v":
                        hit.vector_rank = min(hit.vector_rank or rank, rank)
                        cos = 1.0 - float(row["_distance"])
                        hit.vector_score = max(hit.vector_score or cos, cos)
                    else:
                        hit.text_rank = min(hit.text_rank or rank, rank)
                        bm25 = float(row["_score"])
                        hit.text_score = max(hit.text_score or bm25, bm25)
        rrf = self.settings.rrf_k
        words = content_words(query)
        for hit in best.values():
            score = 0.0
            if hit.vector_rank:
                score += w.vector / (rrf + hit.vector_rank)
            if hit.text_rank:
                score += w.text / (rrf + hit.text_rank)
            if hybrid:
                if w.overlap and words:
                    body = hit.window_text.lower()
                    score += w.overlap * sum(1 for word in words if word in body) / len(words)
                if named and hit.company_id in named:
                    hit.matched_company = True
                    score += w.company
                if route and hit.kind == "table":
                    score += table_route
                if asked and asked.matches(
                    hit.form, hit.fiscal_year, hit.fiscal_period, hit.period_end
                ):
                    hit.matched_period = True
                    score += period_route
            hit.score = score
        ranked = sorted(best.values(), key=lambda h: (-h.score, h.chunk_id))
        if learned and vector is not None:
            ranked = self._learned_rerank(ranked, vector, amount)
        elif rerank and vector is not None:
            ranked = self._sentence_rerank(ranked, vector, w)
        top = [h for h in ranked if h.score > 0][:k]
        return self._materialize(top, rows_by_id) if columns is thin else top

    def _sentence_rerank(self, ranked: list[Hit], vector: Any, w: Weights) -> list[Hit]:
        pool = [h for h in ranked if h.score > 0][: w.sentence_pool or 0]
        if self.sentences is None or not pool:
            return ranked
        try:
            best = self.sentences.best_by_chunk([h.chunk_id for h in pool], vector)
        except (OSError, ValueError, RuntimeError) as exc:  # the fused order stands
            log.debug("sentence re-rank: %s", exc)
            return ranked
        mean = sum(best.values()) / len(best) if best else 0.0
        for h in pool:
            h.score += (w.sentences or 0.0) * best.get(h.chunk_id, mean)
        pool.sort(key=lambda h: (-h.score, h.chunk_id))
        return pool + ranked[len(pool) :]

    def pool_features(self, hits: Sequence[Hit], query: str) -> np.ndarray:
        """The learned re-rank's features (rerank.FEATURES) of these fused candidates, one row
        each; what `_learned_rerank` scores, and what `bench/retrieval.py --train-rerank` trains
        on (there from a search's hits without any re-rank)."""
        return self._features(hits, self.query_vector(query), asks_amount(query))

    def _features(self, hits: Sequence[Hit], vector: Any, amount: bool) -> np.ndarray:
        stats: dict[str, SentenceStats] = {}
        if self.sentences is not None and hits:
            try:
                stats = self.sentences.stats_by_chunk([h.chunk_id for h in hits], vector)
            except (OSError, ValueError, RuntimeError) as exc:  # features without sentences
                log.debug("sentence stats: %s", exc)
        return pool_features(hits, stats, amount, self.settings.rrf_k)

    def _learned_rerank(self, ranked: list[Hit], vector: Any, amount: bool) -> list[Hit]:
        pool = [h for h in ranked if h.score > 0][: self.settings.learned_rerank_pool]
        model = self.rerank_model()
        if not pool or model is None:
            return ranked
        learned = model.score(self._features(pool, vector, amount))
        # The pool is ordered by the learned score; its scores stay on the fused scale (spread
        # between the pool's lowest and highest fused score), so hits stay sorted by score.
        low, high = pool[-1].score, pool[0].score
        order = sorted(range(len(pool)), key=lambda i: (-learned[i], pool[i].chunk_id))
        span = float(learned.max() - learned.min()) if len(pool) > 1 else 0.0
        for i in order:
            share = (float(learned[i] - learned.min()) / span) if span > 0 else 1.0
            pool[i].score = low + share * (high - low)
        return [pool[i] for i in order] + ranked[len(pool) :]

    def rerank_model(self) -> RerankModel | None:
        """The learned re-rank's weights, read once. None, logged once, when the file is
        unusable or was trained on another embedding model's cosines than this index's: the
        hand-set re-rank then orders the pool."""
        with self._rerank_lock:
            return self._read_rerank_model()

    def _read_rerank_model(self) -> RerankModel | None:
        if self._rerank_model is None and not self._rerank_refused:
            self._rerank_refused = True
            try:
                model = load_model(self.settings.learned_rerank_weights)
            except (OSError, ValueError, KeyError, TypeError) as exc:
                log.warning("learned re-rank weights unusable, hand-set re-rank used: %s", exc)
                return None
            if not model.fits(self.ref.model_id):
                log.warning(
                    "learned re-rank weights were trained on %s cosines, this index holds %s "
                    "vectors: hand-set re-rank used (retrain: python bench/retrieval.py "
                    "--train-rerank)",
                    model.embedding,
                    self.ref.model_id,
                )
                return None
            self._rerank_model = model
        return self._rerank_model

    def _materialize(self, hits: list[Hit], rows: dict[str, dict]) -> list[Hit]:
        """Read the k hits' passages and citations (each one's best window) by row id."""
        if not hits:
            return hits
        ids = [rows[h.chunk_id]["_rowid"] for h in hits]
        full = {
            r["_rowid"]: r
            for r in self.table.take_row_ids(ids).select(_COLUMNS).with_row_id().to_list()
        }
        out = []
        for h in hits:
            hit = _hit(full[rows[h.chunk_id]["_rowid"]])
            hit.score, hit.vector_rank, hit.text_rank = h.score, h.vector_rank, h.text_rank
            hit.matched_company, hit.matched_period = h.matched_company, h.matched_period
            hit.vector_score, hit.text_score = h.vector_score, h.text_score
            out.append(hit)
        return out


def _best_per_chunk(rows: list[dict], key: Callable[[dict], float], n: int) -> list[dict]:
    """Rows are windows; a chunk ranks by its best window."""
    out: dict[str, dict] = {}
    for row in sorted(rows, key=key, reverse=True):
        out.setdefault(row["chunk_id"], row)
        if len(out) >= n:
            break
    return list(out.values())


def _hit(row: dict) -> Hit:
    text = row.get("text") or ""
    body = text.split("\n", 1)[1] if "\n" in text else text
    return Hit(
        chunk_id=row["chunk_id"],
        score=0.0,
        filing_id=row["filing_id"],
        company_id=row.get("company_id"),
        company=row.get("company"),
        form=row.get("form"),
        section=row.get("section"),
        section_title=row.get("section_title"),
        kind=row.get("kind"),
        fiscal_year=row.get("fiscal_year"),
        fiscal_period=row.get("fiscal_period"),
        period_end=row.get("period_end"),
        filed_date=row.get("filed_date"),
        window_text=body,
        window_start=int(row.get("char_start") or 0),
        window_end=int(row.get("char_end") or 0),
        key=row.get("key"),
    )


# -- one model per process, one searcher per index version ---------------------------------
_lock = threading.Lock()


@lru_cache(maxsize=2)
def _embedder_for(settings_json: str) -> Embedder:
    return build_embedder(RetrievalSettings.model_validate_json(settings_json))


def shared_embedder(settings: RetrievalSettings) -> Embedder:
    """The embedding model, loaded once per process and settings (loading takes seconds)."""
    with _lock:
        return _embedder_for(settings.model_dump_json())


@dataclass
class SearcherCache:
    """Searchers by index version, so a server opens each version once; `mentions` builds the
    company-name matcher for a version (from the snapshot's aliases)."""

    settings: RetrievalSettings
    _searchers: dict[tuple[str, int], ChunkSearcher] = field(default_factory=dict)
    _lock: threading.Lock = field(default_factory=threading.Lock)

    def get(self, ref: ChunkIndexRef, mentions: Callable[[], Mentions]) -> ChunkSearcher:
        key = (ref.path, ref.version)
        with self._lock:
            searcher = self._searchers.get(key)
            if searcher is None:
                searcher = ChunkSearcher(
                    ref, shared_embedder(self.settings), self.settings, mentions()
                )
                # Keep the newest few versions only: a server follows LATEST forward.
                if len(self._searchers) >= 3:
                    self._searchers.pop(next(iter(self._searchers)))
                self._searchers[key] = searcher
            return searcher
