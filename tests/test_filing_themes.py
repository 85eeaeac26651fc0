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


# -- MD&A statements as members ----------------------------------------------------------------

MDNA_TEXT = {
    "nv": [
        "Results of Operations",
        "Revenue from China declined 20% due to new export controls on our products.",
        "Revenue may decline if export controls tighten further, due to licensing delays.",
        "We sell GPUs.",
        "Water costs increased 5% primarily due to a drought in our climate zone.",
    ],
    "amd": [
        "Net Revenue",
        "Sales to China decreased by $1.2 billion, driven by export restrictions on chips.",
    ],
    "ko": [
        "Cost of Goods",
        "Cost of goods increased 4% due to climate related water shortages at our plants.",
    ],
}


def mdna_rows(f: dict, lines: list[str], section: str = "10-K/Item 7") -> list[dict]:
    """One MD&A chunk: its first line a subheading (an emphasized span), then sentences."""
    text = "\n".join(lines)
    return [
        {
            "chunk_id": f"{f['filing_id']}:mdna",
            "filing_id": f["filing_id"],
            "section": section,
            "kind": "prose",
            "ordinal": 0,
            "text": text,
            "headings": [{"start": 0, "end": len(lines[0])}],
        }
    ]


def with_mdna(*keys: str, section: str = "10-K/Item 7") -> tuple[pl.DataFrame, pl.DataFrame]:
    chunks, filings = corpus(*keys)
    extra = [r for k in keys for r in mdna_rows(filing(k), MDNA_TEXT[k], section)]
    return pl.concat([chunks, frame(extra, CHUNKS)]), filings


def test_mdna_members_are_verbatim_statements_of_a_trend_and_its_driver():
    chunks, filings = with_mdna("nv")
    members = th.theme_members(chunks, filings)
    mdna = members.filter(pl.col("kind") == th.MDNA)
    # The hedged sentence (may ... if) and the one with no trend or driver are not members.
    assert mdna["heading"].to_list() == [MDNA_TEXT["nv"][1], MDNA_TEXT["nv"][4]]
    text = "\n".join(MDNA_TEXT["nv"])
    for row in mdna.iter_rows(named=True):
        assert text[row["char_start"] : row["char_end"]] == row["heading"]
        assert row["opening"] == "Results of Operations" and row["section"] == "10-K/Item 7"
    assert set(members.filter(pl.col("kind") == th.RISK_FACTOR)["heading"]) == set(HEADINGS["nv"])
    # A 10-Q's MD&A is its Part I Item 2; Part II Item 2 (share repurchases) and Item 7A are not.
    for section, expected in (
        ("10-Q/Part I/Item 2", 2),
        ("10-Q/Part II/Item 2", 0),
        ("10-K/Item 7A", 0),
        ("10-K/Item 1", 0),
    ):
        chunks, filings = with_mdna("nv", section=section)
        got = th.theme_members(chunks, filings).filter(pl.col("kind") == th.MDNA).height
        assert got == expected, section


def test_mdna_caps_and_odd_text():
    f = filing("nv")
    lines = ["Overview"] + [
        f"Revenue in region {i} increased {i}% due to higher demand for product {i}."
        for i in range(th.MDNA_PER_FILING + 10)
    ]
    odd = [
        "x" * 1000 + " increased due to " + "y" * 10,  # overlong: no statement
        "'; DROP TABLE filing_themes; -- increased due to NaN inf",  # short: none
        "Revenue increased due to ../../etc/passwd and \u0000 bytes in the text of the filing.",
    ]
    chunks = frame(mdna_rows(f, lines + odd), CHUNKS)
    members = th.theme_members(chunks, frame([f], FILINGS))
    assert members.height == th.MDNA_PER_FILING  # in document order, the rest left out
    empty_text = frame(mdna_rows(f, ["", ""]), CHUNKS).with_columns(pl.lit(None).alias("text"))
    assert th.theme_members(empty_text, frame([f], FILINGS)).is_empty()


