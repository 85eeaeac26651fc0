"""Entity resolution: every subject and object a triple names → one entity id, or the review
queue. Merging two different companies is worse than keeping a duplicate, so every step is an
exact match on a normalized key, and similarity only ever proposes.

A mention of a party (a company or organization) resolves, in this order:

1. a self-reference ("we", "our", "the Company") → the filer of the filing that says it; an
   anonymous designated customer ("Customer A") → a node of that filer's (ORG:customer-a-of-cik-…);
2. a ticker, written as one (all capitals: "AMD", "GOOGL");
3. SEC's registered and former names (company_tickers.json titles, submissions' names and
   formerNames, the registrant names of the filings), compared as `normalize_name` keys and
   their space-free form ("Wal-Mart" ↔ "Walmart");
4. the curated alias file (brands and short forms, non-SEC companies);
5. name variants: a trailing "Group"/"Holdings" left off while two words remain ("American
   Airlines" → American Airlines Group Inc.); distinguishing words are never dropped, so
   "Apple Hospitality REIT" stays apart from Apple Inc. and "American Airlines" from American
   Express;
6. an organization seen before under that normalized name (ORG:…), or, for a name ending in
   a legal form ("Samsung Electronics Co., Ltd.", "Wistron Corporation"), a new organization
   node keyed by the slug of its name;
7. otherwise similarity (Jaro-Winkler over normalized names, candidates blocked on shared
   rare words): candidates at or above `review_similarity` go to the review queue with their
   evidence; a merge happens on its own only at or above `auto_merge_similarity` *and* when the
   names differ in one word that shares its first four letters ("Industries"/"Industry",
   typos). Anything else is unresolved and goes to the review queue.

An EXPOSED_TO_RISK object is untyped: it is a risk phrase (classified into the taxonomy) or a
counterparty whose loss is the risk. It resolves to whichever of the two it matches; matching
both, or two risk categories equally, is ambiguous and goes to review, never guessed. Metric
references (GUIDES objects) resolve to the metric vocabulary.

Merges and unmerges from the merge log are applied last: an entity id merged into another is
redirected, and a `mention:<text>` merge resolves that text directly.
"""

from __future__ import annotations

import json
import re
from collections import defaultdict
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from graphrag_core.common.ids import company_key, normalize_cik, sha256_stream
from graphrag_core.common.names import (
    compact_name,
    has_legal_form,
    is_sentence,
    jaro_winkler,
    name_slug,
    name_variants,
    normalize_name,
)
from graphrag_core.graph import ontology
from graphrag_core.graph.curated import CuratedAliases, load_curated
from graphrag_core.graph.merge_log import MENTION_PREFIX, redirect
from graphrag_core.graph.organisations import check_organisation
from graphrag_core.graph.risk_taxonomy import BY_ID as RISKS_BY_ID
from graphrag_core.graph.risk_taxonomy import classify_risk, score_phrase

# Methods that create an organization node of their own (the graph store re-reads them).
NEW_ORG_METHODS = ("legal_form", "provisional_org")
# The category a risk outside the taxonomy that leans towards none is filed under.
OTHER_RISK = "other"
# At most this many words of the filer's heading go into a new risk node's key.
_RISK_SLUG_WORDS = 8

# Defaults of ResolutionSettings; documented there.
REVIEW_SIMILARITY = 0.85
AUTO_MERGE_SIMILARITY = 0.97

RESOLVED = "resolved"
UNRESOLVED = "unresolved"

_SELF_RE = re.compile(
    r"^(?:we|us|our|ours|ourselves|the\s+company|the\s+registrant|our\s+company|the\s+corporation)$",
    re.I,
)
_DESIGNATED_RE = re.compile(r"^(customer|distributor|partner|reseller|supplier)\s+([A-Z])$", re.I)
_TICKER_RE = re.compile(r"^[A-Z][A-Z0-9]{0,4}(?:[.\-][A-Z])?$")
# Words too common in company names to block similarity candidates on: these, and any word
# more than `_MAX_BLOCK_FREQUENCY` registered names share ("pharmaceuticals", "laboratories").
_COMMON_WORDS = frozenset(
    "and of the international global group holdings holding technologies technology systems "
    "services financial capital industries industry company bank trust fund corp inc american "
    "national first united new energy resources partners solutions".split()
)
_MAX_BLOCK_FREQUENCY = 8


