"""`changes_across`: one topic across every company's filings compared (issue 25, item 1's
corpus-wide view) — "which companies added an export-control risk factor this year?".

For every company with two filings of one form whose newer filing falls in the period asked for,
the two filings' risk factors are compared as `what_changed` compares them
(`graphrag_core.retrieval.changes`), and the factors the newer filing adds or rewords are matched
to the topic by its words and by meaning (the packaged MiniLM). A snapshot never changes, so each
pair's comparison (what_changed's cache) and its factors' vectors are kept per snapshot version: a
second question on the same snapshot embeds only the topic.
"""

from __future__ import annotations

import datetime as dt
from typing import TYPE_CHECKING, Annotated, Any, Literal

from mcp.server.mcpserver.exceptions import ToolError
from pydantic import Field

import graphrag_core.retrieval.changes as changes
from graphrag_core.store.reader import PeriodFilter, period_label
from mcp_server.context import stamp
from mcp_server.graph_time import graph_time, time_filter
from mcp_server.models import Citation, Number, Output, Stamped, TimeFilter
from mcp_server.what_changed import (
    EXCERPT_CHARS,
    FilingRef,
    RiskFactorItem,
    WhatChangedTools,
)

if TYPE_CHECKING:
    from graphrag_core.store.reader import Snapshot

# Pairs compared in one answer at most (the newest first); `truncated` says when there are more.
MAX_PAIRS = 60

# Every company's filings of a form, each with the one of that form filed before it.
FILING_PAIRS = """
WITH f AS (
    SELECT f.filing_id, f.cik, f.company_id, f.form, f.filed_date, f.period_end, f.fiscal_year,
           f.fiscal_period,
           lag(f.filing_id) OVER w AS prev_id, lag(f.filed_date) OVER w AS prev_filed,
           lag(f.period_end) OVER w AS prev_end
    FROM filings f
    WHERE f.form = $form AND f.period_end IS NOT NULL
    WINDOW w AS (PARTITION BY f.cik, f.form ORDER BY f.filed_date NULLS FIRST, f.period_end,
                 f.filing_id)
)
SELECT f.*, c.name
FROM f LEFT JOIN companies c USING (cik)
WHERE f.prev_id IS NOT NULL
ORDER BY f.cik, f.filed_date DESC NULLS LAST, f.period_end DESC
"""


class TopicFactor(Output):
    kind: Literal["added", "reworded"] = Field(
        description="added: new in the newer filing; reworded: rewritten from `was`"
    )
    heading: str = Field(description="the factor's heading in the newer filing")
    excerpt: str = Field(description="the opening of its text")
    citation: Citation = Field(description="the newer filing's chunk that holds it")
    was: RiskFactorItem | None = Field(
        None, description="reworded: the factor it rewrites in the older filing, cited there"
    )
    matched_by: str = Field(
        description="how it matches the topic: words (every topic word in its heading or "
        "opening), meaning (close under the embedding model), or words+meaning"
    )
    similarity: Number = Field(
        None, description="cosine of the topic and the factor under the embedding model (0-1)"
    )


class CompanyChange(Output):
    company_id: str
    name: str | None = None
    from_filing: FilingRef = Field(description="the older filing compared")
    to_filing: FilingRef = Field(description="the newer filing, in the period asked for")
    factors: list[TopicFactor] = Field(description="its factors on the topic, best match first")


class ChangesAcrossResult(Stamped):
    topic: str
    form: str
    pairs_compared: int = Field(description="companies' pairs of filings compared")
    companies: list[CompanyChange] = Field(
        description="the companies whose newer filing adds or rewords a risk factor on the topic"
    )
    matched_by_meaning: bool = Field(
        description="false when the embedding model was unavailable: matched by words only"
    )
    truncated: bool = Field(description=f"more than {MAX_PAIRS} pairs were in the period")
    time_filter: TimeFilter | None = Field(
        None, description="the period the newer filings were chosen by; null: each latest pair"
    )
    note: str | None = None


# Days a filing of each form covers, ending at its period end (52/53-week years and 13-week
# quarters differ by days, which the half-overlap rule absorbs).
FORM_DAYS = {"10-K": 365, "10-Q": 91}


def _in_period(row: dict[str, Any], when: PeriodFilter) -> bool:
    """The newer filing is for the period: its fiscal label, or (a calendar period) its span
    shares at least half of the shorter of the two, as the graph tools match a filing's span
    (NVIDIA's fiscal 2025 10-K, February 2024 to January 2025, is for calendar 2024)."""
    if when.label:
        if row["fiscal_year"] is None:
            return False
        return period_label(row["fiscal_period"], int(row["fiscal_year"])) == when.label
    if when.start and when.end and row["period_end"]:
        end: dt.date = row["period_end"]
        start = end - dt.timedelta(days=FORM_DAYS.get(row["form"], 365) - 1)
        overlap = (min(end, when.end) - max(start, when.start)).days + 1
        shorter = min((end - start).days + 1, (when.end - when.start).days + 1)
        return 2 * overlap >= shorter
    return when.kind is None


def choose_pairs(rows: list[dict[str, Any]], when: PeriodFilter) -> list[dict[str, Any]]:
    """Per company, its pairs whose newer filing is in the period (no period: its latest pair
    only), newest first. `rows`: FILING_PAIRS' rows, by company, newest first."""
    out, seen = [], set()
    for row in rows:
        if when.kind is None:
            if row["cik"] not in seen:
                out.append(row)
        elif _in_period(row, when):
            out.append(row)
        seen.add(row["cik"])
    out.sort(key=lambda r: (r["filed_date"] or dt.date.min, r["filing_id"]), reverse=True)
    return out


