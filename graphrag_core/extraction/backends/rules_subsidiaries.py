"""The rules backend's ownership passes: subsidiaries named in prose, completed acquisitions and
Exhibit 21 rows (issue 22). A mixin of `RulesBackend`, kept apart so that each module stays
readable; the name readers it binds names with are the backend's own (`_Readers`).

What generalizes here is the shape of an ownership statement, not a list of cue strings: an
owner ("our", "its", a named parent, the filer and its subsidiaries), any descriptive words
before "subsidiary" that are not a former or hypothetical one, and a name or a list of names
(each may carry its alias in parentheses) right before or after; a completed acquisition by the
filer under its own name or a unit of it, or "our acquisition of X" when the sentence dates it
and weighs no pending deal. The patterns are in `graphrag_core.extraction.ownership`."""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping
from typing import Protocol

from graphrag_core.common.names import is_legal_form, name_key
from graphrag_core.extraction.backends import rules_cues as cues
from graphrag_core.extraction.backends.base import ChunkInput
from graphrag_core.extraction.backends.rules_readers import Sentence, sentence_end_stop
from graphrag_core.extraction.exhibit21 import exhibit21_table_rows
from graphrag_core.extraction.gazetteer import slot_name
from graphrag_core.extraction.grounding import Filer
from graphrag_core.extraction.ownership import (
    ALIAS_AFTER,
    AND_ITS_SUBSIDIARIES,
    COUNTED_SUBSIDIARIES,
    HOLDING_AFTER_NAME,
    HOLDING_COMPANY_OF,
    LISTED_THEN_OWNED,
    NAMED_AFTER_OWNER,
    NOT_DONE,
    OUR_SUBSIDIARIES_AFTER,
    OWNED_BY,
    OWNED_LINK,
    OWNS_ALL_OF,
    PARENT_COMPANY_APPOSITION,
    POSSESSIVE_OWNER,
    SEGMENT_CONSISTS_OF,
    WHICH_WE_ACQUIRED,
    acquisition_period,
    acquisitions,
    completed_after,
    dated_acquisitions,
    is_date_phrase,
    is_the_company_acquired,
    plain_modifiers,
)
from graphrag_core.extraction.triples import Relation, Triple

_SUB = Relation.SUBSIDIARY_OF


class _Readers(Protocol):
    """The name readers of `RulesBackend` these passes use."""

    @staticmethod
    def _triple(
        subject: str,
        relation: Relation,
        obj: str,
        sent: Sentence | None = None,
        *,
        evidence: str | None = None,
        period: str | None = None,
    ) -> Triple: ...

    @staticmethod
    def _filers_own(name: str, filer: Filer) -> bool: ...

    def _name_before(self, sent: Sentence, pos: int, filer: Filer) -> str | None: ...

    def _name_after(self, sent: Sentence, pos: int, filer: Filer) -> str | None: ...

    def _listed_right_after(self, sent: Sentence, offset: int, filer: Filer) -> list[str]: ...


def _parent_before(self: _Readers, sent: Sentence, pos: int, filer: Filer) -> str | None:
    """Who "its" (or an owner verb) at `pos` refers to: the nearest party before it, the filer
    (by name, "we", "the Company"), a company the gazetteer knows or a capitalized name; None
    when the nearest is none of them ("We compete with Globex and its subsidiary X": Globex)."""
    parties = [(e, filer.name) for s, e in filer.spans(sent.text) if e <= pos]
    parties += [(m.end, m.name) for m in sent.mentions if m.end <= pos]
    nearest = max(parties, key=lambda p: p[0]) if parties else None
    runs = [
        r
        for r in cues.CAPITAL_RUN.finditer(sent.text, 0, pos)
        if r.start() > 0
        and not is_date_phrase(r.group())
        and not filer.is_self(r.group())
        # the ", Inc." tail of a name before it is no nearer party ("Gamma Holdings, Inc.")
        and not all(is_legal_form(w) for w in r.group().split())
    ]
    if runs and (nearest is None or runs[-1].end() > nearest[0]):
        run = runs[-1].group()
        known = next((m.name for m in sent.mentions if m.end == runs[-1].end()), None)
        return known or (run if slot_name(run, False, 7) else None)
    return nearest[1] if nearest else None