def is_self_reference(text: str) -> bool:
    return _SELF_RE.match(text.strip()) is not None


def is_designated(text: str) -> bool:
    return _DESIGNATED_RE.match(text.strip()) is not None


def is_context_dependent(text: str) -> bool:
    """Does the mention mean something different in each filer's filing ("we", "Customer A")?"""
    return is_self_reference(text) or is_designated(text)


@dataclass(frozen=True)
class Candidate:
    entity_id: str
    name: str
    score: float
    via: str  # what matched: the registry key, or the risk category's score

    def as_row(self) -> dict[str, object]:
        return {
            "entity_id": self.entity_id,
            "name": self.name,
            "score": round(self.score, 4),
            "via": self.via,
        }


@dataclass(frozen=True)
class Resolution:
    """What a mention resolved to (status `resolved`), or why it did not (`unresolved`).

    `review_reason` is set for every mention a person should look at: all unresolved ones, and
    resolved ones that are possible duplicates of another entity (a new organization node whose
    name is close to an existing one)."""

    status: str
    method: str
    entity_id: str | None = None
    entity_type: str | None = None
    name: str | None = None
    review_reason: str | None = None
    candidates: tuple[Candidate, ...] = ()

    @property
    def resolved(self) -> bool:
        return self.status == RESOLVED


def _unresolved(reason: str, candidates: Iterable[Candidate] = ()) -> Resolution:
    return Resolution(UNRESOLVED, reason, review_reason=reason, candidates=tuple(candidates))


