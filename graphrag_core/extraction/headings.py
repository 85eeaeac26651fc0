"""Headings of a section's chunks, and which of them head a risk factor.

The parser keeps the emphasized opening of every paragraph (bold, italic or underlined:
`section_chunks.headings`). In Item 1A most of them are risk-factor headings, the company's own
statement of a risk ("Competition could adversely affect prices and demand for our products and
could decrease our market share."), and each risk factor runs from its heading to the next one.
The others are not risks: the item title, category headings ("Risks Related to Our Business",
"STRATEGIC RISKS"), the introduction ("You should carefully consider the following risks…"),
the summary's title, run-in sub-topics ("Standards.") and stray bold bullets.

A risk-factor heading is therefore a statement: at least four words and a verb ("could", "may",
"face", "depends", "subjects"...). Category headings and titles have none.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence

import polars as pl

Span = tuple[int, int]

RISK_SECTION = re.compile(r"(?:^|/)Item 1A$")
_WORD = re.compile(r"[A-Za-z][A-Za-z’'\-]*")
_VERB = re.compile(
    r"\b(?:could|may|might|can|cannot|will|would|must|should|is|are|was|were|be|been|being|"
    r"has|have|had|do|does|did|face[sd]?|depend(?:s|ent)?|rel(?:y|ies|iant)|expose[sd]?|"
    r"subject(?:s|ed)?|involve[sd]?|require[sd]?|affect(?:s|ed)?|harm(?:s|ed)?|impact(?:s|ed)?|"
    r"pose[sd]?|generate[sd]?|makes?|place[sd]?|presents?|reduce[sd]?|increase[sd]?|"
    r"decline[sd]?|fluctuate[sd]?|experience[sd]?|compete[sd]?|fail(?:s|ed)?|lose[sd]?|"
    r"incur(?:s|red)?|results?|create[sd]?|limits?|diverts?|hurts?|disrupts?|damage[sd]?|"
    r"operates?|continues?|needs?|rises?|vary|varies|exists?|remains?|becomes?|leads?|"
    r"prevents?|restricts?|constrains?|delays?|weakens?|erodes?|threatens?|undermines?|includes?|"
    r"owns?|enters?|carry|carries|derives?|exercises?|contains?|takes?|uses?|sells?|operates?|"
    r"conducts?|holds?|gives?|allows?|changes?|adds?|raises?|contributes?|attracts?|retains?)\b",
    re.I,
)
_NOT_A_RISK = re.compile(
    r"^\W*(?:item\s+\d|part\s+[ivx]+\b|risk\s+factors?\b|summary\b|risk\s+factor\s+summary|"
    r"risks?\s+(?:related|relating|associated|specific)\b|"
    r"summary\s+(?:of\s+)?risk\s+factors|special\s+note|forward[- ]looking|cautionary)"
    r"|\b(?:you\s+should|carefully\s+consider|in\s+evaluating|the\s+following\s+(?:risks?|risk\s+factors|"
    r"discussion|information|factors)|described\s+below|set\s+forth\s+below|not\s+the\s+only\s+risks|"
    r"should\s+be\s+read|if\s+any\s+of\s+the\s+following|any\s+of\s+these\s+risks|"
    r"could\s+cause\s+(?:our\s+)?actual\s+results)\b",
    re.I,
)
_MAX_HEADING = 700  # an emphasized paragraph longer than this is a boxed note, not a heading


def texts(text: str, spans: Iterable[Span]) -> list[tuple[int, int, str]]:
    """The headings of a chunk as (start, end, text), trailing colons and spaces trimmed."""
    out = []
    for start, end in spans:
        heading = text[start:end].rstrip().rstrip(":").rstrip()
        if len(_WORD.findall(heading)) and re.search(r"[A-Za-z]{2}", heading):
            out.append((start, start + len(heading), heading))
    return out


def is_risk_heading(heading: str) -> bool:
    """Does this heading state a risk (a risk-factor heading), rather than title a group?"""
    heading = heading.strip()
    if len(heading) > _MAX_HEADING or _NOT_A_RISK.search(heading):
        return False
    words = _WORD.findall(heading)
    if len(words) < 4:
        return False
    if _title_case(words):
        # "We Face Intense Competition" states a risk; "Brand, Reputational Impact and
        # Environmental, Social and Governance" titles a group (its 'Impact' is a noun): in
        # title case only a subject or an auxiliary tells a statement.
        return _TITLE_STATEMENT.search(heading) is not None
    # A statement: it has a verb, or it is a whole sentence ("We derive most of our revenue from
    # a few airlines.") rather than a title.
    return _VERB.search(heading) is not None or (heading.endswith(".") and len(words) >= 6)


_MINOR = frozenset(
    "a an and as at by for from in of on or the to with via into over under its our".split()
)
_TITLE_STATEMENT = re.compile(
    r"^(?:We|Our|The|Its|Any|Changes?|Failure|If|Increases?|Decreases?|Declines?|Continued|Adverse)\b"
    r"|\b(?:Could|May|Might|Can|Cannot|Will|Would|Must|Should|Is|Are|Was|Were|Be|Been|Has|Have|Had|"
    r"Us|Subjects?|Exposes?|Depends?|Faces?|Relies|Rely|Includes?)\b"
)


def _title_case(words: Sequence[str]) -> bool:
    major = [w for w in words if w.lower() not in _MINOR]
    return len(major) >= 3 and all(w[:1].isupper() for w in major)


def is_risk_section(section: str | None) -> bool:
    """10-K Item 1A and 10-Q Part II Item 1A."""
    return bool(section and RISK_SECTION.search(section))


def risk_headings(text: str, spans: Iterable[Span]) -> list[tuple[int, int, str]]:
    """The risk-factor headings among a chunk's headings."""
    return [h for h in texts(text, spans) if is_risk_heading(h[2])]


def spans_of(headings: object) -> list[Span]:
    """A `headings` cell ([{start, end}], or [[start, end]], or null) as spans."""
    if not headings:
        return []
    out: list[Span] = []
    for h in headings:  # type: ignore[attr-defined]
        if isinstance(h, Mapping):
            out.append((int(h["start"]), int(h["end"])))
        elif isinstance(h, Sequence) and len(h) == 2:
            out.append((int(h[0]), int(h[1])))
    return out


def preceding_headings(chunks: pl.DataFrame) -> dict[str, str | None]:
    """chunk id → the last heading before the chunk in its section (the heading it sits under
    when it has none of its own at its start)."""
    if "headings" not in chunks.columns:
        return {}
    out: dict[str, str | None] = {}
    ordered = chunks.select("chunk_id", "filing_id", "section", "ordinal", "text", "headings").sort(
        "filing_id", "section", "ordinal"
    )
    last: dict[tuple[str, str], str | None] = {}
    for row in ordered.iter_rows(named=True):
        key = (row["filing_id"], row["section"])
        out[row["chunk_id"]] = last.get(key)
        found = texts(row["text"], spans_of(row["headings"]))
        if found:
            last[key] = found[-1][2]
    return out
