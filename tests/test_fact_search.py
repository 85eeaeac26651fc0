"""Issue 23, item 2: any fact of a company, dimensional facts included, and segment metrics.

The shaping rules (`graphrag_core.xbrl.segments`) on small frames; then a snapshot of real
corpus filings (NVIDIA's FY2025 and FY2023 10-Ks, Alphabet's FY2024 10-K) run through the
pipeline's own stages, whose `company_facts` must equal the filings' facts and whose
`search_facts` tool finds Google Cloud, NVIDIA's segments and geographies, through an MCP
client session."""

from __future__ import annotations

import datetime as dt
import json
import math
from pathlib import Path

import duckdb
import polars as pl
import pytest
from mcp.server.mcpserver.exceptions import ToolError

from graphrag_core.common.names import query_words
from graphrag_core.store.publish import SnapshotStore
from graphrag_core.tables.table_store import TableStore
from graphrag_core.xbrl.segments import (
    COMPANY_FACTS,
    SEGMENT_METRICS,
    company_facts,
    member_name,
    parse_dimensions,
    segment_metric,
    slice_of,
)
from mcp_server.fact_search import dimension_filter, period_filter
from tests.mcp_client import call, error, session
from tests.test_mcp_corpus import GOOGL_10K, NVDA_10K_FY2023, NVDA_10K_FY2025, publish, run_stages

NVDA, GOOGL = "CIK-0001045810", "CIK-0001652044"
SEGMENTS = "us-gaap:StatementBusinessSegmentsAxis"
QUALIFIER = {"srt:ConsolidationItemsAxis": "us-gaap:OperatingSegmentsMember"}


# -- the shaping rules ----------------------------------------------------------------------
def test_query_words_match_singular_and_plural():
    assert query_words("Revenues, Google Cloud") == ["revenue", "google", "cloud"]
    assert query_words("business") == ["business"]  # 'ss' is not a plural
    assert query_words("segment_revenue") == ["segment", "revenue"]
    assert query_words("  !!! ") == []


def test_dimensions_that_are_not_an_object_read_as_none():
    assert parse_dimensions('{"a:Axis": "b:Member"}') == {"a:Axis": "b:Member"}
    for raw in (None, "", "not json", "[1, 2]", '"text"', '{"a": 3}'):
        assert parse_dimensions(raw) == {}, raw


def test_renamed_members_and_the_segment_qualifier_are_one_slice():
    from graphrag_core.xbrl.segments import slice_key

    old = slice_key({SEGMENTS: "nvda:GraphicsMember"})
    assert slice_key({SEGMENTS: "nvda:GraphicsSegmentMember", **QUALIFIER}) == old
    assert slice_key({SEGMENTS: "nvda:ComputeAndNetworkingMember"}) != old
    assert slice_key({}) == ""


def test_segment_metric_needs_one_breakdown_member_of_a_measured_concept():
    cloud = {SEGMENTS: "goog:GoogleCloudMember"}
    assert (
        segment_metric("us-gaap:RevenueFromContractWithCustomerExcludingAssessedTax", cloud)
        == "segment_revenue"
    )
    # ASU 2023-07's qualifier says "the segment's own figure": still one segment.
    assert (
        segment_metric("us-gaap:OperatingIncomeLoss", {**cloud, **QUALIFIER})
        == "segment_operating_income"
    )
    assert (
        segment_metric("us-gaap:Revenues", {"srt:StatementGeographicalAxis": "country:TW"})
        == "geographic_revenue"
    )
    assert (
        segment_metric("us-gaap:Revenues", {"srt:ProductOrServiceAxis": "nvda:GamingMember"})
        == "product_revenue"
    )
    # A slice of a segment (segment × product), a consolidated fact, another axis or concept: none.
    assert (
        segment_metric("us-gaap:Revenues", {**cloud, "srt:ProductOrServiceAxis": "x:YMember"})
        is None
    )
    assert segment_metric("us-gaap:Revenues", {}) is None
    assert (
        segment_metric("us-gaap:Revenues", {"srt:MajorCustomersAxis": "nvda:CustomerAMember"})
        is None
    )
    assert segment_metric("us-gaap:Goodwill", cloud) is None
    assert slice_of(QUALIFIER) is None
    assert SEGMENT_METRICS == (
        "segment_revenue",
        "segment_operating_income",
        "product_revenue",
        "product_operating_income",
        "geographic_revenue",
        "geographic_operating_income",
    )


def test_country_members_are_named_by_their_row():
    assert member_name("country:TW", "Taiwan") == "Taiwan"
    assert member_name("country:SG", "Singapore (1)") == "Singapore"
    assert member_name("country:SG", None) == "SG"
    assert member_name("goog:GoogleCloudMember", "Google Cloud total") == "Google Cloud"


