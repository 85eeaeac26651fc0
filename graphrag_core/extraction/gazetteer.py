"""Company mentions in text, found with SEC's ticker/CIK list, a curated list of major companies
that file nothing with the SEC, and legal-form suffixes.

A mention is a run of capitalized words (joined by "&", "of", "de" at most) that either

- matches the core of an SEC registrant's name once legal suffixes are stripped on both sides
  ("MICRON TECHNOLOGY INC" ↔ "Micron Technology, Inc."), or of a resolved entity's name, or
- ends in a legal form ("Samsung Electronics Co., Ltd.", "Wistron Corporation"): a company that
  files nothing with the SEC is still a company, or
- is an alias the passage itself defines: "Advanced Micro Devices, Inc., or AMD" or
  `Hon Hai (“Foxconn”)`;

or a name of the curated list (`lexicon/companies.txt`: Panasonic, adidas, Kirin, Airbus, Huawei…)
as written there. Bare tickers are never mentions (AI, IP, ON, NOW are tickers too). A one-word
name that the passage also uses as a lower-case word ("target", "block") needs its legal suffix
to count.

`enumerated_names` adds, for a relation cue's scope only, the capitalized names that stand as the
items of an enumeration ("such as Visa, American Express, JCB, China UnionPay and Discover"):
a list is context enough to take a capitalized name for a company, once places, products (®)
and common capitalized words are set aside.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from functools import cache
from importlib import resources
from typing import NamedTuple

from graphrag_core.common.ids import normalize_cik
from graphrag_core.common.names import (
    LEGAL_FORMS,
    NAME_TOKEN_RE,
    name_key,
    name_token,
    strip_name_tail,
)

_CONNECTORS = frozenset({"&", "of", "de"})
_AND_NAME_ENDINGS = frozenset(
    {"Trust", "Savings", "Loan", "Sons", "Associates", "Partners", "Company", "Co"}
)
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

    def __init__(
        self, entries: Iterable[Entry], tickers: Mapping[str, tuple[str, ...]] | None = None
    ):
        # ticker → the name key of its registrant: a curated short name that is another
        # registrant's ticker ("BYD", Boyd Gaming's) must not be emitted cut out of a longer name
        self.tickers: Mapping[str, tuple[str, ...]] = tickers or {}
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
        by_ticker: dict[str, tuple[str, ...]] = {}
        for name, entity in resolved:
            entries.append(Entry(name_key(name), name, entity))
        for row in tickers:
            title = str(row.get("title") or "")
            cik = normalize_cik(row.get("cik"))
            key = f"CIK-{cik}" if cik else None
            core = name_key(title)
            entries.append(Entry(core, title, key))
            ticker = str(row.get("ticker") or "").strip().upper()
            if ticker:
                by_ticker.setdefault(ticker, core)
            # "Alibaba Group Holding Ltd" is written "Alibaba Group": also register the core
            # without a trailing "Holdings"/"Group" word, when two words are left (one word
            # alone, like the "Star" of "Star Holdings", is too often just a word).
            if len(core) > 2 and core[-1] in {"holdings", "group"}:
                entries.append(Entry(core[:-1], title, key))
        return cls(entries, by_ticker)

    def lookup(self, key: tuple[str, ...]) -> Entry | None:
        return self._by_key.get(key)

    def find(self, text: str) -> list[Mention]:
        mentions = [
            m
            for m in find_mentions(text, self)
            if text[m.start : m.end].lower() not in _KIND_ACRONYMS
        ]
        taken = [(m.start, m.end) for m in mentions]
        for m in curated_mentions(text):
            if any(s < m.end and m.start < e for s, e in taken) or _defines_alias(text, m.start):
                continue  # found already, or the alias in its own definition ("…, or TSMC")
            mentions.append(self._not_cut_from_a_longer_name(text, m))
        return sorted(mentions, key=lambda m: m.start)

    def _not_cut_from_a_longer_name(self, text: str, m: Mention) -> Mention:
        """ "BYD Auto": a curated short name that is also another registrant's ticker, written as
        the start of a longer name, is that longer name (an organisation of its own), so that
        the resolver's ticker step never reads it as the registrant ("BYD" → Boyd Gaming)."""
        registrant = self.tickers.get(text[m.start : m.end])
        if registrant is None or m.entity_key == f"known:{registrant}":
            return m
        longer = _NAME_GOES_ON.match(text, m.end)
        if longer is None or longer.group(1).lower() in _FUNCTION_WORDS:
            return m
        return Mention(m.start, longer.end(), text[m.start : longer.end()], None, "curated")


