"""What a section label means in words: '10-K/Item 1A' → 'Risk Factors'.

A question rarely says "Item 7"; it says "management's discussion" or simply asks about
results. Every chunk is indexed (for both full text and vectors) under a heading that names its
company, form and section title in words, so a question about "risks" meets Item 1A's chunks
even when the passage itself never says "risk"."""

from __future__ import annotations

import re

TEN_K_ITEMS = {
    "1": "Business",
    "1A": "Risk Factors",
    "1B": "Unresolved Staff Comments",
    "1C": "Cybersecurity",
    "2": "Properties",
    "3": "Legal Proceedings",
    "4": "Mine Safety Disclosures",
    "4A": "Executive Officers",
    "5": "Market for Common Equity, Stockholder Matters and Share Repurchases",
    "6": "Selected Financial Data",
    "7": "Management's Discussion and Analysis of Financial Condition and Results of Operations",
    "7A": "Quantitative and Qualitative Disclosures About Market Risk",
    "8": "Financial Statements and Supplementary Data",
    "9": "Changes in and Disagreements with Accountants",
    "9A": "Controls and Procedures",
    "9B": "Other Information",
    "9C": "Foreign Jurisdictions that Prevent Inspections",
    "10": "Directors, Executive Officers and Corporate Governance",
    "11": "Executive Compensation",
    "12": "Security Ownership of Beneficial Owners and Management",
    "13": "Certain Relationships, Related Transactions and Director Independence",
    "14": "Principal Accountant Fees and Services",
    "15": "Exhibits and Financial Statement Schedules",
    "16": "Form 10-K Summary",
}
TEN_Q_ITEMS = {
    "Part I/Item 1": "Financial Statements",
    "Part I/Item 2": "Management's Discussion and Analysis of Financial Condition and Results of "
    "Operations",
    "Part I/Item 3": "Quantitative and Qualitative Disclosures About Market Risk",
    "Part I/Item 4": "Controls and Procedures",
    "Part II/Item 1": "Legal Proceedings",
    "Part II/Item 1A": "Risk Factors",
    "Part II/Item 2": "Unregistered Sales of Equity Securities and Share Repurchases",
    "Part II/Item 3": "Defaults Upon Senior Securities",
    "Part II/Item 4": "Mine Safety Disclosures",
    "Part II/Item 5": "Other Information",
    "Part II/Item 6": "Exhibits",
}
EIGHT_K_ITEMS = {
    "1.01": "Entry into a Material Definitive Agreement",
    "1.02": "Termination of a Material Agreement",
    "2.01": "Completion of Acquisition or Disposition of Assets",
    "2.02": "Results of Operations and Financial Condition",
    "2.03": "Creation of a Direct Financial Obligation",
    "2.05": "Exit or Disposal Costs",
    "2.06": "Material Impairments",
    "4.01": "Changes in Certifying Accountant",
    "4.02": "Non-Reliance on Previously Issued Financial Statements",
    "5.02": "Departure or Election of Directors or Officers; Compensation Arrangements",
    "5.03": "Amendments to Articles or Bylaws",
    "5.07": "Submission of Matters to a Vote of Security Holders",
    "7.01": "Regulation FD Disclosure",
    "8.01": "Other Events",
    "9.01": "Financial Statements and Exhibits",
}
OTHER_PARTS = {
    "Cover": "Cover Page",
    "Signatures": "Signatures",
    "Document": "Document",
    "Financial Statements": "Financial Statements",
}
_INFERRED = "Inferred/"
_EXHIBIT_RE = re.compile(r"^Exhibit\s+(\d+)(?:\.\d+)?$")
_EXHIBITS = {"21": "Subsidiaries of the Registrant", "99": "Press Release"}


def section_title(section: str | None) -> str:
    """'10-K/Item 7' → "Management's Discussion and Analysis …"; '8-K/Exhibit 99.1' → 'Press
    Release'; an unknown label → its own last part (never an error: labels evolve)."""
    if not section:
        return ""
    form, _, rest = section.partition("/")
    if not rest:
        return section
    if rest.startswith(_INFERRED):
        # A section inferred from the text of an unknown layout: the item's title, marked as
        # inferred so an answer does not cite it as the filer's own heading.
        inner = rest[len(_INFERRED) :]
        title = section_title(f"{form}/{inner}") if inner != "Narrative" else "Narrative"
        return f"{title} (inferred)"
    if m := _EXHIBIT_RE.match(rest):
        return _EXHIBITS.get(m.group(1), rest)
    if rest in OTHER_PARTS:
        return OTHER_PARTS[rest]
    if form.startswith("10-Q") and rest in TEN_Q_ITEMS:
        return TEN_Q_ITEMS[rest]
    item = rest.rsplit("Item ", 1)[-1] if "Item " in rest else ""
    if form.startswith("10-K") and item in TEN_K_ITEMS:
        return TEN_K_ITEMS[item]
    if form.startswith("8-K") and item in EIGHT_K_ITEMS:
        return EIGHT_K_ITEMS[item]
    return rest


def heading(company: str | None, form: str | None, section: str | None, kind: str | None) -> str:
    """The line a chunk is indexed under: 'NVIDIA Corp · 10-K · Risk Factors'. Tables say so
    ('· table'), since "what does the balance sheet show" should meet tables first."""
    parts = [p for p in (company, form, section_title(section)) if p]
    if kind == "table":
        parts.append("table")
    return " · ".join(parts)
