"""What changed between two filings of a company (issue 25, item 1): risk factors added, removed
and materially reworded, relations added and dropped, guidance revised, metrics restated or
recast.

Pure functions over the snapshot's rows (chunks with their heading spans, edges, edge evidence,
as the server's queries return them: plain dicts, so the MCP server loads no polars); the MCP
tool `what_changed` reads the rows and serves the result.

Risk factors are cut from Item 1A the way the extraction reads them (`extraction.headings`): a
risk factor runs from its heading to the next one, across chunks. Two filings' factors are
paired in three passes, cheapest first: the same heading (word for word, after normalizing
case and punctuation), then headings that share most of their words, then — only for the few
left over — headings (with the opening of their bodies) close in meaning under the project's
embedder. Most factors carry over unchanged from one year to the next, so the embedder sees a
handful of texts, not a hundred: that keeps the tool fast enough to answer in a session.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

# Relations compared between the two filings (issue 25: suppliers, customers, competitors,
# subsidiaries). Risk exposure is compared through the risk factors themselves.
COMPARED_RELATIONS = ("SUPPLIES", "CUSTOMER_OF", "COMPETES_WITH", "SUBSIDIARY_OF")

# Headings sharing this share of their words (Jaccard) are the same factor reworded.
WORD_MATCH = 0.6
# Cosine similarity of MiniLM vectors (heading + body opening) above which two leftover factors
# are the same risk told in other words. 0.75: on NVIDIA's 10-Ks pairs above it restate one risk;
# below it they only share a topic.
MEANING_MATCH = 0.75
# A paired factor was materially rewritten when its heading shares less than HEADING_SAME of its
# words or its body less than BODY_SAME; above both, an edit ("the burden and risks") is not news.
HEADING_SAME = 0.8
BODY_SAME = 0.7
# Characters of a body used to match by meaning and shown as an excerpt.
BODY_OPENING = 600

_WORD = re.compile(r"[a-z0-9]+")
_STOP = frozenset(
    "a an and as at be by for from in into is it its of on or our that the their these this to "
    "we with could may can will would us such any".split()
)

Embed = Callable[[list[str]], np.ndarray]
Row = Mapping[str, Any]


@dataclass(frozen=True)
class RiskFactor:
    """One risk factor of a filing: its heading, the chunk that holds the heading, and its body
    (the text up to the next heading, across chunks)."""

    filing_id: str
    chunk_id: str
    section: str
    heading: str
    char_start: int  # the heading's span within its chunk's text
    char_end: int
    body: str


@dataclass(frozen=True)
class FactorChange:
    """kind: added (new only), removed (old only), reworded (both; heading or body rewritten)."""

    kind: str
    old: RiskFactor | None
    new: RiskFactor | None
    matched_by: str | None = None  # heading, words, meaning
    heading_similarity: float | None = None
    body_similarity: float | None = None


@dataclass(frozen=True)
class RelationChange:
    """A (subject, relation, object) stated in one filing and not the other; evidence_ids cite
    it in the filing that states it."""

    kind: str  # added, dropped
    subject_id: str
    relation: str
    object_id: str
    filing_id: str
    evidence_ids: tuple[str, ...]


@dataclass(frozen=True)
class GuidanceRevision:
    """A GUIDES edge of the older filing superseded by one of the newer filing."""

    metric_id: str
    old_edge_id: str
    new_edge_id: str


@dataclass(frozen=True)
class MetricRestatement:
    """A reported value of the older filing that the newer filing states differently for the
    same metric, unit and calendar period (a restatement, or a recast: a stock split, an
    accounting change); `old` and `new` are the two observations' rows."""

    old: Row
    new: Row


@dataclass(frozen=True)
class Changes:
    risk_factors: list[FactorChange] = field(default_factory=list)
    unchanged_risk_factors: int = 0
    relations: list[RelationChange] = field(default_factory=list)
    guidance: list[GuidanceRevision] = field(default_factory=list)
    metrics: list[MetricRestatement] = field(default_factory=list)


# -- risk factors ------------------------------------------------------------------------------


