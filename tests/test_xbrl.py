"""Inline XBRL → facts: scale and sign, transforms, duplicates, bad input, chunk citations."""

from __future__ import annotations

import datetime as dt
import json
from pathlib import Path

import polars as pl
import pytest

from graphrag_core.tables.schemas import CHUNKS, XBRL_FACTS, frame
from graphrag_core.xbrl.arelle_loader import XbrlDocument, bare_load_seconds
from graphrag_core.xbrl.fact_citations import attach_chunks
from graphrag_core.xbrl.fact_duplicates import collapse_duplicates
from graphrag_core.xbrl.facts import (
    SKIP_REASONS,
    dei_values,
    extract_facts,
    extract_facts_from_path,
)
from graphrag_core.xbrl.sec_transforms import sec_durwordsen, sec_numwordsen
from tests.conftest import FIXTURES
from tests.xbrl_corpus import by_path, chunked, corpus_filings

XBRL_FIXTURES = FIXTURES / "xbrl"
ACME = XBRL_FIXTURES / "acme_10k.htm"


@pytest.fixture(scope="module")
def acme():
    return extract_facts_from_path(ACME, "acme-fy2025", "42")


def one(facts: pl.DataFrame, concept: str, end: str, dims: str = "{}") -> dict:
    rows = facts.filter(
        (pl.col("concept") == concept)
        & (pl.col("period_end") == pl.lit(end).str.to_date())
        & (pl.col("dimensions") == dims)
    )
    assert rows.height == 1, f"{concept} @ {end}: {rows.height} rows"
    return rows.row(0, named=True)


# -- values ------------------------------------------------------------------------------------


def test_scale_applies_to_the_displayed_number(acme):
    revenue = one(acme.facts, "us-gaap:Revenues", "2025-01-26")
    assert revenue["value"] == 130_497_000_000
    assert revenue["value_text"] == "130,497"
    assert revenue["decimals"] == -6
    assert revenue["unit"] == "USD"
    assert (revenue["period_start"].isoformat(), revenue["period_end"].isoformat()) == (
        "2024-01-29",
        "2025-01-26",
    )
    # A negative scale: "13.3" percent with scale -2 is the pure number 0.133.
    assert one(acme.facts, "us-gaap:EffectiveIncomeTaxRateContinuingOperations", "2025-01-26")[
        "value"
    ] == pytest.approx(0.133)


def test_sign_makes_a_parenthesized_number_negative(acme):
    other = one(acme.facts, "us-gaap:OtherNonoperatingIncomeExpense", "2025-01-26")
    assert other["value"] == -48_000_000
    assert other["value_text"] == "48"  # what the reader sees, inside its parentheses


def test_transforms_fixed_zero_number_words_and_per_share(acme):
    assert one(acme.facts, "us-gaap:OtherNonoperatingIncomeExpense", "2024-01-28")["value"] == 0
    segments = one(acme.facts, "us-gaap:NumberOfReportableSegments", "2025-01-26")
    assert segments["value"] == 2 and segments["value_text"] == "two"
    assert segments["unit"] == "acme:segment"  # an extension measure keeps its prefix
    eps = one(acme.facts, "us-gaap:EarningsPerShareDiluted", "2025-01-26")
    assert (eps["value"], eps["unit"], eps["decimals"]) == (2.94, "USD/shares", 2)
    share = one(acme.facts, "acme:CustomerShareOfRevenue", "2025-01-26")  # an ix:fraction
    assert (share["value"], share["value_text"]) == (0.25, "1/4")


def test_instants_and_periods(acme):
    assets = one(acme.facts, "us-gaap:Assets", "2025-01-26")
    assert assets["period_type"] == "instant" and assets["period_start"] is None
    assert (
        one(acme.facts, "dei:EntityCommonStockSharesOutstanding", "2025-02-21")["value"]
        == 2_440_000_000
    )


def test_dei_values_are_normalized(acme):
    dei = dei_values(acme.facts)
    assert dei["CurrentFiscalYearEndDate"] == "--01-26"
    assert dei["DocumentFiscalYearFocus"] == "2025"
    assert dei["EntityCentralIndexKey"] == "0000000042"


