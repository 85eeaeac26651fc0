"""The embedded extractor: deterministic cue patterns over sentences, no model server.

It is what it says: rules. It finds company mentions with the gazetteer (SEC registrants, legal
forms, aliases a passage defines) and binds them to relations only where a cue phrase says how:

- SUPPLIES      "we rely on X to manufacture", "we utilize foundries, such as X", "we purchase
                memory from X", "our suppliers include X"
- CUSTOMER_OF   "X accounted for 12% of net sales", "Sales to direct Customers A, B and C
                represented 12%, 11% and 11% of total revenue"
- COMPETES_WITH "we compete with X", "our competitors include X" (and the bullets after a
                "competitors include:" lead-in)
- SUBSIDIARY_OF "X, a wholly owned subsidiary of Y", "our subsidiary X"
- EXPOSED_TO_RISK  adverse-effect language naming a risk topic, or the loss of a named party
- GUIDES        "we expect 2025 capital expenditures to be approximately $2.2 billion"

It never emits REPORTS_METRIC (metrics come from XBRL). Its evidence is always a whole sentence
of the chunk; its output is the same JSON an LLM returns and goes through the same gates, which
is where a hypothetical "we rely on" becomes a risk and a negated one is dropped.
"""

from __future__ import annotations

import re
import time
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from decimal import Decimal
from pathlib import Path

from graphrag_core.common.ids import content_hash, sha256_bytes
from graphrag_core.common.names import name_key
from graphrag_core.common.numbers import NUMBER_SCALE_WORD_RE, SCALE_WORDS
from graphrag_core.extraction.backends.base import ChunkInput, RawResult
from graphrag_core.extraction.gazetteer import Gazetteer, Mention
from graphrag_core.extraction.triples import Extraction, Relation, Triple
from graphrag_core.text.sentences import sentence_spans

RULES_VERSION = "rules-v1"

_I = re.I

# -- cues that open a scope: mentions after the cue (until the next cue) are bound ------------

_SUPPLY_VERB = re.compile(
    r"\b(?:rel(?:y|ies|ied)|depend(?:s|ed)?)\s+(?:\w+\s+){0,3}?(?:on|upon)\b", _I
)
_SUPPLY_ACTION = re.compile(
    r"\b(?:manufactur\w*|produc\w*|fabricat\w*|suppl\w*|assembl\w*|packag\w*|foundr\w*|wafers?|"
    r"components?|memory|substrates?)\b",
    _I,
)
_PROCURE_VERB = re.compile(
    r"\b(?:utiliz(?:e|es|ed)|use[sd]?|engage[sd]?|source[sd]?|purchase[sd]?|buy|buys|bought|"
    r"obtain(?:s|ed)?|procure[sd]?|outsource[sd]?|contract(?:s|ed)?)\b",
    _I,
)
_SUPPLY_NOUN = re.compile(
    r"\b(?:foundr(?:y|ies)|suppliers?|subcontractors?|(?:contract\s+)?manufacturers?|vendors?|"
    r"manufacturing\s+partners?|from)\b",
    _I,
)
_SUPPLIER_LIST = re.compile(
    r"\b(?:suppliers?|foundr(?:y|ies)|contract\s+manufacturers?|manufacturing\s+partners?|vendors?)"
    r"\s+(?:\w+\s+){0,2}?(?:include|includes|including|are|is|such\s+as)\b",
    _I,
)
_COMPETE = re.compile(
    r"\b(?:compet(?:e|es|ed|ing)\s+(?:\w+\s+){0,4}?(?:with|against)|competition\s+(?:\w+\s+){0,2}?from|"
    r"competitors?\s+(?:\w+\s+){0,3}?(?:include|includes|including|are|is|such\s+as))\b",
    _I,
)
_COMPETE_LEAD_IN = re.compile(r"\bcompetitors?\b[^:]*\binclude\w*\s*:\s*$", _I)
_BULLET = re.compile(r"^\s*[•●○◦▪■·∙‣⁃\-–—*]")
_OUR_SUBSIDIARY = re.compile(
    r"\b(?:our|the\s+company['’]s)\s+(?:(?:wholly|majority)[- ]owned\s+|indirect\s+|direct\s+)*"
    r"subsidiar(?:y|ies)\b",
    _I,
)
_SUBSIDIARY_OF = re.compile(
    r"^,?\s+(?:is\s+|was\s+|became\s+)?(?:a|an|our|its)\s+"
    r"(?:(?:wholly|majority)[- ]owned\s+|indirect\s+|direct\s+|consolidated\s+)*subsidiary\s+of\s+",
    _I,
)
_PARENT_IS_FILER = re.compile(r"^(?:the\s+company|us|ours)\b", _I)
_DEPENDENCY_LOSS = re.compile(
    r"\b(?:loss\s+of|lose|losing|termination\s+of|failure\s+(?:of|by)|inability\s+of|"
    r"disruption\s+(?:at|of)|insolvency\s+of)\s+$",
    _I,
)

