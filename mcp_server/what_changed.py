"""`what_changed`: what a company's newer filing changes against an older one (issue 25, item 1)
— risk factors added, removed and reworded, relations added and dropped, guidance revised,
metrics restated or recast, each cited. The comparison is `graphrag_core.retrieval.changes`;
this module reads the two filings' rows with the named queries below and shapes the answer."""

from __future__ import annotations

import datetime as dt
import logging
import threading
from typing import TYPE_CHECKING, Annotated, Any

from mcp.server.mcpserver.exceptions import ToolError
from pydantic import Field

import graphrag_core.retrieval.changes as changes
from graphrag_core.common.errors import GraphragError
from graphrag_core.retrieval.search import shared_embedder
from graphrag_core.settings import RetrievalSettings
from mcp_server.context import ToolContext, resolve_company, stamp
from mcp_server.models import Citation, Number, Output, Stamped

if TYPE_CHECKING:
    from graphrag_core.store.reader import Snapshot

log = logging.getLogger(__name__)

FILING_ID_PATTERN = r"^[A-Za-z0-9][A-Za-z0-9_.:\-]*$"
EXCERPT_CHARS = 300

# -- queries (values only ever enter as parameters) -------------------------------------------

COMPANY_FILINGS = """
SELECT filing_id, form, filed_date, period_end, fiscal_year, fiscal_period
FROM filings WHERE cik = $cik
ORDER BY filed_date DESC NULLS LAST, period_end DESC NULLS LAST, filing_id DESC
"""
# The two filings' risk-factor chunks (10-K Item 1A, 10-Q Part II Item 1A), with heading spans.
RISK_CHUNKS = """
SELECT chunk_id, filing_id, section, ordinal, text, headings
FROM chunks WHERE filing_id IN ($old, $new) AND section LIKE '%Item 1A'
ORDER BY filing_id, section, ordinal
"""
COMPANY_EDGES = """
SELECT e.edge_id, e.subject_id, e.relation, e.object_id, e.period, e.value, e.unit,
       e.value_low, e.value_high, e.superseded_by,
       s.name AS subject_name, o.name AS object_name
FROM edges e LEFT JOIN nodes s ON s.entity_id = e.subject_id LEFT JOIN nodes o ON o.entity_id =
    e.object_id
WHERE (e.subject_id = $company OR e.object_id = $company)
  AND e.relation IN ('SUPPLIES', 'CUSTOMER_OF', 'COMPETES_WITH', 'SUBSIDIARY_OF', 'GUIDES')
"""
# The two filings' reported values (not derived ones, finite), with the section that shows
# each and why a later filing superseded it (metric_observations keeps superseded values).
FILING_METRICS = """
SELECT o.observation_id, o.filing_id, o.metric, o.unit, o.period_type, o.fiscal_label,
       o.calendar_start, o.calendar_end, o.value, o.fact_id, o.concept, o.chunk_id,
       o.supersede_reason, o.supersede_detail, c.section
FROM metric_observations o LEFT JOIN chunks c USING (chunk_id)
WHERE o.cik = $cik AND o.filing_id IN ($old, $new) AND NOT coalesce(o.derived, false)
  AND isfinite(o.value) AND o.calendar_end IS NOT NULL
"""
EDGE_CITATIONS = """
SELECT v.evidence_id, v.edge_id, v.filing_id, v.chunk_id, v.quote, v.section, v.form, v.filed_date
FROM edge_evidence v JOIN edges e USING (edge_id)
WHERE (e.subject_id = $company OR e.object_id = $company) AND v.filing_id IN ($old, $new)
ORDER BY v.evidence_id
"""

# -- answer models ----------------------------------------------------------------------------


class FilingRef(Output):
    filing_id: str
    form: str | None = None
    filed_date: dt.date | None = None
    period_end: dt.date | None = None


class RiskFactorItem(Output):
    heading: str = Field(description="the risk factor's heading as filed")
    excerpt: str = Field(description="the opening of its text (get_chunk reads the whole chunk)")
    citation: Citation


