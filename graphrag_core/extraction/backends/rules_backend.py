"""The embedded extractor: deterministic cue patterns over sentences, no model server.

It is what it says: rules. It finds company mentions with the gazetteer (SEC registrants, a
curated list of major companies that file nothing with the SEC, legal forms, aliases a passage
defines) and, inside the scope of a relation cue, capitalized names in an enumeration ("such as
Visa, American Express, JCB, China UnionPay and Discover"). It binds them to relations only
where a cue phrase says how:

- SUPPLIES      "we utilize foundries, such as X", "we purchase memory from X", "X is manufactured
                by X", "we license P from X", "X licenses P to Y", "our suppliers include X"
- CUSTOMER_OF   "X accounted for 12% of net sales", "X and Y accounted for 18.0% and 14.1%",
                "Sales to X represent 16% of our total sales", "three wholesale distributors (X, Y
                and Z) accounted for…", "our customers include … such as X", "Customers A, B and C"
- COMPETES_WITH "we compete with X", "our competitors include X", "X is a primary competitor",
                "competing brands include …, marketed by X", "competitive products, such as X",
                and the items of a list introduced by "Our competitors include:"
- SUBSIDIARY_OF "our wholly-owned subsidiaries X and Y", "our X subsidiary", "X, a wholly owned
                subsidiary of Y", "X was the Company's principal subsidiary", "Y's wholly owned
                subsidiary, X", and the rows of an Exhibit 21 table
- GUIDES        "we expect 2025 capital expenditures to be approximately $2.2 billion", "net sales
                are expected to be between $151.0 billion and $155.5 billion" (a range keeps its
                low and high), the period from the sentence, else from the heading above it
                ("First Quarter 2025 Guidance"), else the year after a comparison base
- EXPOSED_TO_RISK  every risk-factor heading of Item 1A, as the company wrote it

It never emits REPORTS_METRIC (metrics come from XBRL), and it states only facts: a relation in
a conditional or negated clause is left out (the gates would relabel or drop it anyway). Its
evidence is always a whole sentence, list item, table row or heading of the chunk; its output is
the same JSON an LLM returns and goes through the same gates.
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
from graphrag_core.common.periods import next_period, period_label
from graphrag_core.extraction.backends.base import ChunkInput, RawResult
from graphrag_core.extraction.clauses import FORWARD_FIGURE, mood
from graphrag_core.extraction.gazetteer import (
    Gazetteer,
    ListItem,
    Mention,
    enumerated_names,
    enumerations,
    is_kind,
    is_known_name,
    is_strong_kind,
    slot_name,
)
from graphrag_core.extraction.grounding import GENERIC_FIRST_WORDS, Filer, defined_aliases
from graphrag_core.extraction.headings import is_risk_section, risk_headings
from graphrag_core.extraction.ownership import (
    acquisitions,
    exhibit21_name,
    exhibit21_names,
    is_the_company_acquired,
)
from graphrag_core.extraction.trade_relations import (
    HOSTING,
    TRADE_WORDS,
    organisation_at,
    organisation_before,
    trade_cues,
    without_full_stop,
)
from graphrag_core.extraction.triples import Extraction, Relation, Triple
from graphrag_core.text.sentences import sentence_spans

RULES_VERSION = "rules-v2"

_I = re.I

# -- cues that open a scope: names after the cue (until the next cue) are bound ---------------

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
    r"obtain(?:s|ed)?|procure[sd]?|outsource[sd]?|contract(?:s|ed)?(?=\s+with)|licen[sc]e[sd]?)\b",
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
_MADE_BY = re.compile(
    r"\b(?:is|are|was|were)\s+(?:currently\s+|exclusively\s+|primarily\s+)?"
    r"(?:manufactured|produced|supplied|made|fabricated|assembled|packaged)\s+(?:for\s+us\s+)?by\b",
    _I,
)
# "X, …, were our suppliers of NIKE Air-Sole…": the sentence's subject supplies the filer.
_ARE_OUR_SUPPLIERS = re.compile(
    r"\b(?:is|are|was|were|has\s+been|have\s+been)\s+(?:one\s+of\s+)?(?:our|the\s+company['’]s)\s+"
    r"(?:(?:principal|primary|main|major|largest|sole|exclusive|key|only)\s+)*"
    r"(?:suppliers?|vendors?|sources?|contract\s+manufacturers?)\b",
    _I,
)
# "X … has performed import-export financing services for us".
_SERVES_US = re.compile(
    r"\b(?:provides?|provided|performs?|performed|has\s+(?:provided|performed)|have\s+(?:provided|performed))\s+"
    r"(?:[\w\-]+\s+){0,5}?services\s+(?:for|to)\s+(?:us|the\s+company)\b",
    _I,
)
# An opening phrase before a sentence's subject: "During fiscal 2025, ", "Since 1972, ".
_INTRO = re.compile(r"^\W*(?:(?:during|in|for|since|as\s+of|at|on|through)\s+[^,]{1,40},\s+)?", _I)
# "Daewoong licenses the same toxin to Evolus": a supply between two named parties.
_LICENSES_TO = re.compile(
    r"^\s+(?:licenses|supplies|sells|provides)\s+(?:[\w\-]+\s+){1,8}?to\s+$", _I
)

_COMPETE = re.compile(
    r"\b(?:compet(?:e|es|ed|ing)\s+(?!for\b)(?:[\w’'\-]+\s+){0,6}?(?:with|against)"
    r"|competition\s+(?:\w+\s+){0,3}?from"
    r"|competitors?\s+(?:\w+\s+){0,3}?(?:include|includes|including|are|is|such\s+as)"
    r"|competing\s+(?:brands|products|companies)\s+(?:include|includes|including|are)"
    r"|competitive\s+(?:products|services|offerings)(?:\s+and\s+services)?,?\s+such\s+as)\b",
    _I,
)
_COMPETITOR_AFTER = re.compile(
    r"^,?\s+(?:is|are|remains?)\s+(?:a|an|the|our|one\s+of\s+our)\s+"
    r"(?:(?:primary|principal|main|major|key|significant|chief|largest|leading|direct)\s+)+competitors?\b",
    _I,
)
# "each of Apple and Google have integrated competitive products": the named parties compete.
_HAVE_COMPETITIVE = re.compile(
    r"^(?:\s*(?:,|and)\s*[A-Z][\w&.\-]*)*\s+(?:have|has|had)\s+(?:\w+\s+){0,2}competi(?:tive|ng)\s+"
    r"(?:products|services|offerings|platforms)\b",
    _I,
)
# Lead-ins of a list that follows in bullets or "Label: …" paragraphs.
_COMPETE_LEAD_IN = re.compile(r"\bcompetitors?\b[^:]*\binclude\w*\s*:\s*$", _I)
_SUPPLIER_LEAD_IN = re.compile(
    r"\b(?:suppliers?|vendors?|manufacturers?)\b[^:]*\binclude\w*\s*:\s*$", _I
)
_CUSTOMER_LEAD_IN = re.compile(
    r"\b(?:our|its)\s+(?:\w+\s+){0,3}?customers\b[^:]*\binclude\w*\s*:\s*$", _I
)
_SUBSIDIARY_LEAD_IN = re.compile(
    r"\b(?:our|its|the\s+company['’]s)\b[^:]*\bsubsidiar(?:y|ies)\b[^:]*(?:as\s+follows|include\w*|are)\s*:\s*$",
    _I,
)
# "MGA Agency, Inc. (“MGA Agency”): MGA Agency provides …": a paragraph that opens with a label.
_LABEL = re.compile(r"^\s*(?P<label>[A-Z][^:\n;]{0,80}?(?:\s*\([^()\n]{1,40}\))?)\s*:\s+\S")
# "Examples include …", "These include …": the names of the list the text is about.
_EXAMPLES = re.compile(
    r"^\W*(?:examples(?:\s+of\s+(?:these|such|them)(?:\s+\w+)?)?\s+(?:include|includes|are)"
    r"|(?:these|they)\s+include|such\s+(?:competitors|companies|suppliers|customers)\s+include)\b\s*:?",
    _I,
)
_BULLET = re.compile(r"^\s*[•●○◦▪■·∙‣⁃\-–—*]")
# Sentences worth the relation patterns: ones that name a company, or hold a cue under which an
# enumeration may name one; ones with a money or percent figure, for guidance.
_LIST_CUE = re.compile(
    r"\b(?:such\s+as|include[sd]?|including|compet\w*|suppl\w*|subsidiar\w*|customers?|"
    r"distributors?|wholesalers?|manufactur\w*|licen[sc]\w*|marketed\s+by|services\s+(?:for|to)\s+us)\b",
    _I,
)
_FIGURE = re.compile(r"\$\s?\d|\d\s?%")
_ACQUI = re.compile(r"\bacqui(?:red|sition)\b", _I)

# -- subsidiaries -------------------------------------------------------------------------------

_OUR_SUBSIDIARY = re.compile(
    r"\b(?:our|the\s+company['’]s)\s+(?:(?:wholly|majority)[- ]owned\s+|indirect\s+|direct\s+|principal\s+|operating\s+)*"
    r"subsidiar(?:y|ies)\b(?:\s+brand(?=\s*,))?(?!\s+(?:brands?|banks?|national|companies|entities|in\b))",
    _I,
)
# "Our principal operating subsidiary is X": one named subsidiary after the copula.
_OUR_SUBSIDIARY_IS = re.compile(
    r"\b(?:our|the\s+company['’]s)\s+(?:principal|main|primary|sole|only|largest)\s+(?:operating\s+)?"
    r"subsidiary\s+(?:is|was)\s+(?=[A-Z])",
    _I,
)
_NAMED_SUBSIDIARY = re.compile(
    r"\bour\s+(?P<name>[A-Z][\w&.\-]*(?:\s+[A-Z][\w&.\-]*){0,3})\s+subsidiary\b"
)
# "our Russian subsidiary", "our U.K. subsidiary": a nationality, not a name.
_DEMONYM = re.compile(
    r"^(?:[A-Z][a-z]+(?:ian|ean|can|ese|ish|ch|ss|i|an)|U\.?S\.?|U\.?K\.?|EU|Dutch|Swiss|Thai|Greek)$"
)
_PARENTS_SUBSIDIARY = re.compile(
    r"^['’]s?\s+(?:(?:wholly|majority)[- ]owned\s+|indirect\s+|direct\s+)*subsidiar(?:y|ies)\b,?",
    _I,
)
_SUBSIDIARY_LINK = re.compile(
    r"(?:\s+(?:is|was|became)\s+|(?P<appositive>,)\s+)(?:a|an|our|its|the)\s+"
    r"(?:(?:indirect|direct|wholly|majority|partially|consolidated|principal|primary|main)[- ]?(?:owned\s+)?)*"
    r"(?:subsidiary|operating\s+(?:company|subsidiary))\b(?P<of>\s+of\s+)?",
    _I,
)
# What may stand between a name and its link: its alias in parentheses, an aside in commas.
_INTERJECTION_TAIL = re.compile(
    r"(?:\s*\([^()]{0,60}\))?(?:,\s+(?:a|an)\s+[^,.;()]{0,60}?\s+(?:which|that)|,[^,.;A-Z]{0,60})?$"
)
_ITS_SUBSIDIARY = re.compile(
    r"^\W*its\s+(?:(?:primary|principal|main|largest|operating|wholly[- ]owned)\s+)*subsidiar(?:y|ies)\b",
    _I,
)
_NAME_TAIL = re.compile(r"(?:[A-Z0-9][\w&.\-’']*)(?:\s+(?:[A-Z0-9][\w&.\-’']*|of|and|&|de))*\s*$")
_NAME_HEAD = re.compile(r"^(?:[A-Z0-9][\w&.\-’']*)(?:,?\s+(?:[A-Z0-9][\w&.\-’']*|of|and|&|de))*")
_PRINCIPAL_SUBSIDIARY = re.compile(
    r"^\s+(?:is|was)\s+(?:the\s+company['’]s|our|its)\s+(?:principal\s+|main\s+|primary\s+|operating\s+|"
    r"(?:wholly|majority)[- ]owned\s+)*subsidiary\b",
    _I,
)
_PARENT_IS_FILER = re.compile(r"^(?:the\s+company|us|ours)\b", _I)
# A sentence whose subject is the filer: "We then utilize…", "The Company purchases…".
_FILER_OPENS = re.compile(
    r"^\W*(?:(?:in\s+addition|additionally|also|further),?\s+)?(?:we|the\s+company)\b", _I
)

# -- customers ----------------------------------------------------------------------------------

_PCT = r"\d+(?:\.\d+)?\s?%"
_SHARE_OF_REVENUE = (
    r"\s*,?\s*(?:respectively,?\s+)?of\s+(?:our\s+|the\s+company['’]s\s+|its\s+|[A-Z][\w'’]*\s+)?"
    r"(?:total\s+|net\s+|consolidated\s+|gross\s+)*(?:revenues?|net\s+sales|sales)\b"
)
_DESIGNATED_CUSTOMERS = re.compile(
    r"\b(?i:sales\s+to|revenue\s+from)\s+(?i:our\s+)?(?i:direct\s+|indirect\s+)?(?i:customers?)\s+"
    r"(?P<names>[A-Z](?:\s*,\s*[A-Z])*(?:,?\s+and\s+[A-Z])?)\s+"
    r"(?i:represented|accounted\s+for|comprised|were)\s+(?i:approximately\s+)?"
    rf"(?P<pcts>{_PCT}(?:\s*,\s*{_PCT})*(?:,?\s+and\s+{_PCT})?)(?i:{_SHARE_OF_REVENUE})",
)
_ONE_DESIGNATED = re.compile(
    r"\b(?P<who>Customer\s+[A-Z])\b(?:\s*,[^,]{0,60},|,)?\s+"
    r"(?i:represented|accounted\s+for|comprised)\s+(?i:approximately\s+)?"
    rf"(?P<pct>{_PCT})(?i:{_SHARE_OF_REVENUE})",
)
_SHARE_AFTER_NAMES = re.compile(
    r"^(?:['’]s\s+\w+)?(?:\s+and\s+its\s+affiliates)?(?:\s*,[^,]{0,60},)?\s+(?:represent(?:s|ed)?|accounted\s+for|comprised)\s+"
    rf"(?:approximately\s+|about\s+)?(?P<pcts>{_PCT}(?:\s*,\s*{_PCT})*(?:,?\s+and\s+{_PCT})?)"
    rf"(?:\s*,?\s*respectively)?{_SHARE_OF_REVENUE}",
    _I,
)
_SALES_TO = re.compile(r"\bsales\s+to\s+$", _I)
_CUSTOMER_LIST = re.compile(
    r"\b(?:customers?|clients?|distributors?|wholesalers?|retailers?)\s+"
    r"(?:(?!(?:agreements?|contracts?|data|bases?|relationships?|support|service|accounts?|"
    r"experiences?|demand|orders?|needs?|segments?|programs?)\b)\w+\s+){0,3}?"
    r"(?:include|includes|including|are|such\s+as)\b",
    _I,
)
_DISTRIBUTORS_WHO = re.compile(
    r"\b(?:wholesale\s+)?(?:distributors|wholesalers|customers)\s*\((?P<names>[^()]{3,200})\)\s+"
    r"(?:accounted\s+for|represented|comprised)\b",
    _I,
)

# -- guidance -----------------------------------------------------------------------------------

_AMOUNT = re.compile(
    r"(?P<money>\$\s?)?(?P<num>\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+(?:\.\d+)?)"
    rf"(?:\s*(?P<mult>{NUMBER_SCALE_WORD_RE})\b)?(?P<pct>\s?%)?",
    _I,
)
_RANGE_JOIN = re.compile(r"\s*(?:to|-|–|—|and)\s*(?=\$?\s?\d)", _I)
_METRIC_BEFORE_EXPECTED = re.compile(
    r"(?P<metric>[A-Za-z][\w’'\-]*(?:\s+(?:[\w’'\-]+|&)){0,9}?)\s+(?:in\s+(?:fiscal\s+)?(?:19|20)\d{2}\s+)?"
    r"(?:is|are|will\s+be)\s+(?:currently\s+|now\s+|also\s+)?(?:expected|anticipated|projected|estimated|forecast(?:ed)?)\s+"
    r"to\s+(?:be|total|range|approximate|exceed|reach|grow|increase|decrease|decline)\b",
    _I,
)
_METRIC_AFTER_EXPECT = re.compile(
    r"\b(?:expects?|anticipates?|projects?|forecasts?|estimates?|targets?)\s+"
    r"(?P<metric>(?:[\w’'\-]+\s+|&\s+){1,10}?)to\s+(?:be|total|range|approximate|exceed|reach|grow|increase|"
    r"decrease|decline|remain)\b",
    _I,
)
_METRIC_AFTER_MAKING = re.compile(
    r"\b(?:expect|anticipate|plan)(?:s|ing)?\s+(?:to\s+)?(?:making|make|spend(?:ing)?|incur(?:ring)?|invest(?:ing)?)\s+"
    r"(?P<metric>(?:[\w’'\-]+\s+){1,6}?)(?:of|at|totaling)\s+(?=(?:approximately\s+|about\s+)?\$)",
    _I,
)
# "We are projecting an increase in our depreciation expense of approximately 3% to 4%".
_METRIC_CHANGE = re.compile(
    r"\b(?:expect|project|anticipate|forecast|estimate)(?:s|ed|ing)?\s+(?:an?\s+|the\s+)?(?:\w+\s+)?"
    r"(?:increase|decrease|decline|growth|reduction|rise)\s+in\s+(?P<metric>(?:[\w’'\-]+\s+){1,6}?)(?:of|by)\s+"
    r"(?=(?:approximately\s+|about\s+|between\s+)?\$?\s?\d)",
    _I,
)
# "The estimated costs of the total program are between $0.9 billion - $1.0 billion".
_METRIC_ESTIMATED = re.compile(
    r"\b(?:estimated|expected|anticipated|projected)\s+(?P<metric>(?:[\w’'\-]+\s+){0,4}?"
    r"(?:costs?|charges?|expenses?|spending|payments?|savings|proceeds)"
    r"(?:\s+of\s+(?:[\w’'\-]+\s+){0,3}?[\w’'\-]+)?)\s+(?:is|are|will\s+be|of|total(?:s|ing)?)\s+"
    r"(?=(?:approximately\s+|about\s+|between\s+|in\s+the\s+range\s+of\s+)?\$?\s?\d)",
    _I,
)
_METRIC_IN_THE_FORM = re.compile(
    r"\bin\s+the\s+form\s+of\s+(?P<metric>(?:[\w’'\-]+\s*){1,4}?)(?=\s+in\s+|[,.;]|$)", _I
)
_METRIC_AFTER_AMOUNT = re.compile(
    r"\s+in\s+(?P<metric>(?:[\w’'\-]+\s+){1,9}?[\w’'\-]+)(?=[,.;]|$)", _I
)
_METRIC_DROP = re.compile(
    r"^(?:the\s+|our\s+)?company['’]s\s+|^(?:the|our|its|their|these|those|such|a|an)\s+"
    r"|\b(?:in|for|during)\s+(?:the\s+)?(?:full[- ]year\s+|fiscal\s+(?:year\s+)?)?(?:19|20)\d{2}\b.*$"
    r"|\b(?:full[- ]year|fiscal)\s+(?:19|20)\d{2}\b\s*|\b(?:19|20)\d{2}\b\s*",
    _I,
)
_NOT_A_METRIC = re.compile(
    r"^(?:it|this|that|these|those|they|we|us|them|which|there|such|amounts?|results?|approximately|about)$"
    r"|^(?:in|at|of|between|approximately|about|around|up|to|by|from)\b",
    _I,
)
_QUARTER = {"first": 1, "second": 2, "third": 3, "fourth": 4, "q1": 1, "q2": 2, "q3": 3, "q4": 4}
_QUARTER_PERIOD = re.compile(
    r"\b(?:(?P<q>first|second|third|fourth)\s+(?:fiscal\s+)?quarter\s+(?:of\s+)?(?:fiscal\s+)?(?:year\s+)?"
    r"|(?P<qq>Q[1-4])\s+(?:fiscal\s+)?(?:FY)?)(?P<y>(?:19|20)\d{2})\b",
    _I,
)
# "the first half of fiscal 2026", "first six months of 2025", "the first nine months of fiscal
# year 2025": part of a year to date, not the year (a share for a half is not the year's share).
_PART_YEAR_PERIOD = re.compile(
    r"\b(?:(?P<half>first|second)\s+half|(?:first\s+)?(?P<months>six|nine)\s+months)\s+"
    r"(?:of\s+)?(?:the\s+)?(?:fiscal\s+)?(?:years?\s+)?(?:FY\s?)?(?P<y>(?:19|20)\d{2})\b",
    _I,
)
_PART_OF = {"first": "H1", "second": "H2", "six": "H1", "nine": "9M"}
_YEAR_PERIOD = re.compile(
    r"\b(?:(?:full[- ])?(?:fiscal\s+)?(?:year\s+)?)(?P<y>(?:19|20)\d{2})\b(?!\s*(?:-|–)\s*\d)", _I
)
# A period after these is the comparison base (or a date), not the period the statement is about.
_COMPARISON = re.compile(
    r"\b(?:compared\s+(?:with|to)|versus|vs\.?|from|over|than|prior|as\s+of|since|through|"
    r"ended|ending|at)\s+(?:\S+\s+){0,4}$",
    _I,
)
_DATE_AROUND = re.compile(
    r"(?:jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)[a-z]*\.?\s+\d{1,2},?\s+$", _I
)


@dataclass(frozen=True)
class _Sentence:
    start: int
    end: int
    text: str
    mentions: tuple[Mention, ...]  # offsets relative to the sentence


def _periods(sentence: str) -> list[tuple[str, bool]]:
    """(label, is a comparison base) of each period the sentence names, in order."""
    out: list[tuple[int, str, bool]] = []
    quarter_spans: list[tuple[int, int]] = []
    for m in _QUARTER_PERIOD.finditer(sentence):
        q = _QUARTER[(m.group("q") or m.group("qq")).lower()]
        base = _COMPARISON.search(sentence[max(0, m.start() - 40) : m.start()]) is not None
        out.append((m.start(), period_label(f"Q{q}", int(m.group("y"))), base))
        quarter_spans.append((m.start(), m.end()))
    for m in _PART_YEAR_PERIOD.finditer(sentence):
        if any(a <= m.start("y") < b for a, b in quarter_spans):
            continue
        part = _PART_OF[(m.group("half") or m.group("months")).lower()]
        base = _COMPARISON.search(sentence[max(0, m.start() - 40) : m.start()]) is not None
        out.append((m.start(), period_label(part, int(m.group("y"))), base))
        quarter_spans.append((m.start(), m.end()))
    for m in _YEAR_PERIOD.finditer(sentence):
        y = m.start("y")
        if any(a <= y < b for a, b in quarter_spans):
            continue
        before = sentence[max(0, y - 40) : y]
        if _DATE_AROUND.search(before):  # "December 31, 2024" is a date, not a period
            continue
        out.append(
            (y, period_label("FY", int(m.group("y"))), _COMPARISON.search(before) is not None)
        )
    return [(label, base) for _, label, base in sorted(out)]


def _period(sentence: str, heading: str | None = None, window_end: int | None = None) -> str | None:
    """The period a statement is about: one it states (up to `window_end`, where its figure's
    clause ends), else its heading's, else the period after the one it compares with ("a
    decrease compared to 2024" → FY2025)."""
    stated = _periods(sentence)
    window = _periods(sentence[:window_end]) if window_end is not None else stated
    own = [label for label, base in window if not base]
    if own:
        return own[0]
    if heading:
        from_heading = [label for label, base in _periods(heading) if not base]
        if from_heading:
            return from_heading[0]
    bases = [label for label, base in stated if base]
    if bases:
        return next_period(bases[0])
    return None