_DEAL_WORDS = re.compile(
    r"\b(?:completed|closed|consummated|finalized|acquired|purchased|invested|spent|paid)\b", re.I
)
_HONORIFIC = re.compile(r"^(?:Mr|Ms|Mrs|Dr|Sir|Dame|Lord)\.?\s")


class SubsidiaryPasses:
    """SUBSIDIARY_OF from prose, acquisitions and Exhibit 21 rows."""

    def _subsidiaries(
        self: _Readers,
        filer: Filer,
        sent: Sentence,
        aliases: Mapping[str, str],
        previous: Sentence | None = None,
    ) -> list[Triple]:
        text = sent.text
        triples: list[Triple] = []
        for m in cues.OUR_SUBSIDIARY.finditer(text):
            # "our principal operating subsidiaries are X and Y"
            link = re.match(r"\s+(?:are|include|includes)\s+(?=[A-Z])", text[m.end() :])
            triples += [
                self._triple(name, Relation.SUBSIDIARY_OF, filer.name, sent)
                for name in self._listed_right_after(
                    sent, m.end() + (link.end() if link else 0), filer
                )
            ]
        # "The Company is the holding company for X", "we have one subsidiary, X"
        holdings = [
            m.end() for p in (HOLDING_COMPANY_OF, COUNTED_SUBSIDIARIES) for m in p.finditer(text)
        ]
        if "holding" in text:
            for _, e in filer.spans(text):
                after = HOLDING_AFTER_NAME.match(text, e)
                tail = text[e : after.start("verb")] if after else ""
                if after and all(is_legal_form(w) for w in tail.replace(",", " ").split()):
                    holdings.append(after.end())
        for at in holdings:
            held = self._listed_right_after(sent, at, filer) or [
                n for n in [self._name_after(sent, at, filer)] if n and n != filer.name
            ]
            triples += [
                self._triple(
                    sentence_end_stop(n.rstrip(",;: ")), Relation.SUBSIDIARY_OF, filer.name, sent
                )
                for n in held
            ]
        for m in cues.OUR_SUBSIDIARY_IS.finditer(text):
            named = self._name_after(sent, m.end(), filer)
            if named is not None and named != filer.name:
                triples.append(
                    self._triple(
                        sentence_end_stop(named.rstrip(",;: ")),
                        Relation.SUBSIDIARY_OF,
                        filer.name,
                        sent,
                    )
                )
        for m in cues.NAMED_SUBSIDIARY.finditer(text):
            name = m.group("name")
            if (
                name_key(name)
                and not re.match(r"^(?:Subsidiary|Company|Bank)$", name)
                and not cues.DEMONYM.match(name)
            ):
                triples.append(self._triple(name, Relation.SUBSIDIARY_OF, filer.name, sent))
        for parent in sent.mentions:
            own = cues.PARENTS_SUBSIDIARY.match(text[parent.end :])
            if own:
                parent_name = filer.name if filer.is_self(parent.name) else parent.name
                triples += [
                    self._triple(name, Relation.SUBSIDIARY_OF, parent_name, sent)
                    for name in self._listed_right_after(sent, parent.end + own.end(), filer)
                ]
        for sub in sent.mentions:
            if cues.PRINCIPAL_SUBSIDIARY.match(text[sub.end :]):
                triples.append(self._triple(sub.name, Relation.SUBSIDIARY_OF, filer.name, sent))
        for link in _scan(OWNED_LINK, text, ("subsidiar", "operating")):
            # "X, a wholly owned subsidiary of Y", "X (“Alias”) is the principal operating company
            # of Y": the name right before the link, the parent right after it.
            if not plain_modifiers(link.group("mods")):
                continue
            before = cues.INTERJECTION_TAIL.sub("", text[: link.start()])
            sub_name = self._name_before(sent, len(before), filer)
            if sub_name is None or is_date_phrase(sub_name):
                continue
            if link.group("of") is None:
                # the parent unsaid ("…, a wholly-owned subsidiary, with facilities…", "X became
                # our subsidiary"): the filer
                article = link.group("article").lower().replace("’", "'")
                if link.group("appositive") or article in ("our", "the company's"):
                    triples.append(self._triple(sub_name, Relation.SUBSIDIARY_OF, filer.name, sent))
                continue
            named_parent = self._name_after(sent, link.end(), filer)
            if named_parent is not None:
                triples.append(self._triple(sub_name, Relation.SUBSIDIARY_OF, named_parent, sent))
        # "Our main railroad competitor is X. Its primary subsidiary, Y, …": "Its" is the company
        # the previous sentence ended on.
        its = cues.ITS_SUBSIDIARY.match(text)
        if its and previous is not None:
            its_parent = self._name_before(previous, len(previous.text.rstrip(' \n.)”"')), filer)
            if its_parent is not None:
                triples += [
                    self._triple(name, Relation.SUBSIDIARY_OF, its_parent, sent)
                    for name in self._listed_right_after(sent, its.end(), filer)
                ]
        # A parent written out before its subsidiaries ("Premier's wholly owned subsidiaries, X
        # and Y"; "Alphabet's subsidiary, Google LLC"); the filer's own mentions are not in
        # `mentions`, so its name is recognised here.
        for m in _scan(POSSESSIVE_OWNER, text, ("subsidiar",)):
            if not plain_modifiers(m.group("mods")):
                continue
            written = re.sub(
                r"^(?:The|A|An)\s+", "", aliases.get(m.group("parent"), m.group("parent"))
            )
            if filer.is_self(written):
                owner: str | None = filer.name
            else:
                owner = next(
                    (x.name for x in sent.mentions if x.end == m.end("parent")),
                    written if slot_name(written, m.start() == 0, 7) else None,
                )
            if owner is None or is_date_phrase(owner):
                continue
            triples += [
                self._triple(name, Relation.SUBSIDIARY_OF, owner, sent)
                for name in _listed_with_aliases(self, sent, m.end(), filer)
                if name != owner
            ]
        triples += _owned_lists(self, filer, sent)
        return triples

    def _acquired(self: _Readers, filer: Filer, sent: Sentence) -> list[Triple]:
        """A company the filer completed the acquisition of is its subsidiary, as of the period
        the sentence dates it in (see `graphrag_core.extraction.ownership`)."""
        text = sent.text
        # where the filer is named, needed only before a deal verb (finding it tokenizes the text)
        filer_ends = (
            frozenset(e for _, e in filer.spans(text)) if _DEAL_WORDS.search(text) else frozenset()
        )
        found = [(d.name_start, d.period, True) for d in acquisitions(text, filer_ends)]
        found_names: list[Triple] = []
        found += dated_acquisitions(text)
        for m in WHICH_WE_ACQUIRED.finditer(text):
            # "X, which we acquired in 2021": the name before, dated after.
            name = self._name_before(sent, m.start(), filer)
            if name is not None and not is_date_phrase(name) and not NOT_DONE.search(text):
                triples_before = self._triple(
                    name, _SUB, filer.name, sent, period=acquisition_period(text[m.end() :])
                )
                found_names.append(triples_before)
        triples = found_names
        for at, period, done in found:
            name = self._name_after(sent, at, filer)
            if name is not None and re.search(r"['’]s?$", name):
                continue  # a part of a company ("Pfizer's consumer health business")
            if name is not None:
                name = sentence_end_stop(name.rstrip(",;: "))
            if (
                name is None
                or name == filer.name
                or filer.is_self(name)
                or self._filers_own(name, filer)
            ):
                continue
            mention = next((m for m in sent.mentions if m.start == at and m.name == name), None)
            end = mention.end if mention else at + len(name)
            if text[at:end] != name and mention is None:
                continue  # the run was cut: not a name as written
            if not is_the_company_acquired(text, end):
                continue
            closed, year_after = completed_after(text, end)
            if not done and not closed:
                continue
            period = period or year_after
            if period is None:
                period = acquisition_period(text)
            triples.append(self._triple(name, _SUB, filer.name, sent, period=period))
        return triples

    def _subsidiary_rows(self: _Readers, chunk: ChunkInput, filer: Filer) -> list[Triple]:
        """An Exhibit 21 table: every row names a subsidiary of the filer (see `exhibit21`)."""
        return [
            self._triple(name, _SUB, filer.name, evidence=row)
            for name, row in exhibit21_table_rows(chunk.text)
            if not cues.EX21_HEADER.search(name)
        ]


