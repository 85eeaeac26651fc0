"""Filing markup → an ordered list of blocks (paragraphs and tables) and the normalized text.

The normalized text of a document is its blocks' renderings joined by blank lines; every block
records its span in that text, so chunks (and the quotes extracted from them) can always be
found again with `text[start:end]`. Tables are rendered as Markdown, cleaned of the layout
columns SEC filings are full of (`$` cells, `)` cells, spacer columns); tables used only for
layout (bullets, one-column boxes, headings in a table) become paragraphs.

Hidden inline-XBRL content (`ix:header`, `display:none`) never reaches the text; the ids of
visible XBRL facts are kept on the block that shows them so a number can cite its table.

Text is never lost silently. libxml2 stops building the tree at 256 levels of nesting (the rest
of the document is dropped without an exception), which 400 unclosed `<font>` tags reach; the
parser runs with lxml's `huge_tree` (2048 levels), reads deeper markup again without its
presentational inline tags, and `text_coverage` compares the words extracted with the words
the markup shows, so a caller can fail or flag a document that still lost text.
"""

from __future__ import annotations

import html
import html.entities
import re
from collections import Counter
from dataclasses import dataclass, field
from typing import Any, Literal

from lxml import etree
from lxml import html as lxml_html

from graphrag_core.common.numbers import SCALE_HEADER_RE

BlockKind = Literal["text", "table"]

_BLOCK_TAGS = frozenset(
    {
        "p",
        "div",
        "h1",
        "h2",
        "h3",
        "h4",
        "h5",
        "h6",
        "li",
        "ul",
        "ol",
        "dl",
        "dt",
        "dd",
        "center",
        "blockquote",
        "section",
        "article",
        "header",
        "footer",
        "hr",
        "pre",
        "address",
        "form",
        "body",
        "html",
        "tr",
        "td",
        "th",
        "caption",
        "figure",
    }
)
_SKIP_TAGS = frozenset(
    {
        "head",
        "script",
        "style",
        "title",
        "noscript",
        "template",
        "ix:header",
        "xbrli:context",
        "meta",
        "link",
    }
)
_HIDDEN_RE = re.compile(r"display\s*:\s*none", re.I)
_WS_RE = re.compile(r"[\s\u00a0\u2000-\u200a\u202f\u205f\u3000]+")
_ZERO_WIDTH_RE = re.compile(r"[\u200b-\u200d\u2060\ufeff\u00ad]")
_NUMERIC_CELL_RE = re.compile(r"^[\s$€£¥(]*[-–—]?\s*[\d.,]+\s*%?\)?\s*%?$|^[-–—]+$")
_HAS_DIGIT_RE = re.compile(r"\d")
_YEARISH_RE = re.compile(r"^(?:19|20)\d{2}$")
_BULLET_RE = re.compile(r"^(?:[•●○◦▪■□·∙‣⁃\-–—*]|\(?[0-9ivxlcdm]{1,4}[.)]|\(?[a-z][.)])$", re.I)
_PAGE_NUMBER_RE = re.compile(
    r"^(?:page\s+)?[-–—]?\s*(?:[A-Z]{1,2}\s*[-–—]\s*)?\d{1,3}\s*[-–—]?$|^[ivxlc]{1,6}$|^page\s+\d+\s+of\s+\d+$",
    re.I,
)
_TOC_LINK_RE = re.compile(
    r"^(?:\(?back to\)?\s+)?(?:table\s+of\s+contents|index|return to top)$", re.I
)


@dataclass(slots=True)
class Block:
    """A paragraph or a table, with its span in the document's normalized text."""

    kind: BlockKind
    text: str
    rows: list[list[str]] | None = None
    header_rows: int = 0
    ix_ids: tuple[str, ...] = ()
    in_table: bool = False  # a paragraph that came out of a layout table
    table_first_cells: tuple[str, ...] = ()  # tables: first non-empty cell of each row
    row_ix_ids: list[tuple[str, ...]] | None = None  # tables: ix fact ids per row
    start: int = 0
    end: int = 0
    scale_header: str | None = None
    # Characters at the start of a paragraph set in bold, italic or underline: the whole
    # paragraph for a heading ("Competition could harm our business."), the first words for a
    # run-in heading ("Competition. We compete with ..."); 0 when the paragraph starts plain.
    lead_emphasis: int = 0