def _fact(
    fact_id: str,
    filing_id: str,
    value: float | None,
    *,
    numeric: bool = True,
    dims: str = "{}",
    concept: str = "us-gaap:Revenues",
) -> dict:
    return {
        "fact_id": fact_id,
        "filing_id": filing_id,
        "cik": "0000000001",
        "concept": concept,
        "value": value,
        "is_numeric": numeric,
        "unit": "USD",
        "decimals": -6,
        "period_type": "duration",
        "period_start": dt.date(2024, 1, 1),
        "period_end": dt.date(2024, 12, 31),
        "dimensions": dims,
        "dimension_count": len(json.loads(dims)),
        "chunk_id": f"{filing_id}:1",
        "conflict": False,
        "row_label": "Revenues",
    }


def _filings() -> pl.DataFrame:
    return pl.DataFrame(
        [
            {
                "filing_id": "old",
                "cik": "0000000001",
                "form": "10-K",
                "filed_date": dt.date(2025, 2, 1),
                "fiscal_year_end": "--12-31",
                "fiscal_year": 2024,
                "fiscal_period": "FY",
                "period_end": dt.date(2024, 12, 31),
            },
            {
                "filing_id": "new",
                "cik": "0000000001",
                "form": "10-K",
                "filed_date": dt.date(2026, 2, 1),
                "fiscal_year_end": "--12-31",
                "fiscal_year": 2025,
                "fiscal_period": "FY",
                "period_end": dt.date(2025, 12, 31),
            },
        ]
    )


def test_company_facts_keep_finite_numbers_and_mark_the_newest_copy():
    facts = pl.DataFrame(
        [
            _fact("a", "old", 10.0),
            _fact("b", "new", 11.0),
            _fact("nan", "new", math.nan, concept="us-gaap:Other"),
            _fact("inf", "new", math.inf, concept="us-gaap:Other2"),
            _fact("text", "new", None, numeric=False, concept="dei:DocumentType"),
            _fact("seg", "new", 4.0, dims=json.dumps({SEGMENTS: "x:CloudMember"})),
            _fact("gone", "not-in-snapshot", 5.0, concept="us-gaap:Other3"),
        ]
    )
    out = company_facts(facts, _filings())
    assert out.schema == pl.Schema(COMPANY_FACTS)
    assert sorted(out["fact_id"]) == ["a", "b", "seg"]
    latest = dict(zip(out["fact_id"], out["is_latest"], strict=True))
    assert latest == {"a": False, "b": True, "seg": True}
    seg = out.filter(pl.col("fact_id") == "seg").row(0, named=True)
    assert (seg["segment_metric"], seg["member_name"], seg["breakdown"]) == (
        "segment_revenue",
        "Cloud",
        "segment",
    )
    assert seg["dimensions"] == [{"axis": SEGMENTS, "member": "x:CloudMember"}]
    assert seg["fiscal_label"] == "FY2024" and seg["company_id"] == "CIK-0000000001"
    assert "cloud" in seg["search_text"].split() and "segment" in seg["search_text"].split()
    assert company_facts(facts.head(0), _filings()).height == 0


def test_period_and_dimension_arguments():
    assert period_filter(None) == (None, None)
    assert period_filter(" fy2024 ") == ("FY2024", None)
    assert period_filter("Q2-FY2026") == ("Q2-FY2026", None)
    assert period_filter("2024") == (None, 2024)
    for bad in ("FY20245", "last year", "2024-Q3", "'; DROP TABLE company_facts; --", "\x00"):
        with pytest.raises(ToolError, match="fiscal label"):
            period_filter(bad)
    assert dimension_filter(None) == ("all", None, [])
    assert dimension_filter("Geography") == ("breakdown", "geographic", [])
    assert dimension_filter("none") == ("none", None, [])
    assert dimension_filter("Google Cloud") == ("member", None, ["google", "cloud"])
    with pytest.raises(ToolError, match="no words"):
        dimension_filter(" -- ")


# -- corpus filings -------------------------------------------------------------------------
pytestmark_corpus = pytest.mark.corpus


@pytest.fixture(scope="module")
def facts_snapshot(corpus_dir: Path, tmp_path_factory) -> tuple[Path, str]:
    data_root = tmp_path_factory.mktemp("facts-data")
    run_stages(corpus_dir, data_root, (NVDA_10K_FY2025, NVDA_10K_FY2023, GOOGL_10K))
    return data_root, publish(corpus_dir, data_root)


def _table(snapshot: tuple[Path, str], sql: str) -> pl.DataFrame:
    data_root, version = snapshot
    con = duckdb.connect(str(SnapshotStore(data_root).database_path(version)), read_only=True)
    try:
        return pl.from_arrow(con.sql(sql).to_arrow_table())  # type: ignore[return-value]
    finally:
        con.close()