@dataclass
class Registry:
    """Every name an entity is known by, indexed for resolution. Built from SEC reference rows
    (company_tickers: cik, ticker, title), submissions documents, the filers of the corpus
    (cik, registrant name), the curated alias file, the organizations found so far, and the
    active merges of the merge log."""

    names: dict[str, str] = field(default_factory=dict)  # entity id → canonical name
    tickers: dict[str, str] = field(default_factory=dict)  # TICKER → entity id
    sec_keys: dict[str, set[str]] = field(
        default_factory=lambda: defaultdict(set)
    )  # norm/compact → ids
    curated_keys: dict[str, str] = field(default_factory=dict)  # norm → entity id
    variant_keys: dict[str, set[str]] = field(default_factory=lambda: defaultdict(set))
    org_keys: dict[str, str] = field(default_factory=dict)  # norm → ORG id
    filers: set[str] = field(default_factory=set)  # company ids with filings in the corpus
    merges: dict[str, str] = field(default_factory=dict)
    review_similarity: float = REVIEW_SIMILARITY
    auto_merge_similarity: float = AUTO_MERGE_SIMILARITY
    digest: str = ""
    _tokens: dict[str, set[str]] = field(default_factory=lambda: defaultdict(set))

    # -- building ---------------------------------------------------------------------------
    @classmethod
    def build(
        cls,
        *,
        tickers: Iterable[Mapping[str, Any]] = (),
        submissions: Mapping[str, Mapping[str, Any]] | None = None,
        filers: Iterable[tuple[str, str | None]] = (),
        curated: CuratedAliases | None = None,
        organizations: Mapping[str, str] | None = None,
        merges: Mapping[str, str] | None = None,
        review_similarity: float = REVIEW_SIMILARITY,
        auto_merge_similarity: float = AUTO_MERGE_SIMILARITY,
    ) -> Registry:
        curated = curated or load_curated()
        tickers = list(tickers)
        ticker_rows, subs, filer_rows = _inputs(tickers, submissions, filers)
        return cls.assemble(
            rows=[*_reference_rows(ticker_rows, subs), *filer_name_rows(filer_rows)],
            filers=filer_rows,
            curated=curated,
            organizations=organizations,
            merges=merges,
            review_similarity=review_similarity,
            auto_merge_similarity=auto_merge_similarity,
            digest=_digest(
                reference_digest(tickers, submissions),
                filer_rows,
                curated,
                dict(merges or {}),
                review_similarity,
                auto_merge_similarity,
            ),
        )

    @classmethod
    def assemble(
        cls,
        *,
        rows: Iterable[NameRow],
        filers: Iterable[tuple[str, str]],
        curated: CuratedAliases,
        organizations: Mapping[str, str] | None = None,
        merges: Mapping[str, str] | None = None,
        review_similarity: float = REVIEW_SIMILARITY,
        auto_merge_similarity: float = AUTO_MERGE_SIMILARITY,
        digest: str = "",
    ) -> Registry:
        """A registry from names normalized beforehand (`reference_name_rows`,
        `filer_name_rows`: what the graph stage keeps between updates, since normalizing SEC's
        ten thousand titles is most of the cost of a registry)."""
        reg = cls(
            review_similarity=review_similarity,
            auto_merge_similarity=auto_merge_similarity,
            digest=digest,
        )
        rows = list(rows)
        # Canonical names: the filing's registrant name for filers, else SEC's title.
        for row in rows:
            if row.kind == "sec_title":
                reg.names.setdefault(row.entity_id, row.alias)
        for cik, name in filers:
            if name:
                reg.names[company_key(cik)] = name
            reg.filers.add(company_key(cik))
        for row in rows:
            reg._add_row(row)
        for company in curated.companies:
            reg.names.setdefault(company.entity_id, company.sec_title)
            for alias in company.aliases:
                reg._add_curated(company.entity_id, alias)
        for org in curated.organizations:
            reg.names[org.entity_id] = org.name
            reg.org_keys[normalize_name(org.name)] = org.entity_id
            reg._index_key(normalize_name(org.name))
            reg._add_variants(org.entity_id, org.name)
            for alias in org.aliases:
                reg._add_curated(org.entity_id, alias)
        for org_id, name in sorted((organizations or {}).items()):
            reg.add_organization(org_id, name)
        reg.merges = dict(merges or {})
        return reg

    def _add_row(self, row: NameRow) -> None:
        if row.kind == "ticker":
            self.tickers.setdefault(row.norm, row.entity_id)
            return
        self.sec_keys[row.norm].add(row.entity_id)
        self.sec_keys[f"~{row.norm.replace(' ', '')}"].add(row.entity_id)
        for variant in row.variants:
            self.variant_keys[variant].add(row.entity_id)
        self._index_key(row.norm)

    def _add_curated(self, entity: str, alias: str) -> None:
        norm = normalize_name(alias)
        if norm:
            self.curated_keys.setdefault(norm, entity)
            self.curated_keys.setdefault(f"~{norm.replace(' ', '')}", entity)
            self._index_key(norm)

    def _add_variants(self, entity: str, name: str) -> None:
        for variant in name_variants(name)[1:]:
            self.variant_keys[variant].add(entity)

    def add_organization(self, org_id: str, name: str) -> None:
        """An organization found in the filings (a legal-form name no register lists)."""
        norm = normalize_name(name)
        if not norm:
            return
        self.org_keys.setdefault(norm, org_id)
        self.names.setdefault(org_id, name)
        self._add_variants(org_id, name)
        self._index_key(norm)

    # -- looking up -------------------------------------------------------------------------
    def name(self, entity_id: str) -> str:
        if entity_id in self.names:
            return self.names[entity_id]
        risk = RISKS_BY_ID.get(entity_id)
        if risk is not None:
            return risk.label
        if entity_id.startswith("METRIC:"):
            return entity_id[len("METRIC:") :]
        return entity_id

    def _final(
        self,
        entity_id: str,
        method: str,
        *,
        review_reason: str | None = None,
        candidates: tuple[Candidate, ...] = (),
    ) -> Resolution:
        target = redirect(entity_id, self.merges)
        if target != entity_id:
            # A person decided: the possible duplicate is settled.
            method, review_reason, candidates = f"{method}+merge_log", None, ()
        return Resolution(
            RESOLVED,
            method,
            target,
            ontology.entity_type(target),
            self.name(target),
            review_reason,
            candidates,
        )

    def _pick(self, ids: set[str], method: str, key: str) -> Resolution | None:
        if len(ids) == 1:
            return self._final(next(iter(ids)), method)
        if not ids:
            return None
        filed = ids & self.filers
        if len(filed) == 1:
            return self._final(next(iter(filed)), method)
        return _unresolved(
            "ambiguous_name",
            (Candidate(i, self.name(i), 1.0, key) for i in sorted(ids)),
        )

    def resolve(
        self, text: str, role: str = ontology.PARTY, filer_id: str | None = None
    ) -> Resolution:
        """One mention (as written) in the filing of `filer_id` → its resolution."""
        text = text.strip()
        if not text:
            return _unresolved("empty")
        direct = self.merges.get(f"{MENTION_PREFIX}{text}")
        if direct is not None:
            return self._final(direct, "merge_log")
        if role == ontology.METRIC_REFERENCE:
            metric = ontology.match_metric(text)
            if metric is None:
                return self._new_metric(text)
            return self._final(ontology.metric_id(metric), "metric_vocabulary")
        if role == ontology.RISK_REFERENCE:
            return self._resolve_untyped(text, filer_id)
        return self._resolve_party(text, filer_id)

    def _resolve_untyped(self, text: str, filer_id: str | None) -> Resolution:
        party = self._exact_party(text, filer_id)
        risk = classify_risk(text)
        # The object of an exposure is read as a risk first: a phrase that is both a category
        # and a company's exact name is published as the risk, and the company reading is
        # proposed for review (withheld, the stated exposure was lost; issue 22).
        if risk.category is not None and party is not None and party.resolved:
            return self._final(
                risk.category.entity_id,
                "risk_taxonomy",
                review_reason="ambiguous_type",
                candidates=(Candidate(party.entity_id or "", party.name or "", 1.0, party.method),),
            )
        if risk.ambiguous:
            # Two categories tie: the heading becomes a risk node of its own (under `other`,
            # since neither category wins), and the tied categories are proposed as its parent.
            top = risk.scores[0].score
            own = self._new_risk(text)
            if not own.resolved or own.entity_id is None:
                return own
            return self._final(
                own.entity_id,
                own.method,
                review_reason="ambiguous_risk",
                candidates=tuple(
                    Candidate(
                        s.category.entity_id, s.category.label, s.score / top, f"score {s.score}"
                    )
                    for s in risk.scores
                    if s.score == top
                ),
            )
        if risk.category is not None:
            return self._final(risk.category.entity_id, "risk_taxonomy")
        if party is not None:
            return party
        # A risk heading that says something names no organisation, even when it ends in
        # "the Company."; only a name with its legal form is a counterparty whose loss is the risk.
        if not is_sentence(text) and has_legal_form(text) and check_organisation(text).ok:
            return self._resolve_party(text, filer_id)
        return self._new_risk(text)

    def _exact_party(self, text: str, filer_id: str | None) -> Resolution | None:
        """Steps 1-6 without creating anything: None when no exact key matches."""
        if is_self_reference(text):
            return self._final(filer_id, "self") if filer_id else _unresolved("no_filer")
        designated = _DESIGNATED_RE.match(text)
        if designated:
            if not filer_id:
                return _unresolved("no_filer")
            kind, letter = designated.group(1).lower(), designated.group(2).lower()
            org = f"ORG:{kind}-{letter}-of-{filer_id.lower()}"
            self.names.setdefault(
                org, f"{kind.title()} {letter.upper()} (of {self.name(filer_id)})"
            )
            return self._final(org, "designated")
        if _TICKER_RE.match(text) and text in self.tickers:
            return self._final(self.tickers[text], "ticker")
        norm = normalize_name(text)
        if not norm:
            return _unresolved("empty")
        compact = f"~{compact_name(text)}"
        found = self._pick(
            self.sec_keys.get(norm, set()) or self.sec_keys.get(compact, set()), "sec_name", norm
        )
        if found is not None:
            return found
        listed = self.curated_keys.get(norm) or self.curated_keys.get(compact)
        if listed is not None:
            return self._final(listed, "curated")
        for variant in name_variants(text):
            ids = self.variant_keys.get(variant, set()) | self.sec_keys.get(variant, set())
            found = self._pick(ids, "normalized", variant)
            if found is not None:
                return found
        known = self.org_keys.get(norm)
        if known is not None:
            return self._final(known, "organization")
        return None

    def _resolve_party(self, text: str, filer_id: str | None) -> Resolution:
        exact = self._exact_party(text, filer_id)
        if exact is not None:
            return exact
        norm = normalize_name(text)
        candidates = self.similar(norm)
        top = [c for c in candidates if c.score >= self.auto_merge_similarity]
        if len(top) == 1 and _one_word_apart(norm, top[0].via):
            return self._final(top[0].entity_id, "similar")
        # A sentence that ends in "the Company" is not a company's name.
        if has_legal_form(text) and not is_sentence(text):
            org_id = f"ORG:{name_slug(text)}"
            self.add_organization(org_id, text)
            others = tuple(c for c in candidates if c.entity_id != org_id)
            if others:
                return self._final(
                    org_id, "legal_form", review_reason="possible_duplicate", candidates=others
                )
            return self._final(org_id, "legal_form")
        verdict = check_organisation(text)
        if not verdict.ok:
            return _unresolved(verdict.reason, candidates)
        # No register knows the name, and it reads as an organisation: a provisional node of
        # its own, published; a close name is a merge the review queue proposes, not a reason
        # to withhold the fact (issue 22).
        org_id = f"ORG:{name_slug(text)}"
        if org_id == "ORG:":
            return _unresolved("empty")
        self.add_organization(org_id, text)
        method = f"provisional_org:{verdict.reason}"
        others = tuple(c for c in candidates if c.entity_id != org_id)
        if others:
            return self._final(
                org_id, method, review_reason="possible_duplicate", candidates=others
            )
        return self._final(org_id, method)

    def _new_metric(self, text: str) -> Resolution:
        """A guided figure outside the catalog ("capital plan"): a metric node of its own,
        keyed by its words in snake case and named as the filer wrote it."""
        snake = normalize_name(text).replace(" ", "_").replace("-", "_")
        snake = re.sub(r"[^a-z0-9_]+", "", snake).strip("_")
        if not snake:
            return _unresolved("unknown_metric")
        metric = ontology.metric_id(snake)
        self.names.setdefault(metric, text)
        return self._final(metric, "new_metric")

    def _new_risk(self, text: str) -> Resolution:
        """A risk heading outside the taxonomy: a risk node of its own under its nearest
        category (the best-scoring one, even below the taxonomy's bar, or `other`), keeping the
        filer's words as its name."""
        scores = score_phrase(text)
        parent = (
            scores[0].category.key
            if scores and (len(scores) == 1 or scores[0].score > scores[1].score)
            else OTHER_RISK
        )
        words = name_slug(text).split("-")[:_RISK_SLUG_WORDS]
        slug = "-".join(w for w in words if w)
        if not slug:
            return _unresolved("unknown_risk")
        risk = f"RISK:{parent}.{slug}"
        self.names.setdefault(risk, text)
        return self._final(risk, "new_risk")

    def _index_key(self, key: str) -> None:
        """Index a normalized name by its words, for blocking similarity candidates."""
        for token in key.split():
            if token not in _COMMON_WORDS and len(token) > 1:
                self._tokens[token].add(key)

    def _ids_of(self, key: str) -> set[str]:
        ids = set(self.sec_keys.get(key, set()))
        if key in self.curated_keys:
            ids.add(self.curated_keys[key])
        if key in self.org_keys:
            ids.add(self.org_keys[key])
        return ids

    def similar(self, norm: str, limit: int = 3) -> tuple[Candidate, ...]:
        """Entities whose normalized names score at least `review_similarity` against `norm`
        (Jaro-Winkler), best first, at most `limit` distinct entities."""
        keys: set[str] = set()
        for token in norm.split():
            block = self._tokens.get(token)
            # A word more names share than the cap blocks nothing ("pharmaceuticals").
            if (
                block is not None
                and token not in _COMMON_WORDS
                and len(block) <= _MAX_BLOCK_FREQUENCY
            ):
                keys |= block
        best: dict[str, Candidate] = {}
        # In order: two keys of one entity can score the same, and the first one met is kept
        # (a set's order changes with each process's string hashing).
        for key in sorted(keys):
            if key == norm:
                continue
            score = jaro_winkler(norm, key)
            if score < self.review_similarity:
                continue
            for entity in self._ids_of(key):
                entity = redirect(entity, self.merges)
                if entity not in best or best[entity].score < score:
                    best[entity] = Candidate(entity, self.name(entity), score, key)
        ranked = sorted(best.values(), key=lambda c: (-c.score, c.entity_id))
        return tuple(ranked[:limit])


