"""Sentence boundaries: the one splitter that chunking (packing prose to a budget) and the
extraction gates (the sentence that carries a relation) share.

A period after an abbreviation is ambiguous. "Apple Inc. sold" goes on; "supplied by Wistron
Corp. We also" ends. Two kinds of abbreviations are told apart:

- words that only ever come *before* something ("Mr.", "e.g.", "No. 4", "vs."): never an end;
- words that can close a sentence (legal forms "Inc.", "Co.", "Ltd.", "L.P.", places "U.S.",
  months, "etc.", "Jr.", and initials "J." or "A."): an end only when the next word plainly
  starts a new sentence: a function word written with a capital ("We", "The", "In", "However",
  "Our"...), which a company name, a place or a person's surname almost never is.

A period after any other word is an end, as is a "!" or "?".
"""

from __future__ import annotations

import re

# Abbreviations that are always followed by what they abbreviate for ("Mr. Huang", "e.g. the",
# "No. 3", "approx. 12%"): their period never ends a sentence.
PREFIX_ABBREVIATIONS = frozenset(
    "mr mrs ms messrs dr prof rev hon gen sen rep gov e.g i.e cf vs viz no nos fig figs approx "
    "ref refs sec secs art arts para ch vol pp p.p ex exh".split()
)
# Abbreviations that can also close a sentence ("… made by Hon Hai Precision Industry Co. The
# company …"): their period ends one only before a word that starts a sentence.
TERMINAL_ABBREVIATIONS = frozenset(
    "inc corp co cos ltd bros plc l.p l.l.c l.l.p n.a n.v s.a s.a.s s.p.a b.v a.g k.k "
    "u.s u.s.a u.k e.u u.n d.c p.r.c "
    "jan feb mar apr jun jul aug sep sept oct nov dec "
    "etc jr sr esq st ave blvd p.m a.m".split()
)
# Both together: every word whose period alone does not decide (kept for callers that ask).
ABBREVIATIONS = PREFIX_ABBREVIATIONS | TERMINAL_ABBREVIATIONS

# Words that, capitalized after an ambiguous period, start a new sentence rather than continue a
# name: articles, pronouns, determiners, prepositions and sentence adverbs. None of them is a
# plausible second word of a company, person or place name.
SENTENCE_STARTERS = frozenset(
    """a an the this that these those there their they them it its we our us he she his her
    in on at for from to by with without within into during after before since until while
    when where whether if as although though because unless once upon under over through
    such each every all any some many most much more other another both either neither no not
    none certain several few also additionally further furthermore moreover however
    accordingly therefore thus consequently nevertheless nonetheless similarly likewise
    finally first second third lastly instead meanwhile otherwise still yet so and but or
    net total based pursuant following see refer please note""".split()
)

# A candidate end: . ! ? with any closing quotes or brackets, before whitespace.
_END_RE = re.compile(r"[.!?][\"'”’)\]]*(?=\s)")
_END_OR_LINE_RE = re.compile(r"[.!?][\"'”’)\]]*(?=\s)|\n+")
_NEXT_STARTS_SENTENCE_RE = re.compile(r"\s+[A-Z0-9“\"'(•]")
_NEXT_WORD_RE = re.compile(r"\s+[\"“‘'(\[]*([A-Za-z]+)")


def _abbreviation_kind(text: str, start: int, end: int) -> str | None:
    """'prefix', 'terminal' or None for the word that the candidate end at `end` closes."""
    head = text[start:end].rstrip("\"'”’)]")
    if not head.endswith("."):
        return None
    words = head[:-1].rsplit(None, 1)
    last = words[-1] if words else ""
    last = last.lstrip("(\"'“‘[").lower()
    if last in PREFIX_ABBREVIATIONS:
        return "prefix"
    if last in TERMINAL_ABBREVIATIONS:
        return "terminal"
    # An initial ("J.", "A.") or dotted initials ("J.P.", "U.S.A." already listed).
    if re.fullmatch(r"(?:[a-z]\.)*[a-z]", last):
        return "terminal"
    return None


def _next_starts_sentence(text: str, end: int) -> bool:
    """Is the word after `end` capitalized and a word that starts sentences ("We", "The")?"""
    m = _NEXT_WORD_RE.match(text, end)
    if m is None:
        return False
    word = m.group(1)
    return word[0].isupper() and word.lower() in SENTENCE_STARTERS


def _is_abbreviation(text: str, start: int, end: int) -> bool:
    """Does the candidate end at `end` close an abbreviation that does not end the sentence?"""
    kind = _abbreviation_kind(text, start, end)
    if kind == "prefix":
        return True
    if kind == "terminal":
        return not _next_starts_sentence(text, end)
    return False


def sentence_spans(
    text: str, *, split_lines: bool = False, require_capital: bool = False
) -> list[tuple[int, int]]:
    """Sentences of `text` as (start, end) offsets, surrounding whitespace excluded.

    `split_lines`: a line break also ends a sentence (chunks join bullets with newlines).
    `require_capital`: a period ends a sentence only before an upper-case letter, a digit or an
    opening quote or bracket (prose packing prefers a missed end to a false one)."""
    pattern = _END_OR_LINE_RE if split_lines else _END_RE
    spans: list[tuple[int, int]] = []
    start = 0
    for match in pattern.finditer(text):
        end = match.end()
        if match.group().startswith("\n"):
            _append_trimmed(text, start, end, spans)
            start = end
            continue
        if require_capital and not _NEXT_STARTS_SENTENCE_RE.match(text, end):
            continue
        if _is_abbreviation(text, start, end):
            continue
        _append_trimmed(text, start, end, spans)
        start = end
    _append_trimmed(text, start, len(text), spans)
    return spans


def _append_trimmed(text: str, start: int, end: int, spans: list[tuple[int, int]]) -> None:
    while start < end and text[start].isspace():
        start += 1
    while end > start and text[end - 1].isspace():
        end -= 1
    if end > start:
        spans.append((start, end))