@pytestmark_corpus
def test_company_facts_equal_the_filings_facts(facts_snapshot):
    data_root, _ = facts_snapshot
    filed = (
        TableStore(data_root)
        .scan("xbrl_facts")
        .collect()
        .filter(pl.col("is_numeric") & pl.col("value").is_finite())
    )
    published = _table(facts_snapshot, "SELECT * FROM company_facts")
    assert published.height == filed.height > 2000
    assert set(published["segment_metric"].drop_nulls()) == {
        "segment_revenue",
        "segment_operating_income",
        "product_revenue",
        "geographic_revenue",
    }
    joined = published.join(filed, on="fact_id", suffix="_filed")
    assert joined.height == filed.height
    for col in ("value", "unit", "concept", "period_end", "chunk_id", "row_label", "filing_id"):
        assert (
            (joined[col] == joined[f"{col}_filed"])
            .fill_null(joined[col].is_null() & joined[f"{col}_filed"].is_null())
            .all()
        ), col
    # Every dimensional fact carries its members as the filing tagged them.
    dims = joined.filter(pl.col("dimension_count_filed") > 0)
    assert dims.height > 300
    for row in dims.select("dimensions", "dimensions_filed").iter_rows():
        assert {d["axis"]: d["member"] for d in row[0]} == json.loads(row[1])
    # FY2024 of NVIDIA is in both 10-Ks: one copy is current, the newer filing's.
    latest = published.filter(
        pl.col("is_latest")
        & (pl.col("cik") == "0001045810")
        & (pl.col("concept") == "us-gaap:Revenues")
        & (pl.col("dimension_count") == 0)
        & (pl.col("fiscal_label") == "FY2024")
    )
    assert latest["filing_id"].to_list() == [NVDA_10K_FY2025]


@pytestmark_corpus
def test_segments_add_up_to_the_consolidated_revenue(facts_snapshot):
    sums = _table(
        facts_snapshot,
        """
        SELECT cik, segment_metric, fiscal_label, sum(value) AS total, count(*) AS members
        FROM company_facts
        WHERE is_latest AND segment_metric IN ('segment_revenue', 'geographic_revenue')
        GROUP BY ALL""",
    )
    consolidated = _table(
        facts_snapshot,
        """
        SELECT cik, fiscal_label, value FROM company_facts
        WHERE is_latest AND dimension_count = 0 AND concept IN ('us-gaap:Revenues',
              'us-gaap:RevenueFromContractWithCustomerExcludingAssessedTax')
              AND period_type = 'duration' AND fiscal_period = 'FY'""",
    )
    joined = sums.join(consolidated, on=["cik", "fiscal_label"])
    nvda = joined.filter((pl.col("cik") == "0001045810") & (pl.col("fiscal_label") == "FY2025"))
    assert sorted(nvda["segment_metric"]) == ["geographic_revenue", "segment_revenue"]
    assert (nvda["total"] == 130_497e6).all() and (nvda["value"] == 130_497e6).all()
    googl = joined.filter(
        (pl.col("cik") == "0001652044")
        & (pl.col("segment_metric") == "segment_revenue")
        & (pl.col("fiscal_label") == "FY2024")
    )
    # Alphabet's segments leave out hedging gains (Alphabet-level activities): within 1%.
    assert googl.height == 1 and abs(googl["total"][0] / googl["value"][0] - 1) < 0.01


@pytestmark_corpus
async def test_google_cloud_by_period_through_an_mcp_session(facts_snapshot):
    data_root, version = facts_snapshot
    async with session(data_root) as client:
        out = await call(client, "search_facts", company_id="GOOGL", query="cloud")
        assert (out["snapshot"], out["company_id"], out["words"]) == (version, GOOGL, ["cloud"])
        by = {
            (f["segment_metric"], f["fiscal_label"]): f for f in out["facts"] if f["segment_metric"]
        }
        assert {k: v["value"] for k, v in by.items()} == {
            ("segment_revenue", "FY2024"): 43_229e6,
            ("segment_revenue", "FY2023"): 33_088e6,
            ("segment_revenue", "FY2022"): 26_280e6,
            ("segment_operating_income", "FY2024"): 6_112e6,
            ("segment_operating_income", "FY2023"): 1_716e6,
            ("segment_operating_income", "FY2022"): -1_922e6,
        }
        cloud = by[("segment_revenue", "FY2024")]
        assert cloud["member_name"] == "Google Cloud" and cloud["display"] == "43,229 million USD"
        assert cloud["conflict"] is False and cloud["decimals"] == -6 and cloud["unit"] == "USD"
        assert cloud["dimensions"] == [{"axis": SEGMENTS, "member": "goog:GoogleCloudMember"}]
        cite = cloud["citation"]
        assert (
            cite["filing_id"] == GOOGL_10K and cite["section"] == "10-K/Item 8" and cite["evidence"]
        )
        chunk = await call(client, "get_chunk", chunk_id=cite["chunk_id"])
        assert "43,229" in chunk["text"]
        # The citation's evidence number checks a sentence that quotes the figure.
        checked = await call(
            client,
            "check_citations",
            answer=f"Google Cloud revenue was $43,229 million in 2024 [{cite['evidence']}].",
        )
        assert not checked["unsupported"] and not checked["unresolved"], checked["summary"]

        one = await call(
            client,
            "search_facts",
            company_id=GOOGL,
            query="operating income",
            dimension="Google Cloud",
            period="FY2024",
        )
        assert [(f["concept"], f["value"]) for f in one["facts"]] == [
            ("us-gaap:OperatingIncomeLoss", 6_112e6)
        ]


