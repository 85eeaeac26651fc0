"""Where the learned relation classifier looks: the sentences the rules left unbound.

A candidate is one organisation span in one sentence of a narrative chunk that holds a relation
trigger (ownership, supply, customer, competition: deliberately broad, the classifier decides)
and a mention of the filer ("we", "our", "the Company", its name). The filer is always the other
party: every class the classifier knows is a relation between the candidate and the filer. A
sentence that names no filer still has candidates where the filer is the party it leaves unnamed:
no organisation before its first relation word, and each name introduced as a party ("paid to
acquire X and Y", "Competitors include X, Y", "the X acquisition"); those are marked `implied`.
Organisation spans are the gazetteer's mentions (registrants, curated names, legal forms,
defined aliases) and the capitalised runs right after a trigger word; a span the rules already
bound in that sentence, the filer itself, and generic capitalised words are not candidates.

The filter is tight because every candidate costs one sentence embedding (about 5 ms on a
shared CPU core), and throughput is measured per chunk: a chunk without a trigger word costs one
regex search.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from graphrag_core.common.names import name_key
from graphrag_core.extraction.gazetteer import Gazetteer, Mention
from graphrag_core.extraction.grounding import GENERIC_FIRST_WORDS, Filer
from graphrag_core.text.sentences import sentence_spans

_I = re.I
# The lookahead names every branch's first letter: it halves the scan (most words fail on their
# first letter at once); tests check it finds what the pattern without it finds.
TRIGGER_FIRST_LETTERS = r"(?=[abcdfhlmoprsvw])"
TRIGGER = re.compile(
    r"\b"
    + TRIGGER_FIRST_LETTERS
    + r"(?:acqui(?:re[ds]?|ring|sitions?)|subsidiar(?:y|ies)|merge[rd]|wholly[- ]owned|"
    r"parent|holding\s+company|owns|owned|suppl(?:y|ies|ied|iers?)|manufactur(?:e[dsr]?|ers|ing)|"
    r"licens(?:e[ds]?|ing|or|ors|ee|ees)|host(?:s|ed|ing)?|vendors?|foundr(?:y|ies)|"
    r"providers?|customers?|clients?|distribut(?:ors?|es|ed)|bottl(?:ers?|ing)|resell(?:ers?)|"
    r"lessees?|wholesal(?:ers?)|retailers?|accounted\s+for|sales\s+to|purchase[sd]?\s+from|"
    r"compet(?:e|es|ed|ing|itors?|ition)|rivals?)\b",
    _I,
)
FILER_WORDS = re.compile(r"\b(?:we|us|our|the\s+company(?:['’]s)?)\b", _I)
# A capitalised run of up to five words with a capital start (names like "Zentrix Pro Systems").
CAPITALISED = re.compile(r"(?<![\w&'’\-.])[A-Z][\w&'’\-]*(?:\s+(?:&\s+)?[A-Z][\w&'’\-]*){0,4}")
NOT_NAMES = frozenset(
    "we our us the company it its they their this these those a an in on at as for of and or but "
    "other others certain various many some all each such no any major key class risk "
    "hong asia middle latin europe european africa asian "
    "item part note table fiscal january february march april may june july august september "
    "october november december u.s us states government federal state see".split()
)
# "made for the Company by X", "manufactured on our behalf by X": who it is made for between.
_FOR_WHOM = (
    r"(?:\s+(?:for\s+(?:us|the\s+company)|on\s+(?:our|the\s+company['’]s)\s+behalf|"
    r"exclusively|solely|under\s+contract))?"
)
# What introduces a party a bare capitalised run may be (no gazetteer entry, no legal form): a
# list lead-in or a relation phrase right before it, or an alias it defines right after it.
_LEADS_TO_A_PARTY = re.compile(
    r"\b(?:such\s+as|including|includes?|namely|acquisitions?\s+of|acquired|acquir(?:e|ing)|"
    r"merger\s+with|(?:operated|manufactured|supplied|provided|hosted|made|produced|distributed|"
    rf"sold|licensed){_FOR_WHOM}\s+by|agreements?\s+(?:[\w®&'’\-]+\s+){{0,6}}?with)\s+"
    r"(?:the\s+)?$",
    _I,
)
_DEFINES_ALIAS = re.compile(r"\s*\((?:the\s+)?[“\"]")
# Lead-ins after which one capitalised word alone is a party: a deal or an agreement names its
# counterparty, where "such as" or "including" as often name a product or a place.
_LEADS_TO_ONE_NAME = re.compile(
    r"\b(?:acquisitions?\s+of|acquired|acquir(?:e|ing)|merger\s+with|agreements?\s+with|"
    rf"(?:manufactured|supplied|provided|hosted|produced|licensed){_FOR_WHOM}\s+by)\s+"
    r"(?:the\s+)?$",
    _I,
)
# One word with a capital inside ("webMethods", "eBay"): a name where one word may be one.
_CAMEL = re.compile(r"(?<![\w&'’\-.])[a-z]{1,8}[A-Z][\w&'’\-]*")
# A name before the filer's relation noun or deal: "X is our largest customer", "X, our sole
# supplier of …", "our X business, which we had recently acquired".
_NAME = r"(?-i:[A-Z])[\w&'’\-]*(?:\s+(?:&\s+)?(?-i:[A-Z])[\w&'’\-]*){0,4}"
_OURS_NOUN = (
    r"(?:one\s+of\s+)?(?:our|the\s+company['’]s)\s+(?:[\w\-]+\s+){0,2}?(?:customers?|"
    r"clients?|suppliers?|vendors?|competitors?|rivals?|distributors?|licensors?|licensees?|"
    r"lessees?|bottlers?|resellers?|wholesalers?|foundr(?:y|ies)|subsidiar(?:y|ies)|"
    r"(?:contract\s+)?manufacturers?)\b"
    # where the noun phrase ends: "X, our customers can …" opens a clause, names no customer
    r"(?=\s*(?:[,;(.—–]|$|\s(?:of|for|in|and|since|until|with|through)\b))"
)
_OURS_NOUN_ONLY = re.compile(_OURS_NOUN, _I)
_NAME_BEFORE = re.compile(
    rf"(?P<name>{_NAME})(?:\s+(?:business|unit|operations))?(?:(?P<appos>,)\s+{_OURS_NOUN}"
    r"|\s+(?:is|was|are|were|remain(?:s|ed)?|has\s+been|became|serves\s+as|acts\s+as)\s+"
    rf"{_OURS_NOUN}|,?\s+(?:which|that)\s+we\s+(?:\w+\s+){{0,2}}?(?:acquired|purchased)\b)",
    _I,
)
# Names before the filer's revenue share: "X and Y accounted for 15% and 12% of our net sales"
# (not of a volume: "Trademark X accounted for 47% of our unit case volume" is a brand's).
_SHARE_NAMES = re.compile(
    rf"(?P<names>{_NAME}(?:\s*,\s*{_NAME})*(?:,?\s+and\s+{_NAME})?)\s+(?:each\s+)?"
    r"accounted\s+for\s+(?:approximately\s+|about\s+)?\d[^.;]{0,60}?\bof\s+(?:our|the\s+"
    r"company['’]s|its)\s+(?:total\s+|net\s+|consolidated\s+|gross\s+)*(?:revenues?|sales)\b",
    _I,
)
# The names a list joins to the party before it ("acquire X and Y", "X, Y and Z").
_LIST_JOIN = re.compile(r"\.?(?:,\s*(?:and\s+|or\s+)?|\s+(?:and|or)\s+)$")
# Nouns whose lists name things, not parties ("competing products such as X, Y").
_KINDS_BEFORE = re.compile(
    r"\b(?:products?|brands?|drugs?|medicines?|therapies|treatments?|devices?|platforms?|"
    r"technologies|systems|services|solutions|programs?|offerings?|titles?|franchises?|"
    r"markets?|regions?|countries|states|cities|locations?|facilities|sites?|segments?|"
    r"lines?|categories|channels|currencies|commodities|materials)\s*,?\s*$",
    _I,
)
# A product, not a party: a trademark sign right after the name, or a kind noun ("the X and Y
# products", "the X brand").
_PRODUCT_AFTER = re.compile(
    r"\s?[®™©]|(?:\s*(?:,|and|or)\s*(?-i:[A-Z])[\w\-]*[®™]?)*\s+(?:products?|brands?|drugs?|"
    r"franchises?|product\s+lines?|devices?|platforms?|technolog(?:y|ies)|trademarks?)\b",
    _I,
)
# Words a title-case heading leaves in lower case.
_SMALL_WORDS = frozenset("of and or the a an in on for to by with from at as vs".split())
# What ends a run-in heading that opens a sentence ("Volume Growth – Volumes rose …").
RUN_IN_HEADING = re.compile(r"\s*[–—:]|\s+-\s")
# A relation noun that belongs to a named party ("customers of X", "a supplier to X"), or a
# possessive ("X's acquisition"): the sentence speaks of another party's relations.
ANOTHER_PARTYS = re.compile(
    r"\b(?:customers?|clients?|suppliers?|vendors?|competitors?|rivals?|distributors?|"
    r"licensees?|licensors?|lessees?|subsidiar(?:y|ies)|parent|affiliates?)\s+(?:of|to|for|at)\s+"
    r"(?:the\s+)?(?-i:[A-Z])|(?-i:[A-Z])[\w&.\-]*['’]s\b",
    _I,
)
# "the X acquisition", "our X and Y acquisitions": a deal named by the company acquired, the
# acquirer left unnamed (the filer, in its own filing).
_NAMED_DEAL = re.compile(
    r"\b(?:the|our)\s+(?P<names>(?-i:[A-Z])[\w&'’\-]*(?:\s+(?-i:[A-Z])[\w&'’\-]*){0,3}"
    r"(?:\s+and\s+(?-i:[A-Z])[\w&'’\-]*(?:\s+(?-i:[A-Z])[\w&'’\-]*){0,3})?)\s+"
    r"acquisitions?\b",
    _I,
)
# How far after a trigger word a bare capitalised run still counts ("suppliers such as X").
_AFTER_TRIGGER = 60
MAX_SENTENCE = 2000  # longer "sentences" are tables or lists run together: not read
MAX_PER_SENTENCE = 8
MAX_MARKED = 240  # characters of context kept around the candidate
STAND_IN = "Acme"
IMPLIED_LEAD = "We: "


@dataclass(frozen=True)
class Candidate:
    """One organisation span in a sentence, with the filer mention it is paired with (offsets
    relative to the sentence)."""

    sentence: str
    sentence_start: int  # in the chunk
    start: int
    end: int
    name: str
    filer_start: int
    filer_end: int
    # The sentence names no filer: the filer is the party it leaves unnamed (filer_* are 0).
    implied: bool = False


def _bare_runs(sentence: str, triggers: list[tuple[int, int]]) -> list[tuple[int, int, bool]]:
    """Capitalised runs that start shortly after a trigger word (not at the sentence's start),
    each with whether it is introduced as a party (a lead-in right before it, or a list joining
    it to such a run). Two words or more, unless a deal or an agreement introduces it (directly
    or by a list): one capitalised word alone is a place, a month or a product far more often
    than a company the gazetteer does not know."""
    out: list[tuple[int, int, bool]] = []
    for _, trigger_end in triggers:
        led_to_one = led = -1  # where the last run introduced as a party ended
        # Not finditer's endpos: that would cut the last name in two ("Middle E").
        for run in _runs_from(sentence, trigger_end):
            if run.start() > trigger_end + _AFTER_TRIGGER:
                break
            words = run.group().split()
            if run.start() == 0:
                continue
            lo = max(run.start() - 80, 0)  # every lead-in is shorter: no scan from the start
            joined = _LIST_JOIN.search(sentence, lo, run.start())
            listed = joined is not None and joined.start() in (led, led_to_one)
            one = bool(_LEADS_TO_ONE_NAME.search(sentence, lo, run.start())) or (
                listed and joined is not None and joined.start() == led_to_one
            )
            lead = _LEADS_TO_A_PARTY.search(sentence, lo, run.start())
            if lead and _KINDS_BEFORE.search(sentence, lo, lead.start()):
                lead = None  # "products such as X", "regions including Y": not parties
            party = bool(lead) or listed or one
            if len(words) < 2 and not one:
                continue
            if not (party or _DEFINES_ALIAS.match(sentence, run.end())):
                continue  # "Silicon Valley", "Good Manufacturing Practices": no party context
            if words[0].lower() in NOT_NAMES or words[0].lower() in GENERIC_FIRST_WORDS:
                continue
            led = run.end() if party else led
            led_to_one = run.end() if one else led_to_one
            out.append((run.start(), run.end(), party))
    return out


def _runs_from(sentence: str, start: int) -> list[re.Match[str]]:
    """The capitalised runs and camel-case words from `start`, in order."""
    runs = [*CAPITALISED.finditer(sentence, start), *_CAMEL.finditer(sentence, start)]
    return sorted(runs, key=lambda m: m.start())


def _named_before(sentence: str) -> list[tuple[int, int]]:
    """Names that come before the filer's relation noun or deal ("X is our largest customer",
    "X and Y accounted for 15% and 12% of our sales"), less a capitalised word that names
    nothing at their start ("In Zentrix, …", "The Zentrix business")."""
    out: list[tuple[int, int]] = []
    lowered = sentence.lower()
    # Most sentences have neither shape: the patterns' tails, found first, spare them the rest.
    before = "which we " in lowered or "that we " in lowered or _OURS_NOUN_ONLY.search(sentence)
    for m in _NAME_BEFORE.finditer(sentence) if before else ():
        a, b = m.span("name")
        if m.group("appos") and " " not in m.group("name") and not sentence[:a].strip():
            continue  # "Further, our contract manufacturers …": an opening adverb, no name
        out.append((a, b))
    for m in _SHARE_NAMES.finditer(sentence) if "accounted" in lowered else ():
        at = m.start("names")
        for part in re.split(r"(\s*,\s*(?:and\s+)?|,?\s+and\s+)", m.group("names")):
            if part and CAPITALISED.fullmatch(part):
                out.append((at, at + len(part)))
            at += len(part)
    spans = []
    for a, b in out:
        words = sentence[a:b].split()
        first = words[0].lower() if words else ""
        if first in NOT_NAMES:
            a = sentence.find(words[1], a) if len(words) > 1 else b
        if a < b:
            spans.append((a, b))
    return spans


def _named_deals(sentence: str) -> list[tuple[int, int]]:
    """The names of "the X acquisition", "our X and Y acquisitions"."""
    out = []
    for m in _NAMED_DEAL.finditer(sentence):
        at = m.start("names")
        for part in re.split(r"(\s+and\s+)", m.group("names")):
            if part.strip() and part.strip() != "and":
                first = part.split()[0].lower()
                if first not in NOT_NAMES and first not in GENERIC_FIRST_WORDS:
                    out.append((at, at + len(part)))
            at += len(part)
    return out


# Last words of capitalised runs that name a document, a security or a place, not a party.
_NOT_PARTY_ENDS = frozenset(
    "agreement agreements act factors plan notes note stock shares region regions kingdom "
    "states".split()
)


_BIOGRAPHY = re.compile(
    r"\b(?:Mr|Ms|Mrs|Dr)\.\s+[A-Z]|\bprior\s+to\s+joining\b|\b(?:previously\s+)?served\s+"
    r"(?:as|in)\b|\bjoined\s+(?:the\s+company|us)\b"
)
_PREPOSITION_AFTER = re.compile(r"\s+(?:on|of|in|for|to|with|upon)\b")


def _not_a_party(name: str) -> bool:
    """A document ("Merger Agreement"), a place, a possessive ("Commerce’s U"), a cut word."""
    words = name.casefold().split()
    return (
        not words
        or words[-1].strip(",.;:") in _NOT_PARTY_ENDS
        or words[0] in NOT_NAMES
        or len(words[-1]) == 1
        or any(w.endswith(("'s", "’s")) for w in words)
    )


def _own_line(name: str, filer: Filer) -> bool:
    """ "Visa Direct", "NIKE Air-Sole", "Tesla Semi": a name that opens on the filer's own name
    and has no legal form is the filer's product or brand (a subsidiary named after its parent
    carries its legal form: "Harwell Field Services LLC")."""
    first = filer.name.split()[0].strip(",.").casefold() if filer.name.split() else ""
    words = name.split()
    return (
        len(words) > 1 and words[0].strip(",.").casefold() == first and not _LEGAL_FORM.search(name)
    )


def _filer_mention(sentence: str, filer: Filer, mentions: list[Mention]) -> tuple[int, int] | None:
    own = FILER_WORDS.search(sentence)
    for m in mentions:
        if filer.is_self(m.name) and (own is None or m.start < own.start()):
            return m.start, m.end
    return (own.start(), own.end()) if own else None


def candidates(
    text: str,
    filer: Filer,
    gazetteer: Gazetteer,
    bound: frozenset[tuple[str, ...]] = frozenset(),
    read: tuple[list[Mention], list[tuple[int, int]]] | None = None,
) -> list[Candidate]:
    """The unbound (sentence, organisation) pairs of a chunk, in text order. `bound` holds the
    name keys of the parties the rules already related in this chunk: those are not asked
    again. `read`: the chunk's gazetteer mentions and sentence spans, when the caller has them."""
    triggers = [(m.start(), m.end()) for m in TRIGGER.finditer(text)] if text else []
    if not triggers:
        return []
    all_mentions, spans_of = read if read is not None else (gazetteer.find(text), None)
    if spans_of is None:
        spans_of = sentence_spans(text, split_lines=True)
    first = filer.name.split()[0].casefold() if filer.name.split() else ""
    # The gates ground an unnamed filer in the chunk's other mentions of it; without one, a
    # sentence that names no filer is not asked.
    filer_in_chunk = bool(FILER_WORDS.search(text) or (first and first in text.casefold()))
    out: list[Candidate] = []
    for s, e in spans_of:
        sentence = text[s:e]
        here = [(a - s, b - s) for a, b in triggers if s <= a and b <= e]
        if len(sentence) > MAX_SENTENCE or not here:
            continue
        named = bool(FILER_WORDS.search(sentence) or (first and first in sentence.casefold()))
        if not (named or filer_in_chunk):
            continue
        if _BIOGRAPHY.search(sentence):
            continue  # an officer's career: "… in the mergers and acquisitions group at X"
        mentions = [
            Mention(m.start - s, m.end - s, m.name, m.entity_key, m.via)
            for m in all_mentions
            if s <= m.start and m.end <= e
        ]
        filer_at = _filer_mention(sentence, filer, mentions) if named else None
        if _title_case(sentence):
            # A heading ("Acquisitions of Businesses and Equity Method Investments"): every word
            # is capitalised, so a capitalised run says nothing; its named organisations stay.
            spans = [(m.start, m.end, m.name) for m in mentions if filer_at is not None]
        elif filer_at is not None:
            spans = _spans_with_filer(sentence, here, mentions, filer, filer_at)
        else:
            spans = _spans_filer_unnamed(sentence, here, mentions, filer)
        seen: set[tuple[str, ...]] = set()
        for a, b, name in sorted(spans)[: MAX_PER_SENTENCE * 2]:
            key = name_key(name)
            if not key or key in seen or key in bound or filer.is_self(name):
                continue
            if _own_line(name, filer) or _not_a_party(name):
                continue
            if a == 0 and _PREPOSITION_AFTER.match(sentence, b):
                continue  # "Reliance on third parties …": a noun opening the sentence
            if _PRODUCT_AFTER.match(sentence, b):
                continue  # "acquired the X® and Y® products"
            if not any(a - NEAR <= y and x <= b + NEAR for x, y in here):
                continue  # no relation word near it: a name the sentence mentions in passing
            if filer_at is not None and a < filer_at[1] and filer_at[0] < b:
                continue
            seen.add(key)
            where = filer_at if filer_at is not None else (0, 0)
            out.append(Candidate(sentence, s, a, b, name, *where, implied=filer_at is None))
            if len(seen) >= MAX_PER_SENTENCE:
                break
    return out


