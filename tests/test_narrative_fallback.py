"""Issue 22: a filing whose layout the section finder does not know still gets its narrative
found, chunked under a narrative label and extracted. Fixtures are small synthetic documents."""

import datetime as dt

import polars as pl

from graphrag_core.extraction.batch import narrative_chunks
from graphrag_core.retrieval.sections import section_title
from graphrag_core.settings import ParseSettings
from graphrag_core.text.chunk_checks import annual_report_items
from graphrag_core.text.inferred_sections import inferred_label, with_inferred_sections
from graphrag_core.text.parsing import parse_markup
from graphrag_core.text.sections import detect_sections


def _labels(html: str, form: str = "10-K", infer: bool = False) -> dict[str, str]:
    doc = parse_markup(f"<html><body>{html}</body></html>", is_html=True)
    sections, _ = detect_sections(doc.blocks, form)
    if infer:
        sections, _ = with_inferred_sections(doc.blocks, form, sections)
    return {s.label: " ".join(b.text for b in doc.blocks[s.first : s.last]) for s in sections}


# -- more heading forms ---------------------------------------------------------------------------
def test_title_first_headings_without_item_numbers_are_items():
    texts = _labels(
        "<p>ANNUAL REPORT</p>"
        "<p>Business</p><p>We design processors and sell them to computer makers.</p>"
        "<p>Risk Factors</p><p>Demand for our products may decline.</p>"
        "<p>Management's Discussion and Analysis of Financial Condition and Results of "
        "Operations</p>"
        "<p>Revenue increased 4% compared to the prior year.</p>"
    )
    assert list(texts) == ["10-K/Cover", "10-K/Item 1", "10-K/Item 1A", "10-K/Item 7"]
    assert "Demand for our products" in texts["10-K/Item 1A"]
    assert "Revenue increased" in texts["10-K/Item 7"]


def test_title_before_item_number_and_headings_in_table_cells():
    texts = _labels(
        "<p>Risk Factors (Item 1A)</p><p>Our supply may be disrupted.</p>"
        "<table><tr><td>Quantitative and Qualitative Disclosures About Market "
        "Risk</td><td>Item 7A</td></tr></table>"
        "<p>Interest rates may rise.</p>"
    )
    assert list(texts) == ["10-K/Item 1A", "10-K/Item 7A"]
    assert "Interest rates" in texts["10-K/Item 7A"]


def test_a_sentence_or_a_summary_is_not_a_title_first_heading():
    texts = _labels(
        "<p>Business risks could harm us.</p><p>Summary of Risk Factors</p><p>Text.</p>"
        "<p>Risk Factors</p><p>Our supply may be disrupted.</p>"
    )
    assert list(texts) == ["10-K/Cover", "10-K/Item 1A"]
    assert "Summary of Risk Factors" in texts["10-K/Cover"]


def test_title_disagreeing_with_its_item_number_is_not_a_heading():
    assert "10-K/Item 1A" not in _labels(
        "<p>Risk Factors (Item 7)</p><p>Our supply may be disrupted.</p>"
    )


def test_letter_spaced_item_and_space_before_the_letter():
    texts = _labels(
        "<p>I TEM 1. BUSINESS</p><p>We design widgets.</p>"
        "<p>ITEM 1 A. RISK FACTORS</p><p>Our supply may be disrupted.</p>"
        "<p>ITEM\u00a07. MANAGEMENT'S DISCUSSION AND ANALYSIS</p><p>Revenue rose.</p>"
    )
    assert list(texts) == ["10-K/Item 1", "10-K/Item 1A", "10-K/Item 7"]


def test_part_headings_in_words_or_digits_assign_ten_q_items():
    texts = _labels(
        "<p>PART ONE FINANCIAL INFORMATION</p>"
        "<p>Item 2. Management's Discussion and Analysis</p><p>Revenue rose.</p>"
        "<p>PART 2 OTHER INFORMATION</p>"
        "<p>Item 1. Legal Proceedings</p><p>None.</p>"
        "<p>Item 1A. Risk Factors</p><p>No changes.</p>",
        form="10-Q",
    )
    assert "10-Q/Part II/Item 1" in texts and "10-Q/Part II/Item 1A" in texts


