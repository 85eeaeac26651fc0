"""The part of a found chunk that shows the answer (issue 24, item 2).

A search ranks chunks by their best index window, but a window is a fixed run of word pieces:
it starts and ends mid-sentence and often lies beside the sentence that answers. So a hit's
passage is chosen again, from the whole chunk, for the query:

- prose: the chunk's sentences (`text.sentences`, the splitter chunking uses, lines ending
  sentences too) are scored by the query's topic words they hold, each word weighted by how
  rare it is among the chunk's sentences (a word in every sentence says nothing about which
  one answers). The best sentence is grown by whole neighbouring sentences, the better-scoring
  side first, while the span stays under a character budget; a single longer sentence is kept
  whole. Offsets are the span's in the chunk's text, so `get_chunk` can show what surrounds it.
- tables: the body rows whose words (row labels, column words) hold the query's words (at least
  half the best row's weight), under the caption, the header rows and the scale ("in
  millions"), so the figures keep their units.

Pure functions over strings; the MCP tool only feeds them the chunk's text.
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping
from dataclasses import dataclass

from graphrag_core.retrieval.search import content_words
from graphrag_core.text.markdown_tables import (
    TABLE_RULE,
    is_group_label,
    parse_markdown_table,
    row_lines,
)
from graphrag_core.text.sentences import sentence_spans

_POSSESSIVE_RE = re.compile(r"['’]s\b")
# A heading line: a short line of its own with no sentence-ending punctuation ("Energy Storage
# Products", "Competition"). Bold headings the chunker marks are not kept in the snapshot.
_HEADING_MAX_WORDS = 12
_MIN_PREFIX = 5  # "manufacture" meets "manufacturing": a shared start this long is one word


@dataclass(frozen=True)
class Passage:
    """Whole sentences of a prose chunk: `text` is exactly chunk_text[start:end]."""

    text: str
    start: int
    end: int
    heading: str | None  # the nearest heading line above the span in the chunk, if any
    matched: tuple[str, ...]  # the query's topic words the span holds (stemmed)


@dataclass(frozen=True)
class TablePassage:
    """The rows of a table chunk that match the query, under its caption, header and scale."""

    text: str  # caption, header rows, rule and the rows, as Markdown (each line verbatim)
    start: int  # the first shown body row's offset in the chunk (0 when none matched)
    end: int  # the end of the last shown body row
    caption: str
    header: list[list[str]]
    rows: list[list[str]]
    scale: str | None
    rows_total: int  # body rows of the whole table
    matched: tuple[str, ...]


def _matches(term: str, words: set[str]) -> bool:
    if term in words:
        return True
    if len(term) < _MIN_PREFIX:
        return False
    return any(len(w) >= _MIN_PREFIX and (w.startswith(term) or term.startswith(w)) for w in words)


def _weights(terms: list[str], units: list[set[str]]) -> dict[str, float]:
    """Each query word's weight: log(1 + n / df) over the units (sentences, rows) holding it."""
    n = len(units)
    out: dict[str, float] = {}
    for term in terms:
        df = sum(1 for words in units if _matches(term, words))
        if df:
            out[term] = math.log(1 + n / df)
    return out


def _heading_before(text: str, start: int) -> str | None:
    """The nearest heading line ending at or before `start`: a line of its own, short, without
    an end mark."""
    pos = start
    for line in reversed(text[:pos].split("\n")):
        stripped = line.strip()
        if not stripped:
            continue
        if (
            len(stripped.split()) <= _HEADING_MAX_WORDS
            and stripped[-1] not in ".:;,!?"
            and not stripped.startswith(("|", "•", "-", "*"))
            and stripped[0].isupper()
        ):
            return stripped
    return None


def _query_words(query: str) -> list[str]:
    # "Home Depot's" → "home depot": a possessive is not a word of its own.
    return content_words(_POSSESSIVE_RE.sub("", query))


def best_span(
    text: str,
    query: str,
    max_chars: int,
    similarity: Mapping[tuple[int, int], float] | None = None,
    vector_weight: float = 0.0,
) -> Passage:
    """Whole sentences of `text` around the one that best matches `query`, under `max_chars`
    (or that one sentence alone when longer). A query without topic words, or one that no
    sentence matches, gets the chunk's opening sentences.

    `similarity`: the cosine of each sentence (by its offsets) with the query's vector, from the
    sentence vectors stored at index time (`retrieval.sentence_index`). A sentence's score is
    then its word score as a share of the best one's plus `vector_weight` times its cosine, so
    a sentence worded unlike the question can still win."""
    spans = sentence_spans(text, split_lines=True)
    if not spans:
        return Passage("", 0, 0, None, ())
    terms = _query_words(query)
    units = [set(content_words(text[a:b])) for a, b in spans]
    weights = _weights(terms, units)
    scores = [sum(w for t, w in weights.items() if _matches(t, words)) for words in units]
    if similarity and vector_weight > 0:
        top = max(scores) or 1.0
        scores = [
            s / top + vector_weight * max(similarity.get(span, 0.0), 0.0)
            for s, span in zip(scores, spans, strict=True)
        ]
    best = max(range(len(spans)), key=lambda i: (scores[i], -i))
    if scores[best] == 0:
        best = 0
    lo = hi = best
    while True:
        options = []
        if lo > 0 and spans[hi][1] - spans[lo - 1][0] <= max_chars:
            options.append((scores[lo - 1], 0, lo - 1))
        if hi + 1 < len(spans) and spans[hi + 1][1] - spans[lo][0] <= max_chars:
            # Ties go forward: what follows a sentence usually explains it.
            options.append((scores[hi + 1], 1, hi + 1))
        if not options:
            break
        _, _, pick = max(options)
        lo, hi = min(lo, pick), max(hi, pick)
    start, end = spans[lo][0], spans[hi][1]
    held = set().union(*units[lo : hi + 1])
    matched = tuple(t for t in terms if _matches(t, held))
    # The span's own first line counts when it is a heading ("Solar Energy Offerings" then its
    # text).
    return Passage(text[start:end], start, end, _heading_before(text, spans[lo][1]), matched)


