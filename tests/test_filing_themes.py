"""Themes from the filings' own risk factors (issue 25, items 2 and 4): members cut from Item 1A,
clustered by meaning across companies, labelled by shared words; a new filing joins the nearest
theme and marks it dirty, the refresh re-clusters; the working state survives a save and load.

The pure functions run on hand-made chunks with an embedder whose vectors follow topic words
(the clustering is what is tested, not MiniLM); the corpus tests use the packaged model."""

from __future__ import annotations

import datetime as dt

import numpy as np
import polars as pl
import pytest

from graphrag_core.retrieval import themes as th
from graphrag_core.settings import CommunitySettings
from graphrag_core.tables.schemas import CHUNKS, FILINGS, frame

TOPICS = ("export", "privacy", "currency", "climate")
NOW = dt.datetime(2026, 1, 5, tzinfo=dt.UTC)
SETTINGS = CommunitySettings()


def topic_embed(texts: list[str]) -> np.ndarray:
    """One direction per topic word (a little of each text's own, so none are identical)."""
    out = []
    for text in texts:
        v = np.zeros(len(TOPICS) + 64, dtype=np.float32)
        low = text.lower()
        for i, topic in enumerate(TOPICS):
            if topic in low:
                v[i] = 1.0
        v[len(TOPICS) + sum(map(ord, text)) % 64] = 0.2
        out.append(v / np.linalg.norm(v))
    return np.stack(out)


HEADINGS = {
    "nv": [
        "Restrictions on the export of our products could harm our business.",
        "Privacy laws may increase our costs.",
    ],
    "amd": [
        "New export controls may limit our sales to China.",
        "Changes in currency rates could reduce our revenue.",
    ],
    "ko": [
        "Fluctuations in currency exchange rates may affect our results.",
        "Climate change may harm our supply of water.",
    ],
}
CIKS = {"nv": "0001045810", "amd": "0000002488", "ko": "0000021344"}


def filing(key: str, year: int = 2025, filed: dt.date | None = None) -> dict:
    return {
        "filing_id": f"sha-{sum(map(ord, key)) * 10_000 + year:016x}",
        "cik": CIKS[key],
        "company": key.upper(),
        "form": "10-K",
        "fiscal_year": year,
        "fiscal_period": "FY",
        "period_end": dt.date(year, 1, 31),
        "filed_date": filed or dt.date(year, 2, 20),
    }


def chunk_rows(f: dict, headings: list[str]) -> list[dict]:
    text = "Item 1A. Risk Factors\n"
    spans = []
    for h in headings:
        spans.append({"start": len(text), "end": len(text) + len(h)})
        text += h + " This is explained at some length. More follows.\n"
    return [
        {
            "chunk_id": f"{f['filing_id']}:{f['cik'][-6:]}",
            "filing_id": f["filing_id"],
            "section": "10-K/Item 1A",
            "kind": "prose",
            "ordinal": 0,
            "text": text,
            "headings": spans,
        }
    ]


def tables(*filings: tuple[dict, list[str]]) -> tuple[pl.DataFrame, pl.DataFrame]:
    chunks = [row for f, hs in filings for row in chunk_rows(f, hs)]
    return frame(chunks, CHUNKS), frame([f for f, _ in filings], FILINGS)


def corpus(*keys: str) -> tuple[pl.DataFrame, pl.DataFrame]:
    return tables(*((filing(k), HEADINGS[k]) for k in keys))


def test_members_are_the_risk_factors_with_verbatim_headings_and_fiscal_labels():
    chunks, filings = corpus("nv")
    members = th.theme_members(chunks, filings)
    assert members.get_column("heading").to_list() == HEADINGS["nv"]
    text = chunks.get_column("text")[0]
    for row in members.iter_rows(named=True):
        assert text[row["char_start"] : row["char_end"]] == row["heading"]
        assert row["opening"] == "This is explained at some length."
        assert row["fiscal_label"] == "FY2025" and row["form"] == "10-K"
    # Ids come from content: the same filing gives the same ids.
    assert (
        th.theme_members(chunks, filings)["member_id"].to_list() == members["member_id"].to_list()
    )


