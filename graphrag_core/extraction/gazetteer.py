"""Company mentions in text, found with SEC's ticker/CIK list and legal-form suffixes.

A mention is a run of capitalized words (joined by "&", "of", "de" at most) that either

- matches the core of an SEC registrant's name once legal suffixes are stripped on both sides
  ("MICRON TECHNOLOGY INC" ↔ "Micron Technology, Inc."), or of a resolved entity's name, or
- ends in a legal form ("Samsung Electronics Co., Ltd.", "Wistron Corporation"): a company that
  files nothing with the SEC is still a company, or
- is an alias the passage itself defines: "Advanced Micro Devices, Inc., or AMD" or
  `Hon Hai (“Foxconn”)`.

Bare tickers are never mentions (AI, IP, ON, NOW are tickers too). A one-word name that the
passage also uses as a lower-case word ("target", "block") needs its legal suffix to count.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from graphrag_core.common.ids import normalize_cik
from graphrag_core.common.names import (
    LEGAL_FORMS,
    NAME_TOKEN_RE,
    name_key,
    name_token,
    strip_name_tail,
)

_CONNECTORS = frozenset({"&", "of", "de"})
# Words capitalized only because they start a sentence or a heading, never names on their own.
_FUNCTION_WORDS = frozenset(
    "a an the our we us its their this that these those in on at for from by with to of and or "
    "as such including include includes sales customers customer direct indirect certain other "
    "some many all each any if when while although however additionally also other".split()
)


@dataclass(frozen=True)
class Entry:
    key: tuple[str, ...]
    name: str  # as registered (SEC title or resolved entity name)
    entity_key: str | None  # CIK-########## or the resolved entity's key


@dataclass(frozen=True)
class Mention:
    start: int
    end: int
    name: str  # as written in the passage (its defined full name when an alias is used)
    entity_key: str | None
    via: str  # gazetteer | legal_form | alias


class Gazetteer:
    """Name cores → entries; `find` returns the company mentions of one passage."""

    def __init__(self, entries: Iterable[Entry]):
        self._by_key: dict[tuple[str, ...], Entry] = {}
        for entry in entries:
            if entry.key and entry.key not in self._by_key:
                self._by_key[entry.key] = entry
        self.max_len = max((len(k) for k in self._by_key), default=1)

    def __len__(self) -> int:
        return len(self._by_key)

    @classmethod
    def from_rows(
        cls, tickers: Iterable[Mapping], resolved: Iterable[tuple[str, str]] = ()
    ) -> Gazetteer:
        """SEC ticker rows `{cik, ticker, title}` and resolved `(name, entity key)` pairs."""
        entries: list[Entry] = []
        for name, entity in resolved:
            entries.append(Entry(name_key(name), name, entity))
        for row in tickers:
            title = str(row.get("title") or "")
            cik = normalize_cik(row.get("cik"))
            key = f"CIK-{cik}" if cik else None
            core = name_key(title)
            entries.append(Entry(core, title, key))
            # "Alibaba Group Holding Ltd" is written "Alibaba Group": also register the core
            # without a trailing "Holdings"/"Group" word, when two words are left (one word
            # alone, like the "Star" of "Star Holdings", is too often just a word).
            if len(core) > 2 and core[-1] in {"holdings", "group"}:
                entries.append(Entry(core[:-1], title, key))
        return cls(entries)

    def lookup(self, key: tuple[str, ...]) -> Entry | None:
        return self._by_key.get(key)

    def find(self, text: str) -> list[Mention]:
        return find_mentions(text, self)


# ---------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class _Tok:
    text: str
    start: int
    end: int

    @property
    def capitalized(self) -> bool:
        c = self.text[0]
        return c.isupper() or (c.isdigit() and any(ch.isupper() for ch in self.text))


def _tokens(text: str) -> list[_Tok]:
    out = []
    for m in NAME_TOKEN_RE.finditer(text):
        raw = m.group()
        end = m.end()
        # A sentence-final period belongs to the sentence, except after a legal abbreviation.
        while raw.endswith(".") and name_token(raw) not in LEGAL_FORMS and len(raw) > 1 and not re.fullmatch(r"(?:[A-Za-z]\.)+", raw):
            raw = raw[:-1]
            end -= 1
        out.append(_Tok(raw, m.start(), end))
    return out


def _gap_is(text: str, a: _Tok, b: _Tok, allowed: str) -> bool:
    gap = text[a.end : b.start]
    return re.fullmatch(allowed, gap) is not None


def _capital_runs(text: str, toks: list[_Tok]) -> list[tuple[int, int]]:
    """Index ranges [i, j) of capitalized-word runs, connectors allowed inside."""
    runs = []
    i = 0
    n = len(toks)
    while i < n:
        if not toks[i].capitalized:
            i += 1
            continue
        j = i + 1
        while j < n:
            t = toks[j]
            if t.capitalized and _gap_is(text, toks[j - 1], t, r"[ \t]?|\s"):
                j += 1
                continue
            if (
                t.text.lower() in _CONNECTORS
                and j + 1 < n
                and toks[j + 1].capitalized
                and _gap_is(text, toks[j - 1], t, r"\s")
                and _gap_is(text, t, toks[j + 1], r"\s")
            ):
                j += 2
                continue
            break
        runs.append((i, j))
        i = j
    return runs


_SUFFIX_CHAIN = re.compile(
    r"(?:,?\s+(?:Inc|Incorporated|Corp|Corporation|Co|Company|Ltd|Limited|plc|PLC|LLC|L\.L\.C|LP|L\.P|LLP|"
    r"N\.V|NV|S\.A|SA|AG|SE|GmbH|S\.p\.A|SpA|B\.V|BV|KK|AB|ASA|Oyj|Pte|Pty|SAS)\b\.?)+"
)
_ALIAS = re.compile(
    r"""^(?:,\s+or\s+(?:the\s+)?[“"]?(?P<a>[A-Z][A-Za-z0-9&\-]*(?:\s+[A-Z][A-Za-z0-9&\-]*){0,2})[”"]?(?=[,;.:)]|\s+(?:and|to|for|in|as|which|who)\b|$)"""
    r"""|\s*\((?:the\s+|collectively,?\s+)?[“"](?P<b>[A-Z][A-Za-z0-9&\-]*(?:\s+[A-Z][A-Za-z0-9&\-]*){0,2})[”"]\))"""
)


def _is_common_word(word: str, text: str) -> bool:
    return re.search(rf"(?<![A-Za-z]){re.escape(word.lower())}(?![A-Za-z])", text) is not None


def _match_run(
    text: str, toks: list[_Tok], i: int, j: int, gazetteer: Gazetteer
) -> tuple[int, int, Entry | None, int] | None:
    """Best company reading of run [i, j): (first tok, last tok, entry, end offset incl. suffix)."""
    # Drop leading function words capitalized by position ("The", "Our", "Sales", "Additionally").
    while i < j and toks[i].text.lower() in _FUNCTION_WORDS:
        i += 1
    if i >= j:
        return None
    suffix = _SUFFIX_CHAIN.match(text, toks[j - 1].end)
    suffix_end = suffix.end() if suffix else None
    # Trailing run words that are themselves legal suffixes ("Company Limited") count as suffix.
    core_end = j
    while core_end > i and name_token(toks[core_end - 1].text) in LEGAL_FORMS:
        core_end -= 1
    has_suffix = suffix_end is not None or core_end < j
    end_offset = suffix_end if suffix_end is not None else toks[j - 1].end
    if core_end == i:
        return None
    key = strip_name_tail([name_token(t.text) for t in toks[i:core_end]])
    entry = gazetteer.lookup(key) if key else None
    if entry is not None:
        if len(key) == 1 and not has_suffix and _is_common_word(key[0], text):
            return None
        return i, j, entry, end_offset
    if has_suffix and key:
        return i, j, None, end_offset
    return None


def find_mentions(text: str, gazetteer: Gazetteer) -> list[Mention]:
    toks = _tokens(text)
    mentions: list[Mention] = []
    aliases: dict[str, tuple[str, str | None]] = {}
    alias_spans: list[tuple[int, int]] = []
    for i, j in _capital_runs(text, toks):
        found = _match_run(text, toks, i, j, gazetteer)
        if found is None:
            continue
        a, _, entry, end = found
        start = toks[a].start
        name = text[start:end].rstrip(",; ")
        mentions.append(
            Mention(start, start + len(name), name, entry.entity_key if entry else None,
                    "gazetteer" if entry else "legal_form")
        )
        alias = _ALIAS.match(text[end:])
        if alias:
            word = alias.group("a") or alias.group("b")
            if word and word.lower() not in _FUNCTION_WORDS:
                aliases[word] = (name, entry.entity_key if entry else None)
                at = end + alias.start("a" if alias.group("a") else "b")
                alias_spans.append((at, at + len(word)))
    # The alias inside its own definition ("…, Inc., or AMD") is not a second mention.
    mentions = [m for m in mentions if not any(s <= m.start < e for s, e in alias_spans)]
    # Later uses of a defined alias ("AMD", "Huawei") are mentions of the full name.
    covered = [(m.start, m.end) for m in mentions] + alias_spans
    for word, (name, entity_key) in aliases.items():
        for m in re.finditer(rf"(?<![\w&-]){re.escape(word)}(?![\w&-])", text):
            if any(s <= m.start() < e for s, e in covered):
                continue
            mentions.append(Mention(m.start(), m.end(), name, entity_key, "alias"))
    return _canonical_names(sorted(mentions, key=lambda m: m.start))


def _canonical_names(mentions: list[Mention]) -> list[Mention]:
    """One name per registrant within a passage: the fullest one it writes ("Intel Corporation"
    for a later bare "Intel"), so duplicates merge downstream."""
    fullest: dict[str, str] = {}
    for m in mentions:
        if m.entity_key and len(m.name) > len(fullest.get(m.entity_key, "")):
            fullest[m.entity_key] = m.name
    return [
        Mention(m.start, m.end, fullest[m.entity_key], m.entity_key, m.via) if m.entity_key else m
        for m in mentions
    ]