def test_mdna_joins_the_nearest_risk_theme_or_forms_its_own_across_companies():
    chunks, filings = with_mdna("nv", "amd", "ko")
    out = th.update_themes(None, chunks, filings, topic_embed, SETTINGS, now=NOW)
    themes = out.tables.themes
    members = out.tables.members
    # NVIDIA's and AMD's export statements join the export risk theme, which keeps its id
    # (its risk factors are the same) and its label from the risk headings.
    risk_only = th.update_themes(None, *corpus("nv", "amd", "ko"), topic_embed, SETTINGS, now=NOW)
    export_id = next(
        t["theme_id"] for t in risk_only.tables.themes.to_dicts() if "export" in t["terms"]
    )
    export = themes.filter(pl.col("theme_id") == export_id).row(0, named=True)
    assert (export["risk_factors"], export["mdna_statements"]) == (2, 2)
    assert export["members"] == 4 and export["label"] == next(
        t["label"] for t in risk_only.tables.themes.to_dicts() if t["theme_id"] == export_id
    )
    joined = members.filter(pl.col("theme_id") == export_id)
    assert sorted(joined.filter(pl.col("kind") == th.MDNA)["cik"]) == sorted(
        [CIKS["nv"], CIKS["amd"]]
    )
    # Climate: one company's risk factor (Coca-Cola's) is no theme, but NVIDIA's and Coca-Cola's
    # MD&A statements on it are one: an MD&A-only theme across two companies.
    climate = themes.filter(pl.col("risk_factors") == 0)
    assert climate.height == 1
    row = climate.row(0, named=True)
    assert (row["companies"], row["mdna_statements"]) == (2, 2) and "climate" in row["terms"]
    # Deterministic, and the state round-trips with its kinds.
    again = th.update_themes(None, chunks, filings, topic_embed, SETTINGS, now=NOW)
    assert again.tables.themes.equals(themes)
    assert out.metadata()["mdna_statements"] == 4


def test_a_new_filings_mdna_statement_joins_the_nearest_theme_and_marks_it_dirty():
    chunks, filings = with_mdna("nv", "amd")
    first = th.update_themes(None, chunks, filings, topic_embed, SETTINGS, now=NOW)
    later = NOW + dt.timedelta(days=1)
    newer = filing("nv", 2026)
    extra = frame(
        mdna_rows(
            newer,
            [
                "Revenue",
                "Revenue from data center GPUs fell 9% due to export licensing rules for China.",
            ],
        ),
        CHUNKS,
    )
    chunks2 = pl.concat([chunks, extra])
    filings2 = pl.concat([filings, frame([newer], FILINGS)])
    applied = th.update_themes(first.tables, chunks2, filings2, topic_embed, SETTINGS, now=later)
    assert (applied.action, applied.added, applied.embedded) == ("applied", 1, 1)
    new = applied.tables.members.filter(pl.col("filing_id") == newer["filing_id"])
    assert new["kind"].to_list() == [th.MDNA] and new["theme_id"][0] is not None
    theme = applied.tables.themes.filter(pl.col("theme_id") == new["theme_id"][0])
    assert theme["dirty_since"][0] == later and theme["mdna_statements"][0] == 3
    refreshed = th.update_themes(
        applied.tables, chunks2, filings2, topic_embed, SETTINGS, "refresh", now=later
    )
    assert refreshed.action == "clustered" and refreshed.embedded == 0


def test_a_state_saved_before_mdna_members_loads_as_risk_factors(tmp_path):
    chunks, filings = corpus("nv", "amd")
    out = th.update_themes(None, chunks, filings, topic_embed, SETTINGS, now=NOW)
    folder = th.themes_dir(tmp_path)
    folder.mkdir(parents=True)
    out.tables.members.drop("kind").write_parquet(folder / "members.parquet")
    out.tables.themes.drop("risk_factors", "mdna_statements").write_parquet(
        folder / "themes.parquet"
    )
    loaded = th.load_themes(folder)
    assert loaded is not None
    assert set(loaded.members["kind"]) == {th.RISK_FACTOR}
    assert loaded.themes["risk_factors"].to_list() == loaded.themes["members"].to_list()
    assert loaded.themes["mdna_statements"].to_list() == [0] * loaded.themes.height
    # The next run applies MD&A members to it.
    chunks2, filings2 = with_mdna("nv", "amd")
    applied = th.update_themes(loaded, chunks2, filings2, topic_embed, SETTINGS, now=NOW)
    assert applied.added == 3 and applied.action == "applied"  # NVIDIA 2, AMD 1