def words(text: str) -> frozenset[str]:
    """The content words of a text, lowercased (what word matching compares)."""
    return frozenset(w for w in _WORD.findall(text.lower()) if w not in _STOP)


def jaccard(a: frozenset[str], b: frozenset[str]) -> float:
    if not a and not b:
        return 1.0
    return len(a & b) / len(a | b)


def risk_factors(chunks: Sequence[Row], filing_id: str) -> list[RiskFactor]:
    """The risk factors of one filing, in order, from its Item 1A chunks (`headings` spans)."""
    # Imported here: extraction.headings loads polars, which the MCP server does not load at
    # import (tests/test_mcp_server.py).
    from graphrag_core.extraction.headings import is_risk_section, risk_headings, spans_of

    rows = sorted(
        (r for r in chunks if r["filing_id"] == filing_id and is_risk_section(r["section"])),
        key=lambda r: (r["section"], r["ordinal"]),
    )
    found: list[tuple[RiskFactor, list[str]]] = []
    for row in rows:
        text = row["text"] or ""
        heads = risk_headings(text, spans_of(row.get("headings")))
        cursor = 0
        for start, end, heading in heads:
            if found:
                found[-1][1].append(text[cursor:start])
            factor = RiskFactor(filing_id, row["chunk_id"], row["section"], heading, start, end, "")
            found.append((factor, []))
            cursor = end
        if found:
            found[-1][1].append(text[cursor:])
    return [
        RiskFactor(
            f.filing_id,
            f.chunk_id,
            f.section,
            f.heading,
            f.char_start,
            f.char_end,
            " ".join(" ".join(parts).split()),
        )
        for f, parts in found
    ]


def _normal(heading: str) -> str:
    return " ".join(_WORD.findall(heading.lower()))


def compare_risk_factors(
    old: Sequence[RiskFactor], new: Sequence[RiskFactor], embed: Embed | None
) -> tuple[list[FactorChange], int]:
    """Pair the two filings' factors (same heading, then shared words, then meaning) and return
    the changes (added, removed, reworded) in the newer filing's order, then the removed ones in
    the older filing's order, with the number of factors carried over unchanged. `embed`: texts →
    unit vectors; None matches by words only."""
    pairs: dict[int, tuple[int, str, float | None]] = {}  # new index → (old index, how, score)
    old_free = set(range(len(old)))
    by_heading: dict[str, list[int]] = {}
    for i, f in enumerate(old):
        by_heading.setdefault(_normal(f.heading), []).append(i)
    for j, f in enumerate(new):
        candidates = [i for i in by_heading.get(_normal(f.heading), []) if i in old_free]
        if candidates:
            pairs[j] = (candidates[0], "heading", 1.0)
            old_free.discard(candidates[0])

    old_words = [words(f.heading) for f in old]
    new_free = [j for j in range(len(new)) if j not in pairs]
    scored = sorted(
        ((jaccard(words(new[j].heading), old_words[i]), j, i) for j in new_free for i in old_free),
        reverse=True,
    )
    _greedy(scored, WORD_MATCH, "words", pairs, old_free)

    new_free = [j for j in range(len(new)) if j not in pairs]
    if embed is not None and new_free and old_free:
        left = sorted(old_free)
        vectors = embed(
            [_meaning_text(new[j]) for j in new_free] + [_meaning_text(old[i]) for i in left]
        )
        sims = vectors[: len(new_free)] @ vectors[len(new_free) :].T
        scored = sorted(
            ((float(sims[a, b]), j, i) for a, j in enumerate(new_free) for b, i in enumerate(left)),
            reverse=True,
        )
        _greedy(scored, MEANING_MATCH, "meaning", pairs, old_free)

    changes: list[FactorChange] = []
    unchanged = 0
    for j, f in enumerate(new):
        if j not in pairs:
            changes.append(FactorChange("added", None, f))
            continue
        i, how, score = pairs[j]
        body = jaccard(words(old[i].body), words(f.body))
        if (score or 0.0) >= HEADING_SAME and how != "meaning" and body >= BODY_SAME:
            unchanged += 1
            continue
        changes.append(
            FactorChange(
                "reworded",
                old[i],
                f,
                how,
                round(score, 3) if score is not None else None,
                round(body, 3),
            )
        )
    changes.extend(FactorChange("removed", old[i], None) for i in sorted(old_free))
    return changes, unchanged


