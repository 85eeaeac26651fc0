"""Sections of a 10-K or 10-Q whose item headings the section finder could not read, inferred
from what the text is about, so that its narrative is still chunked under a narrative label and
reaches the extractor.

`detect_sections` makes a document without recognizable items one `…/Document` section, and a
layout it half-reads can leave one item holding nearly the whole document. Neither label is
extracted, so such a filing gave no relation at all. Here the document (or the giant section) is
cut into windows of about `ParseSettings.inferred_window_chars` characters and each window is
given the topic its language shows:

- risk factors: headings that are sentences about harm ("… could adversely affect …") and the
  vocabulary of risk, densely;
- management's discussion: comparisons of periods and the vocabulary of results and liquidity;
- business: what the company makes, sells, competes with and buys.

Runs of one topic become `10-K/Inferred/Item 1A`, `…/Item 7`, `…/Item 1` (10-Q: `Part II/Item 1A`,
`Part I/Item 2`); each topic keeps its first run (sections read in order, as items do), a later
window of the same topic stays with the section it sits in, and prose before the first topic is
`…/Inferred/Narrative`. A document with too little prose (a letter, a cut-off download) is left
as it was, so the annual-report items check still fails it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from graphrag_core.settings import ParseSettings
from graphrag_core.text.parsing import Block
from graphrag_core.text.sections import Section, form_family

INFERRED = "Inferred"
NARRATIVE = "Narrative"

# Topic → the item it stands for, per form family.
_ITEMS: dict[str, dict[str, str]] = {
    "10-K": {"business": "Item 1", "risk": "Item 1A", "mdna": "Item 7"},
    "10-Q": {"risk": "Part II/Item 1A", "mdna": "Part I/Item 2"},
}
_NARRATIVE_ITEMS: dict[str, tuple[str, ...]] = {
    "10-K": ("Item 1", "Item 1A", "Item 7", "Item 7A"),
    "10-Q": ("Part I/Item 2", "Part II/Item 1A"),
}

_RISK_RE = re.compile(
    r"\b(?:could|may|might|would)\s+(?:\w+\s+){0,3}?(?:adversely|harm|negatively|materially|"
    r"reduce|impair|disrupt|hurt|lose|fail)\w*"
    r"|\brisks?\b|\buncertaint\w*|\badverse(?:ly)?\b|\bvolatil\w*|\bno assurance\b",
    re.I,
)
_MDNA_RE = re.compile(
    r"\b(?:increased|decreased|compared (?:to|with)|primarily due to|(?:year|quarter)[- ]over[- ]"
    r"(?:year|quarter)|liquidity|cash flows?|operating (?:income|expenses|margin)|gross margin|"
    r"net (?:income|revenue|sales)|effective tax rate|capital expenditures|results of "
    r"operations)\b",
    re.I,
)
_BUSINESS_RE = re.compile(
    r"\b(?:our (?:products|services|customers|employees|segments?)|we (?:design|develop|"
    r"manufacture|sell|offer|provide|market|license|distribute)|customers?|competitors?|"
    r"competition|compete|suppliers?|patents?|trademarks?|employees|headquartered)\b",
    re.I,
)
# A risk-factor heading: one sentence, about harm, set off as its own paragraph.
_RISK_HEADING_RE = re.compile(
    r"\b(?:could|may|might|would|can)\b[^.]{0,160}\b(?:adverse\w*|harm\w*|negative\w*|"
    r"material\w*|reduce\w*|impair\w*|disrupt\w*|hurt|decline\w*|fail\w*|los[es]\w*)\b",
    re.I,
)
_MAX_RISK_HEADING = 400
# A topic's own heading line ("Our Business", "What could go wrong") opens its section.
_MAX_HEADING_LINE = 80
# Hits per 1,000 characters a window needs before its topic counts, and risk-factor headings
# per window that make it risk factors whatever else it says.
_MIN_DENSITY = 1.0
_RISK_HEADINGS_PER_WINDOW = 2


@dataclass(frozen=True, slots=True)
class _Window:
    first: int
    last: int
    topic: str | None


def inferred_label(required: str) -> str:
    """'10-K/Item 1A' → '10-K/Inferred/Item 1A': the label the fallback gives that item."""
    family, _, rest = required.partition("/")
    return f"{family}/{INFERRED}/{rest}"


def is_inferred(label: str) -> bool:
    return f"/{INFERRED}/" in label


def with_inferred_sections(
    blocks: list[Block],
    form: str | None,
    sections: list[Section],
    settings: ParseSettings | None = None,
) -> tuple[list[Section], list[str]]:
    """`sections`, with the document (or the one section holding nearly all of it) replaced by
    inferred sections when no narrative item was found; unchanged otherwise."""
    settings = settings or ParseSettings()
    family = form_family(form)
    if family not in _ITEMS:
        return sections, []
    target = _section_to_infer(blocks, family, sections, settings)
    if target is None:
        return sections, []
    inferred = infer_sections(blocks, family, target.first, target.last, settings)
    found = ", ".join(s.label for s in inferred)
    why = (
        "no item headings recognized"
        if target.label.endswith("/Document")
        else f"'{target.label}' held {settings.giant_section_share:.0%}+ of the text and no "
        "narrative item was found"
    )
    out = [s for s in sections if s is not target]
    out.extend(inferred)
    out.sort(key=lambda s: s.first)
    return out, [f"{why}; sections inferred from the text: {found}"]


def _prose_chars(blocks: list[Block], first: int, last: int) -> int:
    return sum(len(b.text) for b in blocks[first:last] if b.kind == "text")


def _section_to_infer(
    blocks: list[Block], family: str, sections: list[Section], settings: ParseSettings
) -> Section | None:
    """The section the fallback replaces: the whole-document section, or an item section that
    holds nearly all the prose when none of the narrative items was found; None otherwise."""
    narrative = {f"{family}/{item}" for item in _NARRATIVE_ITEMS[family]}
    if any(s.label in narrative for s in sections):
        return None
    total = _prose_chars(blocks, 0, len(blocks))
    if total < settings.inferred_min_chars:
        return None
    for s in sections:
        if s.label == f"{family}/Document":
            return s
        if (
            "/Item " in s.label
            and _prose_chars(blocks, s.first, s.last) >= settings.giant_section_share * total
        ):
            return s
    return None


def _topic(blocks: list[Block]) -> str | None:
    """The topic of a window of blocks, or None when no topic is dense enough."""
    prose = [b.text for b in blocks if b.kind == "text"]
    chars = sum(len(t) for t in prose)
    if not chars:
        return None
    risk_headings = sum(1 for b in blocks if _is_risk_heading(b))
    if risk_headings >= _RISK_HEADINGS_PER_WINDOW:
        return "risk"
    text = " ".join(prose)
    density = {
        "risk": len(_RISK_RE.findall(text)) * 1000 / chars,
        "mdna": len(_MDNA_RE.findall(text)) * 1000 / chars,
        "business": len(_BUSINESS_RE.findall(text)) * 1000 / chars,
    }
    topic = max(density, key=lambda k: density[k])
    return topic if density[topic] >= _MIN_DENSITY else None


def _block_topic(block: Block) -> str | None:
    if block.kind != "text":
        return None
    if _is_risk_heading(block):
        return "risk"
    return _topic([block])


def _is_risk_heading(block: Block) -> bool:
    return (
        block.kind == "text"
        and len(block.text) <= _MAX_RISK_HEADING
        and block.lead_emphasis >= len(block.text) * 0.8
        and bool(_RISK_HEADING_RE.search(block.text))
    )


def _refined_start(blocks: list[Block], window: _Window, topic: str, floor: int) -> int:
    """Where a topic begins: windows cut through sections, so from the first block of the
    topic in the window that first shows it, back over the blocks before it (down to `floor`,
    the previous window's start) while those that have a topic have this one; then the short
    heading line just before it ("What could go wrong"), if there is one."""
    first = next(
        (i for i in range(window.first, window.last) if _block_topic(blocks[i]) == topic),
        window.first,
    )
    start = first
    for i in range(first - 1, floor - 1, -1):
        other = _block_topic(blocks[i])
        if other is not None and other != topic:
            break
        if other == topic:
            start = i
    if start > floor and _is_heading_line(blocks[start - 1]):
        return start - 1
    return start


def _is_heading_line(block: Block) -> bool:
    text = block.text.strip()
    return block.kind == "text" and 0 < len(text) <= _MAX_HEADING_LINE and not text.endswith(".")


def _windows(blocks: list[Block], first: int, last: int, size: int) -> list[_Window]:
    out: list[_Window] = []
    start = first
    chars = 0
    for i in range(first, last):
        chars += len(blocks[i].text)
        if chars >= size or i == last - 1:
            out.append(_Window(start, i + 1, _topic(blocks[start : i + 1])))
            start, chars = i + 1, 0
    return out


def infer_sections(
    blocks: list[Block], family: str, first: int, last: int, settings: ParseSettings
) -> list[Section]:
    """Inferred sections covering blocks [first, last) exactly, in order."""
    items = _ITEMS[family]
    starts: list[tuple[int, str]] = []
    seen: set[str] = set()
    previous: str | None = None
    floor = first
    for w in _windows(blocks, first, last, settings.inferred_window_chars):
        # A topic opens a section where its first run begins; a later run of a topic already
        # seen (or a window of no topic, or one the form has no item for) stays where it is.
        if w.topic and w.topic in items and w.topic not in seen and w.topic != previous:
            low = max(floor, starts[-1][0] + 1 if starts else first)
            starts.append((_refined_start(blocks, w, w.topic, low), items[w.topic]))
            seen.add(w.topic)
        previous = w.topic or previous
        floor = w.first
    if not starts or starts[0][0] > first:
        starts.insert(0, (first, NARRATIVE))
    return [
        Section(
            f"{family}/{INFERRED}/{name}", start, starts[k + 1][0] if k + 1 < len(starts) else last
        )
        for k, (start, name) in enumerate(starts)
    ]