@dataclass(frozen=True)
class NameRow:
    """One name of one entity, normalized once: the key it is found under and the shortened
    forms a text may use."""

    entity_id: str
    alias: str
    kind: str  # ticker | sec_title | sec_name | former_name | registrant_name
    norm: str
    variants: tuple[str, ...] = ()


def name_row(entity_id: str, alias: str, kind: str) -> NameRow | None:
    if kind == "ticker":
        ticker = alias.strip().upper()
        return NameRow(entity_id, ticker, kind, ticker) if ticker else None
    forms = name_variants(alias)
    return NameRow(entity_id, alias, kind, forms[0], forms[1:]) if forms else None


_TickerRow = tuple[str, str, str]


def _reference_rows(
    ticker_rows: list[_TickerRow], subs: Mapping[str, Mapping[str, Any]]
) -> list[NameRow]:
    rows: list[NameRow | None] = []
    for cik, ticker, title in ticker_rows:
        entity = company_key(cik)
        if ticker:
            rows.append(name_row(entity, ticker, "ticker"))
        if title:
            rows.append(name_row(entity, title, "sec_title"))
    for cik, doc in sorted(subs.items()):
        entity = company_key(cik)
        if doc.get("name"):
            rows.append(name_row(entity, str(doc["name"]), "sec_name"))
        for former in doc.get("formerNames") or []:
            if isinstance(former, Mapping) and former.get("name"):
                rows.append(name_row(entity, str(former["name"]), "former_name"))
        for ticker in doc.get("tickers") or []:
            rows.append(name_row(entity, str(ticker), "ticker"))
    return [r for r in rows if r is not None]