def test_sec_number_and_duration_words():
    assert sec_numwordsen("none") == "0"
    assert sec_numwordsen("twenty-five") == "25"
    assert sec_numwordsen("one hundred and two") == "102"
    assert sec_numwordsen("three thousand") == "3000"
    with pytest.raises(ValueError):
        sec_numwordsen("several")
    assert sec_durwordsen("seven years") == "P7Y"
    assert sec_durwordsen("two years, six months") == "P2Y6M"
    assert sec_durwordsen("90 days") == "P90D"
    with pytest.raises(ValueError):
        sec_durwordsen("a while")


# -- duplicates --------------------------------------------------------------------------------


def test_the_same_fact_shown_twice_collapses_keeping_every_display(acme):
    # 130.5 billion (decimals -8, in MD&A) and 130,497 million (decimals -6, income statement)
    # agree at the coarser precision: one row, the precise value, both inline ids.
    revenue = one(acme.facts, "us-gaap:Revenues", "2025-01-26")
    assert revenue["duplicate_count"] == 2
    assert revenue["conflict"] is False
    assert revenue["value"] == 130_497_000_000
    assert revenue["inline_ids"] == ["m-1", "f-1"]
    assert revenue["inline_id"] == "m-1"  # document order: the first display
    assert acme.duplicates_collapsed == 2


def test_contradictory_duplicates_are_flagged_with_both_values(acme):
    rnd = one(acme.facts, "us-gaap:ResearchAndDevelopmentExpense", "2025-01-26")
    assert rnd["conflict"] is True
    assert sorted(rnd["conflict_values"]) == ["12,914", "12,941"]
    assert acme.conflicts == 1


def test_collapse_rule_on_a_frame():
    def raw(value: float, decimals: int | None, text: str, order: int) -> dict:
        return {
            "fact_id": "F:1",
            "filing_id": "F",
            "cik": "0000000042",
            "concept": "us-gaap:Assets",
            "value": value,
            "value_text": text,
            "normalized": str(value),
            "is_numeric": True,
            "unit": "USD",
            "decimals": decimals,
            "period_type": "instant",
            "period_start": None,
            "period_end": dt.date(2025, 1, 26),
            "dimensions": "{}",
            "dimension_count": 0,
            "inline_id": f"i-{order}",
            "source_document": "x",
            "_table": None,
            "_order": order,
        }

    from graphrag_core.xbrl.fact_duplicates import RAW_FACT_SCHEMA as _RAW_SCHEMA

    consistent = collapse_duplicates(
        pl.DataFrame([raw(1.2e9, -8, "1.2", 0), raw(1_234e6, -6, "1,234", 1)], schema=_RAW_SCHEMA)
    )
    assert consistent.row(0, named=True)["value"] == 1_234e6 and not consistent["conflict"][0]
    # 1.3 billion cannot be 1,234 million, whatever the rounding.
    conflicting = collapse_duplicates(
        pl.DataFrame([raw(1.3e9, -8, "1.3", 0), raw(1_234e6, -6, "1,234", 1)], schema=_RAW_SCHEMA)
    )
    assert conflicting["conflict"][0] and sorted(conflicting["conflict_values"][0]) == [
        "1,234",
        "1.3",
    ]
    assert list(consistent.columns) == list(XBRL_FACTS)


# -- what is kept and what is not --------------------------------------------------------------


def test_segment_facts_keep_their_dimensions(acme):
    widgets = one(
        acme.facts,
        "us-gaap:Revenues",
        "2025-01-26",
        dims=json.dumps(
            {"us-gaap:StatementBusinessSegmentsAxis": "acme:WidgetsMember"}, separators=(",", ":")
        ),
    )
    assert widgets["value"] == 116_193_000_000 and widgets["dimension_count"] == 1


def test_text_blocks_are_left_out_and_counted(acme):
    assert acme.text_blocks == 1
    assert acme.facts.filter(pl.col("concept").str.ends_with("TextBlock")).is_empty()


def test_html_tables_tell_statement_lines_apart(acme):
    assets = one(acme.facts, "us-gaap:Assets", "2025-01-26")
    noncurrent = one(acme.facts, "us-gaap:LongTermDebtNoncurrent", "2025-01-26")
    total = one(acme.facts, "us-gaap:LongTermDebt", "2025-01-26")
    assert assets["html_tables"] == noncurrent["html_tables"] == [1]  # the balance sheet
    assert total["html_tables"] == [2]  # the debt note
    assert one(acme.facts, "us-gaap:IncomeTaxesPaid", "2025-01-26")["html_tables"] == []  # hidden


