"""The global search over a snapshot's community reports: which reports fit a question (sector,
words, level), and their findings merged into one bounded, de-duplicated, cited answer.

    map     every report is scored against the question: the share of its member companies in
            the sector asked about (its SIC codes, resolved by the caller with
            `common.sectors.resolve_sector`, as every tool's `sector` is), and the weight of
            the question's
            words in its title, summary, findings and member names (`community_terms`, BM25
            weights computed when the snapshot is built)
    level   chosen for the question (unless given): a broad question (no sector, no words) reads
            the roots, where each report covers the most; otherwise the search starts at the
            roots that match and descends into a matching child whenever the child is more
            focused on the question than its parent (a higher sector share or word density),
            so a question about one sector lands on the communities where that sector is
            concentrated, at whatever depth that is
    reduce  the findings of the chosen reports, merged by theme (the companies reporting one
            risk category in several communities become one finding naming them all; with a
            sector, only the sector's companies are named), ranked by how many companies and
            citations back them, each restated from the entities it names and cited to their
            evidence; at most `limit` themes, a few citations each

Everything here is deterministic and reads the snapshot through SQL alone (no Polars: the MCP
server imports it); a caller with a model endpoint may pass the result to
`model_answer` (an OpenAI-compatible chat call) for a written answer whose every sentence cites
themes by number, checked like the reports' findings.
"""

from __future__ import annotations

import datetime as dt
import json
import math
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

from graphrag_core.common.periods import PeriodFilter
from graphrag_core.common.search_terms import search_terms
from graphrag_core.common.sectors import SectorMatch
from graphrag_core.graph.communities.statements import (
    MODEL_FINDING,
    RISK_FINDING,
    render_statement,
)
from graphrag_core.store.theme_search import filing_label


# -- the question ---------------------------------------------------------------------------
class SnapshotLike(Protocol):
    def query(
        self, sql: str, params: Sequence[Any] | Mapping[str, Any] = ...
    ) -> list[dict[str, Any]]: ...


_CANDIDATES = """
WITH sec AS (
    SELECT community_id, sum(companies) AS sector_companies
    FROM community_sectors WHERE list_contains($sics, sic) GROUP BY community_id
),
txt AS (
    SELECT community_id, sum(weight) AS text_score, count(DISTINCT term) AS terms_matched
    FROM community_terms WHERE list_contains($terms, term) GROUP BY community_id
)
SELECT c.community_id, c.level, c.parent_id, c.is_leaf, c.size, c.companies,
       r.title, r.summary, r.impact_rating, r.impact_explanation, r.stale, r.as_of, r.graph_version,
       r.members, r.evidence, r.sector_mix, r.risks, r.relations, r.member_companies,
       coalesce(sec.sector_companies, 0) AS sector_companies,
       coalesce(txt.text_score, 0.0) AS text_score, coalesce(txt.terms_matched, 0) AS terms_matched
FROM communities c
JOIN community_reports r USING (community_id)
LEFT JOIN sec USING (community_id)
LEFT JOIN txt USING (community_id)
WHERE ($has_sector = false OR sec.sector_companies > 0)
  AND ($has_terms = false OR txt.text_score > 0)
  AND ($level IS NULL OR c.level = $level OR (c.is_leaf AND c.level < $level))
  AND ($broad = false OR c.level = 0)
"""

_FINDINGS = """
SELECT f.community_id, f.finding_id, f.rank, f.kind, f.theme, f.label, f.relation, f.anchor_id,
       f.anchor_name, f.statement, f.partners, f.partner_count, f.support, f.citations
FROM community_findings f
WHERE list_contains($ids, f.community_id)
ORDER BY f.community_id, f.rank
"""

_SECTOR_COMPANIES = """
SELECT company_id FROM companies WHERE list_contains($sics, sic)
"""

_CITATION_DETAIL = """
SELECT c.chunk_id, c.section, f.form, f.filed_date
FROM chunks c JOIN filings f USING (filing_id)
WHERE list_contains($chunks, c.chunk_id)
"""

FOCUS_GAIN = 1.0  # a child is chosen over its parent only when strictly more focused


@dataclass
class Selected:
    row: dict[str, Any]
    relevance: float
    focus: float


@dataclass
class ThemesAnswer:
    level: int | None
    levels_used: list[int]
    selection: str
    sector: SectorMatch | None
    terms: list[str]
    communities: list[Selected]
    themes: list[dict[str, Any]]
    withheld: int
    stale: int
    truncated: bool
    note: str | None = None
    answer: str = ""
    answer_by: str = "deterministic"
    extra: dict[str, Any] = field(default_factory=dict)


