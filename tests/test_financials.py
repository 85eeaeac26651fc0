"""Statements as filed (issue 23, items 1 and 5): every line of the income statement, balance
sheet and cash-flow statement of every inline-XBRL filing of the corpus, in the filing's order,
equal to SEC's companyfacts where SEC lists the concept, and served by `get_financials`
through an MCP session."""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import polars as pl
import pytest

from graphrag_core.tables.schemas import XBRL_FACTS, frame
from graphrag_core.xbrl.companyfacts import crosscheck
from graphrag_core.xbrl.metrics import FilingInfo
from graphrag_core.xbrl.standard_lines import CONCEPT_STANDARD, STANDARD_LINES
from graphrag_core.xbrl.statements import STATEMENTS, statement_lines, statement_tables
from tests.mcp_client import call, error, session
from tests.test_companyfacts_crosscheck import reference
from tests.test_mcp_corpus import NVDA_10K_FY2025, PLAIN_HTML_10K, TSLA_10K, publish, run_stages
from tests.xbrl_corpus import corpus_filings

NKE_10K = "sha-ccd82759b9082181"
KO_10K = "sha-03e0f59ce1b6115d"
SNAPSHOT_FILINGS = (NVDA_10K_FY2025, NKE_10K, KO_10K, TSLA_10K, PLAIN_HTML_10K)
NVDA, NKE, KO = "CIK-0001045810", "NKE", "KO"
# 10-Ks whose statements are not in the filed document (incorporated by reference from the
# annual report exhibit, which the corpus does not hold): no table tags total assets.
STATEMENTS_ELSEWHERE = {("IBM", "10-K"), ("WFC", "10-K")}


def _info(f) -> FilingInfo:
    return FilingInfo.from_facts(
        f.xbrl.facts,
        f.ref.filing_id,
        cik=f.ref.cik,
        form=f.ref.form,
        filed_date=f.ref.filed_date,
        period_end=f.ref.period_end,
    )


def _statement_filings(corpus_dir: Path) -> list:
    return [
        f
        for f in corpus_filings(corpus_dir).values()
        if f.ref.form in ("10-K", "10-Q") and f.xbrl.facts.height
    ]


# -- every line of every inline-XBRL filing --------------------------------------------------


@pytest.mark.slow
def test_every_inline_xbrl_filing_has_its_three_statements(corpus_dir: Path):
    found = {
        (f.ref.ticker, f.ref.form, f.ref.filing_id): statement_tables(f.xbrl.facts)
        for f in _statement_filings(corpus_dir)
    }
    assert len(found) >= 30
    for (ticker, form, filing), tables in found.items():
        if (ticker, form) in STATEMENTS_ELSEWHERE:
            assert tables == {}, filing
        else:
            assert set(tables) == set(STATEMENTS), filing
            assert len(set(tables.values())) == 3, filing  # three distinct tables


@pytest.mark.slow
def test_every_fact_shown_in_a_statement_is_a_line(corpus_dir: Path):
    """Each numeric fact the statement tables display is served under a period of its statement,
    with its own value, label as filed and citation."""
    checked = 0
    for f in _statement_filings(corpus_dir):
        facts = f.xbrl.facts
        tables = statement_tables(facts)
        if not tables:
            continue
        lines = statement_lines(facts, _info(f))
        shown = (
            facts.filter(pl.col("is_numeric") & pl.col("value").is_not_null())
            .explode("html_tables")
            .filter(pl.col("html_tables").is_in(list(tables.values())))
        )
        missing = shown.join(lines, on="fact_id", how="anti")
        assert missing.is_empty(), (
            f.ref.ticker,
            f.ref.form,
            missing.select("concept", "period_end"),
        )
        same = lines.join(
            facts.select("fact_id", pl.col("value").alias("fact_value")), on="fact_id"
        )
        assert (same["value"] == same["fact_value"]).all()
        assert lines["label"].null_count() == 0 and lines["fiscal_label"].null_count() == 0
        # One line number per row, in row order.
        per_row = lines.group_by("filing_id", "statement", "line").agg(
            pl.col("table_row").n_unique()
        )
        assert (per_row["table_row"] == 1).all()
        checked += shown.height
    assert checked > 5_000