def test_fact_ids_come_from_meaning_not_markup(acme, tmp_path):
    renamed = tmp_path / "acme_renamed.htm"
    text = ACME.read_text(encoding="utf-8").replace('id="f-', 'id="renamed-')
    renamed.write_text(text, encoding="utf-8")
    again = extract_facts_from_path(renamed, "acme-fy2025", "42")
    assert set(again.facts["fact_id"]) == set(acme.facts["fact_id"])
    assert acme.facts["fact_id"].n_unique() == acme.facts.height
    assert all(fid.startswith("acme-fy2025:") for fid in acme.facts["fact_id"])


# -- bad input ---------------------------------------------------------------------------------


def test_bad_facts_are_skipped_counted_and_the_rest_lands():
    result = extract_facts_from_path(XBRL_FIXTURES / "bad_facts.htm", "bad", "7")
    assert result.skipped == {
        "missing_context": 1,
        "malformed_context": 2,  # 2024-13-45, and an end before its start
        "unsupported_period": 1,
        "unknown_unit": 3,  # undeclared unit, undeclared measure prefix, no unitRef at all
        "non_numeric_value": 1,
        "non_finite_value": 0,
        "scale_out_of_range": 0,
        "unsupported_format": 1,
        "undeclared_prefix": 0,  # `nowhere:` names a measure only: the unit is what is skipped
    }
    numeric = result.facts.filter(pl.col("is_numeric"))
    assert sorted(numeric["concept"]) == ["us-gaap:NetIncomeLoss", "us-gaap:Revenues"]
    assert one(result.facts, "us-gaap:Revenues", "2024-12-31")["value"] == 1_000_000
    meta = result.metadata()
    assert {f"skipped_{r}" for r in SKIP_REASONS} <= set(meta)
    # Each warning names the file, the fact and the offending field, and says what to do.
    malformed = next(w for w in result.warnings if "malformed_context" in w)
    assert (
        "bad_facts.htm" in malformed and "contextRef='BadDate'" in malformed and "Fix:" in malformed
    )
    assert any("unitRef='eur'" in w for w in result.warnings)
    assert any("text='n/a'" in w for w in result.warnings)


def test_a_filing_without_inline_xbrl_yields_zero_facts_and_a_warning():
    result = extract_facts_from_path(XBRL_FIXTURES / "plain_8k.htm", "plain", None)
    assert result.facts.is_empty() and list(result.facts.columns) == list(XBRL_FACTS)
    assert result.documents == 0
    assert len(result.warnings) == 1 and "no inline XBRL" in result.warnings[0]


def test_an_sgml_wrapped_document_loads_like_the_bare_one(acme):
    body = ACME.read_bytes()
    wrapped = (
        b"<DOCUMENT>\n<TYPE>10-K\n<SEQUENCE>1\n<FILENAME>acme-20250126.htm\n<TEXT>\n<XBRL>\n"
        + body
        + b"\n</XBRL>\n</TEXT>\n</DOCUMENT>\n"
    )
    result = extract_facts([XbrlDocument("acme.txt", wrapped)], "acme-fy2025", "42")
    assert result.documents == 1
    assert set(result.facts["fact_id"]) == set(acme.facts["fact_id"])


def test_exhibits_without_inline_xbrl_are_passed_over(acme):
    docs = [
        XbrlDocument(str(ACME), ACME.read_bytes(), ACME),
        XbrlDocument("ex21.htm", (XBRL_FIXTURES / "plain_8k.htm").read_bytes()),
    ]
    result = extract_facts(docs, "acme-fy2025", "42")
    assert result.documents == 1 and result.facts.height == acme.facts.height
    assert not result.warnings


def test_bare_load_counts_the_same_elements(acme):
    seconds, elements = bare_load_seconds(ACME)
    assert seconds > 0 and elements == acme.elements


# -- facts → the chunk that shows them ---------------------------------------------------------