def _names_before(self: _Readers, sent: Sentence, end: int, filer: Filer) -> list[str]:
    """The names listed from the sentence's start (after an opening phrase) to `end`, each with
    its alias in parentheses if it has one ("Alabama Power, Georgia Power and Mississippi
    Power"); none unless every item is a name or a generic noun phrase ("the traditional electric
    operating companies"), which is passed over."""
    at = cues.INTRO.match(sent.text)
    start = at.end() if at else 0
    segment = re.sub(r"\s*\([^()]{0,60}\)", "", sent.text[start:end])
    items = [i.strip() for i in re.split(r",\s*(?:and\s+)?|\s+and\s+", segment) if i.strip()]
    names = []
    for k, item in enumerate(items):
        if re.fullmatch(r"(?:the|The)\s+(?:[a-z][\w\-]*\s+){0,5}[a-z][\w\-]*", item):
            continue
        item = re.sub(r"^(?:The)\s+", "", item)
        known = any(m.name == item for m in sent.mentions)
        if not (known or slot_name(item, k == 0 and start == 0, 7)):
            return []
        if filer.is_self(item) or self._filers_own(item, filer):
            return []
        names.append(item)
    return names


def _scan(pattern: re.Pattern[str], text: str, words: tuple[str, ...]) -> Iterator[re.Match[str]]:
    """`pattern`'s matches, scanned for only where one of the words it needs is in the text: a
    substring test is far cheaper than a pattern that fails at every position."""
    low = text.lower()
    return pattern.finditer(text) if any(w in low for w in words) else iter(())


