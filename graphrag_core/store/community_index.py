"""The search index of community reports, built with the snapshot (`community_terms`): BM25
weights of each report's words, tokenized as questions are (`common.search_terms`)."""

from __future__ import annotations

import math

import polars as pl

from graphrag_core.common.search_terms import search_terms

BM25_K1 = 1.2
BM25_B = 0.75
# Words of a title count twice: a title says what the community is about.
TITLE_WEIGHT = 2


def term_rows(reports: pl.DataFrame, findings: pl.DataFrame, members: pl.DataFrame) -> pl.DataFrame:
    """(term, community_id, weight): BM25 weights of each report's words (title twice, summary,
    finding statements and labels, member names)."""
    docs: dict[str, list[str]] = {}
    for r in reports.select("community_id", "title", "summary").iter_rows(named=True):
        docs[r["community_id"]] = search_terms(r["title"]) * TITLE_WEIGHT + search_terms(
            r["summary"]
        )
    if findings.height:
        for r in findings.select("community_id", "statement", "label").iter_rows(named=True):
            if r["community_id"] in docs:
                docs[r["community_id"]] += search_terms(r["statement"]) + search_terms(r["label"])
    if members.height:
        named = members.join(
            reports.select("community_id", "level"), on=["community_id", "level"], how="semi"
        )
        for r in named.select("community_id", "name").iter_rows(named=True):
            docs[r["community_id"]] += search_terms(r["name"])
    if not docs:
        return pl.DataFrame(
            schema={"term": pl.String, "community_id": pl.String, "weight": pl.Float64}
        )
    n = len(docs)
    avg = sum(len(d) for d in docs.values()) / n or 1.0
    df: dict[str, int] = {}
    counts: dict[str, dict[str, int]] = {}
    for cid, words in docs.items():
        tf: dict[str, int] = {}
        for w in words:
            tf[w] = tf.get(w, 0) + 1
        counts[cid] = tf
        for w in tf:
            df[w] = df.get(w, 0) + 1
    rows_t, rows_c, rows_w = [], [], []
    for cid, tf in counts.items():
        norm = BM25_K1 * (1 - BM25_B + BM25_B * len(docs[cid]) / avg)
        for w, f in tf.items():
            idf = math.log(1 + (n - df[w] + 0.5) / (df[w] + 0.5))
            rows_t.append(w)
            rows_c.append(cid)
            rows_w.append(idf * f * (BM25_K1 + 1) / (f + norm))
    return pl.DataFrame({"term": rows_t, "community_id": rows_c, "weight": rows_w}).sort(
        "term", "community_id"
    )
