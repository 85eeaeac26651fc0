"""Section detection: TOC entries, running headers and cross-references never split a section."""

import re

import pytest

from graphrag_core.text.documents import decode_document
from graphrag_core.text.parsing import parse_markup
from graphrag_core.text.sections import detect_sections, form_family

TOC = """<table>
<tr><td></td><td></td><td>Page</td></tr>
<tr><td>Item 1.</td><td>Business</td><td>3</td></tr>
<tr><td>Item 1A.</td><td>Risk Factors</td><td>9</td></tr>
<tr><td>Item 7.</td><td>Management's Discussion and Analysis</td><td>30</td></tr>
<tr><td>Item 8.</td><td>Financial Statements</td><td>41</td></tr>
</table>"""

BODY = """
<p>PART I</p>
<p>Item 1. Business</p>
<p>We design widgets. For a discussion of our results, see Item 7 of this report.</p>
<p>Item 7 of this report, "Management's Discussion and Analysis", also describes how our customers order widgets, which is why it is referenced here in some detail and at length.</p>
<p>Item 1A. Risk Factors</p>
<p>Our business depends on a single supplier of widget housings, and a disruption at that supplier would delay our shipments.</p>
<p>Item 7. Management’s Discussion and Analysis of Financial Condition and Results of Operations</p>
<p>Revenue grew 12% in fiscal 2025, driven by higher unit volumes in North America and new customers in Europe.</p>
<p>Item 7. Management’s Discussion and Analysis</p>
<p>Gross margin improved on mix, as higher-margin service contracts grew faster than hardware sales this year.</p>
<p>Item 8. Financial Statements and Supplementary Data</p>
<p>See the statements that follow.</p>
"""  # noqa: E501


def _sections(html: str, form: str):
    doc = parse_markup(html, is_html=True)
    sections, warnings = detect_sections(doc.blocks, form)
    texts = {s.label: " ".join(b.text for b in doc.blocks[s.first : s.last]) for s in sections}
    return [s.label for s in sections], texts, warnings


def test_toc_running_headers_and_cross_references_do_not_create_sections():
    labels, texts, warnings = _sections(
        f"<html><body><p>FORM 10-K</p>{TOC}{BODY}</body></html>", "10-K"
    )
    assert labels == ["10-K/Cover", "10-K/Item 1", "10-K/Item 1A", "10-K/Item 7", "10-K/Item 8"]
    assert "see Item 7 of this report" in texts["10-K/Item 1"]
    assert "Item 7 of this report, " in texts["10-K/Item 1"]
    # the repeated "Item 7" running header stays inside Item 7
    assert (
        "Revenue grew 12%" in texts["10-K/Item 7"]
        and "Gross margin improved" in texts["10-K/Item 7"]
    )
    assert "Risk Factors" in texts["10-K/Cover"]  # the table of contents stays on the cover
    assert not warnings


def test_ten_q_items_are_assigned_to_their_parts():
    filler = (
        " The details are described in the notes to the condensed consolidated financial "
        "statements."
    )
    html = f"""<html><body>
    <p>PART I. FINANCIAL INFORMATION</p><p>Item 1. Financial Statements</p><p>Balance sheet.{filler}</p>
    <p>Item 2. Management's Discussion and Analysis of Financial Condition</p><p>Sales rose.{filler}</p>
    <p>PART II. OTHER INFORMATION</p><p>Item 1. Legal Proceedings</p><p>None.{filler}</p>
    <p>Item 1A. Risk Factors</p><p>No material changes.{filler}</p>
    <p>Item 2. Unregistered Sales of Equity Securities and Use of Proceeds</p><p>Buybacks.{filler}</p>
    <p>Item 6. Exhibits</p><p>31.1 Certification.</p>
    </body></html>"""  # noqa: E501
    labels, texts, _ = _sections(html, "10-Q")
    assert labels == [
        "10-Q/Cover",
        "10-Q/Part I/Item 1",
        "10-Q/Part I/Item 2",
        "10-Q/Part II/Item 1",
        "10-Q/Part II/Item 1A",
        "10-Q/Part II/Item 2",
        "10-Q/Part II/Item 6",
    ]
    assert "Sales rose." in texts["10-Q/Part I/Item 2"]
    assert "Buybacks." in texts["10-Q/Part II/Item 2"]


def test_eight_k_items_modern_and_legacy():
    labels, _, _ = _sections(
        "<html><body><p>FORM 8-K</p><p>Item 2.02 Results of Operations and Financial "
        "Condition</p><p>Press release.</p>"
        "<p>Item 9.01. Financial Statements and Exhibits</p><p>99.1 Press "
        "release</p></body></html>",
        "8-K",
    )
    assert labels == ["8-K/Cover", "8-K/Item 2.02", "8-K/Item 9.01"]
    labels, _, _ = _sections(
        "<html><body><p>FORM 8-K</p><p>Item 5. Other Events</p><p>News.</p><p>Item 7. "
        "Financial Statements and Exhibits</p><p>x</p></body></html>",
        "8-K",
    )
    assert labels == ["8-K/Cover", "8-K/Item 5", "8-K/Item 7"]