def _chunk(chunk_id: str, kind: str, section: str, start: int, ix_ids: list[str]) -> dict:
    return {
        "chunk_id": chunk_id,
        "filing_id": "acme-fy2025",
        "document_type": "10-K",
        "section": section,
        "kind": kind,
        "ordinal": 0,
        "text": "",
        "char_start": start,
        "char_end": start + 10,
        "scale_header": None,
        "token_count": 1,
        "sha256": "",
        "ix_ids": ix_ids,
    }


def test_a_fact_cites_the_statement_table_over_md_and_a(acme):
    chunks = frame(
        [
            _chunk("mdna-prose", "prose", "10-K/Item 7", 100, ["m-1", "m-2"]),
            _chunk("mdna-table", "table", "10-K/Item 7", 200, ["f-1"]),  # the same id, in a table
            _chunk("income-statement", "table", "10-K/Item 8", 300, ["f-1", "f-2"]),
            _chunk("segments", "table", "10-K/Item 8", 400, ["s-1"]),
        ],
        CHUNKS,
    )
    cited = attach_chunks(acme.facts, chunks)
    assert one(cited, "us-gaap:Revenues", "2025-01-26")["chunk_id"] == "income-statement"
    assert one(cited, "us-gaap:Revenues", "2024-01-28")["chunk_id"] == "income-statement"
    # Shown only in prose: the prose chunk is still a citation.
    assert (
        one(cited, "us-gaap:NumberOfReportableSegments", "2025-01-26")["chunk_id"] == "mdna-prose"
    )
    # Hidden (ix:hidden): nothing displays it.
    assert one(cited, "us-gaap:IncomeTaxesPaid", "2025-01-26")["chunk_id"] is None
    assert cited.columns == acme.facts.columns


@pytest.mark.corpus
def test_nvidia_revenue_cites_the_income_statement_table(corpus_dir: Path):
    nvda, chunks = chunked(corpus_dir, "0001045810-25-000023")
    revenue = one(nvda.xbrl.facts, "us-gaap:Revenues", "2025-01-26")
    assert revenue["value"] == 130_497_000_000 and revenue["duplicate_count"] == 4
    chunk = chunks.filter(pl.col("chunk_id") == revenue["chunk_id"]).row(0, named=True)
    assert chunk["kind"] == "table"
    assert "Consolidated Statements of Income" in chunk["text"]
    assert "130,497" in chunk["text"]


# -- the corpus --------------------------------------------------------------------------------


@pytest.mark.slow
def test_every_inline_filing_of_the_corpus_yields_facts(corpus_dir: Path, corpus_manifest):
    inline = {(corpus_dir / r["path"]).resolve() for r in corpus_manifest if r["is_inline_xbrl"]}
    filings = corpus_filings(corpus_dir)
    seen = set()
    for filing in filings.values():
        primary = Path(filing.ref.documents[0].location).resolve()
        if primary in inline:
            seen.add(primary)
            assert filing.xbrl.facts.height > 0, primary
            assert filing.xbrl.documents == 1
        elif not any(Path(d.location).resolve() in inline for d in filing.ref.documents):
            assert filing.xbrl.facts.is_empty() and filing.xbrl.warnings
    assert len(seen) == len(inline) == 51


@pytest.mark.slow
def test_corpus_skips_are_the_known_lossy_copy_only(corpus_dir: Path):
    """Real filings are clean: the only skips come from the Apple 10-Q copy whose serializer
    dropped its namespace declarations. The standard ones (dei, srt, iso4217, ixt, ixt-sec) are
    bound again before parsing; the facts named with Apple's own `aapl:` prefix stay out."""
    skipped = {
        Path(f.ref.documents[0].location).name: {k: v for k, v in f.xbrl.skipped.items() if v}
        for f in corpus_filings(corpus_dir).values()
        if any(f.xbrl.skipped.values())
    }
    assert skipped == {"Apple.10-Q.htm": {"undeclared_prefix": 36}}
    apple = by_path(corpus_dir, "AAPL/10-Q/Apple.10-Q.htm")
    assert apple.xbrl.facts.height > 600  # was 23 before the prefixes were bound


@pytest.mark.slow
def test_corpus_has_no_contradictory_duplicates(corpus_dir: Path):
    conflicts = {
        Path(f.ref.documents[0].location).name: f.xbrl.conflicts
        for f in corpus_filings(corpus_dir).values()
        if f.xbrl.conflicts
    }
    assert conflicts == {}
