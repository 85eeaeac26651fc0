"""Damaged inline XBRL: standard prefixes used but never declared are bound to their
well-known namespaces before parsing, so the document yields its facts; a company prefix
stays a counted skip. The corpus's re-serialised Apple 10-Q is the real case."""

from __future__ import annotations

import re
from pathlib import Path

import polars as pl
import pytest

from graphrag_core.xbrl.facts import extract_facts_from_path
from graphrag_core.xbrl.metrics import FilingInfo, observations_from_facts
from graphrag_core.xbrl.namespaces import (
    IXT_REGISTRIES,
    bind_undeclared_prefixes,
    declared_namespaces,
    used_prefixes,
)
from tests.conftest import FIXTURES
from tests.xbrl_corpus import one_filing

ACME = FIXTURES / "xbrl" / "acme_10k.htm"
DROPPED = ("dei", "iso4217", "ixt", "ixt-sec", "acme")


def _damaged(tmp_path: Path) -> Path:
    """The Acme fixture as a lossy serializer leaves it: five declarations gone."""
    text = ACME.read_text(encoding="utf-8")
    for prefix in DROPPED:
        text, n = re.subn(rf'\s+xmlns:{re.escape(prefix)}="[^"]*"', "", text)
        assert n == 1, prefix
    path = tmp_path / "acme_damaged.htm"
    path.write_text(text, encoding="utf-8")
    return path


def test_used_and_declared_prefixes():
    text = ACME.read_text(encoding="utf-8")
    assert {
        "dei",
        "us-gaap",
        "iso4217",
        "ixt",
        "ixt-sec",
        "xbrli",
        "acme",
        "link",
        "xlink",
    } <= used_prefixes(text)
    assert declared_namespaces(text)["us-gaap"] == "http://fasb.org/us-gaap/2024"
    assert not bind_undeclared_prefixes(text).changed  # a clean document is left as it is


def test_undeclared_standard_prefixes_are_bound_with_the_documents_taxonomy_year(tmp_path):
    repair = bind_undeclared_prefixes(_damaged(tmp_path).read_text(encoding="utf-8"))
    assert repair.bound == {
        "dei": "http://xbrl.sec.gov/dei/2024",  # the year of the us-gaap it declares
        "iso4217": "http://www.xbrl.org/2003/iso4217",
        "ixt": IXT_REGISTRIES[0],  # TR4 implements num-dot-decimal and fixed-zero
        "ixt-sec": "http://www.sec.gov/inlineXBRL/transformation/2015-08-31",
    }
    assert repair.unbound == {
        "acme": 1
    }  # one ix fact is named acme:…, and no one knows its namespace
    assert 'xmlns:dei="http://xbrl.sec.gov/dei/2024"' in repair.markup.split("<head>", 1)[0]


def test_an_old_registry_is_chosen_for_old_format_names():
    markup = (
        '<html xmlns="http://www.w3.org/1999/xhtml"><ix:nonFraction format="ixt:numdotdecimal" '
        'name="us-gaap:X">1</ix:nonFraction></html>'
    )
    bound = bind_undeclared_prefixes(markup).bound
    assert bound["ixt"] == "http://www.xbrl.org/inlineXBRL/transformation/2015-02-26"


def test_a_damaged_document_yields_the_facts_of_the_intact_one(tmp_path):
    intact = extract_facts_from_path(ACME, "acme", "42")
    damaged = extract_facts_from_path(_damaged(tmp_path), "acme", "42")
    # Every fact lands with the same id and value, except the one named acme:… and the one
    # whose unit is measured in acme:segment (a unit no one can resolve either).
    lost = intact.facts.filter(
        pl.col("concept").str.starts_with("acme:") | (pl.col("unit") == "acme:segment")
    )
    assert lost.height == 2
    expected = (
        intact.facts.join(lost, on="fact_id", how="anti")
        .select("fact_id", "value", "normalized")
        .sort("fact_id")
    )
    assert damaged.facts.select("fact_id", "value", "normalized").sort("fact_id").equals(expected)
    assert damaged.skipped["undeclared_prefix"] == 1 and damaged.skipped["unknown_unit"] == 1
    # The segment member acme:WidgetsMember is read from the markup: the segment fact stays.
    assert damaged.facts.filter(pl.col("dimensions").str.contains("acme:WidgetsMember")).height == 1
    # The warning names the document and the prefixes it bound, and the skip names the prefix.
    bound = next(w for w in damaged.warnings if "never declares" in w)
    assert "acme_damaged.htm" in bound and "dei, iso4217, ixt, ixt-sec" in bound
    skip = next(w for w in damaged.warnings if "undeclared_prefix" in w)
    assert "acme:" in skip and "Fix:" in skip


@pytest.mark.corpus
def test_the_damaged_apple_10q_yields_its_income_statement(corpus_dir: Path):
    """The corpus's Apple 10-Q for the quarter ended 2024-06-29 is a re-serialised copy that lost
    its dei/srt/iso4217/ixt/ixt-sec declarations: before this repair it yielded almost nothing."""
    apple = one_filing(corpus_dir, "AAPL/10-Q/Apple.10-Q.htm")
    assert apple.xbrl.facts.height > 600
    assert apple.xbrl.skipped["unknown_unit"] == 0
    assert apple.xbrl.skipped["undeclared_prefix"] == 36  # aapl: facts, a company prefix
    assert any("never declares" in w and "Apple.10-Q.htm" in w for w in apple.xbrl.warnings)
    info = FilingInfo.from_facts(
        apple.xbrl.facts, apple.ref.filing_id, cik=apple.ref.cik, form="10-Q"
    )
    # Its own dei facts are read again: the calendar comes from the document.
    assert (info.fiscal_year_end, info.fiscal_year_focus, info.fiscal_period_focus) == (
        "--09-28",
        2024,
        "Q3",
    )
    o = observations_from_facts(apple.xbrl.facts, info).observations
    q3 = {
        r["metric"]: r["value"]
        for r in o.filter(pl.col("fiscal_label") == "Q3-FY2024").iter_rows(named=True)
        if r["period_type"] == "duration"
    }
    assert q3 == {
        "revenue": 85_777_000_000,
        "cost_of_revenue": 46_099_000_000,
        "gross_profit": 39_678_000_000,
        "operating_income": 25_352_000_000,
        "net_income": 21_448_000_000,
        "eps_diluted": 1.40,
    }
    nine_months = o.filter(
        (pl.col("fiscal_label") == "9M-FY2024") & (pl.col("metric") == "revenue")
    )
    assert nine_months["value"].to_list() == [296_105_000_000]