# ---------------------------------------------------------------------------------------------


# The capitalized words that continue a name on the same line ("BYD| Auto", "MGA| Entertainment").
_NAME_GOES_ON = re.compile(r"[ \t]+((?-i:[A-Z])[\w&'’\-]*)(?:[ \t]+(?-i:[A-Z])[\w&'’\-]*)*")


class _Tok(NamedTuple):
    text: str
    start: int
    end: int
    capitalized: bool  # "Samsung", "3M"; not "semiconductor", "2025"


_INITIALS_RE = re.compile(r"(?:[A-Za-z]\.)+")


def _tokens(text: str) -> list[_Tok]:
    out = []
    for m in NAME_TOKEN_RE.finditer(text):
        raw = m.group()
        end = m.end()
        # A sentence-final period belongs to the sentence, except after a legal abbreviation.
        while (
            raw[-1] == "."
            and len(raw) > 1
            and name_token(raw) not in LEGAL_FORMS
            and not _INITIALS_RE.fullmatch(raw)
        ):
            raw = raw[:-1]
            end -= 1
        c = raw[0]
        capitalized = c.isupper() or (c.isdigit() and any(ch.isupper() for ch in raw))
        out.append(_Tok(raw, m.start(), end, capitalized))
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
            # "Citizens Deposit Bank and Trust, Inc.": an "and" inside a name that ends in a
            # legal form, before one of the words such names end with.
            if (
                t.text.lower() == "and"
                and j + 1 < n
                and toks[j + 1].text in _AND_NAME_ENDINGS
                and _SUFFIX_CHAIN.match(text, toks[j + 1].end)
            ):
                j += 2
                continue
            break
        runs.append((i, j))
        i = j
    return runs


_SUFFIX_CHAIN = re.compile(
    r"(?:,?\s+(?:Inc|Incorporated|Corp|Corporation|Co|Company|Ltd|Limited|plc|PLC|LLC|L\.L\.C|LP|L\.P|LLP|"
    r"N\.V|NV|N\.A|S\.A|SA|AG|SE|GmbH|S\.p\.A|SpA|B\.V|BV|KK|AB|ASA|Oyj|Pte|Pty|SAS)\b\.?)+"
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
            Mention(
                start,
                start + len(name),
                name,
                entry.entity_key if entry else None,
                "gazetteer" if entry else "legal_form",
            )
        )
        alias = _ALIAS.match(text[end:])
        if alias:
            word = alias.group("a") or alias.group("b")
            if word and word.lower() not in _FUNCTION_WORDS:
                aliases[word] = (name, entry.entity_key if entry else None)
                at = end + alias.start("a" if alias.group("a") else "b")
                alias_spans.append((at, at + len(word)))
    # The alias inside its own definition ("…, Inc., or AMD") is not a second mention, and a
    # later mention written exactly as a defined alias is of the company the passage defined
    # ("McKesson HBOC, Inc. (“McKesson”)": "McKesson" is not the registrant McKesson Corp).
    mentions = [
        Mention(m.start, m.end, *aliases[text[m.start : m.end]], "alias")
        if text[m.start : m.end] in aliases
        else m
        for m in mentions
        if not any(s <= m.start < e for s, e in alias_spans)
    ]
    # Later uses of a defined alias ("AMD", "Huawei") are mentions of the full name.
    covered = [(m.start, m.end) for m in mentions] + alias_spans
    for word, (name, entity_key) in aliases.items():
        # "Peoples Bank" is not a use of the alias "Peoples": a longer capitalized name starts
        # there.
        for m in re.finditer(
            rf"(?<![\w&-]){re.escape(word)}(?![\w&-])(?!['’]?\s+[A-Z][a-z])", text
        ):
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


