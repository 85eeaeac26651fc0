"""get_metrics over a real MCP client session says what each number is: an earnings release's
figure (source_kind press_release) and the 10-Q's that made it final, a derived fourth quarter
with both operands cited, a split recast and an accounting change with their reasons, and the
company concepts mapped to capex and total debt. The snapshot is built from corpus filings (plus
the NVIDIA release fixture) by the pipeline's own stage functions."""

from __future__ import annotations

from pathlib import Path

import pytest

from graphrag_core.intake.local_folder import LocalFolderSource
from tests.mcp_client import call, session
from tests.release_corpus import overlay_corpus
from tests.test_mcp_corpus import publish, run_stages

pytestmark = pytest.mark.corpus

DOCUMENTS = (
    "filings/BKE/8-K/BuckleInc.8-K.htm",
    "fixtures/NVDA/8-K/nvda-8k-2025-08-27.htm",
    "filings/NVDA/10-Q/nvda-10-q-2025-08-27.htm",
    "filings/NVDA/10-K/Nvidia.10-K.htm",
    "filings/NVDA/10-K/nvda-10-k-2025-02-26.htm",
    "filings/TSLA/10-K/tsla-10-k-2025-01-30.htm",
    "filings/TSLA/10-Q/tsla-10-q-2025-07-24.htm",
    "filings/AAPL/10-K/aapl-10-k-2024-11-01.htm",
    "filings/AAPL/10-Q/Apple.10-Q.htm",
)
NVDA_10Q = "0001045810-25-000209"
NVDA_10K_FY2023 = "0001045810-23-000017"


@pytest.fixture(scope="module")
def snapshot(corpus_dir: Path, tmp_path_factory) -> tuple[Path, dict[str, str]]:
    folder = overlay_corpus(corpus_dir, tmp_path_factory.mktemp("overlay"))
    ids = {}
    for ref in LocalFolderSource(folder).discover():
        relative = str(Path(ref.documents[0].location).relative_to(folder))
        if relative in DOCUMENTS:
            ids[relative] = ref.filing_id
    assert len(ids) == len(DOCUMENTS)
    data_root = tmp_path_factory.mktemp("metric-sources")
    run_stages(folder, data_root, tuple(ids.values()))
    publish(folder, data_root)
    return data_root, ids


def one(values: list[dict], label: str) -> dict:
    [value] = [v for v in values if v["fiscal_label"] == label]
    return value


async def test_an_earnings_release_is_served_as_unaudited_with_its_table(snapshot):
    data_root, ids = snapshot
    async with session(data_root) as client:
        out = await call(
            client,
            "get_metrics",
            company_id="BKE",
            metrics=["revenue", "net_income", "eps_diluted"],
            period_type="quarter",
            periods=2,
        )
        got = {s["metric"]: one(s["values"], "Q3-FY2024") for s in out["series"]}
        assert {m: v["value"] for m, v in got.items()} == {
            "revenue": 293_618e3,
            "net_income": 44_172e3,
            "eps_diluted": 0.88,
        }
        for metric, shown in (
            ("revenue", "$293,618"),
            ("net_income", "$44,172"),
            ("eps_diluted", "$0.88"),
        ):
            value = got[metric]
            assert (value["source_kind"], value["derived"], value["superseded"]) == (
                "press_release",
                False,
                [],
            )
            cite = value["citation"]
            assert (cite["filing_id"], cite["form"], cite["section"]) == (
                ids["filings/BKE/8-K/BuckleInc.8-K.htm"],
                "8-K",
                "8-K/Exhibit 99.1",
            )
            assert value["mapping_rule"].startswith("release table row")
            chunk = await call(client, "get_chunk", chunk_id=cite["chunk_id"])
            assert "CONSOLIDATED STATEMENTS OF INCOME" in chunk["text"] and shown in chunk["text"]


async def test_the_10q_supersedes_the_release_and_says_so(snapshot):
    data_root, ids = snapshot
    async with session(data_root) as client:
        out = await call(
            client,
            "get_metrics",
            company_id="NVDA",
            metrics=["revenue"],
            period_type="quarter",
            periods=1,
        )
        q2 = out["series"][0]["values"][0]
        assert (q2["fiscal_label"], q2["value"], q2["source_kind"], q2["restated"]) == (
            "Q2-FY2026",
            46_743e6,
            "xbrl",
            False,
        )
        assert q2["citation"]["filing_id"] == NVDA_10Q
        [release] = q2["superseded"]
        assert (release["value"], release["source_kind"], release["supersede_reason"]) == (
            46_743e6,
            "press_release",
            "press_release_final",
        )
        assert (
            release["supersede_detail"]
            == f"the earnings release's figure, confirmed by 10-Q {NVDA_10Q}"
        )
        assert release["citation"]["filing_id"] == ids["fixtures/NVDA/8-K/nvda-8k-2025-08-27.htm"]
        assert release["citation"]["section"] == "8-K/Exhibit 99.1"


