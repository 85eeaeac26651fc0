"""HTML → blocks: tables cleaned and rendered, scale headers, hidden iXBRL, page furniture."""

from graphrag_core.text.parsing import parse_markup, scale_phrase

INCOME = """
<html><body>
<div style="display:none"><ix:header><ix:hidden><ix:nonNumeric name="dei:DocumentType" id="h1">10-K</ix:nonNumeric></ix:hidden></ix:header></div>
<p>Consolidated Statements of Income</p>
<p>(In millions, except per share data)</p>
<table>
<tr><td></td><td colspan="6">Year Ended</td></tr>
<tr><td></td><td colspan="2">Jan 26, 2025</td><td></td><td colspan="2">Jan 28, 2024</td><td></td></tr>
<tr><td>Revenue</td><td>$</td><td><ix:nonFraction id="f1" name="us-gaap:Revenues" scale="6">130,497</ix:nonFraction></td><td></td><td>$</td><td>60,922</td><td></td></tr>
<tr><td>Cost of revenue</td><td colspan="2"><ix:nonFraction id="f2" name="us-gaap:CostOfRevenue" scale="6">32,639</ix:nonFraction></td><td></td><td colspan="2">16,621</td><td></td></tr>
<tr><td>Interest expense</td><td></td><td>(247</td><td>)</td><td></td><td>(257</td><td>)</td></tr>
</table>
<p>12</p>
</body></html>
"""  # noqa: E501


def test_financial_table_is_rendered_clean_with_its_scale_header():
    doc = parse_markup(INCOME, is_html=True)
    tables = [b for b in doc.blocks if b.kind == "table"]
    assert len(tables) == 1
    table = tables[0]
    assert table.scale_header == "in millions, except per share data"
    lines = table.text.split("\n")
    assert lines[1] == "|  | Jan 26, 2025 | Jan 28, 2024 |"
    assert "| Revenue | $130,497 | $60,922 |" in lines
    assert "| Cost of revenue | 32,639 | 16,621 |" in lines
    assert "| Interest expense | (247) | (257) |" in lines
    assert table.ix_ids == ("f1", "f2")


def test_hidden_ixbrl_header_and_page_numbers_never_reach_the_text():
    doc = parse_markup(INCOME, is_html=True)
    assert "10-K" not in doc.text  # the hidden dei fact
    assert "\n\n12" not in doc.text


def test_block_spans_index_the_normalized_text():
    doc = parse_markup(INCOME, is_html=True, offset=100)
    assert len(doc.blocks) >= 3 and {b.kind for b in doc.blocks} == {"text", "table"}
    for b in doc.blocks:
        assert doc.text[b.start - 100 : b.end - 100] == b.text


def test_layout_tables_become_paragraphs():
    html = """<html><body>
    <table><tr><td>•</td><td>suppliers of GPUs and CPUs;</td></tr><tr><td>•</td><td>cloud providers.</td></tr></table>
    <table><tr><td><b>Item 1.</b></td><td><b>Business</b></td></tr></table>
    </body></html>"""  # noqa: E501
    doc = parse_markup(html, is_html=True)
    assert [b.kind for b in doc.blocks] == ["text", "text", "text"]
    assert doc.blocks[0].text == "• suppliers of GPUs and CPUs;"
    assert doc.blocks[2].text == "Item 1. Business"


def test_paragraph_cut_by_a_page_break_is_rejoined():
    html = """<html><body>
    <p>Our products depend on third-party foundries and on a small number of assembly and test</p>
    <p>Apple Inc. | 2024 Form 10-K | 21</p>
    <hr style="page-break-after:always"/>
    <p>partners located in Asia.</p>
    </body></html>"""
    doc = parse_markup(
        html.replace("<p>Apple Inc. | 2024 Form 10-K | 21</p>", "<p>21</p>"), is_html=True
    )
    assert [b.text for b in doc.blocks] == [
        "Our products depend on third-party foundries and on a small number of assembly and test "
        "partners located in Asia."
    ]


def test_running_headers_repeated_on_every_page_are_dropped():
    pages = "".join(
        f"<p>Apple Inc. | 2024 Form 10-K | {n}</p><p>Paragraph {n} of the report ends here.</p>"
        for n in range(1, 7)
    )
    doc = parse_markup(f"<html><body>{pages}</body></html>", is_html=True)
    assert all("Form 10-K |" not in b.text for b in doc.blocks)
    assert len(doc.blocks) == 6


def test_scale_phrases():
    assert scale_phrase("(Dollars in thousands)") == "dollars in thousands"
    assert (
        scale_phrase("Amounts in millions, except per share amounts")
        == "amounts in millions, except per share amounts"
    )
    assert scale_phrase("Revenue grew in most markets") is None


def test_plain_text_documents_and_fixed_width_tables():
    text = (
        "ITEM 1. BUSINESS\n\nThe Company was incorporated in 1988\nand sells dermatology "
        "products.\n\n"
        "                        1999        1998\nNet revenues       $ 117,001   $ 83,417\n"
        "Net income            41,019     26,402\nTotal assets         414,612    353,151\n"
    )
    doc = parse_markup(text, is_html=False)
    assert (
        doc.blocks[1].text == "The Company was incorporated in 1988 and sells dermatology products."
    )
    assert doc.blocks[2].kind == "table"
    assert "| Net income | 41,019 | 26,402 |" in doc.blocks[2].text


def test_emphasized_openings_of_paragraphs_are_kept_as_headings():
    html = (
        "<html><body>"
        '<div><span style="font-weight:700">Competition could harm our business.</span></div>'
        '<div><span style="font-weight:400">We compete with </span><span '
        'style="font-weight:400">Visa.</span></div>'
        "<p><b>Suppliers.</b> We buy memory from Micron.</p>"
        "<p><i>Risks Related to Our Industry</i></p>"
        '<div style="font-weight:bold"><span style="font-weight:normal">Plain text in a '
        "bold box.</span></div>"
        "</body></html>"
    )
    doc = parse_markup(html, is_html=True)
    lead = [(b.text, b.text[: b.lead_emphasis]) for b in doc.blocks]
    assert lead == [
        ("Competition could harm our business.", "Competition could harm our business."),
        ("We compete with Visa.", ""),
        ("Suppliers. We buy memory from Micron.", "Suppliers."),
        ("Risks Related to Our Industry", "Risks Related to Our Industry"),
        ("Plain text in a bold box.", ""),
    ]


def test_chunks_carry_the_spans_of_their_headings():
    from graphrag_core.settings import ChunkingSettings
    from graphrag_core.text.chunking import chunk_section
    from graphrag_core.text.sections import detect_sections

    html = (
        "<html><body><p>Item 1A. Risk Factors</p>"
        "<p><b>We depend on a few suppliers.</b></p><p>We buy wafers from one foundry. It "
        "could fail.</p>"
        "<p><b>Competition.</b> We compete with many companies.</p></body></html>"
    )
    doc = parse_markup(html, is_html=True)
    sections, _ = detect_sections(doc.blocks, "10-K")
    rows = [
        r
        for s in sections
        for r in chunk_section(doc.blocks, s, "f", "10-K", doc.text, ChunkingSettings())
    ]
    [risk] = [r for r in rows if r["section"] == "10-K/Item 1A"]
    heads = [risk["text"][h["start"] : h["end"]] for h in risk["headings"]]
    assert heads == ["We depend on a few suppliers.", "Competition."]