# -- the curated list ---------------------------------------------------------------------------

_ALIAS_DEFINITION_BEFORE = re.compile(r"(?:,\s+or\s+(?:the\s+)?|\(\s*(?:the\s+)?)[“\"]?$")


def _defines_alias(text: str, start: int) -> bool:
    """Is the name at `start` an alias being defined ("…, or TSMC", "(“Daewoong”)")?"""
    return _ALIAS_DEFINITION_BEFORE.search(text, max(0, start - 12), start) is not None


# One-word names that are also everyday capitalized words at the start of a sentence or in a
# heading; they count only as items of an enumeration (see `enumerated_names`).
_AMBIGUOUS = frozenset(
    "target block square discover total metro shell orange nice honor valve snap arm continental "
    "mars vivo sharp reliance apple amazon oracle meta visa puma dove aeon amex ing sage "
    "x twitter epic bt cn bmo rbc ubs fis bat tti cgi tcs umc boe".split()
)


@dataclass(frozen=True)
class KnownCompany:
    name: str  # canonical, the first name of its line
    names: tuple[str, ...]  # every name it goes by, the canonical one first


@cache
def known_companies() -> tuple[KnownCompany, ...]:
    """The curated list (`graphrag_core/extraction/lexicon/companies.txt`)."""
    raw = (
        resources.files("graphrag_core.extraction")
        .joinpath("lexicon/companies.txt")
        .read_text(encoding="utf-8")
    )
    out = []
    for line in raw.splitlines():
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        names = tuple(n.strip() for n in line.split("|") if n.strip())
        out.append(KnownCompany(names[0], names))
    return tuple(out)


_WORD_RE = re.compile(r"[^\W_][\w&'’.\-]*[\w&]|[^\W_]")


@cache
def _curated_index() -> dict[str, list[tuple[tuple[str, ...], KnownCompany]]]:
    """First word → (the words of a name, its company), longest names first."""
    index: dict[str, list[tuple[tuple[str, ...], KnownCompany]]] = {}
    for company in known_companies():
        for name in company.names:
            for variant in {name, name.upper()}:
                words = tuple(_WORD_RE.findall(variant))
                if words:
                    index.setdefault(words[0], []).append((words, company))
    for entries in index.values():
        entries.sort(key=lambda e: -len(e[0]))
    return index


def curated_mentions(text: str) -> list[Mention]:
    """Mentions of the curated companies, as written in `text` (matched word by word)."""
    index = _curated_index()
    words = [(m.group(), m.start(), m.end()) for m in _WORD_RE.finditer(text)]
    out: list[Mention] = []
    k = 0
    while k < len(words):
        entries = index.get(words[k][0])
        if not entries:
            k += 1
            continue
        for name_words, company in entries:
            n = len(name_words)
            if tuple(w for w, _, _ in words[k : k + n]) != name_words:
                continue
            start, end = words[k][1], words[k + n - 1][2]
            written = text[start:end]
            if n == 1 and (
                written.lower() in _AMBIGUOUS
                or (written[:1].isupper() and _is_common_word(written, text))
            ):
                break
            out.append(Mention(start, end, written, f"known:{name_key(company.name)}", "curated"))
            k += n - 1
            break
        k += 1
    return out


# -- enumerations ---------------------------------------------------------------------------------

