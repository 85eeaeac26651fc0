"""Generate a synthetic snapshot at scale for bench/mcp.py (not a benchmark itself: the
Makefile's `bench` target skips files starting with `_`).

Shape: N companies (default 5,000) × 40 periods (10 fiscal years of Q1, Q2, Q3 and FY) × 15
metrics = 3,000,000 observations, plus 1% restated values; one filing per period (10-Q or
10-K, 200,000 filings) with two chunks each (a statement table and an MD&A paragraph); each
10-K's three primary statements, 80 lines (statement_lines, 4,000,000 rows). Fiscal
year ends are spread over all twelve months so calendar ranges differ between companies.
Deterministic (seeded), vectorized with Polars.

Every table is cut to its schema as the stages define it (`graphrag_core.tables.schemas`,
`graphrag_core.store.statement_lines`) by `to_schema`: a column the schema gains later is
published as nulls here, as a stage writes a value it lacks, instead of the snapshot build
failing on it (bench/mcp.py stopped running that way when metric_observations gained
`source_kind` and the rest; tests/test_benches.py runs it in its small mode since).

    python bench/_synthetic_snapshot.py [--data-root .bench/mcp] [--companies 5000]
"""

from __future__ import annotations

import argparse
import datetime as dt
import sys
import time
from collections.abc import Mapping
from dataclasses import replace
from pathlib import Path

import numpy as np
import polars as pl

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from graphrag_core.graph.companies import CompanyReference, build_company_tables
from graphrag_core.store.publish import SnapshotStore
from graphrag_core.store.snapshot_tables import SnapshotTables
from graphrag_core.store.statement_lines import STATEMENT_LINES
from graphrag_core.tables.schemas import (
    CHUNKS,
    EDGE_EVIDENCE,
    EDGES,
    ENTITY_ALIASES,
    FILINGS,
    METRIC_OBSERVATIONS,
    NODES,
    ColumnType,
    empty,
)

YEARS = range(2016, 2026)  # fiscal years; 4 periods each → 40 periods
PERIODS = ("Q1", "Q2", "Q3", "FY")
FLOW = {  # metric → (unit, share of revenue before noise)
    "revenue": ("USD", 1.0),
    "cost_of_revenue": ("USD", 0.55),
    "gross_profit": ("USD", 0.45),
    "research_and_development": ("USD", 0.08),
    "operating_income": ("USD", 0.18),
    "net_income": ("USD", 0.13),
    "operating_cash_flow": ("USD", 0.2),
    "capital_expenditures": ("USD", 0.06),
    "eps_diluted": ("USD/shares", None),
}
INSTANT = {  # metric → (unit, multiple of annual revenue)
    "total_assets": ("USD", 1.6),
    "total_liabilities": ("USD", 0.9),
    "total_debt": ("USD", 0.45),
    "stockholders_equity": ("USD", 0.7),
    "cash_and_equivalents": ("USD", 0.15),
    "shares_outstanding": ("shares", None),
}
assert len(FLOW) + len(INSTANT) == 15

WORDS_A = (
    "Apex Blue Cedar Delta Ember Falcon Granite Harbor Iron Juniper Keystone Lumen Maple Nova "
    "Orion Pioneer Quartz Ridge Summit Titan Union Vertex Willow Xenon Yukon Zenith Atlas Beacon "
    "Cobalt Dune Echo Fjord Glacier Horizon Indigo Jade Kestrel Lotus Meridian Nimbus Onyx Polar "
    "Quantum Redwood Sierra Tundra Ultra Vista Wave Zephyr Aurora Boreal Crest Drift Everest "
    "Frontier Grove Helix Isle Jasper Kinetic Lattice Monarch Noble Oasis Prism Radiant Solace "
    "Tidal Umber Valor Westwind Yarrow Zircon Amber Birch Canyon Dawn"
).split()
WORDS_B = (
    "Dynamics Systems Energy Foods Pharma Networks Materials Logistics Robotics Semiconductor "
    "Software Capital Health Motors Retail Brands Biosciences Mining Aerospace Devices Media "
    "Telecom Chemicals Industries Labs Analytics Therapeutics Water Power Textiles Airlines "
    "Foundry Optics Storage Marine Rail Steel Paper Genomics Security Payments Insurance Realty "
    "Hotels Gaming Studios Apparel Beverages Agritech Solar Wind Batteries Cloud Devices2 Sensors "
    "Instruments Polymers Metals Freight Outfitters Kitchens Toys Tools Vision Audio Lighting "
    "Clinics Diagnostics Imaging Pipelines Drilling Transit"
).split()