def reference_name_rows(
    tickers: Iterable[Mapping[str, Any]], submissions: Mapping[str, Mapping[str, Any]] | None
) -> list[NameRow]:
    """SEC's names, normalized (the expensive part of a registry)."""
    ticker_rows, subs, _ = _inputs(tickers, submissions, ())
    return _reference_rows(ticker_rows, subs)


def reference_digest(
    tickers: Iterable[Mapping[str, Any]], submissions: Mapping[str, Mapping[str, Any]] | None
) -> str:
    """What `reference_name_rows` would be made from, hashed as given (SEC's files come in a
    stable order; a reordered file costs one re-normalization, nothing worse). Of the ticker
    rows only the fields read (`_inputs`), joined as text: every graph update hashes SEC's ten
    thousand rows, and JSON-encoding whole rows cost it about 10 ms more."""
    subs = {
        str(k): {f: v.get(f) for f in ("name", "formerNames", "tickers")}
        for k, v in (submissions or {}).items()
    }
    rows = "\n".join(
        f"{r.get('cik')}\x1f{r.get('cik_str')}\x1f{r.get('ticker')}\x1f{r.get('title')}"
        for r in tickers
    )
    return sha256_stream([rows, "\x1e", json.dumps(subs, sort_keys=True, default=str)])