# Capitalized words that are not company names on their own: places, periods, titles, kinds.
_NOT_A_COMPANY = frozenset(
    """u.s us usa united states america americas north south east west central asia europe africa
    emea apac asia-pacific latin middle china mainland india japan korea taiwan vietnam germany
    france italy spain canada mexico brazil australia singapore ireland israel switzerland
    netherlands uk united kingdom england britain russia ukraine hong kong kentucky maryland ohio
    virginia california texas new york delaware nevada washington district columbia puerto rico
    eu european union g20 oecd internet web cloud ai ml company corporation inc group holdings
    item part note notes exhibit annual report form government federal state states congress sec
    fda ftc doj irs january february march april may june july august september october november
    december q1 q2 q3 q4 fiscal ceo cfo coo board directors others other certain various many
    several including include such as among""".split()
)
_ITEM_GAP = re.compile(
    r"^\s*(?:,|;|:|\(|\)|,?\s*(?:and|or|&)|,?\s*as\s+well\s+as|such\s+as|includ(?:e|es|ing)|namely|"
    r"primarily|principally|mainly|particularly|,?\s*or\s+(?:the\s+)?[“\"]?[A-Z][\w&.\-]*[”\"]?)*\s*$",
    re.I,
)


# Acronyms of kinds of things, not of companies ("ATM and point-of-sale debit networks").
_KIND_ACRONYMS = frozenset(
    "atm pos ach api ai ml it pc gpu cpu dpu soc asic fpga oem odm csp isp msp saas paas "
    "iaas b2b b2c "
    "p2p p2m esg ip r&d ev evs led lcd oled hdd ssd nand dram hbm 5g lte iot ar vr xr llm "
    "llms".split()
)


# Words that make a capitalized name an institution, not a company.
_INSTITUTION_WORDS = frozenset(
    "administration agency commission department bureau office ministry authority court courts "
    "congress parliament council reserve treasury government state states university".split()
)


def _plausible(name: str, text: str) -> bool:
    words = name.replace(",", " ").split()
    if not words or any(w.lower() in _INSTITUTION_WORDS for w in words):
        return False
    # Plural acronyms name kinds ("ODMs", "CSPs", "UK IDTAs"), as do technical acronyms.
    if re.fullmatch(r"[A-Z]{2,6}s", words[-1]) or (
        len(words) == 1 and words[0].lower() in _KIND_ACRONYMS
    ):
        return False
    if all(w.lower().strip(".") in _NOT_A_COMPANY or w.lower() in _FUNCTION_WORDS for w in words):
        return False
    if len(words) == 1 and (
        len(words[0]) < 2 or _is_common_word(words[0], text) and not words[0].isupper()
    ):
        return False
    return not any(ch in name for ch in "®™©")


def enumerated_names(
    text: str, start: int, end: int, taken: Sequence[tuple[int, int]] = ()
) -> list[tuple[int, int, str]]:
    """(start, end, name) of capitalized names in text[start:end] that are whole items of an
    enumeration: each stands between list separators (",", "and", "or", "such as", "including",
    "(" … ")"), and none overlaps a span in `taken` (mentions found otherwise)."""
    scope = text[start:end]
    toks = _tokens(scope)
    runs = _capital_runs(scope, toks)
    out: list[tuple[int, int, str]] = []
    previous_end = 0
    bounds = sorted([(s - start, e - start) for s, e in taken if start <= s < end])
    for i, j in runs:
        while i < j and toks[i].text.lower() in _FUNCTION_WORDS:
            i += 1
        if i >= j:
            continue
        s0, e0 = toks[i].start, toks[j - 1].end
        suffix = _SUFFIX_CHAIN.match(scope, e0)
        if suffix:
            e0 = suffix.end()
        name = scope[s0:e0].rstrip(",; ")
        e0 = s0 + len(name)
        if any(a < e0 and s0 < b for a, b in bounds):
            previous_end = max(previous_end, e0)
            continue
        before = scope[max(previous_end, 0) : s0]
        # The gap before the name must be separators only, or a lower-case lead ("payments
        # networks such as"), never a verb phrase in the middle of a clause.
        lead_ok = _ITEM_GAP.match(before) is not None or re.search(
            r"(?:such\s+as|includ(?:e|es|ing)|namely|from|with|against|by|doing\s+business\s+as|d/b/a|:|\()\s*$",
            before,
            re.I,
        )
        after = scope[e0 : e0 + 24]
        tail_ok = re.match(
            r"^\s*(?:$|[,;.)(]|and\b|or\b|&|as\s+well\s+as\b|among\s+others\b|to\s+)", after, re.I
        ) or _WHERE_TAIL.match(scope, e0)
        # An alias of the previous item ("…, or BYD Auto", "Alphabet (Google)", "(“AHP”)").
        alias = re.search(
            r"(?:,\s+or\s+(?:the\s+)?|\(\s*(?:the\s+)?)[“\"]?$", scope[max(previous_end, 0) : s0]
        )
        # A product ("Cyclocort and Aristocort, marketed by Fujisawa"), not its maker.
        product = _PRODUCT_TAIL.match(scope, e0)
        previous_end = e0
        if lead_ok and tail_ok and not alias and not product and _plausible(name, text):
            out.append((start + s0, start + e0, name))
    return out


