"""Earnings-call transcripts: speaker turns, and Q&A exchanges kept whole.

A transcript (plain text or HTML) is parsed into the same blocks as a filing; blocks that name a
speaker ("Operator", "Jane Doe -- Chief Financial Officer", "Sam Lee (Example Securities): …")
start a turn. Before the Q&A each turn is chunked on its own (`transcript/prepared_remarks`,
kind `turn`). In the Q&A an analyst's question and the answers that follow it, with the
operator's introduction, form one `qa` chunk (`transcript/qa`): splitting a question from its
answer would leave both halves meaningless to an extractor.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Literal

from graphrag_core.settings import ChunkingSettings
from graphrag_core.text.chunking import ChunkWriter, count_tokens, prose_ranges
from graphrag_core.text.parsing import Block

Role = Literal["operator", "executive", "analyst", "unknown"]

PREPARED = "transcript/prepared_remarks"
QA = "transcript/qa"

_NAME = r"[A-Z][A-Za-z.'’\-]+(?:\s+(?:[A-Z][A-Za-z.'’\-]+|de|van|von|da|del|la)){0,4}"
_ALONE_RE = re.compile(rf"^(?P<name>{_NAME})\s*(?:--|—|–|-|,)\s*(?P<title>[^.!?:]{{2,120}})$")
_INLINE_RE = re.compile(
    rf"^(?P<name>{_NAME})(?:\s*\((?P<aff>[^)]{{2,80}})\))?\s*:\s*(?P<rest>.*)$", re.S
)
_OPERATOR_RE = re.compile(r"^operator\s*(?::\s*(?P<rest>.*))?$", re.I | re.S)
_QA_HEADER_RE = re.compile(
    r"^(?:question[-\s]+and[-\s]+answer(?:\s+session)?|questions?\s+(?:and|&)\s+answers?|q\s*&\s*a(?:\s+session)?)\s*:?$",
    re.I,
)
_QA_OPERATOR_RE = re.compile(
    r"question[-\s]+and[-\s]+answer|first question|open (?:up )?the (?:call|line|floor) "
    r"(?:for|to) questions"
    r"|(?:begin|start) the q\s*&\s*a",
    re.I,
)
_INTRO_RE = re.compile(
    rf"(?:question|comes|is)\s+(?:comes\s+)?from\s+(?:the\s+line\s+of\s+)?(?P<name>{_NAME})\s*(?:with|from|of|at)\s+(?P<firm>[A-Z][^.,;]{{1,80}})",
)
_PARTICIPANT_HEADERS = {
    "corporate participants": "executive",
    "company participants": "executive",
    "executives": "executive",
    "company representatives": "executive",
    "conference call participants": "analyst",
    "analysts": "analyst",
    "call participants": "analyst",
}
_EXEC_WORDS = re.compile(
    r"\b(chief|ceo|cfo|coo|cto|president|officer|vice president|vp|director|head "
    r"of|investor relations|treasurer|chair)",
    re.I,
)
_ANALYST_WORDS = re.compile(r"\banalyst\b", re.I)
_TRANSCRIPT_HINT_RE = re.compile(
    r"earnings\s+(?:conference\s+)?call|conference call transcript", re.I
)


@dataclass
class Turn:
    speaker: str
    role: Role
    first: int  # block index of the speaker line
    last: int  # one past the last block of the turn
    affiliation: str | None = None
    in_qa: bool = False


@dataclass
class TranscriptStructure:
    turns: list[Turn]
    qa_start: int | None  # block index where Q&A begins
    warnings: list[str] = field(default_factory=list)


def looks_like_transcript(text: str) -> bool:
    """Cheap check for a document with no form type: is this an earnings-call transcript?"""
    head = text[:20_000]
    return (
        bool(_TRANSCRIPT_HINT_RE.search(head))
        and len(re.findall(r"(?m)^\s*operator\b", text, re.I)) >= 1
    )


def _participants(blocks: list[Block]) -> dict[str, tuple[Role, str | None]]:
    known: dict[str, tuple[Role, str | None]] = {}
    role: Role | None = None
    for b in blocks[:200]:
        header = b.text.strip().rstrip(":").lower()
        if header in _PARTICIPANT_HEADERS:
            role = _PARTICIPANT_HEADERS[header]  # type: ignore[assignment]
            continue
        if role is None:
            continue
        m = _ALONE_RE.match(b.text)
        if not m:
            if len(b.text) > 120 or _OPERATOR_RE.match(b.text):
                role = None
            continue
        known[m.group("name")] = (role, m.group("title"))
    return known


def _speaker(
    block: Block, known: dict[str, tuple[Role, str | None]]
) -> tuple[str, str | None, str] | None:
    """(name, title/affiliation, remaining text) if the block opens a turn."""
    text = block.text
    if _QA_HEADER_RE.match(text):
        return None
    if m := _OPERATOR_RE.match(text):
        return "Operator", None, (m.group("rest") or "")
    if len(text) <= 160 and (m := _ALONE_RE.match(text)):
        return m.group("name"), m.group("title").strip(), ""
    if m := _INLINE_RE.match(text):
        name = m.group("name")
        if m.group("aff") or name in known:
            return name, m.group("aff"), m.group("rest")
    if text in known:
        return text, known[text][1], ""
    return None


def _role(
    name: str, title: str | None, known: dict[str, tuple[Role, str | None]], analysts: set[str]
) -> Role:
    if name == "Operator":
        return "operator"
    if name in known:
        return known[name][0]
    if name in analysts or (title and _ANALYST_WORDS.search(title)):
        return "analyst"
    if title and _EXEC_WORDS.search(title):
        return "executive"
    return "unknown"


def parse_turns(blocks: list[Block]) -> TranscriptStructure:
    known = _participants(blocks)
    analysts = {n for n, (r, _t) in known.items() if r == "analyst"}
    for b in blocks:
        for m in _INTRO_RE.finditer(b.text):
            analysts.add(m.group("name"))
    opened: list[tuple[int, str, str | None]] = []
    participant_blocks = set()
    qa_start: int | None = None
    for i, b in enumerate(blocks):
        hit = _speaker(b, known)
        # Lines of the participants list look like speaker lines; they open no turn.
        if hit and not opened and hit[2] == "" and hit[0] in known and _listed_in_header(blocks, i):
            participant_blocks.add(i)
            continue
        if _QA_HEADER_RE.match(b.text) and qa_start is None:
            qa_start = i
        if hit:
            opened.append((i, hit[0], hit[1]))
    turns: list[Turn] = []
    for k, (i, name, title) in enumerate(opened):
        end = opened[k + 1][0] if k + 1 < len(opened) else len(blocks)
        turns.append(Turn(name, _role(name, title, known, analysts), i, end, title))
    if qa_start is None:
        qa_start = next(
            (
                t.first
                for t in turns
                if t.role == "operator" and _QA_OPERATOR_RE.search(_turn_text(blocks, t))
            ),
            None,
        )
        if qa_start is None:
            qa_start = next((t.first for t in turns if t.role == "analyst"), None)
    for k, t in enumerate(turns):
        # The "Question-and-Answer Session" line opens the Q&A, not the end of the last remark.
        if qa_start is not None and t.first < qa_start < t.last:
            t.last = qa_start
            if k + 1 < len(turns):
                turns[k + 1].first = qa_start
    warnings = []
    if not turns:
        warnings.append("no speaker lines recognized in the transcript; chunked as plain prose")
    for t in turns:
        t.in_qa = qa_start is not None and t.first >= qa_start
        # In Q&A, an unlabelled speaker right after the operator introduced someone is asking.
    for prev, t in zip(turns, turns[1:], strict=False):
        if t.in_qa and t.role == "unknown" and prev.role == "operator":
            t.role = "analyst"
    return TranscriptStructure(turns, qa_start, warnings)


def _listed_in_header(blocks: list[Block], i: int) -> bool:
    for j in range(i - 1, max(-1, i - 40), -1):
        if blocks[j].text.strip().rstrip(":").lower() in _PARTICIPANT_HEADERS:
            return True
    return False


def _turn_text(blocks: list[Block], turn: Turn) -> str:
    return " ".join(b.text for b in blocks[turn.first : turn.last])


def _qa_groups(turns: list[Turn]) -> list[list[Turn]]:
    """Operator intro + question + answers (+ the same analyst's follow-ups) per group."""
    groups: list[list[Turn]] = []
    current: list[Turn] = []
    for t in turns:
        has_analyst = any(x.role == "analyst" for x in current)
        answered = any(x.role in {"executive", "unknown"} for x in current if has_analyst)
        if t.role == "operator" and has_analyst:
            groups.append(current)
            current = [t]
        elif t.role == "analyst" and has_analyst and answered and current[-1].speaker != t.speaker:
            asker = next(x.speaker for x in current if x.role == "analyst")
            if asker != t.speaker:
                groups.append(current)
                current = [t]
            else:
                current.append(t)
        else:
            current.append(t)
    if current:
        groups.append(current)
    return groups


def chunk_transcript(
    blocks: list[Block],
    filing_id: str,
    document_type: str,
    filing_text: str,
    settings: ChunkingSettings,
    structure: TranscriptStructure | None = None,
) -> tuple[list[dict], list[str]]:
    """Chunk rows for a transcript, and warnings."""
    structure = structure or parse_turns(blocks)
    prepared = ChunkWriter(filing_id, document_type, PREPARED)
    qa = ChunkWriter(filing_id, document_type, QA)
    budget, overlap = settings.max_tokens, settings.overlap_tokens
    turns = structure.turns
    if not turns:
        for start, end, ids in prose_ranges(blocks, budget, overlap):
            prepared.emit(filing_text[start:end], start, end, "turn", None, ids)
        return prepared.rows, structure.warnings
    intro_end = turns[0].first
    if intro_end:
        # Title, participants list and the like: context for the prepared remarks.
        for start, end, ids in prose_ranges(blocks[:intro_end], budget, overlap):
            prepared.emit(filing_text[start:end], start, end, "turn", None, ids)
    for t in (t for t in turns if not t.in_qa):
        for start, end, ids in prose_ranges(blocks[t.first : t.last], budget, overlap):
            prepared.emit(filing_text[start:end], start, end, "turn", None, ids)
    hard_cap = 4 * budget
    for group in _qa_groups([t for t in turns if t.in_qa]):
        if not any(t.role == "analyst" for t in group):
            for t in group:
                for start, end, ids in prose_ranges(blocks[t.first : t.last], budget, overlap):
                    qa.emit(filing_text[start:end], start, end, "turn", None, ids)
            continue
        # One exchange, one chunk; only a monster exchange is cut, at turn boundaries, and the
        # question always stays with the first answer.
        pieces: list[list[Turn]] = [[]]
        tokens = 0
        for t in group:
            n = count_tokens(_turn_text(blocks, t))
            answered = any(x.role in {"executive", "unknown"} for x in pieces[-1])
            if pieces[-1] and answered and tokens + n > hard_cap:
                pieces.append([])
                tokens = 0
            pieces[-1].append(t)
            tokens += n
        for piece in pieces:
            start = blocks[piece[0].first].start
            end = blocks[piece[-1].last - 1].end
            ids = [i for t in piece for b in blocks[t.first : t.last] for i in b.ix_ids]
            qa.emit(filing_text[start:end], start, end, "qa", None, ids)
    return prepared.rows + qa.rows, structure.warnings


_TICKER_RE = re.compile(
    r"\((?:(?:NYSE|NASDAQ|Nasdaq|NYSEAMERICAN)\s*:\s*)?([A-Z]{1,5}(?:\.[A-Z])?)\)"
)
_QUARTER_RE = re.compile(r"\bQ([1-4])\s+(?:fiscal\s+(?:year\s+)?|FY\s*)?(\d{4})\b", re.I)


def transcript_meta(blocks: list[Block]) -> dict[str, object]:
    """Ticker, fiscal quarter and call date from a transcript's title lines."""
    from graphrag_core.common.dates import parse_date_loose

    head = [b.text for b in blocks[:6]]
    out: dict[str, object] = {}
    for line in head:
        if "ticker" not in out and (m := _TICKER_RE.search(line)):
            out["ticker"] = m.group(1)
            out["company"] = line[: m.start()].strip(" -–—,") or None
        if "fiscal_period" not in out and (m := _QUARTER_RE.search(line)):
            out["fiscal_period"] = f"Q{m.group(1)}"
            out["fiscal_year"] = int(m.group(2))
        if "call_date" not in out and (d := parse_date_loose(line)):
            out["call_date"] = d
    return out