def _names_ending_at(self: _Readers, sent: Sentence, end: int, filer: Filer) -> list[str]:
    """The names of a list that ends at `end` ("Alpha Ltd., Beta GmbH and Gamma S.A."), read
    backwards from it while names are joined by commas or "and"."""
    names: list[str] = []
    pos = end
    while pos > 0:
        before = re.sub(r"\s*\([^()]{0,40}\)\s*$", "", sent.text[:pos])
        name = self._name_before(sent, len(before), filer)
        if name is None or is_date_phrase(name):
            break
        start = before.rfind(name)
        if start < 0:
            break
        names.insert(0, name)
        joiner = re.search(r"(?:,\s*(?:and\s+)?|\s+and\s+|\s*&\s*)$", sent.text[:start])
        if joiner is None:
            break
        pos = joiner.start()
    return names


def _is_company_name(name: str, sent: Sentence) -> bool:
    """A name the gazetteer knows or one with a legal form: what a segment may consist of."""
    return any(m.name == name for m in sent.mentions) or is_legal_form(
        name.replace(",", " ").split()[-1]
    )


def _owned_lists(self: _Readers, filer: Filer, sent: Sentence) -> list[Triple]:
    """Subsidiaries an owner names in a list: after "our/its … subsidiaries", after "P and its
    subsidiaries, including", after "owns all of the stock of", or before "are wholly-owned
    subsidiaries of P"."""
    text = sent.text
    out: list[Triple] = []

    def after(offset: int) -> list[str]:
        return [sentence_end_stop(n) for n in _listed_with_aliases(self, sent, offset, filer)]

    for m in _scan(NAMED_AFTER_OWNER, text, ("subsidiar",)):
        if not plain_modifiers(m.group("mods")):
            continue
        owner = (
            filer.name
            if m.group("owner").lower() != "its"
            else _parent_before(self, sent, m.start(), filer)
        )
        if owner is not None:
            out += [self._triple(n, _SUB, owner, sent) for n in after(m.end()) if n != owner]
    for m in _scan(AND_ITS_SUBSIDIARIES, text, ("subsidiar",)):
        owner = _parent_before(self, sent, m.start(), filer)
        if owner is not None:
            out += [self._triple(n, _SUB, owner, sent) for n in after(m.end()) if n != owner]
    for m in _scan(SEGMENT_CONSISTS_OF, text, ("segment",)):
        # "Our Financial Products segment consists primarily of Caterpillar Financial Services
        # Corporation (Cat Financial)": a company that makes up a segment of the filer's
        if m.group("owner").lower() != "its" or _parent_before(self, sent, m.start(), filer) == (
            filer.name
        ):
            out += [
                self._triple(n, _SUB, filer.name, sent)
                for n in after(m.end())
                if _is_company_name(n, sent)
            ]
    for m in _scan(OWNS_ALL_OF, text, ("own", "held", "hold")):
        owner = _parent_before(self, sent, m.start(), filer)
        if owner is not None:
            out += [self._triple(n, _SUB, owner, sent) for n in after(m.end()) if n != owner]
    for m in _scan(OWNED_BY, text, ("owned", "acquired")):
        # "Alpha Bank is wholly owned by Acme", "Brightline was acquired by the Company in 2022"
        owner = self._name_after(sent, m.end(), filer)
        name = self._name_before(sent, m.start(), filer)
        acquired = "acquired" in m.group().lower()
        if (
            owner is None
            or name is None
            or name == owner
            or is_date_phrase(name)
            or _HONORIFIC.match(owner)
        ):
            continue
        if acquired and (owner != filer.name or NOT_DONE.search(text)):
            continue  # a deal is the filer's to state; another buyer's is not read here
        period = acquisition_period(text) if acquired else None
        out.append(self._triple(name, _SUB, owner, sent, period=period))
    for m in _scan(PARENT_COMPANY_APPOSITION, text, ("company", "subsidiar")):
        written = m.group("parent")
        owner = filer.name if filer.is_self(written) else None
        owner = owner or next((x.name for x in sent.mentions if x.end == m.end("parent")), None)
        name = self._name_before(sent, m.start(), filer)
        if owner is not None and name is not None and name != owner and not is_date_phrase(name):
            out.append(self._triple(name, _SUB, owner, sent))
    for m in _scan(OUR_SUBSIDIARIES_AFTER, text, ("subsidiar",)):
        if plain_modifiers(m.group("mods")):
            out += [
                self._triple(n, _SUB, filer.name, sent)
                for n in _names_ending_at(self, sent, m.start(), filer)
            ]
    for m in _scan(LISTED_THEN_OWNED, text, ("subsidiar",)):
        if not plain_modifiers(m.group("mods")):
            continue
        parent = self._name_after(sent, m.end(), filer)
        if parent is None:
            continue
        out += [
            self._triple(n, _SUB, parent, sent)
            for n in _names_before(self, sent, m.start(), filer)
            if n != parent
        ]
    return out


def _listed_with_aliases(self: _Readers, sent: Sentence, offset: int, filer: Filer) -> list[str]:
    """`_listed_right_after`, reading on past each item's alias in parentheses ("X, Inc.
    (“X”), Y Corp. (“Y”) and Z")."""
    names: list[str] = []
    position = offset
    while True:
        found = self._listed_right_after(sent, position, filer)
        if not found:
            break
        names += found
        last = found[-1]
        at = sent.text.find(last, position)
        if at < 0:
            break
        position = at + len(last)
        alias = ALIAS_AFTER.match(sent.text[position:])
        if alias is None:
            break
        position += alias.end()
        joiner = re.match(r"\s*(?:,\s*(?:and\s+)?|and\s+|&\s+)", sent.text[position:])
        if joiner is None:
            break
        position += joiner.end()
    if not names:
        single = self._name_after(sent, offset, filer)
        if single is not None and single != filer.name and name_key(single):
            names = [sentence_end_stop(single.rstrip(",;: "))]
    return names