def _focus(row: dict[str, Any], has_sector: bool, has_terms: bool) -> float:
    """How much of a community the question is about: its sector share and/or word density."""
    parts = []
    if has_sector:
        parts.append(row["sector_companies"] / max(row["companies"] or 0, 1))
    if has_terms:
        parts.append(row["text_score"] / math.log(2 + (row["members"] or 1)))
    return sum(parts) / len(parts) if parts else 1.0


def _relevance(row: dict[str, Any], has_sector: bool, has_terms: bool) -> float:
    """What a report is ranked by: how much of the question it covers (sector companies, word
    weight), its focus, and its impact."""
    cover = 1.0
    if has_sector:
        cover *= 1 + math.log1p(row["sector_companies"])
    if has_terms:
        cover *= row["text_score"] * (1 + row["terms_matched"])
    return (
        cover
        * (0.5 + _focus(row, has_sector, has_terms))
        * (0.5 + (row["impact_rating"] or 0) / 10)
    )


def choose(
    rows: list[dict[str, Any]], *, has_sector: bool, has_terms: bool, level: int | None
) -> tuple[list[Selected], str]:
    """The communities that answer the question (see the module: dynamic level selection)."""
    if level is not None or not (has_sector or has_terms):
        why = (
            f"level {level} as asked"
            if level is not None
            else "a broad question: the roots (level 0), each covering the most"
        )
        return [
            Selected(r, _relevance(r, has_sector, has_terms), _focus(r, has_sector, has_terms))
            for r in rows
        ], why
    by_parent: dict[str | None, list[dict[str, Any]]] = {}
    for r in rows:
        by_parent.setdefault(r["parent_id"], []).append(r)
    ids = {r["community_id"] for r in rows}
    # Roots of the search: matching communities whose parent does not match.
    frontier = [r for r in rows if r["parent_id"] not in ids]
    picked: list[Selected] = []
    descents = 0
    while frontier:
        r = frontier.pop()
        focus = _focus(r, has_sector, has_terms)
        kids = by_parent.get(r["community_id"], [])
        if kids and max(_focus(k, has_sector, has_terms) for k in kids) > focus * FOCUS_GAIN:
            descents += 1
            frontier.extend(kids)
            continue
        picked.append(Selected(r, _relevance(r, has_sector, has_terms), focus))
    levels = sorted({s.row["level"] for s in picked})
    why = (
        f"started at the matching roots and descended {descents} "
        f"time{'s' if descents != 1 else ''} "
        f"into sub-communities more focused on the question; answered from level"
        f"{'s' if len(levels) > 1 else ''} {', '.join(map(str, levels)) or '-'}"
    )
    return picked, why


def _restate(theme: dict[str, Any]) -> str:
    if theme["kind"] == MODEL_FINDING:
        return str(theme["statement"])
    names = [p["name"] for p in theme["partners"]]
    return render_statement(theme["kind"], theme["relation"], theme["anchor_name"], names)