# Presentational inline tags: dropping them changes no word and no block boundary, and they are
# what piles up unclosed in old filings (`<font>` after `<font>`).
_INLINE_FORMAT_TAG_RE = re.compile(
    r"</?(?:font|b|i|u|em|strong|small|big|strike|tt|sup|sub|s)(?:\s[^>]*)?/?>", re.I
)
_INVISIBLE_ELEMENT_RE = re.compile(
    r"<(head|script|style|title|noscript|template|ix:header)\b.*?</\1\s*>", re.I | re.S
)
_ANY_TAG_RE = re.compile(r"<[^>]*>")
_WORD_RE = re.compile(r"\w+")


@dataclass
class ParsedDocument:
    """The blocks of one document and its normalized text."""

    blocks: list[Block]
    text: str
    warnings: list[str] = field(default_factory=list)


def clean_text(value: str) -> str:
    return _WS_RE.sub(" ", _ZERO_WIDTH_RE.sub("", value)).strip()


def _local_tag(el) -> str | None:
    tag = el.tag
    if not isinstance(tag, str):
        return None
    return tag.lower()


def _is_hidden(el) -> bool:
    style = el.get("style")
    return bool(style) and _HIDDEN_RE.search(style) is not None


# ---------------------------------------------------------------------------------------------
# tables


def _cell_text(cell) -> str:
    parts: list[str] = []
    stack = [(cell, False)]
    # Hidden spans inside cells (rare, but iXBRL tools emit them) must not leak into the text.
    while stack:
        el, done = stack.pop()
        if done:
            if el.tail:
                parts.append(el.tail)
            continue
        tag = _local_tag(el)
        if tag is None:
            if el.tail:
                parts.append(el.tail)
            continue
        if tag in _SKIP_TAGS or _is_hidden(el):
            if el is not cell and el.tail:
                parts.append(el.tail)
            continue
        if tag in {"br", "p", "div"} and parts:
            parts.append(" ")
        if el.text:
            parts.append(el.text)
        if el is not cell:
            stack.append((el, True))
        for child in reversed(el):
            stack.append((child, False))
    return clean_text("".join(parts))


def _merge_affixes(cells: list[tuple[str, int, int]]) -> list[tuple[str, int, int]]:
    """Fold `$`/`(` cells into the next value and `)`/`%` cells into the previous one."""
    out: list[list] = [list(c) for c in cells]
    for i, cell in enumerate(out):
        text = cell[0]
        if text in {"$", "(", "$(", "($", "€", "£", "¥"}:
            for j in range(i + 1, len(out)):
                if out[j][0]:
                    out[j][0] = text + out[j][0]
                    cell[0] = ""
                    break
        elif text in {")", "%", ")%", "%)", "pts", "bps", "x"} or (
            text.startswith(")") and len(text) <= 3
        ):
            for j in range(i - 1, -1, -1):
                if out[j][0]:
                    out[j][0] = out[j][0] + text
                    cell[0] = ""
                    break
    return [tuple(c) for c in out]


def _is_numeric_cell(text: str) -> bool:
    return bool(text) and _NUMERIC_CELL_RE.match(text) is not None and not _YEARISH_RE.match(text)


def _header_row_count(rows: list[list[tuple[str, int, int]]]) -> int:
    """Leading rows that label columns: empty label cell, or no figures except years/dates."""
    count = 0
    for row in rows[:6]:
        texts = [t for t, _, _ in row if t]
        if not texts:
            count += 1
            continue
        first_empty = not row[0][0]
        numeric = [t for t in texts[1:] if _is_numeric_cell(t)]
        if first_empty and not numeric:
            count += 1
            continue
        if (
            not any(_is_numeric_cell(t) for t in texts)
            and len(texts) > 1
            and count < 2
            and all(len(t) < 60 for t in texts)
        ):
            count += 1
            continue
        break
    return min(count, 4)


