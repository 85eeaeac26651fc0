"""Themes from the filings' own risk factors and MD&A statements, as community_themes serves them
(issue 25, item 2): which themes fit a question, over which filings, and how many companies,
filings, risk factors and MD&A statements back each.

    window   the members (risk factors, MD&A statements) of filings in the period asked about
             (a fiscal label, or a calendar range the period end falls in) and known by `as_of`
             (filed on or before it; a filing without a filing date by its period end); without
             a period, filings known more than `max_age_days` before as_of are left out unless
             `include_old`
    match    a question matches a theme by words (every query word, stemmed, in one member's
             heading or first sentence, or in the theme's label) or by meaning (a member's
             MiniLM vector within MEANING_MATCH of the question's); members are ranked by
             meaning plus their share of the query words
    count    companies, filings and fiscal periods are counted over the window's members, so a
             theme for FY2024 says how many FY2024 filings state it

SQL alone (no Polars): the MCP server imports this through the store. The vectors compared are
the snapshot's (built by graphrag_core.retrieval.themes); the question's vector is the caller's.
"""

from __future__ import annotations

import datetime as dt
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

from graphrag_core.common.periods import PeriodFilter, period_label
from graphrag_core.common.search_terms import search_terms

# Cosine between a question's MiniLM vector and a member's (heading + first sentence) above which
# the member is about the question. Short questions score low against whole sentences: on the
# corpus "cybersecurity" finds its factors at 0.52-0.56, "climate change" at 0.62-0.71, while
# unrelated factors stay under 0.4.
MEANING_MATCH = 0.45
# Weight of the share of query words a member holds, added to its cosine when ranking.
WORD_WEIGHT = 0.5


class SnapshotLike(Protocol):
    def query(
        self, sql: str, params: Sequence[Any] | Mapping[str, Any] = ...
    ) -> list[dict[str, Any]]: ...


_MEMBERS = """
SELECT m.member_id, m.theme_id, m.company_id, coalesce(c.name, m.company) AS company,
       c.tickers, m.filing_id, m.form, m.fiscal_label, m.period_end, m.filed_date,
       coalesce(m.filed_date, m.period_end) AS known, m.chunk_id, m.section, m.heading,
       m.opening, m.vector, m.similarity, m.kind,
       t.label, t.terms, t.stale
FROM filing_theme_members m
JOIN filing_themes t USING (theme_id)
LEFT JOIN companies c USING (company_id)
WHERE ($label IS NULL OR m.fiscal_label = $label)
  AND ($start IS NULL OR m.period_end BETWEEN $start AND $end)
  AND ($as_of IS NULL OR coalesce(m.filed_date, m.period_end) <= $as_of)
  AND ($any_company OR list_contains($companies, m.company_id))
ORDER BY m.theme_id, m.member_id
"""


# A snapshot published before MD&A members has no `kind` column (its members are risk factors).
_HAS_KINDS = """
SELECT 1 FROM information_schema.columns
WHERE table_name = 'filing_theme_members' AND column_name = 'kind'
"""


@dataclass
class ThemeMatch:
    theme_id: str
    label: str
    terms: list[str]
    stale: bool
    matched_by: str  # words, meaning, words+meaning, or all (no question)
    relevance: float
    companies: int
    filings: int
    risk_factors: int  # members of each kind in the window
    mdna_statements: int
    fiscal_periods: list[str]
    first_period_end: dt.date | None
    last_period_end: dt.date | None
    newest: dt.date | None
    members: list[dict[str, Any]]  # the best member of each company, best first
    members_total: int


@dataclass
class ThemeWindow:
    themes: list[ThemeMatch]
    matched: int  # themes that fit before `limit`
    as_of: dt.date | None
    old_filings_left_out: int
    oldest_kept: dt.date | None
    notes: list[str] = field(default_factory=list)


def filing_label(fiscal_period: str | None, fiscal_year: int | None) -> str | None:
    """A filing's fiscal label from its metadata ('FY', 2025 → 'FY2025'; 'Q2', 2026 →
    'Q2-FY2026'); None without a fiscal year or with an unknown part."""
    if not fiscal_year:
        return None
    try:
        return period_label(fiscal_period, int(fiscal_year))
    except ValueError:
        return None


def _cosine(a: Sequence[float] | None, b: Sequence[float] | None) -> float:
    if a is None or b is None or len(a) != len(b):
        return 0.0
    value = sum(x * y for x, y in zip(a, b, strict=True))
    return value if math.isfinite(value) else 0.0


def _word_share(terms: set[str], text: str) -> float:
    if not terms:
        return 0.0
    return len(terms & set(search_terms(text))) / len(terms)