@pytest.mark.slow
def test_statement_lines_equal_sec_companyfacts(corpus_dir: Path):
    """Tesla's FY2024 10-K: every statement line SEC's companyfacts lists (same concept, unit,
    period and form) has SEC's value; the check is not vacuous (a changed value is caught)."""
    f = corpus_filings(corpus_dir)[TSLA_10K]
    lines = statement_lines(f.xbrl.facts, _info(f))
    as_facts = lines.select(
        "concept",
        "value",
        "unit",
        "decimals",
        pl.col("fact_period_start").alias("period_start"),
        pl.col("fact_period_end").alias("period_end"),
        "fact_id",
        pl.lit(True).alias("is_numeric"),
        pl.when(pl.col("dimensions") == "{}").then(0).otherwise(1).alias("dimension_count"),
        pl.lit("10-K").alias("form"),
        "filing_id",
    ).unique("fact_id")
    ref = reference(corpus_dir, "TSLA")
    checked = crosscheck(as_facts, ref)
    # SEC's file stops in 2022: the FY2024 10-K overlaps it on the cash-flow statement's opening
    # balance of fiscal 2022 (its FY2022 column), which SEC lists from the FY2022 10-K ...
    assert checked["concept"].to_list() == [
        "us-gaap:CashCashEquivalentsRestrictedCashAndRestrictedCashEquivalentsIncludingDisposalGroupAndDiscontinuedOperations"
    ]
    assert checked["match"].all() and checked["value"].to_list() == [18_144e6]
    # ... and from every 10-Q of 2022 that repeated it.
    any_form = crosscheck(
        as_facts.drop("form"), ref.with_columns(form=pl.lit(None, dtype=pl.String)), form=None
    )
    assert any_form.height >= 4 and any_form["match"].all()
    off = crosscheck(as_facts.with_columns(pl.col("value") + 1e6), ref)
    assert not off["match"].any()


@pytest.mark.slow
def test_standard_lines_equal_the_served_metrics(corpus_dir: Path):
    """Where a statement line's standardized id is a canonical metric, the line is the very fact
    get_metrics serves for that filing and period (metrics equal SEC's companyfacts: see
    tests/test_companyfacts_crosscheck.py)."""
    compared = 0
    for f in _statement_filings(corpus_dir):
        lines = statement_lines(f.xbrl.facts, _info(f))
        obs = f.metrics.observations.filter(~pl.col("derived") & pl.col("mapping_rule").is_null())
        lines = lines.filter(pl.col("period_end") == pl.col("fact_period_end")).with_columns(
            pl.coalesce("fact_period_start", "fact_period_end").alias("calendar_start")
        )
        joined = lines.join(
            obs.select(
                pl.col("metric").alias("standard_line"),
                "calendar_start",
                pl.col("calendar_end").alias("fact_period_end"),
                "unit",
                pl.col("value").alias("metric_value"),
                pl.col("concept").alias("metric_concept"),
            ),
            on=["standard_line", "calendar_start", "fact_period_end", "unit"],
            how="inner",
        )
        differ = joined.filter(pl.col("value") != pl.col("metric_value"))
        assert differ.is_empty(), differ.select(
            "filing_id", "standard_line", "concept", "metric_concept", "value", "metric_value"
        ).rows()
        compared += joined.height
    assert compared > 500


# -- table choice and order on small frames ----------------------------------------------------


def _fact(
    concept: str,
    table: int,
    row: int,
    label: str,
    *,
    end: str = "2025-01-26",
    start: str | None = "2024-01-29",
    value: float = 1.0,
    tables: list[int] | None = None,
    places: list[tuple[int, int, str]] | None = None,
) -> dict:
    shown = tables or [table]
    return {
        "fact_id": f"f:{concept}:{start}:{end}",
        "filing_id": "f",
        "cik": "0000000001",
        "concept": concept,
        "value": value,
        "is_numeric": True,
        "unit": "USD",
        "decimals": -6,
        "period_type": "duration" if start else "instant",
        "period_start": dt.date.fromisoformat(start) if start else None,
        "period_end": dt.date.fromisoformat(end),
        "dimensions": "{}",
        "dimension_count": 0,
        "html_tables": shown,
        "table_row": row,
        "row_label": label,
        "conflict": False,
        "table_places": [
            {"table": t, "row": r, "label": lab} for t, r, lab in (places or [(table, row, label)])
        ],
    }


def _frame(rows: list[dict]) -> pl.DataFrame:
    return frame(rows, XBRL_FACTS)


def test_the_statement_is_the_table_with_most_anchors_not_an_mdna_summary():
    summary = [
        _fact("us-gaap:Revenues", 3, 1, "Revenue", tables=[3, 9]),
        _fact("us-gaap:NetIncomeLoss", 3, 2, "Net income", tables=[3, 9]),
    ]
    face = [
        _fact("us-gaap:CostOfRevenue", 9, 2, "Cost of revenue"),
        _fact("us-gaap:GrossProfit", 9, 3, "Gross profit"),
        _fact("us-gaap:EarningsPerShareDiluted", 9, 6, "Diluted"),
    ]
    assert statement_tables(_frame(summary + face)) == {"income": 9}
    # Without the anchors of a statement, no table is taken for it.
    assert statement_tables(_frame([_fact("us-gaap:NetIncomeLoss", 3, 2, "Net income")])) == {}