# -- sections inferred from the text --------------------------------------------------------------
_BUSINESS = (
    "<p>We design and manufacture semiconductors. Our products are sold to customers who build "
    "computers, and our competitors include several large chip makers. We compete on performance "
    "and our suppliers provide wafers and equipment. Our employees work in many countries.</p>"
)
_RISK = (
    "<p><b>Competition could adversely affect our revenue.</b></p>"
    "<p>The markets we serve are uncertain and the risks of new entrants are high.</p>"
    "<p><b>Disruptions in our supply chain may harm our operations.</b></p>"
    "<p>There is no assurance that our suppliers will perform, and volatility may follow.</p>"
)
_MDNA = (
    "<p>Net revenue increased 8% compared to the prior year, primarily due to higher unit sales. "
    "Gross margin decreased on product mix and operating expenses increased. Cash flows from "
    "operations and our liquidity remained strong; capital expenditures increased.</p>"
)


def _unknown_layout(repeat: int = 20) -> str:
    # Headings the finder cannot read (decorative words only): the layout is unknown.
    return (
        "<p>FORM 10-K</p><p>Who we are</p>"
        + _BUSINESS * repeat
        + "<p>What could go wrong</p>"
        + _RISK * repeat
        + "<p>How we did</p>"
        + _MDNA * repeat
    )


def test_unknown_layout_gets_inferred_items_in_order():
    assert list(_labels(_unknown_layout())) == ["10-K/Document"]
    texts = _labels(_unknown_layout(), infer=True)
    assert list(texts) == [
        "10-K/Inferred/Narrative",
        "10-K/Inferred/Item 1",
        "10-K/Inferred/Item 1A",
        "10-K/Inferred/Item 7",
    ]
    assert "Competition could adversely affect" in texts["10-K/Inferred/Item 1A"]
    assert "Net revenue increased" in texts["10-K/Inferred/Item 7"]
    assert "Net revenue increased" not in texts["10-K/Inferred/Item 1A"]


def test_inferred_sections_cover_the_document_exactly():
    doc = parse_markup(f"<html><body>{_unknown_layout()}</body></html>", is_html=True)
    sections, _ = detect_sections(doc.blocks, "10-K")
    inferred, warnings = with_inferred_sections(doc.blocks, "10-K", sections)
    assert inferred[0].first == 0 and inferred[-1].last == len(doc.blocks)
    assert all(a.last == b.first for a, b in zip(inferred, inferred[1:], strict=False))
    assert warnings and "inferred" in warnings[0]


def test_prose_of_no_topic_is_narrative():
    plain = (
        "<p>The weather was mild this year and the garden grew tall beside the old stone wall.</p>"
        * 60
    )
    assert list(_labels(f"<p>FORM 10-K</p>{plain}", infer=True)) == ["10-K/Inferred/Narrative"]


def test_short_document_without_items_is_left_alone():
    html = "<p>FORM 10-K</p><p>To our shareholders: it was a good year.</p>"
    assert list(_labels(html, infer=True)) == ["10-K/Document"]


def test_filing_with_known_items_is_unchanged():
    html = (
        "<p>Item 1. Business</p>"
        + _BUSINESS
        + "<p>Item 1A. Risk Factors</p>"
        + _RISK
        + "<p>Item 7. Management's Discussion and Analysis</p>"
        + _MDNA
    )
    assert _labels(html, infer=True) == _labels(html)


def test_one_giant_item_without_narrative_items_is_inferred():
    html = "<p>Item 15. Exhibits and Financial Statement Schedules</p>" + _unknown_layout()
    assert list(_labels(html)) == ["10-K/Item 15"]
    labels = list(_labels(html, infer=True))
    assert "10-K/Inferred/Item 1A" in labels and "10-K/Item 15" not in labels