# -- customers --------------------------------------------------------------------------------

_PCT = r"\d+(?:\.\d+)?\s?%"
_SHARE_OF_REVENUE = (
    r"\s+of\s+(?:our\s+|the\s+company['’]s\s+|its\s+)?(?:total\s+|net\s+|consolidated\s+)*"
    r"(?:revenues?|net\s+sales|sales)\b"
)
_DESIGNATED_CUSTOMERS = re.compile(
    r"\b(?i:sales\s+to|revenue\s+from)\s+(?i:our\s+)?(?i:direct\s+|indirect\s+)?(?i:customers?)\s+"
    r"(?P<names>[A-Z](?:\s*,\s*[A-Z])*(?:,?\s+and\s+[A-Z])?)\s+"
    r"(?i:represented|accounted\s+for|comprised|were)\s+(?i:approximately\s+)?"
    rf"(?P<pcts>{_PCT}(?:\s*,\s*{_PCT})*(?:,?\s+and\s+{_PCT})?)(?i:{_SHARE_OF_REVENUE})",
)
_ONE_DESIGNATED = re.compile(
    r"\b(?P<who>Customer\s+[A-Z])\b(?:\s*,[^,]{0,60},)?\s+"
    r"(?i:represented|accounted\s+for|comprised)\s+(?i:approximately\s+)?"
    rf"(?P<pct>{_PCT})(?i:{_SHARE_OF_REVENUE})",
)
_SHARE_AFTER_MENTION = re.compile(
    r"^(?:['’]s\s+\w+)?(?:\s*,[^,]{0,60},)?\s+(?:represented|accounted\s+for|comprised)\s+"
    rf"(?:approximately\s+|about\s+)?(?P<pct>{_PCT}){_SHARE_OF_REVENUE}",
    _I,
)

# -- risks ------------------------------------------------------------------------------------

_ADVERSE = re.compile(
    r"\b(?:adverse(?:ly)?|negatively|harm(?:s|ed)?|disrupt(?:s|ed|ion|ions)?|jeopardi[sz]e)\b", _I
)
RISK_TOPICS: tuple[tuple[str, re.Pattern[str]], ...] = tuple(
    (label, re.compile(pattern, _I))
    for label, pattern in (
        ("export controls", r"\bexport\s+(?:controls?|restrictions?|licens\w+)"),
        ("tariffs and trade restrictions", r"\btariffs?\b|\btrade\s+(?:restrictions?|disputes?|wars?|policy|policies)"),
        ("foreign exchange rates", r"\bforeign\s+(?:currency|exchange)|\bexchange\s+rates?\b|\bcurrency\s+fluctuations?"),
        ("interest rates", r"\binterest\s+rates?\b"),
        ("inflation", r"\binflation\w*"),
        ("cybersecurity incidents", r"\bcyber\s?-?(?:security|attacks?|incidents?)|\bransomware\b|\b(?:security|data)\s+breach\w*"),
        ("data privacy regulation", r"\bdata\s+(?:privacy|protection)\b|\bprivacy\s+(?:laws?|regulations?)"),
        ("climate change", r"\bclimate\s+change\b|\bextreme\s+weather\b"),
        ("natural disasters", r"\bnatural\s+disasters?\b|\bearthquakes?\b"),
        ("public health crises", r"\bpandemics?\b|\bpublic\s+health\b|\bCOVID"),
        ("geopolitical tensions", r"\bgeopolitical\b|\barmed\s+conflicts?\b|\bterroris\w+"),
        ("supply chain", r"\bsupply\s+chain\b|\b(?:component|supply)\s+shortages?"),
        ("customer concentration", r"\blimited\s+number\s+of\s+customers\b|\bcustomer\s+concentration\b"),
        ("competition", r"\bcompetition\b|\bcompetitors\b|\bcompetitive\s+(?:pressures?|position|advantage)\b"),
        ("litigation", r"\blitigation\b|\blawsuits?\b|\blegal\s+proceedings\b"),
        ("government regulation", r"\bgovernment(?:al)?\s+regulations?\b|\bregulatory\s+(?:changes?|requirements?|actions?)"),
        ("intellectual property", r"\bintellectual\s+property\b"),
        ("tax law changes", r"\btax\s+(?:laws?|legislation|rates?)\b"),
        ("key personnel", r"\bkey\s+(?:personnel|employees|executives)\b"),
        ("indebtedness", r"\bindebtedness\b|\bcredit\s+ratings?\b"),
    )
)

