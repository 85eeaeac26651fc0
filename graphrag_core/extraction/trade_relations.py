"""Trade relations stated in words the fixed cues of the rules backend do not cover.

The rules backend binds names to SUPPLIES / CUSTOMER_OF / COMPETES_WITH where a cue phrase says
how. Filings state the same facts in a few more generic shapes, which this module reads:

- SUPPLIES     "a manufacturing and supply agreement with X", "an exclusive license from X",
               "X manufactures … for us", "we rely on X to host …" (hosting and cloud providers),
               "X, our licensor" / "our licensors, X"
- CUSTOMER_OF  "our largest customer, X" / "X, our largest customer", "our bottlers (such as) X",
               "X, one of our distributors", "X pays us royalties", "royalties from X"
- COMPETES_WITH "we expect continued competition from X, Y": the competitors are a fact; the
               forward-looking gate reads such a phrase as a statement (`stated_competition`)

Each cue is a `TradeCue`: the relation, where the counterparty's name is (right after the cue or
right before it) and the offset to read it from. Binding names stays with the backend (its
gazetteer mentions, enumerations and `organisation_at` below), and so does the check that the
sentence is the filer's own statement; the gates judge every triple as they judge any other.
Patterns are of language only, never of a company.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Literal

from graphrag_core.common.names import is_legal_form
from graphrag_core.extraction.triples import Relation

_I = re.I

# The filer speaking: a cue counts only in a sentence where the filer is a party.
FILER_WORDS = re.compile(r"\b(?:we|us|our|the\s+company(?:['’]s)?)\b", _I)

_AGREEMENT_KIND = (
    r"(?:manufacturing|supply|contract\s+manufacturing|sourcing|hosting|cloud(?:\s+services)?|"
    r"fill[- ]finish|toll\s+manufacturing)"
)
# "a manufacturing and supply agreement with X", "our supply agreements with X and Y".
_AGREEMENT_WITH = re.compile(
    rf"\b{_AGREEMENT_KIND}(?:\s*(?:,|and|&)\s*{_AGREEMENT_KIND})*\s+(?:services\s+)?"
    r"(?:agreements?|contracts?|arrangements?)\s+with\s+",
    _I,
)
# "an exclusive license from X", "licensed from X", "in-licensed from X".
_LICENSE_FROM = re.compile(
    r"\b(?:(?:exclusive|non-?exclusive|worldwide|royalty-bearing)\s+)*(?:in-)?licen[sc](?:e|es|ed)\s+"
    r"(?:(?:rights?|[\w\-]+)\s+){0,3}?from\s+",
    _I,
)
# "X manufactures Product for us", "X supplies the active ingredient to the Company".
_FOR_US = re.compile(
    r"\s*(?:\([^()]{1,40}\)\s*)?(?:,[^,]{1,60},\s*)?(?:currently\s+|exclusively\s+|also\s+)?"
    r"(?:manufactures|produces|supplies|assembles|fabricates|packages|provides|hosts|operates)\s+"
    r"(?:[\w’'\-®]+\s+){0,10}?(?:for|to)\s+(?:us|the\s+company)\b",
    _I,
)
# What a hosting provider does: "to host", "cloud", "data centers" ("we rely on X to host …").
HOSTING = re.compile(r"\b(?:host(?:s|ed|ing)?|cloud|data\s+cent(?:er|re)s?|co-?location)\b", _I)
# "X, our licensor,", "X, one of our contract manufacturers.": an apposition, closed by a comma,
# a stop or a parenthesis ("in Acrobat, our customers can …" is no apposition).
_OUR_ROLE = (
    r"(?:(?:one\s+of\s+)?our|the\s+company['’]s)\s+(?:(?:largest|biggest|principal|primary|main|major|key|"
    r"sole|exclusive|only|single\s+largest|most\s+significant|independent|authorized|third-party)\s+)*"
)
_SUPPLIER_ROLE = (
    r"(?:licensors?|contract\s+manufacturers?|hosting\s+providers?"
    r"|cloud\s+(?:service\s+)?providers?)"
)
_CUSTOMER_ROLE = (
    r"(?:customers?|bottlers?|bottling\s+partners?|distributors?"
    r"|wholesalers?|licensees?|resellers?|lessees?)"
)
# Those who buy (or rent, or license) from the filer, named by their trade.
_BUYER_TRADE = (
    r"(?:bottlers?|bottling\s+partners?|distributors?|wholesalers?|resellers?|licensees?|lessees?)"
)
_APPOSITION_END = r"(?=\s*(?:[,;.)]|$))"
_ROLE_AFTER = {
    Relation.SUPPLIES: re.compile(
        rf"\s*(?:\([^()]{{1,40}}\)\s*)?,\s+{_OUR_ROLE}{_SUPPLIER_ROLE}{_APPOSITION_END}", _I
    ),
    Relation.CUSTOMER_OF: re.compile(
        rf"\s*(?:\([^()]{{1,40}}\)\s*)?,\s+{_OUR_ROLE}{_CUSTOMER_ROLE}{_APPOSITION_END}", _I
    ),
}
# "our largest customer, X", "our licensors, X and Y", "our bottlers, including X". A plain "our
# customers are …" is left to the backend's customer list ("our customers is Hispanic" is no name):
# customers need a rank ("largest", "principal"), bottlers and licensees are named as such.
_LIST_LINK = (
    r"\s*(?:,\s*|\(\s*|\s+(?:is|are|was|were|include|includes|including|such\s+as)\s+)"
    r"(?:(?:including|such\s+as|namely)\s+)?"
)
_ROLE_BEFORE = {
    Relation.SUPPLIES: re.compile(rf"\b{_OUR_ROLE}{_SUPPLIER_ROLE}{_LIST_LINK}", _I),
    Relation.CUSTOMER_OF: re.compile(
        r"\b(?:our|the\s+company['’]s)\s+(?:"
        r"(?:(?:single\s+)?(?:largest|biggest|principal|primary|main|major|key|most\s+significant)\s+)+"
        rf"(?:customers?|{_BUYER_TRADE})"
        r"|(?:(?:independent|authorized|franchised)\s+)*(?:bottlers?|bottling\s+partners?|licensees?|"
        r"lessees?))"
        rf"{_LIST_LINK}",
        _I,
    ),
}
# "we sell our concentrates to independent bottlers, including X": the trade the filer sells to,
# then its named members.
_SOLD_TO_TRADE = re.compile(
    r"\b(?:sell|sells|sold|license[sd]?|lease[sd]?|ship(?:s|ped)?|distribute[sd]?|suppl(?:y|ies|ied)|"
    r"provide[sd]?)\s+"
    r"(?:[\w’'\-]+\s+){0,6}?(?:to|through)\s+(?:(?:our|the|certain|various|other)\s+)?"
    r"(?:(?:independent|authorized|franchised|third-party|large|national|regional|major|key)\s+)*"
    rf"{_BUYER_TRADE},?\s+(?:including|such\s+as|like|namely)\s+",
    _I,
)
# "Resellers, including X, purchase our products": the trade opens the sentence, the filer's
# products are what it buys.
_TRADE_OPENS = re.compile(
    rf"^(?:(?:independent|authorized|franchised|third-party)\s+)*{_BUYER_TRADE},?\s+"
    r"(?:including|such\s+as|like|namely)\s+",
    _I,
)
_BUYS_OURS = re.compile(
    r"\b(?:purchase|purchases|buy|buys|resell|resells|distribute|distributes|bottle|bottles|"
    r"license|licenses|lease|leases|rent|rents)\s+(?:\w+\s+)?(?:our|the\s+company['’]s)\b",
    _I,
)
# "The aircraft are leased to X", "we lease the vessels to X and Y" (not "leased to us").
_LEASED_TO = re.compile(
    r"\b(?:(?:is|are|was|were|has\s+been|have\s+been|remains?)\s+(?:currently\s+)?"
    r"(?:(?:re|sub)-?)?leased|(?:we|the\s+company)\s+(?:currently\s+)?(?:(?:re|sub)-?)?lease[sd]?"
    r"\s+(?:[\w’'\-]+\s+){0,6}?)\s*to\s+(?!us\b|the\s+company\b)",
    _I,
)
# "we rely on Amazon Web Services to host our service": one provider, named as it trades (no
# legal form, no list), right before what it does for the filer.
_RELY_TO_HOST = re.compile(
    r"\b(?:we|the\s+company)\s+(?:\w+\s+)?rel(?:y|ies|ied)\s+(?:\w+\s+){0,2}?(?:on|upon)\s+"
    r"(?=(?:the\s+)?(?-i:[A-Z])[^.;,]{0,60}?\s+(?:to|for)\s+(?:host|cloud|data\s+cent))",
    _I,
)
_COMPETE_WORD = re.compile(r"\bcompet\w*", _I)
# "X pays us royalties", "X paid the Company license fees".
_PAYS_US = re.compile(
    r"\s*(?:\([^()]{1,40}\)\s*)?(?:pays|pay|paid|has\s+paid|have\s+paid|remits?|remitted)\s+"
    r"(?:us|the\s+company)\b",
    _I,
)
# "royalties from X", "licensing revenue from X", "revenue share payments from X".
_PAID_BY = re.compile(
    r"\b(?:royalt(?:y|ies)|licen[sc]ing\s+(?:fees|revenues?|income)|license\s+(?:fees|revenues?)|"
    r"revenue[- ]shar(?:e|ing)\s+payments?)\s+(?:\w+\s+){0,3}?(?:from|paid\s+by)\s+",
    _I,
)
# "We expect continued competition from X, Y", "we anticipate competing with X": the names are
# the filer's competitors today; what is expected is the competition going on.
_EXPECTED_COMPETITION = re.compile(
    r"\b(?:we|the\s+company)\s+(?:also\s+|currently\s+)?(?:expects?|anticipates?)\s+"
    r"(?:(?:to\s+(?:continue\s+to\s+)?(?:face|encounter|compete|meet)\s+)|(?:continued|continuing|ongoing|"
    r"increased|increasing|intense|significant|substantial|strong|vigorous|further|more|additional)\s+)*"
    r"(?:(?:competition|competitive\s+pressure)\s+(?:\w+\s+){0,3}?(?:from|with)|competing\s+with|(?<=compete\s)with)\b",
    _I,
)

Side = Literal["after", "before"]


@dataclass(frozen=True)
class TradeCue:
    """A cue for a relation: its counterparty is named right `side` of `at` in the sentence."""

    relation: Relation
    side: Side
    at: int
    bare_name: bool = False  # a name with neither legal form nor list around it may be read


def trade_cues(sentence: str, name_ends: list[int], name_starts: list[int]) -> list[TradeCue]:
    """The cues of `sentence`. `name_ends` / `name_starts` are where candidate names end / start
    (gazetteer mentions and names with a legal form): the cues that read the name before them
    ("X manufactures … for us", "X, our licensor") are tried at each name's end."""
    out: list[TradeCue] = []
    filer_party = FILER_WORDS.search(sentence) is not None
    if filer_party:
        for pattern in (_AGREEMENT_WITH, _LICENSE_FROM):
            out += [
                TradeCue(Relation.SUPPLIES, "after", m.end()) for m in pattern.finditer(sentence)
            ]
        out += [
            TradeCue(Relation.CUSTOMER_OF, "after", m.end()) for m in _PAID_BY.finditer(sentence)
        ]
        for relation, pattern in _ROLE_BEFORE.items():
            out += [TradeCue(relation, "after", m.end()) for m in pattern.finditer(sentence)]
        out += [
            TradeCue(Relation.SUPPLIES, "after", m.end(), bare_name=True)
            for m in _RELY_TO_HOST.finditer(sentence)
        ]
        if not _COMPETE_WORD.search(sentence):  # "we compete with distributors such as X"
            out += [
                TradeCue(Relation.CUSTOMER_OF, "after", m.end())
                for m in _SOLD_TO_TRADE.finditer(sentence)
            ]
            opens = _TRADE_OPENS.match(sentence)
            if opens and _BUYS_OURS.search(sentence, opens.end()):
                out.append(TradeCue(Relation.CUSTOMER_OF, "after", opens.end()))
    out += [TradeCue(Relation.CUSTOMER_OF, "after", m.end()) for m in _LEASED_TO.finditer(sentence)]
    for end in name_ends:
        if _FOR_US.match(sentence, end):
            out.append(TradeCue(Relation.SUPPLIES, "before", end))
        if _PAYS_US.match(sentence, end):
            out.append(TradeCue(Relation.CUSTOMER_OF, "before", end))
        for relation, pattern in _ROLE_AFTER.items():
            if pattern.match(sentence, end):
                out.append(TradeCue(relation, "before", end))
    return out


