"""The text stage's quality checks on one filing's chunks."""

from __future__ import annotations

import datetime as dt
import re

import polars as pl

from graphrag_core.common.checks import CheckVerdict
from graphrag_core.text.inferred_sections import inferred_label, is_inferred
from graphrag_core.text.sections import form_family

REQUIRED_ITEMS: dict[str, tuple[str, ...]] = {
    "10-K": ("10-K/Item 1", "10-K/Item 1A", "10-K/Item 7"),
    "10-Q": ("10-Q/Part I/Item 2",),
}


def spans_match_text(chunks: pl.DataFrame, text: str) -> CheckVerdict:
    """Blocking: every prose, turn and Q&A chunk equals its span of the filing's saved text, so
    every quote cited from it can be found again. (A table's continuation parts repeat its
    header rows, so tables are not compared.)"""
    contiguous = chunks.filter(pl.col("kind") != "table")
    mismatched = [
        r["chunk_id"]
        for r in contiguous.select("chunk_id", "text", "char_start", "char_end").iter_rows(
            named=True
        )
        if text[r["char_start"] : r["char_end"]] != r["text"]
    ]
    return CheckVerdict(
        asset="section_chunks",
        check="spans_match_text",
        passed=not mismatched,
        blocking=True,
        figures={
            "checked": contiguous.height,
            "mismatched": len(mismatched),
            "first": mismatched[:5],
        },
    )


def required_items_found(sections: dict[str, int], form: str) -> CheckVerdict:
    """Warning only: a 10-K without Items 1, 1A and 7, or a 10-Q without Part I Item 2, was
    probably cut wrong (or incorporates them by reference)."""
    required = REQUIRED_ITEMS.get(form_family(form), ())
    missing = [s for s in required if s not in sections]
    return CheckVerdict(
        asset="section_chunks",
        check="required_items_found",
        passed=not missing,
        blocking=False,
        figures={"missing": missing, "form": form},
    )


# Item 1A (risk factors) became part of Form 10-K for fiscal years ending on or after
# 1 December 2005 (SEC Release 33-8591); older annual reports have no such item.
ITEM_1A_REQUIRED_FROM = dt.date(2005, 12, 1)
ANNUAL_ITEMS = {"10-K/Item 1A": r"1A", "10-K/Item 7": r"7"}
# What a filer writes instead of the item: incorporated from the annual report to shareholders
# (an exhibit 13), not applicable, or not required of a smaller reporting company.
EXPLAINED_RE = (
    r"(incorporated\s+(?:herein\s+)?by\s+reference|not\s+applicable|not\s+required|omitted)"
)


def _explanation(item_number: str, text: str) -> str | None:
    """The phrase the filing uses in place of Item `item_number`, if it states one near the
    item's heading."""
    pattern = re.compile(
        rf"\bitem\s*{item_number}\b\.?(?:(?!\bitem\s*\d).){{0,400}}?{EXPLAINED_RE}",
        re.IGNORECASE | re.DOTALL,
    )
    match = pattern.search(text)
    return " ".join(match.group(1).lower().split()) if match else None


def _is_amendment(form: str) -> bool:
    return form.upper().strip().endswith("/A")


def annual_report_items(
    sections: dict[str, int], form: str, period_end: dt.date | None, text: str
) -> CheckVerdict:
    """Blocking: a 10-K yields Items 1A and 7, each as a section or explicitly stated as
    incorporated by reference, not applicable or not required (Item 1A not for a fiscal year
    that ended before the item existed).

    A 10-K whose primary document has no Item heading at all (the whole document one
    '10-K/Document' section) fails: a 10-K without any Item is most likely the wrong document
    (an annual letter, an exhibit saved as the filing, a cut-off download). Deliberately not
    judged: an exhibit filed on its own (only exhibit sections: the primary document is not in
    the filing), and an amendment (10-K/A) without items, which often carries only a cover page,
    an explanatory note and exhibits.

    A 10-K whose items the section finder could not read but whose text showed them (sections
    `10-K/Inferred/Item 1A`, `…/Item 7`, see `inferred_sections`) passes: its narrative was
    found and is extracted, and `figures["inferred"]` says so. Inferred narrative without the
    items (`10-K/Inferred/Narrative` only) fails like a document without items."""
    family_10k = form_family(form) == "10-K"
    # Items the fallback inferred from the text of an unknown layout stand for the items;
    # narrative inferred without any item (no risk factors, no discussion) does not.
    inferred = sorted(s for s in sections if is_inferred(s))
    no_items = (
        family_10k
        and ("10-K/Document" in sections or inferred_label("10-K/Narrative") in sections)
        and not any("/Item " in s for s in sections)
        and not _is_amendment(form)
    )
    applies = family_10k and (no_items or any("/Item " in s for s in sections))
    required = [
        s
        for s in ANNUAL_ITEMS
        if not (
            s == "10-K/Item 1A" and period_end is not None and period_end < ITEM_1A_REQUIRED_FROM
        )
    ]
    missing: list[str] = []
    explained: dict[str, str] = {}
    if no_items:
        # An explanation in the text does not rescue it: with no Item heading found, the
        # document is not a 10-K's body whatever it mentions.
        missing = list(required)
    elif applies:
        for section in required:
            if section in sections or inferred_label(section) in sections:
                continue
            phrase = _explanation(ANNUAL_ITEMS[section], text)
            if phrase:
                explained[section] = phrase
            else:
                missing.append(section)
    figures: dict[str, object] = {
        "applies": applies,
        "required": required if applies else [],
        "missing": missing,
        "explained": explained,
        "form": form,
    }
    if no_items:
        figures["no_item_headings"] = True
    if inferred:
        figures["inferred"] = inferred
    return CheckVerdict(
        asset="section_chunks",
        check="annual_report_items",
        passed=not missing,
        blocking=True,
        figures=figures,
    )