def reduce_findings(
    findings: list[dict[str, Any]],
    rank_of: dict[str, int],
    *,
    terms: Sequence[str],
    sector_companies: set[str] | None,
    limit: int,
    names_per_theme: int,
    citations_per_theme: int,
) -> tuple[list[dict[str, Any]], bool]:
    """Findings of the chosen communities → themes (see the module)."""
    merged: dict[str, dict[str, Any]] = {}
    wanted = set(terms)
    for f in findings:
        partners = list(f["partners"] or [])
        if sector_companies is not None and f["kind"] != MODEL_FINDING:
            # A sector question names the sector's companies: as the ones exposed to a risk or
            # named by a relation, or as the relation's anchor.
            if f["kind"] == RISK_FINDING or f["anchor_id"] not in sector_companies:
                partners = [p for p in partners if p["entity_id"] in sector_companies]
                if not partners:
                    continue
        elif sector_companies is not None:
            if not any(c["entity_id"] in sector_companies for c in f["citations"] or []):
                continue
        text = set(search_terms(f["statement"])) | set(search_terms(f["label"]))
        hits = len(wanted & text)
        if wanted and not hits and f["kind"] == MODEL_FINDING:
            continue
        key = f["theme"]
        t = merged.get(key)
        if t is None:
            t = merged[key] = {
                "theme": key,
                "kind": f["kind"],
                "label": f["label"],
                "relation": f["relation"],
                "anchor_id": f["anchor_id"],
                "anchor_name": f["anchor_name"],
                "statement": f["statement"],
                "partners": [],
                "support": 0,
                "communities": [],
                "hits": 0,
                "best_rank": 10**9,
                "citations": [],
            }
        seen = {p["entity_id"] for p in t["partners"]}
        for p in partners:
            if p["entity_id"] not in seen:
                t["partners"].append(p)
                seen.add(p["entity_id"])
        if f["kind"] == MODEL_FINDING:
            t["citations"].extend(f["citations"] or [])
        t["support"] += int(
            sum(p["evidence"] or 0 for p in partners) if partners else f["support"] or 0
        )
        t["communities"].append(f["community_id"])
        t["hits"] = max(t["hits"], hits)
        t["best_rank"] = min(t["best_rank"], rank_of.get(f["community_id"], 10**6))
    themes = list(merged.values())
    for t in themes:
        t["partners"].sort(key=lambda p: (-(p["evidence"] or 0), p["name"] or ""))
        t["companies"] = len(t["partners"])
        t["partners"] = t["partners"][:names_per_theme]
        if t["kind"] != MODEL_FINDING:
            # One citation per entity named (the statement carries each one's number), even
            # where two share a sentence.
            t["citations"] = [p["citation"] for p in t["partners"] if p["citation"] is not None]
        else:
            t["citations"] = _dedupe(t["citations"])[:citations_per_theme]
        t["statement"] = _restate(t)
    if wanted and any(t["hits"] for t in themes):
        # A question in words is answered by the findings that speak of them.
        themes = [t for t in themes if t["hits"]]
    themes.sort(
        key=lambda t: (-t["hits"], -t["companies"], -t["support"], t["best_rank"], t["theme"])
    )
    return themes[:limit], len(themes) > limit


def _dedupe(citations: list[dict[str, Any]]) -> list[dict[str, Any]]:
    seen: set[tuple[str, str]] = set()
    out = []
    for c in citations:
        key = (c["chunk_id"], c["quote"] or c["evidence_id"])
        if key not in seen:
            seen.add(key)
            out.append(c)
    return out


def community_themes(
    snap: SnapshotLike,
    *,
    sector: SectorMatch | None,
    query: str | None,
    level: int | None,
    limit: int,
    communities_shown: int = 8,
    names_per_theme: int = 8,
    citations_per_theme: int = 3,
) -> ThemesAnswer:
    """The deterministic global search (see the module); `sector` is the caller's resolved
    `sector` argument (None: every sector)."""
    match = sector
    sics = list(match.sic_codes) if match else []
    terms = list(dict.fromkeys(search_terms(query)))
    has_sector, has_terms = match is not None, bool(terms)
    if match is not None and not sics:
        return ThemesAnswer(
            level,
            [],
            "no community matches",
            match,
            terms,
            [],
            [],
            0,
            0,
            False,
            note=f"no company in this snapshot has a SIC code in sector {match.text!r}; "
            "try another name (e.g. 'semiconductors', 'banks', 'software'), a SIC "
            "code, or ask with query= instead",
        )
    rows = snap.query(
        _CANDIDATES,
        {
            "sics": sics,
            "terms": terms,
            "has_sector": has_sector,
            "has_terms": has_terms,
            "level": level,
            "broad": level is None and not (has_sector or has_terms),
        },
    )
    picked, why = choose(rows, has_sector=has_sector, has_terms=has_terms, level=level)
    picked.sort(key=lambda s: (-s.relevance, s.row["community_id"]))
    top = picked[: max(communities_shown, limit)]
    withheld = snap.query("SELECT count(*) AS n FROM communities WHERE report_status = 'withheld'")[
        0
    ]["n"]
    if not top:
        return ThemesAnswer(
            level,
            [],
            why,
            match,
            terms,
            [],
            [],
            int(withheld),
            0,
            False,
            note="no community report matches; try fewer words, another sector or no level",
        )
    rank_of = {s.row["community_id"]: i for i, s in enumerate(top)}
    findings = snap.query(_FINDINGS, {"ids": list(rank_of)})
    sector_companies = None
    if has_sector:
        sector_companies = {r["company_id"] for r in snap.query(_SECTOR_COMPANIES, {"sics": sics})}
    themes, truncated = reduce_findings(
        findings,
        rank_of,
        terms=terms,
        sector_companies=sector_companies,
        limit=limit,
        names_per_theme=names_per_theme,
        citations_per_theme=citations_per_theme,
    )
    chunks = sorted({c["chunk_id"] for t in themes for c in t["citations"] if c["chunk_id"]})
    detail = (
        {r["chunk_id"]: r for r in snap.query(_CITATION_DETAIL, {"chunks": chunks})}
        if chunks
        else {}
    )
    for t in themes:
        t["citations"] = [
            {**c, **{k: v for k, v in detail.get(c["chunk_id"], {}).items() if k != "chunk_id"}}
            for c in t["citations"]
        ]
    shown = top[:communities_shown]
    levels_used = sorted({s.row["level"] for s in top})
    return ThemesAnswer(
        level=level if level is not None else (max(levels_used) if levels_used else None),
        levels_used=levels_used,
        selection=why,
        sector=match,
        terms=terms,
        communities=shown,
        themes=themes,
        withheld=int(withheld),
        stale=sum(1 for s in top if s.row["stale"]),
        truncated=truncated or len(picked) > len(top),
        answer=" ".join(t["statement"] for t in themes[:5]),
    )