def stated_competition(clause: str) -> bool:
    """Is the clause's only forward-looking language an expectation of competition from named
    parties ("We expect continued competition from X, Y")? Then the competitors are a fact."""
    return _EXPECTED_COMPETITION.search(clause) is not None


def without_stated_competition(clause: str) -> str:
    """The clause with its "we expect (continued) competition from" phrase taken out, for the
    forward-looking gate to read what else it says ("…, and we will compete with X" stays)."""
    return _EXPECTED_COMPETITION.sub(" competition from ", clause)


# A run of capitalized words (with "of", "and", "&" inside, and a comma before a legal form).
_CAPITALIZED_RUN = re.compile(r"[A-Z][\w&'’\-.]*(?:,?\s+(?:[A-Z][\w&'’\-.]*|of|and|&|de|du|la))*")
# Legal forms written abbreviated: their period is part of the name, not the sentence's end.
_ABBREVIATED = frozenset({"inc", "corp", "co", "ltd"})


def organisation_at(text: str, pos: int) -> tuple[str, int] | None:
    """(name, end) of an organisation named with its legal form right at `pos` (past an opening
    "the"), else None: a name the gazetteer does not hold is an organisation by its legal form.
    The name ends at its first legal form ("Harwick Therapeutics, Inc.")."""
    lead = re.match(r"\s*(?:the\s+)?", text[pos:])
    start = pos + (lead.end() if lead else 0)
    run = _CAPITALIZED_RUN.match(text, start)
    if run is None:
        return None
    words = list(re.finditer(r"[^\s,]+", run.group()))
    for word in words[1:]:
        if is_legal_form(word.group()):
            end = start + word.end()
            if text[end - 1] == "." and word.group().lower().rstrip(".") not in _ABBREVIATED:
                end -= 1
            if words[0].group().lower() in {"our", "the", "a", "an"}:
                return None
            return text[start:end], end
    return None


def without_full_stop(name: str) -> str:
    """A name that ends a sentence without its full stop ("… and Ostry Beverages plc.")."""
    last = name.rsplit(None, 1)[-1]
    if name.endswith(".") and "." not in last[:-1] and last[:-1].lower() not in _ABBREVIATED:
        return name[:-1]
    return name


def organisation_before(text: str, end: int) -> tuple[str, int] | None:
    """(name, start) of an organisation with its legal form that ends at `end`."""
    head = text[:end].rstrip()
    for m in re.finditer(r"(?<![\w&'’\-.])[A-Z]", head):
        found = organisation_at(head, m.start())
        if found is not None and found[1] == len(head):
            return found[0], m.start()
    return None


# Words without which no cue above can match: sentences without them skip the trade patterns.
TRADE_WORDS = re.compile(
    r"\b(?:agreements?|contracts?|arrangements?|licen[sc]\w*|host\w*|bottl\w*|customers?|distributors?|"
    r"wholesalers?|resellers?|royalt\w*|pa(?:ys|id)|remit\w*|manufactures|produces|supplies|provides|"
    r"assembles|fabricates|packages|hosts|operates|licensors?|manufacturers?|providers?|"
    r"lease[sd]?|lessees?)\b",
    _I,
)
