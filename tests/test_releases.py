"""Earnings releases (8-K, EX-99) → press-release observations: tables by their headings and
row labels, the scale header, prose for figures no table gives, fiscal labels from the release's
own calendar, and the 10-Q's XBRL value superseding the release's."""

from __future__ import annotations

import datetime as dt
import tempfile
from pathlib import Path

import polars as pl
import pytest

from graphrag_core.intake.local_folder import LocalFolderSource
from graphrag_core.intake.raw_filing import ingest_filing
from graphrag_core.tables.schemas import CHUNKS, METRIC_OBSERVATIONS, frame
from graphrag_core.tables.table_store import TableStore
from graphrag_core.text.filing_chunks import chunk_filing
from graphrag_core.xbrl.metrics import FilingInfo
from graphrag_core.xbrl.release_periods import Span, column_spans
from graphrag_core.xbrl.releases import (
    observations_for_filing,
    observations_from_release,
    parse_markdown_table,
    parse_value,
)
from graphrag_core.xbrl.supersession import apply_supersession, latest
from tests.release_corpus import overlay_corpus
from tests.xbrl_corpus import extract

D = dt.date.fromisoformat
ACME_8K = FilingInfo(
    "acme-8k", "0000000042", "8-K", D("2025-03-04"), None, None, None, D("2025-03-04")
)

INCOME = """CONSOLIDATED STATEMENTS OF INCOME

(Amounts in Thousands Except Per Share Amounts)

|  | Thirteen Weeks Ended |  | Thirty-Nine Weeks Ended |  |
|  | November 2, 2024 | October 28, 2023 | November 2, 2024 | October 28, 2023 |
|---|---|---|---|---|
| SALES, Net of returns and allowances | $293,618 | $303,457 | $838,490 | $878,719 |
| Gross profit | 140,071 | 147,215 | 393,302 | 418,884 |
| Gross margin | 47.7% | 48.5% | 46.9% | 47.7% |
| NET INCOME | $44,172 | $51,762 | $118,270 | $140,338 |
| EARNINGS PER SHARE: |  |  |  |  |
| Basic | $0.89 | $1.05 | $2.37 | $2.83 |
| Diluted | $0.88 | $1.04 | $2.35 | $2.81 |
| Diluted weighted average shares | 50,297 | 49,937 | 50,230 | 49,891 |"""

CASH_FLOWS = """CONDENSED CONSOLIDATED STATEMENTS OF CASH FLOWS
(In millions)

|  | Three Months Ended June 30, |  |
|  | 2025 | 2024 |
|---|---|---|
| Net cash provided by operating activities | 1,250 | 980 |
| Purchases of property and equipment | (310) | (275) |
| Proceeds from sales of property and equipment | 12 | — |"""

OUTLOOK = """Outlook for the fourth quarter
(In millions)

|  | Three Months Ending March 31, 2025 |
|---|---|
| Revenue | $1,400 |"""


def chunk(text: str, kind: str = "table", scale: str | None = None, ordinal: int = 0) -> dict:
    return {
        "chunk_id": f"acme-8k:{kind}{ordinal}",
        "filing_id": "acme-8k",
        "document_type": "EX-99.1",
        "section": "8-K/Exhibit 99.1",
        "kind": kind,
        "ordinal": ordinal,
        "text": text,
        "char_start": ordinal * 1000,
        "char_end": ordinal * 1000 + len(text),
        "scale_header": scale,
        "token_count": 1,
        "sha256": "x",
        "ix_ids": [],
    }


def release(*chunks: dict, filing: FilingInfo = ACME_8K):
    return observations_from_release(frame(list(chunks), CHUNKS), filing)


def pick(o: pl.DataFrame, metric: str, label: str) -> dict:
    rows = o.filter((pl.col("metric") == metric) & (pl.col("fiscal_label") == label))
    assert rows.height == 1, f"{metric} {label}: {rows.height}"
    return rows.row(0, named=True)


# -- pieces --------------------------------------------------------------------------------


def test_values_as_releases_print_them():
    assert parse_value("$293,618") == 293_618
    assert parse_value("(365,241)") == -365_241
    assert parse_value("$(0.42)") == -0.42
    assert parse_value("$ 0.88") == 0.88
    assert [parse_value(v) for v in ("—", "", "47.7%", "n/a", "2024 (1)")] == [None] * 5