def test_themes_span_companies_are_labelled_by_shared_words_and_cite_every_member():
    chunks, filings = corpus("nv", "amd", "ko")
    out = th.update_themes(None, chunks, filings, topic_embed, SETTINGS, now=NOW)
    assert out.action == "clustered" and out.embedded == 6
    themes = {t["label"]: t for t in out.tables.themes.to_dicts()}
    # export (NVIDIA, AMD) and currency (AMD, Coca-Cola) are themes; privacy and climate, each
    # stated by one company, are not.
    assert len(themes) == 2, themes.keys()
    export = next(t for t in themes.values() if "export" in t["terms"])
    assert export["companies"] == 2 and export["filings"] == 2
    assert export["fiscal_periods"] == ["FY2025"] and export["dirty_since"] is None
    members = out.tables.members.filter(pl.col("theme_id") == export["theme_id"])
    assert sorted(members["cik"]) == sorted([CIKS["nv"], CIKS["amd"]])
    assert all(s > 0.9 for s in members["similarity"])
    unassigned = out.tables.members.filter(pl.col("theme_id").is_null())
    assert sorted(h.split()[0] for h in unassigned["heading"]) == ["Climate", "Privacy"]
    # Deterministic: the same input, the same themes under the same ids.
    again = th.update_themes(None, chunks, filings, topic_embed, SETTINGS, now=NOW)
    assert again.tables.themes.equals(out.tables.themes)


def test_a_new_filing_joins_the_nearest_theme_marks_it_dirty_and_the_refresh_rebuilds():
    chunks, filings = corpus("nv", "amd")
    first = th.update_themes(None, chunks, filings, topic_embed, SETTINGS, now=NOW)
    assert first.tables.themes.height == 1  # export only
    export_id = first.tables.themes["theme_id"][0]
    later = NOW + dt.timedelta(days=1)
    newer = filing("nv", 2026)
    chunks2, filings2 = tables(
        (filing("nv"), HEADINGS["nv"]),
        (filing("amd"), HEADINGS["amd"]),
        (newer, ["Export licensing requirements may delay our shipments."]),
        (filing("ko"), HEADINGS["ko"]),
    )
    applied = th.update_themes(first.tables, chunks2, filings2, topic_embed, SETTINGS, now=later)
    assert (applied.action, applied.added, applied.removed) == ("applied", 3, 0)
    assert applied.embedded == 3  # the unchanged factors keep their vectors
    export = applied.tables.themes.row(0, named=True)
    assert export["theme_id"] == export_id and export["dirty_since"] == later
    assert (export["companies"], export["filings"], export["fiscal_periods"]) == (
        2,
        3,
        ["FY2025", "FY2026"],
    )
    # Coca-Cola's currency factor has no theme to join until the refresh re-clusters (nor do
    # AMD's currency, NVIDIA's privacy and Coca-Cola's climate factors).
    assert applied.tables.members.filter(pl.col("theme_id").is_null()).height == 4
    refreshed = th.update_themes(
        applied.tables, chunks2, filings2, topic_embed, SETTINGS, "refresh", now=later
    )
    assert refreshed.action == "clustered" and refreshed.dirty == 0
    labels = sorted(refreshed.tables.themes["label"].to_list())
    assert any("currency" in label for label in labels) and len(labels) == 2
    assert refreshed.tables.themes["dirty_since"].null_count() == 2
    # A removed filing leaves its theme, which is dirty again.
    chunks3, filings3 = tables((filing("nv"), HEADINGS["nv"]), (filing("amd"), HEADINGS["amd"]))
    removed = th.update_themes(
        refreshed.tables, chunks3, filings3, topic_embed, SETTINGS, now=later
    )
    assert removed.removed == 3 and removed.dirty == 2
    # Nothing changed: apply keeps everything as it was, refresh does nothing either.
    same = th.update_themes(
        refreshed.tables, chunks2, filings2, topic_embed, SETTINGS, "refresh", now=later
    )
    assert same.action == "applied" and same.why == "nothing changed" and same.embedded == 0