def _title_case(sentence: str) -> bool:
    words = [w for w in re.findall(r"[A-Za-z][\w'’\-]*", sentence) if w.lower() not in _SMALL_WORDS]
    return len(words) >= 3 and len(sentence) < 300 and all(w[0].isupper() for w in words)


def _spans_with_filer(
    sentence: str,
    here: list[tuple[int, int]],
    mentions: list[Mention],
    filer: Filer,
    filer_at: tuple[int, int],
) -> list[tuple[int, int, str]]:
    """A sentence that names the filer: its organisations, and the capitalised runs introduced
    near a relation word (not overlapping a mention or the filer)."""
    spans = [(m.start, m.end, m.name) for m in mentions if not filer.is_self(m.name)]
    runs = [(a, b) for a, b, _ in _bare_runs(sentence, here)]
    for a, b in [*runs, *_named_deals(sentence), *_named_before(sentence)]:
        if not any(x < b and a < y for x, y, _ in spans) and not (
            filer_at[0] < b and a < filer_at[1]
        ):
            spans.append((a, b, sentence[a:b]))
    return spans


def _spans_filer_unnamed(
    sentence: str, here: list[tuple[int, int]], mentions: list[Mention], filer: Filer
) -> list[tuple[int, int, str]]:
    """A sentence that names no filer: only the names it introduces as parties, and none at all
    when an organisation comes before its first relation word (that one is the actor: "Harwick
    supplies Corvane", "X's acquisition of Y" are facts about two others)."""
    deals = _named_deals(sentence)
    first_trigger = here[0][0]
    if any(
        m.start < first_trigger and not filer.is_self(m.name) and (m.start, m.end) not in deals
        for m in mentions
    ):
        return []
    spans = [(a, b, sentence[a:b]) for a, b in deals]
    for a, b, party in _bare_runs(sentence, here):
        if party and not any(x < b and a < y for x, y, _ in spans):
            spans.append((a, b, sentence[a:b]))
    ends = {b for _, b, _ in spans}
    if not spans:
        return []
    for m in sorted(mentions, key=lambda m: m.start):
        if filer.is_self(m.name) or any(x < m.end and m.start < y for x, y, _ in spans):
            continue
        lo = max(m.start - 80, 0)
        joined = _LIST_JOIN.search(sentence, lo, m.start)
        lead = _LEADS_TO_A_PARTY.search(sentence, lo, m.start)
        if (
            (lead and not _KINDS_BEFORE.search(sentence, lo, lead.start()))
            or _LEADS_TO_ONE_NAME.search(sentence, lo, m.start)
            or (joined is not None and joined.start() in ends)
        ):
            spans.append((m.start, m.end, m.name))
            ends.add(m.end)
    first = min(a for a, _, _ in spans)
    if ANOTHER_PARTYS.search(sentence, 0, first) or any(
        len(run.group().split()) > 1
        and run.group().split()[0].lower() not in NOT_NAMES
        and not (run.start() == 0 and RUN_IN_HEADING.match(sentence, run.end()))
        for run in CAPITALISED.finditer(sentence, 0, first)
    ):
        return []  # another party comes first: the relation may be its own
    return spans