# -- guidance ---------------------------------------------------------------------------------

_FORWARD = re.compile(
    r"\b(?:expects?|expected|expecting|anticipates?|anticipated|outlook|guidance|forecasts?|"
    r"projected|(?:we|currently)\s+projects?)\b",  # not the noun: "these projects include"
    _I,
)
GUIDED_METRICS: tuple[tuple[str, re.Pattern[str]], ...] = tuple(
    (label, re.compile(pattern, _I))
    for label, pattern in (
        ("revenue", r"(?<!deferred\s)(?<!unearned\s)\b(?:total\s+|net\s+)?(?:revenues?|net\s+sales)\b"),
        ("gross margin", r"\bgross\s+margins?\b"),
        ("operating expenses", r"\boperating\s+expenses\b"),
        ("operating margin", r"\boperating\s+margins?\b"),
        ("capital expenditures", r"\bcapital\s+expenditures\b"),
        ("effective tax rate", r"\b(?:effective\s+)?tax\s+rate\b"),
        ("earnings per share", r"\b(?:diluted\s+)?(?:earnings|EPS)\s+per\s+share\b|\bEPS\b"),
        ("free cash flow", r"\bfree\s+cash\s+flow\b"),
    )
)
_AMOUNT = re.compile(
    r"(?P<money>\$\s?)?(?P<num>\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+(?:\.\d+)?)"
    rf"(?:\s*(?P<mult>{NUMBER_SCALE_WORD_RE})\b)?(?P<pct>\s?%)?",
    _I,
)
# What may stand between a metric and its figure: "to be approximately", "in 2025 is expected
# to be", "of", "to exceed" — a short verbal link, not another clause about something else.
_GUIDANCE_LINK = re.compile(
    r"^(?:(?!\d{5})[^.;:$%])*?\b(?:be|of|at|approximately|about|around|between|range|exceed|reach|"
    r"increase\s+to|decrease\s+to|grow\s+to|is|are|will)\b(?:\s+\S+){0,4}\s*$",
    _I,
)
_RANGE_START = re.compile(r"\d\s*(?:-|–|—|to)\s*\$?\s?$", _I)  # "12-15%": 15 is a bound
_RANGE_JOIN = re.compile(r"^\s*(?:to|-|–|—|and)\s*\$?\s?\d", _I)
_QUARTER = {"first": 1, "second": 2, "third": 3, "fourth": 4}
_QUARTER_PERIOD = re.compile(
    r"\b(?P<q>first|second|third|fourth)\s+(?:fiscal\s+)?quarter\s+(?:of\s+)?(?:fiscal\s+)?(?:year\s+)?(?P<y>(?:19|20)\d{2})\b",
    _I,
)
_YEAR_PERIOD = re.compile(r"\b(?:fiscal\s+(?:year\s+)?)?(?P<y>(?:19|20)\d{2})\b", _I)


@dataclass(frozen=True)
class _Sentence:
    start: int
    end: int
    text: str
    mentions: tuple[Mention, ...]  # offsets relative to the sentence