def to_schema(frame: pl.DataFrame, schema: Mapping[str, ColumnType]) -> pl.DataFrame:
    """`frame` as a stage would write it under `schema`: the schema's columns in its order and
    types; those the generator does not set are nulls, its own working columns are dropped."""
    return frame.select(
        [
            (pl.col(c) if c in frame.columns else pl.lit(None)).cast(t).alias(c)
            for c, t in schema.items()
        ]
    )


def companies_frame(n: int, rng: np.random.Generator) -> pl.DataFrame:
    if n > len(WORDS_A) * len(WORDS_B):
        raise SystemExit(f"at most {len(WORDS_A) * len(WORDS_B)} synthetic company names")
    idx = np.arange(n)
    names = [
        f"{WORDS_A[i % len(WORDS_A)]} {WORDS_B[(i // len(WORDS_A)) % len(WORDS_B)]} Inc."
        for i in idx
    ]
    letters = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
    tickers = ["".join(letters[(i // 26**k) % 26] for k in (3, 2, 1, 0)) for i in idx]
    return pl.DataFrame(
        {
            "i": idx,
            "cik": [f"{1_800_000 + i:010d}" for i in idx],
            "company": names,
            "ticker": tickers,
            "fye_month": (idx % 12 + 1).astype(np.int32),
            "base_revenue": np.exp(rng.normal(np.log(3e9), 1.2, n)),
            "growth": rng.normal(0.08, 0.12, n),
        }
    )


def periods_frame(companies: pl.DataFrame) -> pl.DataFrame:
    """One row per company × fiscal period with its calendar range and its filing."""
    grid = pl.DataFrame(
        {
            "fiscal_year": [y for y in YEARS for _ in PERIODS],
            "fiscal_period": [p for _ in YEARS for p in PERIODS],
        }
    )
    fy_start = pl.date(pl.col("fiscal_year") - 1, pl.col("fye_month"), 1).dt.offset_by("1mo")
    months = pl.when(pl.col("fiscal_period") == "FY").then(12).otherwise(3)
    q = (
        pl.when(pl.col("fiscal_period") == "FY")
        .then(0)
        .otherwise(pl.col("fiscal_period").str.slice(1).cast(pl.Int32) - 1)
    )
    frame = (
        companies.join(grid, how="cross")
        .with_columns(
            calendar_start=fy_start.dt.offset_by(pl.format("{}mo", q * 3)),
        )
        .with_columns(
            calendar_end=pl.col("calendar_start")
            .dt.offset_by(pl.format("{}mo", months))
            .dt.offset_by("-1d"),
        )
        .with_columns(
            form=pl.when(pl.col("fiscal_period") == "FY")
            .then(pl.lit("10-K"))
            .otherwise(pl.lit("10-Q")),
            filed_date=pl.col("calendar_end").dt.offset_by(
                pl.when(pl.col("fiscal_period") == "FY")
                .then(pl.lit("55d"))
                .otherwise(pl.lit("38d"))
            ),
            fiscal_label=pl.when(pl.col("fiscal_period") == "FY")
            .then(pl.format("FY{}", pl.col("fiscal_year")))
            .otherwise(pl.format("{}-FY{}", pl.col("fiscal_period"), pl.col("fiscal_year"))),
            seq=pl.int_range(pl.len()).over("cik"),
        )
    )
    return frame.with_columns(
        filing_id=pl.format(
            "{}-{}-{}",
            pl.col("cik"),
            (pl.col("filed_date").dt.year() % 100).cast(pl.String).str.zfill(2),
            (pl.col("seq") + 1).cast(pl.String).str.zfill(6),
        )
    )


def filings_frame(periods: pl.DataFrame) -> pl.DataFrame:
    frame = periods.select(
        "filing_id",
        accession="filing_id",
        cik="cik",
        ticker="ticker",
        company="company",
        form="form",
        period_end="calendar_end",
        fiscal_year="fiscal_year",
        fiscal_period="fiscal_period",
        fiscal_year_end=pl.format(
            "--{}-{}",
            pl.col("fye_month").cast(pl.String).str.zfill(2),
            pl.col("calendar_end").dt.month_end().dt.day().cast(pl.String),
        ),
        filed_date="filed_date",
        source=pl.format("synthetic://{}", pl.col("filing_id")),
        sha256=pl.col("filing_id").hash(7).cast(pl.String),
        bytes=pl.lit(1_500_000, pl.Int64),
        documents=pl.lit(1, pl.Int32),
        is_inline_xbrl=pl.lit(True),
        meta_sources=pl.lit("{}"),
        warnings=pl.lit([], pl.List(pl.String)),
    )
    return to_schema(frame, FILINGS)


def values_frame(periods: pl.DataFrame, rng: np.random.Generator) -> pl.DataFrame:
    years_in = (pl.col("fiscal_year") - min(YEARS)).cast(pl.Float64)
    share = pl.when(pl.col("fiscal_period") == "FY").then(1.0).otherwise(0.25)
    base = periods.with_columns(
        annual_revenue=pl.col("base_revenue") * (1 + pl.col("growth")) ** years_in,
    ).with_columns(revenue=pl.col("annual_revenue") * share)
    n = base.height
    rows = []
    for metric, (unit, ratio) in FLOW.items():
        noise = rng.normal(1.0, 0.05, n)
        if ratio is None:  # per share: net income over ~1bn shares
            value = base["revenue"].to_numpy() * 0.13 * noise / 1e9
        else:
            value = base["revenue"].to_numpy() * ratio * noise
        rows.append(
            base.select(
                "cik",
                "filing_id",
                "form",
                "filed_date",
                "fiscal_label",
                "fiscal_year",
                "fiscal_period",
                "calendar_start",
                "calendar_end",
            ).with_columns(
                metric=pl.lit(metric),
                unit=pl.lit(unit),
                period_type=pl.lit("duration"),
                value=pl.Series(np.round(value, 2 if ratio is None else -5)),
            )
        )
    for metric, (unit, ratio) in INSTANT.items():
        noise = rng.normal(1.0, 0.05, n)
        value = base["annual_revenue"].to_numpy() * (ratio if ratio else 0.3) * noise
        rows.append(
            base.select(
                "cik",
                "filing_id",
                "form",
                "filed_date",
                "fiscal_label",
                "fiscal_year",
                "fiscal_period",
                "calendar_end",
            ).with_columns(
                calendar_start=pl.col("calendar_end"),
                metric=pl.lit(metric),
                unit=pl.lit(unit),
                period_type=pl.lit("instant"),
                value=pl.Series(np.round(value, -5)),
            )
        )
    return pl.concat(rows, how="diagonal")


def chunks_frame(periods: pl.DataFrame, values: pl.DataFrame) -> pl.DataFrame:
    wide = values.filter(
        pl.col("metric").is_in(["revenue", "operating_income", "net_income"])
    ).pivot(on="metric", index="filing_id", values="value")
    millions = lambda c: (pl.col(c) / 1e6).round(0).cast(pl.Int64).cast(pl.String)  # noqa: E731
    table = periods.join(wide, on="filing_id").select(
        "filing_id",
        "form",
        text=pl.format(
            "Condensed Consolidated Statements of Operations\n(In millions, except per "
            "share data)\n"
            "| | {} |\n|---|---|\n| Revenue | $ {} |\n| Operating income | {} |\n| Net "
            "income | $ {} |",
            pl.col("fiscal_label"),
            millions("revenue"),
            millions("operating_income"),
            millions("net_income"),
        ),
        kind=pl.lit("table"),
        ordinal=pl.lit(0, pl.Int32),
        char_start=pl.lit(400_000, pl.Int64),
        scale_header=pl.lit("in millions, except per share data"),
        section=pl.when(pl.col("form") == "10-K")
        .then(pl.lit("10-K/Item 8"))
        .otherwise(pl.lit("10-Q/Part I/Item 1")),
    )
    prose = periods.select(
        "filing_id",
        "form",
        text=pl.format(
            "{} results for {}: revenue changed as demand shifted across our segments, and "
            "operating expenses reflected investment in {} capacity and headcount.",
            pl.col("company"),
            pl.col("fiscal_label"),
            pl.col("company").str.split(" ").list.get(1),
        ),
        kind=pl.lit("prose"),
        ordinal=pl.lit(0, pl.Int32),
        char_start=pl.lit(120_000, pl.Int64),
        scale_header=pl.lit(None, pl.String),
        section=pl.when(pl.col("form") == "10-K")
        .then(pl.lit("10-K/Item 7"))
        .otherwise(pl.lit("10-Q/Part I/Item 2")),
    )
    both = pl.concat([table, prose])
    return to_schema(
        both.with_columns(
            chunk_id=pl.format(
                "{}:{}",
                pl.col("filing_id"),
                pl.concat_str("section", "text").hash(11).cast(pl.String).str.zfill(20),
            ),
            document_type=pl.col("form"),
            char_end=pl.col("char_start") + pl.col("text").str.len_chars(),
            token_count=(pl.col("text").str.len_chars() // 5).cast(pl.Int32),
            sha256=pl.col("text").hash(13).cast(pl.String),
            ix_ids=pl.lit([], pl.List(pl.String)),
            headings=pl.lit([], CHUNKS["headings"]),
        ),
        CHUNKS,
    )


def observations_frame(
    values: pl.DataFrame, chunks: pl.DataFrame, rng: np.random.Generator
) -> pl.DataFrame:
    table_chunk = chunks.filter(pl.col("kind") == "table").select("filing_id", "chunk_id")
    obs = (
        values.join(table_chunk, on="filing_id")
        .with_columns(
            fact_id=pl.concat_str("filing_id", "metric", "calendar_end").hash(17).cast(pl.String),
            concept=pl.format("us-gaap:{}", pl.col("metric")),
        )
        .with_columns(
            observation_id=pl.concat_str("fact_id", "metric").hash(19).cast(pl.String),
            fact_ids=pl.concat_list("fact_id"),
            superseded_by=pl.lit(None, pl.String),
        )
    )
    # 1% of values were first reported differently: the earlier figure stays, linked to its
    # replacement (restatement); it cites the same table, as a stand-in for the older filing.
    mask = pl.Series(rng.random(obs.height) < 0.01)
    obs = obs.with_columns(restated=mask)
    old = obs.filter(mask).with_columns(
        restated=pl.lit(False),
        superseded_by=pl.col("observation_id"),
        observation_id=pl.format("{}-r", pl.col("observation_id")),
        value=(pl.col("value") * 1.03 / 1e5).round(0) * 1e5,
        filed_date=pl.col("filed_date").dt.offset_by("-30d"),
    )
    both = pl.concat(
        [obs, old.with_columns(supersede_reason=pl.lit("restatement"))], how="diagonal"
    )
    # Every value is a 10-K/10-Q's own tagged fact: nothing derived, no release figure; the
    # other columns of issue 14 (derivation, recast evidence, ...) stay null.
    both = both.with_columns(source_kind=pl.lit("xbrl"), derived=pl.lit(False))
    return to_schema(both, METRIC_OBSERVATIONS)


STATEMENT_SHAPES = {"income": 20, "balance": 30, "cash_flow": 30}  # lines per statement


def statement_lines_frame(periods: pl.DataFrame, chunks: pl.DataFrame) -> pl.DataFrame:
    """Every 10-K's three statements (its own fiscal year: the columns get_financials reads),
    20 to 30 lines each with a label, concept and value: 50,000 filings × 80 lines at 5,000
    companies."""
    table_chunk = chunks.filter(pl.col("kind") == "table").select("filing_id", "chunk_id")
    annual = periods.filter(pl.col("form") == "10-K").join(table_chunk, on="filing_id")
    shapes = pl.DataFrame(
        {
            "statement": [s for s, n in STATEMENT_SHAPES.items() for _ in range(n)],
            "line": [i + 1 for n in STATEMENT_SHAPES.values() for i in range(n)],
        },
        schema={"statement": pl.String, "line": pl.Int32},
    )
    instant = pl.col("statement") == "balance"
    lines = (
        annual.join(shapes, how="cross")
        .with_columns(
            html_table=pl.lit(20, pl.Int32),
            table_row=pl.col("line") + 2,
            label=pl.format("{} line {}", pl.col("statement"), pl.col("line")),
            concept=pl.format("us-gaap:Synthetic{}Line{}", pl.col("statement"), pl.col("line")),
            standard_line=pl.lit(None, pl.String),
            value=(pl.col("base_revenue") * pl.col("line") / 40 / 1e5).round(0) * 1e5,
            value_text=pl.lit("1,234"),
            unit=pl.lit("USD"),
            decimals=pl.lit(-6, pl.Int32),
            period_type=pl.when(instant).then(pl.lit("instant")).otherwise(pl.lit("duration")),
            period_start=pl.when(instant)
            .then(pl.lit(None, pl.Date))
            .otherwise(pl.col("calendar_start")),
            period_end=pl.col("calendar_end"),
            dimensions=pl.lit("{}"),
            conflict=pl.lit(False),
            fact_id=pl.concat_str("filing_id", "statement", "line").hash(23).cast(pl.String),
        )
        .with_columns(
            fact_period_type="period_type",
            fact_period_start="period_start",
            fact_period_end="period_end",
        )
    )
    return to_schema(lines, STATEMENT_LINES)


def synthetic_tables(n_companies: int, seed: int = 7) -> SnapshotTables:
    rng = np.random.default_rng(seed)
    companies = companies_frame(n_companies, rng)
    periods = periods_frame(companies)
    filings = filings_frame(periods)
    values = values_frame(periods, rng)
    chunks = chunks_frame(periods, values)
    observations = observations_frame(values, chunks, rng)
    tickers = [
        {"cik": r["cik"], "ticker": r["ticker"], "title": r["company"].upper().rstrip(".")}
        for r in companies.select("cik", "ticker", "company").iter_rows(named=True)
    ]
    company_tables = build_company_tables(filings, CompanyReference(tickers=tickers))
    return replace(
        _tables(filings, chunks, observations, company_tables),
        statement_lines=statement_lines_frame(periods, chunks),
    )


def _tables(filings, chunks, observations, company_tables) -> SnapshotTables:
    """The metrics part of a snapshot; the knowledge graph (bench/graph.py's subject) is empty."""
    return SnapshotTables(
        filings=filings,
        chunks=chunks,
        metric_observations=observations,
        companies=company_tables.companies,
        company_aliases=company_tables.aliases,
        registrants=company_tables.registrants,
        edges=empty(EDGES),
        edge_evidence=empty(EDGE_EVIDENCE),
        nodes=empty(NODES),
        entity_aliases=empty(ENTITY_ALIASES),
    )


def drop_newest_period(tables: SnapshotTables) -> SnapshotTables:
    """The same world one quarter earlier: a second, different snapshot to swap with."""
    cutoff = tables.filings.get_column("filed_date").max() - dt.timedelta(days=95)
    filings = tables.filings.filter(pl.col("filed_date") <= cutoff)
    return replace(tables, filings=filings).consistent()


def generate(
    data_root: Path, n_companies: int, *, threads: int | None = None
) -> tuple[str, str, dict]:
    """Publish two snapshots (one quarter apart); returns (latest, earlier, timings)."""
    t0 = time.perf_counter()
    tables = synthetic_tables(n_companies)
    t1 = time.perf_counter()
    store = SnapshotStore(data_root, retain=10)
    earlier = store.publish(drop_newest_period(tables), threads=threads).version
    t2 = time.perf_counter()
    latest = store.publish(tables, threads=threads)
    t3 = time.perf_counter()
    timings = {
        "generate_s": round(t1 - t0, 1),
        "publish_earlier_s": round(t2 - t1, 1),
        "publish_latest_s": round(t3 - t2, 1),
        "counts": latest.counts,
        "db_mb": round(latest.database.bytes / 2**20, 1),
    }
    return latest.version, earlier, timings


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data-root", type=Path, default=ROOT / ".bench" / "mcp")
    parser.add_argument("--companies", type=int, default=5_000)
    args = parser.parse_args(argv)
    latest, earlier, timings = generate(args.data_root, args.companies)
    print(f"published {earlier} and {latest} under {args.data_root}")
    print(timings)
    return 0


if __name__ == "__main__":
    sys.exit(main())