def _meaning_text(f: RiskFactor) -> str:
    return f"{f.heading} {f.body[:BODY_OPENING]}"


def _greedy(
    scored: Iterable[tuple[float, int, int]],
    threshold: float,
    how: str,
    pairs: dict[int, tuple[int, str, float | None]],
    old_free: set[int],
) -> None:
    # Best pairs first, each factor used once: a rewritten factor pairs with its closest
    # predecessor, not with every factor on the same topic.
    for score, j, i in scored:
        if score < threshold:
            break
        if j in pairs or i not in old_free:
            continue
        pairs[j] = (i, how, score)
        old_free.discard(i)


# -- relations and guidance ---------------------------------------------------------------------


def relation_changes(
    edges: Sequence[Row], evidence: Sequence[Row], old_filing: str, new_filing: str
) -> list[RelationChange]:
    """Relations (COMPARED_RELATIONS) stated in one of the two filings and not the other, by
    subject, relation and object (an edge restated for another period is the same relation)."""
    key_of = {
        e["edge_id"]: (e["subject_id"], e["relation"], e["object_id"])
        for e in edges
        if e["relation"] in COMPARED_RELATIONS
    }
    cited: dict[tuple[str, str, str], dict[str, list[str]]] = {}
    for ev in sorted(evidence, key=lambda r: r["evidence_id"]):
        key = key_of.get(ev["edge_id"])
        if key is not None and ev["filing_id"] in (old_filing, new_filing):
            cited.setdefault(key, {}).setdefault(ev["filing_id"], []).append(ev["evidence_id"])
    out: list[RelationChange] = []
    for key in sorted(cited):
        by_filing = cited[key]
        if set(by_filing) == {new_filing}:
            out.append(RelationChange("added", *key, new_filing, tuple(by_filing[new_filing])))
        elif set(by_filing) == {old_filing}:
            out.append(RelationChange("dropped", *key, old_filing, tuple(by_filing[old_filing])))
    return out


def guidance_revisions(
    edges: Sequence[Row], evidence: Sequence[Row], old_filing: str, new_filing: str
) -> list[GuidanceRevision]:
    """GUIDES edges cited in the older filing that a GUIDES edge cited in the newer one
    supersedes (the graph links them: `superseded_by`)."""
    in_filing = {
        fid: {ev["edge_id"] for ev in evidence if ev["filing_id"] == fid}
        for fid in (old_filing, new_filing)
    }
    guides = sorted(
        (e for e in edges if e["relation"] == "GUIDES" and e.get("superseded_by")),
        key=lambda e: (e["object_id"], e["edge_id"]),
    )
    return [
        GuidanceRevision(e["object_id"], e["edge_id"], e["superseded_by"])
        for e in guides
        if e["edge_id"] in in_filing[old_filing] and e["superseded_by"] in in_filing[new_filing]
    ]


# Values closer than this (relative) are the same figure reported again, not a restatement:
# XBRL repeats a prior period's value exactly, and a float round trip must not read as a change.
SAME_VALUE = 1e-9


def _period_key(row: Row) -> tuple[Any, ...]:
    return (
        row["metric"],
        row["unit"],
        row["period_type"],
        row["calendar_start"],
        row["calendar_end"],
    )


def metric_restatements(
    observations: Sequence[Row], old_filing: str, new_filing: str
) -> list[MetricRestatement]:
    """The values the newer filing reports differently from the older one for the same metric,
    unit and calendar period. `observations`: both filings' reported (not derived), finite
    metric observations. The first observation per key and filing (by observation id) speaks
    for the filing; ordered by metric, then newest period first."""
    first: dict[str, dict[tuple[Any, ...], Row]] = {old_filing: {}, new_filing: {}}
    for row in sorted(observations, key=lambda r: r["observation_id"]):
        if row["filing_id"] in first:
            first[row["filing_id"]].setdefault(_period_key(row), row)
    out = []
    for key, old in first[old_filing].items():
        new = first[new_filing].get(key)
        if new is None:
            continue
        a, b = float(old["value"]), float(new["value"])
        if abs(a - b) > SAME_VALUE * max(abs(a), abs(b), 1.0):
            out.append(MetricRestatement(old, new))
    out.sort(key=lambda m: (m.old["metric"], -m.old["calendar_end"].toordinal(), m.old["unit"]))
    return out