# -- an answer written by a model -------------------------------------------------------------
REDUCE_SYSTEM = """\
You answer an analyst's question from themes found in SEC filings. Each theme is numbered (T1,
T2, ...) and backed by citations. Write a short answer (at most 6 sentences) using only the
themes; end every sentence with the theme numbers it rests on, like [T1][T3]. Answer with JSON
only: {"answer": str}"""
_THEME_REF = re.compile(r"\[T(\d+)\]")


def model_prompt(question: str, themes: list[dict[str, Any]]) -> list[dict[str, str]]:
    lines = [f"Question: {question}", "Themes:"]
    lines.extend(f"T{i} ({t['label']}): {t['statement']}" for i, t in enumerate(themes, 1))
    return [
        {"role": "system", "content": REDUCE_SYSTEM},
        {"role": "user", "content": "\n".join(lines)},
    ]


def check_model_answer(text: str, themes: list[dict[str, Any]]) -> str | None:
    """The model's answer when every sentence cites existing themes, else None."""
    try:
        value = json.loads(re.sub(r"^\s*```(?:json)?\s*|\s*```\s*$", "", text or "", flags=re.S))
    except json.JSONDecodeError:
        return None
    answer = str(value.get("answer") or "").strip() if isinstance(value, dict) else ""
    if not answer:
        return None
    sentences = [s for s in re.split(r"(?<=[.!?\]])\s+(?=[A-Z])", answer) if s.strip()]
    for s in sentences:
        refs = [int(n) for n in _THEME_REF.findall(s)]
        if not refs or any(not 1 <= n <= len(themes) for n in refs):
            return None
    return answer


# -- a period or date (issue 25, item 3) -----------------------------------------------------
_FILING_DATES = """
SELECT filing_id, fiscal_year, fiscal_period, period_end,
       coalesce(filed_date, period_end) AS known
FROM filings WHERE list_contains($ids, filing_id)
"""


def in_period(period: PeriodFilter, label: str | None, period_end: dt.date | None) -> bool:
    """A filing of this fiscal label and period end is for the period: the same fiscal label,
    or a period end inside the calendar range."""
    if period.label is not None:
        return label == period.label
    return (
        period_end is not None
        and period.start is not None
        and period.end is not None
        and (period.start <= period_end <= period.end)
    )


# The citations of edges, newest first, with their filings' periods and dates: a partner whose
# stored citation falls outside a window is cited again from a filing inside it.
_EDGE_CITATIONS = """
SELECT v.edge_id, v.evidence_id, v.filing_id, v.chunk_id, v.quote, v.section, v.form,
       v.filed_date, f.fiscal_year, f.fiscal_period, f.period_end,
       coalesce(f.filed_date, f.period_end) AS known
FROM edge_evidence v JOIN filings f USING (filing_id)
WHERE list_contains($edge_ids, v.edge_id) AND v.quote IS NOT NULL AND v.chunk_id IS NOT NULL
ORDER BY v.edge_id, v.citation_rank
"""