async def test_a_derived_fourth_quarter_cites_both_operands(snapshot):
    data_root, ids = snapshot
    async with session(data_root) as client:
        out = await call(
            client,
            "get_metrics",
            company_id="AAPL",
            metrics=["revenue"],
            period_type="quarter",
            periods=2,
        )
        q4 = one(out["series"][0]["values"], "Q4-FY2024")
        assert (q4["value"], q4["derived"], q4["derivation"], q4["source_kind"]) == (
            94_930e6,
            True,
            "FY2024 − 9M-FY2024",
            "xbrl",
        )
        assert (q4["calendar_start"], q4["calendar_end"]) == ("2024-06-30", "2024-09-28")
        fy, nine = q4["derived_from"]
        assert (fy["fiscal_label"], fy["value"], fy["citation"]["filing_id"]) == (
            "FY2024",
            391_035e6,
            ids["filings/AAPL/10-K/aapl-10-k-2024-11-01.htm"],
        )
        assert (nine["fiscal_label"], nine["value"], nine["citation"]["filing_id"]) == (
            "9M-FY2024",
            296_105e6,
            ids["filings/AAPL/10-Q/Apple.10-Q.htm"],
        )
        for operand, shown in ((fy, "391,035"), (nine, "296,105")):
            chunk = await call(client, "get_chunk", chunk_id=operand["citation"]["chunk_id"])
            assert shown in chunk["text"]


async def test_a_split_and_an_accounting_change_keep_their_reasons(snapshot):
    data_root, _ = snapshot
    async with session(data_root) as client:
        eps = await call(
            client, "get_metrics", company_id="NVDA", metrics=["eps_diluted"], periods=3
        )
        fy23 = one(eps["series"][0]["values"], "FY2023")
        assert (fy23["value"], fy23["restated"]) == (0.17, True)
        [before] = fy23["superseded"]
        assert (before["value"], before["citation"]["filing_id"], before["supersede_reason"]) == (
            1.74,
            NVDA_10K_FY2023,
            "recast",
        )
        assert before["supersede_detail"].startswith("10-for-1 stock split")

        net = await call(
            client,
            "get_metrics",
            company_id="TSLA",
            metrics=["net_income"],
            period_type="quarter",
            periods=8,
        )
        q2 = one(net["series"][0]["values"], "Q2-FY2024")
        [before] = q2["superseded"]
        assert (q2["value"], before["value"], before["supersede_reason"]) == (
            1_400e6,
            1_478e6,
            "recast",
        )
        assert before["supersede_detail"].startswith("accounting change: ASU 2023-08")


async def test_company_concepts_fill_capex_and_total_debt(snapshot):
    data_root, _ = snapshot
    async with session(data_root) as client:
        capex = await call(client, "get_metrics", company_id="NVDA", metrics=["capex"], periods=5)
        values = capex["series"][0]["values"]
        # FY2023's figure is also in the FY2025 10-K (a us-gaap concept there, the same value);
        # FY2022's only in the FY2023 10-K, whose own concept is mapped by its label and place.
        assert one(values, "FY2023")["value"] == 1_833e6
        fy22 = one(values, "FY2022")
        assert (
            fy22["value"] == 976e6
            and fy22["citation"]["concept"]
            == "nvda:PurchasesOfPropertyAndEquipmentAndIntangibleAssets"
        )
        assert fy22["citation"]["filing_id"] == NVDA_10K_FY2023
        assert "in the investing section of the cash-flow statement" in fy22["mapping_rule"]
        debt = await call(
            client, "get_metrics", company_id="TSLA", metrics=["total_debt"], periods=1
        )
        fy24 = debt["series"][0]["values"][0]
        assert (fy24["fiscal_label"], fy24["value"]) == ("FY2024", 8_213e6)
        assert "on the liabilities side of the balance sheet" in fy24["mapping_rule"]