class _Db:
    """The snapshot's query interface over a DuckDB database holding the served tables."""

    def __init__(self, tables: th.ThemeTables, with_kinds: bool):
        import duckdb

        self.con = duckdb.connect()
        members = tables.members if with_kinds else tables.members.drop("kind")
        themes = tables.themes.with_columns(pl.col("dirty_since").is_not_null().alias("stale"))
        self.con.register("m", members.to_arrow())
        self.con.register("t", themes.to_arrow())
        self.con.execute(
            "CREATE TABLE filing_theme_members AS SELECT 'CIK-' || cik AS company_id, * FROM m"
        )
        self.con.execute("CREATE TABLE filing_themes AS SELECT * FROM t")
        self.con.execute(
            "CREATE TABLE companies AS SELECT DISTINCT 'CIK-' || cik AS company_id, "
            "company AS name, [] AS tickers FROM m"
        )

    def query(self, sql, params=()):
        cur = self.con.execute(sql, params)
        names = [d[0] for d in cur.description or ()]
        return [dict(zip(names, row, strict=True)) for row in cur.fetchall()]


def test_served_themes_count_kinds_and_a_snapshot_without_kinds_says_to_republish():
    from graphrag_core.store.theme_search import filing_themes

    chunks, filings = with_mdna("nv", "amd", "ko")
    out = th.update_themes(None, chunks, filings, topic_embed, SETTINGS, now=NOW)
    ask = {
        "query": "export",
        "query_vector": None,
        "period": None,
        "as_of": None,
        "include_old": True,
        "max_age_days": 548,
        "companies": None,
        "limit": 5,
    }
    window = filing_themes(_Db(out.tables, with_kinds=True), **ask)
    export = next(t for t in window.themes if "export" in t.terms)
    assert (export.risk_factors, export.mdna_statements) == (2, 2)
    assert {m["kind"] for m in export.members} <= {th.RISK_FACTOR, th.MDNA}
    old = filing_themes(_Db(out.tables, with_kinds=False), **ask)
    assert old.themes == [] and "publish a new one" in old.notes[0]


@pytest.mark.real_embeddings
def test_the_asset_reads_mdna_sections_and_applies_their_statements(tmp_path):
    from graphrag_core.tables.table_store import TableStore

    _write(tmp_path, (filing("nv"), REAL_HEADINGS["nv"]), (filing("amd"), REAL_HEADINGS["amd"]))
    meta, state = _run(tmp_path, "apply")
    assert meta["mdna_statements"] == 0
    # A later corpus run finds MD&A chunks of a new filing (the asset reads Item 7 now too).
    ko = filing("ko")
    chunks, filings = tables((ko, REAL_HEADINGS["ko"]))
    lines = [
        "Net Revenue",
        "Sales to China decreased by $1.2 billion, driven by new export controls on chips.",
    ]
    store = TableStore(tmp_path)
    store.write("raw_filings", filings, ko["filing_id"])
    store.write(
        "section_chunks", pl.concat([chunks, frame(mdna_rows(ko, lines), CHUNKS)]), ko["filing_id"]
    )
    meta, state = _run(tmp_path, "apply")
    assert (meta["action"], meta["added"], meta["mdna_statements"]) == ("applied", 2, 1)
    mdna = state.members.filter(pl.col("kind") == th.MDNA)
    assert mdna["heading"].to_list() == [lines[1]] and mdna["section"][0] == "10-K/Item 7"
