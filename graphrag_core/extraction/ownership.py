"""Ownership a filing states beyond fixed subsidiary cues (issue 22).

Three kinds of evidence that a company is owned by another:

- a completed acquisition by the filer: "we completed the acquisition of ImmunoGen", "the Company
  acquired all of the outstanding shares of X", "the completion of our acquisition of X"; the
  acquired company becomes a subsidiary of the filer, dated with the period the sentence states.
  An announced or pending deal ("we entered into an agreement to acquire X", "we expect to
  complete") is no such fact: its verbs are not matched here, and the forward-looking gate drops
  what a future tense leaves. A divestiture ("we completed the sale of X") matches nothing.
  What is acquired must be a company: not a business, assets or rights of one ("X's consumer
  health business"), and not a stake short of control ("a 49% interest in X").
- an apposition that says who owns whom ("Alexion, a subsidiary of AstraZeneca", "X, our
  wholly-owned subsidiary"): a fact whatever mood the sentence around it is in.
- an Exhibit 21 list: every row names a subsidiary; the name is cleaned of the jurisdiction and
  ownership columns, footnote marks and leaders that follow it.

Pure functions of text; the rules backend binds what they find to the filer.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from graphrag_core.common.names import is_legal_form
from graphrag_core.extraction.exhibit21 import exhibit21_name, exhibit21_names

__all__ = ["exhibit21_name", "exhibit21_names"]  # where callers have long found them

_I = re.I

# The filer as the acquirer: "we", "the Company", "the Corporation" (its own name is added by the
# caller's pattern, see `acquisitions`).
_ACQUIRER = r"(?:we|the\s+company|the\s+corporation)"
# "… we completed the acquisition of", "… we closed our previously announced acquisition of".
_COMPLETED = (
    r"(?:completed|closed|consummated|finalized)\s+(?:the|our|its)\s+"
    r"(?:previously[- ]announced\s+|planned\s+|pending\s+)?acquisition\s+of\s+"
)
# "we acquired", "we acquired all of the outstanding shares of", "we acquired 100% of".
_ACQUIRED = (
    r"(?:acquired\s+(?:a\s+)?(?:(?:controlling|majority)\s+(?:ownership\s+|equity\s+)?"
    r"(?:interest|stake|share|position)\s+in\s+)?"
    r"|purchased\s+(?=all\b|100%))"
)
# Control of the whole company: all its shares, or 100% of them.
_ALL_SHARES = (
    r"(?:(?:all|100%)\s+(?:of\s+)?(?:the\s+)?(?:issued\s+and\s+)?(?:outstanding\s+)?(?:\w+\s+){0,2}?"
    r"(?:shares|stock|equity(?:\s+interests?)?|interests?|capital\s+stock|share\s+capital)\s+"
    r"(?:\w+\s+){0,2}?of\s+)?"
)
_ACQUISITION = re.compile(
    rf"\b{_ACQUIRER}\s+(?:(?:also|successfully|then|subsequently)\s+)?"
    rf"(?:{_COMPLETED}|{_ACQUIRED}){_ALL_SHARES}(?=[A-Z0-9])"
    # "following the completion of our acquisition of X": past, unlike "completion of our
    # acquisition of X is subject to conditions" or "upon the closing of …"
    rf"|\b(?:following|after|since|with)\s+(?:the\s+)?(?:completion|closing|consummation)\s+of\s+(?:the|our|its)\s+acquisition\s+of\s+{_ALL_SHARES}(?=[A-Z0-9])",
    _I,
)
# A name followed by these is not the company acquired: a part of it ("X's Y business"), or the
# company that acquired (the filer was acquired: "the acquisition of the Company by X").
_NOT_THE_COMPANY_AFTER = re.compile(
    r"^(?:['’]s?\b|[®™©]|\s+by\b|\s+(?:business|assets?|division|portfolio|product|brand|rights?)\b)",
    _I,
)


# What may stand between the acquirer and its verb: "we also", "the Company has", "we recently".
_DEAL_ADVERBS = (
    r"(?:(?:also|successfully|then|subsequently|recently|previously|further|has|have|had)\s+)*"
)
# "completed the $13.1 billion acquisition of", "closed our previously announced all-cash
# acquisition of", "completed six acquisitions …, including the acquisition of": no "of" between
# the article and the noun ("completed the sale of X and the acquisition of Y" is read from Y).
_DEAL_VERB = re.compile(
    _DEAL_ADVERBS + r"(?:(?:completed|closed|consummated|finalized)\s+(?:on\s+)?(?:the|our|its)\s+"
    r"(?:(?!of\b)[\w$.,\-]+\s+){0,4}?acquisition\s+of\s+"
    r"|(?:completed|invested|spent|paid)\s+(?:[^;]{0,60}?\s)?acquisitions\b[^;]{0,80}?\bincluding\s+"
    r"(?:the\s+)?acquisitions?\s+of\s+"
    rf"|{_ACQUIRED}){_ALL_SHARES}(?=[A-Z0-9])",
    _I,
)
# The acquirer written before the verb when it is not the filer's name: a pronoun, or a unit of the
# filer ("the Walmart U.S. segment completed the acquisition of …").
_ACQUIRER_BEFORE = re.compile(
    r"\b(?:we|the\s+company|the\s+corporation|(?:the|our)\s+(?:(?-i:[A-Z])[\w.&\-]*\s+){0,4}"
    r"(?:segment|business|subsidiary))$",
    _I,
)
# "our acquisition of X", "since our acquisition of X", "the Company's 2005 acquisition of X".
_OUR_ACQUISITION = re.compile(
    r"(?P<since>\b(?:since|following|after)\s+)?\b(?P<det>our|the\s+company['’]s|the)\s+"
    r"(?P<year>(?:fiscal\s+)?(?:19|20)\d{2}\s+)?acquisition\s+of\s+(?:(?-i:the)\s+(?=[A-Z]))?(?=[A-Z0-9])",
    _I,
)
# A deal not (yet) done, or one the sentence only weighs: no subsidiary from "our acquisition of".
NOT_DONE = re.compile(
    r"\b(?:pending|proposed|anticipated|planned|potential|possible|prospective|announce[sd]?|would|"
    r"will|shall|expect\w*|subject\s+to|terminat\w*|agreement\s+to\s+acquire|may|might|if|whether|"
    r"failed|abandon\w*|blocked|enjoin\w*)\b",
    _I,
)
_VERB_BEFORE = re.compile(
    r"\b(?:completed|closed|consummated|finalized|announced|terminated)\s+(?:\w+\s+)?$", _I
)
_DATED_AFTER = re.compile(
    r"^(?:\s*\([^()]{1,60}\))?,?\s+(?:in|on|during)\s+(?:(?:the\s+)?(?:first|second|third|fourth)"
    r"\s+quarter\s+of\s+)?(?:fiscal\s+(?:year\s+)?)?(?:(?-i:[A-Z])[a-z]+\s+(?:\d{1,2},\s+)?)?"
    r"(?:19|20)\d{2}\b",
    _I,
)
_COMPLETED_AFTER = re.compile(
    r"^(?:\s*\([^()]{1,60}\))?,?\s+(?:which\s+)?(?:was|were|has\s+been|had\s+been)\s+"
    r"(?:successfully\s+)?(?:completed|closed|consummated)\b",
    _I,
)


# What a done deal does to the filer, said right after the company's name: "our acquisition of X
# increases our exposure to …", "the acquisition of X expanded our presence in …". A deal still
# to close has no effect yet; the verb must be followed by the filer's own words ("our", "us").
_EFFECT_AFTER = re.compile(
    r"^(?:\s*\([^()]{1,60}\))?,?\s+(?:(?:has|have|had)\s+)?(?:\w+ly\s+)?"
    r"(?:increase|expand|add|contribute|broaden|strengthen|extend|enhance|diversif(?:y|ie)|"
    r"complement|accelerate|bolster|deepen|augment)(?:s|d|ed)?\b(?=[^.;]{0,60}\b(?:our|us|we)\b)",
    _I,
)
# Words of a deal that has still to clear a hurdle ("… requires regulatory approval").
_HURDLE = re.compile(r"\b(?:approv\w*|conditions?|regulat\w*|antitrust|clos(?:e|ing))\b", _I)


@dataclass(frozen=True)
class Acquisition:
    """Where the name of a company the filer acquired starts, and the period the sentence dates
    the acquisition in."""

    name_start: int
    period: str | None


_FISCAL_YEAR = re.compile(r"\bfiscal\s+(?:year\s+)?(?P<y>(?:19|20)\d{2})\b", _I)
_ANY_YEAR = re.compile(r"\b(?P<y>(?:19|20)\d{2})\b")


def acquisition_period(sentence: str) -> str | None:
    """The period an acquisition is dated in: the fiscal year the sentence names ("in fiscal
    2024"), else the year of its date ("On November 14, 2023", "In February 2024"); the first one
    stated, the completion being what the sentence opens on."""
    fiscal = _FISCAL_YEAR.search(sentence)
    if fiscal:
        return f"FY{fiscal.group('y')}"
    year = _ANY_YEAR.search(sentence)
    return f"FY{year.group('y')}" if year else None


def acquisitions(sentence: str, filer_ends: frozenset[int] = frozenset()) -> list[Acquisition]:
    """Each completed acquisition by the filer the sentence states, by where the acquired
    company's name starts (the caller reads the name there). `filer_ends`: where a mention of
    the filer by its name ends ("AbbVie completed the acquisition of …")."""
    period = acquisition_period(sentence)
    starts = [m.end() for m in _ACQUISITION.finditer(sentence)]
    for m in _DEAL_VERB.finditer(sentence):
        before = sentence[: m.start()].rstrip()
        if _ACQUIRER_BEFORE.search(before) or any(
            e <= len(before) and all(is_legal_form(w) for w in before[e:].replace(",", " ").split())
            for e in filer_ends
        ):
            starts.append(m.end())
    return [Acquisition(at, period) for at in sorted(set(starts))]


# "X, which we acquired in 2021", "X (acquired by the Company in 2022)": the name comes first.
WHICH_WE_ACQUIRED = re.compile(
    r"(?:\s*\([^()]{0,40}\))?(?:,\s+(?:which|that|whom)\s+(?:we|the\s+company)\s+acquired|"
    r"\s*\(\s*acquired\s+by\s+(?:us|the\s+company)|,\s+acquired\s+by\s+(?:us|the\s+company))"
    r"\s+(?:in|on|during)\s+",
    _I,
)


def dated_acquisitions(sentence: str) -> list[tuple[int, str | None, bool]]:
    """(where the name starts, the year written before "acquisition", whether the sentence
    already dates the deal as done) of each "our acquisition of X" that is no deal still to
    close: "since our acquisition of X", "our 2005 acquisition of X" are past as written; "our
    acquisition of X" needs `completed_after` ("… in 2020", "… which was completed in the first
    quarter")."""
    if NOT_DONE.search(sentence):
        return []
    out = []
    for m in _OUR_ACQUISITION.finditer(sentence):
        if _VERB_BEFORE.search(sentence, 0, m.start()):
            continue  # "X completed the acquisition of": whose deal is `acquisitions`' to say
        year = _ANY_YEAR.search(m.group("year") or "")
        done = bool(m.group("since") or year)
        if m.group("det").lower() == "the" and not year:
            done = False
        out.append((m.end(), f"FY{year.group('y')}" if year else None, done))
    return out


def completed_after(sentence: str, name_end: int) -> tuple[bool, str | None]:
    """Does the text after an acquired company's name date the deal or say it closed, and in
    which year if it dates it ("… in 2020")?"""
    rest = sentence[name_end:]
    dated = _DATED_AFTER.match(rest)
    if dated and re.match(r",?\s+by\b", rest[dated.end() :]):
        return False, None  # "the acquisition of X in 2020 by Y": Y's deal
    if dated:
        year = _ANY_YEAR.search(dated.group())
        return True, f"FY{year.group('y')}" if year else None
    if _EFFECT_AFTER.match(rest) and not _HURDLE.search(sentence):
        return True, None
    return _COMPLETED_AFTER.match(rest) is not None, None


# "The acquisition of X was completed on …", "On May 1, 2023, the acquisition of X closed": the
# sentence opens on the deal (after a date phrase at most), so nobody else is its acquirer.
_OPENS_ON_THE_ACQUISITION = re.compile(
    r"^\s*(?:(?:on|in|during|effective)\s+[^,]{1,40}(?:,\s*(?:19|20)\d{2})?,\s+)?the\s+(?:(?:fiscal\s+)?(?:19|20)\d{2}\s+)?"
    r"acquisition\s+of\s+(?:(?-i:the)\s+(?=[A-Z]))?",
    _I,
)


def implied_acquirer(sentence: str, acquired: str) -> bool:
    """Does the sentence state, as the filer's own account, that the deal for `acquired` is
    done, without naming who acquired it ("The acquisition of X was completed on March 3,
    2023")? In the filer's filing the acquirer it leaves unnamed is the filer."""
    m = _OPENS_ON_THE_ACQUISITION.match(sentence)
    if m is None or not sentence.startswith(acquired, m.end()) or NOT_DONE.search(sentence):
        return False
    end = m.end() + len(acquired)
    if not is_the_company_acquired(sentence, end):
        return False
    rest = sentence[end:]
    if _COMPLETED_AFTER.match(rest):
        return True
    return _EFFECT_AFTER.match(rest) is not None and not _HURDLE.search(sentence)


# A run of capitalized words that is a date or an opening phrase, not a name ("At December 31").
_NOT_A_NAME = re.compile(
    r"^(?:at|on|in|as|by|for|during|since|from|through)\b|\b(?:january|february|march|april|may|"
    r"june|july|august|september|october|november|december)\s+\d",
    _I,
)


def is_date_phrase(name: str) -> bool:
    """Is this capitalized run a date or an opening phrase ("At December 31") and no company?"""
    return _NOT_A_NAME.search(name) is not None


def is_the_company_acquired(sentence: str, name_end: int) -> bool:
    """Is the name that ends at `name_end` the company acquired, not a part of one or its buyer?"""
    return _NOT_THE_COMPANY_AFTER.match(sentence[name_end:]) is None


# -- appositions --------------------------------------------------------------------------------

# The rest of the subject's name may come first (grounding may anchor "Beta" of "Beta Ltd.").
_NAME_REST = r"[\w.&’'\-]*(?:\s+(?:(?-i:[A-Z])[\w.&’'\-]*|of|and|&))*"
_APPOSITION_OF = re.compile(
    _NAME_REST
    + r"(?:\s*\([^()]{0,60}\))?,\s+(?:a|an|the|its)\s+(?:[\w\-]+\s+){0,3}?subsidiary\s+of\s+$",
    _I,
)
_APPOSITION_OURS = re.compile(
    _NAME_REST
    + r"(?:\s*\([^()]{0,60}\))?,\s+(?:our|the\s+company['’]s)\s+(?:[\w\-]+\s+){0,3}?subsidiary\b",
    _I,
)


def apposition(
    sentence: str, subject: tuple[int, int], parent: tuple[int, int] | None
) -> tuple[int, int] | None:
    """The span of the apposition that states `subject` is a subsidiary ("S, a subsidiary of P",
    with `parent` the span of P; "S, our wholly-owned subsidiary" when `parent` is None, the filer
    being the parent), or None when the sentence says it otherwise."""
    s_start, s_end = subject
    if parent is None:
        m = _APPOSITION_OURS.match(sentence, s_end)
        return (s_start, m.end()) if m else None
    p_start, p_end = parent
    if p_start < s_end or _APPOSITION_OF.fullmatch(sentence, s_end, p_start) is None:
        return None
    return s_start, p_end


def blank(sentence: str, spans: list[tuple[int, int]]) -> str:
    """`sentence` with each span replaced by as many neutral letters: a party's name ("Fully Will
    Limited") says nothing about the mood of the statement that names it."""
    chars = list(sentence)
    for a, b in spans:
        chars[a:b] = ["X" if ch.isalnum() else ch for ch in sentence[a:b]]
    return "".join(chars)


# -- subsidiaries named in prose, beyond fixed modifiers ------------------------------------------

# Descriptive words before "subsidiary": "wholly-owned finance", "insurance company", "U.S. bank",
# "indirect, wholly owned". A name starts each lower-case word's run only if no verb or clause
# word is among them ("a company that has a subsidiary").
_MODIFIERS = r"(?:(?:(?-i:[a-z])[\w\-]*|U\.S\.|U\.K\.|non-U\.S\.),?\s+){0,5}?"
_NOT_A_MODIFIER = frozenset(
    {
        "former",
        "formerly",
        "previous",
        "previously",
        "prior",
        "divested",
        "sold",
        "spun",
        "spun-off",
        "that",
        "which",
        "who",
        "has",
        "have",
        "had",
        "is",
        "was",
        "with",
        "in",
        "for",
        "to",
        "of",
        "not",
        "no",
        "any",
        "certain",
        "other",
        "future",
        "new",
        "potential",
    }
)
# "our insurance company subsidiary, X", "through its wholly-owned subsidiaries, X (“A”), Y and Z".
NAMED_AFTER_OWNER = re.compile(
    r"\b(?P<owner>our|its|the\s+(?:company|corporation|registrant)['’]s)\s+(?P<mods>"
    + _MODIFIERS
    + r")subsidiar(?:y|ies)(?:,\s*|\s+)(?:(?:primarily|including|namely)\s+)?(?=(?-i:[A-Z]))",
    _I,
)
# "X (Alias), a wholly-owned finance subsidiary of Y", "X is an indirect, wholly owned subsidiary
# of Y", "X (a subsidiary of Y)", "X, an intermediate holding company and subsidiary of the Parent".
OWNED_LINK = re.compile(
    r"(?:\s+(?:is|was|became|becomes|remains|remained|(?:has|had)\s+become)\s+"
    r"|,\s+(?:which|that)\s+(?:is|was|became)\s+|\s+(?:surviving|continuing)\s+as\s+"
    r"|(?P<appositive>,\s+|\s*\(\s*))"
    r"(?P<article>a|an|our|its|the\s+company['’]s|the)\s+(?P<mods>" + _MODIFIERS + r")"
    # not a possessive phrase around it ("our subsidiary bank's largest customer")
    r"(?:subsidiary|operating\s+(?:company|subsidiary))\b(?!['’]s|\s+\w+['’]s\b)(?P<of>\s+of\s+)?",
    _I,
)
# "The Company is the (bank) holding company for X", "we serve as the parent holding company of
# X": the filer's subsidiaries follow.
_HOLDING = (
    r"\s+(?P<verb>is|serves\s+as|acts\s+as)\s+(?:the\s+|a\s+)?(?:parent\s+)?"
    r"(?:(?:bank|financial|savings\s+and\s+loan|thrift|insurance)\s+)?holding\s+company\s+"
    r"(?:of|for)\s+(?:the\s+)?(?=[A-Z])"
)
HOLDING_COMPANY_OF = re.compile(r"\b(?:we|the\s+company|the\s+corporation)" + _HOLDING, _I)
# The same after the filer's own name ("Example Holdings, Inc. is the holding company for X").
HOLDING_AFTER_NAME = re.compile(r"(?:,?\s+[\w.]+?){0,2}?" + _HOLDING, _I)
# "The Company has one subsidiary, X", "we have two wholly-owned subsidiaries: X and Y".
COUNTED_SUBSIDIARIES = re.compile(
    r"\b(?:we|the\s+company|the\s+corporation)\s+(?:has|have|had)\s+(?:one|two|three|four|five|six|"
    r"seven|eight|nine|ten|\d{1,2})\s+(?:(?:wholly|majority)[- ]owned\s+|direct\s+|operating\s+|"
    r"principal\s+|active\s+)*subsidiar(?:y|ies)\s*[,:]\s*(?:namely\s+)?(?=[A-Z])",
    _I,
)
# "X is wholly owned by Y", "X, which is 100%-owned by Y", "X was acquired by the Company in
# 2022": the name before, the owner after.
OWNED_BY = re.compile(
    r"(?:\s*\([^()]{0,40}\))?(?:,\s+(?:which|that)\s+|\s+)(?:is|are|was|were|has\s+been|have\s+been)\s+"
    r"(?:(?:directly\s+or\s+indirectly\s+)?(?:wholly|100\s?%|majority)[- ]owned|acquired)\s+by\s+",
    _I,
)
# "Alphabet's subsidiary, Google LLC", "Premier's wholly owned subsidiaries, X and Y".
POSSESSIVE_OWNER = re.compile(
    r"(?P<parent>(?-i:[A-Z])[\w&.\-]*(?:\s+(?-i:[A-Z])[\w&.\-]*){0,4})['’]s?\s+(?P<mods>"
    + _MODIFIERS
    + r")subsidiar(?:y|ies),?\s+(?:(?:primarily|including|namely)\s+)?(?=(?-i:[A-Z]))",
    _I,
)
# "X, Y and Z are wholly-owned subsidiaries of W", "X and Y, each a wholly owned subsidiary of W".
LISTED_THEN_OWNED = re.compile(
    r"(?:\s+(?:are|were)\s+(?:all\s+|each\s+|both\s+)?|,\s+each\s+(?:a|an)\s+|,\s+(?:both|all)\s+)"
    r"(?P<mods>" + _MODIFIERS + r")subsidiar(?:y|ies)\s+of\s+",
    _I,
)
# "Union Pacific Corporation and its subsidiaries, including Union Pacific Railroad Company".
AND_ITS_SUBSIDIARIES = re.compile(
    r"\s+and\s+its\s+(?:(?:consolidated|wholly[- ]owned|operating|principal)\s+)*subsidiaries,?\s+"
    r"(?:including|primarily|principally|notably)\s+(?=(?-i:[A-Z]))",
    _I,
)
# "Southern Company … owns all of the outstanding common stock of Alabama Power, Georgia Power
# and Mississippi Power".
OWNS_ALL_OF = re.compile(
    r"\b(?:owns?|owned|holds?|held)\s+(?:,?\s*(?:directly\s+or\s+indirectly|directly|indirectly),?\s+)?"
    r"(?:all|100\s?%)\s+of\s+the\s+(?:issued\s+and\s+)?(?:outstanding\s+)?"
    r"(?:common\s+|voting\s+|capital\s+)?(?:stock|shares|equity(?:\s+interests?)?|membership\s+interests?|"
    r"partnership\s+interests?|interests?)\s+of\s+(?=(?-i:[A-Z]))",
    _I,
)
# "Our Financial Products segment consists primarily of Caterpillar Financial Services Corporation".
SEGMENT_CONSISTS_OF = re.compile(
    r"\b(?P<owner>our|its|the\s+company['’]s)\s+(?:(?-i:[A-Z])[\w&\-]*\s+){1,4}segment,?\s+"
    r"(?:which\s+)?(?:consists|is\s+comprised|comprises|is\s+composed|is\s+made\s+up)\s+"
    r"(?:(?:primarily|principally|mainly|largely|solely)\s+)?(?:of\s+)?(?=(?-i:[A-Z]))",
    _I,
)
# "Janssen Biotech, Inc., a Johnson & Johnson company": the parent named as the company's kind.
PARENT_COMPANY_APPOSITION = re.compile(
    r"(?:\s*\([^()]{0,40}\))?,\s+(?:a|an)\s+(?P<parent>(?-i:[A-Z])[\w&.\-’']*(?:\s+(?:&|and|(?-i:[A-Z])"
    r"[\w&.\-’']*)){0,4})\s+(?:company|group\s+company|subsidiary)\b",
    _I,
)
# "Alpha Ltd. and Beta GmbH, our wholly-owned subsidiaries, …": the list before, the filer after.
OUR_SUBSIDIARIES_AFTER = re.compile(
    r",\s+(?:(?:each|both|all)\s+)?(?:of\s+)?(?:which\s+are\s+)?(?:our|the\s+company['’]s)\s+(?P<mods>"
    + _MODIFIERS
    + r")subsidiaries\b",
    _I,
)
# An alias a list item carries after its name: "MGA Insurance Company, Inc. (“MGA”)".
ALIAS_AFTER = re.compile(r"^\s*\((?:the\s+|or\s+)?[“\"]?(?-i:[A-Z])[^()]{0,38}?[”\"]?\)", _I)


def plain_modifiers(mods: str | None) -> bool:
    """Do the words before "subsidiary" describe a subsidiary the owner has now ("wholly-owned
    finance"), not a former one or a clause ("that has a")?"""
    words = {w.strip(",").lower() for w in (mods or "").split()}
    return not words & _NOT_A_MODIFIER