def test_headings_give_each_column_its_period():
    table = parse_markdown_table(INCOME)
    assert table is not None and table.caption.startswith("CONSOLIDATED STATEMENTS OF INCOME")
    spans = column_spans(table.header)
    assert spans == {
        1: Span(D("2024-08-04"), D("2024-11-02")),  # thirteen weeks, exactly
        2: Span(D("2023-07-30"), D("2023-10-28")),
        3: Span(D("2024-02-04"), D("2024-11-02")),  # thirty-nine weeks
        4: Span(D("2023-01-29"), D("2023-10-28")),
    }
    # "June 30," over "2025": calendar months; a date alone is a balance-sheet instant.
    split = column_spans(parse_markdown_table(CASH_FLOWS).header)
    assert split[1] == Span(D("2025-04-01"), D("2025-06-30"))
    assert column_spans([["ASSETS", "November 2, 2024", "February 3, 2024 (1)"]]) == {
        1: Span(None, D("2024-11-02")),
        2: Span(None, D("2024-02-03")),
    }
    # Nonsense lengths are not periods: the column is read as a date (an instant) or not at all.
    assert column_spans([["", "0 Weeks Ended June 30, 2025", "Sixty Months Ended", "Q3 FY25"]]) == {
        1: Span(None, D("2025-06-30")),
    }


# -- tables --------------------------------------------------------------------------------


def test_income_statement_rows_columns_scale_and_calendar():
    out = release(
        chunk(
            "THE BUCKLE, INC. REPORTS THIRD QUARTER NET INCOME\n\nNet income for the third "
            "quarter of fiscal 2024 was $44.2 million.",
            "prose",
            ordinal=0,
        ),
        chunk(INCOME, scale="amounts in thousands except per share amounts", ordinal=1),
    ).observations
    assert set(o for o in out["source_kind"]) == {"press_release"}
    revenue = pick(out, "revenue", "Q3-FY2024")  # "third quarter of fiscal 2024" names the year
    assert (revenue["value"], revenue["unit"]) == (293_618_000, "USD")
    assert (revenue["calendar_start"], revenue["calendar_end"]) == (
        D("2024-08-04"),
        D("2024-11-02"),
    )
    assert revenue["chunk_id"] == "acme-8k:table1"
    assert (
        revenue["mapping_rule"]
        == "release table row 'SALES, Net of returns and allowances' (Thirteen Weeks Ended "
        "November 2, 2024)"
    )
    assert revenue["fact_id"] is None and revenue["concept"] is None and revenue["derived"] is False
    assert pick(out, "revenue", "9M-FY2024")["value"] == 838_490_000
    # Per-share figures are never scaled; "Diluted" counts only under the per-share heading.
    assert pick(out, "eps_diluted", "Q3-FY2024")["value"] == 0.88
    assert pick(out, "eps_diluted", "9M-FY2023")["value"] == 2.81
    assert pick(out, "net_income", "Q3-FY2023")["value"] == 51_762_000
    # The prose figure (44.2 million) loses to the table's exact one, without a conflict.
    assert pick(out, "net_income", "Q3-FY2024")["value"] == 44_172_000
    assert set(out["metric"]) == {
        "revenue",
        "gross_profit",
        "net_income",
        "eps_diluted",
    }  # "Gross margin" is a rate


def test_cash_flow_lines_and_capex_as_a_positive_outflow():
    out = release(chunk(CASH_FLOWS, scale="in millions")).observations
    ocf = out.filter(pl.col("metric") == "operating_cash_flow").sort("calendar_end")
    assert ocf["value"].to_list() == [980e6, 1_250e6]
    capex = out.filter(pl.col("metric") == "capex").sort("calendar_end")
    assert capex["value"].to_list() == [275e6, 310e6]  # (310) paid: capex 310, not -310
    assert "Proceeds" not in " ".join(capex["mapping_rule"])


def test_a_table_without_a_scale_yields_no_amounts_and_says_so():
    result = release(chunk(INCOME.replace("(Amounts in Thousands Except Per Share Amounts)", "")))
    assert set(result.observations["metric"]) == {"eps_diluted"}  # per-share figures need no scale
    assert result.skipped["release_unscaled_table"] == 1
    assert any("states no scale" in w for w in result.warnings)