def _ix_ids(el) -> list[str]:
    ids = []
    for node in el.iter():
        tag = _local_tag(node)
        if tag and tag.startswith("ix:non"):
            fid = node.get("id")
            if fid:
                ids.append(fid)
    return ids


def _grid(table) -> tuple[list[list[tuple[str, int, int]]], list[list[str]]]:
    """Rows of (text, first column, colspan) and, aligned with them, the ix fact ids per row."""
    rows: list[list[tuple[str, int, int]]] = []
    row_ids: list[list[str]] = []
    for tr in table.iter("tr"):
        if _is_hidden(tr):
            continue
        col = 0
        row: list[tuple[str, int, int]] = []
        for cell in tr:
            tag = _local_tag(cell)
            if tag not in {"td", "th"}:
                continue
            try:
                span = max(1, min(int(cell.get("colspan", "1") or 1), 64))
            except ValueError:
                span = 1
            row.append(("" if _is_hidden(cell) else _cell_text(cell), col, span))
            col += span
        if row:
            rows.append(_merge_affixes(row))
            row_ids.append(_ix_ids(tr))
    return rows, row_ids


def _layout_paragraphs(rows: list[list[str]]) -> list[str] | None:
    """If a table only lays out text (bullets, a boxed note, a heading), return its paragraphs."""
    width = max((len(r) for r in rows), default=0)
    if width == 0:
        return []
    if width == 1:
        return [r[0] for r in rows if r[0]]
    if all(len(r) == 2 and _BULLET_RE.match(r[0] or "-") for r in rows) and any(r[0] for r in rows):
        return [(f"{r[0]} {r[1]}" if r[0] else r[1]).strip() for r in rows if r[1] or r[0]]
    cells = [c for r in rows for c in r if c]
    if not cells:
        return []
    digits = sum(1 for c in cells if _is_numeric_cell(c))
    avg_len = sum(len(c) for c in cells) / len(cells)
    if len(rows) == 1 and not digits:
        return [" ".join(c for c in rows[0] if c)]
    if digits == 0 and avg_len > 80:
        return [" ".join(c for c in r if c) for r in rows if any(r)]
    return None


def _normalize_table(grid: list[list[tuple[str, int, int]]]) -> tuple[list[list[str]], int]:
    if not grid:
        return [], 0
    header = _header_row_count(grid)
    body = grid[header:] or grid
    # Columns that hold values are learned from single-span body cells: a value with
    # colspan=2 over its `$` column, or a date heading spanning `$ | value | )`, then lands on
    # the value column instead of opening a column of its own.
    content_cols = {start for row in body for text, start, span in row if text and span == 1}
    if not content_cols:
        content_cols = {start for row in body for text, start, _ in row if text}
    ordered = sorted(content_cols)

    def target(start: int, span: int) -> int:
        for c in ordered:
            if start <= c < start + span:
                return c
        return start

    placed: list[dict[int, str]] = []
    used: set[int] = set()
    for row in grid:
        cells: dict[int, str] = {}
        for text, start, span in row:
            if not text:
                continue
            col = target(start, span)
            cells[col] = f"{cells[col]} {text}" if col in cells else text
            used.add(col)
        placed.append(cells)
    columns = sorted(used)
    rows = [[cells.get(c, "") for c in columns] for cells in placed]
    return rows, min(header, len(rows))


def _escape_cell(text: str) -> str:
    return text.replace("|", "\\|")


def render_table(rows: list[list[str]], header_rows: int) -> str:
    """Markdown: header rows (merged into one line per row), a rule, then the body rows."""
    if not rows:
        return ""
    width = max(len(r) for r in rows)
    lines = []
    head = rows[:header_rows] if header_rows else []
    body = rows[header_rows:] if header_rows else rows
    for r in head:
        lines.append("| " + " | ".join(_escape_cell(c) for c in r + [""] * (width - len(r))) + " |")
    if head:
        lines.append("|" + "---|" * width)
    for r in body:
        lines.append("| " + " | ".join(_escape_cell(c) for c in r + [""] * (width - len(r))) + " |")
    return "\n".join(lines)