def filer_name_rows(filers: Iterable[tuple[str, str]]) -> list[NameRow]:
    """The registrant names the filings carry, as names of their CIKs."""
    rows = [name_row(company_key(cik), name, "registrant_name") for cik, name in filers if name]
    return [r for r in rows if r is not None]


def _inputs(
    tickers: Iterable[Mapping[str, Any]],
    submissions: Mapping[str, Mapping[str, Any]] | None,
    filers: Iterable[tuple[str, str | None]],
) -> tuple[list[_TickerRow], dict[str, Mapping[str, Any]], list[tuple[str, str]]]:
    ticker_rows = sorted(
        {
            (c, str(r.get("ticker") or "").upper(), str(r.get("title") or ""))
            for r in tickers
            for c in [normalize_cik(r.get("cik") or r.get("cik_str"))]
            if c
        }
    )
    subs: dict[str, Mapping[str, Any]] = {}
    for key, doc in (submissions or {}).items():
        cik = normalize_cik(key)
        if cik:
            subs[cik] = doc
    filer_rows = sorted({(cik, n or "") for c, n in filers for cik in [normalize_cik(c)] if cik})
    return ticker_rows, subs, filer_rows


def _digest(
    reference: str,
    filer_rows: Iterable[tuple[str, str]],
    curated: CuratedAliases,
    merges: Mapping[str, str],
    review: float,
    auto: float,
) -> str:
    return sha256_stream(
        [
            reference,
            repr(sorted(filer_rows)),
            curated.model_dump_json(),
            repr(sorted(merges.items())),
            f"{review} {auto}",
        ]
    )