def test_outlooks_and_non_gaap_reconciliations_are_never_read():
    assert release(chunk(OUTLOOK, scale="in millions")).observations.is_empty()
    reconciliation = (
        "Reconciliation of GAAP to Non-GAAP Measures\n(In millions)\n\n"
        + INCOME.split("\n\n", 2)[2]
    )
    assert release(chunk(reconciliation, scale="in millions")).observations.is_empty()


def test_two_tables_that_disagree_yield_nothing_for_that_figure():
    other = INCOME.replace("$293,618", "$293,700")
    result = release(
        chunk(INCOME, scale="in thousands", ordinal=0),
        chunk(other, scale="in thousands", ordinal=1),
    )
    o = result.observations
    assert o.filter(
        (pl.col("metric") == "revenue")
        & (pl.col("calendar_end") == D("2024-11-02"))
        & (pl.col("calendar_start") == D("2024-08-04"))
    ).is_empty()
    assert result.skipped["release_conflict"] == 1
    assert o.filter(pl.col("metric") == "net_income").height == 4  # the rest still lands


# -- prose ---------------------------------------------------------------------------------


def test_figures_only_in_sentences():
    text = (
        "ABVC BioPharma Announces 2024 Financial Results\n\n"
        "Revenue Surges 234%, with Over $18.3 Million Licensing Incomes Available\n\n"
        "The company today announced its financial results for the fiscal year ended "
        "December 31, 2024.\n\n"
        "ABVC reported total revenues of $509,589 in 2024, representing a 234% increase "
        "compared to $152,430 in 2023. "
        "Net loss attributable to ABVC narrowed from $7.79 million in 2023 to $4.90 million "
        "in 2024. "
        "Basic and diluted loss per share improved significantly from $(1.80) to $(0.42), "
        "reflecting a 77% improvement. "
        "Online sales increased to $46.6 million in 2024. "
        "The company expects revenue of $2.0 million in 2025."
    )
    o = release(chunk(text, "prose")).observations
    got = {(r["metric"], r["fiscal_label"]): r["value"] for r in o.iter_rows(named=True)}
    assert got == {
        ("revenue", "FY2024"): 509_589,
        ("revenue", "FY2023"): 152_430,
        ("net_income", "FY2024"): -4_900_000,
        ("net_income", "FY2023"): -7_790_000,
        ("eps_diluted", "FY2024"): -0.42,
        ("eps_diluted", "FY2023"): -1.80,
    }  # not the headline's $18.3 million, not online sales, not the forecast
    rule = pick(o, "net_income", "FY2024")["mapping_rule"]
    assert rule.startswith("release sentence: 'Net loss attributable to ABVC narrowed")


# -- the corpus ----------------------------------------------------------------------------


def _through_intake(corpus: Path, ticker: str, form: str = "8-K"):
    source = LocalFolderSource(corpus)
    [ref] = [r for r in source.discover() if r.ticker == ticker and r.form == form]
    store = TableStore(tempfile.mkdtemp(prefix="releases-"))
    raw = ingest_filing(ref, source.fetch(ref), store)
    chunks = chunk_filing(raw.meta, raw.documents, store).chunks
    filing = extract(ref, chunks)
    info = FilingInfo.from_meta(filing.xbrl.facts, raw.meta)
    return ref, chunks, observations_for_filing(filing.xbrl.facts, chunks, info)


@pytest.mark.corpus
def test_buckle_ex99_yields_its_quarter_each_citing_its_table(corpus_dir: Path):
    ref, chunks, result = _through_intake(corpus_dir, "BKE")
    o = result.observations
    assert set(o["source_kind"]) == {"press_release"} and not result.warnings
    texts = dict(chunks.select("chunk_id", "text").iter_rows())
    for metric, value, shown in (
        ("revenue", 293_618_000, "$293,618"),
        ("net_income", 44_172_000, "$44,172"),
        ("eps_diluted", 0.88, "$0.88"),
    ):
        row = pick(o, metric, "Q3-FY2024")  # Buckle's "third quarter of fiscal 2024"
        assert row["value"] == value, metric
        assert (row["calendar_start"], row["calendar_end"]) == (D("2024-08-04"), D("2024-11-02"))
        assert row["cik"] == ref.cik and row["form"] == "8-K"
        cited = texts[row["chunk_id"]]
        assert "CONSOLIDATED STATEMENTS OF INCOME" in cited and shown in cited
        assert (
            chunks.filter(pl.col("chunk_id") == row["chunk_id"])["section"].item()
            == "8-K/Exhibit 99.1"
        )
    # The balance sheet's dates are instants, labelled by Buckle's 52/53-week calendar.
    assert pick(o, "total_assets", "Q3-FY2024")["value"] == 976_270_000
    assert pick(o, "stockholders_equity", "FY2023")["calendar_end"] == D("2024-02-03")