def _table_blocks(table) -> list[Block]:
    grid, row_ids = _grid(table)
    keep = [k for k, row in enumerate(grid) if any(t for t, _, _ in row)]
    grid = [grid[k] for k in keep]
    row_ids = [row_ids[k] for k in keep]
    ix_ids = [i for ids in row_ids for i in ids]
    raw_rows = [[t for t, _, _ in row] for row in grid]
    if not raw_rows:
        return []
    compact = [[c for c in row if c] for row in raw_rows]
    paragraphs = _layout_paragraphs(compact)
    if paragraphs is not None:
        blocks = [Block("text", clean_text(p), in_table=True) for p in paragraphs if clean_text(p)]
        if blocks and ix_ids:
            blocks[0].ix_ids = tuple(ix_ids)
        return blocks
    rows, header = _normalize_table(grid)
    if not rows:
        return []
    first_cells = tuple(next((c for c in r if c), "") for r in rows)
    return [
        Block(
            "table",
            render_table(rows, header),
            rows=rows,
            header_rows=header,
            ix_ids=tuple(ix_ids),
            row_ix_ids=[tuple(ids) for ids in row_ids],
            table_first_cells=first_cells,
        )
    ]


# ---------------------------------------------------------------------------------------------
# plain text (pre-2001 filings, <PRE> blocks, .txt transcripts)

_PRE_TABLE_LINE_RE = re.compile(r"\S\s{2,}\S")


def text_blocks(text: str) -> list[Block]:
    """Blank-line separated paragraphs; fixed-width column runs become tables."""
    blocks: list[Block] = []
    for para in re.split(r"\n\s*\n", text.replace("\r\n", "\n").replace("\r", "\n")):
        lines = [ln.rstrip() for ln in para.split("\n") if ln.strip()]
        if not lines:
            continue
        tabular = [
            ln for ln in lines if _PRE_TABLE_LINE_RE.search(ln.strip()) and _HAS_DIGIT_RE.search(ln)
        ]
        if len(lines) >= 3 and len(tabular) >= 0.6 * len(lines):
            rows = [re.split(r"\s{2,}", ln.strip()) for ln in lines]
            width = max(len(r) for r in rows)
            rows = [r + [""] * (width - len(r)) for r in rows]
            header = 0
            for r in rows:
                if any(_is_numeric_cell(c) for c in r[1:]):
                    break
                header += 1
            header = min(header, 3)
            blocks.append(
                Block(
                    "table",
                    render_table(rows, header),
                    rows=rows,
                    header_rows=header,
                    table_first_cells=tuple(r[0] for r in rows),
                )
            )
        else:
            joined = clean_text(" ".join(ln.strip() for ln in lines))
            if joined:
                blocks.append(Block("text", joined))
    return blocks


# ---------------------------------------------------------------------------------------------
# HTML


def _too_deep(parser: Any) -> bool:
    """Whether libxml2 gave up on the tree (its nesting limit), silently dropping the rest."""
    return any(
        e.level_name == "FATAL" and e.type_name == "ERR_RESOURCE_LIMIT" for e in parser.error_log
    )


# A DOCTYPE with an internal subset (`<!DOCTYPE html [ <!ENTITY c "Corp"> ]>`): the HTML
# parser does not read one, and its tail (`]>`) became a chunk's first words. Quoted values may
# hold `]` or `>`, so they are matched whole. The subset is dropped, never expanded: expansion
# is what XXE and billion laughs abuse, and a filing has no use for it.
_DOCTYPE_SUBSET_RE = re.compile(r"<!DOCTYPE[^\[>]*\[(?:[^\]\"']|\"[^\"]*\"|'[^']*')*\]\s*>", re.I)
_ENTITY_REF_RE = re.compile(r"&([A-Za-z][A-Za-z0-9._:-]*);")