# A period after these words is the comparison base, not the period the statement is about.
_COMPARISON = re.compile(r"\b(?:compared\s+(?:with|to)|versus|vs\.?|from|over|than)\s+(?:the\s+)?$", _I)


def _period(sentence: str) -> str | None:
    def stated(matches: Iterable[re.Match[str]]) -> re.Match[str] | None:
        return next(
            (m for m in matches if not _COMPARISON.search(sentence[max(0, m.start() - 24) : m.start()])),
            None,
        )

    q = stated(_QUARTER_PERIOD.finditer(sentence))
    if q:
        return f"Q{_QUARTER[q.group('q').lower()]}-FY{q.group('y')}"
    if any(True for _ in _QUARTER_PERIOD.finditer(sentence)):
        return None  # only a comparison quarter: the year alone would mislabel it
    y = stated(_YEAR_PERIOD.finditer(sentence))
    return f"FY{y.group('y')}" if y else None


def _percent(text: str) -> float:
    return float(Decimal(text.replace("%", "").strip()))


def _amount(m: re.Match[str]) -> tuple[float, str] | None:
    if not (m.group("money") or m.group("pct")):
        return None
    number = Decimal(m.group("num").replace(",", ""))
    if m.group("mult"):
        number *= 10 ** SCALE_WORDS[m.group("mult").lower()]
    return float(number), "%" if m.group("pct") else "USD"