class RewordedRiskFactor(Output):
    old: RiskFactorItem = Field(description="the factor in the older filing")
    new: RiskFactorItem = Field(description="the factor in the newer filing")
    matched_by: str = Field(
        description="heading (same heading, body rewritten), words (most "
        "heading words shared) or meaning (close under the embedding model)"
    )
    heading_similarity: Number | None = Field(
        None, description="0-1: shared heading words, or cosine for meaning"
    )
    body_similarity: Number | None = Field(None, description="0-1: share of body words in common")


class RelationItem(Output):
    subject_id: str
    subject_name: str | None = None
    relation: str
    object_id: str
    object_name: str | None = None
    quote: str | None = Field(None, description="the sentence of the filing that states it")
    citation: Citation = Field(description="the filing that states it (the other one does not)")


class GuidanceItem(Output):
    metric_id: str
    period: str | None = None
    unit: str | None = None
    old_value: Number | None = None
    old_range: list[Number] | None = Field(None, description="[low, high] when guided as a range")
    old_quote: str | None = None
    old_citation: Citation
    new_value: Number | None = None
    new_range: list[Number] | None = None
    new_quote: str | None = None
    new_citation: Citation


class RestatedMetric(Output):
    metric: str = Field(description="canonical metric id (get_metrics reads its history)")
    fiscal_label: str | None = Field(None, description="the period, in the company's fiscal terms")
    calendar_start: dt.date | None = None
    calendar_end: dt.date | None = None
    unit: str = Field(description="USD, USD/share, shares (full units: USD, not millions)")
    old_value: Number = Field(description="as the older filing reported it")
    new_value: Number = Field(description="as the newer filing reports it")
    reason: str = Field(
        description="restatement, recast (a stock split, an accounting change), or unknown"
    )
    detail: str | None = Field(None, description="what the filings say caused it, when known")
    old_citation: Citation
    new_citation: Citation


class WhatChangedResult(Stamped):
    company_id: str
    name: str
    from_filing: FilingRef = Field(description="the older filing")
    to_filing: FilingRef = Field(description="the newer filing")
    risk_factors_added: list[RiskFactorItem] = Field(description="in the newer filing only")
    risk_factors_removed: list[RiskFactorItem] = Field(description="in the older filing only")
    risk_factors_reworded: list[RewordedRiskFactor] = Field(
        description="in both, heading or text materially rewritten; cited in both filings"
    )
    risk_factors_unchanged: int = Field(description="factors carried over as they were")
    matched_by_meaning: bool = Field(
        description="false when the embedding model was unavailable: factors were matched by "
        "words only"
    )
    relations_added: list[RelationItem] = Field(
        description="suppliers, customers, competitors, subsidiaries stated in the newer filing "
        "only"
    )
    relations_dropped: list[RelationItem] = Field(description="stated in the older filing only")
    guidance_revised: list[GuidanceItem] = Field(
        description="guidance of the older filing that the newer one revised: old and new value, "
        "both "
        "cited"
    )
    notes: list[str] = Field(default_factory=list, description="how to read this comparison")
    metrics_restated: list[RestatedMetric] = Field(
        default_factory=list,
        description="reported values the newer filing states differently for the same period "
        "(restated or recast): old and new value, both cited to the XBRL fact",
    )


# -- the tool ---------------------------------------------------------------------------------


def choose_filings(
    filings: list[dict[str, Any]], from_filing: str | None, to_filing: str | None
) -> tuple[dict[str, Any], dict[str, Any]]:
    """The (older, newer) filings to compare among a company's filings (newest first): the ones
    named, else the latest two of one form (the newer filing's form when one is named)."""
    by_id = {f["filing_id"]: f for f in filings}
    for name, fid in (("from_filing", from_filing), ("to_filing", to_filing)):
        if fid is not None and fid not in by_id:
            raise ToolError(
                f"{name} {fid!r} is not a filing of this company; its filings: "
                + ", ".join(
                    f"{f['filing_id']} ({f['form']}, {f['filed_date']})" for f in filings[:8]
                )
            )
    order = {f["filing_id"]: i for i, f in enumerate(filings)}  # 0 = newest
    if from_filing and to_filing:
        if from_filing == to_filing:
            raise ToolError("from_filing and to_filing are the same filing: name two")
        old, new = by_id[from_filing], by_id[to_filing]
        if order[from_filing] < order[to_filing]:
            raise ToolError(
                f"from_filing {from_filing} was filed after to_filing {to_filing}: swap them"
            )
        return old, new
    if to_filing:
        new = by_id[to_filing]
        older = [f for f in filings[order[to_filing] + 1 :] if f["form"] == new["form"]]
        if not older:
            raise ToolError(f"no {new['form']} filed before {to_filing}: name from_filing")
        return older[0], new
    if from_filing:
        old = by_id[from_filing]
        newer = [f for f in filings[: order[from_filing]] if f["form"] == old["form"]]
        if not newer:
            raise ToolError(f"no {old['form']} filed after {from_filing}: name to_filing")
        return old, newer[-1]
    for i, new in enumerate(filings):
        older = [f for f in filings[i + 1 :] if f["form"] == new["form"]]
        if older:
            return older[0], new
    raise ToolError(
        "the company has no two filings of the same form in this snapshot: name "
        "from_filing and to_filing"
    )