def _percent(text: str) -> float:
    return float(Decimal(text.replace("%", "").strip()))


def _amount(m: re.Match[str], unit_hint: str | None = None) -> tuple[float, str] | None:
    money = bool(m.group("money")) or unit_hint == "USD"
    pct = bool(m.group("pct")) or unit_hint == "%"
    if not (money or pct):
        return None
    number = Decimal(m.group("num").replace(",", ""))
    if m.group("mult"):
        number *= 10 ** SCALE_WORDS[m.group("mult").lower()]
    return float(number), "%" if pct else "USD"


def _clean_metric(raw: str) -> str | None:
    metric = raw.strip(" ,;:")
    for _ in range(3):
        metric = _METRIC_DROP.sub("", metric).strip(" ,;:")
    metric = re.sub(r"\s+", " ", metric)
    words = metric.split()
    if (
        not words
        or len(words) > 9
        or _NOT_A_METRIC.match(metric)
        or not re.search(r"[a-z]", metric)
    ):
        return None
    return metric[0].lower() + metric[1:] if not metric[:2].isupper() else metric


def _filer_subject(filer: Filer) -> re.Pattern[str]:
    """'we', 'the Company' or the filer's own name, followed by at most two adverbs/auxiliaries,
    ending where the verb starts ("We primarily rely", "NVIDIA has utilized")."""
    names = [r"we", r"the\s+company"]
    if filer.key:
        names.append(r"\s+".join(re.escape(t) for t in filer.key))
    return re.compile(rf"\b(?:{'|'.join(names)})\b[\w.,’']*\s+(?:[a-z]+\s+){{0,3}}$", _I)