# An item placed by where it is ("NYCE, Pulse and STAR in the U.S.; Interac in Canada"), then
# the list goes on: the enumerations' own item tail (`_ITEM_TAIL`) reads it the same way.
_WHERE_TAIL = re.compile(
    r"\s+in\s+(?:the\s+)?[A-Z][\w.]*(?:\s+[A-Z][\w.]*){0,3}\s*(?:;|,|$|\.\s*$|\s(?:and|or)\b)"
)
_PRODUCT_TAIL = re.compile(
    r"(?:\s*(?:,|and|or)\s*[A-Z][\w\-]*(?![\w\-®™]))*\s*,?\s*(?:marketed|sold|made|manufactured|distributed|offered)\s+by\b"
)


# -- list slots ----------------------------------------------------------------------------------
#
# An enumeration whose items are mostly names makes a name of its other items too ("adidas,
# Anta, ASICS, …, New Balance, On, Puma, Under Armour and V.F. Corporation": "On" and "Puma" are
# words elsewhere, here they are companies); one whose items include kinds of things ("other
# pickup trucks, Model S and Model X", "ACH, RTP and wires") is a list of products or methods,
# and its capitalized items are not taken for companies on the strength of the list alone.

_LIST_LEAD = re.compile(
    r"\b(?:such\s+as|including|includes?|namely|e\.g\.,?|i\.e\.,?|for\s+example,?)\s+|:\s+", re.I
)
_LIST_SEP = re.compile(
    r"\s*(?:;\s*(?:and\s+|or\s+)?|,\s*(?:and\s+|or\s+|as\s+well\s+as\s+)?|\s+(?:and|or|as\s+well\s+as)\s+)\s*"
    r"|(?<=[A-Za-z])/(?=[A-Z])",
    re.I,
)
_ITEM_TAIL = re.compile(
    r"(?:\s+(?:among\s+others|in\s+(?:the\s+)?[A-Z][\w.]*(?:\s+[A-Z][\w.]*)*|etc\.?)|[\s.)]+)+$"
)
_KIND_OPENERS = frozenset(
    "other others the a an some many certain various our its their these those large small "
    "smaller larger new local regional national global".split()
)


class ListItem(NamedTuple):
    start: int
    end: int
    text: str