# Pair comparisons kept per snapshot version (each a few dozen factors and some vectors).
CACHED_PAIRS = 2_000


class PairCache:
    """Values per filing pair for one snapshot version: a snapshot never changes, so a pair's
    risk-factor comparison (and changes_across' vectors) hold until the version does."""

    def __init__(self) -> None:
        self.version: str | None = None
        self.values: dict[tuple[Any, ...], Any] = {}
        self.lock = threading.Lock()

    def get(self, version: str, key: tuple[Any, ...]) -> Any:
        with self.lock:
            if version != self.version:
                self.version, self.values = version, {}
            return self.values.get(key)

    def put(self, version: str, key: tuple[Any, ...], value: Any) -> None:
        with self.lock:
            if version == self.version and len(self.values) < CACHED_PAIRS:
                self.values[key] = value


class WhatChangedTools:
    """what_changed over `ctx`'s reader."""

    def __init__(self, ctx: ToolContext, retrieval: RetrievalSettings):
        self.ctx = ctx
        self.retrieval = retrieval
        self.pairs = PairCache()

    def risk_changes(
        self, snap: Snapshot, old: str, new: str, embed: changes.Embed | None
    ) -> tuple[list[changes.FactorChange], int]:
        """The two filings' risk factors compared (changes.compare_risk_factors), once per
        snapshot version: the cut and the embedding of leftover factors are most of a call."""
        key = ("risk-factors", old, new, embed is not None)
        cached = self.pairs.get(snap.version, key)
        if cached is not None:
            return cached  # type: ignore[no-any-return]
        chunks = snap.query(RISK_CHUNKS, {"old": old, "new": new})
        found = changes.compare_risk_factors(
            changes.risk_factors(chunks, old), changes.risk_factors(chunks, new), embed
        )
        self.pairs.put(snap.version, key, found)
        return found

    def calls_an_endpoint(self) -> bool:
        """Whether the comparison embeds sections through an embeddings endpoint outside the
        server (`embed_backend=openai`) rather than a model loaded in-process."""
        return self.retrieval.embed_backend == "openai"

    def text_embedder(self) -> changes.Embed | None:
        """The server's embedder as a function of texts (shared with changes_across), or None
        when none loads: then risk factors are matched by their words only."""
        try:
            embedder = shared_embedder(self.retrieval)
        except (GraphragError, OSError, ImportError) as exc:
            log.warning("what_changed matches by words only: no embedder (%s)", exc)
            return None

        def embed(texts: list[str]) -> Any:
            return embedder.embed(texts)

        return embed

    def what_changed(
        self,
        company_id: Annotated[
            str,
            Field(
                min_length=1,
                max_length=64,
                description="company_id from find_company (CIK-0001045810); a CIK or exact ticker "
                "also "
                "works",
            ),
        ],
        from_filing: Annotated[
            str | None,
            Field(
                max_length=64,
                pattern=FILING_ID_PATTERN,
                description="the older filing's filing_id (explore_company lists them); omit for "
                "the "
                "default",
            ),
        ] = None,
        to_filing: Annotated[
            str | None,
            Field(
                max_length=64,
                pattern=FILING_ID_PATTERN,
                description="the newer filing's filing_id; omit for the default",
            ),
        ] = None,
    ) -> WhatChangedResult:
        """What a company's newer filing changes against an older one: risk factors added,
        removed and materially reworded, relations added and dropped, guidance revised,
        reported figures restated or recast.

        Use this for "what is new in NVIDIA's latest 10-K?", "which risk factors did Tesla
        add?", "who are the new suppliers or competitors?", "what guidance moved?". Default:
        the company's latest two filings of the same form (two 10-Ks, or two 10-Qs); name
        `from_filing` and `to_filing` (filing ids from explore_company) to compare others, a
        10-K with a later 10-Q for instance.

        Risk factors (Item 1A) are paired by heading, by shared words, then by meaning (the
        embedding model); `risk_factors_reworded` cites the factor in both filings (old, new)
        with how it was matched and how similar it is; added and removed factors are cited in
        the one filing that has them (a 10-Q states only the factors that changed since the
        10-K, so against a 10-Q nothing is listed as removed; `notes` says so). Relations
        (SUPPLIES, CUSTOMER_OF, COMPETES_WITH, SUBSIDIARY_OF) are added when only the newer
        filing states them and dropped when only the older one did, each with the sentence
        that states it. `guidance_revised`: a figure
        guided in the older filing and revised in the newer one (values in `unit`, full units:
        USD, not millions), both cited. `metrics_restated`: reported figures the newer filing
        states differently for the same period (a restatement, or a recast after a stock split
        or an accounting change, with `reason` and `detail`), old and new value each cited to
        its XBRL fact. Cite with the [n] evidence numbers; get_chunk reads a cited chunk
        whole. For one topic across every company ("who added an export-control risk factor
        this year?") use changes_across.
        """
        with self.ctx.lease() as snap:
            company = resolve_company(snap, company_id)
            filings = snap.query(COMPANY_FILINGS, {"cik": company["cik"]})
            old, new = choose_filings(filings, from_filing, to_filing)
            ids = {"old": old["filing_id"], "new": new["filing_id"]}
            edges = snap.query(COMPANY_EDGES, {"company": company["company_id"]})
            evidence = snap.query(EDGE_CITATIONS, {"company": company["company_id"], **ids})
            observations = snap.query(FILING_METRICS, {"cik": company["cik"], **ids})
            embed = self.text_embedder()
            factors = self.risk_changes(snap, old["filing_id"], new["filing_id"], embed)
            found = changes.compare_filings(
                edges, evidence, old["filing_id"], new["filing_id"], factors, observations
            )
            return _result(
                stamp(snap), company, old, new, found, edges, evidence, embed is not None
            )


