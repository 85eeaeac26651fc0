"""Sections → chunks that never cross a section, with spans into the filing's normalized text.

Prose is packed paragraph by paragraph (a paragraph over the budget is cut at sentence
boundaries) up to a token budget, preferring to end a chunk at a paragraph break; an optional
overlap repeats trailing sentences. A table is one chunk (with the short caption lines right
above it), split into row groups that repeat the header rows only when it is huge; its scale
statement rides along as `scale_header`.

For every chunk except a table's continuation parts, `text == filing_text[char_start:char_end]`;
continuation parts repeat the header rows, so their span covers only their own rows.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass

from graphrag_core.common.ids import content_hash, sha256_text
from graphrag_core.settings import ChunkingSettings
from graphrag_core.text.parsing import Block
from graphrag_core.text.sections import Section
from graphrag_core.text.sentences import sentence_spans

_TOKEN_RE = re.compile(r"\w+|[^\w\s]")
_CAPTION_MAX = 160


def count_tokens(text: str) -> int:
    """Word-piece estimate (words and punctuation marks), close to BPE counts for English
    filings and an order of magnitude cheaper than a real tokenizer."""
    return len(_TOKEN_RE.findall(text))


def chunk_id(filing_id: str, section: str, ordinal: int, text: str) -> str:
    """Stable across runs: filing id + section + ordinal + content hash."""
    return f"{filing_id}:{content_hash(filing_id, section, ordinal, sha256_text(text))}"


@dataclass(frozen=True, slots=True)
class _Unit:
    start: int  # absolute offsets in the filing text
    end: int
    tokens: int
    paragraph_start: bool
    lead_in: bool = False  # a paragraph ending in ':' introduces what follows
    bullet: bool = False  # a list item


_BULLET_START_RE = re.compile(
    r"^(?:[•●○◦▪■□·∙‣⁃*–—-]|\(?[0-9ivxlc]{1,4}[.)]|\(?[a-z][.)])\s*", re.I
)


def _split_long(text: str, base: int, budget: int) -> Iterable[_Unit]:
    """A sentence longer than the budget (a run-on list, a legal definition): cut at
    whitespace so that each piece stays within the budget."""
    pieces: list[tuple[int, int, int]] = []
    start: int | None = None
    end = 0
    tokens = 0
    for word in re.finditer(r"\S+", text):
        n = count_tokens(word.group())
        if start is not None and tokens + n > budget:
            pieces.append((start, end, tokens))
            start, tokens = None, 0
        if start is None:
            start = word.start()
        end = word.end()
        tokens += n
    if start is not None:
        pieces.append((start, end, tokens))
    for k, (s, e, n) in enumerate(pieces):
        yield _Unit(base + s, base + e, n, k == 0)


def _units(block: Block, budget: int) -> list[_Unit]:
    tokens = count_tokens(block.text)
    if tokens <= budget:
        return [
            _Unit(
                block.start,
                block.end,
                tokens,
                True,
                lead_in=block.text.rstrip().endswith(":"),
                bullet=_BULLET_START_RE.match(block.text) is not None,
            )
        ]
    units: list[_Unit] = []
    for k, (s, e) in enumerate(sentence_spans(block.text, require_capital=True)):
        piece = block.text[s:e]
        n = count_tokens(piece)
        if n > budget:
            parts = list(_split_long(piece, block.start + s, budget))
            if k and parts:
                parts[0] = _Unit(parts[0].start, parts[0].end, parts[0].tokens, False)
            units.extend(parts)
        else:
            units.append(_Unit(block.start + s, block.start + e, n, k == 0))
    return units


def _breakable(units: list[_Unit], j: int) -> bool:
    """May a chunk end before unit j? Not inside a paragraph, not right after a lead-in
    ("Our competitors include:") and not between two items of one list: an extractor that
    sees the items without their lead-in cannot tell what they are."""
    prev, cur = units[j - 1], units[j]
    return (
        cur.paragraph_start
        and not prev.lead_in
        and not (cur.bullet and (prev.bullet or prev.lead_in))
    )


def _pack(units: list[_Unit], budget: int, overlap: int) -> list[tuple[int, int]]:
    """Greedy packing into (start unit, end unit) ranges. A chunk ends at the last good break
    (a paragraph boundary outside a list) if that leaves it at least half full, else where the
    budget runs out; `overlap` tokens of trailing units are repeated in the next chunk."""
    ranges: list[tuple[int, int]] = []
    i = 0
    n = len(units)
    while i < n:
        total = 0
        j = i
        last_break = None
        while j < n and (j == i or total + units[j].tokens <= budget):
            if j > i and total >= budget // 2 and _breakable(units, j):
                last_break = j
            total += units[j].tokens
            j += 1
        if j < n and not _breakable(units, j):
            if last_break is not None:
                j = last_break
            elif units[j].bullet or units[j - 1].lead_in:
                # No good break in the second half and the budget runs out inside a list:
                # start the next chunk at the list's lead-in rather than orphan the items.
                k = j
                while k - 1 > i and not _breakable(units, k):
                    k -= 1
                if _breakable(units, k):
                    j = k
        ranges.append((i, j))
        if j >= n:
            break
        if overlap:
            back, k = 0, j
            while k - 1 > i and back + units[k - 1].tokens <= overlap:
                k -= 1
                back += units[k].tokens
            i = k if k < j else j
        else:
            i = j
    return ranges


def _is_caption(block: Block) -> bool:
    text = block.text
    return (
        block.kind == "text"
        and len(text) <= _CAPTION_MAX
        and not text.endswith((".", ":", ";", "?", "!"))
        or (
            block.kind == "text"
            and len(text) <= _CAPTION_MAX
            and text.startswith("(")
            and text.endswith(")")
        )
    )


def _table_parts(block: Block, settings: ChunkingSettings) -> list[tuple[str, int, int, list[str]]]:
    """(text, start, end, ix ids) parts of a table; one part unless it is over the budget."""
    if count_tokens(block.text) <= settings.table_max_tokens or not block.rows:
        return [(block.text, block.start, block.end, list(block.ix_ids))]
    # Markdown line k of the body is row (k - rule line) of the table: map ids to lines.
    row_ids = block.row_ix_ids or [() for _ in block.rows]
    line_ids: list[tuple[str, ...]] = list(row_ids[: block.header_rows])
    if block.header_rows:
        line_ids.append(())
    line_ids.extend(row_ids[block.header_rows :])
    lines = block.text.split("\n")
    head_n = block.header_rows + (1 if block.header_rows else 0)  # header rows + rule line
    head = lines[:head_n]
    head_text = "\n".join(head)
    budget = max(settings.table_max_tokens - count_tokens(head_text), 64)
    offsets = []
    pos = block.start
    for line in lines:
        offsets.append((pos, pos + len(line)))
        pos += len(line) + 1
    parts: list[tuple[str, int, int, list[str]]] = []
    head_ids = [i for ids in line_ids[:head_n] for i in ids]
    k = head_n
    while k < len(lines):
        total, j = 0, k
        while j < len(lines) and (j == k or total + count_tokens(lines[j]) <= budget):
            total += count_tokens(lines[j])
            j += 1
        rows = lines[k:j]
        if not parts:
            text = "\n".join(head + rows)
            start = block.start
        else:
            text = "\n".join(head + rows) if head else "\n".join(rows)
            start = offsets[k][0]
        ids = (head_ids if not parts else []) + [i for ids in line_ids[k:j] for i in ids]
        parts.append((text, start, offsets[j - 1][1], ids))
        k = j
    return parts


def prose_ranges(
    blocks: list[Block], budget: int, overlap: int
) -> list[tuple[int, int, list[str]]]:
    """(start, end, ix ids) of the prose chunks of consecutive text blocks."""
    units = [u for b in blocks for u in _units(b, budget)]
    out = []
    for a, b in _pack(units, budget, overlap):
        start, end = units[a].start, units[b - 1].end
        ids = [i for blk in blocks if blk.start < end and blk.end > start for i in blk.ix_ids]
        out.append((start, end, ids))
    return out


def heading_spans(blocks: list[Block], start: int, end: int) -> list[dict[str, int]]:
    """Spans, relative to the chunk [start, end), of the emphasized openings of its paragraphs
    (a bold risk-factor heading, a run-in "Competition." heading): the chunk's headings."""
    spans = []
    for b in blocks:
        if (
            b.kind == "text"
            and b.lead_emphasis
            and start <= b.start
            and b.start + b.lead_emphasis <= end
        ):
            spans.append({"start": b.start - start, "end": b.start + b.lead_emphasis - start})
    return spans