def test_the_working_state_round_trips_and_consistent_keeps_only_served_filings(tmp_path):
    chunks, filings = corpus("nv", "amd", "ko")
    out = th.update_themes(None, chunks, filings, topic_embed, SETTINGS, now=NOW)
    folder = th.themes_dir(tmp_path)
    assert th.load_themes(folder) is None
    th.save_themes(folder, out.tables)
    loaded = th.load_themes(folder)
    assert loaded is not None
    assert loaded.themes.equals(out.tables.themes) and loaded.members.equals(out.tables.members)
    only_ko = filings.filter(pl.col("cik") == CIKS["ko"]).select("filing_id")
    kept = loaded.consistent(only_ko)
    assert set(kept.members["cik"]) == {CIKS["ko"]}
    assert kept.themes["theme_id"].to_list() == kept.members["theme_id"].drop_nulls().to_list()


def test_no_risk_section_and_bad_modes():
    chunks, filings = corpus("nv")
    chunks = chunks.with_columns(pl.lit("10-K/Item 7").alias("section"))
    out = th.update_themes(None, chunks, filings, topic_embed, SETTINGS, now=NOW)
    assert out.tables.themes.is_empty() and out.tables.members.is_empty()
    with pytest.raises(ValueError, match="expected one of"):
        th.update_themes(None, chunks, filings, topic_embed, SETTINGS, "sometimes")
    assert th.cluster_labels(np.zeros((1, 3), dtype=np.float32), 0.5) == [0]


# -- the asset, with the packaged model --------------------------------------------------------

REAL_HEADINGS = {
    "nv": [
        "New export controls on advanced chips could restrict our sales to China.",
        "Cybersecurity breaches could compromise our systems and data.",
    ],
    "amd": [
        "Export restrictions imposed by the U.S. government may limit sales of our products.",
        "Security incidents and cyberattacks on our systems could disrupt our operations.",
    ],
    "ko": ["Government export controls could prevent us from shipping products abroad."],
}


def _write(root, *pairs: tuple[dict, list[str]]) -> None:
    from graphrag_core.tables.table_store import TableStore

    store = TableStore(root)
    for f, headings in pairs:
        chunks, filings = tables((f, headings))
        store.write("raw_filings", filings, f["filing_id"])
        store.write("section_chunks", chunks, f["filing_id"])


def _run(root, mode: str):
    import dagster as dg

    from assets.communities import CommunityRunConfig
    from assets.resources import CommunityResource, DataRootResource, RetrievalResource
    from assets.themes import filing_themes
    from graphrag_core.settings import RetrievalSettings

    result = filing_themes(
        dg.build_asset_context(),
        config=CommunityRunConfig(mode=mode),
        data=DataRootResource(root),
        retrieval=RetrievalResource(root, RetrievalSettings()),
        community=CommunityResource(root, CommunitySettings(theme_similarity=0.5)),
    )
    return result.metadata, th.load_themes(th.themes_dir(root))


@pytest.mark.real_embeddings
def test_the_asset_applies_a_new_filing_as_dirty_and_the_daily_refresh_rebuilds(tmp_path):
    _write(tmp_path, (filing("nv"), REAL_HEADINGS["nv"]), (filing("amd"), REAL_HEADINGS["amd"]))
    meta, state = _run(tmp_path, "apply")
    assert meta["action"] == "clustered" and state is not None
    labels = state.themes["label"].to_list()
    assert any("export" in label for label in labels), labels
    assert state.themes["dirty_since"].null_count() == state.themes.height
    # A new filing (the corpus run after it is ingested): its factor joins the export theme,
    # which is served as stale until the daily refresh.
    _write(tmp_path, (filing("ko"), REAL_HEADINGS["ko"]))
    meta, state = _run(tmp_path, "apply")
    assert (meta["action"], meta["added"], meta["embedded"]) == ("applied", 1, 1)
    dirty = state.themes.filter(pl.col("dirty_since").is_not_null())
    assert dirty.height == 1 and "export" in dirty["label"][0]
    assert dirty["companies"][0] == 3
    # The refresh schedule's run: re-clustered, nothing dirty, the new factor in its theme.
    meta, state = _run(tmp_path, "refresh")
    assert meta["action"] == "clustered" and meta["dirty"] == 0 and meta["embedded"] == 0
    assert state.themes["dirty_since"].null_count() == state.themes.height
    ko = state.members.filter(pl.col("cik") == CIKS["ko"])
    assert ko["theme_id"][0] is not None
