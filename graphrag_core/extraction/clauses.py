"""Which clause of a sentence carries a relation, and the cues that change what it says there.

A sentence in a filing often holds several statements: "Globally, financial institutions may
issue both Mastercard- and Visa-branded payment products, and we compete with Visa for business"
states a fact ("we compete with Visa") next to a possibility ("may issue"). The gates judge a
relation on the clause that carries it: the clause that names its counterparty (its anchor), not
on any cue anywhere in the sentence.

Clauses are cut at semicolons, at a comma before a conjunction that starts a new clause
(", and we", ", which", ", while"), and around parentheses (a parenthetical is a clause of its
own: "(including those at our wholly-owned subsidiaries X and Y)"). A clause opened by a
conditional ("If", "Unless", "To the extent") is conditional; so is every clause of a sentence
whose main verb is a modal ("could", "may", "might", "would").
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

Span = tuple[int, int]

# A comma before one of these starts a new clause ("…, and we compete with Visa").
_CLAUSE_SUBJECT = (
    r"(?:we|our|us|it|its|they|their|these|this|those|there|he|she|the\s+company|the\s+corporation|"
    r"the\s+partnership|such|each|any|all|none|no|many|some|certain)"
)
_BOUNDARY = re.compile(
    r";\s*"
    rf"|,\s+(?=(?:and|but|or|yet|so)\s+{_CLAUSE_SUBJECT}\b)"
    r"|,\s+(?=(?:while|whereas|although|though|which|who|whose|because|since|unless|if|when|"
    r"where|except|however|as\s+a\s+result|in\s+which|so\s+that|provided\s+that|even\s+if)\b)"
    r"|:\s+(?=[A-Z•])"
    r"|\s+(?=(?:unless|because|although|though|whereas|provided\s+that)\b)"
    r"|(?<![,;(])\s+(?=if\b(?!\s+(?:any|not|applicable|so)\b))",
    re.I,
)
# A clause that opens with one of these states a condition, not a fact.
_CONDITIONAL_OPENING = re.compile(
    r"\W*(?:if|unless|should|whether|in\s+the\s+event|to\s+the\s+extent|in\s+case|assuming|"
    r"even\s+if|provided\s+that|were\s+(?:we|it|they))\b",
    re.I,
)

# -- cues ------------------------------------------------------------------------------------

# Possibility, condition or doubt: the relation may not hold.
HYPOTHETICAL = re.compile(
    r"\b(?:if|unless|could|might|would|were\s+to|in\s+the\s+event|potential(?:ly)?|possib(?:le|ly|ility)|"
    r"no\s+assurance|cannot\s+(?:assure|guarantee|predict|be\s+certain)|not\s+guarantee|"
    r"(?:un)?able\s+to\s+(?:obtain|secure|find)|to\s+the\s+extent|(?-i:may))\b",
    re.I,
)
# Denials. "no longer" and "never" deny whatever the mood; the others deny a fact but, inside a
# condition ("if a supplier does not deliver"), belong to the hypothesis.
STRONG_NEGATION = re.compile(r"\b(?:no\s+longer|ceased\s+to|never)\b", re.I)
NEGATION = re.compile(
    r"\b(?:(?:do|does|did|is|are|was|were|has|have|had|will|would|should|shall|can|could|may|might)"
    r"\s+not|(?:don|doesn|didn|isn|aren|wasn|weren|hasn|haven|hadn|won|wouldn|shouldn|can)['’]t|"
    r"(?:has|have|had)\s+no|there\s+(?:is|are|was|were)\s+no|none\s+of|neither|nor)\b"
    r"|^\W*no\s+(?!longer\b)(?:other\s+|single\s+|individual\s+)?\w+",
    re.I,
)
# Phrases with a "not" that deny nothing.
NOT_A_DENIAL = re.compile(
    r"\bnot\s+limited\s+to\b|\bnot\s+only\b|\bwhether\s+or\s+not\b|\bif\s+not\b|\bnot\s+yet\s+determinable\b",
    re.I,
)
# A risk is denied only when its materiality or effect is ("will not have a material adverse
# effect", "did not have a material impact", "no material effect"): a risk described by a
# negative event ("customers may not renew") is still a risk.
RISK_DENIAL = re.compile(
    r"\b(?:not|no)\s+(?:\w+\s+){0,4}?(?:material|significant)(?:ly)?\b(?:\s+\w+){0,3}?\s*"
    r"(?:effect|impact|adverse|affect|change|dependenc\w*|risk)"
    r"|\b(?:has|have|had)\s+no\s+(?:single\s+)?\w+\s+that\b[^.]*\bmaterial\b"
    r"|\bnot\s+(?:be\s+)?material\b",
    re.I,
)
# Forward-looking language, for relations that must be facts (the strict set: an estimate about
# a past period, "is estimated to represent 10% of fiscal 2025 revenue", is not a plan).
FORWARD = re.compile(
    r"\bwill\b|\bshall\b(?!\s+(?:mean|refer\s+to|include|be\s+deemed)\b)"
    r"|\b(?:expects?|expecting|anticipates?|anticipating)\b"
    r"|\b(?:intends?|intending|plans?|planning|aims?|seeks?)\s+to\b"
    r"|\b(?:is|are|be|been|remains?)\s+(?:currently\s+|now\s+|also\s+)?"
    r"(?:expected|anticipated|projected|forecast(?:ed)?|scheduled|planned|intended)\s+to\b"
    r"|\b(?:we|management|the\s+company)\s+(?:currently\s+|now\s+|also\s+|still\s+)?"
    r"(?:project|forecast|target)s?\b"
    r"|\b(?:are|is|am)\s+(?:currently\s+)?(?:projecting|forecasting|targeting)\b"
    r"|\bgoing\s+forward\b|\bin\s+the\s+future\b|\bfor\s+the\s+foreseeable\s+future\b"
    r"|\bnext\s+(?:fiscal\s+)?(?:year|quarter|twelve\s+months|12\s+months)\b",
    re.I,
)
# Forward-looking language for a figure: the strict set, plus estimates, targets, outlook and
# guidance ("capital expenditures are estimated to be approximately $15 million in 2025").
FORWARD_FIGURE = re.compile(
    FORWARD.pattern
    # each word in a forward use only: "is estimated to be", not "are estimated using"; "our
    # target of", not "target markets"; "full-year guidance", not "the FASB issued guidance"
    + r"|\b(?:estimated|estimates?)\s+(?:to\s+be|to\s+(?:total|reach|range)|at)\b"
    r"|\b(?:is|are)\s+(?:currently\s+)?estimated\s+(?:to|at)\b|\b(?:we|management)\s+estimates?\b"
    r"|\bthe\s+estimated\s+(?:total\s+)?(?:costs?|charges?|expenses?|spending|payments?|savings)\b"
    r"|\b(?:our|its)\s+(?:\w+\s+){0,2}targets?\s+(?:of|is|are|for)\b|\btargets?\s+of\s+(?:\$|\d)"
    r"|\btarget(?:ed|ing)?\s+(?:to|at)\b|\btarget\s+range\b"
    r"|\b(?:our|the\s+company['’]s)\s+(?:outlook|guidance)\b"
    r"|\b(?:(?:19|20)\d{2}|fiscal|financial|full[- "
    r"]year|annual|quarterly)\s+(?:outlook|guidance|forecasts?)\b"
    r"|\b(?:outlook|guidance|forecasts?)\s+(?:for|of)\s+(?:the\s+)?(?:(?:19|20)\d{2}|fiscal|full|next|first|second|third|fourth)\b"
    r"|\bprojected\s+(?:to|at)\b",
    re.I,
)
# Safe-harbor and forward-looking-statement legends: lists of every conceivable factor, said so
# that no one can sue, not risks the company singles out.
BOILERPLATE = re.compile(
    r"forward[- "
    r"]looking\s+statements?|private\s+securities\s+litigation\s+reform\s+act|safe\s+harbor"
    r"|cause\s+(?:our\s+)?actual\s+results\s+to\s+differ|actual\s+results\s+(?:may|could|might)\s+differ"
    r"|(?:undertakes?|assumes?)\s+no\s+obligation\s+to\s+(?:update|revise)"
    r"|risks\s+and\s+uncertainties\s+(?:include|are\s+detailed|that\s+could)"
    r"|does\s+not\s+constitute\s+an\s+offer",
    re.I,
)


@dataclass(frozen=True)
class Clause:
    start: int
    end: int
    conditional: bool  # opened by "if", "unless", "to the extent"...


def _parentheticals(sentence: str) -> list[Span]:
    """(start, end) of top-level parentheses, brackets excluded, contents only."""
    spans: list[Span] = []
    depth = 0
    opened = 0
    for i, ch in enumerate(sentence):
        if ch == "(":
            if depth == 0:
                opened = i + 1
            depth += 1
        elif ch == ")" and depth:
            depth -= 1
            if depth == 0:
                spans.append((opened, i))
    return spans


def clauses(sentence: str) -> list[Clause]:
    """The clauses of one sentence; a parenthetical is a clause of its own."""
    inner = _parentheticals(sentence)
    # The outer stream: parenthetical contents blanked out, so offsets stay those of `sentence`.
    outer = list(sentence)
    for s, e in inner:
        outer[s:e] = " " * (e - s)
    stream = "".join(outer)
    pieces: list[Span] = []
    start = 0
    for m in _BOUNDARY.finditer(stream):
        pieces.append((start, m.start()))
        start = m.end()
    pieces.append((start, len(stream)))
    out = [
        Clause(s, e, _CONDITIONAL_OPENING.match(sentence, s) is not None)
        for s, e in pieces
        if stream[s:e].strip()
    ]
    # A leading conditional ("If X, Y") runs to the first comma: what follows is its consequent.
    for k, cl in enumerate(out):
        text = stream[cl.start : cl.end]
        if cl.conditional and "," in text:
            cut = cl.start + text.index(",")
            out[k : k + 1] = [Clause(cl.start, cut, True), Clause(cut + 1, cl.end, False)]
            break
    out += [
        Clause(s, e, _CONDITIONAL_OPENING.match(sentence, s) is not None)
        for s, e in inner
        if sentence[s:e].strip()
    ]
    return sorted(out, key=lambda c: (c.start, c.end))


def clauses_at(sentence: str, anchors: Iterable[Span]) -> list[Clause]:
    """The clauses that hold any of `anchors` (offsets in `sentence`); all of them when none does.

    A parenthetical holding an anchor wins over the clause around it."""
    all_clauses = clauses(sentence)
    anchors = list(anchors)
    hit: list[Clause] = []
    for a, b in anchors:
        holding = [c for c in all_clauses if c.start <= a and b <= c.end]
        # A parenthetical inside a clause holds the anchor more closely than the clause does.
        chosen = (
            [min(holding, key=lambda c: c.end - c.start)]
            if holding
            else [
                c
                for c in all_clauses
                if c.start < b and a < c.end  # an anchor across clauses: all of them
            ]
        )
        hit += [c for c in chosen if c not in hit]
    return hit or all_clauses


@dataclass(frozen=True)
class Mood:
    """What the clauses carrying a relation say about it."""

    negated: bool  # a clause carrying it denies it as a fact
    hypothetical: bool  # a clause carrying it states a possibility or a condition
    forward: bool  # strict forward-looking language (plans, expectations)
    forward_figure: bool  # forward-looking language for a figure (also estimates, targets)
    risk_denied: bool  # the sentence denies that something has a material effect


def _text(sentence: str, clause: Clause) -> str:
    return NOT_A_DENIAL.sub(" ", sentence[clause.start : clause.end])


# "There can be no assurance that X will not have a material effect": a doubt, not a denial.
_DOUBT = re.compile(
    r"\b(?:no\s+(?:assurance|guarantee)|cannot\s+(?:assure|guarantee|predict)|not\s+guarantee|if|unless)\b",
    re.I,
)


def risk_denied(sentence: str) -> bool:
    """Does the sentence deny a material effect ("should not have a material adverse effect")?"""
    text = NOT_A_DENIAL.sub(" ", sentence)
    for m in RISK_DENIAL.finditer(text):
        if _DOUBT.search(text, 0, m.start()) is None:
            return True
    return False


def mood(sentence: str, anchors: Sequence[Span]) -> Mood:
    """The mood of the relation anchored at `anchors` in `sentence`."""
    held = clauses_at(sentence, anchors)
    negated = hypothetical = forward = forward_figure = False
    for clause in held:
        text = _text(sentence, clause)
        conditional = clause.conditional or HYPOTHETICAL.search(text) is not None
        hypothetical |= conditional
        if STRONG_NEGATION.search(text) and not clause.conditional:
            negated = True
        elif NEGATION.search(text) and not conditional:
            negated = True
        forward |= FORWARD.search(text) is not None
        forward_figure |= FORWARD_FIGURE.search(text) is not None
    return Mood(
        negated, hypothetical and not negated, forward, forward_figure, risk_denied(sentence)
    )


def paragraph_of(text: str, start: int, end: int) -> Span:
    """The paragraph of `text` (blank-line separated) around [start, end)."""
    a = text.rfind("\n\n", 0, start)
    b = text.find("\n\n", end)
    return (0 if a < 0 else a + 2), (len(text) if b < 0 else b)


def is_boilerplate(text: str, start: int, end: int) -> bool:
    """Is [start, end) of a chunk inside a safe-harbor or forward-looking-statements legend?"""
    a, b = paragraph_of(text, start, end)
    return BOILERPLATE.search(text[a:b]) is not None