def filing_themes(
    snap: SnapshotLike,
    *,
    query: str | None,
    query_vector: Sequence[float] | None,
    period: PeriodFilter | None,
    as_of: dt.date | None,
    include_old: bool,
    max_age_days: int,
    companies: Sequence[str] | None,
    limit: int,
    min_companies: int = 2,
    members_per_theme: int = 6,
) -> ThemeWindow:
    """The themes that fit the question in the window (see the module), best first."""
    if not snap.query(_HAS_KINDS):
        return ThemeWindow(
            [],
            0,
            as_of,
            0,
            None,
            [
                "this snapshot's filing themes were built before MD&A statements joined them "
                "(no member kinds); publish a new one"
            ],
        )
    rows = snap.query(
        _MEMBERS,
        {
            "label": period.label if period else None,
            "start": period.start if period else None,
            "end": period.end if period else None,
            "as_of": as_of,
            "any_company": companies is None,
            "companies": list(companies or []),
        },
    )
    notes: list[str] = []
    left_out: set[str] = set()
    if (period is None or period.kind is None) and not include_old and as_of is not None:
        cutoff = as_of - dt.timedelta(days=max_age_days)
        kept = []
        for r in rows:
            if r["known"] is not None and r["known"] < cutoff:
                left_out.add(r["filing_id"])
            else:
                kept.append(r)
        rows = kept
        if left_out:
            notes.append(
                f"{len(left_out)} filing(s) known before {cutoff.isoformat()} ({max_age_days} "
                f"days before as_of {as_of.isoformat()}) are left out as out of date; pass "
                "include_old=true to count them, or a period"
            )
    terms = set(dict.fromkeys(search_terms(query)))
    by_theme: dict[str, list[dict[str, Any]]] = {}
    for r in rows:
        words = _word_share(terms, f"{r['heading']} {r['opening'] or ''}")
        meaning = _cosine(query_vector, r["vector"]) if query_vector is not None else 0.0
        r["word_share"], r["meaning"] = words, meaning
        r["score"] = meaning + WORD_WEIGHT * words
        by_theme.setdefault(r["theme_id"], []).append(r)
    found: list[ThemeMatch] = []
    for theme_id, members in by_theme.items():
        first = members[0]
        label_share = _word_share(terms, " ".join(first["terms"] or []))
        by_words = bool(terms) and (
            label_share == 1.0 or any(m["word_share"] == 1.0 for m in members)
        )
        by_meaning = query_vector is not None and any(
            m["meaning"] >= MEANING_MATCH for m in members
        )
        if (terms or query_vector is not None) and not (by_words or by_meaning):
            continue
        how = (
            "all"
            if not (terms or query_vector is not None)
            else "+".join(n for n, ok in (("words", by_words), ("meaning", by_meaning)) if ok)
        )
        best: dict[str, dict[str, Any]] = {}
        for m in members:
            key = m["company_id"]
            rank = (m["score"], m["known"] or dt.date.min, m["member_id"])
            held = best.get(key)
            if held is None or rank > (
                held["score"],
                held["known"] or dt.date.min,
                held["member_id"],
            ):
                best[key] = m
        shown = sorted(
            best.values(),
            key=lambda m: (
                -m["score"],
                -(m["known"] or dt.date.min).toordinal(),
                m["company"] or "",
            ),
        )
        ends = [m["period_end"] for m in members if m["period_end"] is not None]
        known = [m["known"] for m in members if m["known"] is not None]
        found.append(
            ThemeMatch(
                theme_id=theme_id,
                label=first["label"],
                terms=list(first["terms"] or []),
                stale=bool(first["stale"]),
                matched_by=how,
                relevance=round(max(m["score"] for m in members) + label_share * WORD_WEIGHT, 4),
                companies=len(best),
                filings=len({m["filing_id"] for m in members}),
                risk_factors=sum(1 for m in members if m["kind"] != "mdna"),
                mdna_statements=sum(1 for m in members if m["kind"] == "mdna"),
                fiscal_periods=sorted({m["fiscal_label"] for m in members if m["fiscal_label"]}),
                first_period_end=min(ends) if ends else None,
                last_period_end=max(ends) if ends else None,
                newest=max(known) if known else None,
                members=shown[:members_per_theme],
                members_total=len(members),
            )
        )
    # A theme is across companies: in this window it must still span `min_companies`.
    found = [t for t in found if t.companies >= min_companies]
    if terms or query_vector is not None:
        found.sort(key=lambda t: (-t.relevance, -t.companies, t.theme_id))
    else:
        found.sort(key=lambda t: (-t.companies, -t.filings, t.theme_id))
    oldest = min((r["known"] for r in rows if r["known"] is not None), default=None)
    return ThemeWindow(found[:limit], len(found), as_of, len(left_out), oldest, notes)