def registry_digest(
    *,
    tickers: Iterable[Mapping[str, Any]] = (),
    submissions: Mapping[str, Mapping[str, Any]] | None = None,
    filers: Iterable[tuple[str, str | None]] = (),
    curated: CuratedAliases | None = None,
    merges: Mapping[str, str] | None = None,
    review_similarity: float = REVIEW_SIMILARITY,
    auto_merge_similarity: float = AUTO_MERGE_SIMILARITY,
    reference: str | None = None,
) -> str:
    """The digest `Registry.build` would give these inputs, without building it: while it is
    unchanged, a mention resolved before resolves the same way, and only new ones need the
    registry (which is what costs). `reference`: `reference_digest` of tickers and submissions,
    when the caller has it already."""
    filer_rows = sorted({(cik, n or "") for c, n in filers for cik in [normalize_cik(c)] if cik})
    ref = reference if reference is not None else reference_digest(tickers, submissions)
    return _digest(
        ref,
        filer_rows,
        curated or load_curated(),
        dict(merges or {}),
        review_similarity,
        auto_merge_similarity,
    )


def _one_word_apart(a: str, b: str) -> bool:
    """Same number of words, all equal but one, and that one shares its first four letters
    ("industries"/"industry", "pharmceutica"/"pharmaceutica")."""
    wa, wb = a.split(), b.split()
    if len(wa) != len(wb):
        return False
    diff = [(x, y) for x, y in zip(wa, wb, strict=True) if x != y]
    return len(diff) == 1 and len(diff[0][0]) >= 4 and diff[0][0][:4] == diff[0][1][:4]


def mention_key(role: str, text: str, filer_id: str | None) -> str:
    """The key a mention is resolved under: its role and exact text, plus the filer when the
    text means something different in each filer's filing ("we", "Customer A")."""
    from graphrag_core.common.ids import content_hash

    context = (filer_id or "") if is_context_dependent(text) else ""
    return content_hash(role, text.strip(), context, length=24)