@pytestmark_corpus
async def test_nvidia_revenue_by_segment_and_geography(facts_snapshot):
    async with session(facts_snapshot[0]) as client:
        seg = await call(
            client, "search_facts", company_id="NVDA", query="segment revenue", period="FY2025"
        )
        assert {f["member_name"]: f["value"] for f in seg["facts"]} == {
            "Compute And Networking": 116_193e6,
            "Graphics": 14_304e6,
        }
        assert all(f["citation"]["filing_id"] == NVDA_10K_FY2025 for f in seg["facts"])
        fy23 = await call(
            client, "search_facts", company_id="NVDA", query="segment revenue", period="FY2023"
        )
        # In both 10-Ks, under nvda:GraphicsMember and then nvda:GraphicsSegmentMember: the same
        # segment, served once, from the newer filing.
        assert len(fy23["facts"]) == 2 and {f["citation"]["filing_id"] for f in fy23["facts"]} == {
            NVDA_10K_FY2025
        }
        geo = await call(
            client,
            "search_facts",
            company_id="NVDA",
            query="revenue",
            dimension="geography",
            period="FY2025",
        )
        names = {f["member_name"]: f["value"] for f in geo["facts"]}
        assert names["Taiwan"] == 20_573e6 and names["United States"] == 61_257e6
        assert all(f["segment_metric"] == "geographic_revenue" for f in geo["facts"])
        consolidated = await call(
            client,
            "search_facts",
            company_id="NVDA",
            query="dividends paid",
            dimension="none",
            period="FY2025",
        )
        paid = next(
            f for f in consolidated["facts"] if f["concept"] == "us-gaap:PaymentsOfDividends"
        )
        assert (paid["value"], paid["row_label"], paid["dimensions"]) == (
            834e6,
            "Dividends paid",
            [],
        )
        few = await call(client, "search_facts", company_id="NVDA", query="revenue", limit=3)
        assert len(few["facts"]) == 3 and few["truncated"] and few["matched"] > 3
        # Consolidated facts come first.
        assert few["facts"][0]["dimensions"] == []


@pytestmark_corpus
async def test_search_facts_hostile_arguments(facts_snapshot):
    async with session(facts_snapshot[0]) as client:
        for odd in (
            "CIK-9999999999",
            "../../etc/passwd",
            "'; DROP TABLE company_facts; --",
            "\u202e\x00",
        ):
            text = await error(client, "search_facts", company_id=odd, query="revenue")
            assert "no company with id" in text
        assert "no words" in await error(client, "search_facts", company_id="NVDA", query="!!! ---")
        assert "fiscal label" in await error(
            client, "search_facts", company_id="NVDA", query="revenue", period="FY20245"
        )
        assert "no words" in await error(
            client, "search_facts", company_id="NVDA", query="revenue", dimension="%%"
        )
        miss = await error(client, "search_facts", company_id="NVDA", query="zzzz qqqq")
        assert (
            "Periods with facts: FY2025, Q4-FY2025, Q2-FY2025, FY2024" in miss
            and "Stub" not in miss
        )
        # A wildcard or SQL in the words matches nothing rather than everything.
        assert "no fact" in await error(
            client, "search_facts", company_id="NVDA", query="%zq OR zq=zq"
        )
        for args in (
            {"limit": 0},
            {"limit": 101},
            {"query": ""},
            {"query": "x" * 201},
            {"company_id": ""},
        ):
            result = await client.call_tool(
                "search_facts", {"company_id": "NVDA", "query": "revenue", **args}
            )
            assert result.is_error
    # The table holds no non-finite value to serve (read after the session closed its snapshot).
    bad = _table(
        facts_snapshot, "SELECT count(*) AS n FROM company_facts WHERE NOT isfinite(value)"
    )
    assert bad["n"][0] == 0
