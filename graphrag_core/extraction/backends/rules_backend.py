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

import json
import re
import time
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path

from graphrag_core.common.ids import content_hash, sha256_bytes
from graphrag_core.common.names import name_key
from graphrag_core.extraction.backends import rules_continuation as continuation
from graphrag_core.extraction.backends import rules_cues as cues
from graphrag_core.extraction.backends.base import ChunkInput, RawResult
from graphrag_core.extraction.backends.rules_readers import (
    Sentence,
    by_filer,
    figure_after,
    filer_subject,
    guided_metrics,
    heading_above,
    lead_in_relation,
    name_runs,
    percent_value,
    period_of,
    unique_traced,
)
from graphrag_core.extraction.backends.rules_subsidiaries import SubsidiaryPasses
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
from graphrag_core.extraction.ownership import exhibit21_names
from graphrag_core.extraction.trade_relations import (
    HOSTING,
    TRADE_WORDS,
    organisation_at,
    organisation_before,
    trade_cues,
    without_full_stop,
)
from graphrag_core.extraction.triples import Relation, Triple
from graphrag_core.text.sentences import sentence_spans

RULES_VERSION = "rules-v2"

# Method codes: which rule family stated a triple (validated_triples' `method`). Stable, short,
# one per family; a learned triple is `learned`, an LLM's carries its backend's name.
EXHIBIT21 = "rule:exhibit21"  # a row of the subsidiaries exhibit
LEAD_IN = "rule:lead_in"  # an item of a list a lead-in opened ("Our competitors include:")
CONTINUATION = "rule:continuation"  # a list continuing the sentence before it (rules_continuation)


def tag(method: str, triples: list[Triple]) -> list[tuple[Triple, str]]:
    return [(t, method) for t in triples]


def traced_payload(traced: Iterable[tuple[Triple, str]]) -> dict:
    """The reply's JSON with each triple's method beside its fields (the lenient reader keeps
    it; `Extraction`, the contract with a model, has no such field)."""
    return {"triples": [{**t.model_dump(mode="json"), "method": m} for t, m in traced]}


def rules_sources() -> list[Path]:
    """The files whose content the rules' version hashes: every rules module of this folder (a
    new one is covered without being listed), the shared readers they call, how a chunk's list
    lead-in is carried from the chunk before, and the lexicons. A cached extraction of older
    rules is then never taken for the current rules' output."""
    here = Path(__file__).parent.parent
    return [
        *sorted(Path(__file__).parent.glob("rules*.py")),
        here / "gazetteer.py",
        here / "headings.py",
        here / "ownership.py",
        here / "exhibit21.py",
        here / "lead_ins.py",
        here / "lexicon" / "companies.txt",
        here / "lexicon" / "jurisdictions.txt",
    ]