def test_document_without_items_is_one_section_with_a_warning():
    labels, _, warnings = _sections(
        "<html><body><p>Annual letter to shareholders.</p></body></html>", "10-K"
    )
    assert labels == ["10-K/Document"]
    assert warnings and "no 10-K item headings" in warnings[0]


def test_form_family():
    assert form_family("10-K405") == "10-K"
    assert form_family("10-K/A") == "10-K"
    assert form_family("10-Q/A") == "10-Q"
    assert form_family("8-K/A") == "8-K"


# --- the corpus --------------------------------------------------------------------------------

SUBSTANTIAL = 5_000  # characters


def _corpus_sections(corpus_dir, record):
    path = corpus_dir / record["path"]
    decoded = decode_document(path.read_bytes(), str(path))
    doc = parse_markup(decoded.markup, decoded.is_html)
    sections, _ = detect_sections(doc.blocks, record["form"])
    return doc, sections


def _primary(manifest, form):
    return [r for r in manifest if r["document_type"] == form]


@pytest.mark.slow
def test_every_corpus_10k_has_items_1_1a_and_7(corpus_dir, corpus_manifest):
    records = _primary(corpus_manifest, "10-K")
    assert len(records) >= 26
    for record in records:
        doc, sections = _corpus_sections(corpus_dir, record)
        texts = {s.label: " ".join(b.text for b in doc.blocks[s.first : s.last]) for s in sections}
        # Item 1A (risk factors) became mandatory for fiscal years ending after 2005-12-01.
        required = ["10-K/Item 1", "10-K/Item 7"]
        if record["period_end"] >= "2005-12-01":
            required.append("10-K/Item 1A")
        for label in required:
            assert label in texts, f"{record['path']}: {label} not found ({list(texts)})"
            text = texts[label]
            # Some registrants (IBM, Wells Fargo, the 1999 filer) answer an item by pointing
            # to their annual report, and smaller reporting companies may omit risk factors;
            # such an answer is the item's whole text.
            answered_elsewhere = re.search(
                r"incorporated\s+(?:herein\s+|into this "
                r"item\s+)?by\s+reference|\bnot\s+applicable\b",
                text,
                re.I,
            )
            assert len(text) >= SUBSTANTIAL or answered_elsewhere, (
                f"{record['path']}: {label} has {len(text)} chars"
            )


@pytest.mark.slow
def test_every_corpus_10q_has_part_i_item_2(corpus_dir, corpus_manifest):
    records = _primary(corpus_manifest, "10-Q")
    assert len(records) == 16
    for record in records:
        doc, sections = _corpus_sections(corpus_dir, record)
        labels = [s.label for s in sections]
        assert "10-Q/Part I/Item 2" in labels, f"{record['path']}: {labels}"
        md_and_a = next(s for s in sections if s.label == "10-Q/Part I/Item 2")
        assert sum(len(b.text) for b in doc.blocks[md_and_a.first : md_and_a.last]) >= SUBSTANTIAL


@pytest.mark.slow
def test_corpus_sections_are_in_canonical_order(corpus_dir, corpus_manifest):
    from graphrag_core.text.sections import TEN_K_ITEMS

    order = {f"10-K/Item {num}": k for k, (num, _t) in enumerate(TEN_K_ITEMS)}
    records = _primary(corpus_manifest, "10-K")
    assert len(records) == 27
    for record in records:
        _, sections = _corpus_sections(corpus_dir, record)
        ranks = [order[s.label] for s in sections if s.label in order]
        assert ranks == sorted(ranks) and len(ranks) == len(set(ranks)), record["path"]
        # Most items of the form were found, not just a sorted handful (the oldest 10-K, of
        # 1999, has 15 of the 23 item numbers of today's form).
        assert len(ranks) >= 15, f"{record['path']}: {len(ranks)} items"


def test_signatures_and_trailing_statements_are_their_own_sections():
    filler = (
        "<p>"
        + "The information required by this item is set out in the pages that follow this report. "
        * 3
        + "</p>"
    )
    statements = (
        "<p>"
        + "Net revenues for the year increased on higher volumes of our core products. " * 40
        + "</p>"
    )
    html = (
        "<html><body><p>FORM 10-K</p>"
        f"<p>Item 1. Business</p>{filler}"
        "<p>Item 4A. Information about our Executive Officers</p><p>Our executive officers "
        "are listed below with their ages and positions.</p>"
        f"<p>Item 15. Exhibits and Financial Statement Schedules</p>{filler}"
        "<p>SIGNATURES</p><p>Pursuant to the requirements of Section 13, the registrant has "
        "duly caused this report to be signed.</p>"
        f"<p>INDEX TO CONSOLIDATED FINANCIAL STATEMENTS</p>{statements}"
        "</body></html>"
    )
    labels, texts, _ = _sections(html, "10-K")
    assert labels == [
        "10-K/Cover",
        "10-K/Item 1",
        "10-K/Item 4A",
        "10-K/Item 15",
        "10-K/Signatures",
        "10-K/Financial Statements",
    ]
    assert "duly caused this report to be signed" in texts["10-K/Signatures"]
    assert "duly caused" not in texts["10-K/Item 15"]
    assert texts["10-K/Financial Statements"].startswith(
        "INDEX TO CONSOLIDATED FINANCIAL STATEMENTS"
    )