def test_a_fact_first_shown_elsewhere_keeps_its_row_in_the_statement():
    """Net income is first displayed on the income statement (table 1), then opens the cash-flow
    statement (table 2): it is line 1 there, not appended after the known rows."""
    rows = [
        _fact("us-gaap:Revenues", 1, 1, "Revenue"),
        _fact("us-gaap:IncomeTaxExpenseBenefit", 1, 2, "Tax"),
        _fact(
            "us-gaap:NetIncomeLoss",
            1,
            3,
            "Net income",
            tables=[1, 2],
            places=[(1, 3, "Net income"), (2, 1, "Net income")],
        ),
        _fact("us-gaap:DepreciationDepletionAndAmortization", 2, 3, "Depreciation"),
        _fact("us-gaap:NetCashProvidedByUsedInOperatingActivities", 2, 4, "Operating"),
        _fact(
            "us-gaap:CashAndCashEquivalentsAtCarryingValue",
            2,
            7,
            "Cash, beginning",
            start=None,
            end="2024-01-28",
            places=[(2, 7, "Cash, beginning")],
        ),
        _fact(
            "us-gaap:CashAndCashEquivalentsAtCarryingValue",
            2,
            8,
            "Cash, end",
            start=None,
            end="2025-01-26",
        ),
    ]
    info = FilingInfo("f", "0000000001", "10-K", None, "--01-26", 2025, "FY", None)
    lines = statement_lines(_frame(rows), info)
    cash_flow = lines.filter(pl.col("statement") == "cash_flow").sort("line")
    assert cash_flow["label"].to_list() == [
        "Net income",
        "Depreciation",
        "Operating",
        "Cash, beginning",
        "Cash, end",
    ]
    assert cash_flow["fiscal_label"].unique().to_list() == ["FY2025"]
    std = dict(zip(cash_flow["label"], cash_flow["standard_line"], strict=True))
    assert std["Cash, end"] == "cash_and_equivalents" and std["Cash, beginning"] is None
    assert std["Net income"] == "net_income" and std["Depreciation"] == "depreciation_amortization"


def test_standard_lines_are_unique_and_documented():
    assert len(CONCEPT_STANDARD) == sum(
        len(c) for c in STANDARD_LINES.values()
    )  # one id per concept
    for line in (
        "revenue",
        "cost_of_revenue",
        "gross_profit",
        "operating_income",
        "net_income",
        "cash_and_equivalents",
        "total_assets",
        "total_liabilities",
        "inventories",
        "accounts_payable",
        "dividends_paid",
        "net_cash_investing",
        "net_cash_financing",
        "depreciation_amortization",
        "interest_expense",
        "share_repurchases",
    ):
        assert STANDARD_LINES[line], line


# -- through an MCP session on a corpus snapshot ------------------------------------------------


@pytest.fixture(scope="module")
def financials_snapshot(corpus_dir: Path, tmp_path_factory) -> Path:
    data_root = tmp_path_factory.mktemp("financials-data")
    run_stages(corpus_dir, data_root, SNAPSHOT_FILINGS)
    publish(corpus_dir, data_root)
    return data_root


@pytest.mark.corpus
async def test_nvidia_income_statement_as_filed(financials_snapshot):
    async with session(financials_snapshot) as client:
        out = await call(
            client, "get_financials", company_id=NVDA, statement="income", period="FY2025"
        )
        assert (out["fiscal_label"], out["filing_id"], out["form"]) == (
            "FY2025",
            NVDA_10K_FY2025,
            "10-K",
        )
        labels = [line["label"] for line in out["lines"]]
        assert labels[:3] == ["Revenue", "Cost of revenue", "Gross profit"]
        first = out["lines"][0]
        assert (first["value"], first["unit"], first["standard_line"]) == (
            130_497e6,
            "USD",
            "revenue",
        )
        assert (first["display"], first["rounded_to"]) == ("130,497 million USD", "millions")
        cite = first["citation"]
        assert (
            cite["chunk_id"].startswith(f"{NVDA_10K_FY2025}:")
            and cite["fact_id"]
            and cite["evidence"]
        )
        assert cite["section"] == "10-K/Item 15"
        std = {
            line["standard_line"]: line["value"] for line in out["lines"] if line["standard_line"]
        }
        assert std["net_income"] == 72_880e6 and std["gross_profit"] == 97_858e6
        assert std["eps_diluted"] == 2.94
        assert [line["line"] for line in out["lines"]] == sorted(
            line["line"] for line in out["lines"]
        )
        assert {"FY2024", "FY2023"} <= set(out["periods_available"])
        # The default is the latest period.
        latest = await call(client, "get_financials", company_id="NVDA", statement="income")
        assert latest["fiscal_label"] == "FY2025"
        chunk = await call(client, "get_chunk", chunk_id=cite["chunk_id"])
        assert "130,497" in chunk["text"]