_GROUP_SHARE = 0.5


def _group_words(body: list[list[str]], units: list[set[str]]) -> list[set[str] | None]:
    """The words of the group label above each row, None for a label itself: a statement line
    reads "Operating activities" under "Cash provided by (used in):", and "Diluted" under "Net
    earnings per common share", so a question asking for the cash operations provided, or for
    diluted earnings per share, meets the row that holds the figure."""
    out: list[set[str] | None] = []
    group: set[str] = set()
    for cells, words in zip(body, units, strict=True):
        if is_group_label(cells):
            group = words
            out.append(None)
        else:
            out.append(group)
    return out


def _positive(cosine: float) -> float:
    # A negative cosine never lowers a row below its word score; NaN counts as nothing.
    return cosine if cosine > 0 else 0.0


def table_rows(
    text: str,
    query: str,
    max_rows: int,
    scale: str | None,
    group_labels: bool = True,
    similarity: Mapping[tuple[int, int], float] | None = None,
    vector_weight: float = 0.0,
) -> TablePassage | None:
    """The body rows of the Markdown table in `text` that hold the query's words (the best
    `max_rows`, in the table's order), with its caption, header rows and `scale`; the first rows
    when none matches. A row's words include its group label's (`group_labels`). None when
    `text` holds no table.

    `similarity`: the cosine of each row (by its line's offsets) with the query's vector, from
    the row vectors stored at index time (`text.markdown_tables.table_row_units`). A row's
    score is then its word score as a share of the best row's plus `vector_weight` times its
    cosine, so "cash spent on acquisitions" can meet "Purchases of businesses, net of cash
    acquired"."""
    table = parse_markdown_table(text)
    lines = row_lines(text)
    if table is None or not table.body:
        return None
    rule = next((k for k, (_, _, ln) in enumerate(lines) if TABLE_RULE.fullmatch(ln.strip())), None)
    body_lines = lines[rule + 1 :] if rule is not None else lines
    head_lines = lines[:rule] if rule is not None else []
    terms = _query_words(query)
    units = [set(content_words(" ".join(cells))) for cells in table.body]
    groups: list[set[str] | None] = (
        _group_words(table.body, units) if group_labels else [set() for _ in units]
    )
    weights = _weights(terms, units)
    # A word of the row's group label counts half: the row itself naming the query's words
    # ("Net cash provided by operating activities") stays ahead of every row under a label
    # that names them ("Adjustments to reconcile net income to net cash provided by …:"). A
    # label row holds no figure, so its own words count half too: "Diluted" under "Net
    # earnings per common share" answers "diluted earnings per share", the label does not.
    scores = [
        sum(
            w if _matches(t, words) and group is not None else _GROUP_SHARE * w
            for t, w in weights.items()
            if _matches(t, words) or (group and _matches(t, group))
        )
        for words, group in zip(units, groups, strict=True)
    ]
    if similarity and vector_weight > 0:
        top = max(scores, default=0.0) or 1.0
        scores = [
            s / top + vector_weight * _positive(similarity.get((a, b), 0.0))
            for s, (a, b, _) in zip(scores, body_lines, strict=False)
        ] + [s / top for s in scores[len(body_lines) :]]
    # A row holding only a minor part of the query ("Income from operations" for "net income")
    # is noise beside one that holds it all: rows under half the best row's score are left out.
    floor = max(scores, default=0.0) / 2
    ranked = sorted(
        (i for i, s in enumerate(scores) if s > 0 and s >= floor), key=lambda i: (-scores[i], i)
    )
    chosen = sorted(ranked[:max_rows]) or list(range(min(max_rows, len(table.body))))
    shown = [body_lines[i] for i in chosen if i < len(body_lines)]
    parts = [table.caption] if table.caption else []
    parts += [ln for _, _, ln in head_lines] + ([lines[rule][2]] if rule is not None else [])
    parts += [ln for _, _, ln in shown]
    held = set().union(*(units[i] for i in chosen)) if chosen else set()
    return TablePassage(
        text="\n".join(parts),
        start=shown[0][0] if shown else 0,
        end=shown[-1][1] if shown else 0,
        caption=table.caption,
        header=table.header,
        rows=[table.body[i] for i in chosen],
        scale=scale or None,
        rows_total=len(table.body),
        matched=tuple(t for t in terms if ranked and _matches(t, held)),
    )


def hit_passage(
    text: str,
    kind: str | None,
    query: str,
    max_chars: int,
    max_rows: int,
    scale: str | None = None,
    similarity: Mapping[tuple[int, int], float] | None = None,
    vector_weight: float = 0.0,
    row_vector_weight: float = 0.0,
) -> Passage | TablePassage:
    """What a search hit shows of its chunk: a table's matching rows (when it parses as one, by
    the rows' cosines too when given, at `row_vector_weight`), else the best whole-sentence span
    (`best_span`, with the sentences' cosines when given, at `vector_weight`)."""
    if kind == "table":
        rows = table_rows(text, query, max_rows, scale, True, similarity, row_vector_weight)
        if rows is not None:
            return rows
    return best_span(text, query, max_chars, similarity, vector_weight)