def _without_unresolvable(markup: str, warnings: list[str]) -> str:
    """The markup without an internal DOCTYPE subset and without references to entities HTML
    does not define (`&c;`, `&xxe;`): the parser would keep those as text ("Xxe &c; Corp")
    and they would reach chunks and entity names. Each removal is named in a warning."""
    markup, subsets = _DOCTYPE_SUBSET_RE.subn("<!DOCTYPE html>", markup, count=1)
    unknown: Counter[str] = Counter()

    def drop(m: re.Match[str]) -> str:
        if f"{m.group(1)};" in html.entities.html5:
            return m.group(0)
        unknown[m.group(0)] += 1
        return ""

    markup = _ENTITY_REF_RE.sub(drop, markup)
    if subsets:
        warnings.append(
            "the document's DOCTYPE declares an internal subset (entities); it was dropped, "
            "never expanded. Fix: none needed; filings do not rely on it"
        )
    if unknown:
        names = ", ".join(list(unknown)[:5])
        warnings.append(
            f"{sum(unknown.values())} reference(s) to entities HTML does not define were removed "
            f"({names}); their text is unknown. Fix: re-fetch the filing from EDGAR if "
            "words are missing"
        )
    return markup


def _html_tree(markup: str, warnings: list[str]) -> Any:
    markup = _without_unresolvable(markup, warnings)
    parser = lxml_html.HTMLParser(
        encoding="utf-8", remove_comments=True, remove_pis=True, huge_tree=True
    )
    root = lxml_html.document_fromstring(markup.encode("utf-8", "surrogatepass"), parser=parser)
    if not _too_deep(parser):
        return root
    flat = _INLINE_FORMAT_TAG_RE.sub("", markup)
    root = lxml_html.document_fromstring(flat.encode("utf-8", "surrogatepass"), parser=parser)
    if _too_deep(parser):
        warnings.append(
            "markup nests deeper than the HTML parser's limit (2048 levels) even without its "
            "font/b/i tags; text past that depth is missing"
        )
    else:
        warnings.append(
            "markup nests deeper than the HTML parser's limit (2048 levels, unclosed inline "
            "tags?); read again without its presentational tags (font, b, i, …)"
        )
    return root


def _html_blocks(markup: str, warnings: list[str] | None = None) -> list[Block]:
    try:
        root = _html_tree(markup, warnings if warnings is not None else [])
    except (etree.ParserError, ValueError):
        return text_blocks(re.sub(r"<[^>]+>", " ", markup))
    blocks: list[Block] = []
    buffer: list[str] = []
    emphasized: list[bool] = []  # per piece of `buffer`: set in bold, italic or underline
    ids: list[str] = []

    def add(piece: str, emphasis: bool) -> None:
        buffer.append(piece)
        emphasized.append(emphasis)

    def flush() -> None:
        if buffer:
            text = clean_text("".join(buffer))
            lead = _lead_emphasis(buffer, emphasized)
            buffer.clear()
            emphasized.clear()
            if text:
                blocks.append(Block("text", text, ix_ids=tuple(ids), lead_emphasis=lead))
                ids.clear()
                return
        # ids of facts whose text was empty stay with the next block

    # Iterative walk (EDGAR HTML can nest deeper than Python's recursion limit). Each entry
    # carries the emphasis its parent sets, which its own text inherits and its tail keeps.
    # lxml elements (lxml ships no type information).
    stack: list[tuple[Any, bool, bool]] = [(root, False, False)]
    while stack:
        el, leaving, inherited = stack.pop()
        if leaving:
            tag = _local_tag(el)
            if tag in _BLOCK_TAGS:
                flush()
            if el.tail:
                add(el.tail, inherited)
            continue
        tag = _local_tag(el)
        if tag is None:  # comment or processing instruction that slipped through
            if el.tail:
                add(el.tail, inherited)
            continue
        if tag in _SKIP_TAGS or _is_hidden(el):
            if el.tail:
                add(el.tail, inherited)
            continue
        if tag == "table":
            flush()
            blocks.extend(_table_blocks(el))
            if el.tail:
                add(el.tail, inherited)
            continue
        if tag == "pre":
            flush()
            blocks.extend(text_blocks("".join(el.itertext())))
            if el.tail:
                add(el.tail, inherited)
            continue
        if tag == "br":
            flush()
            if el.tail:
                add(el.tail, inherited)
            continue
        if tag in _BLOCK_TAGS:
            flush()
        elif tag.startswith("ix:non"):
            fid = el.get("id")
            if fid:
                ids.append(fid)
        own = _emphasis(el, tag, inherited)
        if el.text:
            add(el.text, own)
        stack.append((el, True, inherited))
        for child in reversed(el):
            stack.append((child, False, own))
    flush()
    return blocks