class ChangesAcross:
    """changes_across, over what_changed's tools (its context, embedder and pair cache)."""

    def __init__(self, changed: WhatChangedTools):
        self.changed = changed
        self.ctx = changed.ctx

    def calls_an_endpoint(self) -> bool:
        """Whether the topic and the factors are embedded through an endpoint outside the
        server (what_changed's embedder, `embed_backend=openai`)."""
        return self.changed.calls_an_endpoint()

    def _pair(
        self, snap: Snapshot, old: str, new: str, embed: changes.Embed | None
    ) -> tuple[list[changes.FactorChange], dict[int, Any]]:
        """The pair's factor changes (what_changed's, shared through its cache) and the
        vectors of the newer filing's added and reworded factors, by index."""
        found, _ = self.changed.risk_changes(snap, old, new, embed)
        key = ("topic-vectors", old, new, embed is not None)
        cached = self.changed.pairs.get(snap.version, key)
        if cached is not None:
            return found, cached
        candidates = [
            (i, c.new) for i, c in enumerate(found) if c.new and c.kind in ("added", "reworded")
        ]
        vectors: dict[int, Any] = {}
        if embed is not None and candidates:
            matrix = embed([changes.topic_text(f) for _, f in candidates])
            vectors = dict(zip((i for i, _ in candidates), matrix, strict=True))
        self.changed.pairs.put(snap.version, key, vectors)
        return found, vectors

    def changes_across(
        self,
        topic: Annotated[
            str,
            Field(
                min_length=2,
                max_length=200,
                description="what the risk factors are about, in a few words ('export controls', "
                "'tariffs', 'inventory write-downs')",
            ),
        ],
        period: Annotated[
            str | None,
            Field(
                max_length=40,
                description="the newer filing's period: a fiscal label (FY2025, each company's "
                "own fiscal year; Q2-FY2026), a calendar year (2024), quarter (2024-Q3) or range "
                "(2024-07-01..2024-12-31); omit for each company's latest pair",
            ),
        ] = None,
        form: Annotated[
            Literal["10-K", "10-Q"],
            Field(description="compare annual reports (10-K) or quarterly reports (10-Q)"),
        ] = "10-K",
    ) -> ChangesAcrossResult:
        """Which companies added or rewrote a risk factor on a topic: "which companies added an
        export-control risk factor this year?", "who now warns about tariffs?".

        For every company with two filings of `form` whose newer one is for `period` (a fiscal
        label such as FY2025 — each company's own fiscal year — or a calendar year, quarter or
        range, matched on the newer filing's period end; omit for each company's latest pair),
        compares the two filings' risk factors (Item 1A) as what_changed does, and returns the
        factors the newer filing adds or rewords that are about the topic, by its words or by
        meaning (the embedding model). Each factor is cited in the newer filing, and a reworded
        one also in the older filing (`was`). `pairs_compared` says how many companies' pairs
        were read; a company absent from `companies` was compared and adds nothing on the
        topic. Then what_changed(company_id, from_filing, to_filing) gives one company's whole
        comparison; cite with the [n] evidence numbers.
        """
        text = " ".join(topic.split())
        if not changes.topic_words(text):
            raise ToolError(f"topic {topic[:60]!r} has no content words: name what it is about")
        when = graph_time(period, None)
        with self.ctx.lease() as snap:
            pairs = choose_pairs(snap.query(FILING_PAIRS, {"form": form}), when)
            truncated = len(pairs) > MAX_PAIRS
            pairs = pairs[:MAX_PAIRS]
            embed = self.changed.text_embedder() if pairs else None
            topic_vector = embed([text])[0] if embed is not None else None
            companies = []
            for row in pairs:
                found, vectors = self._pair(snap, row["prev_id"], row["filing_id"], embed)
                matches = changes.topic_matches(found, text, topic_vector, vectors)
                if matches:
                    companies.append(_company(row, form, matches))
            note = None
            if not pairs:
                note = f"no company has two {form} filings with the newer one in that period"
            elif not companies:
                note = f"none of the {len(pairs)} pairs adds or rewords a risk factor on {text!r}"
            return ChangesAcrossResult(
                **stamp(snap),
                topic=text,
                form=form,
                pairs_compared=len(pairs),
                companies=companies,
                matched_by_meaning=embed is not None,
                truncated=truncated,
                time_filter=time_filter(when),
                note=note,
            )


def _item(f: changes.RiskFactor, meta: dict[str, Any]) -> RiskFactorItem:
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


def _company(row: dict[str, Any], form: str, matches: list[changes.TopicMatch]) -> CompanyChange:
    new_meta = {"form": form, "filed_date": row["filed_date"]}
    old_meta = {"form": form, "filed_date": row["prev_filed"]}
    factors = []
    for m in matches:
        if m.change.new is None:  # topic_matches keeps factors of the newer filing only
            continue
        item = _item(m.change.new, new_meta)
        factors.append(
            TopicFactor(
                kind="added" if m.change.kind == "added" else "reworded",
                heading=item.heading,
                excerpt=item.excerpt,
                citation=item.citation,
                was=_item(m.change.old, old_meta) if m.change.old else None,
                matched_by=m.matched_by,
                similarity=m.similarity,
            )
        )
    return CompanyChange(
        company_id=row["company_id"],
        name=row.get("name"),
        from_filing=FilingRef(
            filing_id=row["prev_id"],
            form=form,
            filed_date=row["prev_filed"],
            period_end=row["prev_end"],
        ),
        to_filing=FilingRef(
            filing_id=row["filing_id"],
            form=form,
            filed_date=row["filed_date"],
            period_end=row["period_end"],
        ),
        factors=factors,
    )