@pytest.mark.corpus
async def test_dividends_and_investing_financing_totals_are_reachable(financials_snapshot):
    async with session(financials_snapshot) as client:
        nke = await call(
            client, "get_financials", company_id=NKE, statement="cash_flow", period="FY2025"
        )
        std = {line["standard_line"]: line for line in nke["lines"] if line["standard_line"]}
        assert std["dividends_paid"]["value"] == 2_300e6
        assert std["dividends_paid"]["label"] == "Dividends — common and preferred"
        assert std["net_cash_investing"]["value"] == -275e6
        assert std["net_cash_financing"]["value"] == -5_820e6
        assert std["share_repurchases"]["value"] == 2_985e6
        assert nke["lines"][0]["label"] == "Net income"  # the statement opens with it, as filed
        opening = [line for line in nke["lines"] if line["opening_balance"]]
        assert [line["value"] for line in opening] == [9_860e6]
        ko = await call(
            client, "get_financials", company_id=KO, statement="cash_flow", period="FY2024"
        )
        ko_std = {line["standard_line"] for line in ko["lines"]}
        assert {"dividends_paid", "net_cash_investing", "net_cash_financing"} <= ko_std
        balance = await call(
            client, "get_financials", company_id=KO, statement="balance", period="FY2024"
        )
        assert balance["period_start"] is None
        assert {"inventories", "accounts_payable", "total_assets", "current_assets"} <= {
            line["standard_line"] for line in balance["lines"]
        }


@pytest.mark.corpus
async def test_get_financials_hostile_arguments(financials_snapshot):
    async with session(financials_snapshot) as client:
        for bad in (
            "",
            " ",
            "CIK-9999999999",
            "../../etc/passwd",
            "NVDA'; DROP TABLE statement_lines;--",
            "\x00",
        ):
            result = await client.call_tool(
                "get_financials", {"company_id": bad, "statement": "income"}
            )
            assert result.is_error, bad
        assert (
            "statement"
            in (await error(client, "get_financials", company_id=NVDA, statement="equity")).lower()
        )
        for period in ("FY25", "2025", "FY2025; --", "Q5-FY2025", "nan", "inf"):
            await error(
                client, "get_financials", company_id=NVDA, statement="income", period=period
            )
        missing = await error(
            client, "get_financials", company_id=NVDA, statement="income", period="FY1999"
        )
        assert "periods it has: FY2025" in missing
        tesla = await error(
            client,
            "get_financials",
            company_id="CIK-0001318605",
            statement="income",
            period="Q3-FY2031",
        )
        assert "FY2024" in tesla
        # A company whose only filing has no inline XBRL has no statement.
        text = await error(
            client, "get_financials", company_id="CIK-0000786344", statement="balance"
        )
        assert "has no balance statement" in text


def test_a_non_finite_stored_value_is_served_as_missing():
    """A snapshot published before facts were checked may hold NaN or ±Infinity: the line is
    served with a null value and 'missing', never as NaN in JSON."""
    from mcp_server.financials import _line
    from mcp_server.formatting import display_value

    row = {
        "line": 1,
        "label": "Revenue",
        "concept": "us-gaap:Revenues",
        "standard_line": "revenue",
        "unit": "USD",
        "decimals": -6,
        "fact_period_type": "duration",
        "fact_period_start": dt.date(2024, 1, 29),
        "fact_period_end": dt.date(2025, 1, 26),
        "dimensions": "{}",
        "conflict": False,
        "filing_id": "f",
        "form": "10-K",
        "filed_date": None,
        "section": None,
        "chunk_id": None,
        "fact_id": "f:1",
    }
    for bad in (float("nan"), float("inf"), float("-inf")):
        line = _line({**row, "value": bad}, dt.date(2024, 1, 29), display_value)
        assert line.value is None and line.display == "missing"
        assert "NaN" not in line.model_dump_json() and "Infinity" not in line.model_dump_json()