_EMPHASIS_TAGS = frozenset({"b", "strong", "i", "em", "u"})
_EMPHASIS_STYLE_RE = re.compile(
    r"font-weight\s*:\s*(?:bold|bolder|[6-9]00)|font-style\s*:\s*(?:italic|oblique)"
    r"|text-decoration(?:-line)?\s*:[^;]*underline",
    re.I,
)
_NOT_EMPHASIS_STYLE_RE = re.compile(
    r"font-weight\s*:\s*(?:normal|lighter|[1-5]00)\b|font-style\s*:\s*normal", re.I
)


def _emphasis(el: Any, tag: str, inherited: bool) -> bool:
    """Is this element's text set in bold, italic or underline? Its own style decides (filings
    set `font-weight:400` on every plain span), else its tag, else its parent."""
    style = el.get("style")
    if style and _EMPHASIS_STYLE_RE.search(style):
        return True
    if style and _NOT_EMPHASIS_STYLE_RE.search(style):
        return False
    return inherited or tag in _EMPHASIS_TAGS


def _lead_emphasis(pieces: list[str], emphasized: list[bool]) -> int:
    """Length, in the cleaned paragraph text, of its leading emphasized run (0 if none)."""
    lead: list[str] = []
    for piece, emphasis in zip(pieces, emphasized, strict=True):
        if emphasis or not clean_text(piece):
            lead.append(piece)
            continue
        break
    return len(clean_text("".join(lead)))


def _looks_like_running_header(key: str) -> bool:
    """A repeated short line (digits already replaced by '#') that reads like page furniture:
    'apple inc. | 2024 form 10-k | #', 'page #', '# | nvidia', not a repeated sentence."""
    return (
        "|" in key
        or "form 10-" in key
        or re.search(r"\bpage\b", key) is not None
        or key.endswith("#")
        or key.startswith("#")
    )


def _drop_page_furniture(blocks: list[Block]) -> list[Block]:
    """Remove page numbers, 'Table of Contents' links and running headers/footers."""
    counts: Counter[str] = Counter()
    keys: list[str | None] = []
    for b in blocks:
        if b.kind == "text" and len(b.text) <= 150:
            short = re.sub(r"\d+", "#", b.text.lower())
            keys.append(short)
            counts[short] += 1
        else:
            keys.append(None)
    kept: list[Block] = []
    for b, key in zip(blocks, keys, strict=True):
        if b.kind == "text":
            t = b.text
            if _PAGE_NUMBER_RE.match(t) or _TOC_LINK_RE.match(t):
                continue
            if (
                key is not None
                and counts[key] >= 4
                and _looks_like_running_header(key)
                and not re.match(r"^\s*(part\s+[ivx]+\b.*)?item\s*\d", t, re.I)
            ):
                continue
        kept.append(b)
    return kept


_SENTENCE_END_RE = re.compile(r"[.!?:;\"”’)\]]$")