def _by_filer(we: re.Pattern[str], sentence: str, verb_start: int) -> bool:
    """Is the verb at `verb_start` the filer's own ("we rely on", not "our competitors rely on")?"""
    return we.search(sentence[max(0, verb_start - 80) : verb_start]) is not None


class RulesBackend:
    """Deterministic extraction with a gazetteer and cue patterns; no model server."""

    name = "rules"
    model = RULES_VERSION
    cacheable = False  # recomputing is cheaper than reading a cache entry back

    def __init__(self, gazetteer: Gazetteer):
        self.gazetteer = gazetteer
        # The version changes with the rules' code and with the gazetteer they read.
        here = Path(__file__).parent.parent
        sources = [
            sha256_bytes(Path(module).read_bytes())
            for module in (
                __file__,
                here / "gazetteer.py",
                here / "headings.py",
                here / "lexicon" / "companies.txt",
            )
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
        return RawResult(
            raw_output=raw, attempts=0, latency_ms=(time.perf_counter() - started) * 1000
        )

    # -----------------------------------------------------------------------------------------

    def triples(self, chunk: ChunkInput) -> list[Triple]:
        filer = Filer(chunk.company, chunk.cik, chunk.ticker)
        if chunk.kind == "table":
            return (
                _unique(self._subsidiary_rows(chunk, filer))
                if "Exhibit 21" in chunk.section
                else []
            )
        if "Exhibit 21" in chunk.section:
            # An older filing's subsidiaries list in plain text: one subsidiary a line.
            return _unique(
                [
                    self._triple(name, Relation.SUBSIDIARY_OF, filer.name, evidence=line)
                    for name, line in exhibit21_names(chunk.text)
                ]
            )
        text = chunk.text
        aliases = defined_aliases(text)
        mentions = [m for m in self.gazetteer.find(text) if not self._is_filer(m, filer)]
        sentences = [
            _Sentence(
                s,
                e,
                text[s:e],
                tuple(
                    Mention(m.start - s, m.end - s, m.name, m.entity_key, m.via)
                    for m in mentions
                    if s <= m.start and m.end <= e
                ),
            )
            for s, e in sentence_spans(text, split_lines=True)
        ]
        we = _filer_subject(filer)
        out: list[Triple] = []
        block: Relation | None = None  # the relation a lead-in ("competitors include:") opened
        label_paragraph = False  # the sentence is in a "Label: …" paragraph of that block
        previous: _Sentence | None = None
        for sent in sentences:
            new_paragraph = previous is None or "\n" in text[previous.end : sent.start]
            if new_paragraph:
                label = _LABEL.match(sent.text)
                if block is not None and _BULLET.match(sent.text):
                    label_paragraph = False
                elif block is not None and label:
                    label_paragraph = True
                    if block == Relation.SUBSIDIARY_OF:
                        out += [
                            self._triple(n, block, filer.name, sent)
                            for n in self._label_names(sent, label.end("label"), filer)
                        ]
                else:
                    block, label_paragraph = None, False
            if block is not None and _BULLET.match(sent.text):
                out += self._listed(
                    filer, block, sent, self._names_in(sent, 0, len(sent.text), filer)
                )
                previous = sent
                continue
            example = _EXAMPLES.match(sent.text)
            if example:
                # "Examples include X, Y and Z": the names continue the previous sentence's list
                # (its relation cue), or the list a lead-in opened.
                relation = (
                    block
                    if (block is not None and label_paragraph)
                    else (
                        _cue_relation(previous.text)
                        if previous is not None and not new_paragraph
                        else None
                    )
                )
                if relation is not None and relation != Relation.SUBSIDIARY_OF:
                    out += self._listed(
                        filer,
                        relation,
                        sent,
                        self._names_in(sent, example.end(), len(sent.text), filer),
                    )
            lead_in = _lead_in(sent.text)
            if lead_in is not None:
                block, label_paragraph = lead_in, False
            found: list[Triple] = []
            if TRADE_WORDS.search(sent.text):
                found += self._trade(filer, sent)
            if sent.mentions or _LIST_CUE.search(sent.text):
                found += self._supplies(filer, sent, we)
                found += self._customers(filer, sent)
                found += self._competitors(filer, sent)
                found += self._subsidiaries(filer, sent, aliases, previous)
            if _ACQUI.search(sent.text):
                found += self._acquired(filer, sent)
            if _FIGURE.search(sent.text):
                found += self._guidance(filer, sent, chunk)
            if found and self._factual(sent):
                out += found
            previous = sent
        out += self._risks(filer, chunk)
        return _unique(out)

    # -- helpers ------------------------------------------------------------------------------

    @staticmethod
    def _is_filer(m: Mention, filer: Filer) -> bool:
        return bool(
            (m.entity_key and filer.cik and m.entity_key == f"CIK-{filer.cik}")
            or filer.is_self(m.name)
        )

    @staticmethod
    def _factual(sent: _Sentence) -> bool:
        """Is the sentence's main statement a fact (not denied, not conditional)? Checked on the
        whole sentence: the rules state nothing that a gate would have to relabel or drop."""
        m = mood(sent.text, [(0, len(sent.text))])
        return not m.negated

    @staticmethod
    def _triple(
        subject: str,
        relation: Relation,
        obj: str,
        sent: _Sentence | None = None,
        *,
        evidence: str | None = None,
        value: float | None = None,
        unit: str | None = None,
        period: str | None = None,
        low: float | None = None,
        high: float | None = None,
    ) -> Triple:
        quote = evidence if evidence is not None else (sent.text if sent else "")
        return Triple(
            subject=subject,
            relation=relation,
            object=obj,
            value=value,
            value_low=low,
            value_high=high,
            unit=unit,
            period=period,
            evidence=quote,
        )

    @staticmethod
    def _cue_starts(sentence: str) -> list[int]:
        """Where any relation cue begins: a scope opened by one cue ends at the next."""
        starts = []
        for pattern in (
            _SUPPLY_VERB,
            _PROCURE_VERB,
            _SUPPLIER_LIST,
            _COMPETE,
            _OUR_SUBSIDIARY,
            _CUSTOMER_LIST,
            _MADE_BY,
        ):
            starts += [m.start() for m in pattern.finditer(sentence)]
        return sorted(starts)

    def _scope_end(self, sent: _Sentence, cue_end: int) -> int:
        return next((s for s in self._cue_starts(sent.text) if s >= cue_end), len(sent.text))

    def _names_in(self, sent: _Sentence, start: int, end: int, filer: Filer) -> list[str]:
        """Company names in sent.text[start:end]: gazetteer mentions, and capitalized names that
        stand as items of an enumeration there."""
        text = sent.text
        named = [(m.start, m.end, m.name) for m in sent.mentions if start <= m.start < end]
        taken = [(m.start, m.end) for m in sent.mentions]
        listed = [
            (s, e, name)
            for s, e, name in enumerated_names(text, start, end, taken)
            if not filer.is_self(name) and not self._filers_own(name, filer)
        ]
        for items in enumerations(text, start, end, taken):

            def holds(item: ListItem, spans: list[tuple[int, int, str]]) -> bool:
                return any(s < item.end and item.start < e for s, e, _ in spans)

            known = [holds(i, named) or is_known_name(i.text, self.gazetteer) for i in items]
            kinds = [i.text for i, k in zip(items, known, strict=True) if is_kind(i.text, k)]
            names = sum(1 for i, k in zip(items, known, strict=True) if k or holds(i, listed))
            if kinds and (any(is_strong_kind(k) for k in kinds) or len(kinds) >= names):
                # A list of kinds of things: its capitalized items are products, not companies.
                listed = [x for x in listed if not any(i.start <= x[0] < i.end for i in items)]
                continue
            if names < 2 or 2 * names < len(items):
                continue
            for item, k in zip(items, known, strict=True):
                if (
                    holds(item, named)
                    or holds(item, listed)
                    or _ALIAS_BEFORE.search(text, 0, item.start)
                ):
                    continue
                if (
                    (k or slot_name(item.text, item.start == 0))
                    and not filer.is_self(item.text)
                    and not self._filers_own(item.text, filer)
                ):
                    listed.append((item.start, item.end, item.text))
        found = [(s, name) for s, _, name in named] + [(s, name) for s, _, name in listed]
        return [name for _, name in sorted(found)]

    @staticmethod
    def _filers_own(name: str, filer: Filer) -> bool:
        """'Visa Direct' in Visa's filing: the filer's own product or unit, not a counterparty."""
        key = name_key(name)
        return (
            len(key) > 1
            and bool(filer.key)
            and key[0] == filer.key[0]
            and key[0] not in GENERIC_FIRST_WORDS
        )

    def _bound(self, filer: Filer, sent: _Sentence, cue_end: int) -> list[str]:
        return self._names_in(sent, cue_end, self._scope_end(sent, cue_end), filer)

    def _listed(
        self, filer: Filer, relation: Relation, sent: _Sentence, names: list[str]
    ) -> list[Triple]:
        if not self._factual(sent):
            return []
        if relation == Relation.COMPETES_WITH:
            return [self._triple(filer.name, relation, n, sent) for n in names]
        return [self._triple(n, relation, filer.name, sent) for n in names]

    def _label_names(self, sent: _Sentence, end: int, filer: Filer) -> list[str]:
        """The company a "Label:" names: a mention, or a short capitalized name."""
        inside = [m.name for m in sent.mentions if m.end <= end]
        if inside:
            return inside[:1]
        label = re.sub(r"\s*\([^()]*\)\s*$", "", sent.text[:end]).strip()
        if (
            slot_name(label, False)
            and not filer.is_self(label)
            and not self._filers_own(label, filer)
        ):
            return [label]
        return []

    # -- relations ----------------------------------------------------------------------------

    def _supplies(self, filer: Filer, sent: _Sentence, we: re.Pattern[str]) -> list[Triple]:
        text = sent.text
        bound: list[str] = []
        filer_speaks = _FILER_OPENS.match(text) is not None
        for m in _SUPPLY_VERB.finditer(text):
            # what is relied on: making or supplying things, or hosting ("we rely on X to host")
            if _by_filer(we, text, m.start()) and (
                _SUPPLY_ACTION.search(text) or HOSTING.search(text, m.end())
            ):
                bound += self._bound(filer, sent, m.end())
        for m in _PROCURE_VERB.finditer(text):
            if not (_by_filer(we, text, m.start()) or (filer_speaks and m.start() < 80)):
                continue
            noun = _SUPPLY_NOUN.search(text, m.end())
            if noun and noun.start() - m.end() <= 60:
                bound += self._bound(filer, sent, noun.end())
        for m in _SUPPLIER_LIST.finditer(text):
            ours = re.search(
                r"\b(?:our|the\s+company['’]s)\s+(?:\w+\s+){0,2}$",
                text[max(0, m.start() - 30) : m.start()],
                _I,
            )
            if ours or filer_speaks or _by_filer(we, text, m.start()):
                bound += self._bound(filer, sent, m.end())
        for m in _MADE_BY.finditer(text):
            # "ABP-450 is manufactured by Daewoong": the filer's product, made by a supplier.
            if not any(x.end <= m.start() for x in sent.mentions):
                bound += self._listed_right_after(sent, m.end(), filer)
        for pattern in (_ARE_OUR_SUPPLIERS, _SERVES_US):
            for m in pattern.finditer(text):
                subject = self._sentence_subject(sent, filer)
                if subject is not None and subject[1] < m.start():
                    bound.append(subject[0])
                    # "X, a wholly-owned subsidiary, …, as well as Y, were our suppliers"
                    bound += [
                        x.name for x in sent.mentions if subject[1] < x.start and x.end <= m.start()
                    ]
        triples = [self._triple(n, Relation.SUPPLIES, filer.name, sent) for n in bound]
        # "Daewoong licenses the same toxin to Evolus": a supply between two other parties.
        for a in sent.mentions:
            for b in sent.mentions:
                if b.start > a.end and _LICENSES_TO.match(text[a.end : b.start]):
                    triples.append(self._triple(a.name, Relation.SUPPLIES, b.name, sent))
        return triples

    def _trade(self, filer: Filer, sent: _Sentence) -> list[Triple]:
        """Supply, customer and licence relations of `trade_relations`' cues: the counterparty
        is a gazetteer mention, an enumeration, a name with a legal form or a short capitalized
        name right at the cue."""
        text = sent.text
        ends = sorted(
            {m.end for m in sent.mentions} | {m.end() for m in _CAPITAL_RUN.finditer(text)}
        )
        triples: list[Triple] = []
        for cue in trade_cues(text, ends, [m.start for m in sent.mentions]):
            if cue.side == "after":
                names = self._listed_right_after(sent, cue.at, filer)
                if not names:
                    org = organisation_at(text, cue.at)
                    if org is not None and not filer.is_self(org[0]):
                        names = [org[0]]
            else:
                org_before = organisation_before(text, cue.at)
                name = (
                    org_before[0]
                    if org_before is not None
                    else self._name_before(sent, cue.at, filer)
                )
                names = [name] if name is not None else []
            triples += [
                self._triple(without_full_stop(n), cue.relation, filer.name, sent)
                for n in names
                if not filer.is_self(n) and not self._filers_own(n, filer)
            ]
        return triples

    def _customers(self, filer: Filer, sent: _Sentence) -> list[Triple]:
        text = sent.text
        triples: list[Triple] = []
        period = _period(text)
        for m in _DESIGNATED_CUSTOMERS.finditer(text):
            names = re.findall(r"[A-Z]", m.group("names"))
            pcts = re.findall(_PCT, m.group("pcts"))
            if len(names) == len(pcts):
                triples += [
                    self._triple(
                        f"Customer {n}",
                        Relation.CUSTOMER_OF,
                        filer.name,
                        sent,
                        value=_percent(p),
                        unit="%",
                        period=period,
                    )
                    for n, p in zip(names, pcts, strict=True)
                ]
        if not triples:
            for m in _ONE_DESIGNATED.finditer(text):
                triples.append(
                    self._triple(
                        m.group("who"),
                        Relation.CUSTOMER_OF,
                        filer.name,
                        sent,
                        value=_percent(m.group("pct")),
                        unit="%",
                        period=period,
                    )
                )
        # "X and Y accounted for 18.0% and 14.1%, respectively, of the Company's revenues",
        # "Sales to X and its affiliates represent approximately 16% of our total sales".
        runs = _name_runs(sent)
        for run in runs:
            last = run[-1]
            share = _SHARE_AFTER_NAMES.match(text[last.end :])
            if not share:
                continue
            pcts = re.findall(_PCT, share.group("pcts"))
            if len(pcts) not in (1, len(run)):
                continue
            for k, mention in enumerate(run):
                pct = pcts[k] if len(pcts) == len(run) else pcts[0]
                triples.append(
                    self._triple(
                        mention.name,
                        Relation.CUSTOMER_OF,
                        filer.name,
                        sent,
                        value=_percent(pct),
                        unit="%",
                        period=period,
                    )
                )
        for m in _DISTRIBUTORS_WHO.finditer(text):
            start = m.start("names")
            for n in self._names_in(sent, start, m.end("names"), filer):
                triples.append(self._triple(n, Relation.CUSTOMER_OF, filer.name, sent))
        for m in _CUSTOMER_LIST.finditer(text):
            before = text[max(0, m.start() - 40) : m.start()]
            if re.search(
                r"\b(?:our|the\s+company['’]s|its)\s+(?:\w+\s+){0,3}$", before, _I
            ) or re.search(r"\b(?:our|the\s+company['’]s)\b", text[: m.start()], _I):
                triples += [
                    self._triple(n, Relation.CUSTOMER_OF, filer.name, sent)
                    for n in self._bound(filer, sent, m.end())
                ]
        return triples

    def _competitors(self, filer: Filer, sent: _Sentence) -> list[Triple]:
        text = sent.text
        bound: list[str] = []
        for m in _COMPETE.finditer(text):
            if re.match(r"\bcompet\w*\s+(?:\w+\s+){0,3}?for\b", text[m.start() :], _I):
                continue
            bound += self._bound(filer, sent, m.end())
        # "PepsiCo, Inc. is a primary competitor"; "each of Apple and Google have integrated
        # competitive products".
        for mention in sent.mentions:
            if _COMPETITOR_AFTER.match(text[mention.end :]) or _HAVE_COMPETITIVE.match(
                text[mention.end :]
            ):
                bound.append(mention.name)
        return [self._triple(filer.name, Relation.COMPETES_WITH, n, sent) for n in bound]

    def _subsidiaries(
        self,
        filer: Filer,
        sent: _Sentence,
        aliases: Mapping[str, str],
        previous: _Sentence | None = None,
    ) -> list[Triple]:
        text = sent.text
        triples: list[Triple] = []
        for m in _OUR_SUBSIDIARY.finditer(text):
            triples += [
                self._triple(name, Relation.SUBSIDIARY_OF, filer.name, sent)
                for name in self._listed_right_after(sent, m.end(), filer)
            ]
        for m in _OUR_SUBSIDIARY_IS.finditer(text):
            named = self._name_after(sent, m.end(), filer)
            if named is not None and named != filer.name:
                triples.append(
                    self._triple(
                        _sentence_end_stop(named.rstrip(",;: ")),
                        Relation.SUBSIDIARY_OF,
                        filer.name,
                        sent,
                    )
                )
        for m in _NAMED_SUBSIDIARY.finditer(text):
            name = m.group("name")
            if (
                name_key(name)
                and not re.match(r"^(?:Subsidiary|Company|Bank)$", name)
                and not _DEMONYM.match(name)
            ):
                triples.append(self._triple(name, Relation.SUBSIDIARY_OF, filer.name, sent))
        for parent in sent.mentions:
            own = _PARENTS_SUBSIDIARY.match(text[parent.end :])
            if own:
                parent_name = filer.name if filer.is_self(parent.name) else parent.name
                triples += [
                    self._triple(name, Relation.SUBSIDIARY_OF, parent_name, sent)
                    for name in self._listed_right_after(sent, parent.end + own.end(), filer)
                ]
        for sub in sent.mentions:
            if _PRINCIPAL_SUBSIDIARY.match(text[sub.end :]):
                triples.append(self._triple(sub.name, Relation.SUBSIDIARY_OF, filer.name, sent))
        for link in _SUBSIDIARY_LINK.finditer(text):
            # "X, a wholly owned subsidiary of Y", "X (“Alias”) is the principal operating company
            # of Y": the name right before the link, the parent right after it.
            before = _INTERJECTION_TAIL.sub("", text[: link.start()])
            sub_name = self._name_before(sent, len(before), filer)
            if sub_name is None:
                continue
            if link.group("of") is None:
                # the parent unsaid ("…, a wholly-owned subsidiary, with facilities…"): the filer
                if link.group("appositive"):
                    triples.append(self._triple(sub_name, Relation.SUBSIDIARY_OF, filer.name, sent))
                continue
            named_parent = self._name_after(sent, link.end(), filer)
            if named_parent is not None:
                triples.append(self._triple(sub_name, Relation.SUBSIDIARY_OF, named_parent, sent))
        # "Our main railroad competitor is X. Its primary subsidiary, Y, …": "Its" is the company
        # the previous sentence ended on.
        its = _ITS_SUBSIDIARY.match(text)
        if its and previous is not None:
            its_parent = self._name_before(previous, len(previous.text.rstrip(' \n.)”"')), filer)
            if its_parent is not None:
                triples += [
                    self._triple(name, Relation.SUBSIDIARY_OF, its_parent, sent)
                    for name in self._listed_right_after(sent, its.end(), filer)
                ]
        # The filer's own mentions were removed from `mentions`: "our" subsidiaries of the filer
        # whose parent is written out ("Premier's wholly owned subsidiaries, X and Y").
        for m in re.finditer(
            r"(?P<parent>[A-Z][\w&.\-]*(?:\s+[A-Z][\w&.\-]*){0,4})['’]s?\s+(?=(?:wholly|majority)[- ]owned\s+subsidiar)",
            text,
        ):
            written = aliases.get(m.group("parent"), m.group("parent"))
            if filer.is_self(written):
                own = _PARENTS_SUBSIDIARY.match(text[m.end("parent") :])
                if own:
                    triples += [
                        self._triple(name, Relation.SUBSIDIARY_OF, filer.name, sent)
                        for name in self._listed_right_after(
                            sent, m.end("parent") + own.end(), filer
                        )
                    ]
        return triples

    def _acquired(self, filer: Filer, sent: _Sentence) -> list[Triple]:
        """A company the filer completed the acquisition of is its subsidiary, as of the period
        the sentence dates it in (see `graphrag_core.extraction.ownership`)."""
        triples = []
        for deal in acquisitions(sent.text):
            name = self._name_after(sent, deal.name_start, filer)
            if name is not None and re.search(r"['’]s?$", name):
                continue  # a part of a company ("Pfizer's consumer health business")
            if name is not None:
                name = _sentence_end_stop(name.rstrip(",;: "))
            if (
                name is None
                or name == filer.name
                or filer.is_self(name)
                or self._filers_own(name, filer)
            ):
                continue
            mention = next(
                (m for m in sent.mentions if m.start == deal.name_start and m.name == name), None
            )
            end = mention.end if mention else deal.name_start + len(name)
            if sent.text[deal.name_start : end] != name and mention is None:
                continue  # the run was cut: not a name as written
            if is_the_company_acquired(sent.text, end):
                triples.append(
                    self._triple(name, Relation.SUBSIDIARY_OF, filer.name, sent, period=deal.period)
                )
        return triples

    def _sentence_subject(self, sent: _Sentence, filer: Filer) -> tuple[str, int] | None:
        """(name, end) of the company the sentence opens on, after an opening phrase."""
        at = _INTRO.match(sent.text)
        pos = at.end() if at else 0
        for m in sent.mentions:
            if m.start == pos:
                return m.name, m.end
        run = _NAME_HEAD.match(sent.text[pos:])
        if not run:
            return None
        name = re.sub(r"\s+(?:of|and|&|de)$", "", run.group().strip().rstrip(","))
        if not slot_name(name, pos == 0, 7) or filer.is_self(name) or self._filers_own(name, filer):
            return None
        return name, pos + len(name)

    def _name_before(self, sent: _Sentence, pos: int, filer: Filer) -> str | None:
        """The company named right before `pos`: a mention, else a run of capitalized words."""
        text = sent.text[:pos].rstrip()
        for m in sent.mentions:
            if m.end == len(text):
                return m.name
        run = _NAME_TAIL.search(text)
        if not run:
            return None
        name = re.sub(r"^(?:The|A|An)\s+", "", run.group().strip())
        name = re.sub(r"\s+(?:of|and|&|de)$", "", name)
        at_start = not text[: run.start()].strip()
        if not slot_name(name, at_start, 7) or filer.is_self(name) or self._filers_own(name, filer):
            return None
        return name

    def _name_after(self, sent: _Sentence, pos: int, filer: Filer) -> str | None:
        """The parent named right at `pos`: the filer ("us", "the Company", its name), a mention,
        or a run of capitalized words."""
        rest = sent.text[pos:]
        if _PARENT_IS_FILER.match(rest):
            return filer.name
        for m in sent.mentions:
            if m.start == pos:
                return m.name
        if any(s == pos and filer.is_self(sent.text[s:e]) for s, e in filer.spans(sent.text)):
            return filer.name
        run = _NAME_HEAD.match(rest)
        if run:
            name = re.sub(r"\s+(?:of|and|&|de)$", "", run.group().strip())
            if filer.is_self(name):
                return filer.name
            if slot_name(name, False, 7):
                return name
        return None

    def _listed_right_after(self, sent: _Sentence, offset: int, filer: Filer) -> list[str]:
        """Names listed right after `offset` ("through our subsidiary HD Supply", "our subsidiaries
        (primarily X Limited and Oracle Corporation Japan)"): gazetteer mentions and enumerated
        capitalized names, in the list's order, up to the first gap that is not a list joiner."""
        taken = [(m.start, m.end) for m in sent.mentions]
        items = sorted(
            [(m.start, m.end, m.name) for m in sent.mentions if m.start >= offset]
            + [
                x
                for x in enumerated_names(sent.text, offset, len(sent.text), taken)
                if not filer.is_self(x[2])
            ]
        )
        names: list[str] = []
        position = offset
        for s, e, name in items:
            if s < position:
                continue
            gap = sent.text[position:s]
            if not (_LIST_JOINER if names else _LIST_OPENING).match(gap):
                break
            names.append(name)
            position = e
            year = re.match(r"\s+in\s+(?:19|20)\d{2}", sent.text[position:])
            if year:
                position += year.end()
        return names

    def _subsidiary_rows(self, chunk: ChunkInput, filer: Filer) -> list[Triple]:
        """An Exhibit 21 table: every row names a subsidiary of the filer."""
        triples = []
        for line in chunk.text.split("\n"):
            row = line.strip()
            if not row.startswith("|") or set(row) <= set("|-: "):
                continue
            cells = [c.strip() for c in row.strip("|").split("|")]
            # The name is the first cell that holds one (a layout may leave an indent cell blank).
            first = next((c for c in cells if c), "")
            name = exhibit21_name(first)
            if name is None or _EX21_HEADER.search(name):
                continue
            triples.append(self._triple(name, Relation.SUBSIDIARY_OF, filer.name, evidence=row))
        return triples

    def _guidance(self, filer: Filer, sent: _Sentence, chunk: ChunkInput) -> list[Triple]:
        text = sent.text
        if not FORWARD_FIGURE.search(text):
            return []
        heading = _heading_above(chunk.text, sent.start) or chunk.preceding_heading
        triples: list[Triple] = []
        for metric, at in _metrics(text):
            figure = _figure_after(text, at)
            if figure is None:
                continue
            value, low, high, unit, end = figure
            clause_end = re.search(r"[,;]|$", text[end:])
            window_end = end + (clause_end.start() if clause_end else 0)
            period = _period(text, heading, window_end)
            triples.append(
                self._triple(
                    filer.name,
                    Relation.GUIDES,
                    metric,
                    sent,
                    value=value,
                    low=low,
                    high=high,
                    unit=unit,
                    period=period,
                )
            )
        return triples

    def _risks(self, filer: Filer, chunk: ChunkInput) -> list[Triple]:
        if not is_risk_section(chunk.section):
            return []
        return [
            self._triple(filer.name, Relation.EXPOSED_TO_RISK, heading, evidence=heading)
            for _, _, heading in risk_headings(chunk.text, chunk.headings)
        ]


_EX21_HEADER = re.compile(
    r"^(?:name|jurisdiction|organized|percentage|state\s+or\s+country|subsidiar|company|entity|"
    r"december\s+\d|exhibit)\b|\bname\s*$",
    _I,
)


def _lead_in(sentence: str) -> Relation | None:
    if not sentence.rstrip().endswith(":"):
        return None
    for pattern, relation in (
        (_COMPETE_LEAD_IN, Relation.COMPETES_WITH),
        (_SUPPLIER_LEAD_IN, Relation.SUPPLIES),
        (_CUSTOMER_LEAD_IN, Relation.CUSTOMER_OF),
        (_SUBSIDIARY_LEAD_IN, Relation.SUBSIDIARY_OF),
    ):
        if pattern.search(sentence):
            return relation
    return None


def _cue_relation(sentence: str) -> Relation | None:
    """The relation a sentence's own cue speaks of, if it has exactly one kind."""
    found = {
        relation
        for pattern, relation in (
            (_COMPETE, Relation.COMPETES_WITH),
            (_SUPPLIER_LIST, Relation.SUPPLIES),
            (_CUSTOMER_LIST, Relation.CUSTOMER_OF),
        )
        if pattern.search(sentence)
    }
    return found.pop() if len(found) == 1 else None


def _heading_above(text: str, start: int) -> str | None:
    """The title-like line closest above `start` in the chunk ("First Quarter 2025 Guidance")."""
    for line in reversed(text[:start].split("\n\n")):
        line = line.strip()
        if (
            line
            and len(line) <= 100
            and not line.endswith((".", ";", ":"))
            and not line.startswith(("•", "|"))
        ):
            return line
    return None


# "The Company expects to contribute approximately $30 million in 2025 to our pension trusts",
# "The Corporation plans to invest in the range of $27 billion to $29 billion in 2025": the
# metric is the verb's noun, and what it goes to.
_VERB_METRIC = re.compile(
    r"\b(?:expects?|plans?|anticipates?|intends?|estimates?)\s+to\s+"
    r"(?P<verb>contribute|spend|invest|pay|repurchase|return|incur|deploy)\b(?P<rest>[^.;]{0,120})",
    _I,
)
_VERB_NOUN = {
    "contribute": "contributions",
    "spend": "spending",
    "invest": "investment",
    "pay": "payments",
    "repurchase": "share repurchases",
    "return": "capital returns",
    "incur": "costs",
    "deploy": "investment",
}
_VERB_OBJECT = re.compile(
    r"\b(?:to|in|on|into|for)\s+(?P<obj>(?:our|the|its)\s+(?:[\w’'\-]+\s+){0,3}?[\w’'\-]+)(?=[,.;]|\s+(?:in|during|for|by|over|through)\b|$)",
    _I,
)


def _metrics(text: str) -> list[tuple[str, int]]:
    """(metric, offset where its figure may start) for each guided metric the sentence names."""
    out: list[tuple[str, int]] = []
    for m in _VERB_METRIC.finditer(text):
        rest = m.group("rest")
        form = _METRIC_IN_THE_FORM.search(rest)
        target = _VERB_OBJECT.search(rest)
        noun = _VERB_NOUN[m.group("verb").lower()]
        if form:
            metric = _clean_metric(form.group("metric"))
        elif target:
            linker = {"contributions": "to", "spending": "on", "investment": "in"}.get(noun, "for")
            metric = _clean_metric(f"{noun} {linker} {_METRIC_DROP.sub('', target.group('obj'))}")
        else:
            metric = noun
        if metric:
            out.append((metric, m.end("verb")))
    for pattern in (
        _METRIC_BEFORE_EXPECTED,
        _METRIC_AFTER_EXPECT,
        _METRIC_AFTER_MAKING,
        _METRIC_CHANGE,
        _METRIC_ESTIMATED,
    ):
        for m in pattern.finditer(text):
            raw = m.group("metric")
            # The metric is the last phrase before the cue: after any comma or clause opener.
            raw = re.split(r",\s+|\b(?:and|within|of\s+which|while|but)\s+(?=[a-z])", raw)[-1]
            metric = _clean_metric(raw)
            if metric:
                out.append((metric, m.end()))
    if not out:
        # "we expect approximately $300 million to $325 million in future cash payments…",
        # "we plan to invest approximately $4 billion … in the form of capital expenditures".
        for m in _AMOUNT.finditer(text):
            if not (m.group("money") or m.group("pct")):
                continue
            if _CUE_BEFORE_FIGURE.search(text, max(0, m.start() - 70), m.start()) is None:
                continue
            end = _range_end(text, m)
            form = _METRIC_IN_THE_FORM.search(text, end)
            after = _METRIC_AFTER_AMOUNT.match(text, end)
            raw = form.group("metric") if form else after.group("metric") if after else None
            metric = _clean_metric(raw) if raw else None
            if metric:
                out.append((metric, m.start()))
                break
    seen: set[str] = set()
    unique = []
    for metric, at in out:
        if metric not in seen:
            seen.add(metric)
            unique.append((metric, at))
    return unique


def _range_end(text: str, m: re.Match[str]) -> int:
    join = _RANGE_JOIN.match(text, m.end())
    if join:
        second = _AMOUNT.match(text, join.end())
        if second:
            return second.end()
    return m.end()


_FIGURE_LINK = re.compile(r"^[^.;:$%\d]{0,80}$")
_CUE_BEFORE_FIGURE = re.compile(
    r"\b(?:expects?|anticipates?|plans?\s+to\s+\w+|projects?|estimates?)\b[^.;$%\d]{0,50}$", _I
)


def _figure_after(
    text: str, at: int
) -> tuple[float | None, float | None, float | None, str, int] | None:
    """(value, low, high, unit, end) of the first money or percent figure soon after `at`; a range
    ("$151.0 billion and $155.5 billion", "12-15%", "between 5% and 9%") gives low and high."""
    for m in _AMOUNT.finditer(text, at, min(len(text), at + 120)):
        join = _RANGE_JOIN.match(text, m.end())
        second = _AMOUNT.match(text, join.end()) if join else None
        high = _amount(second) if second is not None else None
        first = _amount(m, high[1] if high else None)
        if first is None:
            continue  # a bare number: a year, a count
        if not _FIGURE_LINK.match(text[at : m.start()]):
            return None
        if high is not None and second is not None:
            low = first[0]
            if not m.group("mult") and second.group("mult"):  # "14.0 and $18.0 billion"
                low = float(
                    Decimal(m.group("num").replace(",", ""))
                    * 10 ** SCALE_WORDS[second.group("mult").lower()]
                )
            return None, low, high[0], high[1], second.end()
        return first[0], None, None, first[1], m.end()
    return None


_CAPITAL_RUN = re.compile(r"[A-Z][\w&.\-’']*(?:\s+[A-Z][\w&.\-’']*)*")


def _name_runs(sent: _Sentence) -> list[list[Mention]]:
    """Mentions joined by ',' / 'and' into runs ("McKesson and Cardinal")."""
    runs: list[list[Mention]] = []
    for m in sent.mentions:
        if runs and re.fullmatch(
            r"\s*(?:,|,?\s*and|,?\s*&)\s*", sent.text[runs[-1][-1].end : m.start]
        ):
            runs[-1].append(m)
        else:
            runs.append([m])
    return runs


# An alias of the previous item ("Advanced Micro Devices, Inc., or AMD", "Hon Hai (Foxconn)").
_ALIAS_BEFORE = re.compile(r"(?:,\s*or\s+(?:the\s+)?|\(\s*(?:the\s+)?)[“\"]?$", _I)
_LIST_OPENING = re.compile(
    r"^[\s,:(]*(?:(?:primarily|including|namely|such\s+as|doing\s+business\s+as|d/b/a)\s+)?$", _I
)
_LIST_JOINER = re.compile(r"^(?:\s+in\s+(?:19|20)\d{2})?\s*(?:,|,?\s*and|,?\s*&)\s*$", _I)


# Abbreviations whose period is part of a name ("Acme, Inc."): any other final period ends the
# sentence ("… acquired Acme GmbH.").
_ABBREVIATED_TAIL = re.compile(
    r"(?:\b(?:Inc|Corp|Co|Ltd|Bhd|Pty|Cie|Cia|Bros|Mfg|Intl|Jr|Sr)|\.[A-Za-z])\.$"
)


def _sentence_end_stop(name: str) -> str:
    return name if not name.endswith(".") or _ABBREVIATED_TAIL.search(name) else name[:-1]


def _unique(triples: list[Triple]) -> list[Triple]:
    seen: set[tuple] = set()
    out = []
    for t in triples:
        key = (
            t.subject,
            t.relation,
            t.object,
            t.period,
            t.value,
            t.value_low,
            t.value_high,
            t.evidence,
        )
        if key not in seen and not _same_party(t):
            seen.add(key)
            out.append(t)
    return out


def _same_party(t: Triple) -> bool:
    """A company is not its own supplier or competitor (a subsidiary shares its parent's core
    name: 'Apple Pty Limited' of 'Apple Inc.' is another company)."""
    if (
        re.sub(r"\W+", " ", t.subject).casefold().strip()
        == re.sub(r"\W+", " ", t.object).casefold().strip()
    ):
        return True
    return t.relation != Relation.SUBSIDIARY_OF and name_key(t.subject) == name_key(t.object)