def marked(c: Candidate) -> str:
    """What the encoder reads: the sentence with the candidate replaced by a stand-in name
    ("Acme") and the filer's mention by "we", cut to about MAX_MARKED characters around the
    candidate (whole words). Replacing rather than bracketing the names makes two sentences that
    say the same of different companies read the same: the embedding carries the relation, not
    the name (bracket markers are split into word pieces that mean little to MiniLM; measured
    on the holdout candidates, replacing was the better of the two)."""
    pieces = [(c.start, c.end, STAND_IN)]
    if not c.implied:
        pieces = sorted([*pieces, (c.filer_start, c.filer_end, "we")])
    # The filer the sentence leaves unnamed is placed before it, as the party it speaks for.
    text, at, where = ([IMPLIED_LEAD], 0, 0) if c.implied else ([], 0, 0)
    for a, b, word in pieces:
        text.append(c.sentence[at:a])
        if word == STAND_IN:
            where = sum(len(t) for t in text)
        text.append(word)
        at = b
    text.append(c.sentence[at:])
    out = "".join(text)
    if len(out) <= MAX_MARKED:
        return out
    lo = max(where - MAX_MARKED // 2, 0)
    hi = min(lo + MAX_MARKED, len(out))
    lo = out.rfind(" ", 0, lo) + 1 if lo > 0 else 0
    end = out.find(" ", hi)
    return out[lo : len(out) if end < 0 else end]


# Words whose presence near the candidate (NEAR characters either side) or anywhere in its
# sentence the classifier weighs besides the embedding: mean pooling blurs which of a sentence's
# names a relation word belongs to, and these say it plainly.
CUE_STEMS: tuple[str, ...] = (
    "subsidiar", "wholly", "acqui", "merge", "parent", "holding", "owned", "owns", "divest",
    "sold", "spin", "suppl", "manufactur", "licens", "host", "vendor", "foundr", "provid",
    "purchas", "source", "contract", "customer", "client", "distribut", "bottl", "resell",
    "lessee", "wholesal", "retailer", "accounted", "sales to", "revenue", "compet", "rival",
    "such as", "includ", "agreement", "joint venture", "partner", "invest", "formerly",
    "division", "brand", "product", "segment", "state of", "located", "headquarter",
)  # fmt: skip
NEAR = 60
_LEGAL_FORM = re.compile(
    r"\b(?:inc|corp|corporation|llc|ltd|limited|plc|company|co|s\.a|ag|gmbh|n\.v|l\.p|lp|bank)\b",
    _I,
)
FEATURE_COUNT = 2 * len(CUE_STEMS) + 6


def cue_features(c: Candidate) -> list[float]:
    """0/1 features: each cue stem near the candidate, each in the sentence, then a one-word
    name, a legal form in the name, the filer within NEAR characters, the candidate before the
    filer, the name followed by an apposition (a comma or a parenthesis), the filer unnamed."""
    sentence = c.sentence.lower()
    near = sentence[max(c.start - NEAR, 0) : c.end + NEAR]
    after = sentence[c.end : c.end + 3]
    return [
        *(float(stem in near) for stem in CUE_STEMS),
        *(float(stem in sentence) for stem in CUE_STEMS),
        float(len(c.name.split()) == 1),
        float(bool(_LEGAL_FORM.search(c.name))),
        float(not c.implied and abs(c.start - c.filer_start) < NEAR),
        float(not c.implied and c.start < c.filer_start),
        float(after.startswith((",", " ("))),
        float(c.implied),
    ]