class ChunkWriter:
    """Accumulates chunk rows of one section, numbering them in order."""

    def __init__(self, filing_id: str, document_type: str, section: str):
        self.filing_id = filing_id
        self.document_type = document_type
        self.section = section
        self.rows: list[dict] = []

    def emit(
        self,
        text: str,
        start: int,
        end: int,
        kind: str,
        scale: str | None = None,
        ix_ids: Iterable[str] = (),
        headings: Iterable[dict[str, int]] = (),
    ) -> None:
        ordinal = len(self.rows)
        self.rows.append(
            {
                "chunk_id": chunk_id(self.filing_id, self.section, ordinal, text),
                "filing_id": self.filing_id,
                "document_type": self.document_type,
                "section": self.section,
                "kind": kind,
                "ordinal": ordinal,
                "text": text,
                "char_start": start,
                "char_end": end,
                "scale_header": scale,
                "token_count": count_tokens(text),
                "sha256": sha256_text(text),
                "ix_ids": list(dict.fromkeys(ix_ids)),
                "headings": list(headings),
            }
        )


def chunk_section(
    blocks: list[Block],
    section: Section,
    filing_id: str,
    document_type: str,
    filing_text: str,
    settings: ChunkingSettings,
) -> list[dict]:
    """Chunk rows (CHUNKS schema) of one section's blocks."""
    writer = ChunkWriter(filing_id, document_type, section.label)
    emit = writer.emit
    pending: list[Block] = []

    def flush_prose() -> None:
        if not pending:
            return
        for start, end, ids in prose_ranges(pending, settings.max_tokens, settings.overlap_tokens):
            emit(
                filing_text[start:end],
                start,
                end,
                "prose",
                None,
                ids,
                heading_spans(pending, start, end),
            )
        pending.clear()

    for block in blocks[section.first : section.last]:
        if block.kind != "table":
            pending.append(block)
            continue
        captions: list[Block] = []
        while pending and len(captions) < 3 and _is_caption(pending[-1]):
            captions.insert(0, pending.pop())
        flush_prose()
        for k, (text, start, end, ids) in enumerate(_table_parts(block, settings)):
            if k == 0 and captions:
                start = captions[0].start
                text = filing_text[start : block.start] + text
                ids = [i for c in captions for i in c.ix_ids] + ids
            emit(text, start, end, "table", block.scale_header, ids)
    flush_prose()
    return writer.rows