def _result(
    stamp: dict[str, Any],
    company: dict[str, Any],
    old: dict[str, Any],
    new: dict[str, Any],
    found: changes.Changes,
    edges: list[dict[str, Any]],
    evidence: list[dict[str, Any]],
    by_meaning: bool,
) -> WhatChangedResult:
    filings = {f["filing_id"]: f for f in (old, new)}

    def factor(f: changes.RiskFactor) -> RiskFactorItem:
        meta = filings[f.filing_id]
        excerpt = f.body[:EXCERPT_CHARS] + ("…" if len(f.body) > EXCERPT_CHARS else "")
        return RiskFactorItem(
            heading=f.heading,
            excerpt=excerpt,
            citation=Citation(
                filing_id=f.filing_id,
                form=meta["form"],
                filed_date=meta["filed_date"],
                section=f.section,
                chunk_id=f.chunk_id,
            ),
        )

    cites = {r["evidence_id"]: r for r in evidence}
    edge_rows = {r["edge_id"]: r for r in edges}
    names: dict[str, str | None] = {}
    for r in edge_rows.values():
        names[r["subject_id"]] = r.get("subject_name")
        names[r["object_id"]] = r.get("object_name")

    def citation(ev: dict[str, Any]) -> Citation:
        return Citation(
            filing_id=ev["filing_id"],
            form=ev.get("form"),
            filed_date=ev.get("filed_date"),
            section=ev.get("section"),
            chunk_id=ev.get("chunk_id"),
        )

    def relation(c: changes.RelationChange) -> RelationItem:
        ev = cites[c.evidence_ids[0]]
        return RelationItem(
            subject_id=c.subject_id,
            subject_name=names.get(c.subject_id),
            relation=c.relation,
            object_id=c.object_id,
            object_name=names.get(c.object_id),
            quote=ev["quote"],
            citation=citation(ev),
        )

    def first_cite(edge_id: str, filing_id: str) -> dict[str, Any]:
        return next(
            r for r in cites.values() if r["edge_id"] == edge_id and r["filing_id"] == filing_id
        )

    def value_range(row: dict[str, Any]) -> list[float] | None:
        low, high = row.get("value_low"), row.get("value_high")
        return [low, high] if low is not None and high is not None else None

    guidance = []
    for g in found.guidance:
        was, now = edge_rows[g.old_edge_id], edge_rows[g.new_edge_id]
        old_ev, new_ev = (
            first_cite(g.old_edge_id, old["filing_id"]),
            first_cite(g.new_edge_id, new["filing_id"]),
        )
        guidance.append(
            GuidanceItem(
                metric_id=g.metric_id,
                period=now.get("period"),
                unit=now.get("unit"),
                old_value=was.get("value"),
                old_range=value_range(was),
                old_quote=old_ev["quote"],
                old_citation=citation(old_ev),
                new_value=now.get("value"),
                new_range=value_range(now),
                new_quote=new_ev["quote"],
                new_citation=citation(new_ev),
            )
        )

    def fact_citation(row: Any) -> Citation:
        meta = filings[row["filing_id"]]
        return Citation(
            filing_id=row["filing_id"],
            form=meta["form"],
            filed_date=meta["filed_date"],
            section=row.get("section"),
            chunk_id=row.get("chunk_id"),
            fact_id=row.get("fact_id"),
            concept=row.get("concept"),
        )

    restated = [
        RestatedMetric(
            metric=m.old["metric"],
            fiscal_label=m.new.get("fiscal_label") or m.old.get("fiscal_label"),
            calendar_start=m.old["calendar_start"],
            calendar_end=m.old["calendar_end"],
            unit=m.old["unit"],
            old_value=m.old["value"],
            new_value=m.new["value"],
            reason=m.old.get("supersede_reason") or "unknown",
            detail=m.old.get("supersede_detail"),
            old_citation=fact_citation(m.old),
            new_citation=fact_citation(m.new),
        )
        for m in found.metrics
    ]
    by_kind = {
        k: [c for c in found.risk_factors if c.kind == k] for k in ("added", "removed", "reworded")
    }
    notes = []
    if str(new.get("form") or "").startswith("10-Q") and by_kind["removed"]:
        # A 10-Q's Item 1A states only what changed since the annual report: a factor it does
        # not repeat still stands, so nothing is listed as removed.
        notes.append(
            f"{new['form']} restates only the risk factors that changed since the 10-K; the "
            f"{len(by_kind['removed'])} factors of the older filing it does not repeat still "
            "stand and are not listed as removed"
        )
        by_kind["removed"] = []
    return WhatChangedResult(
        **stamp,
        company_id=company["company_id"],
        name=company["name"],
        from_filing=FilingRef(
            **{k: old[k] for k in ("filing_id", "form", "filed_date", "period_end")}
        ),
        to_filing=FilingRef(
            **{k: new[k] for k in ("filing_id", "form", "filed_date", "period_end")}
        ),
        risk_factors_added=[factor(c.new) for c in by_kind["added"] if c.new],
        risk_factors_removed=[factor(c.old) for c in by_kind["removed"] if c.old],
        risk_factors_reworded=[
            RewordedRiskFactor(
                old=factor(c.old),
                new=factor(c.new),
                matched_by=c.matched_by or "words",
                heading_similarity=c.heading_similarity,
                body_similarity=c.body_similarity,
            )
            for c in by_kind["reworded"]
            if c.old and c.new
        ],
        risk_factors_unchanged=found.unchanged_risk_factors,
        matched_by_meaning=by_meaning,
        relations_added=[relation(c) for c in found.relations if c.kind == "added"],
        relations_dropped=[relation(c) for c in found.relations if c.kind == "dropped"],
        guidance_revised=guidance,
        metrics_restated=restated,
        notes=notes,
    )