@pytest.mark.corpus
def test_abvc_release_figures_come_from_its_sentences(corpus_dir: Path):
    _, chunks, result = _through_intake(corpus_dir, "ABVC")
    o = result.observations.filter(pl.col("fiscal_label") == "FY2024")
    assert {r["metric"]: r["value"] for r in o.iter_rows(named=True)} == {
        "revenue": 509_589,
        "net_income": -4_900_000,
        "eps_diluted": -0.42,
    }
    cited = chunks.filter(pl.col("chunk_id") == pick(o, "revenue", "FY2024")["chunk_id"])[
        "text"
    ].item()
    assert "total revenues of $509,589 in 2024" in cited


@pytest.mark.corpus
def test_the_10q_supersedes_the_release(corpus_dir: Path, tmp_path: Path):
    folder = overlay_corpus(corpus_dir, tmp_path / "corpus")
    _, chunks, release_obs = _through_intake(folder, "NVDA", "8-K")
    assert release_obs.observations.height >= 30
    ten_q = extract(
        next(
            r for r in LocalFolderSource(folder).discover() if r.filing_id == "0001045810-25-000209"
        )
    )
    linked = apply_supersession(pl.concat([release_obs.observations, ten_q.metrics.observations]))
    release_rows = linked.filter(pl.col("source_kind") == "press_release")
    # Every figure of the release is superseded by the 10-Q's, which say the same.
    assert release_rows["superseded_by"].is_not_null().all()
    assert set(release_rows["supersede_reason"]) == {"press_release_final"}
    revenue = pick(release_rows, "revenue", "Q2-FY2026")
    assert revenue["value"] == 46_743_000_000
    assert (
        revenue["supersede_detail"]
        == "the earnings release's figure, confirmed by 10-Q 0001045810-25-000209"
    )
    current = pick(latest(linked), "revenue", "Q2-FY2026")
    assert (current["source_kind"], current["filing_id"], current["restated"]) == (
        "xbrl",
        "0001045810-25-000209",
        False,
    )
    assert current["observation_id"] == revenue["superseded_by"]


def test_a_difference_between_release_and_filing_is_reported():
    base = {c: None for c in METRIC_OBSERVATIONS} | {
        "cik": "0000000042",
        "metric": "net_income",
        "unit": "USD",
        "period_type": "duration",
        "calendar_start": D("2025-04-28"),
        "calendar_end": D("2025-07-27"),
        "fiscal_label": "Q2-FY2026",
        "fact_ids": [],
        "derived_from": [],
        "derived": False,
    }
    rows = [
        base
        | {
            "observation_id": "pr",
            "value": 26_422e6,
            "filing_id": "8k",
            "form": "8-K",
            "filed_date": D("2025-08-27"),
            "source_kind": "press_release",
        },
        # the 10-Q, filed the same day: its figure wins whatever the filing order
        base
        | {
            "observation_id": "q",
            "value": 26_400e6,
            "filing_id": "10q",
            "form": "10-Q",
            "filed_date": D("2025-08-27"),
            "source_kind": "xbrl",
            "calendar_start": D("2025-04-27"),
        },
    ]
    linked = apply_supersession(frame(rows, METRIC_OBSERVATIONS))
    pr = linked.filter(pl.col("observation_id") == "pr").row(0, named=True)
    # The release's start (13 weeks back) is aligned with the filing's, a day off.
    assert (pr["calendar_start"], pr["superseded_by"], pr["supersede_reason"]) == (
        D("2025-04-27"),
        "q",
        "press_release_final",
    )
    assert pr["supersede_detail"] == (
        "the earnings release said 2.6422e+10 → 2.64e+10, a difference of -2.2e+07 (-0.08%) "
        "in 10-Q 10q"
    )
    assert linked.filter(pl.col("observation_id") == "q")["restated"].item() is True