def enumerations(
    text: str, start: int, end: int, protected: Sequence[tuple[int, int]] = ()
) -> list[list[ListItem]]:
    """The enumerations in text[start:end]: runs of short items between list separators, a lead
    ("such as", "including", ":") opening a new one. Spans in `protected` (names found already,
    "Affirmative Insurance Holdings, Inc.") are never split."""
    scope = list(text[start:end])
    for s, e in protected:
        for k in range(max(s, start), min(e, end)):
            scope[k - start] = (
                "N"
                if scope[k - start] in ",;/&" or scope[k - start].isspace()
                else scope[k - start]
            )
    masked = "".join(scope)
    leads = list(_LIST_LEAD.finditer(masked))
    bounds = zip(
        [0] + [m.end() for m in leads], [m.start() for m in leads] + [len(masked)], strict=True
    )
    out: list[list[ListItem]] = []
    for a, b in bounds:
        items: list[ListItem] = []
        position = a
        for sep in [*_LIST_SEP.finditer(masked, a, b), None]:
            s = position
            e = sep.start() if sep is not None else b
            raw = text[start + s : start + e]
            tail = _ITEM_TAIL.search(raw)
            if tail:
                raw = raw[: tail.start()]
            lead = len(raw) - len(raw.lstrip())
            raw = raw.strip()
            if not raw or re.fullmatch(r"(?:among\s+)?others|etc\.?", raw, re.I):
                if sep is not None:
                    position = sep.end()
                continue
            if len(raw.split()) > 6 or not re.match(r"[^\W_]", raw):
                if len(items) >= 2:
                    out.append(items)
                items = []
            else:
                items.append(ListItem(start + s + lead, start + s + lead + len(raw), raw))
            if sep is None:
                break
            position = sep.end()
        if b < len(masked) and items:
            items.pop()  # "…, and with generic products such as": the head of the next list
        if len(items) >= 2:
            out.append(items)
    return out


@cache
def _curated_keys() -> frozenset[tuple[str, ...]]:
    return frozenset(name_key(n) for company in known_companies() for n in company.names)


def is_known_name(name: str, gazetteer: Gazetteer) -> bool:
    """Is `name`, in whatever case, a registrant's or a curated company's name ("lululemon
    athletica")?"""
    key = name_key(name)
    return bool(key) and (gazetteer.lookup(key) is not None or key in _curated_keys())


# Nouns for parties: "some of these companies as well as Mercury General Corporation, …" is a
# list of companies still.
_PARTY_NOUNS = re.compile(
    r"\b(?:compan(?:y|ies)|firms?|competitors?|networks?|providers?|manufacturers?|suppliers?|banks?|"
    r"insurers?|carriers?|retailers?|players?|businesses|entrants|vendors?|distributors?|customers?|"
    r"makers?|brands?|groups?|institutions?|issuers?|railroads?|airlines?)\b",
    re.I,
)


def is_kind(item: str, known: bool) -> bool:
    """A lower-case item that names no company nor party: a kind of thing ("other pickup
    trucks", "wires")."""
    return (
        not known
        and not any(w[:1].isupper() or w[:1].isdigit() for w in item.split())
        and not _PARTY_NOUNS.search(item)
    )


def is_strong_kind(item: str) -> bool:
    words = item.split()
    return (
        words[0].lower() in _KIND_OPENERS or len(words) >= 2 or words[0].lower() in _KIND_ACRONYMS
    )


def slot_name(item: str, sentence_start: bool, max_words: int = 4) -> bool:
    """Can a list item stand for a company on the strength of its place in a list of names (or
    in a fixed phrase: "X, a wholly-owned subsidiary of Y")?"""
    words = item.replace(",", " ").split()
    if (
        not 1 <= len(words) <= max_words
        or not item[:1].isupper()
        or any(ch in item for ch in "®™©")
    ):
        return False
    if any(w.lower() in _INSTITUTION_WORDS for w in words) or re.search(r"\d{3,}", item):
        return False
    if len(words) == 1 and words[0].lower() in _KIND_ACRONYMS:
        return False
    # Every word capitalized but the connectors: "India-based service providers" is a kind.
    if any(
        not (w[:1].isupper() or w[:1].isdigit())
        and w.lower() not in _CONNECTORS | {"and", "the", "du", "la"}
        for w in words
    ):
        return False
    if all(w.lower().strip(".") in _NOT_A_COMPANY for w in words):
        return False
    # A capitalized function word opening the sentence is no name ("On" mid-list is).
    return not (sentence_start and all(w.lower() in _FUNCTION_WORDS for w in words))
