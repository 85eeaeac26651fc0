"""The shared basics (graphrag_core.common): ids that never change, the one name normalizer,
the one scale-word table, dates as filings write them."""

from __future__ import annotations

import datetime as dt

import pytest

from graphrag_core.common.dates import (
    fiscal_year_end_month_day,
    iso_date,
    parse_date_loose,
    parse_fiscal_year_end,
)
from graphrag_core.common.ids import (
    company_key,
    content_hash,
    normalize_accession,
    normalize_cik,
    sha256_stream,
    sha256_text,
)
from graphrag_core.common.names import compact_name, name_key, normalize_name
from graphrag_core.common.numbers import SCALE_HEADER_RE, header_exponent, scale_exponent, to_int
from graphrag_core.extraction.batch import extraction_id
from graphrag_core.text.chunking import chunk_id
from graphrag_core.text.parsing import scale_phrase
from graphrag_core.xbrl.metrics import observation_id

NVDA_10K = "0001045810-25-000023"


def test_ids_are_the_ones_earlier_snapshots_cite():
    """Golden values: a citation written against an earlier snapshot must still resolve."""
    quote = "Our accelerated computing platforms experience rapid changes in technology."
    assert chunk_id(NVDA_10K, "10-K/Item 1A", 3, quote) == f"{NVDA_10K}:a6a8570dd166b6b7"
    assert (
        observation_id(
            NVDA_10K,
            "0001045810",
            "revenue",
            "duration",
            dt.date(2024, 1, 29),
            dt.date(2025, 1, 26),
            "USD",
        )
        == f"{NVDA_10K}:425ebc4d35701524"
    )
    assert (
        extraction_id(f"{NVDA_10K}:abc", "rules", "rules-v1", "rules@x")
        == "751bdff74c718cdf54b66569"
    )


def test_content_hash_separates_its_parts():
    assert content_hash("ab", "c") != content_hash("a", "bc")
    assert content_hash("a", None) == content_hash("a", "None")
    assert len(content_hash("x")) == 16 and len(content_hash("x", length=24)) == 24
    assert content_hash("x", length=64) == sha256_text("x")
    assert sha256_stream(["a", b"b", "c"]) == sha256_text("abc")
    with pytest.raises(ValueError):
        content_hash("x", length=0)


def test_cik_and_accession_forms():
    assert normalize_cik("CIK-320193") == normalize_cik(320193) == "0000320193"
    assert normalize_cik("12345678901") is None and normalize_cik("") is None
    assert company_key("1045810") == "CIK-0001045810"
    with pytest.raises(ValueError, match="not a CIK"):
        company_key("x")
    assert normalize_accession("000104581025000023") == NVDA_10K
    with pytest.raises(ValueError, match="want 0001045810-25-000023"):
        normalize_accession("1045810-25-23")


@pytest.mark.parametrize(
    ("name", "normalized"),
    [
        ("The Coca-Cola Company", "coca cola"),
        ("NVIDIA CORP/CA", "nvidia"),
        ("Nvidia Corporation", "nvidia"),
        ("APPLE INC /DE/", "apple"),
        ("JPMorgan Chase & Co.", "jpmorgan chase"),
        ("AT&T Inc.", "at and t"),
        ("Amazon.com, Inc.", "amazon"),
        ("AMAZON COM INC", "amazon"),
        ("Alibaba Group Holding Ltd", "alibaba group"),
        ("Samsung Electronics Co., Ltd.", "samsung electronics"),
        ("Nestlé S.A.", "nestle"),
        ("Macy’s, Inc.", "macy"),
        ("Apple Hospitality REIT, Inc.", "apple hospitality reit"),
        ("American Airlines Group Inc.", "american airlines group"),
        ("", ""),
    ],
)
def test_one_name_normalizer(name, normalized):
    assert normalize_name(name) == normalized


def test_the_gazetteer_keys_names_as_the_alias_table_does():
    """A registrant's SEC title and the name a passage writes meet on one key."""
    from graphrag_core.extraction.gazetteer import Gazetteer

    gazetteer = Gazetteer.from_rows(
        [{"cik": "0000723125", "ticker": "MU", "title": "MICRON TECHNOLOGY INC"}]
    )
    [mention] = gazetteer.find("We buy memory from Micron Technology, Inc. and others.")
    assert mention.entity_key == "CIK-0000723125"
    assert name_key(mention.name) == name_key("MICRON TECHNOLOGY INC") == ("micron", "technology")


def test_words_that_distinguish_companies_are_kept():
    assert normalize_name("Apple Hospitality REIT") != normalize_name("Apple Inc.")
    assert normalize_name("American Airlines") != normalize_name("American Express")
    assert compact_name("You Tube") == compact_name("YouTube") == "youtube"


@pytest.mark.parametrize(
    ("header", "exponent"),
    [
        ("in millions, except per share data", 6),
        ("in thousands", 3),
        ("$ in mm", 6),
        ("in mil.", 6),
        ("000s", 3),
        ("(000's)", 3),
        ("in billions", 9),
        ("per share data", None),
        (None, None),
    ],
)
def test_one_scale_word_table(header, exponent):
    assert header_exponent(header) == exponent


@pytest.mark.parametrize(
    "caption",
    [
        "(In millions, except per share data)",
        "($ in mm)",
        "(in mil.)",
        "(000s)",
        "Dollars in thousands",
    ],
)
def test_the_parser_and_the_value_gate_agree_on_a_scale_header(caption):
    """What the parser takes for a table's scale header, the value gate scales by."""
    phrase = scale_phrase(caption)
    assert phrase is not None and SCALE_HEADER_RE.search(caption)
    assert header_exponent(phrase) in (3, 6)


def test_scale_words_and_integers():
    assert scale_exponent("Millions") == 6 and scale_exponent("mil.") == 6
    assert scale_exponent("widgets") is None
    assert to_int(" 2025 ") == 2025 and to_int("1,024") == 1024
    assert to_int(True) is None and to_int("twelve") is None and to_int(None) is None


def test_dates_as_filings_write_them():
    assert iso_date("2025-01-26T00:00:00") == dt.date(2025, 1, 26)
    assert iso_date(dt.datetime(2025, 1, 26, 8)) == dt.date(2025, 1, 26)
    assert iso_date("26/01/2025") is None and iso_date(None) is None
    assert parse_date_loose("Jan. 26, 2025") == dt.date(2025, 1, 26)
    assert parse_fiscal_year_end("0126") == "--01-26"
    assert parse_fiscal_year_end("--13-01") is None
    assert fiscal_year_end_month_day("--01-26") == (1, 26)
    assert fiscal_year_end_month_day("January 26") is None