def test_ten_q_inferred_items_use_its_parts():
    html = (
        "<p>Quarterly report of a registrant, filed under the Exchange Act.</p>"
        + _MDNA * 20
        + "<p>Other</p>"
        + _RISK * 20
    )
    assert list(_labels(html, form="10-Q", infer=True)) == [
        "10-Q/Inferred/Narrative",
        "10-Q/Inferred/Part I/Item 2",
        "10-Q/Inferred/Part II/Item 1A",
    ]


def test_thresholds_come_from_settings():
    html = "<p>FORM 10-K</p>" + _BUSINESS * 6
    strict = ParseSettings(inferred_min_chars=1_000_000)
    doc = parse_markup(f"<html><body>{html}</body></html>", is_html=True)
    sections, _ = detect_sections(doc.blocks, "10-K")
    assert [s.label for s in with_inferred_sections(doc.blocks, "10-K", sections, strict)[0]] == [
        "10-K/Document"
    ]


# -- extraction, retrieval and the items check -------------------------------------------------
def test_inferred_sections_are_extracted():
    chunks = pl.DataFrame(
        {
            "section": [
                "10-K/Inferred/Item 1A",
                "10-K/Inferred/Narrative",
                "10-Q/Inferred/Part I/Item 2",
                "10-K/Document",
                "10-K/Inferred/Item 1A",
            ],
            "kind": ["prose", "prose", "prose", "prose", "table"],
        }
    )
    assert narrative_chunks(chunks)["section"].to_list() == [
        "10-K/Inferred/Item 1A",
        "10-K/Inferred/Narrative",
        "10-Q/Inferred/Part I/Item 2",
    ]


def test_retrieval_titles_of_inferred_sections():
    assert section_title("10-K/Inferred/Item 1A") == "Risk Factors (inferred)"
    assert section_title("10-Q/Inferred/Part I/Item 2").startswith("Management's Discussion")
    assert section_title("10-K/Inferred/Narrative") == "Narrative (inferred)"


def test_items_check_accepts_inferred_items_and_fails_narrative_only():
    end = dt.date(2024, 12, 31)
    ok = annual_report_items(
        {
            inferred_label("10-K/Item 1A"): 5,
            inferred_label("10-K/Item 7"): 4,
            "10-K/Inferred/Narrative": 1,
        },
        "10-K",
        end,
        "",
    )
    assert ok.passed and ok.figures["inferred"]
    narrative_only = annual_report_items({"10-K/Inferred/Narrative": 9}, "10-K", end, "")
    assert not narrative_only.passed and narrative_only.figures["no_item_headings"]
    no_mdna = annual_report_items({inferred_label("10-K/Item 1A"): 5}, "10-K", end, "")
    assert not no_mdna.passed and no_mdna.figures["missing"] == ["10-K/Item 7"]


def test_chunk_filing_extracts_the_narrative_of_an_unknown_layout(tmp_path, data_root):
    from graphrag_core.intake.local_folder import LocalFolderSource
    from graphrag_core.intake.raw_filing import ingest_filing
    from graphrag_core.tables.table_store import TableStore
    from graphrag_core.text.filing_chunks import chunk_filing

    inbox = tmp_path / "inbox"
    inbox.mkdir()
    (inbox / "unknown_layout.htm").write_text(f"<html><body>{_unknown_layout()}</body></html>")
    source = LocalFolderSource(inbox)
    ref = source.discover()[0]
    store = TableStore(data_root)
    raw = ingest_filing(ref, source.fetch(ref), store)
    out = chunk_filing(raw.meta, raw.documents, store)
    assert {"10-K/Inferred/Item 1A", "10-K/Inferred/Item 7"} <= set(out.sections())
    assert any("sections inferred from the text" in w for w in out.warnings)
    extracted = set(narrative_chunks(out.chunks)["section"].to_list())
    assert "10-K/Inferred/Item 1A" in extracted