class RulesBackend:
    """Deterministic extraction with a gazetteer and cue patterns; no model server."""

    name = "rules"
    model = RULES_VERSION
    cacheable = False  # recomputing is cheaper than reading a cache entry back

    def __init__(self, gazetteer: Gazetteer):
        self.gazetteer = gazetteer
        # The version changes with the rules' code and with the gazetteer they read.
        sources = [
            sha256_bytes(Path(module).read_bytes())
            for module in (__file__, Path(__file__).parent.parent / "gazetteer.py")
        ]
        self.prompt_version = f"{RULES_VERSION}@{content_hash(*sources, len(gazetteer), length=12)}"

    @classmethod
    def from_rows(
        cls, tickers: Iterable[Mapping], resolved: Iterable[tuple[str, str]] = ()
    ) -> RulesBackend:
        return cls(Gazetteer.from_rows(tickers, resolved))

    def context_key(self, chunk: ChunkInput) -> str:
        return chunk.company

    async def extract(self, chunks: Sequence[ChunkInput]) -> list[RawResult]:
        return [self.extract_one(c) for c in chunks]

    def extract_one(self, chunk: ChunkInput) -> RawResult:
        started = time.perf_counter()
        raw = Extraction(triples=self.triples(chunk)).model_dump_json()
        # No request is made (attempts 0); the latency is the rules' own time on the chunk.
        return RawResult(raw_output=raw, attempts=0, latency_ms=(time.perf_counter() - started) * 1000)

    # -----------------------------------------------------------------------------------------

    def triples(self, chunk: ChunkInput) -> list[Triple]:
        text = chunk.text
        mentions = self.gazetteer.find(text)
        filer = chunk.company
        filer_key = name_key(filer)
        filer_cik = f"CIK-{chunk.cik}" if chunk.cik else None
        others = [
            m for m in mentions
            if not (m.entity_key and m.entity_key == filer_cik) and name_key(m.name) != filer_key
        ]
        sentences = [
            _Sentence(
                s,
                e,
                text[s:e],
                tuple(
                    Mention(m.start - s, m.end - s, m.name, m.entity_key, m.via)
                    for m in others
                    if s <= m.start and m.end <= e
                ),
            )
            for s, e in sentence_spans(text, split_lines=True)
        ]
        we = _filer_subject(filer_key)
        out: list[Triple] = []
        competitor_list_open = False
        for sent in sentences:
            if competitor_list_open and _BULLET.match(sent.text):
                out += [self._triple(filer, Relation.COMPETES_WITH, m.name, sent) for m in sent.mentions]
                continue
            competitor_list_open = bool(_COMPETE_LEAD_IN.search(sent.text))
            out += self._supplies(filer, sent, we)
            out += self._customers(filer, sent)
            out += self._competitors(filer, sent)
            out += self._subsidiaries(filer, sent)
            out += self._risks(filer, sent)
            out += self._guidance(filer, sent)
        return _unique(out)

    @staticmethod
    def _triple(
        subject: str, relation: Relation, obj: str, sent: _Sentence, *,
        value: float | None = None, unit: str | None = None, period: str | None = None,
    ) -> Triple:
        return Triple(
            subject=subject, relation=relation, object=obj, value=value, unit=unit,
            period=period, evidence=sent.text,
        )

    @staticmethod
    def _cue_starts(sentence: str) -> list[int]:
        """Where any relation cue begins: a scope opened by one cue ends at the next."""
        starts = []
        for pattern in (_SUPPLY_VERB, _PROCURE_VERB, _SUPPLIER_LIST, _COMPETE, _OUR_SUBSIDIARY):
            starts += [m.start() for m in pattern.finditer(sentence)]
        return sorted(starts)

    def _scoped(self, sent: _Sentence, cue_end: int) -> list[Mention]:
        stop = next((s for s in self._cue_starts(sent.text) if s >= cue_end), len(sent.text))
        return [m for m in sent.mentions if cue_end <= m.start < stop]

    def _supplies(self, filer: str, sent: _Sentence, we: re.Pattern[str]) -> list[Triple]:
        bound: list[Mention] = []
        for m in _SUPPLY_VERB.finditer(sent.text):
            if _by_filer(we, sent.text, m.start()) and _SUPPLY_ACTION.search(sent.text):
                bound += self._scoped(sent, m.end())
        for m in _PROCURE_VERB.finditer(sent.text):
            if not _by_filer(we, sent.text, m.start()):
                continue
            noun = _SUPPLY_NOUN.search(sent.text, m.end())
            if noun and noun.start() - m.end() <= 60:
                bound += self._scoped(sent, noun.end())
        for m in _SUPPLIER_LIST.finditer(sent.text):
            bound += self._scoped(sent, m.end())
        triples = [self._triple(m.name, Relation.SUPPLIES, filer, sent) for m in bound]
        # "the loss of X" / "if X fails": a dependency stated as a risk.
        for mention in sent.mentions:
            if _DEPENDENCY_LOSS.search(sent.text[max(0, mention.start - 40) : mention.start]):
                triples.append(self._triple(filer, Relation.EXPOSED_TO_RISK, mention.name, sent))
        return triples

    def _customers(self, filer: str, sent: _Sentence) -> list[Triple]:
        triples: list[Triple] = []
        period = _period(sent.text)
        for m in _DESIGNATED_CUSTOMERS.finditer(sent.text):
            names = re.findall(r"[A-Z]", m.group("names"))
            pcts = re.findall(_PCT, m.group("pcts"))
            if len(names) == len(pcts):
                triples += [
                    self._triple(f"Customer {n}", Relation.CUSTOMER_OF, filer, sent,
                                 value=_percent(p), unit="%", period=period)
                    for n, p in zip(names, pcts, strict=True)
                ]
        if not triples:
            for m in _ONE_DESIGNATED.finditer(sent.text):
                triples.append(self._triple(m.group("who"), Relation.CUSTOMER_OF, filer, sent,
                                            value=_percent(m.group("pct")), unit="%", period=period))
        for mention in sent.mentions:
            share = _SHARE_AFTER_MENTION.match(sent.text[mention.end :])
            if share:
                triples.append(self._triple(mention.name, Relation.CUSTOMER_OF, filer, sent,
                                            value=_percent(share.group("pct")), unit="%", period=period))
        return triples

    def _competitors(self, filer: str, sent: _Sentence) -> list[Triple]:
        bound: list[Mention] = []
        for m in _COMPETE.finditer(sent.text):
            bound += self._scoped(sent, m.end())
        return [self._triple(filer, Relation.COMPETES_WITH, m.name, sent) for m in bound]

    def _subsidiaries(self, filer: str, sent: _Sentence) -> list[Triple]:
        triples: list[Triple] = []
        for m in _OUR_SUBSIDIARY.finditer(sent.text):
            triples += [
                self._triple(s.name, Relation.SUBSIDIARY_OF, filer, sent)
                for s in _named_right_after(sent, m.end())
            ]
        for sub in sent.mentions:
            link = _SUBSIDIARY_OF.match(sent.text[sub.end :])
            if not link:
                continue
            rest = sub.end + link.end()
            if _PARENT_IS_FILER.match(sent.text[rest:]):
                triples.append(self._triple(sub.name, Relation.SUBSIDIARY_OF, filer, sent))
                continue
            parent = next((p for p in sent.mentions if p.start == rest), None)
            if parent is not None:
                triples.append(self._triple(sub.name, Relation.SUBSIDIARY_OF, parent.name, sent))
        return triples

    def _risks(self, filer: str, sent: _Sentence) -> list[Triple]:
        if not _ADVERSE.search(sent.text):
            return []
        return [
            self._triple(filer, Relation.EXPOSED_TO_RISK, label, sent)
            for label, pattern in RISK_TOPICS
            if pattern.search(sent.text)
        ]

    def _guidance(self, filer: str, sent: _Sentence) -> list[Triple]:
        if not _FORWARD.search(sent.text):
            return []
        triples: list[Triple] = []
        for label, pattern in GUIDED_METRICS:
            metric = pattern.search(sent.text)
            if metric is None:
                continue
            # The figure must follow the metric closely ("capital expenditures to be
            # approximately $2.2 billion"); one before it belongs to something else.
            found = None
            for amount in _AMOUNT.finditer(sent.text, metric.end(), min(len(sent.text), metric.end() + 80)):
                parsed = _amount(amount)
                if parsed is not None:
                    if _GUIDANCE_LINK.search(sent.text[metric.end() : amount.start()]):
                        found = (amount, parsed)
                    break
            if found is None:
                continue
            amount, (value, unit) = found
            is_range = (
                _RANGE_JOIN.match(sent.text[amount.end() :]) is not None
                or _RANGE_START.search(sent.text[: amount.start()]) is not None
            )
            triples.append(
                self._triple(filer, Relation.GUIDES, label, sent,
                             value=None if is_range else value, unit=unit, period=_period(sent.text))
            )
        return triples


