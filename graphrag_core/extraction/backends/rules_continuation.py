"""Relations stated across two sentences: a list that continues the sentence before it.

"We face intense competition in each of our markets. Examples include X, Y and Z." The second
sentence has no relation word of its own; its lead-in ("Examples include", "These include",
"Such suppliers include", "Among them are", a paragraph after "…, including:") makes it the
list of the parties the first sentence spoke of. The names take the first sentence's relation,
with the filer as the other party, only when the first sentence

- speaks of one kind of relation: a cue of the rules, else relation nouns or verbs of one kind
  ("competition", "contract manufacturers", "distributors"); a noun of another kind only as
  what is competed with ("we compete with other suppliers"), never beside it ("we compete with
  X and sell to distributors" gives nothing),
- is the filer's, named or implied: no organisation, possessive ("Acme's customers") or
  relation noun of another party ("customers of Acme include …") before its relation word,
  and no capitalised run of two words or more opening it as its subject,
- states a fact: not denied, not supposed ("we do not compete with banks. Examples include …").

The evidence is both sentences, a verbatim span of the chunk, so that the gates read the
relation word and the names in one quote.
"""

from __future__ import annotations

import re

from graphrag_core.extraction.backends.rules_readers import cue_relation
from graphrag_core.extraction.clauses import mood
from graphrag_core.extraction.gazetteer import Mention
from graphrag_core.extraction.grounding import GENERIC_FIRST_WORDS
from graphrag_core.extraction.relation_candidates import (
    ANOTHER_PARTYS,
    CAPITALISED,
    NOT_NAMES,
    RUN_IN_HEADING,
)
from graphrag_core.extraction.triples import Relation

_I = re.I
# Nouns of the parties a relation joins the filer to, and the verbs that say it, by relation.
_KINDS: tuple[tuple[Relation, re.Pattern[str]], ...] = (
    (Relation.COMPETES_WITH, re.compile(r"\b(?:compet(?:e|es|ed|ing|itors?|ition)|rivals?)\b", _I)),
    (
        Relation.SUPPLIES,
        re.compile(
            r"\b(?:suppliers?|vendors?|foundr(?:y|ies)|licensors?|(?:contract|third[- ]party)\s+"
            r"manufacturers?|(?:service|cloud|hosting|logistics)\s+providers?)\b",
            _I,
        ),
    ),
    (
        Relation.CUSTOMER_OF,
        re.compile(
            r"\b(?:customers?|clients?|distributors?|wholesalers?|retailers?|resellers?|"
            r"bottlers?|lessees?|licensees?)\b",
            _I,
        ),
    ),
    (Relation.SUBSIDIARY_OF, re.compile(r"\bsubsidiar(?:y|ies)\b", _I)),
)
# What opens a continuation; "are"/"is" only before a name ("Among them are Acme …"), so that
# "These companies are larger than we are" is not read as a list.
_NAME_NEXT = r"(?=\s*:?\s*(?:the\s+)?(?-i:[A-Z]))"
_PARTY_NOUNS = (
    r"competitors|rivals|companies|firms|suppliers|vendors|manufacturers|foundries|licensors|"
    r"customers|clients|distributors|wholesalers|retailers|resellers|bottlers|lessees|licensees|"
    r"subsidiaries|entities|parties|providers|partners"
)
CONTINUES = re.compile(
    r"^\W*(?:"
    r"(?:(?:notable|other|some|recent|key|significant|principal)\s+)?examples"
    rf"(?:\s+of\s+(?:these|such|them|which|those)(?:\s+(?:{_PARTY_NOUNS}))?)?\s+"
    rf"(?:include|includes|included|(?:are|were){_NAME_NEXT})"
    r"|(?:these|they|those)\s+include"
    rf"|(?:these|such|those)\s+(?:\w+\s+)?(?:{_PARTY_NOUNS})\s+"
    rf"(?:include|includes|consist\s+of|(?:are|were){_NAME_NEXT})"
    r"|among\s+(?:them|these|those|others|which|the\s+(?:largest|most\s+significant))\s+"
    rf"(?:include|(?:are|is|were){_NAME_NEXT})"
    rf"|(?:some|several|many|most)\s+of\s+(?:them|these|which)\s+(?:include|(?:are){_NAME_NEXT})"
    r")\b\s*:?",
    _I,
)
# How far after "compete with" a relation noun names the competitors ("other suppliers of").
_COMPETITOR_NOUN = 30
# A sentence that opens a list in the paragraph after it ("…, including:").
_LIST_COLON = re.compile(
    r"\b(?:including|include[sd]?|such\s+as|are|as\s+follows|the\s+following)\s*:\s*$", _I
)


def relation_kinds(sentence: str) -> list[tuple[Relation, int]]:
    """(relation, where its first word is) for each kind of relation the sentence's words name."""
    out = []
    for relation, pattern in _KINDS:
        m = pattern.search(sentence)
        if m:
            out.append((relation, m.start()))
    return out


def _competitor_noun(sentence: str, relation: Relation) -> bool:
    """Is every word of `relation` in the sentence the object of a word of competition ("we
    compete with other suppliers", "competition from large retailers")?"""
    compete = [m.end() for m in dict(_KINDS)[Relation.COMPETES_WITH].finditer(sentence)]
    return all(
        any(0 <= m.start() - end <= _COMPETITOR_NOUN for end in compete)
        for m in dict(_KINDS)[relation].finditer(sentence)
    )


def _anothers(sentence: str, before: int, mentions: tuple[Mention, ...]) -> bool:
    """Does a party other than the filer come before the relation word at `before`, or own a
    relation noun or a possessive anywhere in the sentence?"""
    if any(m.start < before for m in mentions) or ANOTHER_PARTYS.search(sentence):
        return True
    for run in CAPITALISED.finditer(sentence, 0, before):
        words = run.group().split()
        first = words[0].lower()
        if len(words) < 2 or first in NOT_NAMES or first in GENERIC_FIRST_WORDS:
            continue
        if run.start() == 0 and RUN_IN_HEADING.match(sentence, run.end()):
            continue  # "Distribution Partners – We sell through …": a run-in heading
        return True
    return False


def continued_relation(sentence: str, mentions: tuple[Mention, ...]) -> Relation | None:
    """The relation a list after `sentence` continues, or None (see the module doc).
    `mentions`: the sentence's organisation mentions other than the filer."""
    relation = cue_relation(sentence)
    kinds = relation_kinds(sentence)
    if relation is None:
        if len(kinds) != 1:
            return None
        relation = kinds[0][0]
    elif any(r != relation and not _competitor_noun(sentence, r) for r, _ in kinds):
        return None  # "we compete with X and sell to distributors": which list follows?
    at = min((where for r, where in kinds if r == relation), default=len(sentence))
    if _anothers(sentence, at, mentions):
        return None
    m = mood(sentence, [(0, len(sentence))])
    if m.negated or m.hypothetical:
        return None
    return relation


def continues(sentence: str) -> re.Match[str] | None:
    """The lead-in that makes `sentence` the list of the sentence before it, if any."""
    return CONTINUES.match(sentence)


def opens_list(sentence: str) -> bool:
    """Does the sentence end on a list lead-in and a colon ("…, including:")?"""
    end = sentence.rstrip()
    return end.endswith(":") and _LIST_COLON.search(end, max(len(end) - 40, 0)) is not None


def has_own_relation(sentence: str) -> bool:
    """Does the continuation name a relation itself ("These competitors include X": its own cue
    binds it; "Examples include our distributors …" after a sentence on competition: another)?"""
    return bool(relation_kinds(sentence))