def _join_page_splits(blocks: list[Block]) -> list[Block]:
    """Rejoin a paragraph that a page break cut in two (furniture between them already gone)."""
    out: list[Block] = []
    for b in blocks:
        prev = out[-1] if out else None
        if (
            prev is not None
            and prev.kind == "text"
            and b.kind == "text"
            and not prev.in_table
            and not b.in_table
            and len(prev.text) > 60
            and not _SENTENCE_END_RE.search(prev.text)
            and b.text[:1].islower()
        ):
            prev.text = f"{prev.text} {b.text}"
            prev.ix_ids = prev.ix_ids + b.ix_ids
            continue
        out.append(b)
    return out


def _attach_scale_headers(blocks: list[Block]) -> None:
    """Give each table the scale statement that governs it (its own cells, else just above)."""
    for i, b in enumerate(blocks):
        if b.kind != "table":
            continue
        head_text = " ".join(" ".join(r) for r in (b.rows or [])[: max(b.header_rows, 1) + 1])
        found = scale_phrase(head_text)
        j = i - 1
        looked = 0
        while found is None and j >= 0 and looked < 4:
            prev = blocks[j]
            if prev.kind == "table":
                break
            if len(prev.text) <= 400:
                found = scale_phrase(prev.text)
            looked += 1
            j -= 1
        b.scale_header = found


def scale_phrase(text: str) -> str | None:
    """'(In millions, except per share data)' → 'in millions, except per share data'."""
    m = SCALE_HEADER_RE.search(text)
    if not m:
        return None
    open_paren = text.rfind("(", 0, m.start() + 1)
    close_paren = text.find(")", m.end())
    if (
        open_paren != -1
        and close_paren != -1
        and m.start() - open_paren <= 40
        and close_paren - m.end() <= 120
    ):
        phrase = text[open_paren + 1 : close_paren]
    else:
        end = m.end()
        tail = re.match(r"[^.;\n|]{0,80}", text[end:])
        phrase = text[m.start() : end + (tail.end() if tail else 0)]
    phrase = clean_text(phrase).strip(" ,;:-").lower()
    return phrase or None


def assemble(blocks: list[Block], offset: int = 0) -> str:
    """Join blocks by blank lines and record each block's span (shifted by `offset`)."""
    parts: list[str] = []
    pos = offset
    for k, b in enumerate(blocks):
        if k:
            parts.append("\n\n")
            pos += 2
        b.start = pos
        parts.append(b.text)
        pos += len(b.text)
        b.end = pos
    return "".join(parts)


def parse_markup(markup: str, is_html: bool, offset: int = 0) -> ParsedDocument:
    """Markup (HTML/iXBRL or plain text) → blocks with spans and the normalized text."""
    warnings: list[str] = []
    blocks = _html_blocks(markup, warnings) if is_html else text_blocks(markup)
    blocks = _join_page_splits(_drop_page_furniture(blocks))
    _attach_scale_headers(blocks)
    text = assemble(blocks, offset)
    if not blocks:
        warnings.append("no text found in the document")
    return ParsedDocument(blocks=blocks, text=text, warnings=warnings)


@dataclass(frozen=True)
class TextCoverage:
    """Words the markup shows (tags, head, scripts, styles and the hidden iXBRL header left
    out) against words the parsed text holds. Page furniture and hidden `display:none` text
    make `ratio` a little under 1 for a complete parse (0.97-1.0 on the shared corpus)."""

    visible_words: int
    extracted_words: int

    @property
    def ratio(self) -> float:
        return self.extracted_words / self.visible_words if self.visible_words else 1.0

    def describe(self) -> str:
        return (
            f"extracted text holds {self.extracted_words:,} of the {self.visible_words:,} words "
            f"the markup shows ({self.ratio:.0%})"
        )


def text_coverage(markup: str, is_html: bool, text: str) -> TextCoverage:
    """How much of what `markup` shows reached `text` (its `parse_markup` text), by words."""
    visible = (
        html.unescape(_ANY_TAG_RE.sub(" ", _INVISIBLE_ELEMENT_RE.sub(" ", markup)))
        if is_html
        else markup
    )
    return TextCoverage(len(_WORD_RE.findall(visible)), len(_WORD_RE.findall(text)))