def relation_themes_in_window(
    snap: SnapshotLike,
    themes: list[dict[str, Any]],
    period: PeriodFilter | None,
    as_of: dt.date | None,
) -> list[dict[str, Any]]:
    """The relation communities' themes with only the citations of filings in the window (for
    the period, known by as_of); a theme left with none is dropped. Reports are built over the
    whole graph, so this is what a period or date can do to them without a rebuild. A report
    keeps each partner's newest citation: a partner cited there from a filing outside the window
    is cited again from the newest filing inside it that states the same edge (as of an earlier
    date, the older filing that named it), and left out only when none does."""
    if period is None and as_of is None:
        return themes
    ids = sorted({c["filing_id"] for t in themes for c in t["citations"] if c.get("filing_id")})
    dates = {r["filing_id"]: r for r in snap.query(_FILING_DATES, {"ids": ids})} if ids else {}

    def in_window(row: dict[str, Any] | None) -> bool:
        if row is None:
            return False
        if as_of is not None and (row["known"] is None or row["known"] > as_of):
            return False
        label = filing_label(row["fiscal_period"], row["fiscal_year"])
        return period is None or in_period(period, label, row["period_end"])

    def inside(filing_id: str | None) -> bool:
        return in_window(dates.get(filing_id or ""))

    outside = sorted(
        {
            p["edge_id"]
            for t in themes
            if t["kind"] != MODEL_FINDING
            for p in t["partners"]
            if p.get("edge_id") and not (p.get("citation") and inside(p["citation"]["filing_id"]))
        }
    )
    recited: dict[str, dict[str, Any]] = {}
    for r in snap.query(_EDGE_CITATIONS, {"edge_ids": outside}) if outside else []:
        if r["edge_id"] not in recited and in_window(r):
            recited[r["edge_id"]] = r
            dates.setdefault(r["filing_id"], r)

    def cited(p: dict[str, Any]) -> dict[str, Any] | None:
        if p.get("citation") and inside(p["citation"]["filing_id"]):
            return p
        r = recited.get(p.get("edge_id") or "")
        if r is None:
            return None
        citation = {
            "evidence_id": r["evidence_id"],
            "edge_id": r["edge_id"],
            "entity_id": p["entity_id"],
            "filing_id": r["filing_id"],
            "chunk_id": r["chunk_id"],
            "quote": r["quote"],
            "section": r["section"],
            "form": r["form"],
            "filed_date": r["filed_date"],
        }
        return {**p, "citation": citation}

    kept = []
    for t in themes:
        if t["kind"] == MODEL_FINDING:
            cites = [c for c in t["citations"] if inside(c.get("filing_id"))]
            if cites:
                kept.append({**t, "citations": cites})
            continue
        # A relation or risk finding names its partners, each by its own citation: only the
        # partners cited inside the window are named, and the sentence is restated for them.
        partners = [q for p in t["partners"] if (q := cited(p)) is not None]
        if partners:
            names = [p["name"] for p in partners]
            kept.append(
                {
                    **t,
                    "partners": partners,
                    "citations": [p["citation"] for p in partners],
                    "statement": render_statement(
                        t["kind"], t["relation"], t["anchor_name"], names
                    ),
                }
            )
    return kept


# Every filing stating an edge, with its filer and fiscal period (a theme's support).
_EDGE_FILINGS = """
SELECT DISTINCT v.edge_id, v.filing_id, f.cik, f.fiscal_year, f.fiscal_period, f.period_end,
       coalesce(f.filed_date, f.period_end) AS known
FROM edge_evidence v JOIN filings f USING (filing_id)
WHERE list_contains($edge_ids, v.edge_id)
"""


def theme_support(
    snap: SnapshotLike,
    themes: list[dict[str, Any]],
    period: PeriodFilter | None,
    as_of: dt.date | None,
) -> list[dict[str, Any]]:
    """How many companies (filers) and filings state what each theme's statement names, and in
    which fiscal periods: every filing of the window (the period, known by as_of) citing an edge
    behind it (the named partners' edges; a model finding's, its citations'). Per theme, in
    order: {"companies", "filings", "fiscal_periods"}."""
    edges_of = [
        sorted(
            {p["edge_id"] for p in t["partners"] if p.get("edge_id")}
            | {c["edge_id"] for c in t["citations"] if c.get("edge_id")}
        )
        for t in themes
    ]
    wanted = sorted({e for edges in edges_of for e in edges})
    by_edge: dict[str, list[dict[str, Any]]] = {}
    for r in snap.query(_EDGE_FILINGS, {"edge_ids": wanted}) if wanted else []:
        if as_of is not None and (r["known"] is None or r["known"] > as_of):
            continue
        r["label"] = filing_label(r["fiscal_period"], r["fiscal_year"])
        if period is not None and not in_period(period, r["label"], r["period_end"]):
            continue
        by_edge.setdefault(r["edge_id"], []).append(r)
    out = []
    for edges in edges_of:
        rows = [r for e in edges for r in by_edge.get(e, [])]
        out.append(
            {
                "companies": len({r["cik"] for r in rows}),
                "filings": len({r["filing_id"] for r in rows}),
                "fiscal_periods": sorted({r["label"] for r in rows if r["label"]}),
            }
        )
    return out