def compare_filings(
    edges: Sequence[Row],
    evidence: Sequence[Row],
    old_filing: str,
    new_filing: str,
    risk_changes: tuple[list[FactorChange], int],
    observations: Sequence[Row] = (),
) -> Changes:
    """Everything `what_changed` reports between two filings of one company. `edges`/`evidence`:
    the company's edges and their citations; `risk_changes`: the two filings' risk factors
    compared (`compare_risk_factors` over `risk_factors` of each, which the server keeps per
    snapshot); `observations`: the two filings' reported metric values."""
    factors, unchanged = risk_changes
    return Changes(
        factors,
        unchanged,
        relation_changes(edges, evidence, old_filing, new_filing),
        guidance_revisions(edges, evidence, old_filing, new_filing),
        metric_restatements(observations, old_filing, new_filing),
    )


# -- one topic across companies (changes_across) -------------------------------------------------

# Cosine of MiniLM vectors, a short topic against a factor's heading and body opening, above
# which the factor is about the topic. Short queries against passages score low under MiniLM:
# on NVIDIA's FY2025 10-K "export controls" scores 0.28 against its factor on restrictions on the
# export of its products and at most 0.18 against every other factor (Apple's and Tesla's 10-Ks:
# at most 0.24, none about export rules).
TOPIC_MEANING = 0.25


@dataclass(frozen=True)
class TopicMatch:
    """A factor of the newer filing (added, or reworded from `change.old`) about the topic."""

    change: FactorChange
    matched_by: str  # words, meaning, words+meaning
    similarity: float | None


def _stem(word: str) -> str:
    for suffix in ("ies", "es", "s"):
        if word.endswith(suffix) and len(word) - len(suffix) >= 4:
            return word[: -len(suffix)]
    return word


def topic_words(topic: str) -> frozenset[str]:
    """The topic's content words, stemmed ('export controls' → export, control)."""
    return frozenset(_stem(w) for w in words(topic))


def mentions_topic(stems: frozenset[str], text: str) -> bool:
    """Every topic stem begins some word of `text` ('control' matches 'controls')."""
    found = _WORD.findall(text.lower())
    return bool(stems) and all(any(w.startswith(s) for w in found) for s in stems)


def topic_matches(
    found: Sequence[FactorChange],
    topic: str,
    topic_vector: np.ndarray | None,
    vectors: Mapping[int, np.ndarray],
) -> list[TopicMatch]:
    """The added and reworded factors among `found` about `topic`: by its words (every topic
    word, stemmed, in the heading or body opening) or by meaning (cosine of the topic's vector
    with the factor's, `vectors` by index in `found`, at least TOPIC_MEANING). Best first."""
    stems = topic_words(topic)
    out = []
    for i, change in enumerate(found):
        if change.new is None or change.kind not in ("added", "reworded"):
            continue
        by_words = mentions_topic(stems, _meaning_text(change.new))
        sim = None
        if topic_vector is not None and i in vectors:
            sim = round(float(vectors[i] @ topic_vector), 3)
        by_meaning = sim is not None and sim >= TOPIC_MEANING
        if by_words or by_meaning:
            how = "words+meaning" if by_words and by_meaning else "words" if by_words else "meaning"
            out.append(TopicMatch(change, how, sim))
    rank = {"words+meaning": 0, "words": 1, "meaning": 2}
    out.sort(key=lambda m: (rank[m.matched_by], -(m.similarity or 0.0)))
    return out


def topic_text(factor: RiskFactor) -> str:
    """What a factor is matched to a topic on: its heading and the opening of its body."""
    return _meaning_text(factor)