class RulesBackend(SubsidiaryPasses):
    """Deterministic extraction with a gazetteer and cue patterns; no model server."""

    name = "rules"
    model = RULES_VERSION
    cacheable = False  # recomputing is cheaper than reading a cache entry back

    def __init__(self, gazetteer: Gazetteer):
        self.gazetteer = gazetteer
        # The version changes with the rules' code and with the gazetteer they read.
        sources = [sha256_bytes(module.read_bytes()) for module in rules_sources()]
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
        raw = json.dumps(traced_payload(self.traced(chunk)), ensure_ascii=False)
        # No request is made (attempts 0); the latency is the rules' own time on the chunk.
        return RawResult(
            raw_output=raw, attempts=0, latency_ms=(time.perf_counter() - started) * 1000
        )

    # -----------------------------------------------------------------------------------------

    def triples(self, chunk: ChunkInput) -> list[Triple]:
        return [t for t, _ in self.traced(chunk)]

    def traced(self, chunk: ChunkInput) -> list[tuple[Triple, str]]:
        """The chunk's triples, each with the code of the rule family that stated it
        (`METHODS`): what validated_triples and the graph's evidence keep as `method`."""
        filer = Filer(chunk.company, chunk.cik, chunk.ticker)
        if chunk.kind == "table":
            return (
                unique_traced(tag(EXHIBIT21, self._subsidiary_rows(chunk, filer)))
                if "Exhibit 21" in chunk.section
                else []
            )
        if "Exhibit 21" in chunk.section:
            # An older filing's subsidiaries list in plain text: one subsidiary a line.
            return unique_traced(
                tag(
                    EXHIBIT21,
                    [
                        self._triple(name, Relation.SUBSIDIARY_OF, filer.name, evidence=line)
                        for name, line in exhibit21_names(chunk.text)
                    ],
                )
            )
        text = chunk.text
        aliases = defined_aliases(text)
        every, spans = self._read(text)
        mentions = [m for m in every if not self._is_filer(m, filer)]
        sentences = [
            Sentence(
                s,
                e,
                text[s:e],
                tuple(
                    Mention(m.start - s, m.end - s, m.name, m.entity_key, m.via)
                    for m in mentions
                    if s <= m.start and m.end <= e
                ),
            )
            for s, e in spans
        ]
        we = filer_subject(filer)
        out: list[tuple[Triple, str]] = []
        # the relation a lead-in ("competitors include:") opened: in an earlier chunk, when the
        # chunk starts inside its list (`ChunkInput.lead_in`)
        block = self._carried(chunk.lead_in, filer) if chunk.lead_in else None
        label_paragraph = False  # the sentence is in a "Label: …" paragraph of that block
        previous: Sentence | None = None
        for sent in sentences:
            new_paragraph = previous is None or "\n" in text[previous.end : sent.start]
            if new_paragraph:
                label = cues.LABEL.match(sent.text)
                if block is not None and (
                    cues.BULLET.match(sent.text) or cues.FOOTNOTE.match(sent.text)
                ):
                    # a footnote under a table inside the list does not end it
                    label_paragraph = False
                elif block is not None and label:
                    label_paragraph = True
                    if block == Relation.SUBSIDIARY_OF:
                        out += tag(
                            LEAD_IN,
                            [
                                self._triple(n, block, filer.name, sent)
                                for n in self._label_names(sent, label.end("label"), filer)
                            ],
                        )
                else:
                    block, label_paragraph = None, False
            if block is not None and cues.BULLET.match(sent.text):
                out += tag(
                    LEAD_IN,
                    self._listed(
                        filer, block, sent, self._names_in(sent, 0, len(sent.text), filer)
                    ),
                )
                previous = sent
                continue
            out += tag(
                CONTINUATION,
                self._continued(filer, text, sent, previous, new_paragraph, block, label_paragraph),
            )
            lead_in = lead_in_relation(sent.text)
            if lead_in is None and continuation.opens_list(sent.text):
                lead_in = continuation.continued_relation(sent.text, sent.mentions)
            if lead_in is not None:
                block, label_paragraph = lead_in, False
            found: list[tuple[Triple, str]] = []
            if TRADE_WORDS.search(sent.text):
                found += tag("rule:trade", self._trade(filer, sent))
            if sent.mentions or cues.LIST_CUE.search(sent.text):
                found += tag("rule:supplies", self._supplies(filer, sent, we))
                found += tag("rule:customers", self._customers(filer, sent))
                found += tag("rule:competitors", self._competitors(filer, sent))
                found += tag(
                    "rule:subsidiaries", self._subsidiaries(filer, sent, aliases, previous)
                )
            if cues.ACQUI.search(sent.text):
                found += tag("rule:acquired", self._acquired(filer, sent))
            if cues.FIGURE.search(sent.text):
                found += tag("rule:guidance", self._guidance(filer, sent, chunk))
            if found and self._factual(sent):
                out += found
            previous = sent
        out += tag("rule:risks", self._risks(filer, chunk))
        return unique_traced(out)

    # -- helpers ------------------------------------------------------------------------------

    def _carried(self, lead_in: str, filer: Filer) -> Relation | None:
        """The relation of a list whose lead-in ended an earlier chunk, read as the rules read
        a lead-in inside the chunk."""
        relation = lead_in_relation(lead_in)
        if relation is None and continuation.opens_list(lead_in):
            found = self.gazetteer.find(lead_in)
            mentions = tuple(m for m in found if not self._is_filer(m, filer))
            relation = continuation.continued_relation(lead_in, mentions)
        return relation

    def _read(self, text: str) -> tuple[list[Mention], list[tuple[int, int]]]:
        """The passage's company mentions and sentence spans (a subclass that reads the passage
        again keeps them, instead of finding them twice)."""
        return self.gazetteer.find(text), sentence_spans(text, split_lines=True)

    @staticmethod
    def _is_filer(m: Mention, filer: Filer) -> bool:
        return bool(
            (m.entity_key and filer.cik and m.entity_key == f"CIK-{filer.cik}")
            or filer.is_self(m.name)
        )

    @staticmethod
    def _factual(sent: Sentence) -> bool:
        """Is the sentence's main statement a fact (not denied, not conditional)? Checked on the
        whole sentence: the rules state nothing that a gate would have to relabel or drop."""
        m = mood(sent.text, [(0, len(sent.text))])
        return not m.negated

    @staticmethod
    def _triple(
        subject: str,
        relation: Relation,
        obj: str,
        sent: Sentence | None = None,
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
            cues.SUPPLY_VERB,
            cues.PROCURE_VERB,
            cues.SUPPLIER_LIST,
            cues.COMPETE,
            cues.OUR_SUBSIDIARY,
            cues.CUSTOMER_LIST,
            cues.MADE_BY,
        ):
            starts += [m.start() for m in pattern.finditer(sentence)]
        return sorted(starts)

    def _scope_end(self, sent: Sentence, cue_end: int) -> int:
        return next((s for s in self._cue_starts(sent.text) if s >= cue_end), len(sent.text))

    def _names_in(self, sent: Sentence, start: int, end: int, filer: Filer) -> list[str]:
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

            last = items[-1] if items else None
            opening = cues.NAME_WORDS.match(last.text) if last else None
            if last and opening and cues.PRODUCT_AFTER_LIST.match(text, last.start + opening.end()):
                # "users of Radeon, Ryzen and Xilinx products": names of products, not companies
                a, b = items[0].start, items[-1].end
                named = [x for x in named if not a <= x[0] < b]
                listed = [x for x in listed if not a <= x[0] < b]
                continue

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
                    or cues.ALIAS_BEFORE.search(text, 0, item.start)
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

    def _bound(self, filer: Filer, sent: Sentence, cue_end: int) -> list[str]:
        return self._names_in(sent, cue_end, self._scope_end(sent, cue_end), filer)

    def _listed(
        self, filer: Filer, relation: Relation, sent: Sentence, names: list[str]
    ) -> list[Triple]:
        if not self._factual(sent):
            return []
        if relation == Relation.COMPETES_WITH:
            return [self._triple(filer.name, relation, n, sent) for n in names]
        return [self._triple(n, relation, filer.name, sent) for n in names]

    def _continued(
        self,
        filer: Filer,
        text: str,
        sent: Sentence,
        previous: Sentence | None,
        new_paragraph: bool,
        block: Relation | None,
        label_paragraph: bool,
    ) -> list[Triple]:
        """A list that continues what came before it: "Examples include X, Y and Z" after a
        sentence on the filer's competition, or in a "Label: …" paragraph of a lead-in's list;
        the paragraph right after "…, including:" (`rules_continuation`)."""
        example = continuation.continues(sent.text)
        if example is not None and block is not None and label_paragraph:
            if block == Relation.SUBSIDIARY_OF:
                return []
            names = self._names_in(sent, example.end(), len(sent.text), filer)
            return self._listed(filer, block, sent, names)
        if previous is None:
            return []
        if example is not None and not new_paragraph:
            start = example.end()
        elif (
            new_paragraph
            and continuation.opens_list(previous.text)
            and not cues.LABEL.match(sent.text)
        ):
            start = 0
        else:
            return []
        if continuation.has_own_relation(sent.text):
            return []
        relation = continuation.continued_relation(previous.text, previous.mentions)
        if relation is None:
            return []
        if not (self._factual(sent) and self._factual(previous)):
            return []
        names = self._names_in(sent, start, len(sent.text), filer)
        quote = text[previous.start : sent.end]
        if relation == Relation.COMPETES_WITH:
            return [self._triple(filer.name, relation, n, evidence=quote) for n in names]
        return [self._triple(n, relation, filer.name, evidence=quote) for n in names]

    def _label_names(self, sent: Sentence, end: int, filer: Filer) -> list[str]:
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

    def _supplies(self, filer: Filer, sent: Sentence, we: re.Pattern[str]) -> list[Triple]:
        text = sent.text
        bound: list[str] = []
        filer_speaks = cues.FILER_OPENS.match(text) is not None
        for m in cues.SUPPLY_VERB.finditer(text):
            # what is relied on: making or supplying things, or hosting ("we rely on X to host")
            if by_filer(we, text, m.start()) and (
                cues.SUPPLY_ACTION.search(text) or HOSTING.search(text, m.end())
            ):
                bound += self._bound(filer, sent, m.end())
        for m in cues.PROCURE_VERB.finditer(text):
            if not (by_filer(we, text, m.start()) or (filer_speaks and m.start() < 80)):
                continue
            noun = cues.SUPPLY_NOUN.search(text, m.end())
            if noun and noun.start() - m.end() <= 60:
                bound += self._bound(filer, sent, noun.end())
        for m in cues.SUPPLIER_LIST.finditer(text):
            ours = re.search(
                r"\b(?:our|the\s+company['’]s)\s+(?:\w+\s+){0,2}$",
                text[max(0, m.start() - 30) : m.start()],
                re.I,
            )
            if ours or filer_speaks or by_filer(we, text, m.start()):
                bound += self._bound(filer, sent, m.end())
        for m in cues.MADE_BY.finditer(text):
            # "ABP-450 is manufactured by Daewoong": the filer's product, made by a supplier.
            if not any(x.end <= m.start() for x in sent.mentions):
                bound += self._listed_right_after(sent, m.end(), filer)
        for pattern in (cues.ARE_OUR_SUPPLIERS, cues.SERVES_US):
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
                if b.start > a.end and cues.LICENSES_TO.match(text[a.end : b.start]):
                    triples.append(self._triple(a.name, Relation.SUPPLIES, b.name, sent))
        return triples

    def _trade(self, filer: Filer, sent: Sentence) -> list[Triple]:
        """Supply, customer and licence relations of `trade_relations`' cues: the counterparty
        is a gazetteer mention, an enumeration, a name with a legal form or a short capitalized
        name right at the cue."""
        text = sent.text
        ends = sorted(
            {m.end for m in sent.mentions} | {m.end() for m in cues.CAPITAL_RUN.finditer(text)}
        )
        triples: list[Triple] = []
        # "we sell our Zentrix platform to distributors, including Zentrix Pro": a name that
        # opens on a word the filer calls its own is its product or brand, not a counterparty
        ours = {w.lower() for w in cues.OWN_BRAND.findall(text)}
        for cue in trade_cues(text, ends, [m.start for m in sent.mentions]):
            if cue.side == "after":
                names = self._listed_right_after(sent, cue.at, filer)
                if not names:
                    org = organisation_at(text, cue.at)
                    if org is not None and not filer.is_self(org[0]):
                        names = [org[0]]
                    elif cue.bare_name:
                        name = self._name_after(sent, cue.at, filer)
                        names = [name] if name and name != filer.name else []
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
                if not filer.is_self(n)
                and not self._filers_own(n, filer)
                and n.split()[0].lower() not in ours
            ]
        return triples

    def _customers(self, filer: Filer, sent: Sentence) -> list[Triple]:
        text = sent.text
        triples: list[Triple] = []
        period = period_of(text)
        for m in cues.DESIGNATED_CUSTOMERS.finditer(text):
            names = re.findall(r"[A-Z]", m.group("names"))
            pcts = re.findall(cues.PCT, m.group("pcts"))
            if len(names) == len(pcts):
                triples += [
                    self._triple(
                        f"Customer {n}",
                        Relation.CUSTOMER_OF,
                        filer.name,
                        sent,
                        value=percent_value(p),
                        unit="%",
                        period=period,
                    )
                    for n, p in zip(names, pcts, strict=True)
                ]
        if not triples:
            for m in cues.ONE_DESIGNATED.finditer(text):
                triples.append(
                    self._triple(
                        m.group("who"),
                        Relation.CUSTOMER_OF,
                        filer.name,
                        sent,
                        value=percent_value(m.group("pct")),
                        unit="%",
                        period=period,
                    )
                )
        # "X and Y accounted for 18.0% and 14.1%, respectively, of the Company's revenues",
        # "Sales to X and its affiliates represent approximately 16% of our total sales".
        runs = name_runs(sent)
        for run in runs:
            last = run[-1]
            share = cues.SHARE_AFTER_NAMES.match(text[last.end :])
            if not share:
                continue
            pcts = re.findall(cues.PCT, share.group("pcts"))
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
                        value=percent_value(pct),
                        unit="%",
                        period=period,
                    )
                )
        for m in cues.DISTRIBUTORS_WHO.finditer(text):
            start = m.start("names")
            for n in self._names_in(sent, start, m.end("names"), filer):
                triples.append(self._triple(n, Relation.CUSTOMER_OF, filer.name, sent))
        for m in cues.CUSTOMER_LIST.finditer(text):
            before = text[max(0, m.start() - 40) : m.start()]
            if re.search(
                r"\b(?:our|the\s+company['’]s|its)\s+(?:\w+\s+){0,3}$", before, re.I
            ) or re.search(r"\b(?:our|the\s+company['’]s)\b", text[: m.start()], re.I):
                triples += [
                    self._triple(n, Relation.CUSTOMER_OF, filer.name, sent)
                    for n in self._bound(filer, sent, m.end())
                ]
        return triples

    def _competitors(self, filer: Filer, sent: Sentence) -> list[Triple]:
        text = sent.text
        bound: list[str] = []
        for m in cues.COMPETE.finditer(text):
            if re.match(r"\bcompet\w*\s+(?:\w+\s+){0,3}?for\b", text[m.start() :], re.I):
                continue
            bound += self._bound(filer, sent, m.end())
        # "PepsiCo, Inc. is a primary competitor"; "each of Apple and Google have integrated
        # competitive products".
        for mention in sent.mentions:
            if cues.COMPETITOR_AFTER.match(text[mention.end :]) or cues.HAVE_COMPETITIVE.match(
                text[mention.end :]
            ):
                bound.append(mention.name)
        return [self._triple(filer.name, Relation.COMPETES_WITH, n, sent) for n in bound]

    def _sentence_subject(self, sent: Sentence, filer: Filer) -> tuple[str, int] | None:
        """(name, end) of the company the sentence opens on, after an opening phrase."""
        at = cues.INTRO.match(sent.text)
        pos = at.end() if at else 0
        for m in sent.mentions:
            if m.start == pos:
                return m.name, m.end
        run = cues.NAME_HEAD.match(sent.text[pos:])
        if not run:
            return None
        name = re.sub(r"\s+(?:of|and|&|de)$", "", run.group().strip().rstrip(","))
        if not slot_name(name, pos == 0, 7) or filer.is_self(name) or self._filers_own(name, filer):
            return None
        return name, pos + len(name)

    def _name_before(self, sent: Sentence, pos: int, filer: Filer) -> str | None:
        """The company named right before `pos`: a mention, else a run of capitalized words."""
        text = sent.text[:pos].rstrip()
        for m in sent.mentions:
            if m.end == len(text):
                return m.name
        run = cues.NAME_TAIL.search(text)
        if not run:
            return None
        name = re.sub(r"^(?:The|A|An)\s+", "", run.group().strip())
        name = re.sub(r"\s+(?:of|and|&|de)$", "", name)
        at_start = not text[: run.start()].strip()
        if not slot_name(name, at_start, 7) or filer.is_self(name) or self._filers_own(name, filer):
            return None
        return name

    def _name_after(self, sent: Sentence, pos: int, filer: Filer) -> str | None:
        """The parent named right at `pos`: the filer ("us", "the Company", its name), a mention,
        or a run of capitalized words."""
        rest = sent.text[pos:]
        if cues.PARENT_IS_FILER.match(rest):
            return filer.name
        for m in sent.mentions:
            if m.start == pos:
                return m.name
        if any(s == pos and filer.is_self(sent.text[s:e]) for s, e in filer.spans(sent.text)):
            return filer.name
        run = cues.NAME_HEAD.match(rest)
        if run:
            name = re.sub(r"\s+(?:of|and|&|de)$", "", run.group().strip())
            if filer.is_self(name):
                return filer.name
            if slot_name(name, False, 7):
                return name
        return None

    def _listed_right_after(self, sent: Sentence, offset: int, filer: Filer) -> list[str]:
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
            if not (cues.LIST_JOINER if names else cues.LIST_OPENING).match(gap):
                break
            names.append(name)
            position = e
            year = re.match(r"\s+in\s+(?:19|20)\d{2}", sent.text[position:])
            if year:
                position += year.end()
        return names

    def _guidance(self, filer: Filer, sent: Sentence, chunk: ChunkInput) -> list[Triple]:
        text = sent.text
        if not FORWARD_FIGURE.search(text):
            return []
        heading = heading_above(chunk.text, sent.start) or chunk.preceding_heading
        triples: list[Triple] = []
        for metric, at in guided_metrics(text):
            figure = figure_after(text, at)
            if figure is None:
                continue
            value, low, high, unit, end = figure
            if cues.SENSITIVITY_AFTER.match(text, end):
                continue
            clause_end = re.search(r"[,;]|$", text[end:])
            window_end = end + (clause_end.start() if clause_end else 0)
            period = period_of(text, heading, window_end)
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