_LIST_OPENING = re.compile(r"^[\s,:(]*(?:(?:primarily|including|namely|such\s+as)\s+)?$", _I)
_LIST_JOINER = re.compile(r"^\s*(?:,|,?\s*and|,?\s*&)\s*$", _I)


def _named_right_after(sent: _Sentence, offset: int) -> list[Mention]:
    """The names listed right after `offset` ("our subsidiaries (primarily X and Y)"), not any
    name further on in the sentence ("our subsidiaries are regulated by the FDIC")."""
    names: list[Mention] = []
    position = offset
    for m in sent.mentions:
        if m.start < position:
            continue
        gap = sent.text[position : m.start]
        if not (_LIST_JOINER if names else _LIST_OPENING).match(gap):
            break
        names.append(m)
        position = m.end
    return names


def _filer_subject(filer_key: tuple[str, ...]) -> re.Pattern[str]:
    """'we', 'the Company' or the filer's own name, followed by at most two adverbs/auxiliaries,
    ending where the verb starts ("We primarily rely", "NVIDIA has utilized")."""
    names = [r"we", r"the\s+company"]
    if filer_key:
        names.append(r"\s+".join(re.escape(t) for t in filer_key))
    return re.compile(rf"\b(?:{'|'.join(names)})\b[\w.,’']*\s+(?:[a-z]+\s+){{0,2}}$", _I)


def _by_filer(we: re.Pattern[str], sentence: str, verb_start: int) -> bool:
    """Is the verb at `verb_start` the filer's own ("we rely on", not "our competitors rely on")?"""
    return we.search(sentence[max(0, verb_start - 80) : verb_start]) is not None


def _unique(triples: list[Triple]) -> list[Triple]:
    seen: set[tuple] = set()
    out = []
    for t in triples:
        key = (t.subject, t.relation, t.object, t.period, t.value, t.evidence)
        if key not in seen:
            seen.add(key)
            out.append(t)
    return out
